"""The peer calls. Each op: refresh() (untimed: the input as it was), run()
(the timed call), check() (untimed: raises CheckFailed), remember() (for
the unlike-the-last-sample check)."""

from peerslib.sweep import TORCH_DTYPES
from peerslib.plan import work
from peerslib.measure import CheckFailed


def topk_dist(torch, dist, total, gen, dev, ftype=None):
    """`total` fp32 values of a permbench top-k distribution, drawn with
    torch's generator (the distribution, not permbench's values); with
    ftype=torch.float64, drawn in double precision, as permbench's fp64
    values are."""
    f32 = ftype or torch.float32  # the draw's type (float64 for fp64)
    if dist == "uniform":
        return torch.rand(total, generator=gen, device=dev, dtype=f32)
    if dist == "narrow":
        return (0.6 + 0.1 * torch.rand(total, generator=gen, device=dev, dtype=torch.float64)).to(f32)
    if dist == "narrow128":
        return (128.6 + 0.1 * torch.rand(total, generator=gen, device=dev, dtype=torch.float64)).to(f32)
    if dist == "normal":
        return torch.randn(total, generator=gen, device=dev, dtype=f32)
    if dist == "equal":
        return torch.ones(total, device=dev, dtype=f32)
    if dist == "zipf":
        ranks = 1 << 20
        w = torch.arange(1, ranks + 1, device=dev, dtype=torch.float64).pow(-1.1)
        cdf = torch.cumsum(w, 0)
        cdf /= cdf[-1].clone()
        u = torch.rand(total, generator=gen, device=dev, dtype=torch.float64)
        r = torch.searchsorted(cdf, u).clamp_(max=ranks - 1)
        return (r + 1).to(f32)
    if dist == "inf":
        u = torch.rand(total, generator=gen, device=dev, dtype=f32)
        v = 2 * torch.rand(total, generator=gen, device=dev, dtype=f32) - 1
        v = torch.where(u < 0.25, torch.full_like(v, float("inf")), v)
        return torch.where((u >= 0.25) & (u < 0.5), torch.full_like(v, float("-inf")), v)
    if dist == "relu":
        u = torch.rand(total, generator=gen, device=dev, dtype=f32)
        v = torch.randn(total, generator=gen, device=dev, dtype=f32).abs_()
        return torch.where(u < 0.5, torch.zeros_like(v), v)
    if dist == "int8":
        return (torch.randint(0, 256, (total,), generator=gen, device=dev) - 128).to(f32)
    if dist.startswith("few:"):
        levels = int(dist[4:])
        r = torch.randint(0, levels, (total,), generator=gen, device=dev)
        return (r.to(torch.float64) / levels).to(f32)
    if dist.startswith("masked:"):
        frac = float(dist[7:])
        u = torch.rand(total, generator=gen, device=dev, dtype=f32)
        v = torch.rand(total, generator=gen, device=dev, dtype=f32)
        return torch.where(u < frac, torch.full_like(v, float("-inf")), v)
    raise ValueError("dist %s has no generator here" % dist)


def topk_ordered(torch, dist, rows, n, dev, dtype="f32"):
    """sorted and reversed, as permbench's fill_ordered: position j of a row
    of n holds the float whose bits are j * one / n (0 up to 1; one is 1.0's
    bit pattern in the type: 0x3f800000, 0x3c00 for fp16, 0x3f80 for bf16,
    0x3ff0000000000000 for fp64)."""
    j = torch.arange(n, device=dev, dtype=torch.int64)
    if dist == "reversed":
        j = n - 1 - j
    if dtype == "f32":
        return (j * 0x3f800000 // n).to(torch.int32).view(torch.float32).repeat(rows)
    if dtype == "f64":
        # floor(j * one / n) without the 2^94 product: j (one // n) +
        # floor(j (one % n) / n), the second product below n^2 < 2^63.
        one = 0x3ff0000000000000
        return (j * (one // n) + j * (one % n) // n).view(torch.float64).repeat(rows)
    one = 0x3c00 if dtype == "f16" else 0x3f80
    bits = (j * one // n).to(torch.int16)
    return bits.view(getattr(torch, TORCH_DTYPES[dtype])).repeat(rows)


class TopkData(object):
    """One top-k input (n, rows, dist, misalign, largest) on the GPU, and the
    answer every peer is checked against: each row sorted by torch.sort,
    its first kmax values kept."""

    def __init__(self, torch, dev, gen, n, p, kmax):
        rows = int(p["rows"])
        total = rows * n
        dt = getattr(torch, TORCH_DTYPES[p.get("dtype", "f32")])
        if p["dist"] in ("sorted", "reversed"):
            vals = topk_ordered(torch, p["dist"], rows, n, dev, p.get("dtype", "f32"))
        else:
            # fp16 / bf16: the fp32 draw rounded (to nearest even), as
            # permbench's 16-bit distributions are; fp64 drawn in double
            # precision, as permbench's fp64 ones are.
            wide = torch.float64 if p.get("dtype") == "f64" else None
            vals = topk_dist(torch, p["dist"], total, gen, dev, wide).to(dt)
        if p["misalign"]:
            # Rows back to back, the first value past a 16-byte boundary:
            # every row starts misaligned when n is a multiple of 4.
            self.buf = torch.empty(total + 4, dtype=dt, device=dev)
            flat = self.buf[1:1 + total]
            flat.copy_(vals)
        else:
            self.buf = vals
            flat = vals
        del vals
        self.x = flat.view(rows, n) if rows > 1 else flat
        self.largest = bool(p["largest"])
        self.kmax = min(kmax, n)
        s = torch.sort(self.x, dim=-1, descending=self.largest).values
        self.ref = s[..., :self.kmax].clone()
        del s


class TorchTopk(object):
    def __init__(self, torch, peer, data, k, n):
        self.t, self.peer, self.d = torch, peer.module, data
        self.k = min(k, n)
        self.out = None

    def refresh(self):
        self.out = None  # the last sample's output goes; the call makes a new one

    def run(self):
        t, x, L = self.t, self.d.x, self.d.largest
        if self.peer == "torch-topk":
            self.out = t.topk(x, self.k, dim=-1, largest=L, sorted=False)
        elif self.peer == "torch-topk-sorted":
            self.out = t.topk(x, self.k, dim=-1, largest=L, sorted=True)
        else:
            v, i = t.sort(x, dim=-1, descending=L)
            self.out = (v[..., :self.k], i[..., :self.k])

    def remember(self):
        pass

    def check(self):
        t = self.t
        v, i = self.out
        want = tuple(self.d.x.shape[:-1]) + (self.k,)
        if tuple(v.shape) != want or tuple(i.shape) != want:
            raise CheckFailed("output shape %s, expected %s" % (tuple(v.shape), want))
        ref = self.d.ref[..., :self.k]
        got = v if self.peer != "torch-topk" else t.sort(v, dim=-1, descending=self.d.largest).values
        if not t.equal(got, ref):
            bad = int((got != ref).sum())
            raise CheckFailed("%d of the values are not the %s k of the row" %
                              (bad, "largest" if self.d.largest else "smallest"))
        if bool((i < 0).any()) or bool((i >= self.d.x.shape[-1]).any()):
            raise CheckFailed("an index outside the row")
        if not t.equal(t.gather(self.d.x, -1, i), v):
            raise CheckFailed("an index does not point at its value")
        if self.k > 1:
            s = t.sort(i, dim=-1).values
            if bool((s[..., 1:] == s[..., :-1]).any()):
                raise CheckFailed("an index appears twice in a row")


class ShuffleCheck(object):
    """A permutation of the input 0..n-1 (range, then a bitmap of n bits),
    and not the last sample's output (its first 4096 items; n >= 16)."""

    def _check_perm(self, y, n, seen, head):
        if y.shape[0] != n:
            raise CheckFailed("%d items out, %d in" % (y.shape[0], n))
        lo, hi = int(y.min()), int(y.max())
        if lo < 0 or hi >= n:
            raise CheckFailed("an item (%d) that was not in the input" % (lo if lo < 0 else hi))
        seen[y] = True
        if not bool(seen.all()):
            raise CheckFailed("%d items of the input are missing (others repeated)" % int((~seen).sum()))
        if n >= 16 and self.last is not None and bool((head == self.last).all()):
            raise CheckFailed("the same output as the sample before (a stream apart)")
        self.last = head


class TorchShuffle(ShuffleCheck):
    def __init__(self, torch, peer, x, gen):
        self.t, self.peer, self.x, self.gen = torch, peer.module, x, gen
        self.out, self.last = None, None

    def refresh(self):
        self.out = None

    def run(self):
        t, x = self.t, self.x
        n = x.shape[0]
        if self.peer == "torch-randperm-index":
            self.out = x[t.randperm(n, device=x.device, generator=self.gen)]
        else:
            keys = t.empty(n, dtype=t.int64, device=x.device).random_(generator=self.gen)
            self.out = x[t.sort(keys).indices]

    def remember(self):
        self.last = self.out[:4096].clone()

    def check(self):
        t, y, n = self.t, self.out, self.x.shape[0]
        seen = t.zeros(n, dtype=t.bool, device=y.device)
        self._check_perm(y.long() if y.dtype != t.int64 else y, n, seen, y[:4096].clone())


class CupyShuffle(ShuffleCheck):
    def __init__(self, cupy, pristine):
        self.cp, self.pristine = cupy, pristine
        self.a = cupy.empty_like(pristine)
        self.last = None

    def refresh(self):
        self.cp.copyto(self.a, self.pristine)  # it shuffles in place

    def run(self):
        self.cp.random.shuffle(self.a)

    def remember(self):
        self.last = self.a[:4096].copy()

    def check(self):
        cp, n = self.cp, self.pristine.shape[0]
        self._check_perm(self.a, n, cp.zeros(n, dtype=cp.bool_), self.a[:4096].copy())


def jax_topk_values(jax, dist, rows, n, dtype, key):
    """`rows` x `n` values of a permbench top-k distribution drawn with
    jax.random (the distribution, not permbench's values), in the dtype's
    jnp type, as topk_dist and topk_ordered draw them for torch."""
    jnp, r = jax.numpy, jax.random
    total = rows * n
    dt = getattr(jnp, TORCH_DTYPES[dtype])
    if dist in ("sorted", "reversed"):
        j = jnp.arange(n, dtype=jnp.int64)
        if dist == "reversed":
            j = n - 1 - j
        if dtype == "f64":
            one = 0x3ff0000000000000
            v = (j * (one // n) + j * (one % n) // n).view(jnp.float64)
        elif dtype == "f32":
            v = (j * 0x3f800000 // n).astype(jnp.int32).view(jnp.float32)
        else:
            v = (j * (0x3c00 if dtype == "f16" else 0x3f80) // n).astype(jnp.int16).view(dt)
        return jnp.tile(v, rows)
    f = jnp.float64 if dtype == "f64" else jnp.float32  # the draw's type, as for torch
    k1, k2 = r.split(key)
    if dist == "uniform":
        v = r.uniform(k1, (total,), f)
    elif dist in ("narrow", "narrow128"):
        v = ((0.6 if dist == "narrow" else 128.6) + 0.1 * r.uniform(k1, (total,), jnp.float64)).astype(f)
    elif dist == "normal":
        v = r.normal(k1, (total,), f)
    elif dist == "equal":
        v = jnp.ones((total,), f)
    elif dist == "zipf":
        ranks = 1 << 20
        cdf = jnp.cumsum(jnp.arange(1, ranks + 1, dtype=jnp.float64) ** -1.1)
        rank = jnp.searchsorted(cdf / cdf[-1], r.uniform(k1, (total,), jnp.float64))
        v = (jnp.minimum(rank, ranks - 1) + 1).astype(f)
    elif dist == "inf":
        u, w = r.uniform(k1, (total,), f), 2 * r.uniform(k2, (total,), f) - 1
        v = jnp.where(u < 0.25, jnp.inf, jnp.where(u < 0.5, -jnp.inf, w)).astype(f)
    elif dist == "relu":
        u, w = r.uniform(k1, (total,), f), jnp.abs(r.normal(k2, (total,), f))
        v = jnp.where(u < 0.5, jnp.zeros_like(w), w)
    elif dist == "int8":
        v = (r.randint(k1, (total,), 0, 256) - 128).astype(f)
    elif dist.startswith("few:"):
        levels = int(dist[4:])
        v = (r.randint(k1, (total,), 0, levels).astype(jnp.float64) / levels).astype(f)
    elif dist.startswith("masked:"):
        u, w = r.uniform(k1, (total,), f), r.uniform(k2, (total,), f)
        v = jnp.where(u < float(dist[7:]), -jnp.inf, w).astype(f)
    else:
        raise ValueError("dist %s has no generator here" % dist)
    return v.astype(dt)


class JaxTopkData(object):
    """One top-k input (n, rows, dist, largest) as a JAX array, and the
    answer every peer is checked against: each row sorted by jnp.sort, its
    first kmax values kept."""

    def __init__(self, jax, key, n, p, kmax):
        jnp = jax.numpy
        rows = int(p["rows"])
        v = jax_topk_values(jax, p["dist"], rows, n, p.get("dtype", "f32"), key)
        self.x = v.reshape(rows, n) if rows > 1 else v
        self.largest = bool(p["largest"])
        self.kmax = min(kmax, n)
        s = jnp.sort(self.x, axis=-1)
        self.ref = (jnp.flip(s, -1) if self.largest else s)[..., :self.kmax]
        self.ref.block_until_ready()


class JaxTopk(object):
    """jax.lax.top_k under jit (the way JAX code calls it: one compiled
    program; negation fused for smallest), compiled here, untimed. run()
    waits for its output (block_until_ready): JAX gives Python no CUDA
    events, so the host clock times the call (JaxBackend)."""

    def __init__(self, jax, data, k, n):
        self.jax, self.d, self.k = jax, data, min(k, n)
        top_k, kk = jax.lax.top_k, self.k
        if data.largest:
            self.f = jax.jit(lambda x: top_k(x, kk))
        else:
            self.f = jax.jit(lambda x: (lambda v, i: (-v, i))(*top_k(-x, kk)))
        self.out = None
        self.run()  # compiled here, not in the first timed sample

    def refresh(self):
        self.out = None

    def run(self):
        self.out = self.f(self.d.x)
        self.jax.block_until_ready(self.out)

    def remember(self):
        pass

    def check(self):
        jnp = self.jax.numpy
        v, i = self.out
        want = tuple(self.d.x.shape[:-1]) + (self.k,)
        if tuple(v.shape) != want or tuple(i.shape) != want:
            raise CheckFailed("output shape %s, expected %s" % (tuple(v.shape), want))
        ref = self.d.ref[..., :self.k]
        if not bool(jnp.array_equal(v, ref)):
            raise CheckFailed("%d of the values are not the %s k of the row, in order" %
                              (int(jnp.sum(v != ref)), "largest" if self.d.largest else "smallest"))
        if bool(jnp.any(i < 0)) or bool(jnp.any(i >= self.d.x.shape[-1])):
            raise CheckFailed("an index outside the row")
        if not bool(jnp.array_equal(jnp.take_along_axis(self.d.x, i, axis=-1), v)):
            raise CheckFailed("an index does not point at its value")
        if self.k > 1:
            s = jnp.sort(i, axis=-1)
            if bool(jnp.any(s[..., 1:] == s[..., :-1])):
                raise CheckFailed("an index appears twice in a row")


class JaxShuffle(object):
    """jax.random.permutation of 0..n-1 under jit, a fresh key each sample
    (fold_in of the sample's count, inside the compiled call); run() waits
    for its output, as JaxTopk's."""

    def __init__(self, jax, x, key):
        self.jax, self.x, self.key = jax, x, key
        perm, fold_in = jax.random.permutation, jax.random.fold_in
        self.f = jax.jit(lambda base, i, x: perm(fold_in(base, i), x))
        self.i, self.out, self.last = 0, None, None
        self.run()  # compiled here, not in the first timed sample

    def refresh(self):
        self.out = None

    def run(self):
        self.i += 1
        self.out = self.f(self.key, self.i, self.x)
        self.jax.block_until_ready(self.out)

    def remember(self):
        self.last = self.out[:4096]

    def check(self):
        jnp, y, n = self.jax.numpy, self.out, self.x.shape[0]
        if y.shape[0] != n:
            raise CheckFailed("%d items out, %d in" % (y.shape[0], n))
        lo, hi = int(jnp.min(y)), int(jnp.max(y))
        if lo < 0 or hi >= n:
            raise CheckFailed("an item (%d) that was not in the input" % (lo if lo < 0 else hi))
        seen = jnp.zeros(n, dtype=bool).at[y].set(True)
        if not bool(jnp.all(seen)):
            raise CheckFailed("%d items of the input are missing (others repeated)" % int(jnp.sum(~seen)))
        head = y[:4096]
        if n >= 16 and self.last is not None and bool(jnp.array_equal(head, self.last)):
            raise CheckFailed("the same output as the sample before (a stream apart)")
        self.last = head


class SyntheticOp(object):
    def __init__(self, inst, n, item_bytes, fail):
        items, nbytes = work(inst, n, item_bytes)
        factor = 1.0 + 0.37 * (sum(ord(c) for c in inst["label"]) % 7)
        self.model_ms = 0.004 + factor * nbytes / 2.0e9
        self.fail = fail
        self.samples = 0

    def refresh(self):
        pass

    def run(self):
        self.samples += 1

    def remember(self):
        pass

    def check(self):
        if self.fail and self.samples >= 3:
            raise CheckFailed("synthetic failure (PEERS_SYNTHETIC_FAIL)")

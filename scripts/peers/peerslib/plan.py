"""The plan: which peer runs at which point."""

from peerslib.common import Bad, Skip
from peerslib.sweep import TOPK_DTYPE_BYTES, TOPK_PARAMS, TORCH_DTYPES


class Peer(object):
    """A peer call: module name, library, what it stands beside, the call."""

    def __init__(self, module, library, family, call, beside, check):
        self.module, self.library, self.family = module, library, family
        self.call, self.beside, self.check = call, beside, check


PEERS = [
    Peer("torch-topk", "torch", "topk", "torch.topk(x, k, dim=-1, largest=L, sorted=False)",
         "gpu-radik (the order within a row is free, as for every permbench top-k)",
         "values and indices against torch.sort of the input"),
    Peer("torch-topk-sorted", "torch", "topk", "torch.topk(x, k, dim=-1, largest=L, sorted=True)",
         "gpu-radik; sorted=True is what most callers leave on",
         "values in order against torch.sort of the input, indices"),
    Peer("torch-sort", "torch", "topk", "torch.sort(x, dim=-1, descending=L), then [..., :k]",
         "gpu-sort-and-choose (CUB sort of each row, the first k)",
         "values in order against torch.sort of the input, indices"),
    Peer("torch-randperm-index", "torch", "shuffle", "x[torch.randperm(n)]",
         "the bijective shuffles, gpu-sort-shuffle (randperm sorts random keys)",
         "a permutation of the input (a bitmap of n bits), unlike the last sample"),
    Peer("torch-sort-shuffle", "torch", "shuffle",
         "x[torch.sort(torch.empty(n, int64).random_()).indices]",
         "gpu-sort-shuffle (random 64-bit keys, radix sort)",
         "a permutation of the input (a bitmap of n bits), unlike the last sample"),
    Peer("cupy-shuffle", "cupy", "shuffle", "cupy.random.shuffle(x) (in place)",
         "gpu-thrust-shuffle and gpu-sort-shuffle (CuPy argsorts random keys)",
         "a permutation of the input (a bitmap of n bits), unlike the last sample"),
    Peer("jax-topk", "jax", "topk", "jax.jit(jax.lax.top_k)(x, k) (largest; smallest: top_k(-x), negated back)",
         "gpu-radik; XLA's TopK returns its k in order, as torch.topk(sorted=True)",
         "values in order against jnp.sort of the input, indices"),
    Peer("jax-permutation", "jax", "shuffle", "jax.jit(jax.random.permutation)(key, x)",
         "gpu-sort-shuffle (XLA sorts random keys)",
         "a permutation of the input (a bitmap of n bits), unlike the last sample"),
]
# The libraries by import name, as messages name them.
LIBRARY_NAMES = {"torch": "PyTorch (torch)", "cupy": "CuPy (cupy)", "jax": "JAX (jax)"}
PEER_BY_NAME = dict((p.module, p) for p in PEERS)


def _suffix(params, varying):
    """The series suffix of a top-k problem: its non-default values among
    those that vary between the sweep's problems."""
    parts = []
    defaults = dict(TOPK_PARAMS)
    for key, _ in TOPK_PARAMS:
        if key not in varying or params.get(key) == defaults[key]:
            continue
        v = params[key]
        if key == "dist":
            # "sorted" alone would read as torch-topk-sorted, the peer that
            # returns its k in order: the key orders get a prefix.
            parts.append("keys-" + v if v in ("sorted", "reversed") else str(v))
        elif key == "largest":
            parts.append("smallest")
        elif isinstance(v, bool):
            parts.append(key)
        else:
            parts.append("%s%s" % (key, v))
    return "".join("-" + p for p in parts)


def topk_problems(sweep, instances):
    """The sweep's distinct top-k problems, from its own instances: a list of
    groups (params without the axis, axis name, suffix, [(axis value text,
    params)]), in order of first appearance, and notes on what is skipped."""
    groups, notes = [], []
    for inst in instances:
        if inst["automatic"] or inst["family"] != "topk":
            continue
        p = dict(TOPK_PARAMS)
        for key, _ in TOPK_PARAMS:
            if key in inst["params"]:
                p[key] = inst["params"][key]
        axis = inst["axis"] if inst["axis"] in p else ""
        fixed = dict((k, v) for k, v in p.items() if k != axis)
        key = (axis, tuple(sorted(fixed.items(), key=lambda kv: kv[0])))
        g = next((g for g in groups if g["key"] == key), None)
        if g is None:
            g = {"key": key, "axis": axis, "fixed": fixed, "points": []}
            groups.append(g)
        value = inst["axis_value"] if axis else ""
        if all(v != value for v, _ in g["points"]):
            g["points"].append((value, p))
    varying = set()
    for key, _ in TOPK_PARAMS:
        vals = set(repr(g["fixed"].get(key)) for g in groups if key in g["fixed"])
        if len(vals) > 1:
            varying.add(key)
    used = set()
    for g in groups:
        s = _suffix(g["fixed"], varying)
        base, i = s, 2
        while s in used:
            s, i = "%s-%d" % (base, i), i + 1
        used.add(s)
        g["suffix"] = s
    out = []
    for g in groups:
        pts = []
        for value, p in g["points"]:
            why = None
            if p["ragged"]:
                why = "ragged rows (torch.topk takes a dense tensor)"
            elif p["dtype"] not in TORCH_DTYPES:
                why = "dtype %s (the torch peers take f32, f16, bf16 and f64)" % p["dtype"]
            elif p["dist"] == "nan":
                why = "dist nan (torch orders NaN above +inf; permbench's check does not)"
            if why:
                notes.append("%s%s: %s" % (g["suffix"] or "(plain)", "/%s=%s" % (g["axis"], value)
                                           if g["axis"] else "", why))
                continue
            pts.append((value, p))
        if pts:
            out.append(dict(g, points=pts))
    return out, notes


def peer_refuses(peer, params):
    """Why a peer cannot take a top-k problem every peer could, or None."""
    if peer.library == "jax" and params.get("misalign"):
        return "misaligned rows (a JAX array is a buffer of its own, allocated aligned)"
    return None


def plan(spec, only):
    """Peer instances and rows for a sweep: (instances, points, notes); each
    point is (instance, item_bytes, n)."""
    sweep, family = spec["sweep"], spec["sweep"]["family"]
    peers = [p for p in PEERS if p.family == family and (not only or p.module in only)]
    if family not in ("topk", "shuffle"):
        raise Skip("no torch/cupy/jax peer for the %s family (peers time topk and shuffle sweeps); "
                   "nothing to do" % family)
    if not peers:
        raise Skip("--only %s names no peer of the %s family (%s); nothing to do" %
                   (",".join(only), family, ", ".join(p.module for p in PEERS if p.family == family)))
    instances, notes = [], []
    if family == "shuffle":
        for p in peers:
            instances.append(_peer_instance(p, p.module, "", "", {}))
    else:
        groups, notes = topk_problems(sweep, spec["instances"])
        if not groups and not notes:
            raise Skip("the run has no top-k instance to stand peers beside; nothing to do")
        for p in peers:
            for g in groups:
                series = p.module + g["suffix"]
                for value, params in g["points"]:
                    why = peer_refuses(p, params)
                    if why:
                        notes.append("%s/%s: %s" % (p.module + g["suffix"], "%s=%s" % (g["axis"], value)
                                                    if g["axis"] else "(plain)", why))
                        continue
                    label = "%s/%s=%s" % (series, g["axis"], value) if g["axis"] else series
                    instances.append(_peer_instance(p, series, g["axis"], value, params, label))
    if not instances:
        raise Skip("no point of the sweep is one a peer can run (%s); nothing to do" % "; ".join(notes))
    seen = set()
    for inst in instances:
        if inst["label"] in seen:
            raise Bad("two peer rows would both be named %s (a series name clash); nothing run" % inst["label"])
        seen.add(inst["label"])
    points = []
    for inst in instances:
        for ib in sweep["item_bytes"]:
            for n in sweep["sizes"]:
                points.append((inst, ib, n))
    return instances, points, notes


def _peer_instance(peer, series, axis, value, params, label=None):
    return {"label": label or series, "series": series, "axis": axis, "axis_value": value,
            "module": peer.module, "family": peer.family, "device": "gpu",
            "params": dict(params, call=peer.call, library=peer.library),
            "automatic": False, "peer": True}


def work(inst, n, item_bytes):
    """(items, bytes) a row must move at least, as permbench counts them:
    shuffles read and write every item; top-k reads its rows once."""
    if inst["family"] == "topk":
        items = float(n) * float(inst["params"].get("rows", 1))
        return items, TOPK_DTYPE_BYTES[inst["params"].get("dtype", "f32")] * items
    return float(n), 2.0 * n * item_bytes

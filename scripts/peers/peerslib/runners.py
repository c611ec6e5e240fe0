"""Running a plan."""

from peerslib.plan import PEERS, PEER_BY_NAME
from peerslib.measure import measure_row
from peerslib.ops import (CupyShuffle, JaxShuffle, JaxTopk, JaxTopkData, SyntheticOp, TopkData,
                          TorchShuffle, TorchTopk)


def import_libraries(needed):
    """{name: module or None}, {name: version or why it is missing}."""
    mods, versions = {}, {}
    for name in ("torch", "cupy", "jax"):
        if name not in needed:
            continue
        try:
            mod = __import__(name)
            if name == "torch" and not mod.cuda.is_available():
                raise ImportError("torch %s sees no CUDA device" % mod.__version__)
            if name == "cupy":
                mod.cuda.runtime.getDeviceCount()
            if name == "jax":
                # its GPU backend (jax[cuda]), not its CPU one; 64-bit
                # types on, for fp64 values and 8-byte shuffle items
                if not mod.devices("gpu"):
                    raise ImportError("jax %s sees no GPU" % mod.__version__)
                mod.config.update("jax_enable_x64", True)
            mods[name], versions[name] = mod, getattr(mod, "__version__", "?")
        except Exception as e:  # ImportError, or a CUDA error from a library without a device
            mods[name] = None
            versions[name] = "missing (%s)" % (str(e).split("\n")[0] or type(e).__name__)
    return mods, versions


def new_row(inst, ib, n):
    return {"label": inst["label"], "module": inst["module"], "family": inst["family"],
            "device": "gpu", "n": n, "item_bytes": ib, "status": "ERROR", "message": None,
            "check_s": 0.0, "failed_sample": None, "timed_out": False, "noise": 0.0,
            "samples_ms": [], "samples_wall_ms": [], "held": True, "check": PEER_BY_NAME[inst["module"]].check,
            "series": inst["series"], "axis": inst["axis"], "axis_value": inst["axis_value"],
            "library": inst["params"]["library"], "call": inst["params"]["call"]}


def data_key(inst, ib, n):
    """What one input on the GPU is made from: points with the same key
    share it. A top-k input is its problem's every parameter but k (the
    dtype too: one fp32 input serving an fp16 point would time fp32)."""
    if inst["family"] == "shuffle":
        return (n, ib)
    p = inst["params"]
    return (n, p["rows"], p["dist"], p["misalign"], p["largest"], p.get("dtype", "f32"))


def _prepare_failed(row, e):
    row["message"] = "prepare: %s: %s" % (type(e).__name__, str(e).split("\n")[0][:400])


def run_by_input(be, points, settings, report, make_data, make_op, time_source=None):
    """Points input by input: one input (and its answer) per problem,
    make_data(inst, item_bytes, n, kmax), every peer and k on it, each op
    made by make_op(inst, data, n). An input that cannot be made fails its
    rows; an op that cannot (a compile error), its row."""
    by_data = {}
    for pt in points:
        by_data.setdefault(data_key(*pt), []).append(pt)
    for key, pts in by_data.items():
        inst0, ib, n = pts[0]
        try:
            data = make_data(inst0, ib, n, max(int(i["params"].get("k", 0)) for i, _, _ in pts))
        except Exception as e:
            for inst, ib2, n2 in pts:
                row = new_row(inst, ib2, n2)
                _prepare_failed(row, e)
                report(row, inst)
            be.release()
            continue
        for inst, ib2, n2 in sorted(pts, key=lambda q: PEERS.index(PEER_BY_NAME[q[0]["module"]])):
            row = new_row(inst, ib2, n2)
            if time_source:
                row["time_source"] = time_source
            try:
                op = make_op(inst, data, n2)
            except Exception as e:
                _prepare_failed(row, e)
                report(row, inst)
                continue
            be.begin_row(inst["module"], settings)
            measure_row(be, op, settings, row)
            del op
            report(row, inst)
        del data
        be.release()


def run_torch(torch, be, points, settings, seed, report):
    """Every torch point, input by input."""
    dev = be.dev
    gen_data = torch.Generator(device=dev)
    gen_data.manual_seed(int(seed) & 0x7FFFFFFFFFFFFFFF)
    gen_op = torch.Generator(device=dev)
    gen_op.manual_seed((int(seed) + 1) & 0x7FFFFFFFFFFFFFFF)

    def make_data(inst, ib, n, kmax):
        if inst["family"] == "topk":
            data = TopkData(torch, dev, gen_data, n, inst["params"], kmax)
        else:
            data = torch.arange(n, device=dev, dtype=torch.int64 if ib == 8 else torch.int32)
        be.sync()
        return data

    def make_op(inst, data, n):
        peer = PEER_BY_NAME[inst["module"]]
        if inst["family"] == "topk":
            return TorchTopk(torch, peer, data, int(inst["params"]["k"]), n)
        return TorchShuffle(torch, peer, data, gen_op)
    run_by_input(be, points, settings, report, make_data, make_op)


def run_cupy(cupy, be, points, settings, seed, report):
    cupy.random.seed(int(seed) & 0xFFFFFFFF)
    for inst, ib, n in points:
        row = new_row(inst, ib, n)
        try:
            pristine = cupy.arange(n, dtype=cupy.int64 if ib == 8 else cupy.int32)
            op = CupyShuffle(cupy, pristine)
        except Exception as e:
            _prepare_failed(row, e)
            report(row, inst)
            be.release()
            continue
        be.begin_row(inst["module"], settings)
        measure_row(be, op, settings, row)
        del op, pristine
        be.release()
        report(row, inst)


def run_jax(jax, be, points, settings, seed, report):
    """Every jax point, input by input, as run_torch."""
    jnp = jax.numpy
    key_data, key_op = jax.random.split(jax.random.PRNGKey(int(seed) & 0xFFFFFFFF))

    def make_data(inst, ib, n, kmax):
        if inst["family"] == "topk":
            return JaxTopkData(jax, key_data, n, inst["params"], kmax)
        return jnp.arange(n, dtype=jnp.int64 if ib == 8 else jnp.int32)

    def make_op(inst, data, n):
        if inst["family"] == "topk":
            return JaxTopk(jax, data, int(inst["params"]["k"]), n)
        return JaxShuffle(jax, data, key_op)
    run_by_input(be, points, settings, report, make_data, make_op, be.time_source)


def run_synthetic(be, points, settings, report):
    for inst, ib, n in points:
        row = new_row(inst, ib, n)
        op = SyntheticOp(inst, n, ib, inst["label"] in be.fail)
        be.begin_row(inst["module"], settings)
        measure_row(be, op, settings, row)
        report(row, inst)

#!/usr/bin/env python3
"""peers.py - the GPU calls a user would pick instead of permbench's modules,
timed the way permbench times its own, written in permbench's results schema.

    peers.py run (--like RESULT_DIR | CONFIG.ini) [--out DIR] [--only NAME,...]
                 [--set KEY=VALUE]... [--dry-run] [--quiet]
    peers.py merge PERMBENCH_DIR PEERS_DIR OUT_DIR
    peers.py relabel PEERS_DIR OUT_DIR PEER_SERIES=OUR_SERIES... [--against RESULT_DIR]

`run` times, on this machine's GPU, PyTorch's torch.topk (sorted and
unsorted), torch.sort (sort, then the first k), torch.randperm + index,
torch.sort of random keys + index, CuPy's cupy.random.shuffle, and JAX's
jax.lax.top_k and jax.random.permutation, at the
points of a permbench sweep, and writes DIR/results.json and results.csv in
permbench's schema (docs/results.md). `merge` puts those rows beside a
permbench run's in a new directory, for one figure (`permbench plot`).
`relabel` renames peer series to ours, so `permbench compare` sets them row
by row against a permbench run. See scripts/peers/README.md.

Standard library only; torch, cupy and jax are imported when present. Exit status:
0 done; 1 a row failed its check or could not be measured; 2 bad input (one
line on stderr, nothing written); 77 nothing to do (neither library, or no
peer for the sweep's family: one line on stderr, nothing written); 130
interrupted (the finished rows are written, marked interrupted).
"""

import argparse
import os
import platform
import sys
import time

# The parts live in peerslib/ beside this file, one concern a module; this
# file keeps the timing backends (tests replace peers._now under them), the
# run command and main, and re-exports the parts' public names (and the two
# private ones tests/peers_unit.py calls), so that callers reach them as
# peers.NAME.
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from peerslib.common import *  # noqa: E402,F401,F403
from peerslib.sizes import *  # noqa: E402,F401,F403
from peerslib.sweep import *  # noqa: E402,F401,F403
from peerslib.sweep import _topk_value  # noqa: E402,F401
from peerslib.plan import *  # noqa: E402,F401,F403
from peerslib.stats import *  # noqa: E402,F401,F403
from peerslib.measure import *  # noqa: E402,F401,F403
from peerslib.ops import *  # noqa: E402,F401,F403
from peerslib.runners import *  # noqa: E402,F401,F403
from peerslib.provenance import *  # noqa: E402,F401,F403
from peerslib.output import *  # noqa: E402,F401,F403
from peerslib.output import _num  # noqa: E402,F401
from peerslib.merge import *  # noqa: E402,F401,F403


# ---------------------------------------------------------------------------
# Backends: where the calls run and how they are timed.

def _now():
    return time.monotonic()


class CudaTiming(object):
    """The sample protocol on a CUDA device, shared by the torch and cupy
    backends: flush (a buffer twice the L2 overwritten), synchronise, hold
    the stream with a spinning kernel while the call queues its work,
    CUDA events around the call. The hold is a kernel that spins a number of
    clock cycles (permbench's waits for a host flag, which Python cannot
    give without a compiled extension): if the GPU reaches the start event
    before the call has queued everything (the start event is done when the
    end event has been recorded), the sample is dropped and taken again with
    a longer hold; a call that breaks it twice with a host time as long as
    the hold waits for the GPU itself, and its row is timed with the stream
    not held, as permbench times such modules."""

    HOLD_MAX_MS = 500.0

    def __init__(self):
        self.hold_ms = {}
        self.last_held = True
        self.row_held = True
        self.flush_value = 0

    def begin_row(self, module, settings):
        self.row_held = bool(settings["hold"])
        self.last_held = self.row_held
        self.hold_ms.setdefault(module, 0.5)
        self.module = module

    def time_one(self, op, settings):
        broken = 0
        while True:
            if settings["flush_cache"]:
                self.flush_value = (self.flush_value + 1) & 0xff
                self.flush(self.flush_value)
            self.sync()
            held = self.row_held
            hold = self.hold_ms[self.module]
            if held:
                self.sleep(int(hold * self.cycles_per_ms))
            w0 = _now()
            self.record_start()
            op.run()
            self.record_end()
            w1 = _now()
            early = held and self.start_done()
            self.end_sync()
            w3 = _now()
            ms = self.elapsed()
            host_ms = (w1 - w0) * 1e3
            if held and early:
                broken += 1
                longer = max(2 * hold, 2 * host_ms)
                if (broken >= 2 and host_ms >= hold) or longer > self.HOLD_MAX_MS:
                    # the call waits for the GPU (or would need a hold over
                    # half a second, where permbench's gives up): unheld
                    self.row_held = False
                else:
                    self.hold_ms[self.module] = longer
                self.last_held = self.row_held
                op.refresh()
                continue
            self.last_held = held
            wall = host_ms + ms if held else (w3 - w0) * 1e3
            return ms, wall


class TorchBackend(CudaTiming):
    name = "torch"

    def __init__(self, torch):
        CudaTiming.__init__(self)
        self.torch = torch
        self.dev = torch.device("cuda", torch.cuda.current_device())
        self.ev0 = torch.cuda.Event(enable_timing=True)
        self.ev1 = torch.cuda.Event(enable_timing=True)
        l2 = gpu_attribute(38) or getattr(torch.cuda.get_device_properties(self.dev), "L2_cache_size", 0)
        self.flush_buf = torch.empty(2 * (l2 or (64 << 20)), dtype=torch.uint8, device=self.dev)
        self.cycles_per_ms = self._calibrate()

    def _calibrate(self):
        t = self.torch
        t.cuda._sleep(1000)
        self.sync()
        best = None
        for _ in range(3):
            self.ev0.record()
            t.cuda._sleep(2000000)
            self.ev1.record()
            self.ev1.synchronize()
            ms = self.ev0.elapsed_time(self.ev1)
            best = ms if best is None else min(best, ms)
        return 2000000.0 / max(best, 1e-3)

    def flush(self, v):
        self.flush_buf.fill_(v)

    def sync(self):
        self.torch.cuda.synchronize()

    def sleep(self, cycles):
        self.torch.cuda._sleep(max(cycles, 1))

    def record_start(self):
        self.ev0.record()

    def record_end(self):
        self.ev1.record()

    def start_done(self):
        return self.ev0.query()

    def end_sync(self):
        self.ev1.synchronize()

    def elapsed(self):
        return self.ev0.elapsed_time(self.ev1)

    def release(self):
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


class CupyBackend(CudaTiming):
    name = "cupy"
    SPIN = r'''
extern "C" __global__ void pb_spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}
'''

    def __init__(self, cupy):
        CudaTiming.__init__(self)
        self.cp = cupy
        self.spin = cupy.RawKernel(self.SPIN, "pb_spin")
        self.ev0, self.ev1 = cupy.cuda.Event(), cupy.cuda.Event()
        dev = cupy.cuda.Device().id
        l2 = gpu_attribute(38) or cupy.cuda.runtime.getDeviceProperties(dev).get("l2CacheSize", 0)
        self.flush_buf = cupy.empty(2 * (l2 or (64 << 20)), dtype=cupy.uint8)
        self.cycles_per_ms = self._calibrate()

    def _calibrate(self):
        self.sleep(1000)
        self.sync()
        best = None
        for _ in range(3):
            self.ev0.record()
            self.sleep(2000000)
            self.ev1.record()
            self.ev1.synchronize()
            ms = self.cp.cuda.get_elapsed_time(self.ev0, self.ev1)
            best = ms if best is None else min(best, ms)
        return 2000000.0 / max(best, 1e-3)

    def flush(self, v):
        self.flush_buf.fill(v)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def sleep(self, cycles):
        self.spin((1,), (1,), (self.cp.int64(max(cycles, 1)),))

    def record_start(self):
        self.ev0.record()

    def record_end(self):
        self.ev1.record()

    def start_done(self):
        return self.ev0.done

    def end_sync(self):
        self.ev1.synchronize()

    def elapsed(self):
        return self.cp.cuda.get_elapsed_time(self.ev0, self.ev1)

    def release(self):
        self.sync()
        self.cp.get_default_memory_pool().free_all_blocks()


class JaxBackend(object):
    """JAX's calls: JAX gives Python no CUDA events and runs on a stream of
    its own, so a sample is the host clock around the call and its
    block_until_ready (the op's run() waits), the stream never held (the
    row says so, as permbench's rows of modules that synchronise). The
    flush writes a buffer twice the L2 with a compiled fill."""

    name = "jax"
    time_source = "host clock around the call and block_until_ready (JAX has no CUDA events)"

    def __init__(self, jax):
        self.jax = jax
        jnp = jax.numpy
        size = 2 * (gpu_attribute(38) or (64 << 20))
        self._fill = jax.jit(lambda v: jnp.full((size,), v, dtype=jnp.uint8))
        self.flush_value = 0
        self.last_held = False

    def begin_row(self, module, settings):
        self.last_held = False

    def sync(self):
        pass  # every op waits for its own output

    def time_one(self, op, settings):
        if settings["flush_cache"]:
            self.flush_value = (self.flush_value + 1) & 0xff
            self.jax.block_until_ready(self._fill(self.flush_value))
        w0 = _now()
        op.run()
        ms = (_now() - w0) * 1e3
        return ms, ms

    def release(self):
        pass


class SyntheticBackend(object):
    """No GPU: made-up times from a fixed model and a fixed generator, for
    the tests of everything but the calls (plan, stopping rule, statistics,
    files, merge). Rows it writes say so in time_source and provenance."""

    name = "synthetic"

    def __init__(self, seed):
        self.state = (int(seed) * 2654435761 + 12345) & 0xFFFFFFFF
        self.last_held = True
        self.fail = set(x for x in os.environ.get("PEERS_SYNTHETIC_FAIL", "").split(",") if x)

    def begin_row(self, module, settings):
        self.last_held = bool(settings["hold"])

    def _u(self):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return 2.0 * self.state / 0x7FFFFFFF - 1.0

    def sync(self):
        pass

    def time_one(self, op, settings):
        op.run()
        ms = op.model_ms * (1 + 0.002 * self._u())
        return ms, ms * 1.02 + 0.004

    def release(self):
        pass




# ---------------------------------------------------------------------------
# Commands.

SETTABLE = {"warmup": int, "min_samples": int, "max_samples": int, "min_time": float,
            "timeout": float, "max_noise": float, "flush_cache": None, "hold": None}


def apply_sets(sweep, sets):
    for s in sets:
        if "=" not in s:
            raise Bad("--set %s: expected KEY=VALUE" % s)
        key, value = s.split("=", 1)
        key = key.strip()
        if key.startswith("sweep."):
            key = key[6:]
        if key not in SETTABLE:
            raise Bad("--set %s: KEY is one of %s" % (s, ", ".join(sorted(SETTABLE))))
        if SETTABLE[key] is None:
            sweep[key] = parse_bool(value, "--set " + s)
            continue
        try:
            v = SETTABLE[key](value)
        except ValueError:
            raise Bad("--set %s: '%s' is not a number" % (s, value))
        if v < 0 or (key in ("min_samples", "max_samples") and v < 1):
            raise Bad("--set %s: out of range" % s)
        sweep[{"min_time": "min_time_s", "timeout": "timeout_s", "max_noise": "max_noise_pct"}.get(key, key)] = v
    if sweep["max_samples"] < sweep["min_samples"]:
        raise Bad("--set: max_samples %d is below min_samples %d" % (sweep["max_samples"], sweep["min_samples"]))


def cmd_run(args):
    if bool(args.like) == bool(args.config):
        raise Bad("run: give either --like RESULT_DIR or a CONFIG.ini (see --help)")
    spec = sweep_from_like(args.like) if args.like else sweep_from_config(args.config)
    sweep = spec["sweep"]
    apply_sets(sweep, args.set or [])
    only = [x.strip() for x in args.only.split(",")] if args.only else []
    for o in only:
        if o not in PEER_BY_NAME:
            raise Bad("--only %s: not a peer (%s)" % (o, ", ".join(p.module for p in PEERS)))
    if not args.dry_run and not args.out:
        raise Bad("run: --out DIR is needed (or --dry-run)")
    if args.out and not args.dry_run:
        claim_out(args.out)
    instances, points, notes = plan(spec, only)
    libs_needed = sorted(set(PEER_BY_NAME[i["module"]].library for i in instances))
    if args.dry_run:
        for inst, ib, n in points:
            print("%-40s n = %-8s %d B  %s" % (inst["label"], size_name(n), ib,
                                               PEER_BY_NAME[inst["module"]].call))
        for note in notes:
            print("skipped: %s" % note)
        print("%d rows of %d peer instances (%s)" % (len(points), len(instances), ", ".join(libs_needed)))
        return EXIT_OK
    if args.synthetic:
        mods = dict((lib, None) for lib in libs_needed)
        versions = dict((lib, "synthetic") for lib in libs_needed)
    else:
        mods, versions = import_libraries(libs_needed)
    have = [lib for lib in libs_needed if args.synthetic or mods.get(lib) is not None]
    missing = [lib for lib in libs_needed if lib not in have]
    if not have:
        names = " nor ".join(LIBRARY_NAMES[lib] for lib in libs_needed)
        raise Skip("%s %s importable with a GPU (%s); skipped: %s; nothing written" % (
            "neither" if len(libs_needed) > 1 else "no", names,
            "; ".join("%s: %s" % (lib, versions[lib]) for lib in libs_needed),
            ", ".join(sorted(set(i["module"] for i in instances)))))
    if missing:
        for lib in missing:
            skipped = sorted(set(i["module"] for i in instances if PEER_BY_NAME[i["module"]].library == lib))
            sys.stderr.write("%s: %s %s; skipped: %s\n" % (PROG, lib, versions[lib], ", ".join(skipped)))
        instances = [i for i in instances if PEER_BY_NAME[i["module"]].library in have]
        points = [p for p in points if PEER_BY_NAME[p[0]["module"]].library in have]
    for note in notes:
        sys.stderr.write("%s: skipped %s\n" % (PROG, note))

    os.makedirs(args.out, exist_ok=True)
    settings = dict(sweep)
    rows = {}
    order = dict((i["label"], k) for k, i in enumerate(instances))
    t0 = time.monotonic()
    done = [0]

    def report(row, inst):
        finish_row(row, inst, sweep["max_noise_pct"])
        if args.synthetic:
            row["time_source"] = "synthetic (tests only)"
        rows[(row["label"], row["item_bytes"], row["n"])] = row
        done[0] += 1
        if not args.quiet:
            med = row.get("ms", {}) and row["ms"]["median"]
            print("%-40s n = %-8s %d B  %s  %s  %d samples  %s%s" % (
                row["label"], size_name(row["n"]), row["item_bytes"],
                ("median %.6g ms" % med) if med else "no time",
                ("%.3g G items/s" % (row["items_per_s"] / 1e9)) if row.get("items_per_s") else "",
                len(row["samples_ms"]), row["status"],
                (": " + row["message"]) if row["message"] else ""))
            sys.stdout.flush()

    interrupted = False
    torch_mod = mods.get("torch")
    try:
        if args.synthetic:
            run_synthetic(SyntheticBackend(sweep["seed"]), points, settings, report)
        else:
            tp = [p for p in points if PEER_BY_NAME[p[0]["module"]].library == "torch"]
            cp = [p for p in points if PEER_BY_NAME[p[0]["module"]].library == "cupy"]
            jp = [p for p in points if PEER_BY_NAME[p[0]["module"]].library == "jax"]
            if tp:
                run_torch(torch_mod, TorchBackend(torch_mod), tp, settings, sweep["seed"], report)
            if cp:
                run_cupy(mods["cupy"], CupyBackend(mods["cupy"]), cp, settings, sweep["seed"], report)
            if jp:
                run_jax(mods["jax"], JaxBackend(mods["jax"]), jp, settings, sweep["seed"], report)
    except KeyboardInterrupt:
        interrupted = True

    ordered = sorted(rows.values(), key=lambda r: (order[r["label"]], sweep["item_bytes"].index(r["item_bytes"]),
                                                   sweep["sizes"].index(r["n"])))
    jrows = [row_json(r) for r in ordered]
    if args.synthetic and spec["like"]:
        gpu = dict(spec["like"]["gpu"], synthetic=True)
    elif args.synthetic:
        gpu = {"present": True, "name": "synthetic", "synthetic": True}
    else:
        gpu = gpu_json(torch_mod, mods.get("cupy"))
    plots = [p for p in sweep["plots"] if p not in ("pct-copy", "axis-speedup")]
    git = git_json()
    if git["source"] == "none" and spec["like"] and spec["like"].get("commit"):
        # a tree with neither git nor an archive's stamp (a copy on a GPU
        # node): the commit of the build that made the --like run
        git = {"commit": spec["like"]["commit"], "dirty": spec["like"].get("dirty") or "unknown",
               "source": "the --like run's build"}
    prov = {
        "date": utc_now(), "permbench_version": "scripts/peers/peers.py", "git": git,
        "config": spec["config"], "host": host_json(), "gpu": gpu,
        "build": {"type": "python", "python": platform.python_version(),
                  "torch": versions.get("torch", "not used"), "cupy": versions.get("cupy", "not used"),
                  "jax": versions.get("jax", "not used"),
                  "torch_cuda": getattr(getattr(torch_mod, "version", None), "cuda", None)},
        "command_line": sys.argv[1:],
        "peers": {"backend": "synthetic" if args.synthetic else "cuda", "libraries": versions,
                  "like": spec["like"], "skipped": notes + ["%s: %s" % (lib, versions[lib]) for lib in missing],
                  "hold": "a kernel spinning clock cycles, checked per sample (scripts/peers/README.md)"},
    }
    sweep_out = {"family": sweep["family"], "title": (sweep["title"] + " - torch/cupy peers").strip(" -"),
                 "sizes": sweep["sizes"], "item_bytes": sweep["item_bytes"], "seed": sweep["seed"],
                 "warmup": sweep["warmup"], "min_samples": sweep["min_samples"],
                 "max_samples": sweep["max_samples"], "min_time_s": sweep["min_time_s"],
                 "timeout_s": sweep["timeout_s"], "flush_cache": sweep["flush_cache"],
                 "ceilings_auto": False, "plots": plots, "reference": None,
                 "max_noise_pct": sweep["max_noise_pct"], "fail_noisy": False, "streams": 1,
                 "hold": sweep["hold"]}
    failed = sum(1 for r in jrows if r["status"] != "ok")
    root = {"schema_version": 2, "provenance": prov, "sweep": sweep_out, "instances": instances,
            "results": jrows,
            "summary": {"rows": len(jrows), "failed_rows": failed,
                        "noisy_rows": sum(1 for r in jrows if r["noisy"]),
                        "wall_s": time.monotonic() - t0, "check_s": sum(r["check_s"] for r in jrows),
                        "interrupted": interrupted, "points_planned": len(points)}}
    write_results(args.out, root, [csv_line(j) for j in jrows])
    if not args.quiet:
        print("results: %s/results.json, %s/results.csv (%d rows, %d failed)" % (args.out, args.out, len(jrows), failed))
    if interrupted:
        sys.stderr.write("%s: interrupted; %d of %d rows written\n" % (PROG, len(jrows), len(points)))
        return EXIT_INTERRUPTED
    if failed:
        for r in jrows:
            if r["status"] != "ok":
                sys.stderr.write("%s: %s at n = %s: %s: %s\n" % (PROG, r["label"], size_name(r["n"]),
                                                                 r["status"], r["message"]))
        return EXIT_FAILED
    return EXIT_OK




class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Bad("%s (see 'peers.py --help')" % message)


def main(argv):
    ap = Parser(prog="peers.py", description=__doc__.split("\n\n")[2],
                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    r = sub.add_parser("run", help="time the peers at a sweep's points")
    r.error = ap.error
    r.add_argument("config", nargs="?", help="a permbench sweep config (CONFIG.ini)")
    r.add_argument("--like", metavar="RESULT_DIR", help="the points of a finished permbench run (preferred)")
    r.add_argument("--out", metavar="DIR", help="where results.json and results.csv go")
    r.add_argument("--only", metavar="NAME,...", help="these peers only")
    r.add_argument("--set", metavar="KEY=VALUE", action="append",
                   help="a [sweep] stopping setting: warmup, min_samples, max_samples, min_time, "
                        "timeout, max_noise, flush_cache, hold")
    r.add_argument("--dry-run", action="store_true", help="print the rows, time nothing")
    r.add_argument("--quiet", action="store_true")
    r.add_argument("--synthetic", action="store_true", help=argparse.SUPPRESS)
    m = sub.add_parser("merge", help="a permbench run and peer rows in one results directory")
    m.error = ap.error
    m.add_argument("permbench_dir")
    m.add_argument("peers_dir")
    m.add_argument("out_dir")
    m.add_argument("--only", metavar="NAME,...", help="these peers' rows only")
    m.add_argument("--allow-synthetic", action="store_true", help=argparse.SUPPRESS)
    lb = sub.add_parser("relabel", help="peer series under our series' labels, for permbench compare")
    lb.error = ap.error
    lb.add_argument("peers_dir")
    lb.add_argument("out_dir")
    lb.add_argument("map", nargs="+", metavar="PEER_SERIES=OUR_SERIES")
    lb.add_argument("--by-params", metavar="PEER_MODULE=OUR_MODULE", action="append",
                    help="with --against: also pair each peer series of PEER_MODULE with the series of "
                         "OUR_MODULE run on the same problem (dist, dtype, rows, largest, sorted output)")
    lb.add_argument("--against", metavar="RESULT_DIR",
                    help="keep the pairs whose series both runs have (exit 77 if none)")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        return cmd_run(args)
    if args.cmd == "merge":
        return cmd_merge(args)
    if args.cmd == "relabel":
        return cmd_relabel(args)
    raise Bad("expected a command: run, merge or relabel (see 'peers.py --help')")


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Bad as e:
        sys.stderr.write("%s: %s\n" % (PROG, e))
        sys.exit(EXIT_USAGE)
    except Skip as e:
        sys.stderr.write("%s: %s\n" % (PROG, e))
        sys.exit(EXIT_SKIP)

#!/usr/bin/env python3
"""Unit tests of scripts/peers/peers.py's parts that need no GPU: the size
syntax, the statistics, the stopping rule (bench/stopping.c's), the CSV line
(bench/results_csv.c's), the series names of top-k problems, the
reading of packed (gzip) results.json, and the JAX peers on a fake jax.

    python3 tests/scripts/peers_unit.py [SOURCE_DIR]
"""
import gzip
import importlib.util
import json
import os
import sys
import tempfile
import unittest

SRC = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
spec = importlib.util.spec_from_file_location("peers", os.path.join(SRC, "scripts", "peers", "peers.py"))
peers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers)


class Sizes(unittest.TestCase):
    def test_docs_examples(self):
        # docs/configs.md
        self.assertEqual(peers.parse_sizes("2^8+1 .. 2^29+1 *8"),
                         [2 ** k + 1 for k in range(8, 30, 3)])
        self.assertEqual(peers.parse_sizes("1000 .. 5000 +1000"), [1000, 2000, 3000, 4000, 5000])
        self.assertEqual(peers.parse_sizes("3*2^20"), [3 << 20])
        self.assertEqual(peers.parse_sizes("2^14 .. 2^24"), [1 << k for k in range(14, 25)])
        self.assertEqual(peers.parse_sizes("2^21, 2^23, 2^25"), [1 << 21, 1 << 23, 1 << 25])
        self.assertEqual(peers.parse_sizes("2^8 .. 2^10 *2, 2^8+1 .. 2^10+1 *2"),
                         [256, 512, 1024, 257, 513, 1025])
        self.assertEqual(peers.parse_sizes("2^10-1"), [1023])

    def test_refused(self):
        for bad in ("2^10,", "2^10,,2^12", "2^10 ..", "2 ^10", "2^8+1 .. 2^10 *2", "0 .. 8",
                    "8 .. 4", "2^63", "1 .. 8 *1", "x"):
            with self.assertRaises(peers.Bad, msg=bad):
                peers.parse_sizes(bad)

    def test_topk_dists(self):
        # The top-k distributions, as permbench's configs name them.
        for ok in ("relu", "int8", "sorted", "reversed", "few:2", "few:256", "masked:0.5", "masked:0"):
            self.assertEqual(peers._topk_value("dist", ok, "t"), ok)
        for bad in ("few", "few:0", "few:x", "masked", "masked:1.5", "relu:3", "nope"):
            with self.assertRaises(peers.Bad, msg=bad):
                peers._topk_value("dist", bad, "t")

    def test_names(self):
        self.assertEqual(peers.size_name(1 << 29), "2^29")
        self.assertEqual(peers.size_name((1 << 29) + 1), "2^29+1")
        self.assertEqual(peers.size_name(1000), "1000")

    def test_fnv(self):
        self.assertEqual(peers.fnv1a64(b""), 0xcbf29ce484222325)
        self.assertEqual(peers.fnv1a64(b"a"), 0xaf63dc4c8601ec8c)


class Statistics(unittest.TestCase):
    def test_summary(self):
        s = peers.summarise([3.0, 1.0, 2.0, 10.0])
        self.assertEqual((s["median"], s["min"], s["max"], s["mean"]), (2.5, 1.0, 10.0, 4.0))
        self.assertAlmostEqual(s["stddev"], (((1 + 4 + 9 + 36) / 3.0) ** 0.5))
        s = peers.summarise([5.0])
        self.assertEqual((s["median"], s["stddev"]), (5.0, 0.0))
        self.assertEqual(peers.summarise([2.0, 9.0, 4.0])["median"], 4.0)

    def settings(self, **kw):
        st = {"min_samples": 10, "max_samples": 1000, "min_time_s": 0.0, "timeout_s": 60.0,
              "max_noise_pct": 0.5}
        st.update(kw)
        return st

    def run_rule(self, samples, st, elapsed=0.0):
        z = peers.Noise()
        for k, v in enumerate(samples):
            z.add(v)
            why = peers.stopping_check(st, z, elapsed)
            if why != peers.GO_ON:
                return k + 1, why
        return None, peers.GO_ON

    def test_quiet_stops_at_min_samples(self):
        self.assertEqual(self.run_rule([1.0, 1.001] * 50, self.settings()), (10, peers.QUIET))

    def test_min_time(self):
        # 1 ms samples, 0.05 s: fifty of them
        self.assertEqual(self.run_rule([1.0] * 100, self.settings(min_time_s=0.05)), (50, peers.QUIET))

    def test_noisy_settles(self):
        # +-10%: never quiet; the noise settles within 5% over a window of
        # ten samples after twenty
        n, why = self.run_rule([1.0, 1.2, 0.8, 1.1, 0.9] * 200, self.settings())
        self.assertEqual(why, peers.SETTLED)
        self.assertGreaterEqual(n, 20)

    def test_max_and_timeout(self):
        up = [1.0 + 0.01 * k * k for k in range(100)]  # a noise that keeps growing
        self.assertEqual(self.run_rule(up, self.settings(max_samples=15)), (15, peers.MAX))
        self.assertEqual(self.run_rule(up, self.settings(timeout_s=1.0), elapsed=2.0)[1], peers.TIMEOUT)

    def test_noise_is_relative_sd(self):
        z = peers.Noise()
        for v in (1.0, 2.0, 3.0):
            z.add(v)
        self.assertAlmostEqual(z.value(), 1.0 / 2.0)
        self.assertAlmostEqual(z.measured, 0.006)


class Hold(unittest.TestCase):
    """CudaTiming's hold on a simulated GPU and host clock: a spinning hold
    too short for the call's queueing is lengthened; a call that waits for
    the GPU is timed unheld."""

    def setUp(self):
        self.t = 0.0  # host time, ms
        self.real_now = peers._now
        peers._now = lambda: self.t / 1e3
        test = self

        class Gpu(peers.CudaTiming):
            cycles_per_ms = 1000.0

            def flush(self, v):
                pass

            def sync(self):
                pass

            def sleep(self, cycles):
                self.hold, self.hold_from = cycles / 1000.0, test.t

            def record_start(self):
                pass

            def record_end(self):
                pass

            def start_done(self):  # the hold ended before the work was queued
                return test.t - self.hold_from > self.hold

            def end_sync(self):
                test.t += 0.01

            def elapsed(self):
                return 1.0

        self.gpu = Gpu()
        self.settings = {"hold": True, "flush_cache": True}

    def tearDown(self):
        peers._now = self.real_now

    def op(self, host_ms, waits=False):
        test = self

        class Op(object):
            runs = 0

            def refresh(self):
                pass

            def run(self):
                Op.runs += 1
                if waits:  # a synchronising call: returns when the GPU is done
                    test.t = max(test.t, test.gpu.hold_from + test.gpu.hold) + 1.0
                else:
                    test.t += host_ms
        return Op()

    def test_quick_call_held(self):
        self.gpu.begin_row("m", self.settings)
        op = self.op(0.02)
        ms, wall = self.gpu.time_one(op, self.settings)
        self.assertEqual((ms, op.runs, self.gpu.last_held), (1.0, 1, True))
        self.assertAlmostEqual(wall, 1.02)

    def test_slow_queueing_lengthens_the_hold(self):
        self.gpu.begin_row("m", self.settings)
        op = self.op(2.0)
        self.gpu.time_one(op, self.settings)
        self.assertEqual((op.runs, self.gpu.last_held, self.gpu.hold_ms["m"]), (2, True, 4.0))
        self.gpu.time_one(op, self.settings)  # the longer hold is kept
        self.assertEqual(op.runs, 3)

    def test_synchronising_call_unheld(self):
        self.gpu.begin_row("s", self.settings)
        op = self.op(0, waits=True)
        ms, wall = self.gpu.time_one(op, self.settings)
        self.assertEqual((op.runs, self.gpu.last_held), (3, False))
        self.gpu.time_one(op, self.settings)
        self.assertEqual(op.runs, 4)  # the rest of the row unheld, at once

    def test_hold_off(self):
        st = {"hold": False, "flush_cache": False}
        self.gpu.begin_row("m", st)
        ms, wall = self.gpu.time_one(self.op(0.3), st)
        self.assertFalse(self.gpu.last_held)
        self.assertAlmostEqual(wall, 0.31)


class Files(unittest.TestCase):
    def test_csv_line(self):
        j = {"label": "torch-topk/k=32", "series": "torch-topk", "axis": "k", "axis_value": "32",
             "module": "torch-topk", "family": "topk", "device": "gpu", "n": 1 << 29,
             "item_bytes": 4, "threads": None, "samples": 12, "median_ms": 1.23456789,
             "min_ms": 1.2, "max_ms": 1.3, "mean_ms": 1.25, "stddev_ms": 0.01,
             "wall_median_ms": 1.3, "noise_pct": 0.123456, "noisy": False, "items_per_s": 4.3e11,
             "effective_gbps": 1739.5, "pct_of_copy": 40.123, "speedup_vs_ref": None,
             "verified": True, "status": "ok"}
        self.assertEqual(peers.csv_line(j),
                         "torch-topk/k=32,torch-topk,k,32,torch-topk,topk,gpu,536870912,4,,12,"
                         "1.23457,1.2,1.3,1.25,0.01,1.3,0.123,no,4.3e+11,1739.5,40.12,,yes,ok,,,,,,,no,,")
        j.update(status="ERROR", verified=False, median_ms=None, samples=0)
        self.assertEqual(peers.csv_line(j), "torch-topk/k=32,torch-topk,k,32,torch-topk,topk,gpu,"
                                            "536870912,4,,0,,,,,,,,,,,,,no,ERROR,,,,,,,no,,")
        self.assertEqual(len(peers.csv_line(j).split(",")), len(peers.CSV_COLUMNS))
        # The link columns, then the code path, last, as results_csv.c writes them where a row has them.
        j.update(status="ok", verified=True, median_ms=1.23456789, samples=12,
                 link_bytes=4294967296.0, link_gbps=312.4)
        self.assertTrue(peers.csv_line(j).endswith(",yes,ok,4.29497e+09,312.4,,,,,no,,"))
        # The median's interval and the clusters, last, as results_csv.c writes them.
        j.update(median_ci_lo_ms=1.2, median_ci_hi_ms=1.25, median_ci_halfwidth_pct=2.0, multimodal=True)
        self.assertTrue(peers.csv_line(j).endswith(",312.4,1.2,1.25,2.000,yes,no,,"))
        # busy and suspect after them (a peer's own run: never marked).
        j.update(busy=True, suspect="pct_of_copy 3000% is above 500%, impossible")
        self.assertTrue(peers.csv_line(j).endswith(",2.000,yes,yes,pct_of_copy 3000% is above 500%; impossible,"))

    def test_median_ci(self):
        # As tests/stats/test_median_ci.c: [x(2), x(9)] of ten, [x(6), x(15)] of twenty.
        self.assertEqual(peers.median_ci_ranks(10)[:2], (2, 9))
        self.assertAlmostEqual(peers.median_ci_ranks(10)[2], 1 - 22 / 1024.0)
        self.assertEqual(peers.median_ci_ranks(20)[:2], (6, 15))
        self.assertEqual(peers.median_ci_ranks(5)[:2], (1, 5))
        lo, hi, half, conf = peers.median_ci([float(i) for i in range(1, 11)])
        self.assertEqual((lo, hi), (2.0, 9.0))
        self.assertAlmostEqual(half, 7.0 / 11)
        self.assertTrue(peers.multimodal([1.0, 1.01, 1.02, 1.03, 1.05, 1.1, 8.0, 8.1, 8.2, 8.5]))
        self.assertFalse(peers.multimodal([1.0 + 0.7 * i for i in range(10)]))

    def test_json_refuses_nan(self):
        self.assertIsNone(peers._num(float("nan")))
        self.assertIsNone(peers._num(float("inf")))
        self.assertEqual(peers._num(1.0 / 3), 0.333333333)


class Packed(unittest.TestCase):
    """results.json.gz, as scripts/pack-reference.sh leaves committed runs:
    read as the plain file is, from its directory or by name."""
    RUN = {"schema_version": 2, "sweep": {"family": "shuffle"}, "instances": [],
           "results": [{"label": "gpu-copy", "samples_ms": [1.5, 2.0]}]}

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.text = json.dumps(self.RUN).encode("utf-8")

    def put(self, name, data):
        os.makedirs(os.path.join(self.tmp.name, os.path.dirname(name)), exist_ok=True)
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_both_forms_alike(self):
        plain = self.put("plain/results.json", self.text)
        packed = self.put("packed/results.json.gz", gzip.compress(self.text, 9, mtime=0))
        a, fa = peers.load_results(os.path.dirname(plain))
        b, fb = peers.load_results(os.path.dirname(packed))
        c, _ = peers.load_results(packed)
        self.assertEqual((fa, fb), (plain, packed))
        self.assertEqual(a, self.RUN)
        self.assertEqual(b, a)
        self.assertEqual(c, a)

    def test_plain_first(self):
        # A run cut short while packing holds both: the plain one is read.
        plain = self.put("both/results.json", self.text)
        self.put("both/results.json.gz", b"\x1f\x8b not gzip")
        self.assertEqual(peers.load_results(os.path.dirname(plain))[1], plain)

    def test_corrupt_refused(self):
        whole = gzip.compress(self.text, 9, mtime=0)
        bad = bytearray(whole)
        bad[len(bad) // 2] ^= 0xff
        cases = {"cut": whole[:len(whole) // 2], "flipped": bytes(bad), "crc": whole[:-8] + b"\0" * 8,
                 "header": b"\x1f\x8b" + b"\0" * 20, "not-json": gzip.compress(b"{nope", 9, mtime=0)}
        for name, data in cases.items():
            path = self.put(name + "/results.json.gz", data)
            with self.assertRaises(peers.Bad, msg=name) as e:
                peers.load_results(os.path.dirname(path))
            self.assertIn("not a results.json", str(e.exception), name)
        empty = os.path.join(self.tmp.name, "empty")
        os.makedirs(empty)
        with self.assertRaisesRegex(peers.Bad, "no results.json in that directory"):
            peers.load_results(empty)


class Plan(unittest.TestCase):
    def inst(self, label, axis="", value="", **params):
        return {"label": label, "series": label.split("/")[0], "axis": axis, "axis_value": value,
                "module": "gpu-radik", "family": "topk", "device": "gpu", "params": params,
                "automatic": False}

    def test_series_names(self):
        ins = [self.inst("gpu-radik/k=%d" % k, "k", str(k), k=k) for k in (32, 64)]
        ins += [self.inst("radik-n/k=%d" % k, "k", str(k), k=k, dist="narrow128") for k in (32, 64)]
        ins += [self.inst("b/k=32", "k", "32", k=32, rows=16, misalign=True)]
        ins.append({"label": "copy", "series": "copy", "axis": "", "axis_value": "", "module": "copy",
                    "family": "shuffle", "device": "gpu", "params": {}, "automatic": True})
        spec = {"sweep": {"family": "topk", "sizes": [1 << 20], "item_bytes": [4]}, "instances": ins}
        insts, points, notes = peers.plan(spec, ["torch-topk"])
        self.assertEqual([i["label"] for i in insts],
                         ["torch-topk/k=32", "torch-topk/k=64", "torch-topk-narrow128/k=32",
                          "torch-topk-narrow128/k=64", "torch-topk-rows16-misalign/k=32"])
        self.assertEqual(len(points), 5)
        self.assertEqual(notes, [])

    def test_inputs_by_dtype(self):
        # Each dtype gets its own input: f16 and f64 points must not be timed
        # on the first point's fp32 values.
        p = dict(peers.TOPK_PARAMS)
        keys = set()
        for dt in ("f32", "f16", "bf16", "f64"):
            q = dict(p, dtype=dt)
            for k in (32, 1024):
                keys.add(peers.data_key({"family": "topk", "params": dict(q, k=k)}, 4, 1 << 20))
        self.assertEqual(len(keys), 4)
        self.assertEqual(peers.data_key({"family": "shuffle", "params": {}}, 8, 5), (5, 8))

    def test_key_orders_do_not_clash(self):
        # dist = sorted beside uniform: torch-topk's "sorted" series must not
        # be torch-topk-sorted's (the peer that returns its k in order).
        ins = [self.inst("r/k=32", "k", "32", k=32), self.inst("r-s/k=32", "k", "32", k=32, dist="sorted"),
               self.inst("r-r/k=32", "k", "32", k=32, dist="reversed")]
        spec = {"sweep": {"family": "topk", "sizes": [1 << 20], "item_bytes": [4]}, "instances": ins}
        insts, points, notes = peers.plan(spec, ["torch-topk", "torch-topk-sorted"])
        labels = [i["label"] for i in insts]
        self.assertEqual(len(labels), len(set(labels)))
        self.assertIn("torch-topk-keys-sorted/k=32", labels)
        self.assertIn("torch-topk-sorted/k=32", labels)
        self.assertIn("torch-topk-sorted-keys-reversed/k=32", labels)

    def test_axis_over_problem(self):
        ins = [self.inst("r/dist=%s" % d, "dist", d, dist=d, rows=16, k=1024)
               for d in ("zipf", "nan", "uniform")]
        spec = {"sweep": {"family": "topk", "sizes": [1 << 14], "item_bytes": [4]}, "instances": ins}
        insts, points, notes = peers.plan(spec, ["torch-sort"])
        self.assertEqual([i["label"] for i in insts], ["torch-sort/dist=zipf", "torch-sort/dist=uniform"])
        self.assertEqual(insts[0]["params"]["rows"], 16)
        self.assertEqual(len(notes), 1)
        self.assertIn("nan", notes[0])

    def test_work(self):
        i = {"family": "topk", "params": {"rows": 16}}
        self.assertEqual(peers.work(i, 1 << 20, 4), (16.0 * (1 << 20), 64.0 * (1 << 20)))
        self.assertEqual(peers.work({"family": "shuffle", "params": {}}, 100, 8), (100.0, 1600.0))


class Names(unittest.TestCase):
    """Modules' old names read as the new ones (docs/modules.md), from
    permbench's own table (core/module_aliases.c)."""

    def test_canonical(self):
        from peerslib.names import aliases, canonical
        self.assertEqual(canonical("radik/k=32"), "gpu-radik/k=32")
        self.assertEqual(canonical("radik"), "gpu-radik")
        self.assertEqual(canonical("copy"), "gpu-copy")
        self.assertEqual(canonical("omp-topk/rows=4"), "cpu-topk/rows=4")
        for same in ("radik-two-read", "gpu-radik/k=32", "torch-topk/k=32", ""):
            self.assertEqual(canonical(same), same)
        self.assertEqual(aliases()["cub-topk"], "gpu-cub-topk")
        self.assertTrue(all(n.startswith(("cpu-", "gpu-")) for n in aliases().values()))

    def test_old_run_read_under_new_names(self):
        row = {"label": "radik/k=32", "series": "radik", "module": "radik", "n": 1024}
        other = {"label": "radik-two-read", "series": "radik-two-read", "module": "radik", "n": 1024}
        root = {"schema_version": 2, "sweep": {"reference": "sort-and-choose"},
                "instances": [dict(row), dict(other)], "results": [dict(row), dict(other)]}
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "results.json"), "w") as f:
                json.dump(root, f)
            got, _ = peers.load_results(d)
        self.assertEqual(got["sweep"]["reference"], "gpu-sort-and-choose")
        for rows in (got["instances"], got["results"]):
            self.assertEqual((rows[0]["label"], rows[0]["series"], rows[0]["module"]),
                             ("gpu-radik/k=32", "gpu-radik", "gpu-radik"))
            self.assertEqual((rows[1]["label"], rows[1]["series"], rows[1]["module"]),
                             ("radik-two-read", "radik-two-read", "gpu-radik"))


class FakeArray(object):
    """A 1-D array of Python numbers, enough of jax.Array for the JAX peers'
    ops: elementwise compares and negation, slices (with a leading ...),
    shape."""

    def __init__(self, v):
        self.v = list(v)
        self.shape = (len(self.v),)

    def _other(self, o):
        return o.v if isinstance(o, FakeArray) else [o] * len(self.v)

    def __getitem__(self, k):
        if isinstance(k, tuple):  # x[..., a:b]
            k = k[-1]
        return FakeArray(self.v[k]) if isinstance(k, slice) else self.v[k]

    def __neg__(self):
        return FakeArray([-x for x in self.v])

    def __invert__(self):
        return FakeArray([not x for x in self.v])

    def __eq__(self, o):
        return FakeArray([a == b for a, b in zip(self.v, self._other(o))])

    def __ne__(self, o):
        return FakeArray([a != b for a, b in zip(self.v, self._other(o))])

    def __lt__(self, o):
        return FakeArray([a < b for a, b in zip(self.v, self._other(o))])

    def __ge__(self, o):
        return FakeArray([a >= b for a, b in zip(self.v, self._other(o))])

    @property
    def at(self):
        arr = self

        class At(object):
            def __getitem__(self, idx):
                class Setter(object):
                    def set(self, value):
                        v = list(arr.v)
                        for i in idx.v:
                            v[i] = value
                        return FakeArray(v)
                return Setter()
        return At()


def fake_jax(gpus=1, top_k=None, permutation=None):
    """A stand-in for jax with what the peers call, on FakeArrays: jit is the
    function itself, block_until_ready waits for nothing, top_k and
    permutation are exact unless replaced."""
    import random
    import types
    jax = types.ModuleType("jax")
    jnp = types.ModuleType("jax.numpy")
    jax.__version__ = "0.0-fake"
    jax.numpy = jnp
    jax.updates = []
    jax.config = types.SimpleNamespace(update=lambda k, v: jax.updates.append((k, v)))
    jax.devices = lambda kind: ["gpu0"] * gpus
    jax.jit = lambda f: f
    jax.block_until_ready = lambda x: x

    def exact_top_k(x, k):
        order = sorted(range(len(x.v)), key=lambda i: (-x.v[i], i))[:k]
        return FakeArray([x.v[i] for i in order]), FakeArray(order)
    jax.lax = types.SimpleNamespace(top_k=top_k or exact_top_k)

    def exact_permutation(key, x):
        v = list(x.v)
        random.Random(repr(key)).shuffle(v)
        return FakeArray(v)
    jax.random = types.SimpleNamespace(permutation=permutation or exact_permutation,
                                       fold_in=lambda base, i: (base, i))
    jnp.uint8 = "uint8"
    jax.fills = []  # the flushes: (items, value), never made
    jnp.full = lambda shape, v, dtype=None: jax.fills.append((shape[0], v))
    jnp.zeros = lambda n, dtype=None: FakeArray([False] * n)
    jnp.array_equal = lambda a, b: a.v == b.v
    jnp.sum = lambda a: sum(a.v)
    jnp.any = lambda a: any(a.v)
    jnp.all = lambda a: all(a.v)
    jnp.min = lambda a: min(a.v)
    jnp.max = lambda a: max(a.v)
    jnp.sort = lambda a, axis=-1: FakeArray(sorted(a.v))
    jnp.take_along_axis = lambda x, i, axis=-1: FakeArray([x.v[j] for j in i.v])
    return jax


class JaxPeers(unittest.TestCase):
    """The JAX peers' code path on a fake jax (tests/scripts/peers_unit.py's
    FakeArray): importing it, the plan, the timing, and each op's call and
    check, which must catch a wrong answer."""

    X = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0]

    def data(self, largest, k):
        s = sorted(self.X, reverse=largest)
        import types
        return types.SimpleNamespace(x=FakeArray(self.X), largest=largest, kmax=k, ref=FakeArray(s[:k]))

    def test_import(self):
        for gpus, want in ((0, "missing (jax 0.0-fake sees no GPU)"), (1, "0.0-fake")):
            jax = fake_jax(gpus=gpus)
            sys.modules["jax"] = jax
            try:
                mods, versions = peers.import_libraries(["jax"])
            finally:
                del sys.modules["jax"]
            self.assertEqual(versions["jax"], want)
            self.assertIs(mods["jax"], jax if gpus else None)
            self.assertEqual(jax.updates, [("jax_enable_x64", True)] if gpus else [])

    def test_topk_largest_and_smallest(self):
        for largest in (True, False):
            for k in (1, 3, 9):
                op = peers.JaxTopk(fake_jax(), self.data(largest, k), k, len(self.X))
                op.refresh()
                op.run()
                op.check()
                want = sorted(self.X, reverse=largest)[:k]
                self.assertEqual(op.out[0].v, want)

    def test_topk_wrong_answers_caught(self):
        def wrong_value(x, k):
            return FakeArray([x.v[0]] * k), FakeArray([0] * k)

        def wrong_index(x, k):
            order = sorted(range(len(x.v)), key=lambda i: -x.v[i])[:k]
            return FakeArray([x.v[i] for i in order]), FakeArray([(i + 1) % len(x.v) for i in order])

        def repeated(x, k):  # the two 5s at one index
            return FakeArray([9.0, 6.0, 5.0, 5.0]), FakeArray([5, 7, 4, 4])
        for top_k, msg in ((wrong_value, "not the largest"), (wrong_index, "does not point"),
                           (repeated, "twice")):
            op = peers.JaxTopk(fake_jax(top_k=top_k), self.data(True, 4), 4, len(self.X))
            with self.assertRaises(peers.CheckFailed) as e:
                op.check()
            self.assertIn(msg, str(e.exception))

    def test_shuffle(self):
        x = FakeArray(range(100))
        op = peers.JaxShuffle(fake_jax(), x, "key")
        for _ in range(3):
            op.refresh()
            op.run()
            op.check()
            op.remember()
        self.assertEqual(op.i, 4)  # one compile run, three samples: a fresh key each
        op = peers.JaxShuffle(fake_jax(permutation=lambda key, x: x), x, "key")
        op.check()
        op.remember()
        op.run()
        with self.assertRaises(peers.CheckFailed) as e:
            op.check()
        self.assertIn("same output", str(e.exception))
        op = peers.JaxShuffle(fake_jax(permutation=lambda key, x: FakeArray([0] + x.v[1:-1] + [0])), x, "k")
        with self.assertRaises(peers.CheckFailed) as e:
            op.check()
        self.assertIn("missing", str(e.exception))

    def test_backend_times_the_waiting_call(self):
        real_now, t = peers._now, [0.0]
        peers._now = lambda: t[0]
        try:
            jax = fake_jax()
            be = peers.JaxBackend(jax)

            class Op(object):
                def run(self):
                    t[0] += 0.0025
            be.begin_row("jax-topk", {"hold": True})
            ms, wall = be.time_one(Op(), {"flush_cache": True})
        finally:
            peers._now = real_now
        self.assertAlmostEqual(ms, 2.5)
        self.assertEqual(wall, ms)
        self.assertFalse(be.last_held)
        self.assertEqual(jax.fills, [(2 * (peers.gpu_attribute(38) or (64 << 20)), 1)])

    def test_rows_input_by_input(self):
        # run_by_input (run_torch's and run_jax's loop): an input that cannot
        # be made fails its rows, an op that cannot, its row; the rest are
        # measured, each row with the backend's time source.
        ins = [Plan.inst(None, "r/k=%d" % k, "k", str(k), k=k, dist=d) for d in ("uniform", "zipf") for k in (4, 8)]
        spec = {"sweep": {"family": "topk", "sizes": [64], "item_bytes": [4]}, "instances": ins}
        insts, points, notes = peers.plan(spec, ["jax-topk"])
        made, rows = [], []

        def make_data(inst, ib, n, kmax):
            made.append((inst["params"]["dist"], kmax))
            if inst["params"]["dist"] == "zipf":
                raise MemoryError("out of memory")
            return "data"

        def make_op(inst, data, n):
            if inst["params"]["k"] == 8:
                raise ValueError("no compile")
            return peers.SyntheticOp(inst, n, 4, False)
        settings = {"warmup": 1, "min_samples": 3, "max_samples": 3, "min_time_s": 0, "timeout_s": 10,
                    "max_noise_pct": 100.0, "flush_cache": False, "hold": False}
        peers.run_by_input(peers.SyntheticBackend(1), points, settings, lambda row, inst: rows.append(row),
                           make_data, make_op, "host clock")
        self.assertEqual(made, [("uniform", 8), ("zipf", 8)])
        got = dict((r["label"], (r["status"], r["message"], len(r["samples_ms"]), r.get("time_source")))
                   for r in rows)
        self.assertEqual(got, {
            "jax-topk/k=4": ("ok", None, 3, "host clock"),
            "jax-topk/k=8": ("ERROR", "prepare: ValueError: no compile", 0, "host clock"),
            "jax-topk-zipf/k=4": ("ERROR", "prepare: MemoryError: out of memory", 0, None),
            "jax-topk-zipf/k=8": ("ERROR", "prepare: MemoryError: out of memory", 0, None)})

    def test_plan_refuses_misaligned_rows(self):
        ins = [Plan.inst(None, "r/k=32", "k", "32", k=32), Plan.inst(None, "m/k=32", "k", "32", k=32, misalign=True)]
        spec = {"sweep": {"family": "topk", "sizes": [1 << 20], "item_bytes": [4]}, "instances": ins}
        insts, points, notes = peers.plan(spec, ["torch-topk", "jax-topk"])
        labels = [i["label"] for i in insts]
        self.assertEqual(labels, ["torch-topk/k=32", "torch-topk-misalign/k=32", "jax-topk/k=32"])
        self.assertEqual(len(notes), 1)
        self.assertIn("jax-topk-misalign/k=32: misaligned rows", notes[0])
        spec = {"sweep": {"family": "shuffle", "sizes": [1 << 20], "item_bytes": [4, 8]}, "instances": []}
        insts, points, notes = peers.plan(spec, ["jax-permutation"])
        self.assertEqual([i["label"] for i in insts], ["jax-permutation"])
        self.assertEqual(len(points), 2)


if __name__ == "__main__":
    unittest.main(verbosity=1)

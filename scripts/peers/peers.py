#!/usr/bin/env python3
"""peers.py - the GPU calls a user would pick instead of permbench's modules,
timed the way permbench times its own, written in permbench's results schema.

    peers.py run (--like RESULT_DIR | CONFIG.ini) [--out DIR] [--only NAME,...]
                 [--set KEY=VALUE]... [--dry-run] [--quiet]
    peers.py merge PERMBENCH_DIR PEERS_DIR OUT_DIR
    peers.py relabel PEERS_DIR OUT_DIR PEER_SERIES=OUR_SERIES... [--against RESULT_DIR]

`run` times, on this machine's GPU, PyTorch's torch.topk (sorted and
unsorted), torch.sort (sort, then the first k), torch.randperm + index,
torch.sort of random keys + index, and CuPy's cupy.random.shuffle, at the
points of a permbench sweep, and writes DIR/results.json and results.csv in
permbench's schema (docs/results.md). `merge` puts those rows beside a
permbench run's in a new directory, for one figure (`permbench plot`).
`relabel` renames peer series to ours, so `permbench compare` sets them row
by row against a permbench run. See scripts/peers/README.md.

Standard library only; torch and cupy are imported when present. Exit status:
0 done; 1 a row failed its check or could not be measured; 2 bad input (one
line on stderr, nothing written); 77 nothing to do (neither library, or no
peer for the sweep's family: one line on stderr, nothing written); 130
interrupted (the finished rows are written, marked interrupted).
"""

import argparse
import ctypes
import gzip
import json
import math
import os
import platform
import re
import socket
import subprocess
import sys
import time
import zlib

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIP, EXIT_INTERRUPTED = 0, 1, 2, 77, 130
PROG = "peers"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# permbench's results.csv columns, in order (bench/results_csv.c).
CSV_COLUMNS = [
    "label", "series", "axis", "axis_value", "module", "family", "device", "n", "item_bytes",
    "threads", "samples", "median_ms", "min_ms", "max_ms", "mean_ms", "stddev_ms",
    "wall_median_ms", "noise_pct", "noisy", "items_per_s", "effective_gbps", "pct_of_copy",
    "speedup_vs_ref", "verified", "status", "link_bytes", "link_gbps",
]
# Before link_bytes and link_gbps were appended: a base run of an older
# permbench, which merge still takes.
CSV_COLUMNS_OLD = CSV_COLUMNS[:CSV_COLUMNS.index("status") + 1]


class Bad(Exception):
    """Bad input: one line on stderr, exit 2."""


class Skip(Exception):
    """Nothing to do: one line on stderr, exit 77."""


# ---------------------------------------------------------------------------
# Sizes (config/sizes.c): expressions of numbers joined by + - * ^ without
# spaces, lists, and ranges FIRST .. LAST [*FACTOR | +STEP].

SIZE_LIMIT = 1 << 62


def _size_expr(text):
    """(leading term, offset) of an expression, as config/sizes.c reads it."""
    pos = [0]

    def fail(what):
        rest = text[pos[0]:]
        where = "at '%s'" % rest if rest else "at its end"
        raise Bad("bad size expression '%s': %s %s" % (text, what, where))

    def number():
        m = re.match(r"[0-9]+", text[pos[0]:])
        if not m:
            fail("expected a number")
        pos[0] += m.end()
        v = int(m.group(0))
        if v > SIZE_LIMIT:
            fail("number too large")
        return v

    def factor():
        b = number()
        if text[pos[0]:pos[0] + 1] != "^":
            return b
        pos[0] += 1
        e = number()
        if b <= 1:
            return 1 if e == 0 else b
        if e > 62:
            fail("power too large")
        v = b ** e
        if v > SIZE_LIMIT:
            fail("power too large")
        return v

    def term():
        v = factor()
        while text[pos[0]:pos[0] + 1] == "*":
            pos[0] += 1
            v *= factor()
            if v > SIZE_LIMIT:
                fail("product too large")
        return v

    lead = term()
    off = 0
    while text[pos[0]:pos[0] + 1] in ("+", "-") and pos[0] < len(text):
        op = text[pos[0]]
        pos[0] += 1
        t = term()
        off += t if op == "+" else -t
        if abs(off) > SIZE_LIMIT:
            fail("offset too large")
    if pos[0] < len(text):
        fail("unexpected character")
    if off < 0 and -off > lead:
        fail("negative size")
    if lead + off > SIZE_LIMIT:
        fail("size too large")
    return lead, off


def size_value(text):
    lead, off = _size_expr(text)
    return lead + off


def parse_sizes(text):
    """A size list, as permbench reads `sizes` (and integer list items)."""
    out = []
    for raw in text.split(","):
        item = raw.strip()
        words = item.replace("..", " .. ").split()
        if not words:
            raise Bad("empty item in size list '%s'" % text)
        if len(words) == 1:
            out.append(size_value(words[0]))
            continue
        if len(words) == 2 or words[1] != "..":
            raise Bad("bad size expression '%s': write expressions without spaces, and ranges as "
                      "'FIRST .. LAST [*FACTOR | +STEP]'" % item)
        if len(words) > 4:
            raise Bad("bad size range '%s': expected 'FIRST .. LAST [*FACTOR | +STEP]'" % item)
        a, oa = _size_expr(words[0])
        b, ob = _size_expr(words[2])
        op, step = "*", 2
        if len(words) == 4:
            op = words[3][0]
            if op not in "*+":
                raise Bad("bad size range '%s': step '%s' is not '*FACTOR' or '+STEP'" % (item, words[3]))
            step = size_value(words[3][1:])
        first, last = a + oa, b + ob
        if first > last:
            raise Bad("bad size range '%s': first size is above the last" % item)
        if op == "+":
            if step < 1:
                raise Bad("bad size range '%s': step must be at least 1" % item)
            out.extend(range(first, last + 1, step))
            continue
        if step < 2:
            raise Bad("bad size range '%s': factor must be at least 2" % item)
        if oa != ob:
            raise Bad("bad size range '%s': both ends of a geometric range need the same offset "
                      "(%+d and %+d)" % (item, oa, ob))
        if a == 0:
            raise Bad("bad size range '%s': a geometric range cannot start at 0" % item)
        v = a
        while v <= b:
            out.append(v + oa)
            v *= step
    if len(out) > 4096:
        raise Bad("too many sizes (at most 4096)")
    return out


def size_name(n):
    """2^k, 2^k+1, 2^k-1 or the number (config/sizes.c's pb_size_format)."""
    for k in range(4, 63):
        p = 1 << k
        if n == p:
            return "2^%d" % k
        if n == p + 1:
            return "2^%d+1" % k
        if n == p - 1:
            return "2^%d-1" % k
    return str(n)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


# ---------------------------------------------------------------------------
# Sweep configs (config/ini.c's rules, the part the shipped configs use).

def read_ini(path):
    """(text, head, sections): the [sweep] keys and the module sections in
    order, each (name, {key: value}). Comment lines start with ; or #; an
    indented line continues the key before it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror or e))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Bad("%s: not UTF-8 text" % path)
    if text.startswith("\ufeff"):
        text = text[1:]
    head, sections, cur, last = None, [], None, None
    for no, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if len(line) > 199:
            raise Bad("%s:%d: line longer than 199 characters" % (path, no))
        s = line.strip()
        if not s or s[0] in ";#":
            continue
        if s.startswith("["):
            if not s.endswith("]"):
                raise Bad("%s:%d: malformed line (expected [section], key = value, or a comment)" % (path, no))
            name = s[1:-1].strip()
            if name == "sweep":
                if head is not None:
                    raise Bad("%s:%d: section [sweep] appears twice" % (path, no))
                head = {}
                cur = head
            else:
                if name == "quality":
                    raise Bad("%s:%d: a quality battery, not a sweep config" % (path, no))
                if not re.match(r"^[A-Za-z0-9._+-]{1,47}$", name):
                    raise Bad("%s:%d: bad section name [%s]" % (path, no, name))
                if any(n == name for n, _ in sections):
                    raise Bad("%s:%d: section [%s] appears twice" % (path, no, name))
                cur = {}
                sections.append((name, cur))
            last = None
            continue
        if line[0] in " \t" and last is not None:
            v = _strip_inline_comment(s)
            prev = cur[last]
            cur[last] = prev + (" " if prev.rstrip().endswith(",") else ", ") + v
            continue
        if "=" not in s:
            raise Bad("%s:%d: malformed line (expected [section], key = value, or a comment)" % (path, no))
        if cur is None:
            raise Bad("%s:%d: a key before the first section" % (path, no))
        key, value = s.split("=", 1)
        key = key.strip()
        if key in cur:
            raise Bad("%s:%d: key '%s' appears twice in its section" % (path, no, key))
        cur[key] = _strip_inline_comment(value.strip())
        last = key
    if head is None:
        raise Bad("%s: no [sweep] section" % path)
    return text, head, sections


def _strip_inline_comment(v):
    m = re.search(r"\s;", v)
    return v[:m.start()].rstrip() if m else v


def parse_bool(v, what):
    t = v.strip().lower()
    if t in ("yes", "true", "on", "1"):
        return True
    if t in ("no", "false", "off", "0"):
        return False
    raise Bad("%s: '%s' is not yes or no" % (what, v))


# Modules by family, for a config that does not name its family.
SHUFFLE_MODULES = {
    "fisher-yates", "gsl-shuffle", "bijective-twin", "rao-sandelius", "merge-shuffle",
    "cpu-dart-throwing", "tbb-bijective", "tbb-sort-shuffle", "bijective0", "bijective1",
    "bijective2", "dart-throwing", "sort-shuffle", "thrust-shuffle", "cpu-copy", "copy",
    "cuda-memcpy", "cpu-gather", "tbb-gather", "gather",
}
TOPK_MODULES = {"omp-topk", "radik", "sort-and-choose"}
ITEMS = {"shuffle": {"u64": 8, "u32": 4}, "topk": {"u32": 4}}
TOPK_DISTS = ["uniform", "narrow", "narrow128", "zipf", "normal", "equal", "inf", "nan", "relu", "int8",
              "sorted", "reversed"]
# Value types (topk_key.h's dtype choices), the bytes one value is read as,
# and torch's type for those torch.topk takes.
TOPK_DTYPES = ["f32", "u32", "i32", "f16", "bf16", "f64", "u64"]
TOPK_DTYPE_BYTES = {"f32": 4, "u32": 4, "i32": 4, "f16": 2, "bf16": 2, "f64": 8, "u64": 8}
TORCH_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64"}
# Distributions that take an argument (few:L levels, masked:F a fraction).
TOPK_DISTS_ARG = ["few", "masked"]
# The top-k problem's parameters (families/topk/topk_problem.h), defaults.
TOPK_PARAMS = [("k", 32), ("rows", 1), ("ragged", False), ("misalign", False), ("largest", True),
               ("dist", "uniform"), ("dtype", "f32")]
SWEEP_DEFAULTS = {"warmup": 1, "min_samples": 10, "min_time_s": 0.5, "max_samples": 1000,
                  "timeout_s": 60.0, "max_noise_pct": 0.5, "flush_cache": True, "hold": True}


def _topk_value(key, raw, where):
    if key in ("k", "rows"):
        return size_value(raw)
    if key in ("ragged", "misalign", "largest"):
        return parse_bool(raw, where)
    if key == "dist":
        name, _, arg = raw.partition(":")
        if name in TOPK_DISTS_ARG:
            try:
                v = float(arg) if name == "masked" else int(arg)
            except ValueError:
                v = -1
            if (name == "few" and not 1 <= v <= 1 << 24) or (name == "masked" and not 0 <= v <= 1):
                raise Bad("%s: '%s' needs an argument (few:L, L in 1..2^24; masked:F, F in 0..1)" % (where, raw))
            return raw
        if raw not in TOPK_DISTS:
            raise Bad("%s: '%s' is not one of %s" % (where, raw, "|".join(TOPK_DISTS + [d + ":ARG" for d in TOPK_DISTS_ARG])))
        return raw
    if raw not in TOPK_DTYPES:
        raise Bad("%s: '%s' is not one of %s" % (where, raw, "|".join(TOPK_DTYPES)))
    return raw


def sweep_from_config(path):
    """The sweep a permbench config describes, as sweep_from_like() returns it."""
    text, head, sections = read_ini(path)
    family = head.get("family")
    modules = [sec.get("module", name).split("|")[0].strip() for name, sec in sections]
    if not family:
        if any(m in TOPK_MODULES for m in modules):
            family = "topk"
        elif any(m in SHUFFLE_MODULES for m in modules):
            family = "shuffle"
        else:
            raise Bad("%s: no family in [sweep], and no module peers.py knows names one" % path)
    if "sizes" not in head:
        raise Bad("%s: [sweep] has no sizes" % path)
    sizes = parse_sizes(head["sizes"])
    sweep = {"family": family, "title": head.get("title", ""), "sizes": sizes}
    if family in ITEMS:
        names = [s.strip() for s in head.get("item", list(ITEMS[family])[0]).split(",")]
        for nm in names:
            if nm not in ITEMS[family]:
                raise Bad("%s: item '%s' is not one of the %s family's (%s)" %
                          (path, nm, family, ", ".join(ITEMS[family])))
        sweep["item_bytes"] = [ITEMS[family][nm] for nm in names]
    else:
        sweep["item_bytes"] = []
    sweep["seed"] = head.get("seed", "1")
    try:
        sweep["seed"] = str(int(sweep["seed"], 0))
        for key, ini_key, conv in (("warmup", "warmup", int), ("min_samples", "min_samples", int),
                                   ("max_samples", "max_samples", int), ("min_time_s", "min_time", float),
                                   ("timeout_s", "timeout", float), ("max_noise_pct", "max_noise", float)):
            sweep[key] = conv(head[ini_key]) if ini_key in head else SWEEP_DEFAULTS[key]
    except ValueError as e:
        raise Bad("%s: [sweep]: %s" % (path, e))
    for key in ("flush_cache", "hold"):
        sweep[key] = parse_bool(head[key], "%s: [sweep] %s" % (path, key)) if key in head else True
    sweep["plots"] = [p.strip() for p in head.get("plot", "throughput").split(",")]
    if sweep["plots"] == ["none"]:
        sweep["plots"] = []
    sweep["reference"] = head.get("reference") or None
    instances = []
    for (name, sec), module in zip(sections, modules):
        inst = {"label": name, "series": name, "axis": "", "axis_value": "", "module": module,
                "family": family, "device": "gpu", "params": {}, "automatic": False}
        if family != "topk" or module not in TOPK_MODULES:
            instances.append(inst)
            continue
        where = "%s: [%s]" % (path, name)
        params = dict(TOPK_PARAMS)
        axis, values = "", []
        for key, raw in sec.items():
            if key == "module":
                continue
            is_list = "," in raw or ".." in raw
            if is_list:
                if axis:
                    raise Bad("%s: more than one list (%s and %s)" % (where, axis, key))
                axis = key
                values = []
                for x in (x.strip() for x in raw.split(",")):
                    if key in ("k", "rows"):  # integers: ranges allowed, written in decimal
                        values.extend((v, str(v)) for v in parse_sizes(x))
                    elif key in dict(TOPK_PARAMS):  # other values as written
                        values.append((_topk_value(key, x, where + " " + key), x))
                    else:
                        values.append((x, x))
                continue
            if key in dict(TOPK_PARAMS):
                params[key] = _topk_value(key, raw, where + " " + key)
        if not axis:
            inst["params"] = params
            instances.append(inst)
            continue
        seen = set()
        for v, t in values:
            if t in seen:
                raise Bad("%s: %s lists '%s' twice" % (where, axis, t))
            seen.add(t)
            p = dict(params)
            if axis in p:
                p[axis] = v
            instances.append(dict(inst, label="%s/%s=%s" % (name, axis, t), axis=axis,
                                  axis_value=t, params=p))
    config = {"path": path, "name": os.path.splitext(os.path.basename(path))[0],
              "hash_fnv1a64": "%016x" % fnv1a64(text.encode("utf-8")), "text": text}
    return {"sweep": sweep, "instances": instances, "config": config, "like": None}


def results_file(path):
    """DIR/results.json, else DIR/results.json.gz (a packed reference run:
    scripts/pack-reference.sh), as output/json_file.c finds it; a file is
    itself."""
    if not os.path.isdir(path):
        return path
    plain = os.path.join(path, "results.json")
    packed = plain + ".gz"
    return packed if not os.path.exists(plain) and os.path.exists(packed) else plain


def read_json(file):
    """A JSON document, plain or gzip (told by its first bytes, as permbench
    tells them). OSError, ValueError, EOFError (a gzip stream cut short) or
    zlib.error (corrupt deflate data) when it cannot be read or is not JSON."""
    with open(file, "rb") as f:
        packed = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if packed else open
    with opener(file, "rt", encoding="utf-8") as f:
        return json.load(f)


def load_results(path, what="RESULT_DIR"):
    """A permbench results.json (a directory holding one, or the file),
    plain or gzip."""
    file = results_file(path)
    if not os.path.exists(file):
        if os.path.isdir(path):
            raise Bad("%s %s: no results.json in that directory (nor results.json.gz)" % (what, path))
        raise Bad("%s %s: no such file or directory" % (what, path))
    try:
        root = read_json(file)
    except (OSError, ValueError, EOFError, zlib.error) as e:
        raise Bad("%s %s: not a results.json (%s)" % (what, file, e))
    if not isinstance(root, dict) or not isinstance(root.get("results"), list) or \
            not isinstance(root.get("schema_version"), int) or \
            not isinstance(root.get("sweep"), dict) or not isinstance(root.get("instances"), list):
        raise Bad("%s %s: not a permbench results.json (no schema_version, sweep, instances and results)"
                  % (what, file))
    if root["schema_version"] not in (1, 2):
        raise Bad("%s %s: results.json schema_version %s; peers.py reads 1 and 2" %
                  (what, file, root["schema_version"]))
    return root, file


def sweep_from_like(path):
    """The sweep of a finished permbench run: its sizes, widths, instances
    (with every parameter resolved) and stopping rule, from results.json."""
    root, file = load_results(path, "--like")
    sw = root["sweep"]
    family = sw.get("family") or (root["results"][0].get("family") if root["results"] else None)
    if not family:
        raise Bad("--like %s: the run names no family" % file)
    sweep = {"family": family, "title": sw.get("title") or "", "sizes": list(sw.get("sizes") or []),
             "item_bytes": list(sw.get("item_bytes") or []), "seed": str(sw.get("seed", "1")),
             "plots": list(sw.get("plots") or []), "reference": sw.get("reference")}
    for key, default in SWEEP_DEFAULTS.items():
        v = sw.get(key)
        sweep[key] = default if v is None else v
    if not sweep["sizes"] or not all(isinstance(n, int) and n > 0 for n in sweep["sizes"]):
        raise Bad("--like %s: sweep.sizes is not a list of sizes" % file)
    instances = []
    for i, inst in enumerate(root["instances"]):
        if not isinstance(inst, dict) or not isinstance(inst.get("label"), str):
            raise Bad("--like %s: instances[%d] has no label" % (file, i))
        instances.append({"label": inst["label"], "series": inst.get("series") or inst["label"],
                          "axis": inst.get("axis") or "", "axis_value": inst.get("axis_value") or "",
                          "module": inst.get("module", ""), "family": inst.get("family", family),
                          "device": inst.get("device", ""), "params": inst.get("params") or {},
                          "automatic": bool(inst.get("automatic"))})
    prov = root.get("provenance") or {}
    like = {"path": os.path.abspath(path), "date": prov.get("date"),
            "commit": (prov.get("git") or {}).get("commit"), "dirty": (prov.get("git") or {}).get("dirty"),
            "gpu": prov.get("gpu") or {},
            "schema_version": root["schema_version"]}
    return {"sweep": sweep, "instances": instances, "config": prov.get("config") or {}, "like": like}


# ---------------------------------------------------------------------------
# The plan: which peer runs at which point.

class Peer(object):
    """A peer call: module name, library, what it stands beside, the call."""

    def __init__(self, module, library, family, call, beside, check):
        self.module, self.library, self.family = module, library, family
        self.call, self.beside, self.check = call, beside, check


PEERS = [
    Peer("torch-topk", "torch", "topk", "torch.topk(x, k, dim=-1, largest=L, sorted=False)",
         "radik (the order within a row is free, as for every permbench top-k)",
         "values and indices against torch.sort of the input"),
    Peer("torch-topk-sorted", "torch", "topk", "torch.topk(x, k, dim=-1, largest=L, sorted=True)",
         "radik; sorted=True is what most callers leave on",
         "values in order against torch.sort of the input, indices"),
    Peer("torch-sort", "torch", "topk", "torch.sort(x, dim=-1, descending=L), then [..., :k]",
         "sort-and-choose (CUB sort of each row, the first k)",
         "values in order against torch.sort of the input, indices"),
    Peer("torch-randperm-index", "torch", "shuffle", "x[torch.randperm(n)]",
         "the bijective shuffles, sort-shuffle (randperm sorts random keys)",
         "a permutation of the input (a bitmap of n bits), unlike the last sample"),
    Peer("torch-sort-shuffle", "torch", "shuffle",
         "x[torch.sort(torch.empty(n, int64).random_()).indices]",
         "sort-shuffle (random 64-bit keys, radix sort)",
         "a permutation of the input (a bitmap of n bits), unlike the last sample"),
    Peer("cupy-shuffle", "cupy", "shuffle", "cupy.random.shuffle(x) (in place)",
         "thrust-shuffle and sort-shuffle (CuPy argsorts random keys)",
         "a permutation of the input (a bitmap of n bits), unlike the last sample"),
]
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


def plan(spec, only):
    """Peer instances and rows for a sweep: (instances, points, notes); each
    point is (instance, item_bytes, n)."""
    sweep, family = spec["sweep"], spec["sweep"]["family"]
    peers = [p for p in PEERS if p.family == family and (not only or p.module in only)]
    if family not in ("topk", "shuffle"):
        raise Skip("no torch/cupy peer for the %s family (peers time topk and shuffle sweeps); "
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


# ---------------------------------------------------------------------------
# Statistics and the stopping rule (stats/summary.c, bench/stopping.c).

def summarise(x):
    """median, min, max, mean, stddev (n - 1; 0 for one sample)."""
    n = len(x)
    if n == 0:
        return None
    s = sorted(x)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0
    mean = math.fsum(s) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in s) / (n - 1)) if n > 1 else 0.0
    return {"median": med, "min": s[0], "max": s[-1], "mean": mean, "stddev": sd}


class Noise(object):
    """The running noise (relative standard deviation) of a row's samples,
    and its history: Welford's mean and sum of squares, as bench/stopping.c."""

    def __init__(self):
        self.n, self.mean, self.m2, self.measured, self.history = 0, 0.0, 0.0, 0.0, []

    def add(self, ms):
        self.n += 1
        d = ms - self.mean
        self.mean += d / self.n
        self.m2 += d * (ms - self.mean)
        self.measured += ms * 1e-3
        self.history.append(self.value())

    def value(self):
        if self.n < 2 or not self.mean > 0:
            return 0.0
        return math.sqrt(self.m2 / (self.n - 1)) / self.mean


GO_ON, QUIET, SETTLED, MAX, TIMEOUT = range(5)


def stopping_check(st, z, elapsed):
    """NVBench's criterion, as pb_stopping_check: once min_samples and
    min_time are reached, stop when the noise is at most max_noise or has
    settled (moved by under 5% over the last max(min_samples, 10) samples);
    max_samples and the timeout stop in any case."""
    if z.n >= st["min_samples"] and z.measured >= st["min_time_s"]:
        noise = z.value()
        if noise <= st["max_noise_pct"] / 100.0:
            return QUIET
        w = max(st["min_samples"], 10)
        if z.n >= 2 * w and abs(noise - z.history[z.n - 1 - w]) <= 0.05 * noise:
            return SETTLED
    if z.n >= st["max_samples"]:
        return MAX
    if elapsed >= st["timeout_s"]:
        return TIMEOUT
    return GO_ON


# ---------------------------------------------------------------------------
# Measuring one row (bench/measure.c's pb_measure_point).

class CheckFailed(Exception):
    pass


def measure_row(be, op, settings, row):
    """Warm-up, then samples until the stopping rule says so, each refreshed
    (untimed), timed (be.time_one: flush, hold, events) and checked."""
    row["status"] = "ERROR"
    samples, walls = [], []
    try:
        for _ in range(settings["warmup"]):
            op.refresh()
            op.run()
            be.sync()
            op.remember()
        z = Noise()
        start = time.monotonic()
        stop, k = GO_ON, 0
        while stop == GO_ON:
            c0 = time.monotonic()
            op.refresh()
            row["check_s"] += time.monotonic() - c0
            ms, wall = be.time_one(op, settings)
            samples.append(ms)
            walls.append(wall)
            z.add(ms)
            c0 = time.monotonic()
            try:
                op.check()
            except CheckFailed as e:
                row["check_s"] += time.monotonic() - c0
                row["failed_sample"] = k
                row["status"] = "FAILED"
                row["message"] = "verification, sample %d: %s" % (k, e)
                break
            row["check_s"] += time.monotonic() - c0
            k += 1
            stop = stopping_check(settings, z, time.monotonic() - start)
        if stop != GO_ON:
            row["status"] = "ok"
        row["timed_out"] = stop == TIMEOUT
        row["noise"] = z.value()
    except KeyboardInterrupt:
        raise
    except Exception as e:  # a library's error: the row could not be measured
        row["status"] = "ERROR"
        row["message"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:400])
        row["noise"] = Noise().value() if not samples else _noise_of(samples)
    row["samples_ms"], row["samples_wall_ms"] = samples, walls
    row["held"] = be.last_held
    return row


def _noise_of(x):
    z = Noise()
    for v in x:
        z.add(v)
    return z.value()


def finish_row(row, inst, max_noise_pct):
    """The row's statistics and rates from its samples, as permbench's."""
    n, s = row["samples_ms"], None
    row["noisy"] = len(n) > 1 and row.get("noise", 0.0) > max_noise_pct / 100.0
    if n:
        s = summarise(n)
        w = summarise(row["samples_wall_ms"])
        row["ms"], row["wall"] = s, w
        items, nbytes = work(inst, row["n"], row["item_bytes"])
        sec = s["median"] * 1e-3
        row["items_per_s"] = items / sec if sec > 0 else 0.0
        row["effective_gbps"] = nbytes / sec / 1e9 if sec > 0 else 0.0
    row["verified"] = row["status"] == "ok"
    return row


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
# The peer calls. Each op: refresh() (untimed: the input as it was), run()
# (the timed call), check() (untimed: raises CheckFailed), remember() (for
# the unlike-the-last-sample check).

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


# ---------------------------------------------------------------------------
# Running a plan.

def import_libraries(needed):
    """{name: module or None}, {name: version or why it is missing}."""
    mods, versions = {}, {}
    for name in ("torch", "cupy"):
        if name not in needed:
            continue
        try:
            mod = __import__(name)
            if name == "torch" and not mod.cuda.is_available():
                raise ImportError("torch %s sees no CUDA device" % mod.__version__)
            if name == "cupy":
                mod.cuda.runtime.getDeviceCount()
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


def run_torch(torch, be, points, settings, seed, report):
    """Every torch point, input by input: one input (and its answer) per
    problem, every peer and k on it."""
    dev = be.dev
    gen_data = torch.Generator(device=dev)
    gen_data.manual_seed(int(seed) & 0x7FFFFFFFFFFFFFFF)
    gen_op = torch.Generator(device=dev)
    gen_op.manual_seed((int(seed) + 1) & 0x7FFFFFFFFFFFFFFF)
    by_data = {}
    for pt in points:
        by_data.setdefault(data_key(*pt), []).append(pt)
    for key, pts in by_data.items():
        inst0, ib, n = pts[0]
        data = None
        try:
            if inst0["family"] == "topk":
                kmax = max(int(i["params"]["k"]) for i, _, _ in pts)
                data = TopkData(torch, dev, gen_data, n, inst0["params"], kmax)
            else:
                data = torch.arange(n, device=dev, dtype=torch.int64 if ib == 8 else torch.int32)
            be.sync()
        except Exception as e:
            for inst, ib2, n2 in pts:
                row = new_row(inst, ib2, n2)
                row["message"] = "prepare: %s: %s" % (type(e).__name__, str(e).split("\n")[0][:400])
                report(row, inst)
            data = None
            be.release()
            continue
        for inst, ib2, n2 in sorted(pts, key=lambda q: PEERS.index(PEER_BY_NAME[q[0]["module"]])):
            row = new_row(inst, ib2, n2)
            peer = PEER_BY_NAME[inst["module"]]
            if inst["family"] == "topk":
                op = TorchTopk(torch, peer, data, int(inst["params"]["k"]), n2)
            else:
                op = TorchShuffle(torch, peer, data, gen_op)
            be.begin_row(inst["module"], settings)
            measure_row(be, op, settings, row)
            del op
            report(row, inst)
        del data
        be.release()


def run_cupy(cupy, be, points, settings, seed, report):
    cupy.random.seed(int(seed) & 0xFFFFFFFF)
    for inst, ib, n in points:
        row = new_row(inst, ib, n)
        try:
            pristine = cupy.arange(n, dtype=cupy.int64 if ib == 8 else cupy.int32)
            op = CupyShuffle(cupy, pristine)
        except Exception as e:
            row["message"] = "prepare: %s: %s" % (type(e).__name__, str(e).split("\n")[0][:400])
            report(row, inst)
            be.release()
            continue
        be.begin_row(inst["module"], settings)
        measure_row(be, op, settings, row)
        del op, pristine
        be.release()
        report(row, inst)


def run_synthetic(be, points, settings, report):
    for inst, ib, n in points:
        row = new_row(inst, ib, n)
        op = SyntheticOp(inst, n, ib, inst["label"] in be.fail)
        be.begin_row(inst["module"], settings)
        measure_row(be, op, settings, row)
        report(row, inst)


# ---------------------------------------------------------------------------
# Provenance.

def gpu_attribute(attr, ordinal=None):
    """cuDeviceGetAttribute through the driver library, or 0."""
    info = _cuda_driver()
    if not info:
        return 0
    return info["attrs"].get(attr, 0)


_DRIVER = {}


def _cuda_driver():
    if "info" in _DRIVER:
        return _DRIVER["info"]
    info = None
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        if lib.cuInit(0) == 0:
            ordinal = 0
            dev = ctypes.c_int()
            if lib.cuDeviceGet(ctypes.byref(dev), ordinal) == 0:
                name = ctypes.create_string_buffer(256)
                lib.cuDeviceGetName(name, 256, dev)
                ver = ctypes.c_int()
                lib.cuDriverGetVersion(ctypes.byref(ver))
                mem = ctypes.c_size_t()
                lib.cuDeviceTotalMem_v2(ctypes.byref(mem), dev)
                attrs = {}
                for a in (13, 16, 32, 33, 34, 36, 37, 38, 50, 75, 76):
                    v = ctypes.c_int()
                    if lib.cuDeviceGetAttribute(ctypes.byref(v), a, dev) == 0:
                        attrs[a] = v.value
                info = {"name": name.value.decode("utf-8", "replace"), "driver": ver.value,
                        "memory": mem.value, "attrs": attrs}
    except (OSError, AttributeError):
        info = None
    _DRIVER["info"] = info
    return info


def runtime_version(torch_mod, cupy_mod):
    """The CUDA runtime the library was built with, as "13.0"."""
    v = getattr(getattr(torch_mod, "version", None), "cuda", None)
    if v:
        return v
    try:
        r = cupy_mod.cuda.runtime.runtimeGetVersion()
        return "%d.%d" % (r // 1000, r % 1000 // 10)
    except Exception:
        return ""


def gpu_json(torch_mod, cupy_mod):
    """The GPU block of provenance, with the fields permbench writes."""
    d = _cuda_driver()
    if d:
        a = d["attrs"]
        mem_khz, bus = a.get(36, 0), a.get(37, 0)
        return {"present": True, "name": d["name"], "sms": a.get(16, 0),
                "compute_capability": "%d.%d" % (a.get(75, 0), a.get(76, 0)),
                "memory_bytes": d["memory"], "l2_bytes": a.get(38, 0),
                "sm_clock_mhz": a.get(13, 0) // 1000, "memory_clock_mhz": mem_khz // 1000,
                "memory_bus_bits": bus, "peak_bandwidth_gbps": 2.0 * mem_khz * 1e3 * bus / 8 / 1e9,
                "ecc": bool(a.get(32, 0)),
                "pci_bus_id": "%04x:%02x:%02x.0" % (a.get(50, 0), a.get(33, 0), a.get(34, 0)),
                "driver_cuda_version": "%d.%d" % (d["driver"] // 1000, d["driver"] % 1000 // 10),
                "runtime_version": runtime_version(torch_mod, cupy_mod)}
    if torch_mod is not None:
        p = torch_mod.cuda.get_device_properties(torch_mod.cuda.current_device())
        return {"present": True, "name": p.name, "sms": p.multi_processor_count,
                "compute_capability": "%d.%d" % (p.major, p.minor), "memory_bytes": p.total_memory,
                "l2_bytes": getattr(p, "L2_cache_size", 0),
                "runtime_version": runtime_version(torch_mod, cupy_mod)}
    return {"present": False, "reason": "libcuda.so.1 could not be read"}


def host_json():
    model, mem = "", 0
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    u = platform.uname()
    return {"cpu_model": model or u.processor or "unknown", "logical_cpus": os.cpu_count() or 0,
            "memory_bytes": mem, "os": "%s %s %s" % (u.system, u.release, u.machine),
            "hostname": socket.gethostname()}


def git_json():
    """The commit of the tree this script is in: git-archive's stamp, else git."""
    try:
        with open(os.path.join(ROOT, "cmake", "git-archive.txt")) as f:
            stamp = f.read().strip()
        if re.match(r"^[0-9a-f]{40}$", stamp):
            return {"commit": stamp, "dirty": "no", "source": "git-archive"}
    except OSError:
        pass
    try:
        commit = subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"],
                                         stderr=subprocess.DEVNULL).decode().strip()
        dirty = subprocess.check_output(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                        stderr=subprocess.DEVNULL).decode().strip()
        return {"commit": commit, "dirty": "yes" if dirty else "no", "source": "git"}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": "unknown", "dirty": "unknown", "source": "none"}


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ---------------------------------------------------------------------------
# Writing results (bench/results_json.c, bench/results_csv.c).

def _num(x):
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float("%.9g" % x)


def row_json(row):
    ok = row["status"] != "ERROR" and row.get("ms") is not None
    ms, wall = row.get("ms") or {}, row.get("wall") or {}
    src = row.get("time_source")
    if not src:
        src = ("cuda events, stream held by a spinning kernel" if row["held"]
               else "cuda events, stream not held (the call synchronises)")
    j = {"label": row["label"], "module": row["module"], "family": row["family"], "device": "gpu",
         "n": row["n"], "item_bytes": row["item_bytes"], "threads": None,
         "samples": len(row["samples_ms"]), "timed_out": bool(row["timed_out"])}
    for k in ("median", "min", "max", "mean", "stddev"):
        j[k + "_ms"] = _num(ms.get(k)) if ok else None
    j["time_source"] = src
    for k in ("median", "min", "max"):
        j["wall_%s_ms" % k] = _num(wall.get(k)) if ok else None
    j["noise_pct"] = _num(100 * row.get("noise", 0.0)) if ok else None
    j["noisy"] = bool(row.get("noisy"))
    j["check"] = row["check"]
    j["check_s"] = _num(row["check_s"]) or 0.0
    j["failed_sample"] = row["failed_sample"]
    j["items_per_s"] = _num(row.get("items_per_s")) if ok else None
    j["effective_gbps"] = _num(row.get("effective_gbps")) if ok else None
    j["pct_of_copy"] = _num(row.get("pct_of_copy")) if ok else None
    j["speedup_vs_ref"] = _num(row.get("speedup_vs_ref")) if ok else None
    # Bytes sent between devices: a peer runs on one GPU.
    j["link_bytes"], j["link_gbps"], j["topology"] = None, None, None
    j["series"], j["axis"], j["axis_value"] = row["series"], row["axis"], row["axis_value"]
    j["verified"] = row["status"] == "ok"
    j["status"] = row["status"]
    j["message"] = row["message"] or None
    j["library"], j["call"] = row["library"], row["call"]
    j["samples_ms"] = [_num(x) for x in row["samples_ms"]]
    j["samples_wall_ms"] = [_num(x) for x in row["samples_wall_ms"]]
    return j


def _g(x):
    return "%.6g" % x


def csv_line(j):
    """One results.csv line from a results.json row, as results_csv.c writes it."""
    f = [j["label"], j.get("series") or j["label"], j.get("axis") or "", j.get("axis_value") or "",
         j["module"], j["family"], j["device"], str(j["n"]), str(j["item_bytes"])]
    f.append(str(j["threads"]) if j["device"] == "cpu" and j.get("threads") is not None else "")
    f.append(str(j["samples"]))
    if j["status"] == "ERROR" or j.get("median_ms") is None:
        f.extend([""] * 12)
    else:
        f.extend([_g(j["median_ms"]), _g(j["min_ms"]), _g(j["max_ms"]), _g(j["mean_ms"]),
                  _g(j["stddev_ms"]), _g(j["wall_median_ms"]), "%.3f" % j["noise_pct"],
                  "yes" if j["noisy"] else "no", _g(j["items_per_s"]), _g(j["effective_gbps"])])
        f.append("%.2f" % j["pct_of_copy"] if j.get("pct_of_copy") is not None else "")
        f.append("%.4f" % j["speedup_vs_ref"] if j.get("speedup_vs_ref") is not None else "")
    f.append("yes" if j["verified"] else "no")
    f.append(j["status"])
    ok = j["status"] != "ERROR"
    f.append(_g(j["link_bytes"]) if ok and j.get("link_bytes") is not None else "")
    f.append(_g(j["link_gbps"]) if ok and j.get("link_gbps") is not None else "")
    return ",".join(f)


def write_atomic(path, text):
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def dump_json(root):
    return json.dumps(root, indent=1, ensure_ascii=True, allow_nan=False) + "\n"


def write_results(out, root, csv_lines):
    """results.json first, then results.csv (permbench's order)."""
    write_atomic(os.path.join(out, "results.json"), dump_json(root))
    write_atomic(os.path.join(out, "results.csv"), ",".join(CSV_COLUMNS) + "\n" +
                 "".join(line + "\n" for line in csv_lines))


def claim_out(out):
    """The output directory: created, or an empty one. Refused: a file, or
    a directory holding results."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise Bad("--out %s is a file" % out)
    if os.path.isdir(out):
        if any(os.path.exists(os.path.join(out, f)) for f in ("results.json", "results.json.gz", "results.csv")):
            raise Bad("%s already holds results; give another directory" % out)
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise Bad("%s: its parent directory does not exist" % out)
    if not os.access(parent, os.W_OK) and not os.path.isdir(out):
        raise Bad("%s: cannot create it here (no write permission)" % out)


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
        names = " nor ".join({"torch": "PyTorch (torch)", "cupy": "CuPy (cupy)"}[lib] for lib in libs_needed)
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
            if tp:
                run_torch(torch_mod, TorchBackend(torch_mod), tp, settings, sweep["seed"], report)
            if cp:
                run_cupy(mods["cupy"], CupyBackend(mods["cupy"]), cp, settings, sweep["seed"], report)
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


def _is_peers(root):
    return isinstance((root.get("provenance") or {}).get("peers"), dict)


def merged_ratios(base, jrow, inst):
    """pct_of_copy and speedup_vs_ref of a peer row against the permbench
    run's rows, by the runner's rules (bench/runner.c: fill_pct_copy,
    fill_speedup)."""
    binst = dict((i.get("label"), i) for i in base["instances"] if isinstance(i, dict))
    pct, speed = None, None
    if jrow["status"] == "ok" and jrow.get("effective_gbps"):
        items, _ = work(inst, jrow["n"], jrow["item_bytes"])
        for r in base["results"]:
            if r.get("module") == "copy" and r.get("device") == "gpu" and r.get("status") == "ok" and \
                    r.get("n") == int(items) and r.get("item_bytes") == jrow["item_bytes"] and \
                    (r.get("effective_gbps") or 0) > 0:
                pct = 100.0 * jrow["effective_gbps"] / r["effective_gbps"]
                break
    ref = base["sweep"].get("reference")
    if ref and jrow["status"] == "ok" and jrow.get("median_ms"):
        for r in base["results"]:
            if r.get("status") != "ok" or r.get("n") != jrow["n"] or r.get("item_bytes") != jrow["item_bytes"]:
                continue
            ri = binst.get(r.get("label")) or {}
            series = r.get("series") or ri.get("series") or r.get("label")
            if r.get("label") != ref and series != ref:
                continue
            axis = r.get("axis", ri.get("axis", "")) or ""
            if axis and (axis != jrow["axis"] or (r.get("axis_value") or ri.get("axis_value")) != jrow["axis_value"]):
                continue
            if r.get("median_ms"):
                speed = r["median_ms"] / jrow["median_ms"]
            break
    return pct, speed


def cmd_merge(args):
    base, bfile = load_results(args.permbench_dir, "PERMBENCH_DIR")
    peers, pfile = load_results(args.peers_dir, "PEERS_DIR")
    if _is_peers(base):
        raise Bad("PERMBENCH_DIR %s holds peers' rows, not a permbench run" % bfile)
    if not _is_peers(peers):
        raise Bad("PEERS_DIR %s is not a peers.py results.json (no provenance.peers)" % pfile)
    if (peers["provenance"]["peers"].get("backend") == "synthetic") and not args.allow_synthetic:
        raise Bad("PEERS_DIR %s holds synthetic rows (tests only); --allow-synthetic merges them anyway" % pfile)
    bfam, pfam = base["sweep"].get("family"), peers["sweep"].get("family")
    if bfam != pfam:
        raise Bad("PERMBENCH_DIR is a %s run and PEERS_DIR a %s run; merge runs of one family" % (bfam, pfam))
    bgpu = ((base.get("provenance") or {}).get("gpu") or {}).get("name")
    pgpu = ((peers.get("provenance") or {}).get("gpu") or {}).get("name")
    if bgpu != pgpu:
        raise Bad("the permbench run was measured on %s and the peers on %s; one figure holds one GPU's rows"
                  % (bgpu or "no GPU", pgpu or "no GPU"))
    if (base.get("summary") or {}).get("interrupted"):
        raise Bad("PERMBENCH_DIR %s holds an interrupted run; finish it with permbench run --resume" % bfile)
    blabels = set(i.get("label") for i in base["instances"] if isinstance(i, dict))
    clash = [i["label"] for i in peers["instances"] if i["label"] in blabels]
    if clash:
        raise Bad("labels in both runs: %s" % ", ".join(clash[:5]))
    bsizes, pextra = set(base["sweep"].get("sizes") or []), []
    for r in peers["results"]:
        if r["n"] not in bsizes or r["item_bytes"] not in (base["sweep"].get("item_bytes") or []):
            pextra.append("%s at n = %s, %d B" % (r["label"], size_name(r["n"]), r["item_bytes"]))
    if pextra:
        raise Bad("peer rows at points the permbench run does not have: %s" % "; ".join(pextra[:3]))
    bcsv = os.path.join(os.path.dirname(bfile), "results.csv")
    try:
        with open(bcsv) as f:
            blines = f.read().split("\n")
    except OSError as e:
        raise Bad("PERMBENCH_DIR: %s: %s" % (bcsv, e.strerror or e))
    bhead = blines[0].split(",")
    if bhead != CSV_COLUMNS and bhead != CSV_COLUMNS_OLD:
        raise Bad("PERMBENCH_DIR: %s: its header is not results.csv's columns of this permbench" % bcsv)
    claim_out(args.out_dir)

    pinst = dict((i["label"], i) for i in peers["instances"])
    only = [x.strip() for x in args.only.split(",")] if args.only else []
    have = set(i["module"] for i in peers["instances"])
    for o in only:
        if o not in have:
            raise Bad("--only %s: PEERS_DIR has no rows of it (it has %s)" % (o, ", ".join(sorted(have))))
    prows = []
    for r in peers["results"]:
        if only and r.get("module") not in only:
            continue
        r = dict(r)
        inst = pinst.get(r["label"])
        if inst is None:
            raise Bad("PEERS_DIR %s: row %s is not one of its instances" % (pfile, r["label"]))
        r["pct_of_copy"], r["speedup_vs_ref"] = merged_ratios(base, r, inst)
        r["pct_of_copy"], r["speedup_vs_ref"] = _num(r["pct_of_copy"]), _num(r["speedup_vs_ref"])
        prows.append(r)
    merged = dict(base)
    merged["instances"] = list(base["instances"]) + [i for i in peers["instances"]
                                                     if not only or i["module"] in only]
    merged["results"] = list(base["results"]) + prows
    prov = dict(base.get("provenance") or {})
    prov["peers"] = dict(peers["provenance"], results=os.path.abspath(pfile))
    prov["merged"] = {"date": utc_now(), "by": "scripts/peers/peers.py merge",
                      "permbench": os.path.abspath(bfile), "peers": os.path.abspath(pfile),
                      "command_line": sys.argv[1:]}
    merged["provenance"] = prov
    sweep = dict(base["sweep"])
    libs = sorted(set(r["module"].split("-")[0] for r in prows), reverse=True)
    sweep["title"] = ((sweep.get("title") or "") + " + %s peers" % "/".join(libs)).strip(" +")
    merged["sweep"] = sweep
    s = dict(base.get("summary") or {})
    ps = peers.get("summary") or {}
    s["rows"] = len(merged["results"])
    s["failed_rows"] = sum(1 for r in merged["results"] if r.get("status") != "ok")
    s["noisy_rows"] = sum(1 for r in merged["results"] if r.get("noisy"))
    s["wall_s"] = (s.get("wall_s") or 0) + (ps.get("wall_s") or 0)
    s["check_s"] = (s.get("check_s") or 0) + (ps.get("check_s") or 0)
    s["interrupted"] = bool(ps.get("interrupted"))
    s["points_planned"] = (s.get("points_planned") or len(base["results"])) + (ps.get("points_planned") or len(prows))
    merged["summary"] = s
    os.makedirs(args.out_dir, exist_ok=True)
    # An older base's lines get empty cells in the columns appended since.
    pad = "," * (len(CSV_COLUMNS) - len(bhead))
    blines = [line + pad for line in blines[1:] if line]
    write_atomic(os.path.join(args.out_dir, "results.json"), dump_json(merged))
    write_atomic(os.path.join(args.out_dir, "results.csv"), ",".join(CSV_COLUMNS) + "\n" +
                 "".join(line + "\n" for line in blines + [csv_line(r) for r in prows]))
    print("merged: %s (%d permbench rows, %d peer rows)" % (args.out_dir, len(base["results"]), len(prows)))
    return EXIT_OK


# The parameters that make a peer row and one of ours the same problem
# (topk: the distribution, key type, batch shape and direction; sorted
# output is read off the peer's call).
PAIR_KEYS = ("dist", "dtype", "rows", "ragged", "misalign", "largest")


def pairs_by_params(peers, against, mods):
    """PEER_SERIES=OUR_SERIES pairs found by parameters: for each peer
    series of a module in mods (PEER_MODULE, OUR_MODULE), our series of the
    partner module whose every instance has the same PAIR_KEYS (and sorted
    output as the peer's call has it) at the peer's points. Where several of
    ours qualify (radik-equal and radik-equal-paper-ties), the shortest name
    (then the first in order); a peer series whose points match different
    series of ours is left out, as is a second peer series for the same one
    of ours."""
    partner = dict(mods)

    def sig(params, sorted_out):
        return tuple(params.get(k) for k in PAIR_KEYS) + (bool(sorted_out),)

    ours = {}
    for i in against["instances"]:
        if not isinstance(i, dict):
            continue
        par = i.get("params") or {}
        key = (i.get("module"), sig(par, par.get("sorted", False)), str(i.get("axis_value")))
        ours.setdefault(key, set()).add(i.get("series") or i.get("label"))
    found = {}
    for i in peers["instances"]:
        mod = partner.get(i.get("module"))
        if not mod:
            continue
        par = i.get("params") or {}
        cands = ours.get((mod, sig(par, "sorted=True" in str(par.get("call", ""))), str(i.get("axis_value"))))
        if cands:
            found.setdefault(i["series"], set()).add(min(cands, key=lambda x: (len(x), x)))
    pairs, taken = [], set()
    for p in sorted(found):
        if len(found[p]) == 1:
            o = next(iter(found[p]))
            if o not in taken:
                taken.add(o)
                pairs.append((p, o))
    return pairs


def cmd_relabel(args):
    peers, pfile = load_results(args.peers_dir, "PEERS_DIR")
    if not _is_peers(peers):
        raise Bad("PEERS_DIR %s is not a peers.py results.json (no provenance.peers)" % pfile)
    pseries = set(i["series"] for i in peers["instances"])
    maps = []
    for m in args.map:
        if m.count("=") != 1 or not all(m.split("=")):
            raise Bad("relabel: %s is not PEER_SERIES=OUR_SERIES" % m)
        maps.append(tuple(m.split("=")))
    against = None
    if args.by_params and not args.against:
        raise Bad("relabel: --by-params needs --against RESULT_DIR")
    if args.against:
        against, _ = load_results(args.against, "--against")
        ours = set((i.get("series") or i.get("label")) for i in against["instances"] if isinstance(i, dict))
        maps = [(p, o) for p, o in maps if p in pseries and o in ours]
        if args.by_params:
            mods = []
            for m in args.by_params:
                if m.count("=") != 1 or not all(m.split("=")):
                    raise Bad("relabel: --by-params %s is not PEER_MODULE=OUR_MODULE" % m)
                mods.append(tuple(m.split("=")))
            for pair in pairs_by_params(peers, against, mods):
                if pair[0] not in set(p for p, _ in maps) and pair[1] not in set(o for _, o in maps):
                    maps.append(pair)
        if not maps:
            raise Skip("no PEER_SERIES=OUR_SERIES pair has both series in these runs; nothing to compare")
    for p, o in maps:
        if p not in pseries:
            raise Bad("relabel: %s has no peer series %s (it has %s)" % (pfile, p, ", ".join(sorted(pseries))))
    if len(set(o for _, o in maps)) != len(maps):
        raise Bad("relabel: two peer series renamed to one of ours")
    claim_out(args.out_dir)
    rename = dict(maps)

    def relabel(label, series):
        return rename[series] + label[len(series):]

    insts, rows = [], []
    for i in peers["instances"]:
        if i["series"] in rename:
            insts.append(dict(i, label=relabel(i["label"], i["series"]), series=rename[i["series"]],
                              peer_label=i["label"]))
    for r in peers["results"]:
        if r.get("series") in rename:
            rows.append(dict(r, label=relabel(r["label"], r["series"]), series=rename[r["series"]],
                             peer_label=r["label"]))
    out = dict(peers, instances=insts, results=rows)
    out["provenance"] = dict(peers["provenance"], relabelled={
        "from": os.path.abspath(pfile), "map": ["%s=%s" % m for m in maps], "date": utc_now(),
        "note": "peer rows under our series' labels, for permbench compare; not our modules' rows"})
    out["summary"] = dict(peers.get("summary") or {}, rows=len(rows))
    os.makedirs(args.out_dir, exist_ok=True)
    write_atomic(os.path.join(args.out_dir, "results.json"), dump_json(out))
    print("relabelled: %s (%d rows: %s)" % (args.out_dir, len(rows), ", ".join("%s as %s" % m for m in maps)))
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

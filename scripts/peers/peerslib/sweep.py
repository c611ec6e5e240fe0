"""Sweep configs (config/ini.c's rules, the part the shipped configs use)."""

import gzip
import json
import os
import re
import zlib

from peerslib.common import Bad
from peerslib.names import canonical, canonical_run
from peerslib.sizes import fnv1a64, parse_sizes, size_value


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
    "cpu-fisher-yates", "cpu-gsl-shuffle", "cpu-bijective-twin", "cpu-rao-sandelius", "cpu-merge-shuffle",
    "cpu-dart-throwing", "cpu-tbb-bijective", "cpu-tbb-sort-shuffle", "gpu-bijective0", "gpu-bijective1",
    "gpu-bijective2", "gpu-dart-throwing", "gpu-sort-shuffle", "gpu-thrust-shuffle", "cpu-copy", "gpu-copy",
    "gpu-cuda-memcpy", "cpu-gather", "cpu-tbb-gather", "gpu-gather",
}
TOPK_MODULES = {"cpu-topk", "gpu-radik", "gpu-sort-and-choose"}
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
    modules = [canonical(sec.get("module", name).split("|")[0].strip()) for name, sec in sections]
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
    return canonical_run(root), file


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

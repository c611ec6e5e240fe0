"""Writing results (bench/results_json.c, bench/results_csv.c)."""

import json
import math
import os

from peerslib.common import Bad, CSV_COLUMNS


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
    ci = row.get("ci")
    j["median_ci_lo_ms"] = _num(ci[0]) if ok and ci else None
    j["median_ci_hi_ms"] = _num(ci[1]) if ok and ci else None
    j["median_ci_halfwidth_pct"] = _num(100 * ci[2]) if ok and ci else None
    j["median_ci_confidence"] = _num(ci[3]) if ok and ci else None
    j["multimodal"] = bool(row.get("multimodal"))
    j["check"] = row["check"]
    j["check_s"] = _num(row["check_s"]) or 0.0
    j["failed_sample"] = row["failed_sample"]
    j["items_per_s"] = _num(row.get("items_per_s")) if ok else None
    j["effective_gbps"] = _num(row.get("effective_gbps")) if ok else None
    j["pct_of_copy"] = _num(row.get("pct_of_copy")) if ok else None
    j["speedup_vs_ref"] = _num(row.get("speedup_vs_ref")) if ok else None
    # Bytes sent between devices: a peer runs on one GPU.
    j["link_bytes"], j["link_gbps"], j["topology"] = None, None, None
    j["path"] = None
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
    if ok and j.get("median_ci_lo_ms") is not None:
        f.extend([_g(j["median_ci_lo_ms"]), _g(j["median_ci_hi_ms"]), "%.3f" % j["median_ci_halfwidth_pct"],
                  "yes" if j.get("multimodal") else "no"])
    else:
        f.extend([""] * 4)
    f.append("yes" if j.get("busy") else "no")
    f.append((j.get("suspect") or "").replace(",", ";"))
    f.append(j.get("path") or "")  # a peer has one code path
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

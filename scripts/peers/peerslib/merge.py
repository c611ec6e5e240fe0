"""The merge and relabel commands (peers.py merge, peers.py relabel): peer
rows beside a permbench run's, and peer series under our series' labels."""

import os
import sys

from peerslib.common import Bad, CSV_COLUMNS, CSV_COLUMNS_LINKS, CSV_COLUMNS_OLD, CSV_SEED_COLUMNS, EXIT_OK, Skip
from peerslib.sizes import size_name
from peerslib.sweep import load_results
from peerslib.names import canonical
from peerslib.plan import work
from peerslib.provenance import utc_now
from peerslib.output import _num, claim_out, csv_line, dump_json, write_atomic


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
            if r.get("module") == "gpu-copy" and r.get("device") == "gpu" and r.get("status") == "ok" and \
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
    seeded = bhead == CSV_COLUMNS + CSV_SEED_COLUMNS
    if bhead not in (CSV_COLUMNS, CSV_COLUMNS_LINKS, CSV_COLUMNS_OLD) and not seeded:
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
    # A base over several seeds keeps its seed columns; the peers, timed
    # once, leave theirs empty.
    columns, ppad = (CSV_COLUMNS + CSV_SEED_COLUMNS, "," * len(CSV_SEED_COLUMNS)) if seeded else (CSV_COLUMNS, "")
    pad = "," * (len(columns) - len(bhead))
    blines = [line + pad for line in blines[1:] if line]
    write_atomic(os.path.join(args.out_dir, "results.json"), dump_json(merged))
    write_atomic(os.path.join(args.out_dir, "results.csv"), ",".join(columns) + "\n" +
                 "".join(line + "\n" for line in blines + [csv_line(r) + ppad for r in prows]))
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
        p, o = m.split("=")
        maps.append((p, canonical(o)))  # ours under an old module name reads as its new one
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
                p, o = m.split("=")
                mods.append((p, canonical(o)))
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

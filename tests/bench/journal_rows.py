"""Shared checks of the resume tests: a run's journal against its results.

  journal_rows.py rows JOURNAL OUT.json      the journal's whole rows (a torn
                                             last line left out) into OUT.json
  journal_rows.py kept BEFORE.json RESULTS   every row of BEFORE is in RESULTS
                                             as it was: the same samples and
                                             statistics to the digits
                                             results.json prints (9), every
                                             other field equal
  journal_rows.py complete RESULTS N         RESULTS is a finished run of N
                                             distinct points
"""
import json
import sys


def key(r):
    return (r["label"], r["n"], r["item_bytes"])


def same(a, b):
    # results.json prints doubles to 9 significant digits (the journal to
    # 17, so it reads back exactly): a value kept is the journal's, so
    # printed.
    if isinstance(a, float) and isinstance(b, (int, float)):
        return float("%.9g" % a) == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def main():
    what = sys.argv[1]
    if what == "rows":
        rows = []
        with open(sys.argv[2], "rb") as f:
            lines = f.read().split(b"\n")
        head = json.loads(lines[0])
        assert head["permbench_journal"] == 1 and head["kind"] == "run", head.keys()
        for line in lines[1:-1]:  # the last piece: "" or a torn line
            rows.append(json.loads(line))
        json.dump(rows, open(sys.argv[3], "w"))
        print(len(rows))
    elif what == "kept":
        before = json.load(open(sys.argv[2]))
        after = {key(r): r for r in json.load(open(sys.argv[3]))["results"]}
        assert before, "no rows before"
        for b in before:
            a = after.get(key(b))
            assert a is not None, ("a finished row is missing", key(b))
            for k, v in b.items():
                # Filled once their ceiling or reference row exists; the
                # journal's own field.
                if k in ("pct_of_copy", "speedup_vs_ref", "run_wall_s"):
                    continue
                assert same(v, a.get(k)), ("changed", key(b), k, v, a.get(k))
    elif what == "complete":
        j = json.load(open(sys.argv[2]))
        n = int(sys.argv[3])
        s = j["summary"]
        assert s["interrupted"] is False and s["rows"] == n == len(j["results"]), s
        assert len({key(r) for r in j["results"]}) == n, "a point twice or missing"
        assert all(r["status"] == "ok" for r in j["results"])


main()

#!/usr/bin/env python3
"""Check the README's module table against `permbench list --json`.

usage: check-readme-modules.py PERMBENCH README.md [--selftest]

The table is hand-written (its "what" column says more than a summary), so
it drifts when a module is added, renamed or moved; this check keeps the
names, families and devices honest, and every name starting with its
device (docs/modules.md). Every module of the build must have a
row with its family and device, and every row must name modules of the
build. A build without CUDA registers no GPU module: there, rows of GPU
modules are the only ones allowed to be missing from the list.

--selftest breaks a copy of the table in the ways the check must catch
(a row dropped, a family changed, a name that no module has) and fails
unless each is caught, so a check that passes everything cannot pass.
"""
import json
import subprocess
import sys

MARKER = "<!-- modules: checked by scripts/check-readme-modules.py -->"


def table_rows(text):
    """The (names, family, device) of each row of the table after MARKER."""
    lines = text.splitlines()
    if MARKER not in lines:
        raise SystemExit("README: no line " + MARKER)
    rows = []
    for line in lines[lines.index(MARKER) + 1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or cells[0] in ("module", "---"):
            continue
        names = [n.strip().strip("`") for n in cells[0].split(",")]
        rows.append((names, cells[1], cells[2]))
    if not rows:
        raise SystemExit("README: the module table after the marker is empty")
    return rows


def problems(rows, modules):
    """What differs between the table's rows and the build's modules."""
    listed = {m["name"]: (m["family"], m["device"]) for m in modules}
    has_gpu = any(dev == "gpu" for _, dev in listed.values())
    seen = {}
    out = []
    for names, family, device in rows:
        for name in names:
            if name in seen:
                out.append("%s: in the table twice" % name)
            seen[name] = (family, device)
            if name not in listed:
                if device == "gpu" and not has_gpu:
                    continue  # a build without CUDA has no GPU modules
                out.append("%s: in the README, not in `permbench list`" % name)
            elif listed[name] != (family, device):
                out.append("%s: README says %s/%s, permbench list %s/%s"
                           % (name, family, device, listed[name][0], listed[name][1]))
    for name in listed:
        if name not in seen:
            out.append("%s: in `permbench list`, not in the README's table" % name)
    # The names' scheme (docs/modules.md): the device first.
    for names, family, device in rows:
        for name in names:
            if not name.startswith(device + "-"):
                out.append("%s: a %s module's name starts with '%s-' (docs/modules.md)" % (name, device, device))
    return out


def selftest(rows, modules):
    broken = {
        "a row dropped": rows[1:],
        "a family changed": [(rows[0][0], "multisplit" if rows[0][1] != "multisplit" else "topk",
                              rows[0][2])] + rows[1:],
        "an unknown name": rows + [(["no-such-module"], "shuffle", "cpu")],
        "a device changed": [(rows[0][0], rows[0][1], "gpu" if rows[0][2] == "cpu" else "cpu")]
                            + rows[1:],
        "a name without its device": [([n[4:] for n in rows[0][0]], rows[0][1], rows[0][2])] + rows[1:],
    }
    missed = [what for what, r in broken.items() if not problems(r, modules)]
    for what in missed:
        print("selftest: the check did not catch %s" % what)
    return 1 if missed else 0


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--selftest"):
        raise SystemExit(__doc__.split("\n\n")[1])
    pb, readme = sys.argv[1], sys.argv[2]
    out = subprocess.run([pb, "list", "--json"], capture_output=True, text=True, check=True).stdout
    modules = json.loads(out)["modules"]
    with open(readme, encoding="utf-8") as f:
        rows = table_rows(f.read())
    if len(sys.argv) == 4:
        return selftest(rows, modules)
    found = problems(rows, modules)
    for p in found:
        print("README module table: " + p)
    if not found:
        print("README module table: %d rows, %d modules of this build, all listed"
              % (len(rows), len(modules)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Compares the PTX of every kernel and device function between two
# configured build trees (say, the last release's and this change's), to
# show which kernels a change touched. Kernels are matched by name across
# all CUDA sources, not by file: a kernel moved to another file, or a file
# split in two, still compares with itself. Needs nvcc and python3; no GPU.
#
#   scripts/compare-ptx.sh OLD_BUILD NEW_BUILD [OUT_DIR]
#
# PB_PTX_JOBS=N compiles N sources at a time on each side (default: half
# the cores). PB_PTX_ONLY=REGEX compiles only the sources whose path matches it (on
# both sides), for a quick look at the files a change restructured; the
# proof that no kernel changed is the run without it.
#
# Each build directory is reconfigured with compile_commands.json; every
# .cu file is compiled again with -ptx and the build's own flags. Each
# .entry (kernel) and .func (device function) with a body, and each
# module-scope variable, is one symbol. Its text is normalised before
# comparing: comments, the .file/.loc lines, blank lines, the per-file
# hashes nvcc puts in internal and anonymous-namespace names (they change
# with the file's path and text, whatever its kernels), the function number
# in basic-block labels and local stacks (it counts the functions before
# it), and the numbering
# of a file's string constants ($str$N) and unnamed globals (they count
# the file's other strings). A symbol found in several files (a template
# instantiated by several sources: CUB's kernels) compares by its set of
# distinct texts. Prints one line a symbol that is not the same ("differs",
# "only in OLD", "only in NEW") and a summary; exits 1 if any is not.
set -euo pipefail
old=$(cd "${1:?OLD_BUILD}" && pwd)
new=$(cd "${2:?NEW_BUILD}" && pwd)
out=${3:-$(mktemp -d)}
mkdir -p "$out/old" "$out/new"

ptx() { # ptx BUILD DEST: the PTX of every .cu of BUILD's compile commands
    cmake "$1" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
    python3 - "$1/compile_commands.json" "$2" <<'EOF'
import json, os, re, shlex, subprocess, sys
cmds, dest = json.load(open(sys.argv[1])), sys.argv[2]
only = re.compile(os.environ.get("PB_PTX_ONLY") or "")
root = os.path.commonpath([c["file"] for c in cmds if c["file"].endswith(".cu")] or ["/"])
jobs = []
for c in cmds:
    src = c["file"]
    if not src.endswith(".cu") or not only.search(src):
        continue
    args = shlex.split(c["command"])
    # Drop the object output and the dependency-file options; ask for PTX.
    keep, skip = [], 0
    for a in args:
        if skip:
            skip -= 1
            continue
        if a in ("-o", "-MF", "-MT"):
            skip = 1
            continue
        if a in ("-c", "-MD", "-MMD", "-x", "cu") or a.startswith("--generate-code") or a.startswith("-Xcompiler=-MD"):
            continue
        keep.append(a)
    # The source's path under the sources' root names its PTX, so that two
    # sources of one name in different folders do not overwrite each other.
    name = os.path.relpath(src, root).replace(os.sep, "__").replace(".cu", ".ptx")
    keep += ["-ptx", "-arch=compute_90", "-o", os.path.join(dest, name)]
    jobs.append((keep, c["directory"]))
# Each side gets half the cores (PB_PTX_JOBS overrides): nvcc is one
# process a source, and a whole tree one at a time takes most of an hour
# on two cores.
from concurrent.futures import ThreadPoolExecutor
workers = int(os.environ.get("PB_PTX_JOBS") or max(1, (os.cpu_count() or 2) // 2))
with ThreadPoolExecutor(workers) as pool:
    for f in [pool.submit(subprocess.run, k, cwd=d, check=True) for k, d in jobs]:
        f.result()
EOF
}
# The two trees compile side by side (two compilers at a time).
ptx "$old" "$out/old" &
p_old=$!
ptx "$new" "$out/new" &
p_new=$!
wait "$p_old"
wait "$p_new"

rc=0
python3 - "$out" <<'EOF' || rc=$?
import collections, os, re, sys
out = sys.argv[1]
SUBS = [
    (re.compile(r"//.*$"), ""),
    # <length>_INTERNAL_<hash>_<n>_<file>_cu_<hash> and the same with
    # _GLOBAL__N__: the length counts the file's name, so it goes too.
    (re.compile(r"[0-9]*_INTERNAL_[0-9a-f]{8}_[0-9]+_[A-Za-z0-9_]+?_cu_[0-9a-f]{8}"), "_INTERNAL_"),
    (re.compile(r"[0-9]*_GLOBAL__N__[0-9a-f]{8}_[0-9]+_[A-Za-z0-9_]+?_cu_[0-9a-f]{8}"), "_GLOBAL__N_"),
    (re.compile(r"\$str(\$[0-9]+)?"), "$str"),
    # Basic-block labels and local stacks number the file's functions
    # ($L__BB<function>_<block>, __local_depot<function>): a kernel moved
    # to another file, or after one, gets another number.
    (re.compile(r"\$L__BB[0-9]+_"), "$L__BB_"),
    (re.compile(r"__local_depot[0-9]+"), "__local_depot"),
    (re.compile(r"__unnamed_[0-9]+"), "__unnamed"),
]
DROP = re.compile(r"^\s*\.(file|loc)\b")
HEAD = re.compile(r"^(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")
VAR = re.compile(r"^(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(global|shared|const)\b.*?([A-Za-z_$][\w$]*)\s*(\[[^\]]*\])*\s*(=|;)")

def norm(line):
    for p, r in SUBS:
        line = p.sub(r, line)
    return line.rstrip()

def symbols(path):
    """{name: text} of a PTX file: functions with a body, module-scope variables."""
    syms, lines = {}, open(path).read().split("\n")
    i = 0
    while i < len(lines):
        line = norm(lines[i])
        m = HEAD.match(line)
        if m:
            body, depth, j, opened = [], 0, i, False
            while j < len(lines):
                l = lines[j]
                if not DROP.match(l):
                    n = norm(l)
                    if n.strip():
                        body.append(n)
                depth += l.count("{") - l.count("}")
                opened = opened or "{" in l
                if (opened and depth == 0) or (not opened and l.rstrip().endswith(";")):
                    break
                j += 1
            if opened:  # a declaration (a prototype) has no body
                syms["%s %s" % (m.group(1), m.group(2))] = "\n".join(body)
            i = j + 1
            continue
        v = VAR.match(line)
        if v and not line.startswith(" ") and not line.startswith("\t"):
            # String constants and unnamed globals are numbered by the
            # file: their text names them.
            key = v.group(2) if v.group(2) not in ("$str", "__unnamed") else line
            syms["var %s" % key] = line
        i += 1
    return syms

def load(side):
    d = os.path.join(out, side)
    texts, where = collections.defaultdict(set), collections.defaultdict(set)
    for f in sorted(os.listdir(d)):
        if f.endswith(".ptx"):
            for name, text in symbols(os.path.join(d, f)).items():
                texts[name].add(text)
                where[name].add(f[:-4].replace("__", "/") + ".cu")
    return texts, where

old, old_where = load("old")
new, new_where = load("new")
counts = collections.Counter()
report = []
for name in sorted(set(old) | set(new)):
    kind = name.split()[0]
    if name not in new:
        verdict = "only in OLD (%s)" % ", ".join(sorted(old_where[name]))
    elif name not in old:
        verdict = "only in NEW (%s)" % ", ".join(sorted(new_where[name]))
    elif old[name] == new[name]:
        counts["same " + kind] += 1
        continue
    else:
        verdict = "differs (OLD %s; NEW %s)" % (", ".join(sorted(old_where[name])), ", ".join(sorted(new_where[name])))
    counts["not same " + kind] += 1
    report.append("%s: %s" % (name, verdict))
with open(os.path.join(out, "summary.txt"), "w") as s:
    for r in report:
        print(r)
        s.write(r + "\n")
    kinds = ("entry", "func", "var")
    line = "symbols: " + ", ".join(
        "%s %d same, %d not" % (k, counts["same " + k], counts["not same " + k]) for k in kinds)
    print(line)
    s.write(line + "\n")
sys.exit(1 if report else 0)
EOF
echo "PTX in $out"
exit $rc

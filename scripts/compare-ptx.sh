#!/usr/bin/env bash
# Compares the PTX of every CUDA source between two configured build trees
# (say, the last release's and this change's), to show which kernels a
# change touched. Sources are matched by file name, so moved files compare
# too. Needs nvcc and python3; no GPU.
#
#   scripts/compare-ptx.sh OLD_BUILD NEW_BUILD [OUT_DIR]
#
# Each build directory is reconfigured with compile_commands.json; every
# .cu file is compiled again with -ptx and the build's own flags. The PTX is
# normalised before comparing: comments, the .file/.loc lines, and the
# per-file hashes nvcc puts in internal and anonymous-namespace names (they
# change with the file's path and text, whatever its kernels). Prints one line a source: "same", "differs (N lines)"
# or "only in OLD/NEW"; exits 1 if any differs.
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
for c in cmds:
    src = c["file"]
    if not src.endswith(".cu"):
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
    name = os.path.basename(src).replace(".cu", ".ptx")
    keep += ["-ptx", "-arch=compute_90", "-o", os.path.join(dest, name)]
    subprocess.run(keep, cwd=c["directory"], check=True)
EOF
    for f in "$2"/*.ptx; do
        sed -E -e 's://.*$::' -e '/^\s*\.(file|loc)\b/d' \
            -e 's/_INTERNAL_[0-9a-f]+_[0-9]+_[A-Za-z0-9_]+_cu_[0-9a-f]+/_INTERNAL_/g' \
            -e 's/_GLOBAL__N_[A-Za-z0-9_]*_cu_[0-9a-f]+/_GLOBAL__N_/g' \
            -e 's/_GLOBAL__N__[0-9a-f_]+/_GLOBAL__N_/g' -e '/^\s*$/d' "$f" >"$f.norm"
    done
}
ptx "$old" "$out/old"
ptx "$new" "$out/new"

rc=0
for f in $(cd "$out/old" && ls *.ptx.norm) $(cd "$out/new" && ls *.ptx.norm); do echo "$f"; done | sort -u |
    while read -r f; do
        name=${f%.ptx.norm}.cu
        if [ ! -f "$out/old/$f" ]; then echo "$name: only in NEW"; continue; fi
        if [ ! -f "$out/new/$f" ]; then echo "$name: only in OLD"; continue; fi
        if cmp -s "$out/old/$f" "$out/new/$f"; then echo "$name: same"
        else echo "$name: differs ($(diff "$out/old/$f" "$out/new/$f" | grep -c '^[<>]') lines)"; fi
    done | tee "$out/summary.txt"
grep -q differs "$out/summary.txt" && rc=1
echo "PTX in $out"
exit $rc

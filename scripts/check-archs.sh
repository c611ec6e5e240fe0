#!/usr/bin/env bash
# Compiles every architecture-specific CUDA source for every architecture
# of the release list (cmake/cuda_archs.cmake), device code only, so that a
# one-architecture build (CI's, a developer's) still proves the release
# build compiles. No GPU needed. docs/architectures.md says which sources
# and what it costs.
#
#   scripts/check-archs.sh [BUILD_DIR]      (default: build/)
#
# BUILD_DIR is a configured CUDA build (its compile_commands.json, made
# when missing); each source is compiled with its own flags, -cubin for
# each sm_XX (the front end, which rejects a feature the architecture lacks,
# and ptxas), device warnings as errors. The sources are found, not listed:
# each .cu that includes, through the project's headers, a file that
# compares __CUDA_ARCH__ with a number or reads a tuning policy
# (PB_*_POLICY), so a new one is checked without an edit here.
# PB_ARCH_JOBS=N compiles N at a time (default: the cores);
# PB_ARCHS="80 90" checks those only, PB_ARCHS=classes one architecture a
# class of identical device code (the oldest, and the oldest at or above
# each __CUDA_ARCH__ threshold the sources test: 75 80 90 today);
# PB_ARCHS_EXCEPT="90" leaves those out of the list;
# PB_ARCH_STAGE=ptx stops at the front end and optimiser (-ptx, no ptxas); PB_ARCH_ONLY=REGEX the sources whose
# path matches it; PB_ARCH_LIST_ONLY=1 lists the sources and compiles none;
# PB_ARCH_VERBOSE=1 prints each compile's result and CPU seconds.
# Prints a line for each failure with its first errors, and a summary with
# the wall time; exits 1 if any failed, 2 on bad use, 0 with a note for a
# build without CUDA.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) ||
    { echo "check-archs.sh: no build directory '${1:-$root/build}'" >&2; exit 2; }
release=$(sed -n 's/^set(PB_CUDA_RELEASE_ARCHS "\(.*\)")$/\1/p' "$root/cmake/cuda_archs.cmake" |
    tr ';' '\n' | sed 's/-real$//; s/-virtual$//' | sort -un | tr '\n' ' ')
archs=${PB_ARCHS:-$release}
if [ "$archs" = classes ]; then
    # One architecture a class of identical device code: the oldest of the
    # release list, and the oldest at or above each __CUDA_ARCH__ threshold
    # the sources test (the tuning policies are keyed by the same ones).
    thresholds=$(grep -rhoE '__CUDA_ARCH__ *(<|>=) *[0-9]+|PB_[A-Z]+_([0-9]{3})_' --include='*.cu' --include='*.cuh' \
        --include='*.h' "$root/algorithms" "$root/families" "$root/core" "$root/baselines" 2>/dev/null |
        grep -oE '[0-9]{3}' | sort -un)
    archs=$(for t in $thresholds; do for a in $release; do [ $((a * 10)) -ge "$t" ] && { echo "$a"; break; }; done; done |
        cat - <(echo "$release" | awk '{print $1}') | sort -un | tr '\n' ' ')
fi
# PB_ARCHS_EXCEPT="90": leave those out (a build that compiled the whole
# tree for them already: CI's main build is compute_90).
for x in ${PB_ARCHS_EXCEPT:-}; do archs=$(tr ' ' '\n' <<<"$archs" | grep -vx "$x" | tr '\n' ' '); done
stage=${PB_ARCH_STAGE:-cubin}
case $stage in cubin | ptx) ;; *) echo "check-archs.sh: PB_ARCH_STAGE is cubin or ptx, not '$stage'" >&2; exit 2 ;; esac
[ -n "$archs" ] || { echo "check-archs.sh: no architectures" >&2; exit 2; }
jobs=${PB_ARCH_JOBS:-$(nproc)}
start=$(date +%s)
[ -f "$build/compile_commands.json" ] || cmake "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
# A build without nvcc (CI on a machine without CUDA) has nothing to check.
grep -q '"file": *"[^"]*\.cu"' "$build/compile_commands.json" 2>/dev/null ||
    { echo "check-archs: skipped: $build compiles no CUDA source (configured without nvcc)"; exit 0; }

# The sources and their compiles: one JSON line a (source, architecture).
finder=$(cat <<'EOF'
import json, os, re, shlex, sys
root, cc, archs, log = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4]
only = re.compile(os.environ.get('PB_ARCH_ONLY') or '')
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
specific = re.compile(r'__CUDA_ARCH__\s*(<|>|<=|>=|==|!=)\s*\d|\bPB_[A-Z]+_POLICY\(')
memo = {}
def arch_specific(path, seen):
    """Whether path, or a project header it includes, is architecture-specific."""
    if path in memo: return memo[path]
    if path in seen: return False
    seen.add(path)
    try: text = open(path, encoding='utf-8', errors='replace').read()
    except OSError: return False
    hit = bool(specific.search(text))
    for name in inc.findall(text):
        for base in (root, os.path.dirname(path)):
            p = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(p):
                hit = arch_specific(p, seen) or hit
                break
    memo[path] = hit
    return hit
for c in json.load(open(cc)):
    src = c['file']
    if not src.endswith('.cu') or not only.search(src) or not arch_specific(src, set()):
        continue
    rel = os.path.relpath(src, root)
    if os.environ.get('PB_ARCH_LIST_ONLY') == '1':
        print(rel)
        continue
    keep, skip = [], 0
    for a in shlex.split(c['command']):
        if skip:
            skip -= 1; continue
        if a in ('-o', '-MF', '-MT'):
            skip = 1; continue
        if a in ('-c', '-MD', '-MMD') or a.startswith(('--generate-code', '-gencode', '-arch', '-Xcompiler=-MD')):
            continue
        keep.append(a)
    if keep and os.path.basename(keep[0]) in ('ccache', 'sccache'):
        keep = keep[1:]
    for arch in archs:
        out = os.path.join(log, rel.replace('/', '__') + '.sm_' + arch)
        stage = os.environ.get('PB_ARCH_STAGE') or 'cubin'
        target = '-arch=sm_' + arch if stage == 'cubin' else '-arch=compute_' + arch
        cmd = keep + ['-' + stage, target, '-Werror', 'all-warnings', '-o', out + '.' + stage]
        print(json.dumps([c['directory'], rel + ' sm_' + arch, out + '.log', cmd]))
EOF
)
archs=$(echo $archs) # one space between
if [ "${PB_ARCH_LIST_ONLY:-}" = 1 ]; then
    echo "architectures: $archs ($stage)"
    python3 -c "$finder" "$root" "$build/compile_commands.json" "$archs" /dev/null | sort
    exit 0
fi
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
python3 -c "$finder" "$root" "$build/compile_commands.json" "$archs" "$log" |
    xargs -P "$jobs" -d '\n' -I{} python3 -c '
import json, resource, subprocess, sys
d, label, logf, cmd = json.loads(sys.argv[1])
with open(logf, "w") as f:
    rc = subprocess.call(cmd, cwd=d, stdout=f, stderr=subprocess.STDOUT)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(("ok " if rc == 0 else "FAIL ") + label, "%.1f" % (r.ru_utime + r.ru_stime), flush=True)
' {} >"$log/results.txt" || true
n=$(grep -c . "$log/results.txt" || true)
bad=$(grep -c '^FAIL' "$log/results.txt" || true)
srcs=$(sed 's/^[a-zA-Z]* //; s/ sm_.*//' "$log/results.txt" | sort -u | tr '\n' ' ')
cpu=$(awk '{s += $4} END {printf "%.0f", s}' "$log/results.txt")
[ -z "${PB_ARCH_VERBOSE:-}" ] || sort -k2 "$log/results.txt"
{ grep '^FAIL' "$log/results.txt" || true; } | sed 's/^FAIL //' | while read -r src arch _; do
    echo "FAIL $src $arch:"
    grep -m 8 . "$log/$(echo "$src" | sed 's|/|__|g').$arch.log" | sed 's/^/    /'
done
echo "check-archs: $n compiles ($((n - bad)) ok, $bad failed) of $srcs"
echo "check-archs: architectures $archs ($stage), $(($(date +%s) - start)) s with $jobs jobs, $cpu s of compiler CPU time"
[ "$n" -gt 0 ] || { echo "check-archs.sh: no architecture-specific source found" >&2; exit 1; }
[ "$bad" -eq 0 ]

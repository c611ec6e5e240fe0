#!/usr/bin/env bash
# permbench info: the caches are sizes, or said to be unknown (never "0 KiB")
# with the size a flush then writes, and a run says so too; info --json has
# the build section its help promises, as results.json's provenance has it.
#   info_host.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
out=$("$pb" info) || fail "info: exit $?"
caches=$(printf '%s\n' "$out" | grep -A1 '^  caches')
case $caches in *" 0 KiB"*) fail "caches printed as 0 KiB: $caches" ;; esac
printf '[sweep]\nsizes = 100\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = none\n[cpu-fisher-yates]\n' >c.ini
if [ -n "$(ls /sys/devices/system/cpu/cpu0/cache/index*/size 2>/dev/null)" ]; then
    printf '%s\n' "$caches" | grep -q 'L2 [1-9][0-9]* KiB per core' || fail "no L2 size: $caches"
else
    printf '%s\n' "$caches" | grep -q 'not reported by this machine' || fail "unknown caches not said: $caches"
    "$pb" run c.ini --out o >run.out 2>run.err || fail "run: exit $?"
    grep -q '^# note: this machine reports no cache sizes; each CPU sample is preceded by a 128 MiB cache flush' run.out ||
        fail "the run does not note the guessed flush: $(cat run.out)"
    "$pb" run c.ini --out o2 -D sweep.flush_cache=no >run2.out 2>run2.err || fail "run: exit $?"
    ! grep -q 'cache' run2.out run2.err || fail "a note without a flush: $(cat run2.out)"
fi
"$pb" info --json >info.json || fail "info --json: exit $?"
python3 - <<'PY' || fail "info --json"
import json
j = json.load(open("info.json"))
for k in ("host", "gpu", "build", "permbench_version", "git"):
    assert k in j, k
assert set(j["build"]) == {"type", "c_compiler", "cxx_compiler", "cuda_compiler", "cuda_architectures", "cuda_sass", "cuda_ptx", "cccl_topk"}, j["build"]
PY
echo ok

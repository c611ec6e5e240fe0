#!/usr/bin/env bash
# permbench info names the CUDA architectures the binary holds, as SASS and
# as PTX, from the build's list (none in a build without CUDA), in text and
# in --json (results.json's provenance has the same); with a GPU, the code
# it runs: native where the SASS list has the device's generation, else
# PTX compiled at load, and the probe kernel's versions beside it.
#   info_arch.sh PERMBENCH ARCHS SASS PTX   (the build's CMake list, and what it makes)
set -u
pb=$1 archs=$2 sass=$3 ptx=$4
bad=0
fail() { echo "FAIL: $*"; bad=1; }
text=$("$pb" info 2>&1) || fail "info exits $?: $text"
grep -q "^  cuda code        SASS ${sass:-none}; PTX ${ptx:-none}\$" <<<"$text" ||
    fail "no 'cuda code' line for SASS '$sass', PTX '$ptx': $text"
json=$("$pb" info --json 2>&1) || fail "info --json exits $?"
check=$(cat <<'EOF_PY'
import json, sys
archs, sass, ptx = sys.argv[1], sys.argv[2], sys.argv[3]
j = json.load(sys.stdin)
b = j["build"]
want = lambda s: [x for x in s.split(",") if x]
ok = True
def expect(what, got, w):
    global ok
    if got != w:
        print(f"FAIL: {what}: got {got!r}, want {w!r}"); ok = False
expect("build.cuda_sass", b["cuda_sass"], want(sass))
expect("build.cuda_ptx", b["cuda_ptx"], want(ptx))
expect("build.cuda_architectures", b["cuda_architectures"].replace(";", ","), archs)
g = j["gpu"]
if g.get("present"):
    c = g.get("code")
    if not c:
        print("FAIL: a GPU but no gpu.code"); ok = False
    else:
        maj, mnr = (int(x) for x in g["compute_capability"].split("."))
        cc = 10 * maj + mnr
        native = any(a.rstrip("af").isdigit() and int(a.rstrip("af")) // 10 == cc // 10
                     and int(a.rstrip("af")) % 10 <= cc % 10 for a in want(sass))
        expect("gpu.code.native", c["native"], native)
        expect("gpu.code.mode", c["mode"].split(" (")[0],
               "native" if native else "PTX compiled at load")
        if not native and c["ptx_version"] // 10 > cc // 10:
            print("FAIL: PTX newer than the device"); ok = False
    print("gpu:", json.dumps(c))
else:
    expect("gpu.code absent without a GPU", "code" in g, False)
sys.exit(0 if ok else 1)
EOF_PY
)
python3 -c "$check" "$archs" "$sass" "$ptx" <<<"$json" || bad=1
[ $bad -eq 0 ] && echo "ok: $(grep 'cuda code' <<<"$text")"
exit $bad

#!/usr/bin/env bash
# Every [sweep] key permbench reads has its row in docs/configs.md's table:
# the keys are those the unknown-key message lists (bench/sweep_config.c).
#   sweep_keys_documented.sh PERMBENCH SOURCE_DIR
set -u
pb=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
printf '[sweep]\nsizes = 10\nno_such_key = 1\n[cpu-fisher-yates]\n' >"$work/c.ini"
msg=$("$pb" run "$work/c.ini" --dry-run 2>&1)
known=$(echo "$msg" | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ' ' | tr ',' ' ')
[ -n "$known" ] || { echo "FAIL: no key list in: $msg"; exit 1; }
missing=
for k in $known; do
    grep -q "^| \`$k\` |" "$src/docs/configs.md" || missing="$missing $k"
done
[ -z "$missing" ] || { echo "FAIL: [sweep] keys without a row in docs/configs.md:$missing"; exit 1; }
echo "ok: $(echo $known | wc -w) keys documented"

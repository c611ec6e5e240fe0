#!/bin/bash
# Every field of pb_module and of pb_module_hooks (core/module.h) is named,
# as `field` or `field(...)`, in the first column of a table row of
# docs/contracts.md: a field added to the descriptor without its line in the
# contract fails here.
# usage: contract_fields.sh SOURCE_DIR
set -eu
src=${1:?usage: contract_fields.sh SOURCE_DIR}
header=$src/core/module.h
doc=$src/docs/contracts.md

# The members of one typedef'd struct: a line inside its braces that ends a
# declaration, its name the identifier before `;` or the `(*name)` of a
# function pointer (declarations spanning lines end on the line with `;`).
fields() {
    awk -v tag="typedef struct $1 {" '
        index($0, tag) == 1 { inside = 1; decl = ""; next }
        inside && /^}/ { inside = 0 }
        inside {
            sub(/\/\*.*\*\//, ""); line = $0
            if (line ~ /^[ \t]*(\/\*|\*)/) next
            decl = decl " " line
            if (decl ~ /;[ \t]*$/) {
                if (match(decl, /\(\*[A-Za-z_][A-Za-z0-9_]*\)/))
                    print substr(decl, RSTART + 2, RLENGTH - 3)
                else if (match(decl, /[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?[ \t]*;/)) {
                    f = substr(decl, RSTART, RLENGTH); sub(/[[ \t;].*/, "", f); print f
                }
                decl = ""
            }
        }' "$header"
}

missing=0 count=0
for s in pb_module pb_module_hooks; do
    list=$(fields "$s")
    [ -n "$list" ] || { echo "no fields of $s found in $header" >&2; exit 1; }
    for f in $list; do
        count=$((count + 1))
        if ! grep -q "^| [^|]*\`$f[\`(]" "$doc"; then
            echo "docs/contracts.md does not describe $s.$f" >&2
            missing=$((missing + 1))
        fi
    done
done
[ "$missing" -eq 0 ] || exit 1
echo "contract_fields: all $count fields of pb_module and pb_module_hooks are in docs/contracts.md"

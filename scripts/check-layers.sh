#!/usr/bin/env bash
# Checks that the tree's folders are layers whose arrows point one way:
#
#   app -> bench, compare, quality -> output -> registry
#       -> modules (algorithms, baselines) -> families -> config, stats, dmm
#       -> core                                       (tests may use all)
#
# Fails, naming the file, line and include, on
#   - an include of a higher layer (upwards) or of a sibling folder of the
#     same layer (config, stats and dmm; bench, compare and quality);
#   - a family's folder including another family's (families/a -> families/b,
#     algorithms/a -> algorithms/b): a family's knowledge lives in its folder;
#   - an include of a file that does not exist;
#   - any include cycle between units (x.h with x.c/x.cu/x.cpp is one unit:
#     a header and its implementation), found with tsort: two units that use
#     each other are one circle, whichever file includes which.
#
#   scripts/check-layers.sh [SOURCE_ROOT]
set -uo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$root" || exit 2

rank() {
    case $1 in
    core) echo 0 ;;
    config | stats | dmm) echo 1 ;;
    families) echo 2 ;;
    algorithms | baselines) echo 3 ;;
    registry) echo 4 ;;
    output) echo 5 ;;
    bench | compare | quality) echo 6 ;;
    app) echo 7 ;;
    tests) echo 9 ;;
    *) echo -1 ;;
    esac
}
# Files generated into the build tree, included by name.
generated=" tests/test_list.h "

layers="core config stats dmm families algorithms baselines registry output bench compare quality app tests"
bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
complain() {
    echo "check-layers: $*" >&2
    bad=1
}

while IFS= read -r file; do
    from=${file%%/*}
    rf=$(rank "$from")
    # "families/shuffle/x.h" -> "families/shuffle": the family's folder.
    sub=$(echo "$file" | cut -d/ -f1-2)
    while IFS=: read -r line inc; do
        [ -n "$inc" ] || continue
        to=${inc%%/*}
        rt=$(rank "$to")
        [ "${file%.*}" != "${inc%.*}" ] && echo "${file%.*} ${inc%.*}" >>"$edges"
        if [ ! -f "$inc" ]; then
            case $generated in *" $inc "*) continue ;; esac
            complain "$file:$line: includes \"$inc\", which does not exist"
            continue
        fi
        if [ "$rt" -lt 0 ]; then
            complain "$file:$line: includes \"$inc\" from '$to/', which is no layer"
        elif [ "$rt" -gt "$rf" ]; then
            complain "$file:$line: includes \"$inc\": $from/ (a lower layer) must not use $to/"
        elif [ "$rt" -eq "$rf" ] && [ "$to" != "$from" ] &&
            ! { [ "$rf" -eq 3 ]; }; then
            complain "$file:$line: includes \"$inc\": $from/ and $to/ are siblings of one layer"
        fi
        case $from in
        families | algorithms)
            tsub=$(echo "$inc" | cut -d/ -f1-2)
            if [ "$to" = "$from" ] && [ "$tsub" != "$sub" ] && [ "$(echo "$inc" | tr -cd / | wc -c)" -ge 2 ]; then
                complain "$file:$line: includes \"$inc\": one family's folder must not use another's"
            fi
            ;;
        esac
    done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" |
        sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1:\2/')
done < <(for d in $layers; do
    [ -d "$d" ] && find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \)
done | sort)

# tsort reports a loop in the include graph on stderr.
if ! loops=$(tsort "$edges" 2>&1 >/dev/null) || [ -n "$loops" ]; then
    complain "include cycle: $(echo "$loops" | tr '\n' ' ')"
fi

if [ "$bad" -ne 0 ]; then
    exit 1
fi
echo "check-layers: $(wc -l <"$edges") includes, no upward or sideways include, no cycle"

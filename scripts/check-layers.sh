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

# Each folder's layer, looked up without a subshell: the check runs once a
# include of the tree, so a fork a lookup was most of its time.
declare -A rank_of=([core]=0 [config]=1 [stats]=1 [dmm]=1 [families]=2 [algorithms]=3 [baselines]=3
    [registry]=4 [output]=5 [bench]=6 [compare]=6 [quality]=6 [app]=7 [tests]=9)
# Files generated into the build tree, included by name.
generated=" tests/test_list.h "

layers="core config stats dmm families algorithms baselines registry output bench compare quality app tests"
bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
exec 3>"$edges"
complain() {
    echo "check-layers: $*" >&2
    bad=1
}

# Every include of the tree in one grep: FILE:LINE:INCLUDE, file by file.
while IFS=: read -r file line inc; do
    [ -n "$inc" ] || continue
    from=${file%%/*}
    rf=${rank_of[$from]:--1}
    # "families/shuffle/x.h" -> "families/shuffle": the family's folder.
    rest=${file#*/}
    sub=$from/${rest%%/*}
    to=${inc%%/*}
    rt=${rank_of[$to]:--1}
    [ "${file%.*}" != "${inc%.*}" ] && echo "${file%.*} ${inc%.*}" >&3
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
        irest=${inc#*/}
        tsub=$to/${irest%%/*}
        slashes=${inc//[^\/]/}
        if [ "$to" = "$from" ] && [ "$tsub" != "$sub" ] && [ "${#slashes}" -ge 2 ]; then
            complain "$file:$line: includes \"$inc\": one family's folder must not use another's"
        fi
        ;;
    esac
done < <(for d in $layers; do
    [ -d "$d" ] && find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \)
done | sort | tr '\n' '\0' | xargs -0 -r grep -H -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' |
    sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1:\2:\3/')

exec 3>&-

# tsort reports a loop in the include graph on stderr.
if ! loops=$(tsort "$edges" 2>&1 >/dev/null) || [ -n "$loops" ]; then
    complain "include cycle: $(echo "$loops" | tr '\n' ' ')"
fi

if [ "$bad" -ne 0 ]; then
    exit 1
fi
echo "check-layers: $(wc -l <"$edges") includes, no upward or sideways include, no cycle"

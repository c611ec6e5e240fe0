#!/usr/bin/env bash
# The commit a build records comes from git in a work tree, and from git
# archive's export-subst in an exported tree (no hand-written file); a tree
# that is neither says none.
#   provenance_source.sh SOURCE_DIR
set -u
src=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
# Only a source that is itself the top of a git work tree: an exported tree
# unpacked inside another checkout (a GPU node's build from the offline
# bundle) is the exported case, which build_info.cmake already reports.
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) && [ "$top" -ef "$src" ] ||
    { echo "skipped: not the top of a git checkout"; exit 77; }
head=$(git -C "$src" rev-parse HEAD)
fail() { echo "FAIL: $*"; cat "$work/out.c" 2>/dev/null; exit 1; }
info() { cmake -DSRC="$1" -DOUT="$work/out.c" -DVERSION=0 -P "$src/cmake/build_info.cmake" || fail "cmake -P"; }

info "$src"
grep -q "\"$head\", \"[a-z]*\", \"git\"" "$work/out.c" || fail "work tree: not HEAD from git"

# An exported tree: git archive substitutes the commit, inside another
# repository too (git must not be asked for that one's HEAD).
mkdir -p "$work/other" && git -C "$work/other" init -q && mkdir "$work/other/tree"
git -C "$src" archive HEAD cmake | tar -x -C "$work/other/tree" || fail "git archive"
info "$work/other/tree"
grep -q "\"$head\", \"no\", \"git-archive\"" "$work/out.c" || fail "exported tree: not HEAD from git-archive"

# A plain copy: no commit.
mkdir -p "$work/copy/cmake" && cp "$src/cmake/git-archive.txt" "$work/copy/cmake/"
info "$work/copy"
grep -q '"unknown", "unknown", "none"' "$work/out.c" || fail "plain copy: not unknown"
echo "ok: git, git-archive and none"

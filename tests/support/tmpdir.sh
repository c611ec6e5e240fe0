# Sourced by every shell test that needs a scratch folder (the C tests'
# counterpart is support/tmp.c): $work, made under $TMPDIR (or /tmp) and
# removed however the test ends.
work=$(mktemp -d "${TMPDIR:-/tmp}/pbtest-XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

#!/bin/sh
# usage: scripts/count-descriptors.sh [SOURCE_DIR] (docs/contracts.md: Counting descriptor lines)
# Descriptor lines: every `const pb_module pb_module_<id> = {` initializer through its `};`,
# every line of a PB_MODULE_DEF or PB_SHUFFLE_MODULE invocation (core/module.h,
# families/shuffle/shuffle_hooks.h), every macro that defines descriptors (its \ body)
# and each line invoking it,
# plus the module-side hook/extension structs (static const pb_module_hooks / pb_shuffle_hooks).
cd "${1:-.}"
find algorithms baselines -name '*.c' -o -name '*.cu' -o -name '*.cpp' -o -name '*.h' -o -name '*.cuh' | sort | xargs awk '
FNR == 1 { macro = 0 }
/^#define PB_[A-Z_]+\(/ && /\\$/ { macro = 1; mstart = FNR }
macro { if ($0 ~ /pb_module pb_module_|PB_MODULE_DEF\(|PB_SHUFFLE_MODULE\(/) hasmod = 1; buf++; if ($0 !~ /\\$/) { if (hasmod) { n += buf; files[FILENAME] = 1 } macro = 0; buf = 0; hasmod = 0 } next }
/^(extern "C" )?(static )?const pb_(module|module_hooks|shuffle_hooks) [a-z0-9_]+ *= *\{/ { inside = 1; files[FILENAME] = 1 }
/^PB_[A-Z_]+\([a-z0-9_, ]*/ && !inside { n++; files[FILENAME] = 1; if ($0 !~ /;$/) cont = 1; next }
cont { n++; if ($0 ~ /;$/) cont = 0; next }
inside { n++ }
inside && /\};/ { inside = 0 }
END { nf = 0; for (f in files) nf++; print n " lines in " nf " files" }'

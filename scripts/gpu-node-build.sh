#!/usr/bin/env bash
# gpu-node-build.sh - on the offline GPU node: unpack the bundle made by
# scripts/offline-bundle.sh into a private prefix (never into /), write
# PREFIX/env.sh, then configure and build the project against it.
set -Eeuo pipefail

PROG=${0##*/}
die() { echo "$PROG: error: $*" >&2; exit 1; }
# shellcheck disable=SC2154  # rc is assigned inside the trap string
trap 'rc=$?; echo "$PROG: error: command failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

usage() {
  cat <<EOF
Usage: $PROG [--no-build] [BUNDLE_DIR] [PREFIX] [BUILD_DIR]

  BUNDLE_DIR  output of offline-bundle.sh (default: <repo>/.bundle)
  PREFIX      where the packages are unpacked (default: /opt/permbench-deps,
              or \$HOME/.local/permbench-deps if /opt is not writable)
  BUILD_DIR   CMake build directory (default: <repo>/build-gpu)

The source built is the bundle's source.tar.gz (made by offline-bundle.sh
with git archive, so results name its commit), unpacked into BUILD_DIR-src;
PB_BUILD_FROM_TREE=1 builds the tree this script is in instead.
  --no-build  only unpack and write PREFIX/env.sh

Where the bundle carries CCCL headers (BUNDLE_DIR/cccl, offline-bundle.sh
--cccl), the build is configured with PB_CCCL_ROOT pointing at them, for the
gpu-cub-topk module; otherwise PB_CCCL_ROOT from the environment, where set.
Packages already installed on this node are skipped so its own libraries are
used. Environment: CUDA_ARCH (default 90), PB_BUNDLE_FORCE_ALL=1 unpacks every
package even if installed (for testing on a machine that has them).
Afterwards: source PREFIX/env.sh to get the same environment in a shell.
EOF
}

BUILD=1 POS=()
for a in "$@"; do
  case "$a" in
    -h|--help) usage; exit 0 ;;
    --no-build) BUILD=0 ;;
    -*) usage >&2; die "unknown option: $a" ;;
    *) POS+=("$a") ;;
  esac
done
[ ${#POS[@]} -le 3 ] || { usage >&2; die "too many arguments"; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUNDLE=${POS[0]:-$REPO/.bundle}
if [ ${#POS[@]} -ge 2 ]; then PREFIX=${POS[1]}   # explicit, even if empty (refused below)
elif [ -w /opt ] || [ -w /opt/permbench-deps ]; then PREFIX=/opt/permbench-deps
else PREFIX=${HOME:?HOME is not set}/.local/permbench-deps; fi
BUILD_DIR=${POS[2]:-$REPO/build-gpu}
FORCE=${PB_BUNDLE_FORCE_ALL:-0}
TRIPLET=x86_64-linux-gnu   # the bundle is amd64 (Debian multiarch layout)

[ -f "$BUNDLE/MANIFEST.txt" ] || die "no bundle at '$BUNDLE' (run scripts/offline-bundle.sh first)"
BUNDLE=$(cd "$BUNDLE" && pwd)
# Refuse to unpack over the live system: PREFIX must be a real, separate dir.
case "$PREFIX" in ""|/|/usr|/usr/|//*) die "refusing PREFIX='$PREFIX' (must not be empty, / or /usr)" ;; esac
mkdir -p "$PREFIX" || die "cannot create PREFIX $PREFIX"
PREFIX=$(cd "$PREFIX" && pwd -P)
[ "$PREFIX" != / ] || die "refusing PREFIX=/"
# Don't litter an unrelated non-empty directory; our marker means "ours, reuse".
if [ ! -f "$PREFIX/.permbench-deps" ] && [ -n "$(ls -A "$PREFIX")" ]; then
  die "PREFIX $PREFIX is not empty and was not made by this script"
fi
touch "$PREFIX/.permbench-deps"

unpack() {  # unpack() DEB: dpkg-deb -x, or ar + tar where dpkg-deb is missing
  if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$1" "$PREFIX"; return; fi
  command -v ar >/dev/null || die "neither dpkg-deb nor ar is available to unpack $1"
  local t rc=0; t=$(mktemp -d)
  (cd "$t" && ar x "$1") && tar -xf "$t"/data.tar.* -C "$PREFIX" || rc=$?
  rm -rf "$t"; return $rc
}
installed() {  # is package $1 installed on this node (per dpkg)?
  [ "$FORCE" = 1 ] && return 1
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# Decide what to unpack. MANIFEST lines: package version file sha256 source.
declare -A SRC FILE SUM UNPACK
while read -r pkg _ver file sum src; do
  case "$pkg" in ""|"#"*) continue ;; esac
  [ -f "$BUNDLE/debs/$file" ] || die "bundle is incomplete: missing debs/$file"
  SRC[$pkg]=$src FILE[$pkg]=$file SUM[$pkg]=$sum
  installed "$pkg" || UNPACK[$pkg]=1
done <"$BUNDLE/MANIFEST.txt"
# A -dev package we unpack must come with its own runtime libraries (same
# source package): its libfoo.so symlinks and CMake configs name the exact
# bundled library files (e.g. libtbb.so.12.8), which a different node version
# would not match. Those libs are only reached via the build's RPATH.
for pkg in "${!UNPACK[@]}"; do
  [[ $pkg == *-dev ]] || continue
  for p in "${!SRC[@]}"; do if [ "${SRC[$p]}" = "${SRC[$pkg]}" ]; then UNPACK[$p]=1; fi; done
done

n=0 skipped=()
for pkg in $(printf '%s\n' "${!FILE[@]}" | sort); do
  if [ -z "${UNPACK[$pkg]:-}" ]; then skipped+=("$pkg"); continue; fi
  deb=$BUNDLE/debs/${FILE[$pkg]}
  if command -v sha256sum >/dev/null; then
    s=$(sha256sum "$deb"); [ "${s%% *}" = "${SUM[$pkg]}" ] || die "checksum mismatch: $deb"
  fi
  unpack "$deb" || die "failed to unpack $deb"
  n=$((n + 1))
done
printf '%s\n' "${!UNPACK[@]}" | sort >"$PREFIX/.permbench-deps"
echo "unpacked $n packages into $PREFIX; skipped ${#skipped[@]} already installed: ${skipped[*]:-none}"

# Absolute symlinks (libfoo.so -> /usr/lib/..., fontconfig conf.d -> /usr/share/...)
# would escape the prefix: point them inside it when the target is there.
# Dangling relative ones (target lib skipped as installed) fall back to the system file.
while IFS= read -r -d '' l; do
  t=$(readlink "$l")
  if [ "${t:0:1}" = / ]; then
    if [ -e "$PREFIX$t" ]; then ln -sfn "$PREFIX$t" "$l"; fi
  elif [ ! -e "$l" ]; then
    d=$(dirname "$l"); sys=${d#"$PREFIX"}/$t
    if [ -e "$sys" ]; then ln -sfn "$sys" "$l"; fi
  fi
done < <(find "$PREFIX" -type l -print0)

# Debian .pc files say prefix=/usr, and some (gsl.pc) hardcode -I/usr/include
# and -L/usr/lib/...: rewrite every /usr path token to $PREFIX/usr. (A global
# PKG_CONFIG_SYSROOT_DIR would wrongly rewrite the node's own .pc files too.)
# Files already rewritten are left alone, so re-runs are safe.
while IFS= read -r -d '' f; do
  if grep -qF "$PREFIX/usr" "$f" || ! grep -qI . "$f"; then continue; fi  # done / binary
  sed -i -E "s#(^|[=[:space:]\"']|-I|-L)/usr(/|[[:space:]\"']|\$)#\1$PREFIX/usr\2#g" "$f"
done < <(find "$PREFIX" \( -name '*.pc' -o -name '*-config' \) -type f -path '*/usr/*' -print0)

mkdir -p "$PREFIX/bin"
LIBS=$PREFIX/usr/lib/$TRIPLET:$PREFIX/lib/$TRIPLET:$PREFIX/usr/lib
# Bundled tools need the prefix libs, but only they get them (wrappers), never
# the whole shell: a global LD_LIBRARY_PATH would shadow the node's libraries.
wrapper() {  # wrapper NAME REAL [extra export lines]
  { echo '#!/bin/sh'; echo "export LD_LIBRARY_PATH=\"$LIBS\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
    if [ $# -gt 2 ]; then printf '%s\n' "${@:3}"; fi; echo "exec \"$2\" \"\$@\""; } >"$PREFIX/bin/$1"
  chmod +x "$PREFIX/bin/$1"
}
if [ -x "$PREFIX/usr/bin/gsl-config" ]; then ln -sfn "$PREFIX/usr/bin/gsl-config" "$PREFIX/bin/gsl-config"; fi

PKGCONF_LINE="" sys_pc=$(PATH=${PATH//"$PREFIX/bin:"/} command -v pkg-config || true)
if { [ -z "$sys_pc" ] || [ "$FORCE" = 1 ]; } && [ -x "$PREFIX/usr/bin/pkgconf" ]; then
  wrapper pkg-config "$PREFIX/usr/bin/pkgconf"
  PKGCONF_LINE="export PKG_CONFIG=\"$PREFIX/bin/pkg-config\""
elif [ -z "$sys_pc" ]; then
  die "no pkg-config on this node and none in the bundle (add pkgconf to PACKAGES)"
else rm -f "$PREFIX/bin/pkg-config"; fi

# gnuplot-nox ships usr/bin/gnuplot-nox (/usr/bin/gnuplot is an alternatives
# link made by postinst, which dpkg-deb -x does not run).
sys_gp=$(PATH=${PATH//"$PREFIX/bin:"/} command -v gnuplot || true)
if [ -x "$PREFIX/usr/bin/gnuplot-nox" ] && { [ -z "$sys_gp" ] || [ "$FORCE" = 1 ]; }; then
  gpdata=$(find "$PREFIX/usr/share/gnuplot/gnuplot" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort -V | tail -n1)
  # fontconfig's compiled-in config is /etc/fonts; give it one that also sees
  # the bundled DejaVu fonts and keeps its cache inside the prefix.
  confd=/etc/fonts/conf.d; [ -d "$PREFIX/etc/fonts/conf.d" ] && confd=$PREFIX/etc/fonts/conf.d
  mkdir -p "$PREFIX/etc/fonts" "$PREFIX/var/cache/fontconfig"
  cat >"$PREFIX/etc/fonts/permbench-fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>$PREFIX/usr/share/fonts</dir>
  <dir>/usr/share/fonts</dir>
  <dir prefix="xdg">fonts</dir>
  <cachedir>$PREFIX/var/cache/fontconfig</cachedir>
  <include ignore_missing="yes">$confd</include>
</fontconfig>
EOF
  wrapper gnuplot "$PREFIX/usr/bin/gnuplot-nox" \
    "export FONTCONFIG_FILE=\"\${FONTCONFIG_FILE:-$PREFIX/etc/fonts/permbench-fonts.conf}\"" \
    "export GNUHELP=\"\${GNUHELP:-$PREFIX/usr/share/gnuplot/gnuplot-nox.gih}\"" \
    ${gpdata:+"export GNUPLOT_LIB=\"\${GNUPLOT_LIB:-$gpdata}\"" "export GNUPLOT_PS_DIR=\"\${GNUPLOT_PS_DIR:-$gpdata/PostScript}\""}
else rm -f "$PREFIX/bin/gnuplot"; fi

PCDIRS=$PREFIX/usr/lib/$TRIPLET/pkgconfig:$PREFIX/usr/share/pkgconfig:$PREFIX/usr/lib/pkgconfig
SYSPC=/usr/local/lib/$TRIPLET/pkgconfig:/usr/local/lib/pkgconfig:/usr/local/share/pkgconfig:/usr/lib/$TRIPLET/pkgconfig:/usr/lib/pkgconfig:/usr/share/pkgconfig
{
  echo "# Generated by scripts/gpu-node-build.sh. Usage: . $PREFIX/env.sh"
  echo "# Deliberately no LD_LIBRARY_PATH: built binaries reach the prefix libs through"
  echo "# their RPATH, and the bin/ wrappers set it for the bundled tools only."
  # Prepend only once, so sourcing env.sh twice does not grow the variables.
  for kv in "PATH=$PREFIX/bin" "CMAKE_PREFIX_PATH=$PREFIX/usr" "PKG_CONFIG_PATH=$PCDIRS"; do
    k=${kv%%=*} v=${kv#*=}
    echo "case \":\${$k:-}:\" in *\":$v:\"*) ;; *) export $k=\"$v\${$k:+:\$$k}\" ;; esac"
  done
  echo "export PKG_CONFIG_LIBDIR=\"$PCDIRS:$SYSPC\""
  [ -z "$PKGCONF_LINE" ] || echo "$PKGCONF_LINE"
  echo "export PERMBENCH_DEPS_PREFIX=\"$PREFIX\""
  echo "# Hand-made links: add \$PERMBENCH_DEPS_LDFLAGS (DT_RPATH, see the build step)."
  echo "export PERMBENCH_DEPS_LDFLAGS=\"-Wl,-rpath,$PREFIX/usr/lib/$TRIPLET -Wl,--disable-new-dtags\""
} >"$PREFIX/env.sh"
echo "environment: $PREFIX/env.sh   (use it in a shell with:  . $PREFIX/env.sh)"

[ "$BUILD" = 1 ] || exit 0
# Build the bundle's source archive (the commit it was made from, recorded
# by export-subst) unless told to build the tree this script sits in.
SRC=$REPO
if [ -f "$BUNDLE/source.tar.gz" ] && [ "${PB_BUILD_FROM_TREE:-0}" != 1 ]; then
  SRC=$BUILD_DIR-src
  rm -rf "$SRC" && mkdir -p "$SRC"
  tar -xzf "$BUNDLE/source.tar.gz" -C "$SRC" || die "cannot unpack $BUNDLE/source.tar.gz"
  echo "source: $BUNDLE/source.tar.gz (commit $(cat "$SRC/cmake/git-archive.txt")) in $SRC"
fi
[ -f "$SRC/CMakeLists.txt" ] || die "no CMakeLists.txt at $SRC"
command -v cmake >/dev/null || die "cmake not found on this node"
# shellcheck source=/dev/null
. "$PREFIX/env.sh"
# Old-style DT_RPATH instead of DT_RUNPATH: RUNPATH only covers a binary's
# direct deps, so with the default --as-needed, libgsl's own dependency
# libgslcblas.so.0 would not be found in the prefix at run time.
LDF="${LDFLAGS:-} -Wl,--disable-new-dtags"
# gpu-cub-topk's CCCL: the bundle's headers, else the environment's PB_CCCL_ROOT.
CCCL_ROOT=${PB_CCCL_ROOT:-}
if [ -f "$BUNDLE/cccl/cub/device/device_topk.cuh" ]; then CCCL_ROOT=$BUNDLE/cccl; fi
cmake -S "$SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  -DPB_CCCL_ROOT="$CCCL_ROOT" \
  -DCMAKE_EXE_LINKER_FLAGS="$LDF" -DCMAKE_SHARED_LINKER_FLAGS="$LDF" || die "cmake configure failed (see output above)"
cmake --build "$BUILD_DIR" -j"$(nproc)" || die "build failed (see output above)"
echo "built in $BUILD_DIR; for later shells: . $PREFIX/env.sh"

#!/usr/bin/env bash
# offline-bundle.sh - gather the .deb files the build needs (plus their runtime
# dependency closure) so they can be carried to the offline GPU node and
# unpacked there by scripts/gpu-node-build.sh.
set -Eeuo pipefail

# Packages the project needs: scripts/packages.txt, less the toolchain the GPU
# node already has (cmake, compilers, make, git) and what only CI's sanitizer
# build uses (clang and its runtimes: a CPU-only build, never made on a GPU
# node, and well over 100 MiB), plus pkgconf in case the node has no
# pkg-config. Add new dependencies to packages.txt.
TOOLCHAIN="cmake g++ gcc git make pkg-config"
SANITIZER_ONLY="clang libclang-rt-dev libomp-dev"
PACKAGES="$(grep -v -E '^(#|$)' "$(dirname "${BASH_SOURCE[0]}")/packages.txt" \
  | grep -v -x -F -f <(tr ' ' '\n' <<<"$TOOLCHAIN $SANITIZER_ONLY") | tr '\n' ' ')pkgconf"

# Never bundle these: the node's own base system / toolchain must provide them.
# Unpacking Debian 12 copies of the C runtime, the compiler runtime or other
# core libraries next to a different distro's ones would shadow them and break
# binaries in confusing ways (symbol-version errors, mixed libstdc++ ...).
# Shell glob patterns are allowed. Anything with "Essential: yes" or
# "Priority: required/important" is excluded as well, automatically.
EXCLUDE="
  libc6 libc-bin libc-dev-bin libc6-dev linux-libc-dev libcrypt1 libcrypt-dev
  libgcc-s1 libstdc++6 libgomp1 libatomic1 libquadmath0 libitm1 libcc1-0
  libasan* liblsan* libtsan* libubsan* libhwasan* gcc-*-base gcc gcc-[0-9]* g++*
  cpp cpp-[0-9]* libgcc-*-dev libstdc++-*-dev binutils* libbinutils libctf*
  libgprofng* libisl* libmpc* libmpfr* libgmp*
  zlib1g libzstd1 liblzma5 libbz2-1.0 liblz4-1 libselinux1 libsepol* libsemanage*
  libmount1 libblkid1 libuuid1 libsmartcols1 libudev1 libsystemd0 libsystemd-shared
  systemd* udev libpcre2-8-0 libtinfo6 libncurses* libbsd0 libmd0 libcap2 libcap-ng0
  libaudit* libacl1 libattr1 libpam* libgcrypt20 libgpg-error0 libssl* openssl
  libcom-err2 libkrb5* libgssapi* libk5crypto* libkeyutils1 libdebconfclient0
  debconf dpkg perl-base tar coreutils bash dash sed grep findutils util-linux
  base-files base-passwd debianutils init-system-helpers sensible-utils
  login passwd adduser mount sysvinit-utils lsb-base
"

PROG=${0##*/}
die() { echo "$PROG: error: $*" >&2; exit 1; }
# Any unexpected failure still ends with exactly one clear line on stderr.
# shellcheck disable=SC2154  # rc is assigned inside the trap string
trap 'rc=$?; echo "$PROG: error: command failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

usage() {
  cat <<EOF
Usage: $PROG [--baseline REV] [--no-plot] [--cccl DIR] [OUTDIR]

Download the Debian packages of scripts/packages.txt (less the toolchain) plus their
full runtime dependency closure, minus base-system packages, into OUTDIR/debs/
and write OUTDIR/MANIFEST.txt (package version file sha256 source).
OUTDIR defaults to .bundle at the repository root. Re-running refreshes it.
Needs apt (run on a connected Debian machine of the same architecture).
Copy OUTDIR to the GPU node and run scripts/gpu-node-build.sh there.
  --baseline REV  also write OUTDIR/baseline.tar.gz, a git archive of REV, for
                  a same-session A/B on the node (scripts/gpu-node-ab.sh)
  --no-plot       leave out gnuplot-nox and its closure (~14 MiB of image
                  codecs and fonts), for a device call whose working tree plus
                  bundle would pass the 64 MiB it may carry; runs then note
                  "gnuplot not found" and the figures are drawn at home
                  ('permbench plot DIR')
  --cccl DIR      also carry CCCL headers newer than the node's toolkit (for
                  gpu-cub-topk: cub/device/device_topk.cuh, CCCL 3.3+), as
                  OUTDIR/cccl/ (cub/, thrust/, cuda/, nv/); DIR is laid out as
                  PB_CCCL_ROOT may be (cmake/cccl_topk.cmake). Default: the
                  environment's PB_CCCL_ROOT, where set. gpu-node-build.sh
                  then configures with PB_CCCL_ROOT=BUNDLE_DIR/cccl
EOF
}

BASELINE=
CCCL=${PB_CCCL_ROOT:-}
while :; do
  case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --baseline) [ $# -ge 2 ] || die "--baseline needs a revision"; BASELINE=$2; shift 2 ;;
    --cccl) [ $# -ge 2 ] || die "--cccl needs a folder"; CCCL=$2; shift 2 ;;
    --no-plot) PACKAGES=$(tr ' ' '\n' <<<"$PACKAGES" | grep -v -x gnuplot-nox | tr '\n' ' '); shift ;;
    *) break ;;
  esac
done
case "${1:-}" in -*) usage >&2; die "unknown option: $1" ;; esac
[ $# -le 1 ] || { usage >&2; die "too many arguments"; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUTDIR=${1:-$REPO/.bundle}
for t in apt-get apt-cache dpkg-deb sha256sum; do
  command -v "$t" >/dev/null || die "'$t' not found: run this on a Debian/Ubuntu machine with apt"
done

mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
# CCCL headers for gpu-cub-topk (scripts/bundle-cccl.sh, one line on failure):
# OUTDIR/cccl/, first, so a wrong --cccl stops before the downloads.
if [ -n "$CCCL" ]; then
  "$REPO/scripts/bundle-cccl.sh" "$CCCL" "$OUTDIR" || exit 1
fi
WORK=$(mktemp -d "$OUTDIR/.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LOG=$WORK/log

# apt needs package lists; without them every lookup says "Unable to locate".
if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
  [ "$(id -u)" = 0 ] || die "no apt package lists: run 'apt-get update' as root first"
  apt-get update -qq >"$LOG" 2>&1 || die "apt-get update failed: $(tail -n1 "$LOG")"
fi

# Resolve the closure against an EMPTY dpkg status, so nothing installed on
# this machine is assumed to be present on the node. -s needs no root/locks.
: >"$WORK/empty-status"
APT_OPTS=(-o "Dir::State::status=$WORK/empty-status" -o Debug::NoLocking=1)
# shellcheck disable=SC2086  # PACKAGES is a word list on purpose
apt-get -s "${APT_OPTS[@]}" install --no-install-recommends $PACKAGES >"$LOG" 2>&1 \
  || die "dependency resolution failed: $(grep -E '^E:' "$LOG" | head -n1 || tail -n1 "$LOG")"
# "Inst NAME (VERSION ARCHIVE [ARCH])" -> "NAME=VERSION"
mapfile -t CLOSURE < <(awk '$1 == "Inst" { v = $3; sub(/^\(/, "", v); print $2 "=" v }' "$LOG")
[ ${#CLOSURE[@]} -gt 0 ] || die "apt resolved no packages for: $PACKAGES"

# Essential / Priority of the exact versions chosen, to drop base packages.
apt-cache show "${CLOSURE[@]}" 2>/dev/null | awk '
  /^Package:/ { p = $2 } /^Essential: yes/ { b[p] = 1 }
  /^Priority: (required|important)/ { b[p] = 1 }
  END { for (p in b) print p }' >"$WORK/base"

is_excluded() {
  local pat
  grep -qxF "$1" "$WORK/base" && return 0
  for pat in $EXCLUDE; do
    # shellcheck disable=SC2254  # pattern must stay unquoted to glob-match
    case "$1" in $pat) return 0 ;; esac
  done
  return 1
}

WANT=() SKIPPED=()
for pv in "${CLOSURE[@]}"; do
  name=${pv%%=*}
  if is_excluded "${name%%:*}"; then SKIPPED+=("${name%%:*}"); else WANT+=("$pv"); fi
done

# Download into a fresh staging dir and swap it in at the end, so a failed
# run never leaves a half-refreshed debs/ behind (idempotent refresh).
mkdir -p "$WORK/debs"
SANDBOX=()
[ "$(id -u)" = 0 ] && SANDBOX=(-o APT::Sandbox::User=root)  # _apt can't write $WORK
(cd "$WORK/debs" && apt-get download -q "${SANDBOX[@]}" "${WANT[@]}") >"$LOG" 2>&1 \
  || die "apt-get download failed: $(grep -E '^E:' "$LOG" | head -n1 || tail -n1 "$LOG")"

{
  # shellcheck disable=SC1091
  echo "# permbench offline bundle, made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") $(dpkg --print-architecture)"
  echo "# requested: $PACKAGES"
  echo "# excluded base packages: ${SKIPPED[*]:-none}"
  echo "# package version file sha256 source"
  for deb in "$WORK"/debs/*.deb; do
    pkg=$(dpkg-deb -f "$deb" Package); ver=$(dpkg-deb -f "$deb" Version)
    src=$(dpkg-deb -f "$deb" Source); src=${src%% *}
    sum=$(sha256sum "$deb"); sum=${sum%% *}
    echo "$pkg $ver ${deb##*/} $sum ${src:-$pkg}"
  done
} >"$WORK/MANIFEST.txt"

rm -rf "$OUTDIR/debs"
mv "$WORK/debs" "$OUTDIR/debs"
mv "$WORK/MANIFEST.txt" "$OUTDIR/MANIFEST.txt"

# The source, as the commit it is: `git archive` writes that commit into
# cmake/git-archive.txt (export-subst), so a build on the node records it
# with no hand-written file. Committed changes only; results/ stays behind.
if git -C "$REPO" rev-parse --verify -q HEAD >/dev/null; then
  git -C "$REPO" archive --format=tar.gz -o "$OUTDIR/source.tar.gz" HEAD -- . ':(exclude)results'
  echo "source: $OUTDIR/source.tar.gz = commit $(git -C "$REPO" rev-parse HEAD)"
  [ -z "$(git -C "$REPO" status --porcelain --untracked-files=no)" ] ||
    echo "$PROG: note: the work tree has uncommitted changes; the bundle holds the commit without them" >&2
  if [ -n "$BASELINE" ]; then
    git -C "$REPO" rev-parse --verify -q "$BASELINE^{commit}" >/dev/null || die "--baseline: no commit '$BASELINE'"
    git -C "$REPO" archive --format=tar.gz -o "$OUTDIR/baseline.tar.gz" "$BASELINE" -- . ':(exclude)results'
    echo "baseline: $OUTDIR/baseline.tar.gz = commit $(git -C "$REPO" rev-parse "$BASELINE^{commit}")"
  fi
else
  rm -f "$OUTDIR/source.tar.gz"
  echo "$PROG: note: not a git checkout; no source archive in the bundle" >&2
fi

count=$(find "$OUTDIR/debs" -name '*.deb' | wc -l)
bytes=$(find "$OUTDIR/debs" -name '*.deb' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
echo "bundle: $OUTDIR ($count packages, $((bytes / 1024 / 1024)) MiB = $bytes bytes)"
echo "excluded base packages (${#SKIPPED[@]}): ${SKIPPED[*]:-none}"
echo "manifest: $OUTDIR/MANIFEST.txt"

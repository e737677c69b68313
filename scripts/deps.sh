#!/usr/bin/env bash
# make deps: install the Debian packages the workbench needs, if missing.
# deps.sh cross: what make check-arm64 and make cross need on top (cross
# compilers, QEMU for arm64, and Debian's static busybox for arm64, which
# is unpacked into build/cross).
. "$(dirname "$0")/lib.sh"

PKGS=(
	# make tree: linux-source-7.3 from trixie-backports, whose index is
	# checked against Debian's archive keyring (scripts/tree.sh)
	debian-archive-keyring
	# kernel build
	gcc make flex bison bc libelf-dev libssl-dev ccache cpio xz-utils kmod python3 git
	# guest runner and scratch filesystems
	qemu-system-x86 qemu-utils busybox-static e2fsprogs xfsprogs util-linux
	# tests, benchmarks and the userspace model
	fio liburcu-dev spin gnuplot-nox sparse python3-docutils python3-matplotlib
	# scripts/sparse.sh builds a sparse that 7.3 accepts from Debian source
	dpkg-dev
	# checkpatch.pl runs scripts/spdxcheck.py on new files
	python3-ply python3-git
	# posting
	git-email libmailtools-perl
)

if [ "${1:-}" = cross ]; then
	PKGS=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-riscv64-linux-gnu
	      qemu-system-arm)
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	note "deps: all ${#PKGS[@]} packages present"
else
	note "deps: installing ${missing[*]}"
	[ "$(id -u)" = 0 ] || die "need root to apt-get install ${missing[*]}"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"${TMPDIR:-/tmp}/deps.log" 2>&1 ||
		{ tail -5 "${TMPDIR:-/tmp}/deps.log" >&2; die "apt-get install ${missing[*]} failed (no apt access?)"; }
fi

[ "${1:-}" = cross ] || exit 0
# busybox for the arm64 guest's initramfs
BB=$BUILD/cross/busybox-arm64
[ -x "$BB" ] && exit 0
mkdir -p "$BUILD/cross/deb"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	[ "$(id -u)" = 0 ] || die "need root to add arm64 to dpkg's architectures"
	dpkg --add-architecture arm64
	apt-get update -qq >"${TMPDIR:-/tmp}/deps.log" 2>&1 ||
		{ tail -5 "${TMPDIR:-/tmp}/deps.log" >&2; die "apt-get update for arm64 failed"; }
fi
(cd "$BUILD/cross/deb" && apt-get download -qq busybox-static:arm64) >"${TMPDIR:-/tmp}/deps.log" 2>&1 ||
	{ tail -5 "${TMPDIR:-/tmp}/deps.log" >&2; die "apt-get download busybox-static:arm64 failed"; }
dpkg-deb -x "$BUILD"/cross/deb/busybox-static_*_arm64.deb "$BUILD/cross/deb/x"
cp "$BUILD/cross/deb/x/bin/busybox" "$BB"
note "deps: $BB"

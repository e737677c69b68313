#!/usr/bin/env bash
# make deps: install the Debian packages the workbench needs, if missing.
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

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	note "deps: all ${#PKGS[@]} packages present"
	exit 0
fi
note "deps: installing ${missing[*]}"
[ "$(id -u)" = 0 ] || die "need root to apt-get install ${missing[*]}"
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"${TMPDIR:-/tmp}/deps.log" 2>&1 ||
	{ tail -5 "${TMPDIR:-/tmp}/deps.log" >&2; die "apt-get install ${missing[*]} failed (no apt access?)"; }

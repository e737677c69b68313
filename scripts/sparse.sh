#!/usr/bin/env bash
# sparse.sh: print the path of a sparse that Linux 7.3 accepts, building it
# first if needed.  7.3's Makefile runs scripts/checker-valid.sh, which needs
# a sparse that parses __typeof_unqual__; Debian 12's sparse 0.6.4 (and
# trixie's) cannot, and `make C=2` then silently builds without it.  So the
# workbench builds Debian's source package of sparse $SPARSE_VERSION (sid),
# fetched with a private apt configuration (deb-src, the system's sources
# untouched; the .dsc is checked against the signed Sources index), into
# build/tools/sparse.  An installed sparse that passes the test is used as
# it is.
. "$(dirname "$0")/lib.sh"

SPARSE_VERSION=${SPARSE_VERSION:-0.6.5~rc1-2}
DIR=$BUILD/tools/sparse
CHECK=$KSRC/scripts/checker-valid.sh

# checker-valid.sh prints 1 if the checker parses 7.3, 0 if not (and exits 0).
valid() { [ -x "$1" ] && [ "$(sh "$CHECK" "$1" 2>/dev/null)" = 1 ]; }

[ -f "$CHECK" ] || die "no $CHECK (make tree)"
if valid "$(command -v sparse || true)"; then
	command -v sparse
	exit 0
fi
if valid "$DIR/sparse"; then
	echo "$DIR/sparse"
	exit 0
fi
APT=$BUILD/cache/apt-src
apt_private "$APT" "deb-src [signed-by=$BASE_KEYRING] $(debian_mirror) sid main"
opts=("${APT_OPTS[@]}")
note "sparse: building Debian's sparse $SPARSE_VERSION from source (the installed one cannot check 7.3)"
apt-get "${opts[@]}" -q update >"$APT/update.log" 2>&1 ||
	{ tail -3 "$APT/update.log" >&2; die "apt-get update (deb-src sid) failed"; }
rm -rf "$DIR.tmp"
mkdir -p "$DIR.tmp"
(cd "$DIR.tmp" && apt-get "${opts[@]}" -q source --download-only "sparse=$SPARSE_VERSION") \
	>"$APT/source.log" 2>&1 ||
	{ tail -3 "$APT/source.log" >&2; die "apt-get source sparse=$SPARSE_VERSION failed (versions: $(apt-cache "${opts[@]}" showsrc sparse 2>/dev/null | sed -n 's/^Version: //p' | tr '\n' ' '))"; }
(cd "$DIR.tmp" && dpkg-source -q -x --skip-patches sparse_*.dsc src) >"$APT/source.log" 2>&1 ||
	{ tail -3 "$APT/source.log" >&2; die "dpkg-source -x of sparse failed"; }
make -s -C "$DIR.tmp/src" CC=gcc HAVE_LLVM=no HAVE_SQLITE=no HAVE_GTK=no HAVE_LIBXML=no \
	-j"$(nproc)" sparse >"$APT/build.log" 2>&1 ||
	{ tail -5 "$APT/build.log" >&2; die "building sparse failed ($APT/build.log)"; }
rm -rf "$DIR"
mkdir -p "$DIR"
cp "$DIR.tmp/src/sparse" "$DIR/sparse"
rm -rf "$DIR.tmp"
valid "$DIR/sparse" || die "$DIR/sparse does not pass $CHECK"
echo "$DIR/sparse"

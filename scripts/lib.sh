# shellcheck shell=bash
# Common helpers for the pagecache-rcu workbench scripts.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KSRC=${KSRC:-$BUILD/linux}
# The base the series is written against: Debian's linux-source-7.3 from
# trixie-backports, fetched with a private apt source list and state (the
# system's sources are not touched) at exactly this version.  Backports keep
# only the newest upload: if the pinned one has left the archive, `make tree`
# takes the newest 7.3.y, says so loudly and records it (build/base.env, the
# base commit's subject, every result's metadata).
BASE_PKG=linux-source-7.3
BASE_PKG_VERSION=${BASE_PKG_VERSION:-7.3.4-1~bpo13+1}
BASE_SUITE=${BASE_SUITE:-trixie-backports}
BASE_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
BASE_TAG=base
WORK_BRANCH=work
APPLIED_REF=refs/pagecache/applied
# Fixed identity and dates make the base commit, and so base-commit:, the same
# on every machine.
BASE_DATE="2025-01-01T00:00:00Z"

die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
note() { printf '%s\n' "$*" >&2; }

# step N M "what" command...: run with a progress line and its duration.
step() {
	local n=$1 m=$2 what=$3 t0 rc
	shift 3
	printf '[%s/%s] %s ...\n' "$n" "$m" "$what" >&2
	t0=$SECONDS
	set +e
	"$@"
	rc=$?
	set -e
	printf '[%s/%s] %s ... %s (%d s)\n' "$n" "$m" "$what" \
		"$([ $rc = 0 ] && echo ok || echo "FAILED rc=$rc")" $((SECONDS - t0)) >&2
	return $rc
}

kgit() { git -C "$KSRC" "$@"; }

# mutant_commit NAME LOG: commit tests/mutants/NAME.patch on top of
# $WORK_BRANCH as refs/mutants/NAME (no working tree touched) and print
# the commit; status 1, with git's words in LOG, where it does not apply.
mutant_commit() {
	local name=$1 log=$2 idx tree c
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx kgit read-tree "$WORK_BRANCH"
	if ! GIT_INDEX_FILE=$idx kgit apply --cached "$TOP/tests/mutants/$name.patch" 2>"$log"; then
		rm -f "$idx"
		return 1
	fi
	tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
	rm -f "$idx"
	c=$(kgit commit-tree "$tree" -p "$WORK_BRANCH" -m "mutant: $name")
	kgit update-ref "refs/mutants/$name" "$c"
	echo "$c"
}

# mutant_config NAME: the config a mutant is built with ("# config: X"
# in its patch, guest when none).
mutant_config() {
	local cfg
	cfg=$(sed -n 's/^# config: //p' "$TOP/tests/mutants/$1.patch" | head -1)
	echo "${cfg:-guest}"
}

# Builds check commits out in one worktree (build/linux-build): one at a time.
WT=$BUILD/linux-build
# The compiler for kernel builds: through ccache where installed.
KCC=gcc
command -v ccache >/dev/null && KCC="ccache gcc"

# checkout_worktree REV [DIR]: the worktree DIR (default the build worktree)
# at REV (detached), made on first use.
checkout_worktree() {
	local dir=${2:-$WT}

	if [ ! -e "$dir/.git" ]; then
		kgit worktree prune
		kgit worktree add -q --detach "$dir" "$1"
	fi
	git -C "$dir" checkout -q -f --detach "$1"
}

# olddefconfig_series DIR [ARCH [SYMBOL...]]: olddefconfig in DIR for the
# checked-out worktree, with PAGECACHE_RCU_FREE and SYMBOLs on where the
# boundary has them.  A .config copied from the guest build loses the
# series' options at the base (olddefconfig drops unknown symbols) and the
# option defaults to n, so without this the boundary builds would never
# compile mm/rcu_free.c.
olddefconfig_series() {
	local dir=$1 arch=${2:-x86_64} sym
	shift $(($# < 2 ? $# : 2))
	make -s -C "$WT" O="$dir" ARCH="$arch" olddefconfig >/dev/null
	for sym in PAGECACHE_RCU_FREE "$@"; do
		"$WT/scripts/config" --file "$dir/.config" -e "$sym"
	done
	make -s -C "$WT" O="$dir" ARCH="$arch" olddefconfig >/dev/null
}

lock_worktree() {
	mkdir -p "$BUILD"
	exec 9>"$BUILD/linux-build.lock"
	flock -n 9 || { note "waiting for another build using $BUILD/linux-build"; flock 9; }
}

# apt_private DIR LINE: an apt configuration of its own in DIR (sources.list
# with LINE, lists and cache), so that apt-get leaves the system's sources
# and state alone; sets APT_OPTS, the -o options that select it.
apt_private() {
	mkdir -p "$1/lists/partial" "$1/cache/archives/partial"
	printf '%s\n' "$2" >"$1/sources.list"
	APT_OPTS=(-o "Dir::Etc::sourcelist=$1/sources.list"
		-o Dir::Etc::sourceparts=/dev/null
		-o "Dir::State::Lists=$1/lists"
		-o "Dir::Cache=$1/cache"
		-o APT::Sandbox::User=root)
}

# The Debian mirror the system already uses (not its security archive);
# DEBIAN_MIRROR overrides it.
debian_mirror() {
	local m=${DEBIAN_MIRROR:-}
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n' | grep -E '/debian/?$' | head -1)
	[ -n "$m" ] || m=$(grep -hE '^deb[[:space:]]' /etc/apt/sources.list 2>/dev/null |
		grep -oE 'https?://[^ ]+/debian/?' | grep -v security | head -1)
	echo "${m:-http://deb.debian.org/debian}"
}

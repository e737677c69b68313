# shellcheck shell=bash
# Common helpers for the pagecache-rcu workbench scripts.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KSRC=${KSRC:-$BUILD/linux}
# The base the series is written against.  `make tree` fetches exactly this
# version (apt-get download), whatever version is installed or newest; if the
# archive drops it, `make tree` stops and says so.
BASE_PKG=linux-source-6.12
BASE_PKG_VERSION=${BASE_PKG_VERSION:-6.12.117-1~deb12u1}
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

lock_worktree() {
	mkdir -p "$BUILD"
	exec 9>"$BUILD/linux-build.lock"
	flock -n 9 || { note "waiting for another build using $BUILD/linux-build"; flock 9; }
}

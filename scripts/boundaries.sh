#!/usr/bin/env bash
# boundaries.sh [CONFIG]: build every patch boundary of branch `work`.
#
# For patch k (1..n) check out base+k in the build worktree and build, with
# W=1, every directory holding a file the patch touches (include/ and
# tools/ changes build mm/), in object directory build/obj/CONFIG-w1.  The
# same directories are built at base first; a warning at a boundary that the
# base does not have (compared without line numbers) fails the patch.
#
# BOUNDARY_ARCH=arm64 or riscv cross-compiles instead (Debian's
# gcc-aarch64-linux-gnu, gcc-riscv64-linux-gnu): arm64 with the arm64 guest's
# .config (scripts/build.sh arm64), riscv with allnoconfig and the same
# fragments (the symbols riscv lacks are dropped).  Logs go to
# build/boundaries[-ARCH].
. "$(dirname "$0")/lib.sh"
lock_worktree

cfg=${1:-guest}
KARCH=${BOUNDARY_ARCH:-x86_64}
ARCH_ARGS=()
case "$KARCH" in
x86_64) LOGS=$BUILD/boundaries ;;
arm64 | riscv)
	cross=aarch64-linux-gnu-
	[ "$KARCH" = riscv ] && cross=riscv64-linux-gnu-
	command -v "${cross}gcc" >/dev/null || die "no ${cross}gcc (scripts/deps.sh cross)"
	KCC=${KCC/gcc/${cross}gcc}
	ARCH_ARGS=(ARCH="$KARCH" CROSS_COMPILE="$cross")
	# olddefconfig_series too: Kconfig asks the compiler what it supports.
	export CROSS_COMPILE=$cross
	cfg=$KARCH LOGS=$BUILD/boundaries-$KARCH
	;;
*) die "BOUNDARY_ARCH: x86_64, arm64 or riscv, not '$KARCH'" ;;
esac
OBJ=$BUILD/obj/$cfg-w1
JOBS=${JOBS:-$(nproc)}

base=$(kgit rev-parse "$BASE_TAG^{commit}")
mapfile -t commits < <(kgit rev-list --reverse "$base..$WORK_BRANCH")
n=${#commits[@]}
if [ "$n" = 0 ]; then
	note "boundaries: no patches on $BASE_TAG"
	exit 0
fi
mkdir -p "$LOGS"

# Directories to build for commit $1: those of touched .c files, and mm/
# for headers and anything else that is not built by a directory of its own.
dirs_for() {
	kgit diff-tree --no-commit-id --name-only -r "$1" | while read -r f; do
		case "$f" in
		Documentation/* | tools/* | MAINTAINERS) ;;
		*.c) dirname "$f" ;;
		*) echo mm ;;
		esac
	done | sort -u | sed 's|$|/|'
}

# Build DIRS at commit SHA; print warnings, normalised, to stdout.
build_dirs() {
	local sha=$1 log=$2
	shift 2
	checkout_worktree "$sha"
	olddefconfig_series "$OBJ" "$KARCH"
	if ! make -C "$WT" O="$OBJ" -j"$JOBS" "${ARCH_ARGS[@]}" CC="$KCC" W=1 "$@" >"$log" 2>&1; then
		grep -m1 -E 'error:|Error [0-9]' "$log" >&2 || tail -20 "$log" >&2
		return 1
	fi
	grep -E 'warning:' "$log" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u || true
}

if [ ! -f "$OBJ/.config" ] && [ "$KARCH" = riscv ]; then
	mkdir -p "$OBJ"
	checkout_worktree "$base"
	cat "$TOP/configs/arm64.config" "$TOP/tools/testing/selftests/pagecache/config" >"$OBJ/fragments.config"
	make -s -C "$WT" O="$OBJ" "${ARCH_ARGS[@]}" KCONFIG_ALLCONFIG="$OBJ/fragments.config" allnoconfig >/dev/null 2>&1 ||
		die "riscv allnoconfig failed"
elif [ ! -f "$OBJ/.config" ]; then
	[ -f "$BUILD/obj/$cfg/.config" ] || die "no configured $cfg object dir (run scripts/build.sh $cfg first)"
	mkdir -p "$OBJ"
	cp "$BUILD/obj/$cfg/.config" "$OBJ/.config"
fi

# Warnings the base already has, in every directory any patch builds.
mapfile -t all < <(for sha in "${commits[@]}"; do dirs_for "$sha"; done | sort -u)
if [ ${#all[@]} -gt 0 ]; then
	t0=$SECONDS
	build_dirs "$base" "$LOGS/base.log" "${all[@]}" >"$LOGS/base.warn" ||
		die "base does not build ${all[*]} with W=1"
	note "[0/$n] base: W=1 ${all[*]} ($(wc -l <"$LOGS/base.warn") warnings, $((SECONDS - t0)) s)"
fi

fail=0
for k in $(seq 1 "$n"); do
	sha=${commits[$((k - 1))]}
	subj=$(kgit log -1 --format=%s "$sha")
	mapfile -t dirs < <(dirs_for "$sha")
	[ ${#dirs[@]} -gt 0 ] || { note "[$k/$n] $subj: nothing to build"; continue; }
	t0=$SECONDS
	if ! build_dirs "$sha" "$LOGS/$k.log" "${dirs[@]}" >"$LOGS/$k.warn"; then
		note "[$k/$n] $subj: W=1 build of ${dirs[*]} FAILED (log: $LOGS/$k.log)"
		fail=1
		continue
	fi
	new=$(comm -13 "$LOGS/base.warn" "$LOGS/$k.warn")
	if [ -n "$new" ]; then
		printf '%s\n' "$new" >&2
		note "[$k/$n] $subj: new W=1 warnings (above)"
		fail=1
	else
		note "[$k/$n] $subj: W=1 ${dirs[*]} ok ($((SECONDS - t0)) s)"
	fi
done
checkout_worktree "$base"
exit $fail

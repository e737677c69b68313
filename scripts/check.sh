#!/usr/bin/env bash
# make check: the one test entry.  Installs what is missing, builds the tree
# and every patch boundary, boots the result and runs the tests; ends with
# one line "N passed, N failed".  CONFIG=debug runs the same on the debug
# config (make check-debug).
. "$(dirname "$0")/lib.sh"

CONFIG=${CONFIG:-guest}
LOGDIR=$BUILD/check
mkdir -p "$LOGDIR"
PASS=0 FAIL=0 SKIP=0 N=0
STEPS=7
T0=$SECONDS

finish() {
	note "check: $((SECONDS - T0)) s in all; logs in $LOGDIR"
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" = 0 ]
	exit $?
}

# prereq "what" cmd...: a step everything after it needs.
prereq() {
	local what=$1
	shift
	N=$((N + 1))
	if step "$N" "$STEPS" "$what" "$@"; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
		note "check: cannot go on without: $what"
		finish
	fi
}

# single "what" cmd...: one test.
single() {
	local what=$1
	shift
	N=$((N + 1))
	if step "$N" "$STEPS" "$what" "$@"; then
		PASS=$((PASS + 1))
		echo "ok - $what"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - $what"
	fi
}

# tap "what" cmd...: a TAP producer; each ok / not ok line counts.
tap() {
	local what=$1 log rc p f s
	shift
	N=$((N + 1))
	log=$LOGDIR/$(echo "$what" | tr -c 'A-Za-z0-9\n' '-').log
	set +e
	step "$N" "$STEPS" "$what" bash -c '"$@" 2>&1 | tee "$0"; exit "${PIPESTATUS[0]}"' "$log" "$@"
	rc=$?
	set -e
	s=$(grep -cE '^ok .*# SKIP' "$log" || true)
	p=$(grep -cE '^ok ' "$log" || true)
	f=$(grep -cE '^not ok ' "$log" || true)
	p=$((p - s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
		echo "not ok - $what exited $rc without reporting a failed test"
	fi
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
}

prereq "deps (Debian packages)" "$TOP/scripts/deps.sh"
prereq "tree (base $BASE_PKG $BASE_PKG_VERSION + patches/)" "$TOP/scripts/tree.sh"
single "patches/ re-exports byte-identical" "$TOP/scripts/export.sh" --check
tap "workbench unit tests" bash -c "'$TOP/tests/workbench/test_scan.py' && '$TOP/tests/workbench/test_series.sh'"
prereq "configure $CONFIG and build the final kernel" "$TOP/scripts/build.sh" "$CONFIG" "$WORK_BRANCH" final
single "every patch boundary builds with W=1, no new warnings" "$TOP/scripts/boundaries.sh" "$CONFIG"
KERNEL=$BUILD/images/final/$CONFIG/bzImage \
	tap "guest runner tests ($CONFIG kernel)" "$TOP/tests/workbench/test_vm.sh"
finish

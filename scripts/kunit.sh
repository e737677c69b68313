#!/usr/bin/env bash
# kunit.sh [REV]: the series' KUnit suite (mm/rcu_free_kunit.c, suite
# rcu_free) at REV of build/linux (default branch work), built for
# User-Mode Linux by the kernel's own tools/testing/kunit/kunit.py with
# configs/kunit.config, in the worktree build/kunit-src and the object
# directory build/kunit (incremental from one REV to the next).  UML runs
# the cases natively in seconds; the x86 guests run them at boot only in
# the PREEMPT_RT config of make check-many.  Prints TAP: one line per case
# (a skipped case says why), and fails when a case fails or crashes, or
# when none ran.  KUNIT_ARGS: more kernel arguments (init_on_free=1).
. "$(dirname "$0")/lib.sh"

rev=${1:-$WORK_BRANCH}
SRC=$BUILD/kunit-src
OBJ=$BUILD/kunit
LOG=$OBJ/kunit.log
mkdir -p "$OBJ"
exec 8>"$BUILD/kunit.lock"
flock 8
kgit rev-parse -q --verify "$rev^{commit}" >/dev/null || die "kunit: no commit $rev in $KSRC"
checkout_worktree "$rev" "$SRC"
if [ ! -f "$SRC/mm/rcu_free_kunit.c" ]; then
	echo "1..0 # SKIP $rev has no mm/rcu_free_kunit.c"
	exit 0
fi
cp "$TOP/configs/kunit.config" "$OBJ/.kunitconfig"
rc=0
(cd "$SRC" && timeout "${KUNIT_TIMEOUT:-1500}" ./tools/testing/kunit/kunit.py run \
	--arch=um --build_dir="$OBJ" --kunitconfig="$OBJ/.kunitconfig" \
	--jobs="$(nproc)" --timeout 300 --make_options "CC=$KCC" \
	${KUNIT_ARGS:+--kernel_args "$KUNIT_ARGS"} 'rcu_free*') \
	>"$LOG" 2>&1 || rc=$?
# What the cases report (kunit_info(): the cost of freeing a chain at its
# bound, and of a drain), as TAP comments.
grep -ho 'chain at the bound: .*\|drain: [0-9]* us (.*' "$OBJ/test.log" 2>/dev/null | sed 's/^/# rcu_free: /' || true
awk -v logf="$LOG" -v rc="$rc" '
	# "[hh:mm:ss] [PASSED] name" (cases); suite lines have "=" around them.
	/^\[[0-9:]+\] \[(PASSED|FAILED|SKIPPED|CRASHED|TIMED OUT)\] [A-Za-z0-9_]+/ {
		line = $0; sub(/^\[[0-9:]+\] \[/, "", line)
		res = substr(line, 1, index(line, "]") - 1)
		rest = substr(line, index(line, "]") + 2)
		name = rest; sub(/ .*/, "", name)
		why = rest; sub(/^[^ ]+ ?/, "", why)
		n++
		if (res == "PASSED") print "ok " n " - kunit " name
		else if (res == "SKIPPED") print "ok " n " - kunit " name " # SKIP " why
		else { print "not ok " n " - kunit " name " " res; bad++ }
	}
	END {
		if (!n) { print "not ok 1 - kunit: no case ran (kunit.py status " rc ", " logf ")"; n = 1; bad = 1 }
		else if (rc && !bad) { print "not ok " ++n " - kunit.py status " rc " (" logf ")"; bad = 1 }
		print "1.." n
		exit bad ? 1 : 0
	}' "$LOG"

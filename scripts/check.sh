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
FAILED_LOGS=()
STEPS=18
T0=$SECONDS

finish() {
	# CI keeps only the tail of what make check prints: repeat there each
	# failed test with the lines its log wrote just before it, or the end
	# of the log of a step that failed without naming a test.
	local l
	for l in "${FAILED_LOGS[@]}"; do
		echo "--- failures in $l:"
		if grep -q '^not ok ' "$l"; then
			grep -B8 '^not ok ' "$l" | grep -vE '^(ok |# +OK )' | tail -40
		else
			tail -20 "$l"
		fi
	done
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

run_logged() {
	local log=$1
	shift
	"$@" 2>&1 | tee "$log"
	return "${PIPESTATUS[0]}"
}

# tap "what" cmd...: a TAP producer; each ok / not ok line counts.
tap() {
	local what=$1 log rc p f s
	shift
	N=$((N + 1))
	log=$LOGDIR/$(echo "$what" | tr -c 'A-Za-z0-9\n' '-').log
	rc=0
	step "$N" "$STEPS" "$what" run_logged "$log" "$@" || rc=$?
	s=$(grep -cE '^ok .*# SKIP' "$log" || true)
	p=$(grep -cE '^ok ' "$log" || true)
	f=$(grep -cE '^not ok ' "$log" || true)
	p=$((p - s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
		echo "not ok - $what exited $rc without reporting a failed test"
	fi
	[ "$f" = 0 ] || FAILED_LOGS+=("$log")
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
}

# With the series' switch in patches/, the guest suite also runs with it off.
if grep -qsx '+config PAGECACHE_RCU_FREE' "$TOP"/patches/*.patch; then
	STEPS=$((STEPS + 1))
fi
# The lint does not depend on the debug options: make check runs it on the
# guest config, make check-debug does not.
[ "$CONFIG" = guest ] || STEPS=$((STEPS - 1))
prereq "deps (Debian packages)" "$TOP/scripts/deps.sh"
prereq "tree (base $BASE_PKG $BASE_PKG_VERSION + patches/)" "$TOP/scripts/tree.sh"
single "patches/ re-exports byte-identical" "$TOP/scripts/export.sh" --check
single "README and cover letter quote results of the series in patches/" "$TOP/scripts/provenance.py"
tap "workbench unit tests" bash -c "'$TOP/tests/workbench/test_scan.py' && '$TOP/tests/workbench/test_readsizes.py' && '$TOP/tests/workbench/test_series.sh' && '$TOP/tests/workbench/test_mutants.sh' && '$TOP/tests/workbench/test_provenance.sh'"
prereq "configure $CONFIG and build the final kernel" "$TOP/scripts/build.sh" "$CONFIG" "$WORK_BRANCH" final
FAST_READ=0
if grep -q '^CONFIG_PAGECACHE_RCU_FREE=y' "$BUILD/images/final/$CONFIG/config"; then
	FAST_READ=1
fi
# W=1 at every boundary: lint compiles every object the series touches, at
# every patch, with W=1 (and sparse) on x86_64 and with W=1 on i386.  The
# W=1 build of whole directories per boundary (objects that only include a
# changed header) is make boundaries, 30 minutes of this 2-core machine: run
# before posting, not in make check.
if [ "$CONFIG" = guest ]; then
	tap "lint at every patch boundary (checkpatch, W=1 and sparse on x86_64, W=1 on i386, option off, docs)" "$TOP/scripts/lint.sh"
fi
KERNEL=$BUILD/images/final/$CONFIG/bzImage \
	tap "guest runner tests ($CONFIG kernel)" "$TOP/tests/workbench/test_vm.sh"
single "selftests and model: repository copies equal the series' copies" "$TOP/scripts/sync.sh" --check
single "posting dry run (sign-off, get_maintainer.pl, git send-email --dry-run)" "$TOP/scripts/post.sh" check
MODEL=$TOP/tools/testing/pagecache-model
tap "userspace model of mm/filemap_fast.h (ASan, UBSan) and its mutants" \
	make -s -C "$MODEL" KSRC="$KSRC" O="$BUILD/model" check
tap "spin model of the protocol and its mutants" "$MODEL/spin-check.sh"
tap "KUnit suite rcu_free on User-Mode Linux (scripts/kunit.sh)" "$TOP/scripts/kunit.sh"
# make bench must not rot: its host tests, and the whole pipeline once on
# the final kernel (seconds per point).
bench_smoke() {
	"$TOP/bench/test.sh" || return 1
	# The debug kernel (KASAN, lockdep) runs the smoke matrix under TCG
	# in about 7 minutes (428 s on a busy 2-core host), past bench/run.sh's
	# default limit of 5.
	local slow=()
	[ "$CONFIG" = debug ] && slow=(BENCH_SMOKE_TIMEOUT=900)
	if env "${slow[@]}" OUT="$BUILD/bench-smoke" \
		KERNELS="final=$BUILD/images/final/$CONFIG/bzImage" \
		"$TOP/bench/run.sh" --smoke >"$LOGDIR/bench-smoke.log" 2>&1 &&
		[ -s "$BUILD/bench-smoke/report.md" ]; then
		echo "ok - bench/run.sh --smoke: boot, matrix, report.md"
	else
		echo "not ok - bench/run.sh --smoke failed ($LOGDIR/bench-smoke.log)"
		tail -5 "$LOGDIR/bench-smoke.log"
	fi
	# make bench's own instrument: the patched UML SMP kernel at 1 and 2
	# CPUs, every workload once; its lockless path must have served reads.
	local u=$BUILD/bench-smoke-uml
	rm -rf "$u"
	if "$TOP/bench/uml/run.sh" --smoke --kernels "final=$WORK_BRANCH" --cpus "1 2" \
		--out "$u" >"$LOGDIR/bench-smoke-uml.log" 2>&1 && [ -s "$u/report.md" ] &&
		grep -q '^final,1,1,read,ext4,hot,ownfd,zero,16,2,' "$u/uml.csv" &&
		grep -q '^final,1,1,read,xfs,hot,ownfd,zero,16,2,' "$u/uml.csv" &&
		grep -q '^final,1,1,read,bdev,hot,shared,zero,16,2,' "$u/uml.csv" &&
		grep -q '^final,1,1,replay,ext4,nginx-read,ownfd,replay,0,2,' "$u/uml.csv" &&
		grep -Eq 'pgcache_fast_read=[1-9]' "$u/vmstat.txt" &&
		grep -q '^final,1,1,tmpfs,2,' "$u/held.csv" &&
		grep -Eq '^final,1,1,ext4,hot,ownfd,65536,2,[1-9][0-9]*,[1-9]' "$u/hits.csv"; then
		echo "ok - bench/uml/run.sh --smoke: UML SMP, 2 CPUs, matrix (xfs and the block device too), a replayed workload, lockless reads (64 KiB too), memory held back, report.md"
	else
		echo "not ok - bench/uml/run.sh --smoke failed ($LOGDIR/bench-smoke-uml.log)"
		tail -5 "$LOGDIR/bench-smoke-uml.log"
	fi
}
tap "benchmark harness (host tests, smoke runs of make bench-guest and make bench)" bench_smoke
# make soak must not rot either: its pipeline for a million reads on make
# bench's patched UML kernel (built just above; no debug options: the full
# soak builds its own debug kernel).
soak_short() {
	if "$TOP/scripts/soak.sh" --kernel "$BUILD/uml/final" --reads 1000000 --seconds 240 \
		--round-ms 3000 --out "$BUILD/soak-short" >"$LOGDIR/soak-short.log" 2>&1; then
		echo "ok - make soak, short: $(grep -m1 '^soak: [0-9]' "$LOGDIR/soak-short.log")"
	else
		echo "not ok - make soak, short, failed ($LOGDIR/soak-short.log)"
		tail -5 "$LOGDIR/soak-short.log"
	fi
}
tap "soak, short (a million racing reads on UML SMP, foreign-data check)" soak_short
prereq "selftests build" "$TOP/scripts/selftests.sh" build
tap "selftests on the host kernel ($(uname -r))" "$TOP/scripts/selftests.sh" run
# In the guest: ext4 and xfs scratch disks, two NUMA nodes for migration,
# swap for reclaim, memcg from the guest config, a quarter of memory in
# ZONE_MOVABLE so that blocks under the test files can go offline
# (race.*.memory_offline); it may poison pages (bad.*.hwpoison), which the
# host's run skips.
guest_selftests() {
	"$TOP/scripts/vm" --kernel "$BUILD/images/final/$CONFIG/bzImage" --quiet \
		--cpus 2 --numa 2 --mem 2G --swap 256 --disk ext4 --disk xfs \
		--timeout "${GUEST_TIMEOUT:-1200}" --console-log "$LOGDIR/console-$1.log" \
		--append "movablecore=25% ${2:-}" -- env BUILD="$BUILD" PAGECACHE_HWPOISON=1 PAGECACHE_OFFLINE=1 \
		PAGECACHE_PROGS="${3:-}" sh -c "${4:-}$TOP/scripts/selftests.sh run"
}
tap "selftests in the guest ($CONFIG kernel, fast path on)" guest_selftests on
if [ "$FAST_READ" = 1 ]; then
	# Booted with the switch off: it must start off, and the programs
	# that turn it on at run time (counters) or test the slow path's
	# answers to bad input must pass.  equivalence already compares the
	# path on and off in every boot, and the races on the slow path alone
	# are the base kernel's.
	tap "selftests in the guest ($CONFIG kernel, booted with pagecache_fast_read=0)" \
		guest_selftests off pagecache_fast_read=0 "badinput counters" \
		'v=$(cat /proc/sys/vm/pagecache_fast_read); if [ "$v" = 0 ]; then echo "ok - pagecache_fast_read=0 at boot: the sysctl reads 0"; else echo "not ok - pagecache_fast_read=0 at boot: the sysctl reads $v"; fi; '
fi
finish

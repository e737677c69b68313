#!/usr/bin/env bash
# arm64.sh: the series on arm64 (make check-arm64).  Cross-builds the guest
# kernel (configs/arm64.config) and the selftests (static), packs them with
# Debian's static busybox for arm64 into an initramfs, and runs the suites
# in QEMU's virt machine under TCG: correctness only, never a timing.  At
# the end the guest's pgcache_fast_read must have moved: arm64 implements
# flush_dcache_folio(), and the series must still read hot folios without
# a reference there.
#
# ARM64_REF (default: the work branch) is the kernel commit to build (a
# mutant, say), installed as build/images/ARM64_LABEL (default final).  ARM64_PROGS (default: all four programs) and ARM64_ARGS
# (harness options, e.g. "-t folio_shape_split") pick what runs; OUT, if
# set, gets the console and the command's output.  Exit status: the guest
# run's.
. "$(dirname "$0")/lib.sh"

PROGS=${ARM64_PROGS:-equivalence races badinput counters}
KSFT=$BUILD/ksft-aarch64
ROOT=$BUILD/cross/rootfs-arm64
CPIO=$BUILD/cross/rootfs-arm64.cpio
IMG=$BUILD/images/${ARM64_LABEL:-final}/arm64/Image

"$TOP/scripts/deps.sh" cross
"$TOP/scripts/build.sh" arm64 "${ARM64_REF:-$WORK_BRANCH}" "${ARM64_LABEL:-final}"
KSFT_CROSS=aarch64-linux-gnu- "$TOP/scripts/selftests.sh" build

rm -rf "$ROOT"
mkdir -p "$ROOT/bin" "$ROOT/ksft"
cp "$BUILD/cross/busybox-arm64" "$ROOT/bin/busybox"
for p in $PROGS; do
	[ -x "$KSFT/pagecache/$p" ] || die "no $KSFT/pagecache/$p"
	cp "$KSFT/pagecache/$p" "$ROOT/ksft/"
done
# The guest's command: every program, then the lockless hits.
cat >"$ROOT/ksft/run.sh" <<'RUN'
cd /ksft || exit 125
rc=0
hits0=$(awk '$1 == "pgcache_fast_read" {print $2}' /proc/vmstat)
echo "# arm64 guest: $(uname -r) $(uname -m), fast path: $(cat /proc/sys/vm/pagecache_fast_read 2>/dev/null || echo 'not in this kernel')"
for prog in $PROGS; do
	t0=$(date +%s)
	echo "# $prog"
	# shellcheck disable=SC2086
	./"$prog" $ARGS || rc=1
	echo "# $prog: $(($(date +%s) - t0)) s"
done
# The series' KUnit test ran at boot (configs/arm64.config).
res=/sys/kernel/debug/kunit/rcu_free/results
if [ -f "$res" ]; then
	echo "# kunit rcu_free (ran at boot):"
	sed 's/^/#   /' "$res"
	if grep -qE '^[[:space:]]+not ok [0-9]+ ' "$res" ||
	   ! grep -qE '^[[:space:]]+ok [0-9]+ ' "$res"; then
		echo "not ok - kunit rcu_free"
		rc=1
	else
		echo "ok - kunit rcu_free"
	fi
elif zcat /proc/config.gz 2>/dev/null | grep -qx 'CONFIG_PAGECACHE_RCU_FREE_KUNIT_TEST=y'; then
	echo "not ok - kunit rcu_free: built in, but no $res"
	rc=1
fi
hits1=$(awk '$1 == "pgcache_fast_read" {print $2}' /proc/vmstat)
echo "# pgcache_fast_read: ${hits0:-none} before, ${hits1:-none} after"
if [ -z "$hits1" ] || [ "$hits1" = "${hits0:-0}" ]; then
	echo "not ok - arm64: no read took the lockless path"
	rc=1
else
	echo "ok - arm64: $((hits1 - hits0)) lockless reads"
fi
exit $rc
RUN
(cd "$ROOT" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 >"$CPIO")
note "arm64: initramfs $CPIO ($(du -h "$CPIO" | cut -f1)), kernel $(cat "${IMG%/*}/commit")"

log=()
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	log=(--console-log "$OUT/console.log")
fi
set +e
"$TOP/scripts/vm" --arch arm64 --rootfs "$CPIO" --kernel "$IMG" --quiet --cpus 2 --numa 2 \
	--mem 2G --swap 256 --disk ext4 --disk xfs --append "movablecore=25%" \
	--timeout "${ARM64_TIMEOUT:-2400}" "${log[@]}" -- \
	env PROGS="$PROGS" ARGS="${ARM64_ARGS:-}" PAGECACHE_HWPOISON=1 \
	PAGECACHE_OFFLINE=1 sh /ksft/run.sh 2>&1 | tee ${OUT:+"$OUT/run.log"}
rc=${PIPESTATUS[0]}
note "arm64: guest run exited $rc"
exit "$rc"

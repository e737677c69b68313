#!/bin/sh
# Memory held back by the deferred freeing, in a booted QEMU guest
# (scripts/vm, make check-many): bench/heldback.c samples it every
# millisecond during a truncate storm of one process per CPU, on tmpfs with
# 256 KiB files and on tmpfs huge=always with 4 MiB files (PMD-sized
# folios, where the kernel has THP).  POSIX sh.
#
#   held-guest.sh HELDBACK [SECONDS]
#
# The sampler runs at SCHED_FIFO priority 50 where chrt allows it (its
# storm processes do not).
# Prints the CSV header once, then one line per case prefixed with
# "HELD,<case>,"; exits 1 if a case failed or did not hold the bound the
# series states (bound_held, the last column, is 0), 2 on a kernel
# without the series' counters.
set -u
bin=${1:?usage: held-guest.sh HELDBACK [SECONDS]}
secs=${2:-5}
procs=$(grep -c '^processor' /proc/cpuinfo)
mnt=$(mktemp -d /tmp/held.XXXXXX)
rc=0
header=''
rt=''
if command -v chrt >/dev/null && chrt --reset-on-fork -f 50 true 2>/dev/null; then
	rt='chrt --reset-on-fork -f 50'
fi

# case NAME MOUNT_OPTIONS FILE_SIZE
run_case() {
	if ! mount -t tmpfs -o "$2" held "$mnt"; then
		echo "HELD,$1,skipped: mount -o $2 failed"
		return
	fi
	# The sampler at real-time priority, its storm processes not
	# (reset on fork): with one storm process per CPU on a host with
	# fewer cores (TCG), the sampler otherwise gets a slice every few
	# hundred milliseconds and misses the peaks it is there to see.
	out=$($rt "$bin" ${header:+-H} -d "$mnt" -P "$procs" -D "$secs" -s "$3")
	st=$?
	umount "$mnt"
	if [ $st = 2 ]; then
		echo "held-guest: kernel without the series' counters" >&2
		rm -rf "$mnt"
		exit 2
	fi
	if [ $st != 0 ]; then
		echo "HELD,$1,failed: heldback exit $st"
		rc=1
		return
	fi
	if [ -n "$header" ]; then
		echo "HELD,case,$(echo "$out" | head -n 1)"
		header=''
	fi
	line=$(echo "$out" | tail -n 1)
	echo "HELD,$1,$line"
	[ "${line##*,}" = 1 ] || rc=1
}

header=1
run_case tmpfs size=50% 262144
if [ -e /sys/kernel/mm/transparent_hugepage/shmem_enabled ]; then
	run_case tmpfs_huge huge=always,size=50% 4194304
else
	echo "HELD,tmpfs_huge,skipped: no THP in this kernel"
fi
rm -rf "$mnt"
exit $rc

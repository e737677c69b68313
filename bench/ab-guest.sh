#!/bin/sh
# bench/ab-guest.sh: inside one guest (scripts/vm) whose kernel is the
# series plus bench/uml/ab/knob.patch, patch 6's tmpfs read loop against
# 6.12's in the same boot, with bench/abread flipping
# /sys/module/shmem/parameters/read_exp between batches of pread()s: the
# fio table's shapes (written, fallocated and sparse 64 MiB files; 4 KiB,
# 64 KiB and 1 MiB sequential reads) on tmpfs huge=never and huge=always,
# which User-Mode Linux (bench/uml/ab) cannot do: it has no THP.
# Output CSV: thp,file,len,variant,ratio,q1,q3,ns_per_read (variant 1 is
# 6.12's loop, 0 the series, 2 the series without filemap_read_hot();
# ratio: speed over 6.12's loop, median of the per-round ratios).
#   scripts/vm --kernel build/images/ab/guest/bzImage -- bench/ab-guest.sh [ROUNDS]
set -eu
A=$(dirname "$0")/../build/bench/abread
[ -x "$A" ] || { echo "ab-guest: build bench/ first (make -C bench O=build/bench)" >&2; exit 2; }
[ -w /sys/module/shmem/parameters/read_exp ] ||
	{ echo "ab-guest: kernel without bench/uml/ab/knob.patch (no /sys/module/shmem/parameters/read_exp)" >&2; exit 2; }
ROUNDS=${1:-60}
echo "thp,file,len,variant,ratio,q1,q3,ns_per_read"
for thp in never always; do
	d=/mnt/ab-$thp
	mkdir -p $d
	mountpoint -q $d || mount -t tmpfs -o size=400m,huge=$thp none $d
	dd if=/dev/urandom of=$d/normal bs=1M count=64 2>/dev/null
	fallocate -l 64M $d/falloc
	truncate -s 64M $d/hole
	for f in normal falloc hole; do
		for spec in 4096:400 65536:40 1048576:4; do
			len=${spec%:*} n=${spec#*:}
			"$A" -f $d/$f -l $len -n $n -r "$ROUNDS" -v 1,0,2 | sed "s|^$d/|$thp,|"
		done
	done
	rm -f $d/normal $d/falloc $d/hole
	umount $d
done

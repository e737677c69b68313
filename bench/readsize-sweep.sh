#!/bin/sh
# bench/readsize-sweep.sh: inside one guest (same kernel, same boot), the
# lockless read switched on and off by vm.pagecache_fast_read, interleaved,
# single-threaded 1 MiB hot file, per read size: where does the double copy
# start to cost more than the folio reference saves?  Output CSV:
# rep,fast_read,<bench/pread CSV columns>.  Run with scripts/vm, e.g.
#   scripts/vm --disk ext4 -- bench/readsize-sweep.sh > out.csv
set -eu
P=$(dirname "$0")/../build/bench/pread
[ -x "$P" ] || { echo "readsize-sweep: build bench/ first (make -C bench O=build/bench)" >&2; exit 2; }
[ -w /proc/sys/vm/pagecache_fast_read ] || { echo "readsize-sweep: kernel without vm.pagecache_fast_read" >&2; exit 2; }
mkdir -p /mnt/tmpfs
mountpoint -q /mnt/tmpfs || mount -t tmpfs -o size=256m none /mnt/tmpfs
for rep in 1 2 3; do
	for fs in /mnt/tmpfs /mnt/ext4; do
		for len in 256 512 1024 2048 4096 16384; do
			for on in 1 0; do
				echo $on >/proc/sys/vm/pagecache_fast_read
				r=$("$P" -d $fs -m folio -t 1 -l $len -s 1m -D 1 -w 0.3 | tail -1)
				echo "$rep,$on,$r"
			done
		done
	done
done
echo 1 >/proc/sys/vm/pagecache_fast_read

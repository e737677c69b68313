#!/bin/sh
# From a fresh clone: the guest kernel, the selftests, three tests of counters, then the whole suite, in the guest; make lint.
set -e
cd "$(dirname "$0")/../.."
make tree
scripts/build.sh guest work final
scripts/selftests.sh build
VM="scripts/vm --kernel build/images/final/guest/bzImage --cpus 2 --numa 2 --mem 2G --swap 256 --disk ext4 --disk xfs --append movablecore=25%"
$VM -- env BUILD="$PWD/build" PAGECACHE_PROGS=counters \
	PAGECACHE_PROG_ARGS="-t io_uring_reads -t memcg_storm -t nowait_reads" sh -c "$PWD/scripts/selftests.sh run"
$VM -- env BUILD="$PWD/build" PAGECACHE_HWPOISON=1 PAGECACHE_OFFLINE=1 sh -c "$PWD/scripts/selftests.sh run"
make lint

#!/bin/sh
# From a fresh clone: the debug guest, memfd_seal_write and the counters program.
set -e
cd "$(dirname "$0")/../.."
make deps tree
scripts/build.sh debug work final
scripts/selftests.sh build
scripts/vm --kernel build/images/final/debug/bzImage --quiet --cpus 2 --numa 2 --mem 2G \
	--swap 256 --disk ext4 --disk xfs --append "movablecore=25%" -- \
	env PAGECACHE_HWPOISON=1 PAGECACHE_OFFLINE=1 PAGECACHE_PROGS=counters sh -c \
	"cd build/ksft/pagecache && ./races -t memfd_seal_write; r=\$?; cd ../../.. && scripts/selftests.sh run || r=1; exit \$r"

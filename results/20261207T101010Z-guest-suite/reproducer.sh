#!/bin/sh
# From a fresh clone: build the patched guest kernel, the selftests and
# bench/heldback.c, and run the suite and bench/held-guest.sh in one guest.
set -e
cd "$(dirname "$0")/../.."
make deps tree
scripts/build.sh guest work final
scripts/selftests.sh build
make -C bench O="$PWD/build/bench" "$PWD/build/bench/heldback"
scripts/vm --kernel build/images/final/guest/bzImage --quiet --cpus 2 --numa 2 \
	--mem 2G --swap 256 --disk ext4 --disk xfs --append "movablecore=25%" -- \
	env PAGECACHE_HWPOISON=1 PAGECACHE_OFFLINE=1 sh -c \
	"scripts/selftests.sh run; rc=\$?; bench/held-guest.sh build/bench/heldback 5 || rc=1; exit \$rc"

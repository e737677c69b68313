#!/bin/sh
# From a fresh clone: the patched guest kernel on 64 vCPUs, bench/held-guest.sh.
set -e
cd "$(dirname "$0")/../.."
make deps tree
scripts/build.sh guest work final
make -C bench O="$PWD/build/bench" "$PWD/build/bench/heldback"
scripts/vm --kernel build/images/final/guest/bzImage --quiet --cpus 64 --numa 2 --mem 4G \
	--timeout 1000 --append "rcupdate.rcu_cpu_stall_timeout=60" -- \
	sh -c "bench/held-guest.sh build/bench/heldback 5"

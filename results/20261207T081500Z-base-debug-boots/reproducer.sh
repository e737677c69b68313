#!/bin/sh
# From a fresh clone: build the base kernel with the debug config, boot it
# 13 times, count the early-boot KASAN report.
set -e
cd "$(dirname "$0")/../.."
make deps tree
scripts/build.sh debug base base-debug
for i in $(seq 1 13); do
	scripts/vm --kernel build/images/base-debug/debug/bzImage --quiet --cpus 2 --numa 2 \
		--mem 2G --swap 256 --disk ext4 --disk xfs --append "movablecore=25%" \
		--console-log "console$i.log" -- true || echo "boot $i failed"
done
grep -l 'BUG: KASAN' console*.log || true

#!/bin/sh
# From a fresh clone: the README's set-up, then this run.
set -e
git clone https://example.invalid/pagecache-rcu.git pagecache-rcu 2>/dev/null || true
cd pagecache-rcu
git checkout 285a0d5b1835c56f0029eca0985f3cda4c98a12c
make deps tree
make check-many MANY_ARGS="--cpus 64 --seconds 4 --readers 16 --variants 'ext4 tmpfs' --only 'qemu-debug qemu-rt uml'"

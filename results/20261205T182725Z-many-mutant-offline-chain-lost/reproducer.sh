#!/bin/sh
# Re-run this check: run it at the top of a fresh clone of the workbench;
# it checks out the commit that ran it and builds everything.
# Base: e7b0b8680d7a65faa614feede588ddcf702aa245 Linux 7.3.4 (Debian linux-source-7.3 7.3.4-1~bpo13+1)
set -e
git checkout f66aa878894531f36e1d5d6a84d9b4f0e454f963
make deps tree
make check-many MANY_ARGS="--cpus 64 --seconds 4 --readers 16 --variants 'ext4 tmpfs' --only 'qemu-rt' --mutant offline-chain-lost --no-races"

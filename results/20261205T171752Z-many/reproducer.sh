#!/bin/sh
# Re-run this check: run it at the top of a fresh clone of the workbench;
# it checks out the commit that ran it and builds everything.
# Base: e7b0b8680d7a65faa614feede588ddcf702aa245 Linux 7.3.4 (Debian linux-source-7.3 7.3.4-1~bpo13+1)
set -e
git checkout 5e145d05fb577b57e1acc7c230f9541026516567
make deps tree
make check-many MANY_ARGS="--cpus 64 --seconds 4 --readers 16 --variants 'ext4 tmpfs' --only 'qemu-debug qemu-rt uml'"

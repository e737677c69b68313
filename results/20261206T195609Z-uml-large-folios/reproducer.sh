#!/bin/sh
# Re-run this measurement: run it at the top of a fresh clone of the
# workbench; it checks out the commit measured and builds everything.
# Base: e7b0b8680d7a65faa614feede588ddcf702aa245 Linux 7.3.4 (Debian linux-source-7.3 7.3.4-1~bpo13+1)
set -e
git checkout f6fc231e03402b1a4a301985dc6012eade454878
make deps tree
bench/uml/run.sh --large-folios --fs ext4 --sizes 16\ 4096\ 65536\ 1048576 --shapes ownfd\ shared --no-seq --no-gitgrep --no-logreread

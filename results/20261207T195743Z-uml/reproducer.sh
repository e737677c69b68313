#!/bin/sh
# Re-run this measurement: run it at the top of a fresh clone of the
# workbench; it checks out the commit measured and builds everything.
# Base: e7b0b8680d7a65faa614feede588ddcf702aa245 Linux 7.3.4 (Debian linux-source-7.3 7.3.4-1~bpo13+1)
set -e
git checkout 6ac87934c052d0c47d2ffd579eb18ac09a625597
make deps tree
bench/uml/run.sh

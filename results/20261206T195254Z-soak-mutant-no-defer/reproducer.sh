#!/bin/sh
# Re-run this soak from a fresh clone of the workbench: it checks out the
# commit that ran it, installs and builds what it needs (make deps tree).
set -e
git checkout f6fc231e03402b1a4a301985dc6012eade454878
make deps tree
scripts/soak.sh --mutant no-defer --host-load 2 --fs tmpfs --files 1 --size 65536 --reads 5000000 --seconds 900 --round-ms 10000

#!/bin/sh
# Re-run this soak from a fresh clone of the workbench: it checks out the
# commit that ran it, installs and builds what it needs (make deps tree).
set -e
git checkout f6fc231e03402b1a4a301985dc6012eade454878
make deps tree
scripts/soak.sh --reads 15000000 --seconds 1500

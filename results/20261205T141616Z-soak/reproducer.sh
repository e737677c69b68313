#!/bin/sh
# Re-run this soak from a fresh clone of the workbench: it checks out the
# commit that ran it, installs and builds what it needs (make deps tree).
set -e
git checkout 2084d6ae4b604b57d5d2866efeda97d159c3b503
make deps tree
scripts/soak.sh 

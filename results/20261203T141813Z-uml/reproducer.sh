#!/bin/sh
# Re-run this measurement: run it at the top of a fresh clone of the
# workbench; it checks out the commit measured and builds everything.
# Base: 
set -e
git checkout efcc3d5b0cd5490f666973b11c77db5273d890eb
make deps tree
bench/uml/run.sh

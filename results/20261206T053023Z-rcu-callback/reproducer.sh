#!/bin/sh
# From a fresh clone of the workbench at bf3f9a0: the series in patches/ (hash 179e2386280c4e36).
set -e
cd "$(dirname "$0")/../.."
make tree
OUT=$PWD/results/rerun-rcu-callback scripts/kunit-cost.sh 3

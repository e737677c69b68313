#!/bin/sh
# From a fresh clone of the workbench at 493c796: the series in patches/ (hash 836855f61030a048).
set -e
cd "$(dirname "$0")/../.."
make tree
OUT=$PWD/results/rerun-rcu-callback scripts/kunit-cost.sh 3

#!/bin/sh
# From a fresh clone of the workbench at f6fc231: the series in patches/ (hash 67a097ee21af6cb9).
set -e
cd "$(dirname "$0")/../.."
make tree
OUT=$PWD/results/rerun-rcu-callback scripts/kunit-cost.sh 3

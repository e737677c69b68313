#!/bin/sh
# From a fresh clone of the workbench at 9cf2644: the series in patches/ (hash 718613db54c867da).
set -e
cd "$(dirname "$0")/../.."
make tree
OUT=$PWD/results/rerun-rcu-callback scripts/kunit-cost.sh 3

#!/bin/sh
# From a fresh clone of the workbench at 6ac8793: the series in patches/ (hash 167bdfd45af2fb3e).
set -e
cd "$(dirname "$0")/../.."
make tree
OUT=$PWD/results/rerun-rcu-callback scripts/kunit-cost.sh 3

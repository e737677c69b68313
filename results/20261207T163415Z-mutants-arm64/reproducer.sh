#!/bin/sh
# From a fresh clone of the workbench at 599613e.
set -e
cd "$(dirname "$0")/../.."
git checkout 599613ee2d16b9d1fa611f87e67f31fa77b0eca9
make deps tree
MUTANTS="flush-writable-lockless" MUTANTS_OUT=$PWD/results/rerun-mutants scripts/mutants.sh

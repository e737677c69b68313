#!/bin/sh
# From a fresh clone of the workbench at 65307ec.
set -e
cd "$(dirname "$0")/../.."
git checkout 65307ec7ef93bb2d4e699b5ddd5e695e556eda5f
make deps tree
MUTANTS="batch-across-faults memcg-drain-any memcg-no-drain" MUTANTS_OUT=$PWD/results/rerun-mutants scripts/mutants.sh

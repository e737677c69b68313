#!/bin/sh
# From a fresh clone of the workbench at 9883f07.
set -e
cd "$(dirname "$0")/../.."
git checkout 9883f07a96cff786ed7ada11b0e3e68bc43a0f2f
make deps tree
MUTANTS="hwpoison-charge-kept" MUTANTS_OUT=$PWD/results/rerun-mutants scripts/mutants.sh

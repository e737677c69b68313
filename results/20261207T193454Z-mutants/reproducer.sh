#!/bin/sh
# From a fresh clone of the workbench at 00085be.
set -e
cd "$(dirname "$0")/../.."
git checkout 00085bed4bec3e73e5bba6bbc70d413727789ab8
make deps tree
MUTANTS="fast-user-iter-only" MUTANTS_OUT=$PWD/results/rerun-mutants scripts/mutants.sh

#!/bin/sh
# From a fresh clone: the four selftest programs and the KUnit test in an
# arm64 guest (QEMU TCG), as make check-arm64 runs them.
set -e
cd "$(dirname "$0")/../.."
git checkout 863ec020b4c2ed945a1deafc92f3ef189262285e
make deps tree
OUT=$PWD/results/rerun-arm64 make check-arm64

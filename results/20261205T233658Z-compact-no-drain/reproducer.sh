#!/usr/bin/env bash
# Reproduce this run: same kernels, settings and workbench commit.
# Workbench commit: a7b286028bed4d52932da3455ce4c3973b0ae3e7
# base: /work/main/build/images/base/guest/bzImage sha256 27c2530d2b1ec807364c09b8aee2877fb75d1b059272e66510948546de380275 commit e7b0b8680d7a
#   (the booted copy is /work/main/results/20261205T233658Z-compact-no-drain/kernels/base.bzImage; to rerun exactly it, pass KERNELS=base=that path)
# final: /work/main/build/images/final/guest/bzImage sha256 f315f4212da6b971ae344d8684c215aad1811c9227316e9044728271b7fe8519 commit 3c790708b71c
#   (the booted copy is /work/main/results/20261205T233658Z-compact-no-drain/kernels/final.bzImage; to rerun exactly it, pass KERNELS=final=that path)
set -euo pipefail
cd /work/main
KERNELS=base=build/images/base/guest/bzImage\ final=build/images/final/guest/bzImage CPUS=2 REPS=3 MEM=2G ACCEL=auto FULL=0 SMOKE=0 ONLY=compact bench/run.sh "$@"

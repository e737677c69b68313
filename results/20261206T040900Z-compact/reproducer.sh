#!/usr/bin/env bash
# Reproduce this run: same kernels, settings and workbench commit.
# Workbench commit: 9cf2644f382fcd89b1256fa8b7c40eaa92931dc8
# base: /work/main/build/images/base/guest/bzImage sha256 27c2530d2b1ec807364c09b8aee2877fb75d1b059272e66510948546de380275 commit e7b0b8680d7a
#   (the booted copy is /work/main/results/20261206T040900Z-compact/kernels/base.bzImage; to rerun exactly it, pass KERNELS=base=that path)
# final: /work/main/build/images/final/guest/bzImage sha256 0f5b06955398a07ae5759dc98f3875bcf997e5996b3652e5c3269011d4a97137 commit c9a72f8e26b9
#   (the booted copy is /work/main/results/20261206T040900Z-compact/kernels/final.bzImage; to rerun exactly it, pass KERNELS=final=that path)
set -euo pipefail
cd /work/main
KERNELS=base=build/images/base/guest/bzImage\ final=build/images/final/guest/bzImage CPUS=2 REPS=10 MEM=2G ACCEL=auto FULL=0 SMOKE=0 ONLY=compact bench/run.sh "$@"

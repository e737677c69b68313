#!/usr/bin/env bash
# Reproduce this run: same kernels, settings and workbench commit.
# Workbench commit: 1b45bc6df19c2fd118db7e877d1d0eb5b55945ee
# base: /work/main/build/images/base/guest/bzImage sha256 01b2577849d668387d44746290893015c53d4c2c82b62dec3173e194b4392bfe commit e7b0b8680d7a
#   (the booted copy is /work/main/results/20261206T203052Z-compact/kernels/base.bzImage; to rerun exactly it, pass KERNELS=base=that path)
# final: /work/main/build/images/final/guest/bzImage sha256 8c0d38c1518b23cb140c67ecd9c4f15f1e7f0c5bdffcfc4de550af395bd84cdb commit 2b0620e2f224
#   (the booted copy is /work/main/results/20261206T203052Z-compact/kernels/final.bzImage; to rerun exactly it, pass KERNELS=final=that path)
set -euo pipefail
cd "$(dirname "$0")/../.."
git checkout 1b45bc6df19c2fd118db7e877d1d0eb5b55945ee
make deps build-base CONFIG=guest
make deps build CONFIG=guest
KERNELS=base=build/images/base/guest/bzImage\ final=build/images/final/guest/bzImage CPUS=2 REPS=10 MEM=2G ACCEL=auto FULL=0 SMOKE=0 ONLY=compact bench/run.sh "$@"

#!/bin/sh
# From a fresh clone: W=1 at every patch boundary for arm64 and riscv64.
set -e
cd "$(dirname "$0")/../.."
make cross

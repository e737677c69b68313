#!/bin/sh
# From a fresh clone: make check-debug (the debug guest kernel: KASAN,
# DEBUG_PAGEALLOC, lockdep, PROVE_RCU), then the bench-guest smoke alone on
# the same kernel with the debug limit that check.sh now gives it.
set -e
cd "$(dirname "$0")/../.."
make check-debug || true
BENCH_SMOKE_TIMEOUT=900 OUT=build/bench-smoke-debug \
	KERNELS="final=build/images/final/debug/bzImage" bench/run.sh --smoke

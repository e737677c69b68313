#!/usr/bin/env bash
# Reproduce this run from a fresh clone of the workbench at the commit in
# metadata.json (workbench_commit): make check-debug builds the base tree,
# the series in patches/ and the debug guest kernel, and runs the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
make check-debug

#!/bin/sh
# From a fresh clone of the workbench.
set -e
cd "$(dirname "$0")/../.."
make check

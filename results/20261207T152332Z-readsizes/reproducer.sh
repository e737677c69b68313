#!/bin/sh
# Re-run at the top of a fresh clone of the workbench.
set -e
git checkout f3dd377bc328e35e2c1d6763d9d7452a0d1e6a28
make deps tree
bench/readsizes/trace.sh git-grep git-log ripgrep cc-build python-imports sqlite nginx-sendfile nginx-read tail-log

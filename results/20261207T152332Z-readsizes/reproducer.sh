#!/bin/sh
# Re-run at the top of a fresh clone of the workbench.
set -e
git checkout 49bfa081f30390a7172100fa62715af6b747f113
make deps tree
bench/readsizes/trace.sh git-grep git-log ripgrep cc-build python-imports sqlite nginx-sendfile nginx-read tail-log

#!/usr/bin/env bash
# tests/mutants/*.patch must apply to branch work of build/linux, so that
# make mutants tests the series as it is (a mutant that no longer applies
# would only be found when someone runs make mutants).  Each is applied as
# scripts/mutants.sh applies it, to an index read from work (git apply
# --cached), but only checked.  Skips when build/linux has no branch work
# (make tree).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
# shellcheck source=tests/workbench/tap.sh
. "$HERE/tap.sh"

if ! git -C "$KSRC" rev-parse -q --verify 'work^{commit}' >/dev/null 2>&1; then
	echo "1..0 # SKIP no branch work in $KSRC (make tree)"
	exit 0
fi
idx=$(mktemp)
trap 'rm -f "$idx"' EXIT
GIT_INDEX_FILE=$idx git -C "$KSRC" read-tree work
applies() {
	GIT_INDEX_FILE=$idx git -C "$KSRC" apply --cached --check "$1"
}
for p in "$TOP"/tests/mutants/*.patch; do
	t "tests/mutants/$(basename "$p") applies to branch work" applies "$p"
done
tap_done

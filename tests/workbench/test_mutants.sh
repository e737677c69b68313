#!/usr/bin/env bash
# tests/mutants/*.patch must apply to branch work of build/linux, so that
# make mutants tests the series as it is (a mutant that no longer applies
# would only be found when someone runs make mutants); applies_to_work
# (tap.sh) checks each as scripts/mutants.sh applies it.  Skips when
# build/linux has no branch work (make tree).
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
for p in "$TOP"/tests/mutants/*.patch; do
	t "tests/mutants/$(basename "$p") applies to branch work" applies_to_work "$KSRC" "$p"
done
tap_done

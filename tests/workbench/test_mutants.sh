#!/usr/bin/env bash
# tests/mutants/*.patch must apply to branch work of build/linux, so that
# make mutants tests the series as it is (a mutant that no longer applies
# would only be found when someone runs make mutants).  Each is applied to
# a copy of the files it changes, taken from work; mutants.sh applies them
# the same way.  Skips when build/linux has no branch work (make tree).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
. "$HERE/tap.sh"

if ! git -C "$KSRC" rev-parse -q --verify work^{commit} >/dev/null 2>&1; then
	echo "1..0 # SKIP no branch work in $KSRC (make tree)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
applies() {
	local p=$1 d files
	d=$(mktemp -d -p "$tmp")
	files=$(sed -n 's|^+++ b/||p' "$p")
	[ -n "$files" ] || { echo "$p names no file"; return 1; }
	# shellcheck disable=SC2086
	git -C "$KSRC" archive work $files | tar -x -C "$d" &&
		(cd "$d" && git apply --check "$p")
}
for p in "$TOP"/tests/mutants/*.patch; do
	t "tests/mutants/$(basename "$p") applies to branch work" applies "$p"
done
tap_done

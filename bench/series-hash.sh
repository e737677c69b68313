#!/bin/sh
# bench/series-hash.sh [PATCHES_DIR]: the hash that names the series a
# results folder measured (metadata.json "series_hash"): sha256 of the
# patches in series order, without the cover letter, which quotes results.
set -e
dir=${1:-$(dirname "$0")/../patches}
[ -f "$dir/series" ] || { echo "series-hash.sh: no $dir/series" >&2; exit 1; }
grep -v '^0000-cover-letter' "$dir/series" | while read -r p; do cat "$dir/$p"; done |
	sha256sum | cut -c1-16

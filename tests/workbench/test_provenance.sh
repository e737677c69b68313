#!/usr/bin/env bash
# scripts/provenance.py on a stand-in repository: quotes of the folder in
# results/latest pass when it measured the series in patches/, and fail
# when the series changed since, when a quoted number is not in its report,
# or when a named results folder is missing.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
P=$HERE/../../scripts/provenance.py
. "$HERE/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=$tmp/repo
mkdir -p "$r/patches" "$r/cover" "$r/results/20260101T000000Z-uml"
printf 'cover\n' >"$r/patches/0000-cover-letter.patch"
printf 'diff one\n' >"$r/patches/0001-mm-one.patch"
printf '0001-mm-one.patch\n' >"$r/patches/series"
hash=$(cat "$r/patches/0001-mm-one.patch" | sha256sum | cut -c1-16)
printf '{"series_hash": "%s"}\n' "$hash" >"$r/results/20260101T000000Z-uml/metadata.json"
printf '| tmpfs | 16 B | 2 | 0.36 (0.30-0.55) | 2.75 (2.27-3.99) |\n' \
	>"$r/results/20260101T000000Z-uml/report.md"
echo 20260101T000000Z-uml >"$r/results/latest"
cat >"$r/README.md" <<'EOT'
# x
## Benchmarks
Base scales 0.36, patched/base 2.75 (results/20260101T000000Z-uml).
<!-- bench:begin -->
9.99 is generated, not checked here
<!-- bench:end -->
## Other
7.77 is outside the section.
EOT
printf 'subject\n\nNumbers\n-------\n\n@RESULTS@\n\nRatio 2.75.\n\nTesting\n-------\n\n8.88\n' \
	>"$r/cover/cover-letter.txt"

t "quotes of the current series' results pass" "$P" --top "$r"
t "the series hash ignores the cover letter" \
	bash -c "echo changed >'$r/patches/0000-cover-letter.patch' && '$P' --top '$r'"
cp "$r/README.md" "$tmp/README.good"
sed -i 's/patched\/base 2.75/patched\/base 2.76/' "$r/README.md"
t "a README number not in the report is named" \
	output_has "README.md: 2.76 is not in results/20260101T000000Z-uml/report.md" expect 1 "$P" --top "$r"
cp "$tmp/README.good" "$r/README.md"
sed -i 's/Ratio 2.75/Ratio 3.01/' "$r/cover/cover-letter.txt"
t "a cover letter number not in the report is named" \
	output_has "cover/cover-letter.txt: 3.01 is not in" expect 1 "$P" --top "$r"
sed -i 's/Ratio 3.01/Ratio 2.75/' "$r/cover/cover-letter.txt"
echo 'diff two' >>"$r/patches/0001-mm-one.patch"
t "results of an older series are stale" \
	output_has "measured series $hash, patches/ is" expect 1 "$P" --top "$r"
printf 'diff one\n' >"$r/patches/0001-mm-one.patch"
echo 'See results/20250101T000000Z-old.' >>"$r/README.md"
t "a results folder that does not exist is named" \
	output_has "names results/20250101T000000Z-old, which does not exist" expect 1 "$P" --top "$r"
sed -i '$d' "$r/README.md"
mkdir -p "$r/results/20260102T000000Z-readsizes" "$r/results/20260103T000000Z-uml"
printf '{"series_hash": "host"}\n' >"$r/results/20260102T000000Z-readsizes/metadata.json"
printf '{"series_hash": "0123456789abcdef"}\n' >"$r/results/20260103T000000Z-uml/metadata.json"
cp "$r/cover/cover-letter.txt" "$tmp/cover.good"
sed -i 's|Ratio 2.75.|Ratio 2.75; sizes in results/20260102T000000Z-readsizes.|' "$r/cover/cover-letter.txt"
t "a host-kernel measurement may be quoted with the numbers" "$P" --top "$r"
sed -i 's|Ratio 2.75;|Ratio 2.75, results/20260103T000000Z-uml;|' "$r/cover/cover-letter.txt"
t "another series' results quoted with the numbers are stale" \
	output_has "quotes results/20260103T000000Z-uml, measured on series 0123456789abcdef" expect 1 "$P" --top "$r"
cp "$tmp/cover.good" "$r/cover/cover-letter.txt"
tap_done

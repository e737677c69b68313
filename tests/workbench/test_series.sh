#!/usr/bin/env bash
# The series round trip on a small stand-in kernel tree: export, apply,
# re-export byte-identical; a patch that does not apply is named and stops
# `make tree`; hand edits that git am cannot reproduce are caught; unexported
# work is never thrown away.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
S=$HERE/../../scripts
. "$HERE/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BUILD=$tmp/build KSRC=$tmp/build/linux PATCHES=$tmp/patches SKIP_PACKAGE=1
export COVER=$tmp/cover.txt KFILES=$tmp/top
mkdir -p "$KFILES"
printf 'mm: a test series\n\nWhy this series.\n' >"$COVER"
mkdir -p "$KSRC/mm"
g() { git -C "$KSRC" "$@"; }
g init -q -b work
g config user.name "Test"
g config user.email "test@example.invalid"
printf 'int a;\nint b;\nint c;\n' >"$KSRC/mm/filemap.c"
g add -A
GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z g commit -q -m "Linux base"
g tag base
sed -i 's/int b;/int b = 1;/' "$KSRC/mm/filemap.c"
g commit -q -a -m "mm: first change" -m "Why it is needed."
printf 'int d;\n' >>"$KSRC/mm/filemap.c"
g commit -q -a -m "mm: second change" -m "Why this one is needed."

t "export writes the cover letter, two patches and series" \
	bash -c "'$S/export.sh' && test -f '$PATCHES/0000-cover-letter.patch' &&
		test \"\$(cat '$PATCHES/series')\" = \"0001-mm-first-change.patch
0002-mm-second-change.patch\""
t "the cover letter carries the maintained subject and text, and base-commit" \
	bash -c "grep -q 'Subject: \[RFC PATCH 0/2\] mm: a test series' '$PATCHES/0000-cover-letter.patch' &&
		grep -q '^Why this series.' '$PATCHES/0000-cover-letter.patch' &&
		grep -q \"^base-commit: \$(git -C '$KSRC' rev-parse base)\" '$PATCHES/0000-cover-letter.patch'"
t "patches carry no commit ids and no git version signature" \
	bash -c "grep -q '^From 0\{40\} ' '$PATCHES'/0001-*.patch && ! grep -q '^-- $' '$PATCHES'/0001-*.patch"
t "make tree applies the series onto work" \
	bash -c "'$S/tree.sh' && test \"\$(git -C '$KSRC' rev-list --count base..work)\" = 2"
t "re-export after apply is byte-identical" "$S/export.sh" --check
cp -a "$PATCHES" "$tmp/good"

sed -i 's/^ mm\/filemap.c | 2 +-/ mm\/filemap.c | 3 ++-/' "$PATCHES"/0001-*.patch
t "a hand-edited diffstat fails the round trip" \
	bash -c "'$S/tree.sh' >/dev/null 2>&1; ! '$S/export.sh' --check"

rm -rf "$PATCHES"
cp -a "$tmp/good" "$PATCHES"
sed -i 's/^+int b = 1;/+int b = 2;/; s/^-int b;/-int bb;/' "$PATCHES"/0001-*.patch
t "a patch that does not apply stops make tree and is named" \
	output_has "patch 1/2 0001-mm-first-change.patch does not apply" expect 1 "$S/tree.sh"

rm -rf "$PATCHES"
cp -a "$tmp/good" "$PATCHES"
"$S/tree.sh" >/dev/null 2>&1
printf 'int e;\n' >>"$KSRC/mm/filemap.c"
g commit -q -a -m "mm: unexported work"
t "unexported commits on work are not thrown away" \
	output_has "not exported" expect 1 "$S/tree.sh"
t "FORCE=1 discards them" bash -c "FORCE=1 '$S/tree.sh' && test \"\$(git -C '$KSRC' rev-list --count base..work)\" = 2"
t "a series file naming a missing patch is an error" \
	bash -c "echo 0003-missing.patch >>'$PATCHES/series'; '$S/tree.sh' 2>&1 | grep -q 'names 0003-missing.patch'"

rm -rf "$PATCHES"
cp -a "$tmp/good" "$PATCHES"
FORCE=1 "$S/tree.sh" >/dev/null 2>&1
printf 'int f;\n' >"$KSRC/mm/added.c"
g add mm/added.c
g commit -q -m "mm: add a file"
t "export writes the files the series adds at their kernel paths" \
	bash -c "'$S/export.sh' && cmp '$KFILES/mm/added.c' '$KSRC/mm/added.c' && test ! -e '$KFILES/mm/filemap.c'"
echo '// edited' >>"$KFILES/mm/added.c"
t "a generated file edited by hand fails the round trip" \
	output_has "mm/ is not what the series adds" expect 1 "$S/export.sh" --check
tap_done

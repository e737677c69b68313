#!/usr/bin/env bash
# make sync-selftests: put this repository's tools/testing/selftests/pagecache
# (the one copy that is edited) into the series: the commit on branch `work`
# whose subject starts with "selftests/pagecache: add" is amended with it
# (created as the first patch, with TARGETS wiring, when missing).  Then run
# `make export`.  `make check` fails while the two copies differ.
#
#   sync-selftests.sh           update the series' copy
#   sync-selftests.sh --check   only compare the two copies
. "$(dirname "$0")/lib.sh"

REL=tools/testing/selftests/pagecache
SUBJECT="selftests/pagecache: add page cache read tests"

compare() {
	local out
	out=$(diff -r "$TOP/$REL" "$KSRC/$REL" 2>&1) || {
		printf '%s\n' "$out" | head -20 >&2
		die "$REL differs between this repository and the series (run 'make sync-selftests && make export')"
	}
	grep -q '^TARGETS += pagecache$' "$KSRC/tools/testing/selftests/Makefile" ||
		die "the series does not add pagecache to tools/testing/selftests/Makefile TARGETS"
	note "$REL: repository copy and series copy agree"
}

if [ "${1:-}" = --check ]; then
	compare
	exit 0
fi

[ -z "$(kgit status --porcelain --untracked-files=no)" ] || die "$KSRC has uncommitted changes"
kgit checkout -q "$WORK_BRANCH"
c=$(kgit log --format=%H --grep="^$SUBJECT" "$BASE_TAG..$WORK_BRANCH" | tail -1)
copy() {
	local f
	rm -rf "${KSRC:?}/$REL"
	# The suite's files, without build products (.gitignore keeps them out).
	git -C "$TOP" ls-files --cached --others --exclude-standard -- "$REL" | while read -r f; do
		mkdir -p "$KSRC/$(dirname "$f")"
		cp "$TOP/$f" "$KSRC/$f"
	done
	kgit add -f -A "$REL"
}
if [ -z "$c" ]; then
	# First patch of the series: the tests run on the base kernel too.
	tip=$(kgit rev-parse "$WORK_BRANCH")
	kgit checkout -q --detach "$BASE_TAG"
	copy
	sed -i 's/^TARGETS += perf_events$/TARGETS += pagecache\nTARGETS += perf_events/' \
		"$KSRC/tools/testing/selftests/Makefile"
	kgit add -f tools/testing/selftests/Makefile
	kgit commit -q -F "$TOP/cover/selftests-commit-message.txt"
	new=$(kgit rev-parse HEAD)
	kgit checkout -q "$WORK_BRANCH"
	kgit rebase -q --onto "$new" "$BASE_TAG" "$WORK_BRANCH"
	[ "$(kgit rev-parse "$WORK_BRANCH")" != "$tip" ]
	note "added '$SUBJECT' as patch 1"
else
	copy
	if kgit diff --cached --quiet; then
		note "series copy already up to date"
	else
		kgit commit -q --fixup="$c"
		GIT_SEQUENCE_EDITOR=: kgit rebase -q -i --autosquash "$BASE_TAG"
		note "amended $(kgit log -1 --format=%h "$c") $SUBJECT"
	fi
fi
compare

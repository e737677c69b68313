#!/usr/bin/env bash
# make sync-selftests: put this repository's tools/testing/selftests/pagecache
# (the one copy that is edited) into the series: the commit on branch `work`
# whose subject starts with "selftests/pagecache: add" is amended with it
# (created as the last patch, with TARGETS wiring, when missing).  Then run
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
	# Last patch of the series: it tests what the series adds.
	copy
	grep -q '^TARGETS += pagecache$' "$KSRC/tools/testing/selftests/Makefile" ||
		sed -i 's/^TARGETS += perf_events$/TARGETS += pagecache\nTARGETS += perf_events/' \
			"$KSRC/tools/testing/selftests/Makefile"
	kgit add -f tools/testing/selftests/Makefile
	kgit commit -q -F "$TOP/cover/selftests-commit-message.txt"
	note "added '$SUBJECT' as the last patch"
else
	copy
	msg=$(kgit log -1 --format=%B "$c")
	if kgit diff --cached --quiet && [ "$msg" = "$(cat "$TOP/cover/selftests-commit-message.txt")" ]; then
		note "series copy already up to date"
	else
		# amend! carries both the files and the message into the commit.
		ed=$(mktemp)
		trap 'rm -f "$ed"' EXIT
		printf '#!/bin/sh\n{ echo "amend! %s"; echo; cat "%s"; } >"$1"\n' \
			"$SUBJECT" "$TOP/cover/selftests-commit-message.txt" >"$ed"
		chmod +x "$ed"
		GIT_EDITOR=$ed kgit commit -q --allow-empty --fixup=amend:"$c"
		GIT_SEQUENCE_EDITOR=: kgit rebase -q -i --autosquash "$BASE_TAG"
		note "amended $(kgit log -1 --format=%h --grep="^$SUBJECT" "$BASE_TAG..$WORK_BRANCH") $SUBJECT"
	fi
fi
compare

#!/usr/bin/env bash
# make sync: put the folders that this repository keeps at their kernel
# paths (the one copy that is edited) into the series.  Each folder has its
# own commit on branch `work`, found by subject, whose files and message
# (from cover/) are replaced; a missing one is created as the last patch.
# Then run `make export`.  `make check` fails while any copy differs.
#
#   sync.sh           update the series' copies
#   sync.sh --check   only compare the copies
. "$(dirname "$0")/lib.sh"

# folder | subject of its commit | message file | wiring
ENTRIES=(
	"tools/testing/pagecache-model|tools/testing: add a userspace model of the lockless page cache read|cover/model-commit-message.txt|"
	"tools/testing/selftests/pagecache|selftests/pagecache: add page cache read tests|cover/selftests-commit-message.txt|selftests"
)

compare() {
	local out
	out=$(diff -r "$TOP/$REL" "$KSRC/$REL" 2>&1) || {
		printf '%s\n' "$out" | head -20 >&2
		die "$REL differs between this repository and the series (run 'make sync && make export')"
	}
	if [ "$WIRE" = selftests ]; then
		grep -q '^TARGETS += pagecache$' "$KSRC/tools/testing/selftests/Makefile" ||
			die "the series does not add pagecache to tools/testing/selftests/Makefile TARGETS"
	fi
	note "$REL: repository copy and series copy agree"
}

copy() {
	local f
	rm -rf "${KSRC:?}/$REL"
	# The folder's files, without build products (.gitignore keeps them out).
	git -C "$TOP" ls-files --cached --others --exclude-standard -- "$REL" | while read -r f; do
		mkdir -p "$KSRC/$(dirname "$f")"
		cp -p "$TOP/$f" "$KSRC/$f"
	done
	kgit add -f -A "$REL"
}

sync_one() {
	local c msg ed
	[ -d "$TOP/$REL" ] || die "$REL: no such folder in this repository"
	[ -f "$TOP/$MSG" ] || die "$MSG: no commit message for $REL"
	c=$(kgit log --format=%H --grep="^$SUBJECT\$" "$BASE_TAG..$WORK_BRANCH" | tail -1)
	copy
	if [ -z "$c" ]; then
		if [ "$WIRE" = selftests ]; then
			# In the alphabetical TARGETS list: before the first
			# target that sorts after it (pci_endpoint in 7.3).
			grep -q '^TARGETS += pagecache$' "$KSRC/tools/testing/selftests/Makefile" ||
				awk '!done && /^TARGETS \+= / && $3 > "pagecache" {
					print "TARGETS += pagecache"; done = 1 } { print }' \
					"$KSRC/tools/testing/selftests/Makefile" >"$KSRC/tools/testing/selftests/Makefile.new" &&
				mv "$KSRC/tools/testing/selftests/Makefile.new" "$KSRC/tools/testing/selftests/Makefile"
			grep -q '^TARGETS += pagecache$' "$KSRC/tools/testing/selftests/Makefile" ||
				die "could not add pagecache to tools/testing/selftests/Makefile TARGETS"
			kgit add -f tools/testing/selftests/Makefile
		fi
		# The series has one author: the submitter's placeholder of patch 1.
		kgit commit -q -F "$TOP/$MSG" --author="$(kgit log -1 --format='%an <%ae>' \
			"$(kgit rev-list --reverse "$BASE_TAG..$WORK_BRANCH" | head -1)")"
		note "added '$SUBJECT' as the last patch"
		return
	fi
	msg=$(kgit log -1 --format=%B "$c")
	if kgit diff --cached --quiet && [ "$msg" = "$(cat "$TOP/$MSG")" ]; then
		note "$REL: series copy already up to date"
		return
	fi
	# amend! carries both the files and the message into the commit.
	ed=$(mktemp)
	# shellcheck disable=SC2016 # "$1" belongs to the editor script
	printf '#!/bin/sh\n{ echo "amend! %s"; echo; cat "%s"; } >"$1"\n' \
		"$SUBJECT" "$TOP/$MSG" >"$ed"
	chmod +x "$ed"
	GIT_EDITOR=$ed kgit commit -q --allow-empty --fixup=amend:"$c" \
		--author="$(kgit log -1 --format='%an <%ae>' "$c")"
	rm -f "$ed"
	GIT_SEQUENCE_EDITOR=: kgit rebase -q -i --autosquash "$BASE_TAG"
	note "amended $(kgit log -1 --format=%h --grep="^$SUBJECT\$" "$BASE_TAG..$WORK_BRANCH") $SUBJECT"
}

# The lines the series adds to MAINTAINERS, under their section names.
maintainers_fragment() {
	echo "# The lines the series adds to MAINTAINERS, by section.  Generated from"
	echo "# the series by 'make sync'; edit MAINTAINERS in the series instead."
	kgit show "$WORK_BRANCH:MAINTAINERS" | python3 -c '
import sys
added = set(sys.argv[1].splitlines())
section, prev_blank, last = None, True, None
for line in sys.stdin.read().splitlines():
    if not line:
        prev_blank = True
        continue
    if prev_blank and not (len(line) > 2 and line[1] == ":" and line[2] == "\t"):
        section = line
    prev_blank = False
    if line in added:
        if section != last:
            print()
            print(section)
            last = section
        print(line)
' "$(kgit diff "$BASE_TAG" "$WORK_BRANCH" -- MAINTAINERS | sed -n 's/^+\([A-Z]:\t\)/\1/p')"
}

check=0
[ "${1:-}" = --check ] && check=1
if [ $check = 0 ]; then
	[ -z "$(kgit status --porcelain --untracked-files=no)" ] || die "$KSRC has uncommitted changes"
	kgit checkout -q "$WORK_BRANCH"
fi
for e in "${ENTRIES[@]}"; do
	IFS='|' read -r REL SUBJECT MSG WIRE <<<"$e"
	[ $check = 1 ] || sync_one
	compare
done
if [ $check = 1 ]; then
	maintainers_fragment | diff -u "$TOP/MAINTAINERS.fragment" - >&2 ||
		die "MAINTAINERS.fragment differs from the series (run 'make sync')"
else
	maintainers_fragment >"$TOP/MAINTAINERS.fragment"
fi
note "MAINTAINERS.fragment: matches the series"

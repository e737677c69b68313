#!/usr/bin/env bash
# make export: write branch `work` of build/linux back to patches/ as the
# series would be posted: git format-patch output with a cover letter (its
# subject and text from cover/cover-letter.txt), a base-commit: line, and
# patches/series listing the patches in order for `make tree`.
#
# The output is a function of the commits alone: no commit ids (--zero-commit),
# fixed abbreviation, no git version signature, the user's git configuration
# ignored, the cover letter dated and signed as the newest commit.
#
#   export.sh            rewrite patches/
#   export.sh --check    export into a scratch folder and fail if it differs
#                        from patches/ (make check: nobody hand-edits patches)
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
COVER=${COVER:-$TOP/cover/cover-letter.txt}
# b4's change-id: one per series, the same in every version of it.
CHANGE_ID=20261129-pagecache-rcu-5e0c3a9d71b2
SUBJECT_PREFIX=${SUBJECT_PREFIX:-RFC PATCH}
mode=${1:-write}

[ -d "$KSRC/.git" ] || die "no kernel tree at $KSRC (run 'make tree')"
kgit rev-parse -q --verify "refs/heads/$WORK_BRANCH" >/dev/null || die "no branch $WORK_BRANCH in $KSRC"
[ -f "$COVER" ] || die "$COVER is missing"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

base=$(kgit rev-parse "$BASE_TAG^{commit}")
tip=$(kgit rev-parse "$WORK_BRANCH")
n=$(kgit rev-list --count "$base..$tip")

if [ "$n" -gt 0 ]; then
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	GIT_COMMITTER_NAME=$(kgit log -1 --format=%an "$tip") \
	GIT_COMMITTER_EMAIL=$(kgit log -1 --format=%ae "$tip") \
	GIT_COMMITTER_DATE=$(kgit log -1 --format=%ad --date=raw "$tip") \
		kgit -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicprefix=false \
		format-patch -q --cover-letter --base="$base" --zero-commit --no-signature \
		--subject-prefix="$SUBJECT_PREFIX" --abbrev=12 -o "$out" "$base..$tip"
	cl=$out/0000-cover-letter.patch
	subject=$(head -1 "$COVER")
	# Replace git's placeholders with the maintained cover text.
	# The numbers block (@RESULTS@) comes from the results folder named in
	# results/latest, so every number in the cover letter can be traced.
	"$TOP/bench/cover-summary.py" >"$out/results.txt"
	python3 - "$cl" "$COVER" "$subject" "$out/results.txt" "$CHANGE_ID" <<'PY'
import sys
path, cover, subject, results, change_id = sys.argv[1:]
text = open(cover).read().split("\n", 1)
blurb = text[1].strip("\n") if len(text) > 1 else ""
blurb = blurb.replace("@RESULTS@", open(results).read().strip("\n"))
s = open(path).read()
if "*** SUBJECT HERE ***" not in s or "*** BLURB HERE ***" not in s:
    sys.exit("export: git's cover letter placeholders not found")
s = s.replace("*** SUBJECT HERE ***", subject, 1).replace("*** BLURB HERE ***", blurb, 1)
if "\nbase-commit: " not in s:
    sys.exit("export: no base-commit: line in the cover letter")
s = s.replace("\nbase-commit: ", "\nchange-id: %s\nbase-commit: " % change_id, 1)
open(path, "w").write(s)
PY
	rm -f "$out/results.txt"
fi
(cd "$out" && ls | grep -E '^[0-9]{4}-.*\.patch$' | grep -v '^0000-cover-letter' || true) >"$out/series"

case "$mode" in
write)
	mkdir -p "$PATCHES"
	rm -f "$PATCHES"/*.patch
	cp "$out"/* "$PATCHES"/
	kgit update-ref "$APPLIED_REF" "$tip"
	note "exported $n patch(es) to $PATCHES"
	;;
--check)
	if ! diff -r -q "$out" "$PATCHES" >/dev/null 2>&1; then
		diff -r -u "$PATCHES" "$out" | head -40 >&2 || true
		die "patches/ is not what 'make export' writes from the applied series (hand-edited, or not re-exported)"
	fi
	note "patches/ round trip: $n patch(es) re-export byte-identical"
	;;
*) die "usage: export.sh [--check]" ;;
esac

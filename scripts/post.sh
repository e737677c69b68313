#!/usr/bin/env bash
# make send-check / make send: mail patches/ the way a submitter would.
#
# 1. Copy patches/ to build/post/ and add the submitter's Signed-off-by:
#    (from `git config user.name/user.email` of this repository, or
#    POST_NAME/POST_EMAIL) after the Assisted-by: tag of every patch: the
#    assistant never signs off (Documentation/process/coding-assistants.rst).
# 2. Compute To/Cc per patch with scripts/get_maintainer.pl on the applied
#    tree (build/linux): lists go to To:, people to Cc:; the cover letter
#    goes to everybody any patch goes to.  One address per line: no roles,
#    and no "SUBSYSTEM status: ..." lines (7.3's get_maintainer.pl adds
#    them for subsystems that are not Maintained when it shows roles on a
#    terminal; --no-substatus keeps them out whatever the defaults).
# 3. git send-email --dry-run (make send-check; nothing is sent, no SMTP
#    server is needed) or for real (make send, SEND=1; asks first).
#
# send-check with no git identity uses a placeholder submitter, so that
# the check runs anywhere; make send refuses to.
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/post
mode=${1:-check}

name=${POST_NAME:-$(git -C "$TOP" config user.name || true)}
email=${POST_EMAIL:-$(git -C "$TOP" config user.email || true)}
if [ -z "$name" ] || [ -z "$email" ]; then
	[ "$mode" = check ] || die "no submitter identity: set git config user.name and user.email (or POST_NAME/POST_EMAIL)"
	name="Patch Submitter" email="submitter@example.invalid"
	note "post: no git identity here; the dry run signs off as $name <$email>"
fi
command -v git-send-email >/dev/null || [ -x "$(git --exec-path)/git-send-email" ] ||
	die "git send-email is missing (Debian package git-email; make deps installs it)"
[ -d "$KSRC/.git" ] || die "no kernel tree in $KSRC (run make tree)"
mapfile -t patches < <(cd "$TOP/patches" && ls 0*.patch)
[ ${#patches[@]} -gt 1 ] || die "no patches in patches/"

rm -rf "$OUT"
mkdir -p "$OUT"
sob="Signed-off-by: $name <$email>"
author=$(kgit log -1 --format='From: %an <%ae>' "$WORK_BRANCH")
for p in "${patches[@]}"; do
	if [ "$p" = 0000-cover-letter.patch ]; then
		awk -v from="From: $name <$email>" -v author="$author" '
			!hdr_done && $0 == author { print from; next }
			!hdr_done && /^$/ { hdr_done = 1 }
			{ print }
		' "$TOP/patches/$p" >"$OUT/$p"
		continue
	fi
	# The series' author placeholder is the submitter; the sign-off goes
	# right after Assisted-by:, before the --- line.
	awk -v sob="$sob" -v from="From: $name <$email>" -v author="$author" '
		!hdr_done && $0 == author { print from; next }
		!hdr_done && /^$/ { hdr_done = 1 }
		!done && /^Assisted-by: / { print; print sob; done = 1; next }
		!done && /^---$/ { print sob; done = 1 }
		{ print }
	' "$TOP/patches/$p" >"$OUT/$p"
	grep -qxF "$sob" "$OUT/$p" || die "$p: could not add the sign-off"
done

# Recipients.
for p in "${patches[@]}"; do
	[ "$p" = 0000-cover-letter.patch ] && continue
	(cd "$KSRC" && ./scripts/get_maintainer.pl --no-rolestats --no-substatus \
		--no-git --no-git-fallback "$OUT/$p") >"$OUT/$p.recipients" ||
		die "get_maintainer.pl failed on $p"
	[ -s "$OUT/$p.recipients" ] || die "get_maintainer.pl found nobody for $p"
done
cat "$OUT"/*.recipients | sort -u >"$OUT/all.recipients"
grep -v '<' "$OUT/all.recipients" >"$OUT/lists" || true
grep -vxFf "$OUT/lists" "$OUT/all.recipients" >"$OUT/people" || true
note "post: lists: $(paste -sd, "$OUT/lists")"
note "post: people: $(paste -sd, "$OUT/people")"

# Each list and person gets the patches get_maintainer.pl names them for
# (lists in To:, people in Cc:), and the cover letter.
cat >"$OUT/cc-cmd" <<EOF
#!/bin/sh
case "\$(basename "\$1")" in
0000-cover-letter.patch) cat "$OUT/people" ;;
*) grep -vxFf "$OUT/lists" "\$1.recipients" || true ;;
esac
EOF
cat >"$OUT/to-cmd" <<EOF
#!/bin/sh
case "\$(basename "\$1")" in
0000-cover-letter.patch) cat "$OUT/lists" ;;
*) grep -v '<' "\$1.recipients" || true ;;
esac
EOF
chmod +x "$OUT/cc-cmd" "$OUT/to-cmd"
args=(--confirm=never --suppress-cc=self --no-chain-reply-to --thread
	--from="$name <$email>" --8bit-encoding=UTF-8
	--to-cmd="$OUT/to-cmd" --cc-cmd="$OUT/cc-cmd")
case "$mode" in
check)
	git -C "$TOP" -c sendemail.smtpserver=/bin/false send-email --dry-run "${args[@]}" \
		"${patches[@]/#/$OUT/}" >"$OUT/send-email.log" 2>&1 ||
		{ tail -20 "$OUT/send-email.log" >&2; die "git send-email --dry-run failed ($OUT/send-email.log)"; }
	sent=$(grep -c '^Dry-OK\. Log says:' "$OUT/send-email.log" || true)
	[ "$sent" = ${#patches[@]} ] ||
		die "send-email --dry-run handled $sent of ${#patches[@]} messages ($OUT/send-email.log)"
	note "post: send-email --dry-run: ${#patches[@]} messages OK, nothing sent ($OUT/send-email.log)"
	;;
send)
	read -r -p "Send ${#patches[@]} messages as $name <$email>? [y/N] " a
	[ "$a" = y ] || die "not sent"
	git -C "$TOP" send-email "${args[@]}" "${patches[@]/#/$OUT/}"
	;;
*) die "usage: post.sh [check|send]" ;;
esac

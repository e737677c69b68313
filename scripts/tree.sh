#!/usr/bin/env bash
# make tree: fetch Debian's linux-source-7.3 at the version lib.sh pins,
# unpack it once into build/linux as a git repository whose first commit is
# tagged `base`, and apply patches/ (in the order of patches/series) with
# git am onto branch `work`.  Cached: a second run resets the work tree
# instead of re-unpacking.
#
# Refuses to throw away work: if branch `work` has commits that were never
# exported (it differs from the last applied or exported state), it stops
# unless FORCE=1.
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}

# The package's tarball.  Debian 12 has no linux-source-7.3: it comes from
# trixie-backports through a private apt configuration under build/cache/apt
# (its own sources.list, lists and cache, passed with -o), so the system's
# sources and state stay as they are.  The index is verified against
# Debian's archive keyring (signed-by), and apt checks the .deb against it.
# The pinned $BASE_PKG_VERSION is taken when the archive still has it; else
# the newest 7.3.y, with a loud warning.  The version used is written to
# build/base.env and into the base commit's subject.
TARBALL=
APT_DIR=$BUILD/cache/apt
base_tarball() {
	local cache deb v known
	[ -f "$BASE_KEYRING" ] || die "$BASE_KEYRING is missing (apt-get install debian-archive-keyring)"
	# A tarball fetched before, of the pinned version or (recorded) fallback.
	for v in "$BASE_PKG_VERSION" "$(sed -n 's/^BASE_PKG_VERSION_USED=//p' "$BUILD/base.env" 2>/dev/null)"; do
		[ -n "$v" ] && [ -f "$BUILD/cache/${BASE_PKG}_$v/$BASE_PKG.tar.xz" ] || continue
		TARBALL=$BUILD/cache/${BASE_PKG}_$v/$BASE_PKG.tar.xz
		USED_VERSION=$v
		note "base: $BASE_PKG $v (cached in ${TARBALL%/*})"
		[ "$v" = "$BASE_PKG_VERSION" ] || fallback_banner "$v"
		return 0
	done
	apt_private "$APT_DIR" "deb [signed-by=$BASE_KEYRING] $(debian_mirror) $BASE_SUITE main"
	note "base: apt-get update of $BASE_SUITE (private lists in $APT_DIR)"
	apt-get "${APT_OPTS[@]}" -q update >"$APT_DIR/update.log" 2>&1 ||
		{ tail -5 "$APT_DIR/update.log" >&2; die "apt-get update of $BASE_SUITE failed (see $APT_DIR/update.log)"; }
	grep -qE '^(W|E): .*(NO_PUBKEY|not signed|Signature|InRelease)' "$APT_DIR/update.log" &&
		{ tail -5 "$APT_DIR/update.log" >&2; die "the $BASE_SUITE index could not be verified"; }
	known=$(apt-cache "${APT_OPTS[@]}" madison "$BASE_PKG" 2>/dev/null | awk '{print $3}')
	[ -n "$known" ] || die "$BASE_SUITE has no $BASE_PKG (see $APT_DIR/update.log)"
	if grep -qxF "$BASE_PKG_VERSION" <<<"$known"; then
		USED_VERSION=$BASE_PKG_VERSION
	else
		USED_VERSION=$(sort -V <<<"$known" | grep -E '^7\.3\.' | tail -1)
		[ -n "$USED_VERSION" ] || die "$BASE_SUITE has no 7.3.y $BASE_PKG (it has: $(echo $known))"
		fallback_banner "$USED_VERSION"
	fi
	cache=$BUILD/cache/${BASE_PKG}_$USED_VERSION
	mkdir -p "$cache"
	TARBALL=$cache/$BASE_PKG.tar.xz
	note "base: apt-get download $BASE_PKG=$USED_VERSION"
	(cd "$cache" && apt-get "${APT_OPTS[@]}" -q download "$BASE_PKG=$USED_VERSION") >&2 ||
		die "apt-get download $BASE_PKG=$USED_VERSION failed"
	deb=$(ls "$cache"/"${BASE_PKG}"_*.deb)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$BASE_PKG.tar.xz" >"$TARBALL.tmp" ||
		die "$deb has no usr/src/$BASE_PKG.tar.xz"
	mv "$TARBALL.tmp" "$TARBALL"
	rm -f "$deb"
	note "base: $BASE_PKG $USED_VERSION (fetched into $cache)"
}

fallback_banner() {
	{
		echo "######################################################################"
		echo "# WARNING: $BASE_PKG $BASE_PKG_VERSION (the pinned base) is not in"
		echo "# $BASE_SUITE any more; using $1 instead.  The series may not"
		echo "# apply, and base-commit: will differ from patches/.  Rebase and set"
		echo "# BASE_PKG_VERSION in scripts/lib.sh."
		echo "######################################################################"
	} >&2
}

base_subject() {
	local sub
	sub=$(tar -xOJf "$TARBALL" "$BASE_PKG/Makefile" 2>/dev/null | head -5 |
		awk -F' = ' '/^VERSION/{v=$2} /^PATCHLEVEL/{p=$2} /^SUBLEVEL/{s=$2} END{print v"."p"."s}')
	printf 'Linux %s (Debian %s %s)' "$sub" "$BASE_PKG" "$USED_VERSION"
}

unpack_base() {
	local subject tmp
	subject=$(base_subject)
	if [ -d "$KSRC/.git" ] && kgit rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null &&
		[ "$(kgit log -1 --format=%s "$BASE_TAG")" = "$subject" ]; then
		note "base tree cached: $KSRC ($(kgit rev-parse --short=12 "$BASE_TAG"))"
		return 0
	fi
	note "unpacking $TARBALL into $KSRC"
	rm -rf "$KSRC"
	tmp=$KSRC.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xJf "$TARBALL" --strip-components=1 -C "$tmp"
	git -C "$tmp" init -q -b "$WORK_BRANCH"
	git -C "$tmp" config user.name "pagecache-rcu workbench"
	git -C "$tmp" config user.email "workbench@pagecache-rcu.invalid"
	git -C "$tmp" config core.abbrev 12
	# Add everything, including files the kernel's .gitignore names (the
	# tarball ships some), so the base is exactly the package.
	git -C "$tmp" add -A -f
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE \
		git -C "$tmp" commit -q -m "$subject"
	git -C "$tmp" tag "$BASE_TAG"
	mv "$tmp" "$KSRC"
	note "base commit: $(kgit rev-parse "$BASE_TAG") \"$subject\""
}

check_unexported() {
	local head applied
	kgit rev-parse -q --verify "refs/heads/$WORK_BRANCH" >/dev/null || return 0
	head=$(kgit rev-parse "$WORK_BRANCH")
	applied=$(kgit rev-parse -q --verify "$APPLIED_REF" || kgit rev-parse "$BASE_TAG")
	if [ "$head" != "$applied" ] && [ "${FORCE:-0}" != 1 ]; then
		die "branch $WORK_BRANCH in $KSRC has commits not exported to patches/ (run 'make export', or FORCE=1 make tree to discard them)"
	fi
	if [ -n "$(kgit status --porcelain --untracked-files=no)" ] && [ "${FORCE:-0}" != 1 ]; then
		die "$KSRC has uncommitted changes (commit and 'make export' them, or FORCE=1 make tree to discard them)"
	fi
}

apply_series() {
	local p n=0 total
	[ -f "$PATCHES/series" ] || die "$PATCHES/series is missing"
	total=$(grep -cv '^\s*\(#\|$\)' "$PATCHES/series" || true)
	kgit am --abort >/dev/null 2>&1 || true
	kgit checkout -q -f -B "$WORK_BRANCH" "$BASE_TAG"
	kgit clean -q -fdx
	kgit update-ref "$APPLIED_REF" HEAD
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		n=$((n + 1))
		[ -f "$PATCHES/$p" ] || die "patches/series names $p, which is not in patches/"
		if ! kgit am -q --committer-date-is-author-date "$PATCHES/$p" >"$BUILD/am.log" 2>&1; then
			kgit am --abort >/dev/null 2>&1 || true
			sed -n '1,20p' "$BUILD/am.log" >&2
			die "patch $n/$total $p does not apply to $(kgit log -1 --format=%s HEAD)"
		fi
		note "applied $n/$total $p"
	done <"$PATCHES/series"
	kgit update-ref "$APPLIED_REF" HEAD
	note "work branch: $total patch(es) on $BASE_TAG, HEAD $(kgit rev-parse --short=12 HEAD)"
}

mkdir -p "$BUILD"
if [ "${SKIP_PACKAGE:-0}" != 1 ]; then
	base_tarball
	unpack_base
	printf 'BASE_PKG=%s\nBASE_PKG_VERSION_USED=%s\nBASE_COMMIT=%s\nBASE_SUBJECT=%s\n' \
		"$BASE_PKG" "$USED_VERSION" "$(kgit rev-parse "$BASE_TAG^{commit}")" \
		"$(kgit log -1 --format=%s "$BASE_TAG")" >"$BUILD/base.env"
fi
check_unexported
apply_series

#!/usr/bin/env bash
# make tree: fetch Debian's linux-source-6.12 at the version lib.sh pins,
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

# The package's tarball, of exactly $BASE_PKG_VERSION.  Debian's archive moves
# on to newer versions (6.12.118 replaced 6.12.117 as the candidate), so do
# not take whatever is installed: use /usr/src only when the installed
# package is the pinned version, else fetch that version's .deb with
# `apt-get download` (apt checks it against the signed index) and keep its
# tarball under build/cache.
TARBALL=
base_tarball() {
	local v cache deb
	v=$(dpkg-query -W -f='${Status} ${Version}' "$BASE_PKG" 2>/dev/null || true)
	if [ "$v" = "install ok installed $BASE_PKG_VERSION" ] &&
		[ -f "/usr/src/$BASE_PKG.tar.xz" ]; then
		TARBALL=/usr/src/$BASE_PKG.tar.xz
		note "base: $BASE_PKG $BASE_PKG_VERSION (installed)"
		return 0
	fi
	cache=$BUILD/cache/${BASE_PKG}_$BASE_PKG_VERSION
	TARBALL=$cache/$BASE_PKG.tar.xz
	if [ -f "$TARBALL" ]; then
		note "base: $BASE_PKG $BASE_PKG_VERSION (cached in $cache)"
		return 0
	fi
	mkdir -p "$cache"
	note "fetching $BASE_PKG=$BASE_PKG_VERSION with apt-get download${v:+ (installed: ${v##* })}"
	fetch() { (cd "$cache" && apt-get download -q "$BASE_PKG=$BASE_PKG_VERSION") >&2; }
	if ! fetch 2>/dev/null; then
		[ "$(id -u)" = 0 ] && apt-get update -qq >&2 && fetch ||
			die "cannot fetch $BASE_PKG=$BASE_PKG_VERSION with apt-get download (versions apt knows: $(apt-cache madison "$BASE_PKG" 2>/dev/null | awk '{printf "%s ", $3}')); if the archive no longer has it, rebase the series and set BASE_PKG_VERSION in scripts/lib.sh"
	fi
	deb=$(ls "$cache"/"${BASE_PKG}"_*.deb)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$BASE_PKG.tar.xz" >"$TARBALL.tmp" ||
		die "$deb has no usr/src/$BASE_PKG.tar.xz"
	mv "$TARBALL.tmp" "$TARBALL"
	rm -f "$deb"
	note "base: $BASE_PKG $BASE_PKG_VERSION (fetched into $cache)"
}

base_subject() {
	local sub
	sub=$(tar -xOJf "$TARBALL" "$BASE_PKG/Makefile" 2>/dev/null | head -5 |
		awk -F' = ' '/^VERSION/{v=$2} /^PATCHLEVEL/{p=$2} /^SUBLEVEL/{s=$2} END{print v"."p"."s}')
	printf 'Linux %s (Debian %s %s)' "$sub" "$BASE_PKG" "$BASE_PKG_VERSION"
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
fi
check_unexported
apply_series

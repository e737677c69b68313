#!/usr/bin/env bash
# make lint: the checks a maintainer runs before reading a series, at every
# patch boundary of branch `work`, reported per patch:
#
#   checkpatch  scripts/checkpatch.pl --strict on the commit.  Every finding
#               must be listed in lint/checkpatch-allowed.txt (patch subject,
#               checkpatch type, reason); an unlisted one fails the patch.
#               MISSING_SIGN_OFF is not checked: the submitter adds the
#               sign-off when posting (Documentation/process/coding-assistants.rst).
#   sparse      C=2 on the series' C files (every boundary builds the same
#               set, so header changes are covered), x86_64 guest config
#               with the series' options and its KUnit test on
#               (olddefconfig_series);
#               warnings the base does not have fail the patch.  7.3's
#               Makefile drops C=2 with only a make message when sparse
#               cannot parse __typeof_unqual__ (scripts/checker-valid.sh;
#               Debian 12's sparse 0.6.4 cannot), so scripts/sparse.sh
#               builds Debian's sparse 0.6.5~rc1 from source when needed;
#               if no valid sparse can be had, every patch fails with
#               "sparse NOT RUN" instead of passing unchecked.
#               SPARSE=/path/to/sparse uses another build of it.
#   i386        ARCH=i386 W=1 build of the same objects (PAGECACHE_RCU_FREE
#               depends on 64BIT: this proves the code compiles out there);
#               new warnings fail the patch.
#   option off  at the tip only: x86_64 W=1 with PAGECACHE_RCU_FREE=n.
#   docs        at the tip only: every .rst the series adds parses
#               with docutils without a warning (the toctree that lists it
#               needs Sphinx), and scripts/kernel-doc -Wall
#               reports nothing new on the series' C files and headers.
#               (7.3's kernel-doc is the Python one, tools/docs/kernel-doc:
#               "Warning: FILE:LINE text", no colon after the line number.)
#
# The W=1 x86_64 build of each boundary is scripts/boundaries.sh.
. "$(dirname "$0")/lib.sh"
lock_worktree

ALLOW=$TOP/lint/checkpatch-allowed.txt
LOGS=$BUILD/lint
JOBS=${JOBS:-$(nproc)}
SPARSE=${SPARSE:-$("$TOP/scripts/sparse.sh" || echo sparse)}
SP=$BUILD/obj/guest-sparse
I386=$BUILD/obj/i386
NOCFG=$BUILD/obj/guest-nocfg
mkdir -p "$LOGS"

base=$(kgit rev-parse "$BASE_TAG^{commit}")
mapfile -t commits < <(kgit rev-list --reverse "$base..$WORK_BRANCH")
n=${#commits[@]}
[ "$n" -gt 0 ] || { note "lint: no patches"; exit 0; }
[ -f "$BUILD/obj/guest/.config" ] || die "no configured guest object dir (run make build first)"

# The C files of the kernel proper that the series touches (at the tip).
mapfile -t cfiles < <(kgit diff --name-only "$base" "$WORK_BRANCH" -- '*.c' |
	grep -vE '^(tools|Documentation|samples)/' | sort -u)
# obj_sym MAKEFILE OBJ: the CONFIG_ symbol that builds OBJ in MAKEFILE, or
# nothing if it is always built: obj-$(CONFIG_X) += file.o, or a list
# such as memory-hotplug-$(CONFIG_X) += file.o, or a composite object
# (fuse-y := dev.o ..., then obj-$(CONFIG_X) += fuse.o).
obj_sym() {
	local mk=$1 o=$2 line sym comp
	line=$(grep -hE "^[a-z0-9_-]+-(\\$\(CONFIG_[A-Z0-9_]+\)|y|objs)[[:space:]]*[:+]?=[^#]*\b$o\b" "$mk" | head -1 || true)
	[ -n "$line" ] || return 0
	sym=$(printf '%s\n' "$line" | grep -oE '^[a-z0-9_-]+-\$\(CONFIG_[A-Z0-9_]+\)' |
		sed -E 's/.*\$\((CONFIG_[A-Z0-9_]+)\)/\1/' || true)
	if [ -n "$sym" ]; then
		echo "$sym"
		return 0
	fi
	comp=$(printf '%s\n' "$line" | sed -E 's/^([a-z0-9_]+)-(y|objs).*/\1/')
	[ "$comp" != obj ] || return 0
	obj_sym "$mk" "$comp.o"
}

# objs_at DIR: the objects of cfiles that exist at the checked-out boundary
# and that DIR's .config builds.  The others are only named (lint: not
# built in ...), since a single object of an option that is off does not
# build.
objs_at() {
	local f sym
	for f in "${cfiles[@]}"; do
		[ -f "$WT/$f" ] || continue
		# A file that its Makefile does not name is #included by another
		# (mm/rcu_free_kunit.c by mm/rcu_free.c) and is checked there.
		if ! grep -qE "(^|[[:space:]=])$(basename "${f%.c}")\.o\b" "$WT/$(dirname "$f")/Makefile"; then
			echo "lint: $f is built as part of $(cd "$WT" && grep -lF "#include \"$(basename "$f")\"" "$(dirname "$f")"/*.c | paste -sd' ' -)" >&2
			continue
		fi
		sym=$(obj_sym "$WT/$(dirname "$f")/Makefile" "$(basename "${f%.c}.o")")
		if [ -n "$sym" ] && ! grep -q "^$sym=y" "$1/.config"; then
			echo "lint: ${f%.c}.o not built in $(basename "$1") ($sym is off)" >&2
			continue
		fi
		echo "${f%.c}.o"
	done
	return 0
}

# configure DIR ARCH [sed script for .config]: an object dir for the worktree.
configure() {
	local dir=$1 arch=$2 edit=${3:-}
	if [ ! -f "$dir/.config" ]; then
		mkdir -p "$dir"
		if [ "$arch" = i386 ]; then
			# The guest fragment without its 64-bit line, on i386.
			grep -v '^CONFIG_64BIT=' "$TOP/configs/guest.config" >"$dir/fragment.config"
			make -s -C "$WT" O="$dir" ARCH=i386 KCONFIG_ALLCONFIG="$dir/fragment.config" \
				allnoconfig >/dev/null
		else
			cp "$BUILD/obj/guest/.config" "$dir/.config"
		fi
	fi
	make -s -C "$WT" O="$dir" ARCH="$arch" olddefconfig >/dev/null
	# (An edit before the first olddefconfig in a fresh O= dir does not stick.)
	if [ -n "$edit" ]; then
		sed -i "$edit" "$dir/.config"
		make -s -C "$WT" O="$dir" ARCH="$arch" olddefconfig >/dev/null
	fi
}

# warnings LOG: compiler and sparse warnings, without line numbers, sorted.
warnings() {
	grep -E '(warning|error):' "$1" | sed -E 's/:[0-9]+(:[0-9]+)?:/:/' | sort -u || true
}

# build_objs DIR ARCH LOG extra-make-args...: build the series' objects.
build_objs() {
	local dir=$1 arch=$2 log=$3
	shift 3
	mapfile -t objs < <(objs_at "$dir")
	[ ${#objs[@]} -gt 0 ] || { echo "lint: no objects to build" >"$log"; return 1; }
	make -C "$WT" O="$dir" ARCH="$arch" -j"$JOBS" CC="$KCC" W=1 "$@" "${objs[@]}" >"$log" 2>&1
}

# checkpatch_one SHA SUBJECT: findings not in the allow list, on stdout.
# checkpatch.pl runs scripts/spdxcheck.py (#!/usr/bin/env python3) on new
# files, which needs python3-ply and python3-git (make deps): Debian's
# python3 comes first in PATH, so that another python3 (pyenv, a venv)
# without them does not make it fail.  If it fails all the same, the patch
# fails instead of passing without the SPDX check ("FAILED ..." on stdout).
checkpatch_one() {
	local sha=$1 subj=$2 type
	# -g reads the commit from the repository (the build worktree is at
	# another commit).
	(cd "$KSRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --show-types \
		--ignore MISSING_SIGN_OFF -q -g "$sha" 2>&1) >"$LOGS/checkpatch-$k.log" || true
	if grep -q '^Traceback' "$LOGS/checkpatch-$k.log"; then
		echo "FAILED scripts/spdxcheck.py did not run (python3 without ply or git?)"
	fi
	{ grep -oE '^(ERROR|WARNING|CHECK):[A-Z_0-9]+' "$LOGS/checkpatch-$k.log" || true; } | sort | uniq -c |
		while read -r count type; do
			if awk -F '\t' -v s="$subj" -v t="${type#*:}" \
				'!/^#/ && $1 == s && $2 == t { found = 1 } END { exit !found }' "$ALLOW"; then
				echo "allowed $count $type"
			else
				echo "NEW $count $type"
			fi
		done
}

# kdoc_unnumbered: kernel-doc's messages without their line numbers, so
# that the base's warnings still match at the tip when lines moved:
# "Warning: FILE:LINE text" (7.3's Python kernel-doc) and "FILE:LINE: text".
kdoc_unnumbered() {
	sed -E 's/^((Warning|Error|Info): )?([^ :]+):[0-9]+([: ])/\1\3\4/'
}

# docs_check: at the checked-out tip.
docs_check() {
	local f rst=() src=() new
	mapfile -t rst < <(kgit diff --name-only --diff-filter=A "$base" "$WORK_BRANCH" -- '*.rst')
	for f in "${rst[@]}"; do
		python3 - "$WT/$f" <<-'PY' || return 1
		import io, sys
		import docutils.core
		err = io.StringIO()
		docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
		    settings_overrides={"report_level": 2, "warning_stream": err, "halt_level": 5})
		if err.getvalue():
		    print(err.getvalue(), end="")
		    print("docutils: warnings in " + sys.argv[1])
		    sys.exit(1)
		PY
	done
	mapfile -t src < <(kgit diff --name-only "$base" "$WORK_BRANCH" -- 'mm/*.[ch]' 'include/*.h' 'fs/*.c')
	(cd "$WT" && ./scripts/kernel-doc -none -Wall "${src[@]}" 2>&1) |
		kdoc_unnumbered | sort -u >"$LOGS/kdoc-tip.warn"
	git -C "$WT" checkout -q -f --detach "$base"
	(cd "$WT" && for f in "${src[@]}"; do [ -f "$f" ] && ./scripts/kernel-doc -none -Wall "$f" 2>&1; done) |
		kdoc_unnumbered | sort -u >"$LOGS/kdoc-base.warn"
	git -C "$WT" checkout -q -f --detach "$WORK_BRANCH"
	new=$(comm -13 "$LOGS/kdoc-base.warn" "$LOGS/kdoc-tip.warn")
	if [ -n "$new" ]; then
		printf '%s\n' "$new"
		echo "kernel-doc: new warnings"
		return 1
	fi
	echo "docs: ${#rst[@]} rst file(s) clean, kernel-doc: no new warnings in ${#src[@]} file(s)"
}

# check_build LABEL DIR ARCH LOG BASE_WARN [make args]: build the series'
# objects in DIR; warnings that BASE_WARN does not have fail the patch.
# Appends to the patch's results (res) and sets bad.
check_build() {
	local label=$1 dir=$2 arch=$3 log=$4 basewarn=$5 new
	shift 5
	if ! build_objs "$dir" "$arch" "$log" "$@"; then
		bad=1
		res+=("$label build FAILED ($log)")
		return
	fi
	new=$(comm -13 "$basewarn" <(warnings "$log"))
	if [ -n "$new" ]; then
		bad=1
		printf '%s\n' "$new" >&2
		res+=("$label: new warnings (above)")
	else
		res+=("$label ok")
	fi
}

note "lint: $n patches; objects: ${cfiles[*]/%.c/.o}"
checkout_worktree "$base"
# The test the kernel's Makefile runs before it honours C=2.
SPARSE_WHY=
if [ "$("$WT/scripts/checker-valid.sh" "$SPARSE" 2>/dev/null)" != 1 ]; then
	SPARSE_WHY="$SPARSE ($("$SPARSE" --version 2>/dev/null || echo 'not found')) cannot parse __typeof_unqual__, which this tree needs (scripts/checker-valid.sh)"
	warn "sparse NOT RUN: $SPARSE_WHY"
fi
configure "$SP" x86_64
olddefconfig_series "$SP" x86_64 KUNIT PAGECACHE_RCU_FREE_KUNIT_TEST
configure "$I386" i386
build_objs "$SP" x86_64 "$LOGS/sparse-base.log" C=2 CHECK="$SPARSE" || die "base: sparse build failed ($LOGS/sparse-base.log)"
warnings "$LOGS/sparse-base.log" >"$LOGS/sparse-base.warn"
build_objs "$I386" i386 "$LOGS/i386-base.log" || die "base: i386 build failed ($LOGS/i386-base.log)"
warnings "$LOGS/i386-base.log" >"$LOGS/i386-base.warn"
note "lint: base: $(wc -l <"$LOGS/sparse-base.warn") sparse/W=1 warnings, $(wc -l <"$LOGS/i386-base.warn") i386 warnings"

fail=0
for k in $(seq 1 "$n"); do
	sha=${commits[$((k - 1))]}
	subj=$(kgit log -1 --format=%s "$sha")
	res=()
	bad=0

	cp=$(checkpatch_one "$sha" "$subj")
	if grep -q '^FAILED' <<<"$cp"; then
		bad=1
		res+=("checkpatch: $(sed -n 's/^FAILED //p' <<<"$cp") ($LOGS/checkpatch-$k.log)")
	fi
	if grep -q '^NEW' <<<"$cp"; then
		bad=1
		res+=("checkpatch: $(grep '^NEW' <<<"$cp" | sed 's/^NEW //' | tr '\n' ' ')not in $(basename "$ALLOW") ($LOGS/checkpatch-$k.log)")
	elif [ $bad = 0 ]; then
		allowed=$(sed -n 's/^allowed //p' <<<"$cp" | paste -sd, -)
		res+=("checkpatch ok${allowed:+ (allowed: $allowed)}")
	fi

	checkout_worktree "$sha"
	# A patch that changes nothing the kernel builds (Documentation/,
	# tools/, MAINTAINERS) leaves the sparse and i386 results of the
	# patch before it: the same sources, the same verdict, without
	# another C=2 pass over every object (minutes of make check).
	if [ "$k" -gt 1 ] && [ -n "${prev_build+x}" ] &&
		! kgit diff-tree --no-commit-id --name-only -r "$sha" |
		grep -qvE '^(Documentation/|tools/|MAINTAINERS$)'; then
		res+=("sparse, i386 as patch $((k - 1)) (no file the kernel builds changed): ${prev_build}")
		bad=$((bad | prev_bad))
	else
		nres=${#res[@]} bad0=$bad bad=0
		if [ -z "$SPARSE_WHY" ]; then
			olddefconfig_series "$SP" x86_64 KUNIT PAGECACHE_RCU_FREE_KUNIT_TEST
			check_build sparse "$SP" x86_64 "$LOGS/sparse-$k.log" "$LOGS/sparse-base.warn" \
				C=2 CHECK="$SPARSE"
		else
			bad=1
			res+=("sparse NOT RUN ($SPARSE_WHY)")
		fi
		make -s -C "$WT" O="$I386" ARCH=i386 olddefconfig >/dev/null
		check_build i386 "$I386" i386 "$LOGS/i386-$k.log" "$LOGS/i386-base.warn"
		prev_build=$(printf '%s, ' "${res[@]:$nres}")
		prev_build=${prev_build%, }
		prev_bad=$bad
		bad=$((bad | bad0))
	fi

	if [ "$k" = "$n" ]; then
		configure "$NOCFG" x86_64 's/^CONFIG_PAGECACHE_RCU_FREE=y/# CONFIG_PAGECACHE_RCU_FREE is not set/'
		grep -q '^CONFIG_PAGECACHE_RCU_FREE=y' "$NOCFG/.config" && die "could not switch PAGECACHE_RCU_FREE off"
		check_build PAGECACHE_RCU_FREE=n "$NOCFG" x86_64 "$LOGS/nocfg.log" "$LOGS/sparse-base.warn"
		if docs_check >"$LOGS/docs.log" 2>&1; then
			res+=("docs ok")
		else
			bad=1
			res+=("docs: $(tail -1 "$LOGS/docs.log") ($LOGS/docs.log)")
		fi
	fi

	line=$(printf '%s; ' "${res[@]}")
	if [ $bad = 0 ]; then
		echo "ok $k - $subj: ${line%; }"
	else
		echo "not ok $k - $subj: ${line%; }"
		fail=1
	fi
done
checkout_worktree "$base"
exit $fail

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Verify the Spin model of the lockless page cache read protocol
# (pagecache.pml, next to this script) and check that each mutant of it
# is caught.  Prints TAP; exits 0 only if the correct model verifies with
# an exhaustive search and every mutant produces a counterexample.
#
#   1  correct model, exhaustive safety search (-DSAFETY): assertions P1
#      P2 and P4 and invalid end states (deadlock); plus the LTL property
#      "<> reader_done" (reader termination) with an acceptance-cycle
#      search, by default at the smaller bound REUSES=1 (LTL_BOUNDS)
#   2  NO_DEFER       PG_rcu_free folios freed without a grace period
#   3  NO_REVALIDATE  no revalidation after the copy: must verify, with no
#                     counterexample: P1, P2 and P4 rest on steps 2 and 2b
#                     alone (the revalidation keeps the i_size semantics,
#                     which this model does not check and the C model does)
#   4  NO_FLAG_CHECK  no PG_rcu_free test before the copy
#   5  NO_RELOAD      no xas_reload() between the flag test and the copy
#   6  SPLIT          the split scenario: a large folio split (uniformly or
#                     buddy-style) in __split_folio_to_order()'s order of
#                     writes while a reader copies across its end;
#                     exhaustive safety search, must verify (P1, P4)
#   7  SPLIT TRUST_NR the reader bounds its copy by the size word alone,
#                     without filemap_fast_maps(): copies the foreign page
#                     after the folio
#
# Environment:
#   SPIN, CC     the tools (default: spin, gcc)
#   DEPTH        pan -m search depth (default 10000)
#   MEMLIM       pan memory limit in MB (default 2048)
#   LTL_BOUNDS   -D options for the termination run (default -DREUSES=1;
#                set it to " " to use the full default bounds)
#   KEEP         a directory to copy the mutants' trails and guided
#                simulations into (the work directory is removed)
#   TRACE_LINES  lines of each counterexample to print (default 40)

set -u

SPIN=${SPIN:-spin}
CC=${CC:-gcc}
DEPTH=${DEPTH:-10000}
MEMLIM=${MEMLIM:-2048}
LTL_BOUNDS=${LTL_BOUNDS:--DREUSES=1}
KEEP=${KEEP:-}
TRACE_LINES=${TRACE_LINES:-40}

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd) || exit 2
model=$here/pagecache.pml

if [ ! -r "$model" ]; then
	echo "Bail out! $model not found"
	exit 2
fi
for tool in "$SPIN" "$CC"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "Bail out! $tool not found"
		exit 2
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pagecache-model.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" || exit 2
fi

echo "TAP version 13"
echo "1..7"
echo "# $("$SPIN" -V 2>&1 | head -n 1)"
echo "# $("$CC" --version 2>&1 | head -n 1)"
echo "# model: $model"

failed=0

# Print a file as TAP diagnostics.
diag() {
	sed 's/^/#   /' "$1"
}

# build NAME PANFLAGS SPINFLAGS...: spin -a and gcc in $work/NAME
build() {
	name=$1
	panflags=$2
	shift 2
	dir=$work/$name
	mkdir -p "$dir" && cp "$model" "$dir/pagecache.pml" || return 1
	if ! (cd "$dir" && "$SPIN" "$@" -a pagecache.pml) >"$dir/spin.log" 2>&1; then
		echo "# spin -a $* failed:"
		diag "$dir/spin.log"
		return 1
	fi
	# -w: the generated pan.c triggers -Wstringop-overflow noise
	# shellcheck disable=SC2086 # $panflags is a list of options
	if ! (cd "$dir" && $CC -O2 -w $panflags -DMEMLIM="$MEMLIM" \
			-o pan pan.c) >"$dir/cc.log" 2>&1; then
		echo "# $CC $panflags pan.c failed:"
		diag "$dir/cc.log"
		return 1
	fi
	return 0
}

# panstat FILE PATTERN: the first number on the first line matching PATTERN
panstat() {
	sed -n "/$2/{s/^[^0-9]*\([0-9][0-9.e+]*\).*/\1/p;q;}" "$1"
}

# The pan output is complete: full search, no depth or memory truncation.
pan_complete() {
	grep -q "Full statespace search" "$1" &&
	! grep -q "Search not completed" "$1" &&
	! grep -q "max search depth too small" "$1" &&
	! grep -q "reached -DMEMLIM bound" "$1" &&
	! grep -q "out of memory" "$1"
}

# ---- 1: the correct model ---------------------------------------------
ok1=1
desc1="correct model"
if build correct "-DSAFETY -DCOLLAPSE"; then
	(cd "$work/correct" && ./pan -m"$DEPTH") >"$work/correct/pan.out" 2>&1
	out=$work/correct/pan.out
	states=$(panstat "$out" "states, stored")
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out")
	secs=$(panstat "$out" "elapsed time")
	if grep -q "errors: 0" "$out" && pan_complete "$out"; then
		desc1="correct model: no errors, $states states"
		echo "# safety (assertions P1 P2 P4, invalid end states):" \
			"$states states, depth $depth (-m$DEPTH), ${secs:-?} s"
	else
		ok1=0
		echo "# safety search failed or incomplete:"
		diag "$out"
		if [ -f "$work/correct/pagecache.pml.trail" ]; then
			(cd "$work/correct" && "$SPIN" -t pagecache.pml) \
				>"$work/correct/trace" 2>&1
			head -n "$TRACE_LINES" "$work/correct/trace" | sed 's/^/#   /'
		fi
	fi
else
	ok1=0
fi
# Reader termination as LTL; with an acyclic state graph this is
# implied by the invalid end state check above, but check it anyway.
# shellcheck disable=SC2086
if [ "$ok1" = 1 ] && build ltl "-DCOLLAPSE" -DLTL_TERMINATION $LTL_BOUNDS; then
	(cd "$work/ltl" && ./pan -a -m"$DEPTH") >"$work/ltl/pan.out" 2>&1
	out=$work/ltl/pan.out
	lstates=$(panstat "$out" "states, stored")
	secs=$(panstat "$out" "elapsed time")
	if grep -q "errors: 0" "$out" && pan_complete "$out" &&
	   grep -q "acceptance.*cycles.*+" "$out"; then
		desc1="$desc1 (+ $lstates states for LTL termination)"
		echo "# termination (ltl <> reader_done, pan -a,${LTL_BOUNDS:+ $LTL_BOUNDS}):" \
			"$lstates states, ${secs:-?} s"
	else
		ok1=0
		echo "# termination search failed or incomplete:"
		diag "$out"
	fi
elif [ "$ok1" = 1 ]; then
	ok1=0
fi
if [ "$ok1" = 1 ]; then
	echo "ok 1 - $desc1"
else
	echo "not ok 1 - $desc1"
	failed=1
fi

# mutant N NAME SPINFLAGS...: the model built with SPINFLAGS must produce
# a counterexample; print its narration
mutant() {
	n=$1
	name=$2
	shift 2
	dir=$work/$name
	if ! build "$name" "-DSAFETY -DCOLLAPSE" "$@"; then
		echo "not ok $n - $name mutant: does not build"
		failed=1
		return
	fi
	(cd "$dir" && ./pan -m"$DEPTH") >"$dir/pan.out" 2>&1
	out=$dir/pan.out
	states=$(panstat "$out" "states, stored")
	if grep -q "errors: 1" "$out" && [ -f "$dir/pagecache.pml.trail" ]; then
		(cd "$dir" && "$SPIN" -t -p "$@" pagecache.pml) \
			>"$dir/trace" 2>&1
		steps=$(sed -n 's/^spin: trail ends after \([0-9]*\) steps.*/\1/p' "$dir/trace")
		echo "ok $n - $name mutant: counterexample found" \
			"(trail: ${steps:-?} steps, $states states searched)"
		echo "#   $(grep -m1 "assertion violated" "$out")"
		echo "#   guided simulation (spin -t -p $*), narration lines:"
		# printf() output and spin's messages; the per-statement
		# lines of -p and the final variable dump are left out.
		sed -n '/^spin: trail ends/{p;q;}; /^ *[0-9][0-9]*:	/d; /^Starting /d; p' \
			"$dir/trace" | head -n "$TRACE_LINES" | sed 's/^ */#     /'
		if [ -n "$KEEP" ]; then
			cp "$dir/pagecache.pml.trail" "$KEEP/$name.trail"
			cp "$dir/trace" "$KEEP/$name.trace"
		fi
	else
		echo "not ok $n - $name mutant: no counterexample"
		diag "$out"
		failed=1
	fi
}

# verifies N NAME DESCRIPTION SPINFLAGS...: the model built with SPINFLAGS
# must verify with a complete search
verifies() {
	n=$1
	name=$2
	desc=$3
	shift 3
	dir=$work/$name
	if build "$name" "-DSAFETY -DCOLLAPSE" "$@" &&
	   (cd "$dir" && ./pan -m"$DEPTH") >"$dir/pan.out" 2>&1 &&
	   grep -q "errors: 0" "$dir/pan.out" && pan_complete "$dir/pan.out"; then
		echo "ok $n - $name: $desc" \
			"($(panstat "$dir/pan.out" "states, stored") states," \
			"$(panstat "$dir/pan.out" "elapsed time") s)"
	else
		echo "not ok $n - $name: $desc"
		[ -f "$dir/pan.out" ] && diag "$dir/pan.out"
		failed=1
	fi
}

# ---- 2..5: mutants ----------------------------------------------------
mutant 2 NO_DEFER -DNO_DEFER
verifies 3 NO_REVALIDATE "verifies, the copy is safe without revalidation" \
	-DNO_REVALIDATE
mutant 4 NO_FLAG_CHECK -DNO_FLAG_CHECK
mutant 5 NO_RELOAD -DNO_RELOAD

# ---- 6, 7: the split scenario ------------------------------------------
verifies 6 SPLIT \
	"no errors: no read across the end of a folio being split copies another file's page" \
	-DSPLIT
mutant 7 SPLIT_TRUST_NR -DSPLIT -DTRUST_NR

exit "$failed"

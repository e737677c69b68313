#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run each mutant build of the page cache model and check that the model
# kills it: the run must exit 1 with a "not ok" on one of the data or
# use-after-free checks (1-5), the LRU and PG_dropbehind checks (10,
# 11), the folio-stepping check (12) or the split check (13), not crash
# and not pass.
#
# usage: run-mutants.sh [-s seed] [-d seconds] [-B build dir] mutant...

seed=$(date +%s)
duration=5
build=.
while getopts s:d:B: opt; do
	case $opt in
	s) seed=$OPTARG ;;
	d) duration=$OPTARG ;;
	B) build=$OPTARG ;;
	*) echo "usage: $0 [-s seed] [-d seconds] [-B dir] mutant..." >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))

# A sanitizer report must not pass for a kill: give it its own exit code.
ASAN_OPTIONS="exitcode=86:$ASAN_OPTIONS"
UBSAN_OPTIONS="halt_on_error=1:exitcode=87:print_stacktrace=1:$UBSAN_OPTIONS"
export ASAN_OPTIONS UBSAN_OPTIONS

echo "TAP version 13"
echo "# mutants, seed $seed, at most $duration s each"
echo "1..$#"
n=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for m in "$@"; do
	n=$((n + 1))
	start=$(date +%s.%N)
	"$build/pagecache-model-$m" -s "$seed" -d "$duration" -t 4 -x \
		> "$log" 2>&1
	rc=$?
	secs=$(printf "%.2f" "$(echo "$(date +%s.%N) - $start" | bc)")
	# Checks 1-5: foreign/secret, poison, use after free, beyond EOF,
	# hwpoison; 10: a folio read locklessly that a read would mark
	# accessed or that needs readahead; 11: a PG_dropbehind folio read
	# locklessly; 12: a quiet read across folios does not copy all of
	# it (the step to the next folio is broken); 13: a read at a step
	# of a split leaves the folio.
	killed=$(grep -E '^not ok ([1-5]|1[0-3]) - ' "$log" | head -1)
	if [ "$rc" -eq 1 ] && [ -n "$killed" ]; then
		echo "ok $n - mutant $m killed in $secs s: ${killed#not ok }"
	else
		echo "not ok $n - mutant $m survived or crashed (rc $rc)"
		sed 's/^/# /' "$log" | tail -40
		failed=1
	fi
	grep -E '^# (status|counter) ' "$log" | sed "s/^# /#   $m: /"
done
exit $failed

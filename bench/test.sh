#!/usr/bin/env bash
# Host-only tests of the benchmark harness (seconds, no guest): the programs
# build, measure in every mode, and fail on a wrong or short read; the report
# computes known medians, ratios and the UML contention verdict; the scripts
# parse.  TAP output.
#   bench/test.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
. "$TOP/tests/workbench/tap.sh"
# BENCH_BIN: build the programs elsewhere (a bench run may be using build/bench).
BIN=${BENCH_BIN:-$TOP/build/bench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

csv_ok() {
	# one CSV line of 8 fields, ops > 0
	local line
	line=$("$@") || return 1
	echo "$line" | awk -F, 'NF == 8 && $5 > 0 { ok = 1 } END { exit !ok }' ||
		{ echo "bad output: $line"; return 1; }
}
quick() { "$BIN/pread" -d "$dir" -D 0.2 -w 0.05 "$@"; }

t "bench programs build (static)" make -s -C "$HERE" O="$BIN"
for m in zero folio random seq; do
	t "pread -m $m, 2 threads, every read checked" csv_ok quick -m "$m" -t 2 -l 256 -C
done
t "pread: processes, shared fd, pinned, 64 KiB reads" csv_ok quick -P -S -p -t 2 -l 65536 -C
t "pread: fallocated and sparse files read as zeroes" \
	bash -c "'$BIN/pread' -d '$dir' -D 0.2 -w 0 -m seq -c falloc -l 4k -C >/dev/null &&
		'$BIN/pread' -d '$dir' -D 0.2 -w 0 -m seq -c hole -l 1M -C >/dev/null"
t "pread: header line" bash -c "'$BIN/pread' -d '$dir' -D 0.1 -w 0 -H | head -1 |
	grep -qx 'fs,mode,threads,len,ops,seconds,ops_per_sec,mib_per_sec'"
for k in corrupt short; do
	for m in folio seq; do
		t "pread fails on a $k read (-m $m)" expect 1 quick -m "$m" -t 2 -T "$k"
	done
	t "pread fails on a $k read (processes)" expect 1 quick -P -t 2 -T "$k"
done
t "pread: bad usage exits 2" expect 2 "$BIN/pread" -d "$dir" -x
t "pread: a malformed number is an error, not 0" \
	output_has "pread: error: -t 'two': a whole number" expect 1 "$BIN/pread" -d "$dir" -t two
t "logreread: a malformed rate is an error, not 'unlimited'" \
	output_has "logreread: error: -r '1e3x': a number" expect 1 "$BIN/logreread" -d "$dir" -r 1e3x
t "pread: clear error for a missing directory" \
	output_has "pread: error: .*/nonexistent" expect 1 "$BIN/pread" -d /nonexistent -D 0.1
t "logreread: 2 writers, 2 readers, every record verified" \
	bash -c "'$BIN/logreread' -d '$dir' -W 2 -R 2 -D 0.3 -w 0.05 | awk -F, 'NF == 8 && \$4 > 0 && \$5 > 0 { ok = 1 } END { exit !ok }'"
t "compact: huge page faults beside a storm, one CSV line of 12 fields" \
	bash -c "'$BIN/compact' -d '$dir' -D 0.3 -f 4m -a 8m | awk -F, 'NF == 12 && \$4 > 0 && \$5 + \$6 > 0 { ok = 1 } END { exit !ok }'"
t "compact: leaves no file behind" bash -c "[ -z \"\$(ls '$dir' | grep -E '^compact')\" ]"
t "compact: -a under 2 MiB is an error" \
	output_has "compact: error: -a: at least 2m" expect 1 "$BIN/compact" -d "$dir" -a 1m
merge_case() {
	. "$HERE/common.sh"
	mkdir -p "$dir/m/raw/a-rep1" "$dir/m/raw/b-rep1"
	printf 'h\na1\n' >"$dir/m/raw/a-rep1/pread.csv"
	printf 'h\nb1\nb2\n' >"$dir/m/raw/b-rep1/pread.csv"
	printf 'h\n' >"$dir/m/raw/b-rep1/fio.csv"
	merge_csv "$dir/m"
	[ "$(cat "$dir/m/pread.csv")" = "$(printf 'h\na1\nb1\nb2')" ] &&
		[ "$(cat "$dir/m/fio.csv")" = h ] && [ ! -s "$dir/m/gitgrep.csv" ]
}
t "common.sh merge_csv: one header, every boot's rows in order" merge_case
t "report.py --check: medians, min-max, ratios, efficiency; uml.csv: CPU-eff, contention verdict" \
	"$HERE/report.py" --check
t "scripts parse (bash -n, sh -n, busybox sh -n)" bash -c "
	bash -n '$HERE/run.sh' && bash -n '$HERE/kvm-bundle.sh' && bash -n '$HERE/bundle/run.sh' &&
	sh -n '$HERE/guest-matrix.sh' && sh -n '$HERE/fio/table.sh' && sh -n '$HERE/bundle/init' &&
	sh -n '$HERE/common.sh' &&
	{ ! command -v busybox >/dev/null || { busybox sh -n '$HERE/guest-matrix.sh' &&
	  busybox sh -n '$HERE/fio/table.sh' && busybox sh -n '$HERE/bundle/init'; }; }"
t "run.sh rejects a missing kernel with a clear error" \
	output_has "no kernel image /nonexistent" expect 1 env KERNELS=x=/nonexistent OUT="$dir/r" "$HERE/run.sh" --smoke
t "uml/run.sh parses; rejects --boots 0, --cpus x, a kernel without =REV" bash -c "
	bash -n '$HERE/uml/run.sh' && bash -n '$HERE/uml/device.sh' &&
	'$HERE/uml/run.sh' --boots 0 --out '$dir/u' 2>&1 | grep -q 'boots wants a positive integer' &&
	'$HERE/uml/run.sh' --cpus x --out '$dir/u' 2>&1 | grep -q 'cpus wants a positive integer' &&
	'$HERE/uml/run.sh' --kernels base --out '$dir/u' 2>&1 | grep -q 'LABEL=REV pairs'"
tap_done

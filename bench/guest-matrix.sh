#!/bin/sh
# The benchmark matrix, run inside one booted guest (scripts/vm, or the kvm
# bundle's init).  POSIX sh: it also runs under busybox.
#
# Environment:
#   BENCH_LABEL    kernel label for the CSV rows (required)
#   BENCH_REP      repetition number (default 1)
#   BENCH_PROFILE  smoke | default | full (default: default)
#   BENCH_OUT      folder for the CSV files (default $VM_OUT)
#   BENCH_BIN      folder with pread and logreread (default build/bench)
#   BENCH_SRC      source folders copied to each fs for the git grep
#                  workload (default build/linux/mm; full adds build/linux/fs)
#   BENCH_FIO_TOOL fio | pread (default fio if installed and the kernel has
#                  SysV IPC, which fio needs; else pread -m seq)
#   BENCH_FS       file systems (default "tmpfs ext4 xfs"; ext4 and xfs must
#                  be mounted at /mnt/ext4 and /mnt/xfs)
#   BENCH_ONLY     the workloads to run (default "pread fio logreread gitgrep
#                  compact")
#
# Writes pread.csv, fio.csv, logreread.csv, gitgrep.csv, compact.csv and vmstat.txt into
# BENCH_OUT, every row prefixed with kernel,rep.  Exits non-zero on the first
# failed measurement (a short or wrong read is a failure).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
LABEL=${BENCH_LABEL:?BENCH_LABEL (kernel label) is not set}
REP=${BENCH_REP:-1}
PROFILE=${BENCH_PROFILE:-default}
OUT=${BENCH_OUT:-${VM_OUT:?neither BENCH_OUT nor VM_OUT is set}}
BIN=${BENCH_BIN:-$TOP/build/bench}
FSS=${BENCH_FS:-tmpfs ext4 xfs}
ONLY=${BENCH_ONLY:-pread fio logreread gitgrep compact}
for w in $ONLY; do
	case "$w" in pread | fio | logreread | gitgrep | compact) ;; *) echo "guest-matrix: error: BENCH_ONLY: no workload '$w'" >&2; exit 1 ;; esac
done
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
N=$(nproc)

die() { echo "guest-matrix: error: $*" >&2; exit 1; }
say() { echo "guest-matrix: [$LABEL rep $REP] $*" >&2; }
uptime_s() { awk '{ print $1 }' /proc/uptime; }

for p in pread logreread compact; do
	[ -x "$BIN/$p" ] || die "no $BIN/$p (make -C bench O=$BIN)"
done
mkdir -p "$OUT"

# Thread counts: 1, 2, 4, ... and N (every count from 1 to N with full).
threads() {
	if [ "$PROFILE" = full ]; then
		seq 1 "$N"
		return
	fi
	t=1
	while [ "$t" -lt "$N" ]; do
		echo "$t"
		[ "$PROFILE" = smoke ] && break
		t=$((t * 2))
	done
	echo "$N"
}

case "$PROFILE" in
smoke)
	MODES=folio LENS=4096 DUR=1 WARM=0.2
	FIO_ARGS="--size-mb 16 --runtime 1 --bs 64k --thp off --files normal"
	LOG_READERS=$N LOG_DUR=1 GREP_RUNS=1
	SRC=${BENCH_SRC:-$TOP/build/linux/mm}
	COMPACT_N=8 COMPACT_FILL=10 COMPACT_MAP=10
	;;
default)
	MODES=folio LENS="16 256 4096 65536" DUR=1.5 WARM=0.3
	FIO_ARGS="--size-mb 16 --runtime 1"
	LOG_READERS=$N LOG_DUR=2 GREP_RUNS=3
	SRC=${BENCH_SRC:-$TOP/build/linux/mm}
	COMPACT_N=600 COMPACT_FILL=70 COMPACT_MAP=45
	;;
full)
	MODES="folio zero random" LENS="16 256 4096 65536" DUR=5 WARM=1
	FIO_ARGS="--full"
	LOG_READERS="1 $N $((2 * N))" LOG_DUR=5 GREP_RUNS=5
	SRC=${BENCH_SRC:-$TOP/build/linux/mm $TOP/build/linux/fs}
	COMPACT_N=2000 COMPACT_FILL=70 COMPACT_MAP=45
	;;
*) die "BENCH_PROFILE: smoke, default or full, not $PROFILE" ;;
esac

# Where each fs is: our own tmpfs (not /tmp, so its size is known), and the
# runner's scratch disks.
fsdir() {
	case "$1" in
	tmpfs) echo /mnt/bench-tmpfs ;;
	*) echo "/mnt/$1" ;;
	esac
}
mkdir -p /mnt/bench-tmpfs
grep -q " /mnt/bench-tmpfs tmpfs " /proc/mounts ||
	mount -t tmpfs -o size=80% tmpfs /mnt/bench-tmpfs || die "cannot mount tmpfs"
for fs in $FSS; do
	d=$(fsdir "$fs")
	grep -q " $d $fs " /proc/mounts || die "$fs is not mounted at $d"
	mkdir -p "$d/bench"
done

grep -E '^(pgcache|nr_file_pages)' /proc/vmstat >"$OUT/vmstat-before.txt" || true
T0=$(uptime_s)

# 1. pread matrix
if want pread; then
	say "pread: modes '$MODES', lens '$LENS', threads '$(threads | tr '\n' ' ')', fs '$FSS', ${DUR} s per point"
	echo "kernel,rep,fs,mode,threads,len,ops,seconds,ops_per_sec,mib_per_sec" >"$OUT/pread.csv"
	for fs in $FSS; do
		for mode in $MODES; do
			for len in $LENS; do
				size=$((1048576 + 2 * len))
				[ "$mode" = random ] && size=$((64 * 1048576))
				for t in $(threads); do
					line=$("$BIN/pread" -d "$(fsdir "$fs")/bench" -f "$fs" -m "$mode" \
						-t "$t" -l "$len" -s "$size" -D "$DUR" -w "$WARM") ||
						die "pread $fs $mode t=$t len=$len failed"
					echo "$LABEL,$REP,$line" >>"$OUT/pread.csv"
				done
			done
		done
	done
fi

# 2. fio table (tmpfs, THP off and on)
if want fio; then
	TOOL=${BENCH_FIO_TOOL:-}
	if [ -z "$TOOL" ]; then
		TOOL=pread
		# fio keeps its job table in SysV shared memory: no CONFIG_SYSVIPC, no fio.
		if command -v fio >/dev/null && [ -d /proc/sysvipc ]; then
			TOOL=fio
		elif command -v fio >/dev/null; then
			say "kernel without SysV IPC (CONFIG_SYSVIPC): fio cannot run, using pread -m seq"
		fi
	fi
	say "fio table with $TOOL: $FIO_ARGS"
	# shellcheck disable=SC2086
	"$HERE/fio/table.sh" --header --tool "$TOOL" --pread "$BIN/pread" $FIO_ARGS >"$OUT/fio.tmp" ||
		die "fio table failed"
	awk -v k="$LABEL" -v r="$REP" 'NR == 1 { print "kernel,rep," $0; next } { print k "," r "," $0 }' \
		"$OUT/fio.tmp" >"$OUT/fio.csv"
	rm -f "$OUT/fio.tmp"
fi

# 3a. log re-read: 2 writers append 64-byte records, readers re-read recent ones
if want logreread; then
	say "logreread: 2 writers, readers '$LOG_READERS', ${LOG_DUR} s per point"
	echo "kernel,rep,fs,writers,readers,reads,writes,seconds,reads_per_sec,writes_per_sec" >"$OUT/logreread.csv"
	for fs in $FSS; do
		for r in $LOG_READERS; do
			line=$("$BIN/logreread" -d "$(fsdir "$fs")/bench" -f "$fs" -W 2 -R "$r" \
				-D "$LOG_DUR" -w 0.3) || die "logreread $fs R=$r failed"
			echo "$LABEL,$REP,$line" >>"$OUT/logreread.csv"
		done
	done
fi

# 3b. git grep over kernel sources copied to each fs (read-mostly, many
# small files, all cached): wall time per run after one warm-up run.
echo "kernel,rep,workload,fs,threads,run,seconds,matches" >"$OUT/gitgrep.csv"
GIT=${BENCH_GIT:-git}
if ! want gitgrep; then
	:
elif command -v "$GIT" >/dev/null; then
	say "git grep over '$SRC' on '$FSS', $GREP_RUNS runs each"
	for fs in $FSS; do
		dst=$(fsdir "$fs")/bench/src
		rm -rf "$dst"
		mkdir -p "$dst"
		for s in $SRC; do
			[ -d "$s" ] || die "no source folder $s for git grep"
			cp -a "$s" "$dst/" || die "cannot copy $s to $dst"
		done
		sync
		run=0
		while [ "$run" -le "$GREP_RUNS" ]; do
			t0=$(uptime_s)
			m=$(cd "$dst" && "$GIT" grep --no-index --threads "$N" -c -E \
				'folio_(get|put|try_get)|rcu_read_(un)?lock|spin_lock' . |
				awk -F: '{ s += $NF } END { print s + 0 }') ||
				die "git grep on $fs failed"
			t1=$(uptime_s)
			# run 0 is the warm-up
			if [ "$run" -gt 0 ]; then
				echo "$LABEL,$REP,gitgrep,$fs,$N,$run,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'),$m" \
					>>"$OUT/gitgrep.csv"
			fi
			run=$((run + 1))
		done
		rm -rf "$dst"
	done
else
	say "no git: git grep workload skipped"
fi

# 4. Huge page faults under a truncate storm: does the deferred freeing
# of marked folios (a pageblock that compaction emptied stays allocated
# for a grace period) make them fall back to small pages more often?
# bench/compact.c: a file of COMPACT_FILL% of RAM (at most 80% of the
# fs's free space) with every other page punched out, 2 storm processes,
# COMPACT_N faults of 2 MiB with up to COMPACT_MAP% of RAM mapped, direct
# compaction at each fault.
THP=/sys/kernel/mm/transparent_hugepage
echo "kernel,rep,fs,procs,seconds,faults,thp_alloc,thp_fallback,fallback_pct,compact_stall,compact_fail,compact_success,deferred_kib,peak_held_kib" >"$OUT/compact.csv"
if ! want compact; then
	:
elif [ -w "$THP/defrag" ] && grep -q '^compact_stall ' /proc/vmstat; then
	say "compact: fill ${COMPACT_FILL}% of RAM, $COMPACT_N faults on '$FSS'"
	mem_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	defrag=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP/defrag")
	echo always >"$THP/defrag"
	for fs in $FSS; do
		sync
		echo 3 >/proc/sys/vm/drop_caches
		fill=$((mem_kib * COMPACT_FILL / 100))
		avail=$(df -k "$(fsdir "$fs")/bench" | awk 'NR == 2 { print int($4 * 0.8) }')
		[ "$avail" -lt "$fill" ] && fill=$avail
		line=$("$BIN/compact" -d "$(fsdir "$fs")/bench" -P 2 -n "$COMPACT_N" -D 600 \
			-f "${fill}k" -a "$((mem_kib * COMPACT_MAP / 100))k") ||
			{ echo "$defrag" >"$THP/defrag"; die "compact on $fs failed"; }
		echo "$LABEL,$REP,$line" >>"$OUT/compact.csv"
	done
	echo "$defrag" >"$THP/defrag"
else
	say "no transparent huge pages or compaction in this kernel: compact skipped"
fi

grep -E '^(pgcache|nr_file_pages)' /proc/vmstat >"$OUT/vmstat-after.txt" || true
say "done in $(awk -v a="$T0" -v b="$(uptime_s)" 'BEGIN { printf "%.0f", b - a }') s"

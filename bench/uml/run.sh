#!/usr/bin/env bash
# bench/uml/run.sh (make bench): page cache reads on N real CPUs, base vs
# patched, inside User-Mode Linux with SMP.
#
#   bench/uml/run.sh [--kernels "LABEL=REV ..."] [--cpus "1 2 .."]
#                    [--boots B] [--rounds R] [--ms T] [--sizes "16 .."]
#                    [--fs "tmpfs ramfs ext4 xfs bdev"]
#                    [--shapes "ownfd shared ownfile"]
#                    [--no-seq] [--no-gitgrep] [--no-logreread] [--smoke]
#                    [--replay "WORKLOAD .."] [--no-replay] [--replay-from DIR]
#                    [--boundaries] [--large-folios] [--out DIR]
#                    [--no-build] [--no-report]
#
# Why UML: these machines have no usable KVM, and QEMU/TCG emulates away the
# cache-line contention the series removes.  A UML kernel is a host process
# whose virtual CPUs are host threads (7.3's arch/um SMP, seccomp=on): N
# kernel threads bound to N virtual CPUs run mm/filemap.c and mm/shmem.c
# natively on N host cores.  bench/uml/pcbench.c runs the read loops inside
# the kernel through each file's ->read_iter (a UML system call costs tens of
# microseconds, far more than a 16-byte read), and a contention probe
# (atomic_long_inc on a shared vs a private counter) shows whether this host
# makes contention visible at all.  No THP in UML: every folio is a page,
# unless --large-folios (below).
#
# Kernels (default "base=base final=work": the tag and branch of build/linux)
# are built with ARCH=um defconfig + bench/uml/uml.config in build/uml/LABEL
# from a worktree of their own (build/uml/src), the module against each
# (--no-build: use what build/uml/LABEL has).  Each boot has max(--cpus)
# virtual CPUs; boots alternate base, final, base, final ... B times (default
# 2), R rounds per boot (default 3) after a discarded warm-up; every point
# runs T ms (default 500).  --cpus defaults to 1 2 4 .. up to this host's CPU
# count.  Rows per round: the probe at each CPU count; reads of --sizes
# (default 16 512 4096 65536 1048576) at offset 0 for every fs x shape x
# CPU count (shared: one struct file; ownfd: one file, opened per thread;
# ownfile: a file per thread; xfs is a second ubd disk, and bdev reads a
# third one through its block device node, /dev/ubdc, fd per thread or
# shared, no ownfile); tmpfs sequential reads of a written,
# fallocated and sparse file at 4 KiB, 64 KiB and 1 MiB, one reader (the
# shape of the fio table of the shmem batching patch); git grep over mm/ on
# tmpfs by 1..N processes, 8 greps each, and bench/logreread.c (one writer
# appending 64-byte records, 1..N readers re-reading recent ones): the
# real-world workloads, through UML's costly system calls, which bound
# their ratios (--no-gitgrep, --no-logreread leave them out).  Recorded
# workloads replayed in the kernel (--replay, default "sqlite nginx-read
# python-imports"; --no-replay): the reads of regular files that make
# readsizes traced (the newest results/*-readsizes folder, or
# --replay-from DIR), as (file, offset, bytes) records
# (bench/readsizes/replay.py) that one kthread per virtual CPU reads in
# order through ->read_iter, from files of the traced extents copied into
# tmpfs and ext4; the host's own 16-byte pread() is timed next to them
# (host-pread.csv), for the system call they leave out.  In the boots
# of kernels with the series' counters, bench/heldback.c samples the memory
# held back by the deferred freeing every millisecond during a truncate
# storm of 1..N processes on tmpfs, ext4 and xfs (held.csv).  --smoke: 1 boot, 1
# round, 16 B and 64 KiB, 100 ms points.  --boundaries: base and every
# patch boundary p1..pN (the last is the whole series), 16 B and 64 KiB,
# ownfd, no sequential rows (options after it can change that).
# --large-folios: both kernels also carry bench/uml/large-folios.patch, so
# that ext4 files get large folios (up to 1 MiB) without THP; they are
# built in build/uml/large-LABEL; the results go to <stamp>-uml-large-folios.
#
# Output (default results/<UTC stamp>-uml/): uml.csv, console logs,
# metadata.json, reproducer.sh, report.md (bench/report.py).
. "$(dirname "$0")/../../scripts/lib.sh"
. "$TOP/bench/uml/lib.sh"

NCPU=$(nproc)
default_cpus() {
	local n=1 out=''
	while [ "$n" -lt "$NCPU" ]; do out+="$n "; n=$((n * 2)); done
	echo "$out$NCPU"
}
KSPEC="base=$BASE_TAG final=$WORK_BRANCH"
CPUS=$(default_cpus) BOOTS=2 ROUNDS=3 MS=500 SIZES="16 512 4096 65536 1048576"
FSS="tmpfs ramfs ext4 xfs bdev" SHAPES="ownfd shared ownfile" SEQ=1 GITGREP=1 LOGRR=1 GGRUNS=8
OUT='' REPORT=1 BUILD_UML=1 SMOKE=0 BOUNDARIES=0 LARGE=0
REPLAY="sqlite nginx-read python-imports" REPLAY_FROM='' REPLAY_SET=0
ARGS=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) KSPEC=$2; shift ;;
	--cpus) CPUS=$2; shift ;;
	--boots) BOOTS=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--ms) MS=$2; shift ;;
	--sizes) SIZES=$2; shift ;;
	--fs) FSS=$2; shift ;;
	--shapes) SHAPES=$2; shift ;;
	--no-seq) SEQ=0 ;;
	--no-gitgrep) GITGREP=0 ;;
	--no-logreread) LOGRR=0 ;;
	--replay) REPLAY=$2 REPLAY_SET=1; shift ;;
	--no-replay) REPLAY='' REPLAY_SET=1 ;;
	--replay-from) REPLAY_FROM=$2; shift ;;
	--boundaries)
		BOUNDARIES=1 SIZES="16 65536" SHAPES=ownfd SEQ=0 GITGREP=0 LOGRR=0
		[ "$REPLAY_SET" = 1 ] || REPLAY=''
		;;
	--smoke)
		SMOKE=1 BOOTS=1 ROUNDS=1 MS=100 SIZES="16 65536" GGRUNS=1
		[ "$REPLAY_SET" = 1 ] || REPLAY=nginx-read
		;;
	--large-folios) LARGE=1 ;;
	--out) OUT=$2; shift ;;
	--no-report) REPORT=0 ;;
	--no-build) BUILD_UML=0 ;;
	-h | --help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (bench/uml/run.sh --help)" ;;
	esac
	shift
done
posint() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 wants a positive integer, not '$2'"; }
posint --boots "$BOOTS"
posint --rounds "$ROUNDS"
posint --ms "$MS"
MAXCPU=0
for c in $CPUS; do
	posint --cpus "$c"
	[ "$c" -le 64 ] || die "--cpus: UML has at most 64 CPUs (NR_CPUS), not $c"
	[ "$c" -gt "$MAXCPU" ] && MAXCPU=$c
done
[ "$MAXCPU" -gt 0 ] || die "--cpus is empty"
for s in $SIZES; do posint --sizes "$s"; [ "$s" -le 1048576 ] || die "--sizes: at most 1048576"; done
for f in $FSS; do case $f in tmpfs | ramfs | ext4 | xfs | bdev) ;; *) die "--fs: tmpfs, ramfs, ext4, xfs or bdev, not '$f'" ;; esac; done
for s in $SHAPES; do case $s in ownfd | shared | ownfile) ;; *) die "--shapes: ownfd, shared or ownfile, not '$s'" ;; esac; done
[ "$(uname -m)" = x86_64 ] || die "UML here is built for x86_64 hosts, not $(uname -m)"
# Prebuilt stand-ins (bench/uml/device.sh, on a machine without them):
# PCB_BUSYBOX, PCB_EXT4_GZ and PCB_XFS_GZ (empty images, gzipped), PCB_LOGBIN,
# PCB_HELDBIN, PCB_MODEL_BIN.
need=python3
[ -n "${PCB_BUSYBOX:-}" ] || need+=" busybox"
[ -n "${PCB_EXT4_GZ:-}" ] || need+=" mkfs.ext4"
case " $FSS " in *" xfs "*) [ -n "${PCB_XFS_GZ:-}" ] || need+=" mkfs.xfs" ;; esac
for t in $need; do
	command -v "$t" >/dev/null || die "$t not found (make deps)"
done
[ "$MAXCPU" -le "$NCPU" ] ||
	warn "$MAXCPU virtual CPUs on $NCPU host CPUs: they will time-share (see CPU-eff in the report)"
BUSYBOX=${PCB_BUSYBOX:-$(command -v busybox)}

if [ "$BOUNDARIES" = 1 ]; then
	n=$(kgit rev-list --count "$BASE_TAG..$WORK_BRANCH") || die "no series in $KSRC (make tree)"
	KSPEC="base=$BASE_TAG"
	for k in $(seq 1 "$n"); do KSPEC+=" p$k=$WORK_BRANCH~$((n - k))"; done
fi
LABELS=() REVS=()
for kv in $KSPEC; do
	[[ "$kv" == ?*=?* ]] || die "--kernels wants LABEL=REV pairs, not '$kv'"
	LABELS+=("${kv%%=*}")
	REVS+=("${kv#*=}")
done

SUFFIX=uml
[ "$LARGE" = 1 ] && SUFFIX=uml-large-folios
OUT=${OUT:-$TOP/results/$(date -u +%Y%m%dT%H%M%SZ)-$SUFFIX}
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)

# 1. Kernels and modules (bench/uml/lib.sh), from a worktree of their own so
# that guest kernel builds (build/linux-build) can run at the same time.
# Both kernels carry bench/uml/vmstat-raw.patch: UML SMP disables interrupts
# with a host sigprocmask() (about a microsecond), so every this_cpu_inc() of
# a vm event would cost more than a 16-byte read; x86 does it in one
# instruction.  The patch makes count_vm_event() a raw per-CPU increment on
# UML only, as cheap as on x86, in base and patched alike.  And both carry
# bench/uml/tso-barriers.patch: UML's asm-generic barriers make every
# smp_load_acquire() (i_size_read(), the folio flag tests) a full mfence
# and every smp_rmb() an lfence; on the x86-64 host, as in x86's own
# barrier.h, they are compiler barriers (TSO).
UB=$BUILD/uml
UML_PATCHES="vmstat-raw.patch tso-barriers.patch"
OBJP=''
if [ "$LARGE" = 1 ]; then
	OBJP=large-
	UML_PATCHES+=" large-folios.patch"
fi
PATCH_SUM=$(cd "$TOP/bench/uml" && cat $UML_PATCHES | sha256sum | cut -c1-12)
COMMITS=()
if [ "$BUILD_UML" = 1 ]; then
	mkdir -p "$UB"
	exec 8>"$UB/build.lock"
	flock -n 8 || { note "waiting for another UML build"; flock 8; }
fi
# Boundary kernels (--boundaries) share one object directory, built
# incrementally from patch to patch; their binaries and modules are copied
# to build/uml/pK.
for i in "${!LABELS[@]}"; do
	label=${LABELS[$i]} obj=$UB/$OBJP${LABELS[$i]}
	[ "$BOUNDARIES" = 1 ] && [ "$label" != base ] && build=$UB/${OBJP}bnd || build=$obj
	if [ "$BUILD_UML" = 0 ]; then
		[ -x "$obj/linux" ] || die "--no-build: no $obj/linux"
		COMMITS+=("$(cat "$obj/commit" 2>/dev/null || echo unknown)")
		if [ "$build" = "$obj" ] && [ -f "$obj/.config" ]; then
			uml_module "$obj" "$TOP/bench/uml/pcbench.c"
		else
			[ -f "$obj-mod/pcbench.ko" ] || die "--no-build: no $obj-mod/pcbench.ko"
			[ "$obj-mod/pcbench.ko" -nt "$TOP/bench/uml/pcbench.c" ] ||
				warn "$obj-mod/pcbench.ko is older than bench/uml/pcbench.c (prebuilt)"
		fi
		continue
	fi
	sha=$(kgit rev-parse --verify "${REVS[$i]}^{commit}" 2>/dev/null) ||
		die "no commit '${REVS[$i]}' in $KSRC (make tree)"
	COMMITS+=("$sha")
	stamp="$sha $PATCH_SUM"
	if [ "$(cat "$obj/stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$obj/linux" ] &&
		[ "$build" = "$obj" ] && [ "$obj/.config" -nt "$TOP/bench/uml/uml.config" ]; then
		note "uml: $label is built ($(kgit log -1 --format='%h %s' "$sha"))"
	else
		checkout_worktree "$sha" "$UB/src"
		for p in $UML_PATCHES; do
			git -C "$UB/src" apply "$TOP/bench/uml/$p" ||
				die "bench/uml/$p does not apply to $label"
		done
		t=$SECONDS
		note "uml: building $label ($(kgit log -1 --format='%h %s' "$sha") + $UML_PATCHES)"
		rm -f "$obj/commit" "$obj/stamp"
		uml_build "$UB/src" "$build" "$label"
		note "uml: $label built ($((SECONDS - t)) s)"
	fi
	grep -q '^CONFIG_SMP=y' "$build/.config" || die "$build is not an SMP build (bench/uml/uml.config)"
	uml_module "$build" "$TOP/bench/uml/pcbench.c"
	if [ "$build" != "$obj" ]; then
		rm -rf "$obj" "$obj-mod"
		mkdir -p "$obj" "$obj-mod"
		cp "$build/linux" "$obj/"
		cp "$build-mod/pcbench.ko" "$obj-mod/"
	fi
	echo "$sha" >"$obj/commit"
	echo "$stamp" >"$obj/stamp"
done
[ "$BUILD_UML" = 0 ] || exec 8>&-

# 2. The guest: init of a UML kernel whose root is this host's / (hostfs,
# read-only).  Parameters arrive in the environment (unknown name=value
# arguments on the kernel command line).  Only busybox (busybox-static) is
# used inside.
RUN=$(mktemp -d "$UB/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
[ "$SMOKE" = 1 ] && SEQMB=8 || SEQMB=64
# The log re-read workload: bench/logreread.c, static (bench/Makefile).
LOGBIN=''
[ "$SMOKE" = 1 ] && LOGSEC=1 || LOGSEC=3
if [ "$LOGRR" = 1 ] && [ -n "${PCB_LOGBIN:-}" ]; then
	LOGBIN=$PCB_LOGBIN
elif [ "$LOGRR" = 1 ]; then
	make -s -C "$TOP/bench" O="$BUILD/bench" "$BUILD/bench/logreread" >"$RUN/bench-build.log" 2>&1 ||
		{ cat "$RUN/bench-build.log" >&2; die "bench/logreread.c did not build"; }
	LOGBIN=$BUILD/bench/logreread
fi
# Memory held back during a truncate storm: bench/heldback.c, in every
# round of the boots whose kernel has the counters (the patched ones).
HELDBIN=${PCB_HELDBIN:-}
[ "$SMOKE" = 1 ] && HELDSEC=0.5 || HELDSEC=2
if [ -z "$HELDBIN" ]; then
	make -s -C "$TOP/bench" O="$BUILD/bench" "$BUILD/bench/heldback" >"$RUN/bench-build.log" 2>&1 ||
		{ cat "$RUN/bench-build.log" >&2; die "bench/heldback.c did not build"; }
	HELDBIN=$BUILD/bench/heldback
fi
# git grep reads the mm/ directory of the base kernel's source (through
# hostfs, copied to tmpfs inside), with the host's git.
TREE=''
if [ "$GITGREP" = 1 ]; then
	command -v git >/dev/null || die "git not found (make deps)"
	checkout_worktree "$BASE_TAG" "$UB/grep-tree"
	TREE=$UB/grep-tree/mm
fi
# Recorded workloads (make readsizes): each one's run-2 reads as a trace
# that pcbench replays, with files of its extents (bench/readsizes/replay.py).
REPLAYDIR='' EXT4_EXTRA=0
if [ -n "$REPLAY" ]; then
	[ -n "$REPLAY_FROM" ] || REPLAY_FROM=$(ls -d "$TOP"/results/*-readsizes 2>/dev/null | tail -1 || true)
	[ -d "$REPLAY_FROM/raw" ] || die "--replay: no readsizes folder with raw/ (make readsizes, or --replay-from DIR)"
	REPLAY_FROM=$(cd "$REPLAY_FROM" && pwd)
	REPLAYDIR=$RUN/replay
	mkdir -p "$REPLAYDIR" "$RUN/rs"
	echo "workload,reads,files,bytes_read,bytes_on_disk" >"$OUT/replay.csv"
	for w in $REPLAY; do
		[ -f "$REPLAY_FROM/raw/$w.tar.xz" ] || die "--replay: no $REPLAY_FROM/raw/$w.tar.xz"
		tar -xJf "$REPLAY_FROM/raw/$w.tar.xz" -C "$RUN/rs" || die "cannot unpack $w.tar.xz"
		line=$(python3 "$TOP/bench/readsizes/replay.py" "$RUN/rs/$w" "$REPLAYDIR/$w" | tail -1) ||
			die "bench/readsizes/replay.py $w failed"
		echo "$w,$line" >>"$OUT/replay.csv"
	done
	rm -rf "$RUN/rs"
	# room on ext4 for the files: a block per file more, and some slack
	EXT4_EXTRA=$(awk -F, 'NR > 1 { s += $5 + $3 * 4096 } END { print int(s / 1048576) + 16 }' "$OUT/replay.csv")
	# What the replay leaves out, on this host: a 16-byte pread() of a
	# hot tmpfs file, system call and mitigations included (3 runs of 1 s).
	if [ "$SMOKE" != 1 ]; then
		make -s -C "$TOP/bench" O="$BUILD/bench" "$BUILD/bench/pread" >"$RUN/bench-build.log" 2>&1 ||
			{ cat "$RUN/bench-build.log" >&2; die "bench/pread.c did not build"; }
		hp=$(mktemp -d "${PCB_TMPDIR:-/dev/shm}/pcb-pread.XXXXXX")
		for i in 1 2 3; do
			"$BUILD/bench/pread" -d "$hp" -m zero -t 1 -l 16 -s 1m -D 1 -w 0.2 $([ "$i" = 1 ] && echo -H) ||
				die "bench/pread on the host failed"
		done >"$OUT/host-pread.csv"
		rm -rf "$hp"
	fi
fi
sed "s|@BUSYBOX@|$BUSYBOX|" >"$RUN/guest.sh" <<'EOF'
#!@BUSYBOX@ sh
b=@BUSYBOX@
fail() { echo "pcb-guest: error: $*"; echo BENCH-FAILED; $b poweroff -f; exit 1; }
$b mount -t proc proc /proc && $b mount -t sysfs sys /sys || fail "proc/sys"
for v in pcb_cpus pcb_sizes pcb_fs pcb_shapes pcb_replay; do eval "$v=\$(echo \$$v | $b tr , ' ')"; done
ncpu=$($b grep -c '^processor' /proc/cpuinfo)
echo "CPUS,$ncpu"
[ "$ncpu" -ge "$pcb_maxcpu" ] || fail "$ncpu CPUs online, $pcb_maxcpu wanted"
$b mount -t tmpfs -o size=16m top /mnt && $b mkdir /mnt/tmpfs /mnt/ramfs /mnt/ext4 /mnt/xfs /mnt/bdev ||
	fail "tmpfs on /mnt"
$b mount -t tmpfs -o size=1g,huge=never t /mnt/tmpfs || fail "tmpfs"
$b mount -t ramfs r /mnt/ramfs || fail "ramfs"
$b mount -t ext4 /dev/ubda /mnt/ext4 || fail "ext4 on /dev/ubda"
case " $pcb_fs " in *" xfs "*) $b mount -t xfs /dev/ubdb /mnt/xfs || fail "xfs on /dev/ubdb" ;; esac
# hot: 2 MiB of data, read at offset 0; hot.I: thread I's own file
$b dd if=/dev/urandom of=/mnt/tmpfs/src bs=1M count=2 2>/dev/null || fail "random data"
for fs in $pcb_fs; do
	if [ "$fs" = bdev ]; then
		# the block device itself: its first 2 MiB, through the node
		$b dd if=/mnt/tmpfs/src of=/dev/ubdc bs=1M count=2 conv=fsync 2>/dev/null ||
			fail "data on /dev/ubdc"
		$b ln -s /dev/ubdc /mnt/bdev/hot || fail "bdev link"
		continue
	fi
	$b cp /mnt/tmpfs/src /mnt/$fs/hot || fail "hot file on $fs"
	# small: 512 KiB, read on in 4 KiB reads (the case where October
	# 2025's fast short reads lost half their speed without contention)
	$b dd if=/mnt/tmpfs/src of=/mnt/$fs/small bs=512k count=1 2>/dev/null || fail "small file on $fs"
	i=0
	while [ $i -lt "$pcb_maxcpu" ]; do
		$b cp /mnt/tmpfs/src /mnt/$fs/hot.$i || fail "hot.$i on $fs"
		i=$((i + 1))
	done
done
# the replayed workloads' files, on tmpfs and ext4 (of those measured)
rfs=''
for fs in $pcb_fs; do case $fs in tmpfs | ext4) rfs="$rfs $fs" ;; esac; done
for w in $pcb_replay; do
	for fs in $rfs; do
		$b mkdir -p /mnt/$fs/replay && $b cp -r "$pcb_replaydir/$w" /mnt/$fs/replay/ ||
			fail "files of $w on $fs"
	done
done
if [ "$pcb_seq" = 1 ]; then
	$b dd if=/dev/urandom of=/mnt/tmpfs/normal bs=1M count="$pcb_seqmb" 2>/dev/null || fail "seq file"
	$b fallocate -l "${pcb_seqmb}M" /mnt/tmpfs/falloc || fail fallocate
	$b truncate -s "${pcb_seqmb}M" /mnt/tmpfs/hole || fail truncate
fi
if [ -n "$pcb_tree" ]; then
	$b cp -r "$pcb_tree" /mnt/tmpfs/tree || fail "copy $pcb_tree"
	git -c grep.threads=1 -C /mnt/tmpfs/tree grep --no-index -c folio >/dev/null || fail "git grep"
fi
$b sync
$b insmod "$pcb_ko" || fail "insmod $pcb_ko"
P=/sys/module/pcbench/parameters
# The series' counters: chunks the lockless read copied, and its fallbacks
# to the slow path (nothing on a kernel without them).
fast() {
	$b awk '$1 == "pgcache_fast_read" { h = $2; n++ }
		$1 ~ /^pgcache_fast_read_/ { f += $2 }
		END { if (n) print h + 0, f + 0 }' /proc/vmstat
}
# pt ROUND TEST FS FILE SHAPE MODE LEN CPUS: one point, one ROW line, and
# a HITS line with the counters' deltas over the point for a read test
pt() {
	if [ "$2" = atomic ]; then
		cmd="atomic shape=$5 cpus=$8 ms=$pcb_ms"
	elif [ "$2" = replay ]; then
		cmd="replay path=/mnt/$3/replay/$4 cpus=$8 ms=$pcb_ms"
	else
		cmd="read path=/mnt/$3/$4 shape=$5 mode=$6 len=$7 cpus=$8 ms=$pcb_ms"
	fi
	c0='' c1=''
	[ "$2" = atomic ] || c0=$(fast)
	echo "$cmd" >$P/run || fail "'$cmd': $($b cat $P/result)"
	[ "$2" = atomic ] || c1=$(fast)
	res=$($b cat $P/result)
	echo "ROW,$pcb_label,$pcb_boot,$1,$2,$3,$4,$5,$6,$7,$8,$res"
	if [ -n "$c0" ] && [ -n "$c1" ]; then
		ops=${res#ops=}
		set -- "$pcb_label" "$pcb_boot" "$1" "$3" "$4" "$5" "$7" "$8" "${ops%% *}" $c0 $c1
		echo "HITS,$1,$2,$3,$4,$5,$6,$7,$8,$9,$((${12} - ${10})),$((${13} - ${11}))"
	fi
}
# warm-up, discarded (the first run after boot is slow)
set -- $pcb_fs
pt 0 read "$1" hot ownfd zero 16 1 >/dev/null
pt 0 atomic - - shared - 0 "$pcb_maxcpu" >/dev/null
r=1
while [ $r -le "$pcb_rounds" ]; do
	for sh in shared private; do
		for c in $pcb_cpus; do pt $r atomic - - $sh - 0 $c; done
	done
	for fs in $pcb_fs; do
		for sh in $pcb_shapes; do
			[ "$fs/$sh" = bdev/ownfile ] && continue
			for l in $pcb_sizes; do
				for c in $pcb_cpus; do pt $r read $fs hot $sh zero $l $c; done
			done
		done
	done
	if [ "$pcb_seq" = 1 ]; then
		for fs in $pcb_fs; do
			[ "$fs" = bdev ] || pt $r seq $fs small ownfd seq 4096 1
		done
		for f in normal falloc hole; do
			for l in 4096 65536 1048576; do pt $r seq tmpfs $f ownfd seq $l 1; done
		done
	fi
	for w in $pcb_replay; do
		for fs in $rfs; do
			for c in $pcb_cpus; do pt $r replay $fs $w ownfd replay 0 $c; done
		done
	done
	if [ -n "$pcb_tree" ]; then
		# git grep over mm/ on tmpfs: N processes (separate host processes
		# in UML: they run in parallel), each grepping the tree
		# $pcb_ggruns times, one thread each; rate = greps per second.
		# Each grep's system calls cost UML tens of microseconds, which
		# caps what the page cache part can change.
		for c in $pcb_cpus; do
			t0=$($b cut -d' ' -f1 /proc/uptime)
			i=0
			while [ $i -lt "$c" ]; do
				(j=0; while [ $j -lt "$pcb_ggruns" ]; do
					git -c grep.threads=1 -C /mnt/tmpfs/tree grep --no-index -c folio >/dev/null || exit 1
					j=$((j + 1))
				done) &
				i=$((i + 1))
			done
			wait || fail "git grep"
			t1=$($b cut -d' ' -f1 /proc/uptime)
			ns=$($b awk "BEGIN{printf \"%.0f\", ($t1 - $t0) * 1e9}")
			ops=$((c * pcb_ggruns))
			echo "ROW,$pcb_label,$pcb_boot,$r,gitgrep,tmpfs,mm,procs,-,0,$c,ops=$ops rate=$($b awk "BEGIN{printf \"%.0f\", $ops / ($ns / 1e9)}") cpu_ns=0 wall_ns=$ns"
		done
	fi
	if [ -n "$pcb_logbin" ]; then
		# Matthew Wilcox's log: one writer appends 64-byte records, N
		# reader processes pread() recent ones (bench/logreread.c); the
		# readers' system calls cost UML tens of microseconds each.
		for c in $pcb_cpus; do
			$b mkdir -p /mnt/tmpfs/log
			line=$("$pcb_logbin" -d /mnt/tmpfs/log -f tmpfs -W 1 -R "$c" -D "$pcb_logsec" -w 0.3) ||
				fail "logreread -R $c"
			# fs,writers,readers,reads,writes,seconds,reads_per_sec,writes_per_sec
			set -- $(echo "$line" | $b tr , ' ')
			ns=$($b awk "BEGIN{printf \"%.0f\", $6 * 1e9}")
			echo "ROW,$pcb_label,$pcb_boot,$r,logreread,tmpfs,log,procs,-,64,$c,ops=$4 rate=${7%.*} cpu_ns=0 wall_ns=$ns"
			$b rm -rf /mnt/tmpfs/log
		done
	fi
	if [ -n "$pcb_heldbin" ]; then
		# Memory held back by the deferred freeing during a truncate
		# storm of c processes, sampled every millisecond; nothing on a
		# kernel without the counters (exit status 2).
		for fs in $pcb_fs; do
			case $fs in ramfs | bdev) continue ;; esac
			for c in $pcb_cpus; do
				$b mkdir -p /mnt/$fs/held
				line=$("$pcb_heldbin" -d /mnt/$fs/held -P "$c" -D "$pcb_heldsec")
				rc=$?
				[ $rc = 2 ] && break 2
				[ $rc = 0 ] || fail "heldback on $fs, $c processes"
				echo "HELD,$pcb_label,$pcb_boot,$r,$line"
				$b rm -rf /mnt/$fs/held
			done
		done
	fi
	r=$((r + 1))
done
echo "VMSTAT,$pcb_label,$pcb_boot,$($b grep '^pgcache' /proc/vmstat | $b tr ' \n' '= ')"
echo BENCH-DONE
$b poweroff -f
EOF
chmod +x "$RUN/guest.sh"

# Lists travel comma-separated: the kernel splits its command line at spaces.
commas() { local IFS=,; echo "$*"; }
echo "kernel,boot,round,test,fs,file,shape,mode,len,cpus,ops,rate,cpu_ns,wall_ns" >"$OUT/uml.csv"
echo "kernel,boot,round,fs,procs,seconds,files,deferred_kib,samples,max_gap_us,peak_kib,median_kib,back_us,expedited,throttled,limit_kib,bound_kib,bound_held" >"$OUT/held.csv"
echo "kernel,boot,round,fs,file,shape,len,cpus,reads,fast_chunks,fallbacks" >"$OUT/hits.csv"
# UML backs its memory with a file in TMPDIR: a tmpfs, unless PCB_TMPDIR says.
UML_TMP=${PCB_TMPDIR:-/dev/shm}
: >"$OUT/vmstat.txt"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$SECONDS nboot=$((BOOTS * ${#LABELS[@]})) n=0
for boot in $(seq 1 "$BOOTS"); do
	for i in "${!LABELS[@]}"; do
		label=${LABELS[$i]} n=$((n + 1))
		log=$OUT/logs/$label-boot$boot.log
		uml_ext4_image "$RUN/ext4.img" $((64 + 3 * MAXCPU + EXT4_EXTRA))M
		case " $FSS " in *" xfs "*) uml_xfs_image "$RUN/xfs.img" ;; *) truncate -s 1M "$RUN/xfs.img" ;; esac
		rm -f "$RUN/bdev.img"
		truncate -s 64M "$RUN/bdev.img"
		t=$SECONDS rc=0
		TMPDIR=$UML_TMP timeout -s KILL 3600 "$UB/$OBJP$label/linux" mem=2G ncpus="$MAXCPU" seccomp=on \
			rootfstype=hostfs rootflags=/ ro init="$RUN/guest.sh" \
			con=null con0=null,fd:1 ubd0="$RUN/ext4.img" ubd1="$RUN/xfs.img" ubd2="$RUN/bdev.img" umid="pcb$$" uml_dir="$RUN" \
			pcb_label="$label" pcb_boot="$boot" pcb_rounds="$ROUNDS" pcb_ms="$MS" \
			pcb_cpus="$(commas $CPUS)" pcb_maxcpu="$MAXCPU" pcb_sizes="$(commas $SIZES)" \
			pcb_fs="$(commas $FSS)" pcb_shapes="$(commas $SHAPES)" pcb_seq="$SEQ" pcb_seqmb="$SEQMB" \
			pcb_tree="$TREE" pcb_ggruns="$GGRUNS" pcb_logbin="$LOGBIN" pcb_logsec="$LOGSEC" \
			pcb_heldbin="$HELDBIN" pcb_heldsec="$HELDSEC" \
			pcb_replay="$(commas $REPLAY)" pcb_replaydir="$REPLAYDIR" \
			pcb_ko="$UB/$OBJP$label-mod/pcbench.ko" </dev/null >"$log" 2>&1 || rc=$?
		grep -q '^BENCH-DONE' "$log" ||
			{ tail -15 "$log" >&2; die "[$n/$nboot] $label boot $boot failed (exit $rc, $log)"; }
		# ROW,...,ops=A rate=B cpu_ns=C wall_ns=D min_ops=.. max_ops=..
		sed -n 's/^ROW,//p' "$log" |
			sed 's/ops=\([0-9]*\) rate=\([0-9]*\) cpu_ns=\([0-9]*\) wall_ns=\([0-9]*\).*/\1,\2,\3,\4/' >"$RUN/rows.csv"
		bad=$(awk -F, 'NF != 14 || $11 !~ /^[0-9]+$/ || $12 !~ /^[0-9]+$/ ||
			$13 !~ /^[0-9]+$/ || $14 !~ /^[0-9]+$/' "$RUN/rows.csv" | head -1)
		[ -z "$bad" ] || die "[$n/$nboot] $label boot $boot: a row that does not parse: $bad ($log)"
		cat "$RUN/rows.csv" >>"$OUT/uml.csv"
		grep '^VMSTAT,' "$log" >>"$OUT/vmstat.txt" || true
		sed -n 's/^HELD,//p' "$log" >"$RUN/held.csv"
		bad=$(awk -F, 'NF != 18' "$RUN/held.csv" | head -1)
		[ -z "$bad" ] || die "[$n/$nboot] $label boot $boot: a heldback line that does not parse: $bad ($log)"
		cat "$RUN/held.csv" >>"$OUT/held.csv"
		sed -n 's/^HITS,//p' "$log" >"$RUN/hits.csv"
		bad=$(awk -F, 'NF != 11' "$RUN/hits.csv" | head -1)
		[ -z "$bad" ] || die "[$n/$nboot] $label boot $boot: a HITS line that does not parse: $bad ($log)"
		cat "$RUN/hits.csv" >>"$OUT/hits.csv"
		note "uml: [$n/$nboot] boot $boot, $label: $(grep -c '^ROW,' "$log") points ($((SECONDS - t)) s)"
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# The userspace model on the host's real cores: a reference-counted read
# against the lockless copy of mm/filemap_fast.h, 1..N threads on one folio,
# reads of 16 to 512 bytes, MODEL_RUNS runs (a column of its own in the CSV).
MODEL=$TOP/tools/testing/pagecache-model
MODEL_BIN=${PCB_MODEL_BIN:-$TOP/build/model/pagecache-model-bench}
if [ "$SMOKE" != 1 ] && { [ -n "${PCB_MODEL_BIN:-}" ] || [ -f "$TOP/build/linux/mm/filemap_fast.h" ]; }; then
	note "model bench: refcount vs lockless copy on the host's $NCPU CPUs, ${MODEL_RUNS:-3} runs"
	if [ -n "${PCB_MODEL_BIN:-}" ] || make -s -C "$MODEL" KSRC="$TOP/build/linux" O="$TOP/build/model" \
		"$TOP/build/model/pagecache-model-bench" >"$OUT/model-bench.log" 2>&1; then
		for run in $(seq 1 "${MODEL_RUNS:-3}"); do
			"$MODEL_BIN" -b -d "${MODEL_SECONDS:-2}" \
				-t "$NCPU" -l 16,64,256,512 2>>"$OUT/model-bench.log" |
				awk -v run="$run" \
					'NR == 1 { if (run == 1) print "run," $0; next } { print run "," $0 }' ||
				{ note "model bench failed ($OUT/model-bench.log)"; break; }
		done >"$OUT/model-bench.csv"
	else
		note "model bench: build failed ($OUT/model-bench.log)"
	fi
fi

# The series measured: its patches without the cover letter (which quotes
# the results), as bench/series-hash.sh computes it.
series_hash=$("$TOP/bench/series-hash.sh")
BUILD="$BUILD" UML_PATCHES="$UML_PATCHES" REPLAY_FROM="${REPLAY:+$REPLAY_FROM}" TOP="$TOP" python3 - "$OUT" "$((SECONDS - T0))" "$series_hash" "$load0" "$load1" "$MAXCPU" "$CPUS" \
	"$BOOTS" "$ROUNDS" "$MS" "${#LABELS[@]}" "${LABELS[@]}" "${COMMITS[@]}" <<'EOF'
import json, os, platform, subprocess, sys
out, wall, shash, load0, load1, maxcpu, cpus, boots, rounds, ms, n = sys.argv[1:12]
n = int(n)
labels, commits = sys.argv[12:12 + n], sys.argv[12 + n:12 + 2 * n]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "unknown")
gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
base = {}
benv = os.path.join(os.environ.get("BUILD", ""), "base.env")
if os.path.exists(benv):
    for line in open(benv):
        if "=" in line:
            k, v = line.strip().split("=", 1)
            base[k] = v.strip("'\"")
large = "large-folios.patch" in os.environ["UML_PATCHES"].split()
meta = {"kind": "uml", "instrument": "User-Mode Linux SMP (arch/um, seccomp=on), "
        "in-kernel read loops, one kthread per virtual CPU" +
        (", large page cache folios without THP (bench/uml/large-folios.patch)" if large else ""),
        "base": base, "series_hash": shash, "cpus": int(maxcpu),
        "cpu_counts": [int(c) for c in cpus.split()], "boots": int(boots),
        "rounds": int(rounds), "ms": int(ms), "wall_seconds": int(wall),
        "kernels": [{"label": l, "commit": c, "config": "ARCH=um defconfig + bench/uml/uml.config",
                     "bench_patches": ["bench/uml/" + p for p in os.environ["UML_PATCHES"].split()]}
                    for l, c in zip(labels, commits)],
        "host_cpu_model": cpu, "host_cpus": os.cpu_count(), "host_kernel": platform.release(),
        "host_loadavg_before": load0, "host_loadavg_after": load1, "gcc_version": gcc,
        "workbench_commit": subprocess.run(["git", "-C", os.path.dirname(out), "rev-parse", "HEAD"],
                                           capture_output=True, text=True).stdout.strip(),
        "workbench_uncommitted_files": len(subprocess.run(
            ["git", "-C", os.path.dirname(out), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True).stdout.splitlines())}
if os.environ.get("REPLAY_FROM"):
    top = os.environ["TOP"]
    rf = os.environ["REPLAY_FROM"]
    meta["replay_from"] = os.path.relpath(rf, top) if rf.startswith(top + "/") else rf
hp = os.path.join(out, "host-pread.csv")
if os.path.exists(hp):
    import csv, statistics
    ns = [1e9 / float(r["ops_per_sec"]) for r in csv.DictReader(open(hp)) if float(r["ops_per_sec"]) > 0]
    if ns:
        meta["host_pread16_ns"] = [statistics.median(ns), min(ns), max(ns)]
with open(os.path.join(out, "metadata.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
EOF
{
	echo '#!/bin/sh'
	echo "# Re-run this measurement: run it at the top of a fresh clone of the"
	echo "# workbench; it checks out the commit measured and builds everything."
	echo "# Base: $(sed -n 's/^BASE_SUBJECT=//p; s/^BASE_COMMIT=//p' "$BUILD/base.env" 2>/dev/null | paste -sd' ')"
	echo 'set -e'
	echo "git checkout $(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo HEAD)"
	echo 'make deps tree'
	printf 'bench/uml/run.sh'
	[ ${#ARGS[@]} -gt 0 ] && printf ' %q' "${ARGS[@]}"
	echo
} >"$OUT/reproducer.sh"
chmod +x "$OUT/reproducer.sh"
# Debian's python3 has python3-matplotlib (make deps) for the plot; another
# python3 first in PATH may not.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
[ "$REPORT" = 0 ] || "$PY" "$TOP/bench/report.py" "$OUT" || die "report.py failed"
note "uml: results in $OUT ($((SECONDS - T0)) s of boots)"

#!/usr/bin/env bash
# bench/uml/ab/run.sh (make bench-uml-ab): patch 6's tmpfs read loop against
# 6.12's, in one boot of one User-Mode Linux kernel, on this host's real CPU.
#
#   bench/uml/ab/run.sh [--rev REV] [--boots N] [--rounds N] [--out DIR]
#                       [--src DIR] [--obj DIR] [--locked] [--rethunk]
#
# Why one boot: boots of two UML kernels here differ by more than the
# series changes a read (whole rows ran 1.7x slower for seconds at a time
# on a shared host), and streaming rows also moved by a few percent with
# the kernel image alone.  So knob.patch puts 6.12's shmem_file_read_iter()
# beside the series' into one kernel (REV, default branch work, plus the
# patch: an experiment build, never posted), selected by a global variable
# that pcbab.ko flips between batches of reads.  Each row is 300 rounds of
# one batch per variant, order alternating; the report gives the median of
# the per-round speed ratios over 6.12's loop, and its quartiles.
# Variants: 0 = the series (filemap_read_hot() then patch 6's loop),
# 1 = 6.12's loop, 2 = the series without the filemap_read_hot() call,
# and five that put back what an earlier version of the series did, to
# measure each on its own: 3 = one-page reads through the folio_batch,
# dropped with folios_put() (called for an empty batch too), 4 =
# filemap_rcu_free_allowed() asked on every read, 5 = filemap_read_hot()
# called out of line, 6 = the folio_batch cleared on every read, as
# CONFIG_INIT_STACK_ALL_ZERO does without __uninitialized, 7 = likewise
# filemap_read_fast()'s 512-byte bounce buffer, 8 = no 512-byte limit on
# the lockless read (reads of any size through the bounce buffer, 512
# bytes at a time, as before the limit), 9 = every folio that is not
# uptodate taken under its lock, one folio at a time (fallocated files).
#
# The source is a worktree of build/linux (--src, default build/linux-ab)
# with knob.patch applied; objects in --obj (default build/uml/ab), with
# ARCH=um defconfig + bench/uml/uml.config like bench/uml/run.sh.  Output
# (default results/<UTC date>-uml-ab/): ab.csv, logs, metadata.json,
# report.md.  One CPU and no THP, as for bench/uml/run.sh.
#
# --locked also applies locked.patch: UML on 6.12 has no SMP, so its
# atomics, cmpxchg and bit operations (the refcount, the folio lock) lack
# the LOCK prefix that every SMP kernel gives them, and cost less than
# there; with it they cost what they cost uncontended on an SMP kernel.
# Its own worktree and objects (default build/linux-ab-locked and
# build/uml/ab-locked), output results/<UTC date>-uml-ab-locked/.
#
# --rethunk builds kernel and module with -mfunction-return=thunk-inline:
# every return goes through a thunk that makes it mispredict, as the Safe
# RET mitigation of SRSO does on AMD Zen 3 and 4 (what this host's kernel
# runs, if /sys/devices/system/cpu/vulnerabilities/spec_rstack_overflow
# says "Safe RET").  UML's code has no return thunks otherwise.  Indirect
# branch thunks (retpolines) are left out: UML's -mcmodel=large makes
# every call indirect.  Objects in build/uml/ab[-locked]-rethunk.
. "$(dirname "$0")/../../../scripts/lib.sh"
. "$TOP/bench/uml/lib.sh"

AB=$TOP/bench/uml/ab
REV=$WORK_BRANCH BOOTS=2 ROUNDS=300 OUT='' SRC='' OBJ='' LOCKED='' RETHUNK=''
while [ $# -gt 0 ]; do
	case "$1" in
	--rev) REV=$2; shift ;;
	--boots) BOOTS=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--out) OUT=$2; shift ;;
	--src) SRC=$2; shift ;;
	--obj) OBJ=$2; shift ;;
	--locked) LOCKED=-locked ;;
	--rethunk) RETHUNK=-rethunk ;;
	-h | --help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (bench/uml/ab/run.sh --help)" ;;
	esac
	shift
done
[[ "$BOOTS" =~ ^[1-9][0-9]*$ ]] || die "--boots wants a positive integer, not '$BOOTS'"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] && [ "$ROUNDS" -le 1000 ] ||
	die "--rounds wants an integer 1..1000, not '$ROUNDS'"
[ "$(uname -m)" = x86_64 ] || die "UML here is built for x86_64 hosts, not $(uname -m)"
for t in mkfs.ext4 busybox python3; do
	command -v "$t" >/dev/null || die "$t not found (make deps)"
done
BUSYBOX=$(command -v busybox)
SRC=$(realpath -m "${SRC:-$BUILD/linux-ab$LOCKED}") OBJ=$(realpath -m "${OBJ:-$BUILD/uml/ab$LOCKED$RETHUNK}")

# 1. The experiment kernel: REV plus knob.patch, in its own worktree
# (bench/uml/lib.sh builds it).
sha=$(kgit rev-parse --verify "$REV^{commit}" 2>/dev/null) ||
	die "no commit '$REV' in $KSRC (make tree)"
checkout_worktree "$sha" "$SRC"
git -C "$SRC" apply "$AB/knob.patch" ||
	die "knob.patch does not apply to $REV: regenerate it (see its header)"
PATCHES=knob.patch
if [ -n "$LOCKED" ]; then
	git -C "$SRC" apply "$AB/locked.patch" ||
		die "locked.patch does not apply to $REV: regenerate it (see its header)"
	PATCHES="knob.patch + locked.patch"
fi
if [ -n "$RETHUNK" ]; then
	export KCFLAGS="${KCFLAGS:+$KCFLAGS }-mfunction-return=thunk-inline"
	PATCHES="$PATCHES, KCFLAGS=$KCFLAGS"
fi
t=$SECONDS
note "uml-ab: building $(kgit log -1 --format='%h %s' "$sha") + $PATCHES"
uml_build "$SRC" "$OBJ" "$REV + $PATCHES"
uml_module "$OBJ" "$AB/pcbab.c"
note "uml-ab: built ($((SECONDS - t)) s)"

OUT=${OUT:-$TOP/results/$(date -u +%Y%m%dT%H%M%SZ)-uml-ab$LOCKED$RETHUNK}
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)

# 2. The guest: tmpfs huge=never, 64 MiB written, fallocated and sparse
# files, as bench/uml/run.sh; rows of 4 KiB at offset 0 and 4 KiB, 64 KiB
# and 1 MiB sequential (the fio table's sizes), variants 0-6 (and 9 for
# the fallocated file); the same
# sequential reads of a written file of 4 MiB ("small", in the host's L3
# cache) and of 1 GiB ("big", the size of the fio runs of Chi Zhiling's
# shmem series), variants 1, 0 and 2, to see whether the file's size
# decides what the batch saves; then 16 to
# 512 B at offset 0 of the written file, variants 1, 0, 2 and 7, and of an
# ext4 file (a fresh ubd image each boot) with pcbab's knob=fast, which
# flips vm.pagecache_fast_read too (f0 = off, f1 = on, f7 = on with
# variant 7); then 1 to 16 KiB at offset 0 of both, with variant 8 (f8),
# what the 512-byte limit saves (also in the 4 KiB row at offset 0).
RUN=$(mktemp -d "$BUILD/uml/run-ab.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
sed "s|@BUSYBOX@|$BUSYBOX|" >"$RUN/guest.sh" <<'EOF'
#!@BUSYBOX@ sh
b=@BUSYBOX@
fail() { echo "pcbab-guest: error: $*"; echo BENCH-FAILED; $b poweroff -f; exit 1; }
$b mount -t proc proc /proc || fail proc
$b mount -t tmpfs -o size=16m top /mnt && $b mkdir /mnt/t /mnt/e || fail "tmpfs on /mnt"
$b mount -t tmpfs -o size=1400m,huge=never t /mnt/t || fail tmpfs
$b dd if=/dev/urandom of=/mnt/t/normal bs=1M count=64 2>/dev/null || fail "write file"
$b dd if=/dev/urandom of=/mnt/t/small bs=1M count=4 2>/dev/null || fail "write small file"
$b dd if=/dev/urandom of=/mnt/t/big bs=1M count=1024 2>/dev/null || fail "write big file"
$b fallocate -l 64M /mnt/t/falloc || fail fallocate
$b truncate -s 64M /mnt/t/hole || fail truncate
$b mount -t ext4 /dev/ubda /mnt/e || fail "ext4 on /dev/ubda"
$b dd if=/dev/urandom of=/mnt/e/normal bs=1M count=8 2>/dev/null && $b sync || fail "write ext4 file"
row() { # name path len mode iters variants [knob]
	$b dmesg -c >/dev/null
	$b insmod "$pcb_ko" path="$2" len="$3" mode="$4" iters="$5" \
		rounds="$pcb_rounds" variants="$6" knob="${7:-shmem}" 2>/dev/null
	# busybox insmod tries init_module() after finit_module() fails
	# (-ECANCELED), so the rows may come twice: keep the last of each.
	nv=$(echo "$6" | $b tr ',' '\n' | $b grep -c .)
	r=$($b dmesg | $b grep 'pcbab: .* ratio_x10000=' | $b tail -"$nv")
	[ "$(echo "$r" | $b grep -c .)" = "$nv" ] ||
		fail "no result for $2 len $3 mode $4: $($b dmesg | $b tail -3 | $b tr '\n' ' ')"
	echo "$r" | $b sed -n "s/.*pcbab: [^ ]* len=\([0-9]*\) mode=\([0-9]\) variant=\(f\{0,1\}[0-9]\) ratio_x10000=\([0-9]*\) q1=\([0-9]*\) q3=\([0-9]*\) ns_x100=\([0-9]*\)$/ROW,$pcb_boot,$1,\1,\2,\3,\4,\5,\6,\7/p"
}
ALL=1,0,2,3,4,5,6
for f in normal falloc hole; do
	[ $f = normal ] && row $f /mnt/t/$f 4096 0 2000 $ALL,8
	v=$ALL; [ $f = falloc ] && v=$ALL,9
	row $f /mnt/t/$f 4096 1 2000 $v
	row $f /mnt/t/$f 65536 1 200 $v
	row $f /mnt/t/$f 1048576 1 12 $v
done
for f in small big; do
	row $f /mnt/t/$f 4096 1 2000 1,0,2
	row $f /mnt/t/$f 65536 1 200 1,0,2
	row $f /mnt/t/$f 1048576 1 12 1,0,2
done
# Short reads of one hot folio, where the lockless read's bounce copy meets
# what it saves: tmpfs against 6.12's loop, and ext4 with the lockless read
# off (f0, the reference point) and on (f1); 7: the bounce buffer cleared.
for l in 16 64 128 192 256 384 512; do
	row normal /mnt/t/normal $l 0 5000 1,0,2,7
	row ext4 /mnt/e/normal $l 0 5000 0,1,7 fast
done
# Longer reads, where the limit keeps the reference-counted loop (0, f1)
# and variant 8 (f8) reads through the bounce buffer as before the limit
# (tmpfs at 4 KiB: in the first rows).
for l in 1024 2048 4096 16384; do
	[ $l = 4096 ] || row normal /mnt/t/normal $l 0 2000 1,0,8
	row ext4 /mnt/e/normal $l 0 2000 0,1,8 fast
done
echo BENCH-DONE
$b poweroff -f
EOF
chmod +x "$RUN/guest.sh"

echo "boot,file,len,mode,variant,ratio_x10000,q1_x10000,q3_x10000,ns_x100" >"$OUT/ab.csv"
T0=$SECONDS
for boot in $(seq 1 "$BOOTS"); do
	log=$OUT/logs/boot$boot.log t=$SECONDS rc=0
	uml_ext4_image "$RUN/ext4.img" 64M
	timeout -s KILL 900 "$OBJ/linux" mem=2G rootfstype=hostfs rootflags=/ ro \
		init="$RUN/guest.sh" con=null con0=null,fd:1 ubd0="$RUN/ext4.img" \
		umid="pcbab$$" uml_dir="$RUN" pcb_boot="$boot" pcb_rounds="$ROUNDS" \
		pcb_ko="$OBJ-mod/pcbab.ko" </dev/null >"$log" 2>&1 || rc=$?
	grep -q '^BENCH-DONE' "$log" ||
		{ tail -15 "$log" >&2; die "boot $boot/$BOOTS failed (exit $rc, $log)"; }
	grep '^ROW,' "$log" | sed 's/^ROW,//' >>"$OUT/ab.csv"
	note "uml-ab: boot $boot/$BOOTS: $(grep -c '^ROW,' "$log") rows ($((SECONDS - t)) s)"
done

python3 - "$OUT" "$BOOTS" "$ROUNDS" "$((SECONDS - T0))" "$sha" "$LOCKED" "$RETHUNK" <<'EOF'
import json, os, platform, sys
out, boots, rounds, wall, sha, locked, rethunk = sys.argv[1:8]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "unknown")
meta = {"kind": "uml-ab", "boots": int(boots), "rounds": int(rounds),
        "wall_seconds": int(wall), "commit": sha, "patch": "bench/uml/ab/knob.patch",
        "atomics": "locked" if locked else "uniprocessor",
        "returns": "thunk-inline" if rethunk else "plain",
        "variants": {"0": "series", "1": "6.12 shmem loop", "2": "series without filemap_read_hot()",
                     "3": "series, one-page reads through the batch (earlier version)",
                     "4": "series, filemap_rcu_free_allowed() on every read (earlier version)",
                     "5": "series, filemap_read_hot() out of line (earlier version)",
                     "6": "series, folio_batch cleared on every read (INIT_STACK_ALL_ZERO)",
                     "7": "series, fast-read bounce buffer cleared on every call (INIT_STACK_ALL_ZERO)",
                     "8": "series without the 512-byte limit on the lockless read (earlier version)",
                     "9": "series, every folio not uptodate under its lock, one folio at a time (earlier version)",
                     "f0": "vm.pagecache_fast_read=0 (ext4 rows)",
                     "f1": "vm.pagecache_fast_read=1 (ext4 rows)",
                     "f7": "vm.pagecache_fast_read=1 and variant 7 (ext4 rows)",
                     "f8": "vm.pagecache_fast_read=1 and variant 8 (ext4 rows)"},
        "uml": "ARCH=um defconfig + bench/uml/uml.config, mem=2G, hostfs root, 1 CPU",
        "host_cpu_model": cpu, "host_cpus": os.cpu_count(), "host_kernel": platform.release()}
with open(os.path.join(out, "metadata.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
EOF
python3 "$AB/report.py" "$OUT"
note "uml-ab: results in $OUT ($((SECONDS - T0)) s of boots)"

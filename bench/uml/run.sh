#!/usr/bin/env bash
# bench/uml/run.sh (make bench-uml): the cost of one page cache read on this
# host's real CPU, base vs patched, measured inside User-Mode Linux.
#
#   bench/uml/run.sh [--kernels "LABEL=REV ..."] [--reps N] [--scale F]
#                    [--out DIR] [--no-report] [--no-build]
#
# Why UML: the development machines have no usable KVM (kvm_pvm, see
# README.md), and TCG's cost per guest instruction hides what a read costs.
# A UML kernel is a host process: mm/filemap.c, mm/shmem.c and the xarray
# run as native code on the real CPU.  A UML process's system call costs
# ~13 us (ptrace), a hundred times a 16-byte read, so the reads are timed from
# inside the kernel: bench/uml/pcbench.c, a module loaded once per row, calls
# kernel_read() in a loop on a tmpfs or ext4 (ubd) file and logs ns per read.
# These UML kernels have one CPU (7.3's UML can do SMP, but defconfig and
# uml.config leave it off) and no THP (UML has none): this measures the
# cost of a read (the fast path, patch 6's batching, the fallbacks), not
# contention and not huge folios.
#
# Kernels (default "base=base final=work": the tag and branch of build/linux)
# are built with ARCH=um defconfig + bench/uml/uml.config in build/uml/LABEL,
# the module against each (--no-build: use what build/uml/LABEL has, e.g. a
# kernel built there by hand from an edited tree).  Boots go A B A B ... REPS times (default 5).
# Rows: tmpfs (huge=never) written/fallocated/sparse and ext4 written files,
# 16 B, 64-512 B and 4 KiB reads at offset 0, and 4 KiB, 64 KiB and 1 MiB
# sequential reads (the shape of the fio table).  --scale multiplies the
# iteration counts (default 1: ~0.15 s a row; make check uses 0.05).
#
# Output (default results/<UTC date>-uml/): uml.csv (every row of every boot),
# console logs, metadata.json, report.md (median ns per read and min-max per
# kernel, final/base ratio paired by rep, median and range).
. "$(dirname "$0")/../../scripts/lib.sh"
. "$TOP/bench/uml/lib.sh"

KSPEC="base=$BASE_TAG final=$WORK_BRANCH"
REPS=5 SCALE=1 OUT='' REPORT=1 BUILD_UML=1
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) KSPEC=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--scale) SCALE=$2; shift ;;
	--out) OUT=$2; shift ;;
	--no-report) REPORT=0 ;;
	--no-build) BUILD_UML=0 ;;
	-h | --help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (bench/uml/run.sh --help)" ;;
	esac
	shift
done
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "--reps wants a positive integer, not '$REPS'"
# shellcheck disable=SC2015 # die when either test fails
[[ "$SCALE" =~ ^[0-9]*\.?[0-9]+$ ]] && awk "BEGIN{exit !($SCALE > 0)}" ||
	die "--scale wants a positive number, not '$SCALE'"
[ "$(uname -m)" = x86_64 ] || die "UML here is built for x86_64 hosts, not $(uname -m)"
for t in mkfs.ext4 busybox python3; do
	command -v "$t" >/dev/null || die "$t not found (make deps)"
done
BUSYBOX=$(command -v busybox)

LABELS=() REVS=()
for kv in $KSPEC; do
	[[ "$kv" == ?*=?* ]] || die "--kernels wants LABEL=REV pairs, not '$kv'"
	LABELS+=("${kv%%=*}")
	REVS+=("${kv#*=}")
done

OUT=${OUT:-$TOP/results/$(date -u +%Y%m%dT%H%M%SZ)-uml}
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)

# 1. Kernels and modules (bench/uml/lib.sh)
UB=$BUILD/uml
[ "$BUILD_UML" = 0 ] || lock_worktree
COMMITS=()
for i in "${!LABELS[@]}"; do
	label=${LABELS[$i]} obj=$UB/${LABELS[$i]}
	if [ "$BUILD_UML" = 0 ]; then
		[ -x "$obj/linux" ] || die "--no-build: no $obj/linux"
		COMMITS+=("$(cat "$obj/commit" 2>/dev/null || echo unknown) (--no-build)")
		uml_module "$obj" "$TOP/bench/uml/pcbench.c"
		continue
	fi
	sha=$(kgit rev-parse --verify "${REVS[$i]}^{commit}" 2>/dev/null) ||
		die "no commit '${REVS[$i]}' in $KSRC (make tree)"
	COMMITS+=("$sha")
	checkout_worktree "$sha"
	t=$SECONDS
	note "uml: building $label ($(kgit log -1 --format='%h %s' "$sha"))"
	uml_build "$WT" "$obj" "$label"
	grep -q '^CONFIG_PAGECACHE_RCU_FREE=y' "$obj/.config" && rcu=y || rcu=n
	uml_module "$obj" "$TOP/bench/uml/pcbench.c"
	echo "$sha" >"$obj/commit"
	note "uml: $label built ($((SECONDS - t)) s, PAGECACHE_RCU_FREE=$rcu)"
done
[ "$BUILD_UML" = 0 ] || exec 9>&-

# 2. The guest: init of a UML kernel whose root is this host's / (hostfs,
# read-only).  Parameters arrive in the environment (unknown name=value
# arguments on the kernel command line).
RUN=$(mktemp -d "$UB/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
# Only busybox (busybox-static) is used inside, so the host needs no init
# system, kmod or util-linux of its own.
sed "s|@BUSYBOX@|$BUSYBOX|" >"$RUN/guest.sh" <<'EOF'
#!@BUSYBOX@ sh
b=@BUSYBOX@
fail() { echo "pcb-guest: error: $*"; echo BENCH-FAILED; $b poweroff -f; exit 1; }
$b mount -t proc proc /proc && $b mount -t sysfs sys /sys || fail "proc/sys"
$b mount -t tmpfs -o size=16m top /mnt && $b mkdir /mnt/t /mnt/e || fail "tmpfs on /mnt"
$b mount -t tmpfs -o size=400m,huge=never t /mnt/t || fail "tmpfs"
$b mount -t ext4 /dev/ubda /mnt/e || fail "ext4 on /dev/ubda"
$b dd if=/dev/urandom of=/mnt/t/normal bs=1M count=64 2>/dev/null || fail "write tmpfs file"
$b fallocate -l 64M /mnt/t/falloc || fail fallocate
$b truncate -s 64M /mnt/t/hole || fail truncate
$b dd if=/dev/urandom of=/mnt/e/normal bs=1M count=64 2>/dev/null && $b sync || fail "write ext4 file"
n() { $b awk "BEGIN{n=int($1 * $pcb_scale); print n < 1 ? 1 : n}"; }
row() { # fs file len mode iters
	$b dmesg -c >/dev/null
	$b insmod "$pcb_ko" path="/mnt/$1/$2" len="$3" mode="$4" iters="$(n "$5")" 2>/dev/null
	v=$($b dmesg | $b sed -n 's/.*pcbench: .* iters=\([0-9]*\) ns=.* ns_per_read_x100=\([0-9]*\)$/\1,\2/p' | $b tail -1)
	[ -n "$v" ] || fail "no result for $1 $2 len $3 mode $4: $($b dmesg | $b tail -3 | $b tr '\n' ' ')"
	echo "ROW,$pcb_label,$pcb_rep,$(fsname "$1"),$2,$3,$4,$v"
}
fsname() { case "$1" in t) echo tmpfs ;; e) echo ext4 ;; esac; }
for fs in t e; do
	row $fs normal 16 0 1500000
	# 64-512 B: where the fast path's bounce copy starts to cost more
	# than the reference it saves (FILEMAP_FAST_READ_MAX is 512)
	for l in 64 128 192 256 384 512; do
		row $fs normal $l 0 1000000
	done
	row $fs normal 4096 0 500000
	row $fs normal 4096 1 500000
	row $fs normal 65536 1 30000
	row $fs normal 1048576 1 1500
done
for f in falloc hole; do
	row t $f 4096 1 500000
	row t $f 65536 1 30000
	row t $f 1048576 1 1500
done
echo "VMSTAT,$pcb_label,$pcb_rep,$($b grep '^pgcache' /proc/vmstat | $b tr ' \n' '= ')"
echo BENCH-DONE
$b poweroff -f
EOF
chmod +x "$RUN/guest.sh"

echo "kernel,rep,fs,file,len,mode,iters,ns_per_read" >"$OUT/uml.csv"
: >"$OUT/vmstat.txt"
T0=$SECONDS nboot=$((REPS * ${#LABELS[@]})) boot=0
for rep in $(seq 1 "$REPS"); do
	for i in "${!LABELS[@]}"; do
		label=${LABELS[$i]} boot=$((boot + 1))
		log=$OUT/logs/$label-rep$rep.log
		uml_ext4_image "$RUN/ext4.img" 160M
		t=$SECONDS rc=0
		timeout -s KILL 600 "$UB/$label/linux" mem=1G rootfstype=hostfs rootflags=/ ro \
			init="$RUN/guest.sh" con=null con0=null,fd:1 ubd0="$RUN/ext4.img" \
			umid="pcb$$" uml_dir="$RUN" \
			pcb_label="$label" pcb_rep="$rep" pcb_scale="$SCALE" \
			pcb_ko="$UB/$label-mod/pcbench.ko" </dev/null >"$log" 2>&1 || rc=$?
		grep -q '^BENCH-DONE' "$log" ||
			{ tail -15 "$log" >&2; die "[$boot/$nboot] $label rep $rep failed (exit $rc, $log)"; }
		grep '^ROW,' "$log" | sed 's/^ROW,//' | awk -F, -v OFS=, '{ $8 = sprintf("%.2f", $8 / 100); print }' >>"$OUT/uml.csv"
		grep '^VMSTAT,' "$log" >>"$OUT/vmstat.txt" || true
		note "uml: [$boot/$nboot] rep $rep, $label: $(grep -c '^ROW,' "$log") rows ($((SECONDS - t)) s)"
	done
done

python3 - "$OUT" "$REPS" "$SCALE" "$((SECONDS - T0))" "${#LABELS[@]}" "${LABELS[@]}" "${COMMITS[@]}" <<'EOF'
import json, os, platform, subprocess, sys
out, reps, scale, wall, n = sys.argv[1:6]
n = int(n)
labels, commits = sys.argv[6:6 + n], sys.argv[6 + n:6 + 2 * n]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "unknown")
gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
meta = {"kind": "uml", "reps": int(reps), "scale": float(scale), "wall_seconds": int(wall),
        "kernels": [{"label": l, "commit": c, "config": f"build/uml/{l}/.config"}
                    for l, c in zip(labels, commits)],
        "uml": "ARCH=um defconfig + bench/uml/uml.config, mem=1G, hostfs root, 1 CPU",
        "host_cpu_model": cpu, "host_cpus": os.cpu_count(), "host_kernel": platform.release(),
        "gcc_version": gcc}
with open(os.path.join(out, "metadata.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
EOF
[ "$REPORT" = 0 ] || python3 "$TOP/bench/uml/report.py" "$OUT"
note "uml: results in $OUT ($((SECONDS - T0)) s of boots)"

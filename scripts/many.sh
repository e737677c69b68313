#!/usr/bin/env bash
# make check-many: the patched kernel on many CPUs (64 by default), where
# the per-CPU deferral chains, the drain that walks every CPU, the CPU
# hotplug callback and the per-CPU counters meet their hard cases.
#
#   qemu-debug  QEMU/TCG -smp N, the debug config (KASAN, DEBUG_PAGEALLOC,
#               DEBUG_VM, lockdep/PROVE_RCU): the counters tests, among them
#               the deferral storm (rcu_balance) and cpu_hotplug (one storm
#               process per CPU while the N-1 others go offline and online,
#               eight at a time, round robin; deferred and freed must meet
#               exactly with the last eight offline), then the races (ext4
#               and tmpfs; N/4 readers), then bench/held-guest.sh: the
#               memory held back during a storm of N processes on tmpfs and
#               huge tmpfs, sampled every millisecond, within the bound the
#               series states in every sample.
#   qemu-rt     the same on the rt config (PREEMPT_RT, lockdep, KUnit):
#               also the series' KUnit test of mm/rcu_free.c at boot (the
#               chain of a CPU going offline, the drain of every CPU).
#   uml         User-Mode Linux SMP, ncpus=N: real host threads, so truly
#               parallel CPUs (UML has no CPU hotplug: cpu_hotplug skips).
#               The kernel is make bench's patched UML kernel.
#
# Multi-threaded TCG on a 2-core host is slow but correct; no timing
# from here means anything.  Each guest's console is scanned for splats
# (WARNING, KASAN, lockdep, RCU stalls, hung tasks) by scripts/vm.
# Results: results/<stamp>-many/ (metadata.json, summary.md, logs/).
#
# --mutant NAME builds the QEMU runs' kernels with tests/mutants/NAME.patch
# applied (make check-many-mutant: offline-chain-lost, the chain of a CPU
# going offline forgotten); the runs default to the one of the mutant's
# config, and the exit status is 0 when a run fails (killed), 1 when all
# pass (survived), 2 when a kernel does not build (broken).  --no-races runs the counters and the KUnit test only.
#
#   many.sh [--cpus N] [--seconds S] [--readers R] [--variants 'ext4 tmpfs']
#           [--only 'qemu-debug qemu-rt uml'] [--mutant NAME] [--no-races]
#           [--out DIR]
. "$(dirname "$0")/lib.sh"

CPUS=64 SECS=4 ONLY='' OUT='' READERS='' VARIANTS="ext4 tmpfs" MUTANT='' RACES=1
while [ $# -gt 0 ]; do
	case "$1" in
	--cpus) CPUS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--readers) READERS=$2; shift 2 ;;
	--variants) VARIANTS=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--mutant) MUTANT=$2; shift 2 ;;
	--no-races) RACES=0; shift ;;
	-h|--help) sed -n '2,/^\. /p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) die "unknown option '$1' (--help)" ;;
	esac
done
case "$CPUS" in ''|*[!0-9]*) die "--cpus wants a number" ;; esac
[ "$CPUS" -ge 2 ] && [ "$CPUS" -le 64 ] || die "--cpus: 2..64 (NR_CPUS of the guest configs)"
# Reader threads per race: a quarter of the CPUs.  Under TCG on a 2-core
# host all 64 virtual CPUs share 2 real ones: with a reader on each, the
# mutator thread of a race gets a 65th of the time (one truncate in 4 s)
# and the reclaim races outrun their 120 s timeout.
READERS=${READERS:-$((CPUS / 4 > 2 ? CPUS / 4 : 2))}
REF=$WORK_BRANCH LABEL=final
if [ -n "$MUTANT" ]; then
	[ -f "$TOP/tests/mutants/$MUTANT.patch" ] || die "--mutant: no tests/mutants/$MUTANT.patch"
	case "$(mutant_config "$MUTANT")" in
	debug) ONLY=${ONLY:-qemu-debug} ;;
	rt) ONLY=${ONLY:-qemu-rt} ;;
	*) die "--mutant $MUTANT: its config is $(mutant_config "$MUTANT"); check-many has debug and rt guests" ;;
	esac
	case " $ONLY " in *" uml "*) die "--mutant: the uml run boots make bench's kernel, not a mutant" ;; esac
	mutant_commit "$MUTANT" "$BUILD/many-mutant.apply" >/dev/null ||
		die "tests/mutants/$MUTANT.patch does not apply to $WORK_BRANCH: $(head -1 "$BUILD/many-mutant.apply")"
	REF=refs/mutants/$MUTANT LABEL=mutant-$MUTANT
fi
ONLY=${ONLY:-qemu-debug qemu-rt uml}
VFLAGS=''
for v in $VARIANTS; do VFLAGS="$VFLAGS -v $v"; done
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$TOP/results/$STAMP-many${MUTANT:+-mutant-$MUTANT}}
mkdir -p "$OUT/logs"
T0=$SECONDS
PASS=0 FAIL=0 BROKEN=0
SERIES=$("$TOP/bench/series-hash.sh")
HEAD=$(git -C "$TOP" rev-parse HEAD)

"$TOP/scripts/selftests.sh" build >/dev/null
# bench/heldback.c for the QEMU guests (bench/held-guest.sh)
make -s -C "$TOP/bench" O="$BUILD/bench" "$BUILD/bench/heldback" >/dev/null ||
	die "bench/heldback.c did not build"

# verdict NAME LOG RC: one TAP line for a run, and its numbers in summary.
verdict() {
	local name=$1 log=$2 rc=$3 nf
	nf=$(grep -cE '^not ok ' "$log" || true)
	if [ "$rc" = 0 ] && [ "$nf" = 0 ]; then
		PASS=$((PASS + 1))
		echo "ok - $name ($(grep -m1 -o '[0-9]* CPUs in /proc/cpuinfo' "$log" || echo '? CPUs'))"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - $name: exit $rc, $nf failed ($log)"
		grep -E '^not ok |^vm: error|^vm:   ' "$log" | head -8
	fi
	{
		echo "## $name: exit $rc, $(grep -cE '^ok ' "$log" || true) ok, $nf not ok"
		echo
		echo '```'
		grep -E 'CPUs in /proc/cpuinfo|^not ok |^# .*(cycles|in flight|readers|foreign=)|^ok - kunit|^pgcache_rcu|^HELD,|^vm: (command|error)' "$log" |
			sed 's/^# //' | head -200
		echo '```'
		echo
	} >>"$OUT/summary.md"
}

# qemu NAME CONFIG: build the final kernel of CONFIG, boot it with $CPUS
# CPUs and run the counters and races programs.
qemu() {
	local name=$1 cfg=$2 log=$OUT/logs/$1.log rc=0 t=$SECONDS races=''
	[ "$RACES" = 1 ] && races="cd '$BUILD/ksft/pagecache' && echo '# races$VFLAGS' && ./races$VFLAGS || rc=1;"
	# Memory held back during a storm of one process per CPU, sampled
	# every millisecond: every sample within the stated bound.
	held="echo '# heldback'; '$TOP/bench/held-guest.sh' '$BUILD/bench/heldback' || rc=1;"
	"$TOP/scripts/build.sh" "$cfg" "$REF" "$LABEL" >"$OUT/logs/$name-build.log" 2>&1 ||
		{ FAIL=$((FAIL + 1)) BROKEN=$((BROKEN + 1)); echo "not ok - $name: build failed ($OUT/logs/$name-build.log)"; return; }
	"$TOP/scripts/vm" --kernel "$BUILD/images/$LABEL/$cfg/bzImage" --quiet \
		--cpus "$CPUS" --numa 2 --mem 4G --swap 256 --disk ext4 --disk xfs \
		--timeout "${MANY_TIMEOUT:-3600}" --console-log "$OUT/logs/$name-console.log" \
		--append "movablecore=25% rcupdate.rcu_cpu_stall_timeout=60" -- \
		env BUILD="$BUILD" PAGECACHE_PROGS=counters PAGECACHE_READERS="$READERS" \
		PAGECACHE_RACE_SECONDS="$SECS" PAGECACHE_OFFLINE=1 \
		sh -c "'$TOP/scripts/selftests.sh' run; rc=\$?; $races $held grep pgcache_rcu /proc/vmstat; exit \$rc" \
		>"$log" 2>&1 || rc=$?
	verdict "$name: QEMU/TCG -smp $CPUS, $cfg config ($((SECONDS - t)) s)" "$log" "$rc"
}

# The UML guest's init: the host's / read-only over hostfs, busybox only.
uml() {
	local log=$OUT/logs/uml.log rc=0 t=$SECONDS ub=$BUILD/uml run
	[ -x "$ub/final/linux" ] ||
		{ FAIL=$((FAIL + 1)); echo "not ok - uml: no $ub/final/linux (make bench, or bench/uml/run.sh --smoke, builds it)"; return; }
	command -v busybox >/dev/null || die "busybox not found (make deps)"
	run=$(mktemp -d "$BUILD/many-uml.XXXXXX")
	sed "s|@BUSYBOX@|$(command -v busybox)|;s|@KSFT@|$BUILD/ksft/pagecache|" >"$run/init.sh" <<'EOF'
#!@BUSYBOX@ sh
b=@BUSYBOX@
$b mount -t proc proc /proc
$b mount -t sysfs sys /sys
$b mount -t tmpfs tmp /tmp
$b mount -t tmpfs mnt /mnt
$b mkdir /mnt/ext4
$b mount -t ext4 /dev/ubda /mnt/ext4 || echo "many: no ext4 on /dev/ubda"
echo "many: $($b grep -c '^processor' /proc/cpuinfo) CPUs in /proc/cpuinfo, $($b uname -r)"
cd @KSFT@ || echo "many: no @KSFT@"
rc=0
echo "# counters"
PAGECACHE_EXT4_DIR=/mnt/ext4 PAGECACHE_RACE_SECONDS=$many_secs ./counters || rc=1
many_vflags=$(echo "$many_vflags" | $b tr , ' ')
echo "# races $many_vflags"
PAGECACHE_EXT4_DIR=/mnt/ext4 PAGECACHE_READERS=$many_readers PAGECACHE_RACE_SECONDS=$many_secs ./races $many_vflags || rc=1
$b grep pgcache_rcu /proc/vmstat
echo "MANY-DONE $rc"
$b poweroff -f
EOF
	chmod +x "$run/init.sh"
	# 4 KiB blocks, as in the QEMU guests: mkfs.ext4 picks 1 KiB for a
	# small image, and the races' checker can tell a collapse_range shift
	# from bad data only for blocks of 2 KiB and more.
	truncate -s 256M "$run/ext4.img"
	mkfs.ext4 -q -F -b 4096 "$run/ext4.img"
	TMPDIR=/dev/shm timeout -s KILL "${MANY_TIMEOUT:-3600}" "$ub/final/linux" mem=2G ncpus="$CPUS" seccomp=on \
		rootfstype=hostfs rootflags=/ ro init="$run/init.sh" con=null con0=null,fd:1 \
		ubd0="$run/ext4.img" umid="many$$" uml_dir="$run" many_readers="$READERS" many_secs="$SECS" \
		many_vflags="$(echo $VFLAGS | tr ' ' ,)" \
		</dev/null >"$log" 2>&1 || rc=$?
	rm -rf "$run"
	grep -q '^MANY-DONE 0' "$log" || rc=${rc/#0/1}
	# The kernel log is the console here: scan it as scripts/vm does.
	if "$TOP/scripts/vm" --scan "$log" >"$OUT/logs/uml-scan.txt" 2>&1; then :; else
		rc=1
		cat "$OUT/logs/uml-scan.txt" >>"$log"
	fi
	verdict "uml: User-Mode Linux SMP ncpus=$CPUS, make bench's patched kernel ($((SECONDS - t)) s)" "$log" "$rc"
}

{
	echo "# make check-many: the patched kernel on $CPUS CPUs${MUTANT:+, mutant $MUTANT}"
	echo
	echo "Base $BASE_PKG $BASE_PKG_VERSION, series $SERIES, $(date -u +%FT%TZ)."
	echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs."
	if [ "$RACES" = 1 ]; then
		echo "Race seconds $SECS, $READERS reader threads per race, variants: $VARIANTS. TCG timings mean nothing."
	else
		echo "No races (--no-races): the counters and the KUnit test. TCG timings mean nothing."
	fi
	[ -z "$MUTANT" ] || echo "Kernel: branch $WORK_BRANCH with tests/mutants/$MUTANT.patch applied ($(head -1 "$TOP/tests/mutants/$MUTANT.patch" | sed 's/^# //'))."
	echo
} >"$OUT/summary.md"
for what in $ONLY; do
	case "$what" in
	qemu-debug) qemu qemu-debug debug ;;
	qemu-rt) qemu qemu-rt rt ;;
	uml) uml ;;
	*) die "unknown run '$what' (qemu-debug, qemu-rt, uml)" ;;
	esac
done
EXTRA=${MUTANT:+ --mutant $MUTANT}
[ "$RACES" = 1 ] || EXTRA="$EXTRA --no-races"
python3 - "$OUT" "$CPUS" "$SECS" "$ONLY" "$PASS" "$FAIL" "$((SECONDS - T0))" "$READERS" "$VARIANTS" \
	"$BUILD/base.env" "$SERIES" "$HEAD" "$MUTANT" "$RACES" "$EXTRA" "$BROKEN" <<'EOF'
import json, sys
out, cpus, secs, only, p, f, t, readers, variants, base_env, series, head, mutant, races, extra, broken = sys.argv[1:]
meta = {
    "instrument": "make check-many: QEMU/TCG and UML SMP",
    "base": dict(l.strip().split("=", 1) for l in open(base_env) if "=" in l),
    "cpus": int(cpus), "race_seconds": float(secs), "runs": only.split(),
    "readers": int(readers), "variants": variants.split() if races == "1" else [],
    "mutant": mutant or None,
    "passed": int(p), "failed": int(f), "seconds": int(t),
    "series_hash": series,
    "workbench_commit": head,
    "host_cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
    "command": "make check-many MANY_ARGS='--cpus %s --seconds %s --readers %s --variants \"%s\" --only \"%s\"%s'" % (cpus, secs, readers, variants, only, extra),
}
if mutant:
    meta["mutant_verdict"] = "broken (a build failed)" if int(broken) else "killed" if int(f) else "survived"
json.dump(meta, open(out + "/metadata.json", "w"), indent=1)
EOF
cat >"$OUT/reproducer.sh" <<EOF
#!/bin/sh
# Re-run this check: run it at the top of a fresh clone of the workbench;
# it checks out the commit that ran it and builds everything.
# Base: $(sed -n 's/^BASE_COMMIT=//p; s/^BASE_SUBJECT=//p' "$BUILD/base.env" | paste -sd' ')
set -e
git checkout $HEAD
make deps tree
make check-many MANY_ARGS="--cpus $CPUS --seconds $SECS --readers $READERS --variants '$VARIANTS' --only '$ONLY'$EXTRA"
EOF
chmod +x "$OUT/reproducer.sh"
note "check-many: $((SECONDS - T0)) s; $OUT"
echo "$PASS passed, $FAIL failed"
if [ -n "$MUTANT" ]; then
	# A mutant is caught when a run fails; one that does not build is
	# a broken mutant, not a caught one.
	if [ "$BROKEN" -gt 0 ]; then
		echo "not ok - mutant $MUTANT BROKEN: a kernel did not build" | tee -a "$OUT/summary.md"
		exit 2
	fi
	if [ "$FAIL" -gt 0 ]; then
		echo "ok - mutant $MUTANT killed on $CPUS CPUs" | tee -a "$OUT/summary.md"
		exit 0
	fi
	echo "not ok - mutant $MUTANT SURVIVED on $CPUS CPUs" | tee -a "$OUT/summary.md"
	exit 1
fi
[ "$FAIL" = 0 ]

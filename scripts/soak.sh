#!/usr/bin/env bash
# make soak: racing page-cache reads at volume on the patched kernel with
# the debug options, counted, and the console scanned for splats.
#
#   soak.sh [--reads N] [--seconds S] [--round-ms T] [--cpus C]
#           [--fs "tmpfs ext4"] [--files N] [--size BYTES] [--kernel DIR]
#           [--mutant NAME] [--host-load L] [--out DIR]
#
# Instrument: User-Mode Linux SMP (each virtual CPU a host thread, so the
# readers run truly in parallel), built from branch `work` (the series,
# nothing else) with ARCH=um defconfig + bench/uml/uml.config +
# tests/soak/debug.config (KASAN, DEBUG_VM, lockdep/PROVE_RCU, page
# poisoning) in build/uml/soak.  The module tests/soak/pcsoak.c runs one
# reader kernel thread per CPU and a mutator (truncate, hole punch,
# invalidate, reuse by a secret file), and counts reads, words of another
# file (foreign) and impossible words (invalid); see its header.  Rounds of
# T ms (default 60000) alternate over --fs until N reads (default 10^8)
# are done; S seconds (default 5400) is a hard cap, and stopping there
# short of N is a failure.  The vmstat counters of the lockless path
# (pgcache_fast_read, its fallbacks, the deferred and freed pages) are
# taken around every round.
#
# Pass: every round ends without an error, 0 foreign, 0 invalid, N reads
# reached, the lockless path served reads, and the console has no splat
# (scripts/vm --scan: KASAN, WARNING, lockdep, RCU stall, hung task ...).
# --files N, --size BYTES: the files the readers read and the mutator
# truncates, punches and invalidates (default 8 of 256 KiB; fewer and
# smaller files put the readers on the very folios being freed more often).
# --kernel DIR: a UML kernel built elsewhere (DIR/linux and DIR/.config),
# e.g. make check's short run on make bench's patched UML kernel.
# --mutant NAME: the soak kernel with tests/mutants/NAME.patch applied
# (same object directory, rebuilt incrementally); exit 0 when the soak
# kills it (foreign or invalid bytes, or a splat once the first round has
# started: a crash while booting is the instrument's, not the mutant's),
# 1 when it survives, 2 when the run failed for another reason (make
# soak-mutant: no-defer, freeing without the grace period).
# --host-load L: L busy loops on the host for the length of the run.  A
# virtual CPU of UML is a host thread that the host then preempts every
# few milliseconds, wherever it is, inside an RCU read-side section too:
# a window of nanoseconds (a reader's copy racing the free of the folio
# it copies) becomes one of milliseconds, as under QEMU/TCG.  Without it
# the no-defer mutant survived 7.9 million reads on 2 idle host CPUs.
# (More virtual CPUs than host CPUs would do the same, but the KASAN UML
# kernel crashes bringing up a third CPU: a stack walk off a host stack.)
# Results: results/<stamp>-soak/ (metadata.json, soak.csv, report.md,
# console.log, scan.txt, reproducer.sh).
. "$(dirname "$0")/lib.sh"
. "$TOP/bench/uml/lib.sh"

READS=100000000 SECS=5400 ROUND_MS=60000 CPUS=$(nproc) FSS="tmpfs ext4" KDIR='' OUT='' MUTANT='' LOAD=0 FILES=8 SIZE=262144
ARGS=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--reads) READS=$2; shift ;;
	--seconds) SECS=$2; shift ;;
	--round-ms) ROUND_MS=$2; shift ;;
	--cpus) CPUS=$2; shift ;;
	--fs) FSS=$2; shift ;;
	--kernel) KDIR=$2; shift ;;
	--mutant) MUTANT=$2; shift ;;
	--host-load) LOAD=$2; shift ;;
	--files) FILES=$2; shift ;;
	--size) SIZE=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h | --help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (scripts/soak.sh --help)" ;;
	esac
	shift
done
[[ "$LOAD" =~ ^[0-9]+$ ]] && [ "$LOAD" -le 64 ] || die "--host-load: 0 to 64 busy loops, not '$LOAD'"
for v in READS SECS ROUND_MS CPUS FILES SIZE; do
	[[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$(echo "$v" | tr 'A-Z_' 'a-z-'): a positive integer, not '${!v}'"
done
[ "$CPUS" -le 64 ] || die "--cpus: UML has at most 64 CPUs (NR_CPUS)"
[ "$FILES" -le 64 ] || die "--files: at most 64 (pcsoak's MAX_FILES)"
[ "$SIZE" -ge 4096 ] && [ "$SIZE" -le 16777216 ] && [ $((SIZE % 4096)) = 0 ] ||
	die "--size: a multiple of 4096 from 4096 to 16 MiB, not '$SIZE'"
for f in $FSS; do case $f in tmpfs | ext4) ;; *) die "--fs: tmpfs or ext4, not '$f'" ;; esac; done
[ "$(uname -m)" = x86_64 ] || die "UML here is built for x86_64 hosts, not $(uname -m)"
for t in busybox mkfs.ext4 python3; do
	command -v "$t" >/dev/null || die "$t not found (make deps)"
done

UB=$BUILD/uml
T0=$SECONDS
if [ -z "$KDIR" ]; then
	KDIR=$UB/soak
	sha=$(kgit rev-parse --verify "$WORK_BRANCH^{commit}") || die "no branch $WORK_BRANCH in $KSRC (make tree)"
	MPATCH=''
	if [ -n "$MUTANT" ]; then
		MPATCH=$TOP/tests/mutants/$MUTANT.patch
		[ -f "$MPATCH" ] || die "--mutant: no tests/mutants/$MUTANT.patch"
	fi
	stamp="$sha $(cat "$TOP/bench/uml/uml.config" "$TOP/tests/soak/debug.config" ${MPATCH:+"$MPATCH"} | sha256sum | cut -c1-12) ${MUTANT:-series}"
	if [ "$(cat "$KDIR/stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$KDIR/linux" ]; then
		note "soak: the debug UML kernel is built ($(kgit log -1 --format='%h %s' "$sha"))"
	else
		mkdir -p "$UB"
		exec 8>"$UB/soak.lock"
		flock 8
		checkout_worktree "$sha" "$UB/soak-src"
		if [ -n "$MPATCH" ]; then
			git -C "$UB/soak-src" apply "$MPATCH" || die "tests/mutants/$MUTANT.patch does not apply"
		fi
		mkdir -p "$KDIR"
		rm -f "$KDIR/stamp"
		make -s -C "$UB/soak-src" ARCH=um O="$KDIR" defconfig >/dev/null &&
			"$UB/soak-src/scripts/kconfig/merge_config.sh" -m -O "$KDIR" "$KDIR/.config" \
				"$TOP/bench/uml/uml.config" "$TOP/tests/soak/debug.config" >/dev/null &&
			make -s -C "$UB/soak-src" ARCH=um O="$KDIR" olddefconfig >/dev/null ||
			die "UML configuration of the soak kernel failed"
		for sym in PAGECACHE_RCU_FREE KASAN DEBUG_VM PROVE_RCU PAGE_POISONING; do
			grep -q "^CONFIG_$sym=y" "$KDIR/.config" || die "soak kernel: CONFIG_$sym did not stick"
		done
		t=$SECONDS
		note "soak: building the debug UML kernel ($(kgit log -1 --format='%h %s' "$sha")${MUTANT:+ + mutant $MUTANT})"
		make -s -C "$UB/soak-src" ARCH=um O="$KDIR" CC="$KCC" -j"$(nproc)" linux modules \
			>"$KDIR/build.log" 2>&1 ||
			{ tail -20 "$KDIR/build.log" >&2; die "soak kernel build failed ($KDIR/build.log)"; }
		note "soak: built ($((SECONDS - t)) s)"
		echo "$sha${MUTANT:+ + tests/mutants/$MUTANT.patch}" >"$KDIR/commit"
		echo "$stamp" >"$KDIR/stamp"
		exec 8>&-
	fi
fi
[ -x "$KDIR/linux" ] && [ -f "$KDIR/.config" ] || die "no UML kernel in $KDIR (linux, .config)"
KDIR=$(cd "$KDIR" && pwd)
grep -q '^CONFIG_SMP=y' "$KDIR/.config" || die "$KDIR is not an SMP build"
grep -q '^CONFIG_PAGECACHE_RCU_FREE=y' "$KDIR/.config" || die "$KDIR has no PAGECACHE_RCU_FREE"
# The module, in a directory of its own (KDIR-mod holds make bench's).
MOD=$BUILD/soak-mod/$(echo "$KDIR" | sha256sum | cut -c1-8)
rm -rf "$MOD"
mkdir -p "$MOD"
cp "$TOP/tests/soak/pcsoak.c" "$TOP/tests/soak/Kbuild" "$MOD/"
make -s -C "$KDIR" ARCH=um CC="$KCC" M="$MOD" W=1 modules >"$MOD/build.log" 2>&1 ||
	{ tail -20 "$MOD/build.log" >&2; die "pcsoak.ko failed ($MOD/build.log)"; }
! grep -q 'warning:' "$MOD/build.log" || { grep 'warning:' "$MOD/build.log" >&2; die "pcsoak.c: W=1 warnings"; }

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$TOP/results/$STAMP-soak${MUTANT:+-mutant-$MUTANT}}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RUN=$(mktemp -d "$UB/soak-run.XXXXXX")
LOADPIDS=()
trap 'rm -rf "$RUN"; [ ${#LOADPIDS[@]} = 0 ] || kill "${LOADPIDS[@]}" 2>/dev/null' EXIT
BB=$(command -v busybox)
sed "s|@BUSYBOX@|$BB|" >"$RUN/init.sh" <<'EOF'
#!@BUSYBOX@ sh
b=@BUSYBOX@
fail() { echo "SOAK-ERROR $*"; echo "SOAK-DONE 1"; $b poweroff -f; exit 1; }
$b mount -t proc proc /proc && $b mount -t sysfs sys /sys || fail "proc/sys"
$b mount -t tmpfs -o size=16m top /mnt && $b mkdir /mnt/tmpfs /mnt/ext4 || fail "tmpfs on /mnt"
$b mount -t tmpfs -o size=512m,huge=never t /mnt/tmpfs || fail tmpfs
$b mount -t ext4 /dev/ubda /mnt/ext4 || fail "ext4 on /dev/ubda"
echo "SOAK-CPUS $($b grep -c '^processor' /proc/cpuinfo) $($b uname -r)"
$b insmod "$soak_ko" || fail "insmod $soak_ko"
P=/sys/module/pcsoak/parameters
pc() { $b awk '$1 ~ /^pgcache_/ { printf "%s=%s ", $1, $2 }' /proc/vmstat; }
t0=$($b date +%s)
total=0 round=0 rc=0
fss=$(echo "$soak_fs" | $b tr , ' ')
while [ "$total" -lt "$soak_reads" ]; do
	for fs in $fss; do
		if [ $(($($b date +%s) - t0)) -ge "$soak_secs" ]; then
			echo "SOAK-TIMEOUT after $(($($b date +%s) - t0)) s, $total reads"
			rc=1
			break 2
		fi
		round=$((round + 1))
		echo "SOAK-VMSTAT-BEFORE $round $(pc)"
		echo "soak dir=/mnt/$fs files=$soak_files size=$soak_size ms=$soak_ms readers=$soak_cpus" >$P/run || rc=1
		res=$($b cat $P/result)
		echo "SOAK-VMSTAT-AFTER $round $(pc)"
		echo "SOAK-ROUND $round $fs $res"
		r=${res#reads=}
		total=$((total + ${r%% *}))
		[ "$rc" = 0 ] || break 2
		# A mutant's run ends at the round of its first splat.
		if [ "$soak_mutant" = 1 ] && $b dmesg | $b grep -q -E 'BUG:|WARNING:|Oops'; then
			echo "SOAK-SPLAT after round $round: the mutant's run stops here"
			break 2
		fi
	done
done
echo "SOAK-TOTAL $total reads in $(($($b date +%s) - t0)) s"
$b rmmod pcsoak
echo "SOAK-DONE $rc"
$b poweroff -f
EOF
chmod +x "$RUN/init.sh"
truncate -s 256M "$RUN/ext4.img"
mkfs.ext4 -q -F -b 4096 "$RUN/ext4.img"
note "soak: $READS reads on $CPUS CPUs, rounds of $ROUND_MS ms over $FSS, at most $SECS s"
for ((i = 0; i < LOAD; i++)); do
	timeout -s KILL "$((SECS + 600))" sh -c 'while :; do :; done' &
	LOADPIDS+=($!)
done
[ "$LOAD" = 0 ] || note "soak: $LOAD busy loops on the host"
t=$SECONDS rc=0
TMPDIR=/dev/shm timeout -s KILL "$((SECS + 600))" "$KDIR/linux" mem=2G ncpus="$CPUS" seccomp=on \
	page_poison=1 rootfstype=hostfs rootflags=/ ro init="$RUN/init.sh" \
	con=null con0=null,fd:1 ubd0="$RUN/ext4.img" umid="soak$$" uml_dir="$RUN" \
	soak_ko="$MOD/pcsoak.ko" soak_reads="$READS" soak_secs="$SECS" soak_ms="$ROUND_MS" \
	soak_cpus="$CPUS" soak_fs="$(echo $FSS | tr ' ' ,)" soak_files="$FILES" soak_size="$SIZE" soak_mutant="$([ -n "$MUTANT" ] && echo 1 || echo 0)" \
	</dev/null >"$OUT/console.log" 2>&1 || rc=$?
note "soak: UML exited $rc after $((SECONDS - t)) s"
if [ "$LOAD" != 0 ]; then
	kill "${LOADPIDS[@]}" 2>/dev/null || true
	wait "${LOADPIDS[@]}" 2>/dev/null || true
	LOADPIDS=()
fi
scan=0
"$TOP/scripts/vm" --scan "$OUT/console.log" >"$OUT/scan.txt" 2>&1 || scan=1

SERIES=$("$TOP/bench/series-hash.sh")
python3 - "$OUT" "$READS" "$rc" "$scan" "$BUILD/base.env" "$SERIES" \
	"$(git -C "$TOP" rev-parse HEAD)" "$(cat "$KDIR/commit" 2>/dev/null || echo unknown)" \
	"$KDIR/.config" "$CPUS" "$ROUND_MS" "$SECS" "$FSS" "$((SECONDS - T0))" "${ARGS[*]:-}" "$MUTANT" "$LOAD" <<'EOF'
import json, re, sys
(out, target, uml_rc, scan, base_env, series, head, kcommit, kconfig, cpus,
 round_ms, secs, fss, wall, args, mutant, load) = sys.argv[1:]
target, cpus = int(target), int(cpus)
rows, before, after, notes, reasons = [], {}, {}, [], {}
seen_cpus = done = None
kv = lambda s: dict(x.split("=", 1) for x in s.split() if "=" in x)
console = [l.rstrip("\n") for l in open(out + "/console.log", errors="replace")]
# Where the first round started, and where the first splat that
# scripts/vm --scan reported ("vm:   LINE") is: a splat before the first
# round is the boot's, not the soak's.
started = next((i for i, l in enumerate(console) if l.startswith("SOAK-VMSTAT-BEFORE ")), None)
splats = [l[6:] for l in open(out + "/scan.txt", errors="replace") if l.startswith("vm:   ")]
first_splat = next((i for i, l in enumerate(console) if any(s.strip() and s.strip() in l for s in splats)), None)
for line in console:
    m = re.match(r"SOAK-VMSTAT-(BEFORE|AFTER) (\d+) ?(.*)", line)
    if m:
        (before if m[1] == "BEFORE" else after)[int(m[2])] = kv(m[3])
        continue
    m = re.match(r"SOAK-ROUND (\d+) (\S+) (.*)", line)
    if m:
        r = {"round": int(m[1]), "fs": m[2]}
        r.update(kv(m[3]))
        rows.append(r)
    elif line.startswith("SOAK-CPUS "):
        seen_cpus = int(line.split()[1])
    elif line.startswith("SOAK-DONE "):
        done = int(line.split()[1])
    elif line.startswith(("SOAK-ERROR", "SOAK-TIMEOUT")):
        notes.append(line)
num = ("reads", "bytes", "short", "own_words", "zero_words", "foreign", "tail_foreign",
       "invalid", "truncate", "punch", "invalidate", "secret", "ms", "err")
vm = ("pgcache_fast_read", "pgcache_rcu_deferred", "pgcache_rcu_freed")
for r in rows:
    b, a = before.get(r["round"], {}), after.get(r["round"], {})
    for k in vm:
        r[k] = int(a[k]) - int(b[k]) if k in a and k in b else None
    fb = [k for k in a if k.startswith("pgcache_fast_read_") and k in b]
    r["fast_fallbacks"] = sum(int(a[k]) - int(b[k]) for k in fb) if fb else None
    for k in fb:
        reasons[k] = reasons.get(k, 0) + int(a[k]) - int(b[k])
cols = ["round", "fs"] + list(num) + list(vm) + ["fast_fallbacks"]
with open(out + "/soak.csv", "w") as f:
    f.write(",".join(cols) + "\n")
    for r in rows:
        f.write(",".join("" if r.get(c) is None else str(r.get(c)) for c in cols) + "\n")
tot = lambda k, fs=None: sum(int(r.get(k) or 0) for r in rows if fs in (None, r["fs"]))
reads = tot("reads")
hits = tot("pgcache_fast_read")
bad = tot("foreign") + tot("tail_foreign") + tot("invalid")
errs = [r for r in rows if r.get("err") not in ("0", None)]
fails = []
if done is None:
    fails.append("the guest did not finish (no SOAK-DONE; UML exit %s)" % uml_rc)
elif done:
    fails.append("the guest reported failure: %s" % ("; ".join(notes) or "SOAK-DONE %d" % done))
if errs:
    fails.append("%d round(s) ended with an error" % len(errs))
if bad:
    fails.append("%d foreign, %d past-the-count foreign, %d invalid words" %
                 (tot("foreign"), tot("tail_foreign"), tot("invalid")))
if reads < target:
    fails.append("%d reads, fewer than the %d asked for" % (reads, target))
if not hits:
    fails.append("the lockless path served no read (pgcache_fast_read +0)")
if scan != "0":
    fails.append("splats on the console (scan.txt)")
base = dict(l.strip().split("=", 1) for l in open(base_env) if "=" in l)
config = {}
for l in open(kconfig):
    m = re.match(r"CONFIG_(KASAN|DEBUG_VM|PROVE_LOCKING|PROVE_RCU|PAGE_POISONING|DEBUG_LIST|PREEMPT\w*)=y", l)
    if m:
        config[m[1]] = True
meta = {
    "instrument": "make soak: User-Mode Linux SMP, in-kernel reader threads (tests/soak/pcsoak.c)",
    "base": base, "series_hash": series, "workbench_commit": head, "kernel_commit": kcommit,
    "kernel_config": config, "cpus_asked": cpus, "cpus_seen": seen_cpus,
    "host_cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                      if l.startswith("model name")), "?"),
    "reads_asked": target, "round_ms": int(round_ms), "seconds_cap": int(secs),
    "filesystems": fss.split(), "wall_seconds": int(wall),
    "totals": {"reads": reads, "rounds": len(rows), "fast_read_chunks": hits,
               "fast_fallbacks": tot("fast_fallbacks"), "fast_fallback_reasons": reasons,
               "foreign": tot("foreign"), "tail_foreign": tot("tail_foreign"),
               "invalid": tot("invalid"), "rcu_deferred": tot("pgcache_rcu_deferred"),
               "rcu_freed": tot("pgcache_rcu_freed"),
               "mutator": {k: tot(k) for k in ("truncate", "punch", "invalidate", "secret")}},
    "splat_scan_clean": scan == "0", "passed": not fails, "failures": fails,
    "mutant": mutant or None, "host_busy_loops": int(load),
    "command": "scripts/soak.sh " + args,
}
json.dump(meta, open(out + "/metadata.json", "w"), indent=1)
with open(out + "/report.md", "w") as f:
    f.write("# make soak: racing page-cache reads on UML SMP\n\n")
    f.write("Base %s %s, series %s; kernel %s; UML SMP, %s CPUs seen (%s asked), host %s. "
            "Kernel options: %s. Rounds of %s ms over %s.\n\n" %
            (base.get("BASE_PKG", "?"), base.get("BASE_PKG_VERSION_USED", "?"), series, kcommit,
             seen_cpus, cpus, meta["host_cpu"], ", ".join(sorted(config)) or "none", round_ms, fss))
    if int(load):
        f.write("The host ran %s busy loops beside UML (--host-load): its virtual CPUs were "
                "preempted inside reads.\n\n" % load)
    f.write("| fs | rounds | reads | lockless chunks | fallbacks | short | zero words | "
            "foreign | invalid | truncate | punch | invalidate | secret | deferred | freed |\n")
    f.write("|---|" + "---:|" * 14 + "\n")
    for fs in fss.split() + [None]:
        n = sum(1 for r in rows if fs in (None, r["fs"]))
        f.write("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n" % (
            fs or "**all**", n, tot("reads", fs), tot("pgcache_fast_read", fs),
            tot("fast_fallbacks", fs), tot("short", fs), tot("zero_words", fs),
            tot("foreign", fs) + tot("tail_foreign", fs), tot("invalid", fs),
            tot("truncate", fs), tot("punch", fs), tot("invalidate", fs), tot("secret", fs),
            tot("pgcache_rcu_deferred", fs), tot("pgcache_rcu_freed", fs)))
    if reasons:
        f.write("\nFallbacks of the lockless path, by counter: %s.\n" %
                ", ".join("%s %d" % (k, v) for k, v in sorted(reasons.items())))
    f.write("\nVerdict: %s\n" % ("PASS" if not fails else "FAIL: " + "; ".join(fails)))
    f.write("\nSplat scan of console.log: %s (scan.txt). Per-round counts: soak.csv.\n" %
            ("clean" if scan == "0" else "SPLATS"))
print("soak: %d reads (%d lockless chunks), %d foreign, %d invalid, %s" %
      (reads, hits, tot("foreign") + tot("tail_foreign"), tot("invalid"),
       "PASS" if not fails else "FAIL: " + "; ".join(fails)))
if not mutant:
    sys.exit(1 if fails else 0)
# A mutant is killed by what the soak exists to see: another file's or
# impossible bytes, or a splat (KASAN's use-after-free) after the first
# round started; a soak that only ran short or did not boot proves nothing.
if started is None:
    verdict, rc = "BROKEN (no round started: %s)" % "; ".join(fails), 2
elif bad or (scan != "0" and (first_splat is None or first_splat > started)):
    verdict, rc = "KILLED", 0
elif not fails:
    verdict, rc = "SURVIVED", 1
else:
    verdict, rc = "BROKEN (failed for another reason: %s)" % "; ".join(fails), 2
meta["mutant_verdict"] = verdict
json.dump(meta, open(out + "/metadata.json", "w"), indent=1)
with open(out + "/report.md", "a") as f:
    f.write("\nMutant tests/mutants/%s.patch: %s\n" % (mutant, verdict))
print("soak: mutant %s %s" % (mutant, verdict))
sys.exit(rc)
EOF
prc=$?
cat >"$OUT/reproducer.sh" <<EOF
#!/bin/sh
# Re-run this soak from a fresh clone of the workbench: it checks out the
# commit that ran it, installs and builds what it needs (make deps tree).
set -e
git checkout $(git -C "$TOP" rev-parse HEAD)
make deps tree
scripts/soak.sh ${ARGS[*]:-}
EOF
chmod +x "$OUT/reproducer.sh"
note "soak: $((SECONDS - T0)) s; $OUT"
exit "$prc"

#!/usr/bin/env bash
# make bench-guest: the guest backend of the benchmark, for a host with a
# real (VMX/SVM) KVM, and under QEMU/TCG the smoke test of the pipeline
# (make check): TCG emulates away cache-line contention, so its numbers show
# correctness, never performance.  The main instrument on machines without
# such a KVM is bench/uml/run.sh (make bench).  Boots each kernel in turn
# with scripts/vm (A B A B ..., so that drift cancels), runs
# bench/guest-matrix.sh inside (the system-call path: pread, fio, logreread,
# git grep; huge page faults under a truncate storm), collects the CSV,
# writes metadata.json and reproducer.sh, and makes the report
# (bench/report.py).
#
#   bench/run.sh [--smoke] [--full] [--kernels "LABEL=bzImage ..."] [--cpus N]
#                [--reps N] [--mem SIZE] [--only "WORKLOAD ..."] [--out DIR]
#                [--no-report]
#
# The same settings from the environment: KERNELS, CPUS (default: all host
# CPUs), REPS (default 3), FULL=1, SMOKE=1, MEM (default 2G; 4G with FULL),
# OUT (default results/<UTC date>-<git short commit>/), ACCEL (auto|kvm|tcg),
# ONLY (workloads of bench/guest-matrix.sh, default all: pread fio logreread
# gitgrep compact).
# Default kernels: base=build/images/base/guest/bzImage and
# final=build/images/final/guest/bzImage.
#
# --smoke: one rep, one read size, one second per point (make bench-smoke,
# for make check), each boot limited to BENCH_SMOKE_TIMEOUT seconds (300;
# make check-debug gives its debug kernel 900); the default matrix takes
# about 15 minutes for two kernels on a 2-core TCG host; --full is the long
# one.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)

die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }
note() { printf 'bench: %s\n' "$*" >&2; }
. "$HERE/common.sh"

KERNELS=${KERNELS:-"base=$TOP/build/images/base/guest/bzImage final=$TOP/build/images/final/guest/bzImage"}
CPUS=${CPUS:-$(nproc)}
REPS=${REPS:-3}
FULL=${FULL:-0}
SMOKE=${SMOKE:-0}
MEM=${MEM:-}
OUT=${OUT:-}
ACCEL=${ACCEL:-auto}
ONLY=${ONLY:-}
REPORT=1
ARGS=("$@")

while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) SMOKE=1 ;;
	--full) FULL=1 ;;
	--kernels) KERNELS=$2; shift ;;
	--cpus) CPUS=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--out) OUT=$2; shift ;;
	--accel) ACCEL=$2; shift ;;
	--only) ONLY=$2; shift ;;
	--no-report) REPORT=0 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (bench/run.sh --help)" ;;
	esac
	shift
done

[ "$SMOKE" = 1 ] && [ "$FULL" = 1 ] && die "--smoke and --full exclude each other"
PROFILE=default
TIMEOUT=900
if [ "$SMOKE" = 1 ]; then
	PROFILE=smoke
	REPS=1
	TIMEOUT=${BENCH_SMOKE_TIMEOUT:-300}
elif [ "$FULL" = 1 ]; then
	PROFILE=full
	TIMEOUT=7200
	MEM=${MEM:-4G}
fi
MEM=${MEM:-2G}
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive number, not '$REPS'"
[[ "$CPUS" =~ ^[1-9][0-9]*$ ]] || die "CPUS must be a positive number, not '$CPUS'"

LABELS=() IMAGES=()
for kv in $KERNELS; do
	label=${kv%%=*} img=${kv#*=}
	[ "$label" != "$kv" ] && [ -n "$label" ] || die "KERNELS: LABEL=bzImage, not '$kv'"
	[[ "$label" =~ ^[A-Za-z0-9._-]+$ ]] || die "kernel label '$label': letters, digits, . _ - only"
	[ -f "$img" ] || die "no kernel image $img for '$label' (scripts/build.sh guest REF $label)"
	LABELS+=("$label")
	IMAGES+=("$(cd "$(dirname "$img")" && pwd)/$(basename "$img")")
done
[ ${#LABELS[@]} -ge 1 ] || die "no kernels given"

if [ -z "$OUT" ]; then
	OUT=$TOP/results/$(date -u +%Y%m%dT%H%M%SZ)-$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
	[ "$SMOKE" = 1 ] && OUT=$OUT-smoke
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# A reused folder (OUT=build/bench-smoke): nothing of an earlier run may
# mix into this one.
rm -rf "$OUT/raw" "$OUT/kernels"
rm -f "$OUT"/{pread,fio,logreread,gitgrep,compact}.csv "$OUT"/*.png "$OUT"/report.md "$OUT"/metadata.json
mkdir -p "$OUT/raw" "$OUT/kernels"

# Boot copies, taken now: a kernel rebuilt while the matrix runs must not
# mix into later reps.
BOOT_IMAGES=()
for i in "${!LABELS[@]}"; do
	d=$(dirname "${IMAGES[$i]}")
	cp "${IMAGES[$i]}" "$OUT/kernels/${LABELS[$i]}.bzImage"
	[ -f "$d/config" ] && cp "$d/config" "$OUT/kernels/${LABELS[$i]}.config"
	[ -f "$d/commit" ] && cp "$d/commit" "$OUT/kernels/${LABELS[$i]}.commit"
	BOOT_IMAGES+=("$OUT/kernels/${LABELS[$i]}.bzImage")
done

note "building the benchmark programs"
make -s -C "$HERE" O="$TOP/build/bench" >&2 || die "make -C bench failed"

note "profile $PROFILE, kernels ${LABELS[*]}, $REPS rep(s), $CPUS CPUs, mem $MEM, out $OUT"
T0=$SECONDS
ACCELS=() ACCEL_NOTE=
QEMU_CMD=
FAILED=0
nboot=$((REPS * ${#LABELS[@]})) boot=0
vmpid= tailpid=
# Interrupted (Ctrl-C, kill): take the running guest and the progress
# reader down too, rather than leave them writing into a later run's log.
cleanup() {
	[ -n "$tailpid" ] && kill "$tailpid" 2>/dev/null
	if [ -n "$vmpid" ]; then
		pkill -TERM -P "$vmpid" 2>/dev/null
		kill "$vmpid" 2>/dev/null
	fi
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for rep in $(seq 1 "$REPS"); do
	for i in "${!LABELS[@]}"; do
		label=${LABELS[$i]} img=${BOOT_IMAGES[$i]}
		boot=$((boot + 1))
		dir=$OUT/raw/$label-rep$rep
		rm -rf "$dir"
		mkdir -p "$dir"
		note "[$boot/$nboot] rep $rep, kernel $label: booting ($((SECONDS - T0)) s so far)"
		t=$SECONDS
		"$TOP/scripts/vm" --kernel "$img" --cpus "$CPUS" --mem "$MEM" \
			--timeout "$TIMEOUT" --accel "$ACCEL" --disk ext4:1024 --disk xfs:1024 \
			--out "$dir" --quiet --console-log "$dir/console.log" -- \
			env BENCH_LABEL="$label" BENCH_REP="$rep" BENCH_PROFILE="$PROFILE" \
			BENCH_OUT=/run/out BENCH_BIN="$TOP/build/bench" BENCH_ONLY="$ONLY" \
			sh "$HERE/guest-matrix.sh" >"$dir/vm.log" 2>&1 &
		vmpid=$!
		# Progress: the guest's own lines and the runner's, as they come.
		tail -n +1 -F --pid="$vmpid" "$dir/vm.log" 2>/dev/null |
			grep --line-buffered -E '^(guest-matrix|vm:)' | sed -u 's/^/bench:   /' >&2 &
		tailpid=$!
		# The QEMU command line, as the runner started it.
		for _ in $(seq 1 100); do
			qpid=$(ps -o pid= --ppid "$vmpid" 2>/dev/null | head -1 | tr -d ' ' || true)
			if [ -n "$qpid" ] && [ -r "/proc/$qpid/cmdline" ]; then
				tr '\0' ' ' <"/proc/$qpid/cmdline" >"$dir/qemu-cmdline.txt" 2>/dev/null || true
				# (other children come and go: mkfs, the KVM probe)
				grep -q -- ' -kernel ' "$dir/qemu-cmdline.txt" 2>/dev/null && break
			fi
			sleep 0.2
		done
		rc=0
		wait "$vmpid" || rc=$?
		wait "$tailpid" 2>/dev/null || true
		vmpid= tailpid=
		a=$(sed -n 's/^vm: .*, accel=\([a-z]*\),.*/\1/p' "$dir/vm.log" | head -1)
		ACCELS+=("${a:-unknown}")
		[ -n "$ACCEL_NOTE" ] || ACCEL_NOTE=$(sed -n 's/^vm: \/dev\/kvm not usable (\(.*\)): falling back to TCG.*/\1/p' "$dir/vm.log" | head -1)
		[ -z "$QEMU_CMD" ] && [ -s "$dir/qemu-cmdline.txt" ] && QEMU_CMD=$(cat "$dir/qemu-cmdline.txt")
		if [ "$rc" != 0 ]; then
			FAILED=$((FAILED + 1))
			note "[$boot/$nboot] rep $rep, kernel $label: FAILED (exit $rc, $((SECONDS - t)) s); log $dir/vm.log:"
			tail -15 "$dir/vm.log" | sed 's/^/bench:   /' >&2
			continue
		fi
		note "[$boot/$nboot] rep $rep, kernel $label: ok ($((SECONDS - t)) s, accel ${a:-unknown})"
	done
done

# Raw CSV: one file per kind, every boot's rows.
merge_csv "$OUT"

ACCEL_NOTE=$ACCEL_NOTE python3 - "$OUT" "$PROFILE" "$REPS" "$CPUS" "$MEM" "$SECONDS" "$T0" "$QEMU_CMD" \
	"${#LABELS[@]}" "${LABELS[@]}" "${IMAGES[@]}" "${ACCELS[@]}" <<'EOF'
import hashlib, json, os, platform, subprocess, sys
out, profile, reps, cpus, mem, now, t0, qemu_cmd, n = sys.argv[1:10]
n = int(n)
labels, images, accels = sys.argv[10:10 + n], sys.argv[10 + n:10 + 2 * n], sys.argv[10 + 2 * n:]

def cmd(*a):
    try:
        return subprocess.run(a, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except Exception as e:
        return f"unavailable ({e})"

def sha(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()

cpu = "unknown"
with open("/proc/cpuinfo") as f:
    for line in f:
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
kernels = []
for label, img in zip(labels, images):
    snap = os.path.join(out, "kernels", label)
    k = {"label": label, "bzImage": img, "booted_copy": f"kernels/{label}.bzImage",
         "sha256": sha(snap + ".bzImage")}
    if os.path.exists(snap + ".commit"):
        k["commit"] = open(snap + ".commit").read().strip()
    if os.path.exists(snap + ".config"):
        k["config"] = os.path.join(os.path.dirname(img), "config")
        k["config_copy"] = f"kernels/{label}.config"
    kernels.append(k)
meta = {
    "profile": profile, "reps": int(reps), "guest_cpus": int(cpus), "guest_mem": mem,
    "kernels": kernels,
    "accel_per_boot": accels,
    "accel": sorted(set(accels)),
    "accel_note": os.environ.get("ACCEL_NOTE", ""),
    "qemu_command": qemu_cmd.strip(),
    "qemu_version": cmd("qemu-system-x86_64", "--version"),
    "host_cpu_model": cpu,
    "host_cpus": os.cpu_count(),
    "host_kernel": platform.release(),
    "fio_version": cmd("fio", "--version"),
    "gcc_version": cmd("gcc", "--version"),
    "git_version": cmd("git", "--version"),
    "wall_seconds": int(now) - int(t0),
}
with open(os.path.join(out, "metadata.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
EOF
# the workbench commit: from the repository, not from OUT's parent
WB_COMMIT=$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)
python3 - "$OUT/metadata.json" "$WB_COMMIT" \
	"$(git -C "$TOP" status --porcelain 2>/dev/null | wc -l)" \
	"$("$TOP/bench/series-hash.sh" "$TOP/patches" 2>/dev/null || echo unknown)" <<'EOF'
import json, sys
p, commit, dirty, series = sys.argv[1:]
m = json.load(open(p))
m["workbench_commit"] = commit
m["workbench_uncommitted_files"] = int(dirty)
m["series_hash"] = series
json.dump(m, open(p, "w"), indent=2)
EOF

{
	echo "#!/usr/bin/env bash"
	echo "# Reproduce this run: same kernels, settings and workbench commit."
	echo "# Workbench commit: $WB_COMMIT"
	for i in "${!LABELS[@]}"; do
		echo "# ${LABELS[$i]}: ${IMAGES[$i]} sha256 $(sha256sum "${BOOT_IMAGES[$i]}" | cut -d' ' -f1)" \
			"commit $(cut -c1-12 "$OUT/kernels/${LABELS[$i]}.commit" 2>/dev/null || echo unknown)"
		echo "#   (the booted copy is $OUT/kernels/${LABELS[$i]}.bzImage; to rerun exactly it, pass KERNELS=${LABELS[$i]}=that path)"
	done
	echo "set -euo pipefail"
	# From a fresh clone: the workbench, relative to where this script lies.
	echo "cd \"\$(dirname \"\$0\")/$(realpath --relative-to="$OUT" "$TOP")\""
	echo "git checkout $WB_COMMIT"
	echo "make deps"
	# Kernels this workbench builds: make them; others are the caller's.
	for img in "${IMAGES[@]}"; do
		rel=${img#"$TOP"/}
		case $rel in
		build/images/final/*/bzImage) t=build ;;
		build/images/base/*/bzImage) t=build-base ;;
		*) continue ;;
		esac
		cfg=${rel#build/images/*/}
		echo "make $t CONFIG=${cfg%/bzImage}"
	done
	printf 'KERNELS=%q CPUS=%q REPS=%q MEM=%q ACCEL=%q FULL=%q SMOKE=%q ONLY=%q bench/run.sh' \
		"$KERNELS" "$CPUS" "$REPS" "$MEM" "$ACCEL" "$FULL" "$SMOKE" "$ONLY"
	[ ${#ARGS[@]} -gt 0 ] && printf ' %q' "${ARGS[@]}"
	echo ' "$@"'
} >"$OUT/reproducer.sh"
chmod +x "$OUT/reproducer.sh"

note "raw CSV, metadata.json, reproducer.sh in $OUT ($((SECONDS - T0)) s)"
if [ "$REPORT" = 1 ]; then
	python3 "$HERE/report.py" "$OUT" || die "report.py failed"
	note "report: $OUT/report.md"
fi
if [ "$FAILED" != 0 ]; then
	die "$FAILED of $nboot boots failed (see raw/*/vm.log)"
fi

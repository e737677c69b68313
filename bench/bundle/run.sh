#!/usr/bin/env bash
# Run the pagecache-rcu benchmark matrix from this self-contained bundle, on
# a machine with /dev/kvm and no QEMU (made by bench/kvm-bundle.sh).
#
#   ./run.sh [--accel auto|kvm|tcg] [--cpus N] [--mem SIZE] [--reps N] [--smoke|--full]
#            [--kernels "LABEL ..."] [--cpu-model MODEL] [--no-diag]
#            [--diag-timeout S] [--timeout S] [--out DIR]
#
# 1. Boot diagnostics: OUT/diag/host.txt says what serves /dev/kvm (kvm_intel,
#    kvm_amd, or kvm_pvm: pagetable-based virtualisation without VMX/SVM,
#    which runs an unmodified kernel's ring-0 code through KVM's instruction
#    emulator, about a million instructions a second).  Then each -cpu
#    variant in CPU_VARIANTS (default: host, host,-arch-capabilities, max,
#    kvm64, qemu64; on a kvm_pvm host only host,-arch-capabilities) boots the
#    first kernel with earlyprintk on the serial console, hard-killed after
#    --diag-timeout (default 40 s); the raw console and two looks at the vCPU
#    (registers, KVM's exit and emulation counters) of each try are kept in
#    OUT/diag/, with a one-line verdict each in OUT/diag/summary.txt.  The
#    first variant that reaches the root image's init is used (or
#    --cpu-model).  With --accel auto (the default) a host where no variant
#    boots under KVM runs the matrix under multi-threaded TCG instead, and
#    metadata.json and the report say so; --accel kvm stops there instead.
# 2. The matrix: for each rep, each kernel in turn (A B A B ...), fresh ext4
#    and xfs scratch disks, bench/guest-matrix.sh inside; the CSV come back on
#    a raw results disk (a tar archive).
# 3. OUT/{pread,fio,logreread,gitgrep,compact}.csv, metadata.json, and report.md when
#    python3 is there (bench/report.py; plots need gnuplot).
set -euo pipefail
B=$(cd "$(dirname "$0")" && pwd)
cd "$B"

die() { printf 'bundle: error: %s\n' "$*" >&2; exit 1; }
note() { printf 'bundle: %s\n' "$*" >&2; }
. "$B/bench/common.sh"

ACCEL=auto CPUS=$(nproc) MEM=4G REPS=3 PROFILE=default KSEL='' CPU_MODEL='' DIAG=1
DIAG_TIMEOUT=40 TIMEOUT='' OUT=''
CPU_VARIANTS_SET=${CPU_VARIANTS:+1}
CPU_VARIANTS=${CPU_VARIANTS:-"host host,-arch-capabilities max kvm64 qemu64"}
ACCEL_NOTE=''
while [ $# -gt 0 ]; do
	case "$1" in
	--accel) ACCEL=$2; shift ;;
	--cpus) CPUS=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--smoke) PROFILE=smoke REPS=1 ;;
	--full) PROFILE=full ;;
	--kernels) KSEL=$2; shift ;;
	--cpu-model) CPU_MODEL=$2; shift ;;
	--no-diag) DIAG=0 ;;
	--diag-timeout) DIAG_TIMEOUT=$2; shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (./run.sh --help)" ;;
	esac
	shift
done
case "$ACCEL" in auto | kvm | tcg) ;; *) die "--accel auto, kvm or tcg" ;; esac
if [ -z "$TIMEOUT" ]; then
	case "$PROFILE" in smoke) TIMEOUT=300 ;; default) TIMEOUT=1800 ;; full) TIMEOUT=7200 ;; esac
fi
if [ "$ACCEL" != tcg ]; then
	why=
	[ -e /dev/kvm ] || why="no /dev/kvm here"
	[ -n "$why" ] || { [ -r /dev/kvm ] && [ -w /dev/kvm ]; } || why="/dev/kvm is not readable and writable by $(id -un)"
	if [ -n "$why" ]; then
		[ "$ACCEL" = kvm ] && die "$why (--accel tcg runs without it, slowly)"
		note "$why: the matrix runs under TCG"
		ACCEL=tcg ACCEL_NOTE="$why"
	fi
fi
AUTO=0
[ "$ACCEL" = auto ] && AUTO=1 ACCEL=kvm
if command -v timeout >/dev/null; then
	TIMEOUT_CMD=(timeout)
else
	TIMEOUT_CMD=("$B/bin/busybox" timeout)
fi

QEMU=("$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/qemu-system-x86_64" -L "$B/bios")
export QEMU_MODULE_DIR=$B/lib/qemu
"${QEMU[@]}" --version >/dev/null 2>&1 || die "the bundled QEMU does not start: $("${QEMU[@]}" --version 2>&1 | head -3)"

LABELS=()
for k in kernels/*.bzImage; do
	l=$(basename "$k" .bzImage)
	if [ -z "$KSEL" ] || [[ " $KSEL " == *" $l "* ]]; then
		LABELS+=("$l")
	fi
done
[ ${#LABELS[@]} -ge 1 ] || die "no kernels selected (have: $(cd kernels && echo *.bzImage))"

OUT=${OUT:-$B/results/$(date -u +%Y%m%dT%H%M%SZ)-$PROFILE}
mkdir -p "$OUT/raw" "$OUT/diag" "$OUT/kernels"
OUT=$(cd "$OUT" && pwd)

# What serves /dev/kvm here.  kvm_pvm (pagetable-based virtualisation, for
# hosts that are themselves VMs without nested VMX/SVM) runs PVM guest kernels
# (CONFIG_PVM_GUEST, out of tree) at speed; an unmodified kernel boots, but
# KVM's instruction emulator runs all of its ring-0 code (measured on such a
# host: ~1.4 million instructions a second, the bzImage decompressor not done
# after 4 minutes), which is why it "prints nothing".
KVM_BACKEND=none
for m in kvm_intel kvm_amd kvm_pvm; do
	[ -d "/sys/module/$m" ] && KVM_BACKEND=$m && break
done
VIRT_FLAGS=$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'vmx|svm|hypervisor' | tr '\n' ' ' | sed 's/ $//' || true)
{
	echo "uname: $(uname -a)"
	echo "cpu: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
	echo "cpu flags (virtualisation): ${VIRT_FLAGS:-none of vmx, svm, hypervisor}"
	echo "/dev/kvm: $(ls -l /dev/kvm 2>&1)"
	echo "kvm module: $KVM_BACKEND"
	for f in /sys/module/"$KVM_BACKEND"/parameters/*; do
		[ -r "$f" ] && echo "  ${f##*/}=$(cat "$f" 2>/dev/null)"
	done
	echo "cmdline: $(cat /proc/cmdline 2>/dev/null)"
} >"$OUT/diag/host.txt" 2>&1
if [ "$ACCEL" = kvm ] && [ "$KVM_BACKEND" = kvm_pvm ] && [[ "$VIRT_FLAGS" != *vmx* && "$VIRT_FLAGS" != *svm* ]]; then
	note "/dev/kvm here is kvm_pvm (no VMX/SVM): an unmodified kernel runs its ring-0 code emulated there"
	[ -n "$CPU_VARIANTS_SET" ] || CPU_VARIANTS="host,-arch-capabilities"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-bundle.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# monitor_dump PORT [quit]: vCPU state from the QEMU monitor on PORT.
monitor_dump() {
	printf "\n=== after %s s\n" "$((SECONDS - t0))"
	{
		exec 3<>"/dev/tcp/127.0.0.1/$1" &&
			printf 'info registers\nx/8i $pc\ninfo cpus\ninfo stats vcpu\n%s\n' "$2" >&3 &&
			"${TIMEOUT_CMD[@]}" 2 cat <&3 | tr -d '\r' | sed 's/\x1b\[[0-9;]*[A-Za-z]//g'
		exec 3>&-
	} 2>&1 || true
}

# qemu_boot KERNEL CPU TIMEOUT LOG APPEND [DISK...]: boot, console to LOG.
# With MONITOR=1 (the diagnostics), a guest still running 3 s before the
# timeout gets its vCPU state dumped through the QEMU monitor into LOG.regs
# (info registers, the instructions at RIP, info cpus): where a guest that
# prints nothing is stuck.
qemu_boot() {
	local kernel=$1 cpu=$2 t=$3 log=$4 append=$5 accel=$ACCEL
	shift 5
	local drives=(-drive "file=$B/rootfs.img,if=virtio,format=raw,readonly=on")
	local d mon=(-monitor none) port=
	for d in "$@"; do
		drives+=(-drive "file=$d,if=virtio,format=raw,cache=unsafe")
	done
	[ "$accel" = tcg ] && accel=tcg,thread=multi
	if [ "${MONITOR:-0}" = 1 ]; then
		port=$((20000 + RANDOM % 20000))
		mon=(-monitor "tcp:127.0.0.1:$port,server=on,wait=off")
	fi
	local cmd=("${QEMU[@]}" -nodefaults -no-user-config -display none -no-reboot
		-machine q35 -accel "$accel" -cpu "$cpu" -smp "$CPUS" -m "$MEM"
		-kernel "$kernel"
		-append "console=ttyS0,115200 earlyprintk=serial,ttyS0,115200 ignore_loglevel printk.time=1 panic=-1 root=/dev/vda rootfstype=ext4 ro init=/init $append"
		-serial stdio "${mon[@]}" "${drives[@]}")
	printf '%q ' "${cmd[@]}" >"$log.cmd"
	echo >>"$log.cmd"
	local rc=0
	if [ -z "$port" ]; then
		"${TIMEOUT_CMD[@]}" -s KILL "$t" "${cmd[@]}" </dev/null >"$log" 2>&1 || rc=$?
		return $rc
	fi
	"${TIMEOUT_CMD[@]}" -s KILL "$t" "${cmd[@]}" </dev/null >"$log" 2>&1 &
	local pid=$! t0=$SECONDS half=0
	: >"$log.regs"
	while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - t0)) -lt $((t - 3)) ]; do
		sleep 1
		# a first look half way: two looks tell "stuck" from "slow"
		if [ $half = 0 ] && [ $((SECONDS - t0)) -ge $((t / 2)) ]; then
			half=1
			grep -q 'BENCH-DIAG-OK' "$log" || monitor_dump "$port" "" >>"$log.regs"
		fi
	done
	if kill -0 "$pid" 2>/dev/null && ! grep -q 'BENCH-DIAG-OK' "$log"; then
		monitor_dump "$port" quit >>"$log.regs"
	fi
	wait "$pid" || rc=$?
	return $rc
}

# 1. Diagnostics
if [ -z "$CPU_MODEL" ] && [ "$DIAG" = 1 ]; then
	k0=kernels/${LABELS[0]}.bzImage
	: >"$OUT/diag/summary.txt"
	for cpu in $CPU_VARIANTS; do
		[ "$ACCEL" = tcg ] && [[ "$cpu" == host* ]] && { note "diag: -cpu $cpu needs KVM, skipped"; continue; }
		log=$OUT/diag/${LABELS[0]}-cpu-${cpu//[^A-Za-z0-9_.-]/_}.console
		t=$SECONDS
		rc=0
		MONITOR=1 qemu_boot "$k0" "$cpu" "$DIAG_TIMEOUT" "$log" "bench.mode=diag" || rc=$?
		if grep -q 'BENCH-DIAG-OK' "$log"; then
			v="ok: reached init ($(grep -m1 -o 'BENCH-DIAG-OK.*' "$log" | tr -d '\r'))"
			[ -z "$CPU_MODEL" ] && CPU_MODEL=$cpu
		elif grep -q 'Linux version' "$log"; then
			v="kernel started, init not reached; last line: $(grep -v '^\s*$' "$log" | tail -1 | tr -d '\r' | cut -c1-160)"
		elif [ -s "$log" ]; then
			v="no kernel output; QEMU said: $(head -3 "$log" | tr '\r\n' '  ' | cut -c1-200)"
		else
			v="nothing printed at all (not even earlyprintk)"
		fi
		[ "$rc" = 137 ] && v="$v [killed at ${DIAG_TIMEOUT} s]"
		[ -s "$log.regs" ] && v="$v; vCPU 0 at $(grep -A6 '^CPU#0' "$log.regs" | grep -o 'RIP=[0-9a-f]*' | tr '\n' ' ')(${log##*/}.regs)"
		emu=$(grep -o 'insn_emulation (cumulative): [0-9]*' "$log.regs" 2>/dev/null | grep -o '[0-9]*$' | sort -n | tail -1 || true)
		[ "${emu:-0}" -gt 1000000 ] && v="$v; KVM emulated $emu guest instructions on one vCPU: the guest runs, one emulated instruction at a time"
		echo "-cpu $cpu: $v ($((SECONDS - t)) s, exit $rc)" | tee -a "$OUT/diag/summary.txt" | sed 's/^/bundle: diag /' >&2
	done
	if [ -z "$CPU_MODEL" ] && [ "$ACCEL" = kvm ]; then
		# Tell "KVM does not run this guest" from "the bundle is broken".
		log=$OUT/diag/${LABELS[0]}-tcg-max.console
		t=$SECONDS rc=0
		ACCEL=tcg qemu_boot "$k0" max 120 "$log" "bench.mode=diag" || rc=$?
		if grep -q 'BENCH-DIAG-OK' "$log"; then
			v="ok under TCG: the kernel and root image work, KVM does not run them"
		else
			v="fails under TCG too: the bundle itself is broken"
		fi
		echo "-accel tcg -cpu max: $v ($((SECONDS - t)) s, exit $rc)" | tee -a "$OUT/diag/summary.txt" | sed 's/^/bundle: diag /' >&2
	fi
	if [ -z "$CPU_MODEL" ] && [ "$AUTO" = 1 ] && grep -q '^-accel tcg -cpu max: ok' "$OUT/diag/summary.txt"; then
		ACCEL_NOTE="no -cpu variant booted under KVM ($KVM_BACKEND${VIRT_FLAGS:+, cpu flags $VIRT_FLAGS}); see diag/summary.txt"
		note "$ACCEL_NOTE: the matrix runs under TCG (--accel kvm stops here instead)"
		ACCEL=tcg CPU_MODEL=max
	fi
	[ -n "$CPU_MODEL" ] || die "no -cpu variant booted under $ACCEL; raw consoles in $OUT/diag/ (send that folder back)"
fi
[ -n "$CPU_MODEL" ] || CPU_MODEL=$([ "$ACCEL" = kvm ] && echo host || echo max)
note "using -accel $ACCEL -cpu $CPU_MODEL, $CPUS CPUs, $MEM, profile $PROFILE, $REPS rep(s), kernels ${LABELS[*]}"

# 2. The matrix
FAILED=0 boot=0 nboot=$((REPS * ${#LABELS[@]})) T0=$SECONDS
for rep in $(seq 1 "$REPS"); do
	for label in "${LABELS[@]}"; do
		boot=$((boot + 1))
		dir=$OUT/raw/$label-rep$rep
		rm -rf "$dir"
		mkdir -p "$dir"
		note "[$boot/$nboot] rep $rep, kernel $label ($((SECONDS - T0)) s so far)"
		cp --sparse=always disks/ext4.img "$WORK/ext4.img"
		cp --sparse=always disks/xfs.img "$WORK/xfs.img"
		rm -f "$WORK/results.img"
		truncate -s 64M "$WORK/results.img"
		t=$SECONDS rc=0
		qemu_boot "kernels/$label.bzImage" "$CPU_MODEL" "$TIMEOUT" "$dir/console.log" \
			"bench.mode=matrix bench.label=$label bench.rep=$rep bench.profile=$PROFILE" \
			"$WORK/ext4.img" "$WORK/xfs.img" "$WORK/results.img" || rc=$?
		grep --line-buffered -E '^guest-matrix' "$dir/console.log" | sed 's/^/bundle:   /' >&2 || true
		status=$(sed -n 's/.*BENCH-EXIT-STATUS: \([0-9]*\).*/\1/p' "$dir/console.log" | tail -1)
		tar -xf "$WORK/results.img" -C "$dir" 2>/dev/null || true
		splats=$(grep -E '\] (BUG:|WARNING:|Oops|Kernel panic|general protection fault|rcu: INFO: .*stall|INFO: task .* blocked)' \
			"$dir/console.log" | head -5 || true)
		if [ "$rc" = 137 ]; then
			note "[$boot/$nboot] $label rep $rep: timed out after $TIMEOUT s"
			FAILED=$((FAILED + 1))
		elif [ -n "$splats" ]; then
			note "[$boot/$nboot] $label rep $rep: the kernel reported problems:"
			printf '%s\n' "$splats" | sed 's/^/bundle:   /' >&2
			FAILED=$((FAILED + 1))
		elif [ "$status" != 0 ]; then
			note "[$boot/$nboot] $label rep $rep: failed (guest status '${status:-none}', QEMU exit $rc); console tail:"
			tail -15 "$dir/console.log" | sed 's/^/bundle:   /' >&2
			FAILED=$((FAILED + 1))
		else
			note "[$boot/$nboot] $label rep $rep: ok ($((SECONDS - t)) s)"
		fi
	done
done

merge_csv "$OUT"

# metadata.json without python (the target may not have it)
js() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\n\r'; }
{
	echo "{"
	echo "  \"profile\": \"$PROFILE\", \"reps\": $REPS, \"guest_cpus\": $CPUS, \"guest_mem\": \"$MEM\","
	echo "  \"accel\": [\"$ACCEL\"], \"accel_note\": \"$(js "$ACCEL_NOTE")\", \"cpu_model\": \"$(js "$CPU_MODEL")\","
	echo "  \"host_kvm\": \"$(js "$KVM_BACKEND${VIRT_FLAGS:+ ($VIRT_FLAGS)}")\","
	echo "  \"kernels\": ["
	sep=
	for l in "${LABELS[@]}"; do
		c=$(cat "kernels/$l.commit" 2>/dev/null || echo unknown)
		printf '%s    {"label": "%s", "bzImage": "kernels/%s.bzImage", "commit": "%s", "config_copy": "kernels/%s.config"}' \
			"$sep" "$l" "$l" "$(js "$c")" "$l"
		sep=$',\n'
		cp "kernels/$l.config" "$OUT/kernels/" 2>/dev/null || true
	done
	echo
	echo "  ],"
	echo "  \"qemu_command\": \"$(js "$(cat "$(ls "$OUT"/raw/*/console.log.cmd 2>/dev/null | head -1)" 2>/dev/null || true)")\","
	echo "  \"qemu_version\": \"$(js "$("${QEMU[@]}" --version | head -1)")\","
	echo "  \"host_cpu_model\": \"$(js "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')")\","
	echo "  \"host_cpus\": $(nproc), \"host_kernel\": \"$(js "$(uname -r)")\","
	echo "  \"bundle\": \"$(js "$(cat "$B/BUNDLE-INFO" 2>/dev/null | head -1)")\","
	echo "  \"fio_version\": \"not in the bundle: fio table measured with bench/pread -m seq\","
	echo "  \"wall_seconds\": $((SECONDS - T0))"
	echo "}"
} >"$OUT/metadata.json"

if command -v python3 >/dev/null; then
	python3 "$B/bench/report.py" "$OUT" || note "report.py failed"
else
	note "no python3 here: copy $OUT back and run bench/report.py on it"
fi
note "results in $OUT ($((SECONDS - T0)) s for the matrix)"
[ "$FAILED" = 0 ] || die "$FAILED of $nboot boots failed"

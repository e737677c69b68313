#!/usr/bin/env bash
# bench/uml/device.sh: make bench's matrix on a many-core machine that has no
# kernel tree, no busybox and no liburcu (the `device` machine some sessions
# are lent: 16 cores, gcc, no internet).
#
#   bench/uml/device.sh pack [DIR]      here: DIR (default build/device, an
#                                       ignored folder to name in `carry`)
#   bench/uml/device.sh run DIR OUTDIR  there: the matrix, then
#                                       OUTDIR/uml-device.tar.gz
#
# pack takes what make bench built (build/uml/{base,final} and their
# pcbench.ko: run make bench, or bench/uml/run.sh --smoke, first), the static
# busybox, logreread and heldback, the userspace model's bench with its liburcu,
# empty ext4 and XFS images (gzipped) and build/base.env; about 20 MB.  The UML
# binaries need glibc 2.34 or newer there.  run calls bench/uml/run.sh
# --no-build with those stand-ins at 1, 2, 4, ... up to the machine's CPU
# count (at most 64): fd per thread, 16 B to 64 KiB, every fs, the probe, the
# sequential rows and the log re-read, 2 boots x 2 rounds of 300 ms points
# (about 5 min at 16 CPUs), and packs the results folder into one file (the
# device tool returns at most 8 files).  DEVICE_ARGS adds options to run.sh.
# Read it here with bench/report.py after unpacking it under results/.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
die() { printf 'device.sh: error: %s\n' "$*" >&2; exit 1; }

pack() {
	local d=${1:-$TOP/build/device} k lib
	rm -rf "$d"
	mkdir -p "$d/uml" "$d/bin" "$d/lib"
	for k in base final; do
		[ -x "$TOP/build/uml/$k/linux" ] && [ -f "$TOP/build/uml/$k-mod/pcbench.ko" ] ||
			die "no build/uml/$k (run make bench or bench/uml/run.sh --smoke first)"
		mkdir -p "$d/uml/$k" "$d/uml/$k-mod"
		cp "$TOP/build/uml/$k/linux" "$TOP/build/uml/$k/commit" "$d/uml/$k/"
		cp "$TOP/build/uml/$k-mod/pcbench.ko" "$d/uml/$k-mod/"
	done
	[ -f "$TOP/build/base.env" ] || die "no build/base.env (make tree)"
	cp "$TOP/build/base.env" "$d/"
	cp "$(command -v busybox)" "$d/bin/busybox"
	file -L "$d/bin/busybox" | grep -q 'statically linked' || die "busybox is not static (busybox-static)"
	make -s -C "$TOP/bench" O="$TOP/build/bench" "$TOP/build/bench/logreread" "$TOP/build/bench/heldback"
	cp "$TOP/build/bench/logreread" "$TOP/build/bench/heldback" "$d/bin/"
	make -s -C "$TOP/tools/testing/pagecache-model" KSRC="$TOP/build/linux" \
		O="$TOP/build/model" "$TOP/build/model/pagecache-model-bench" >/dev/null
	cp "$TOP/build/model/pagecache-model-bench" "$d/bin/"
	for lib in $(ldd "$d/bin/pagecache-model-bench" | awk '/liburcu/ { print $3 }'); do
		cp -L "$lib" "$d/lib/"
	done
	truncate -s 256M "$d/ext4.img"
	mkfs.ext4 -q -F -b 4096 "$d/ext4.img"
	gzip -9 "$d/ext4.img"
	truncate -s 512M "$d/xfs.img"
	mkfs.xfs -q -f "$d/xfs.img"
	gzip -9 "$d/xfs.img"
	du -sh "$d" | awk '{ print "device.sh: packed " $2 " (" $1 ")" }'
}

run() {
	local d=${1:?usage: device.sh run DIR OUTDIR} out=${2:?usage: device.sh run DIR OUTDIR}
	local n c cpus='' res
	d=$(cd "$d" && pwd)
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	n=$(nproc)
	[ "$n" -le 64 ] || n=64
	c=1
	while [ "$c" -lt "$n" ]; do cpus+="$c "; c=$((c * 2)); done
	cpus+=$n
	res=$(mktemp -d)/uml-device
	# UML's memory file wants a tmpfs of a few GiB; containers often have a
	# 64 MiB /dev/shm
	if [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -lt 4194304 ] 2>/dev/null; then
		mkdir -p /tmp/uml-mem
		mount -t tmpfs -o size=8g uml-mem /tmp/uml-mem 2>/dev/null || true
		export PCB_TMPDIR=/tmp/uml-mem
		echo "device.sh: /dev/shm is small; UML memory in $PCB_TMPDIR"
	fi
	# shellcheck disable=SC2086 # DEVICE_ARGS is a list of options
	BUILD=$d PCB_BUSYBOX=$d/bin/busybox PCB_EXT4_GZ=$d/ext4.img.gz PCB_XFS_GZ=$d/xfs.img.gz \
		PCB_LOGBIN=$d/bin/logreread PCB_HELDBIN=$d/bin/heldback PCB_MODEL_BIN=$d/bin/pagecache-model-bench \
		LD_LIBRARY_PATH=$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"$TOP/bench/uml/run.sh" --no-build --no-gitgrep --no-replay --no-report --cpus "$cpus" \
		--boots 2 --rounds 2 --ms 300 --shapes ownfd --sizes "16 512 4096 65536" \
		--out "$res" ${DEVICE_ARGS:-} || rc=$?
	tar -C "$(dirname "$res")" -czf "$out/uml-device.tar.gz" uml-device
	echo "device.sh: $out/uml-device.tar.gz (exit ${rc:-0})"
	return "${rc:-0}"
}

case "${1:-}" in
pack) shift; pack "$@" ;;
run) shift; run "$@" ;;
*) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac

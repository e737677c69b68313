#!/bin/sh
# The tmpfs read table of Chi Zhiling's shmem large-folio read series:
# fio --ioengine=sync --rw=read --bs={4k,64k,1M} --size=1G --time_based on a
# normal (written), fallocated and hole (sparse) file, on tmpfs mounted with
# huge=never (THP off) and huge=always (THP on).  Mounts its own tmpfs under
# /mnt, so it runs as root in a guest (scripts/vm, or the kvm bundle).
#
#   bench/fio/table.sh [--full] [--size-mb N] [--runtime S] [--bs "4k 64k 1M"]
#                      [--thp "off on"] [--files "normal falloc hole"]
#                      [--tool fio|pread] [--pread PATH] [--header]
#
# Default sizes are scaled down (64 MiB, 2 s per point); --full is the
# original table (1 GiB, 10 s).  --tool pread measures the same thing with
# bench/pread -m seq (for machines without fio).  CSV on stdout:
#   fs,thp,file,bs,mib_per_sec,tool
# POSIX sh: it also runs under busybox.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SIZE_MB=64 RUNTIME=2 BSS="4k 64k 1M" THPS="off on" FILES="normal falloc hole"
TOOL=fio PREAD=${PREAD:-$HERE/../../build/bench/pread} HEADER=0 FIO=${FIO:-fio}

die() { echo "fio/table.sh: error: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case "$1" in
	--full) SIZE_MB=1024 RUNTIME=10 ;;
	--size-mb) SIZE_MB=$2; shift ;;
	--runtime) RUNTIME=$2; shift ;;
	--bs) BSS=$2; shift ;;
	--thp) THPS=$2; shift ;;
	--files) FILES=$2; shift ;;
	--tool) TOOL=$2; shift ;;
	--pread) PREAD=$2; shift ;;
	--header) HEADER=1 ;;
	*) die "unknown option $1 (see the comment at the top)" ;;
	esac
	shift
done
case "$TOOL" in
fio) command -v "$FIO" >/dev/null || die "fio not found (--tool pread runs without it)" ;;
pread) [ -x "$PREAD" ] || die "no pread at $PREAD (make -C bench)" ;;
*) die "--tool fio or pread" ;;
esac
[ "$(id -u)" = 0 ] || die "must run as root (mounts tmpfs): run it in the guest"

[ "$HEADER" = 1 ] && echo "fs,thp,file,bs,mib_per_sec,tool"
for thp in $THPS; do
	case "$thp" in
	off) huge=never ;;
	on) huge=always ;;
	*) die "--thp: off or on, not $thp" ;;
	esac
	mnt=/mnt/fio-thp-$thp
	mkdir -p "$mnt"
	mount -t tmpfs -o "size=$((SIZE_MB * 2 + 64))m,huge=$huge" tmpfs "$mnt" ||
		die "cannot mount tmpfs with huge=$huge on $mnt"
	for file in $FILES; do
		for bs in $BSS; do
			if [ "$TOOL" = fio ]; then
				rm -f "$mnt/$file"
				case "$file" in
				normal) dd if=/dev/zero of="$mnt/$file" bs=1M count="$SIZE_MB" 2>/dev/null ;;
				falloc) fallocate -l "$((SIZE_MB * 1048576))" "$mnt/$file" ;;
				hole) truncate -s "$((SIZE_MB * 1048576))" "$mnt/$file" ;;
				*) die "--files: normal, falloc or hole, not $file" ;;
				esac
				line=$(FIO_DIR=$mnt BS=$bs SIZE=${SIZE_MB}M RUNTIME=$RUNTIME \
					"$FIO" --output-format=terse --terse-version=3 \
					"$HERE/$file.fio") || die "fio $file.fio bs=$bs failed"
				# terse v3: field 5 error, field 7 read bandwidth in KiB/s
				mib=$(echo "$line" | awk -F';' 'NR == 1 && $5 == 0 { printf "%.1f", $7 / 1024 }')
				[ -n "$mib" ] || die "fio $file bs=$bs: no result in: $line"
				rm -f "$mnt/$file"
			else
				case "$file" in
				normal) kind="write" ;;
				falloc) kind="falloc" ;;
				hole) kind="hole" ;;
				*) die "--files: normal, falloc or hole, not $file" ;;
				esac
				line=$("$PREAD" -d "$mnt" -f tmpfs -m seq -c "$kind" -l "$bs" \
					-s "${SIZE_MB}m" -D "$RUNTIME" -w 0) ||
					die "pread -m seq $file bs=$bs failed"
				mib=$(echo "$line" | awk -F, '{ printf "%.1f", $8 }')
			fi
			echo "tmpfs,$thp,$file,$bs,$mib,$TOOL"
		done
	done
	umount "$mnt"
done

#!/usr/bin/env bash
# make kvm-bundle: pack everything needed to run the benchmark matrix on a
# machine that has /dev/kvm but no QEMU and no internet, into one tarball
# (under 60 MiB):
#
#   qemu-system-x86_64, lib/ (its ldd libraries and ld-linux-x86-64.so.2),
#   lib/qemu/accel-tcg-x86_64.so (QEMU_MODULE_DIR), bios/ (only the firmware
#   a q35 -kernel boot loads), kernels/LABEL.{bzImage,commit,config},
#   rootfs.img (ext4: busybox, static pread, logreread and compact, git and its
#   libraries, bench/guest-matrix.sh, kernel sources for git grep, /init),
#   disks/{ext4,xfs}.img (empty scratch file systems, sparse), bench/report.py,
#   run.sh (the runner: boot diagnostics, then the matrix).
#
#   bench/kvm-bundle.sh [--kernels "LABEL=bzImage ..."] [--out FILE] [--no-fs]
#
# On the target:  tar -xzf pagecache-bench.tar.gz && cd pagecache-bench && ./run.sh
# The root image holds the kernel's mm/ and fs/ sources (the full profile's
# git grep reads both); --no-fs leaves fs/ out (10 MiB less).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)

die() { printf 'kvm-bundle: error: %s\n' "$*" >&2; exit 1; }
note() { printf 'kvm-bundle: %s\n' "$*" >&2; }

KERNELS=${KERNELS:-"base=$TOP/build/images/base/guest/bzImage final=$TOP/build/images/final/guest/bzImage"}
OUTFILE=$TOP/build/pagecache-bench.tar.gz
WITH_FS=1
LIMIT_MB=60
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) KERNELS=$2; shift ;;
	--out) OUTFILE=$2; shift ;;
	--no-fs) WITH_FS=0 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1" ;;
	esac
	shift
done

QEMU_BIN=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
QEMU_MODS=/usr/lib/x86_64-linux-gnu/qemu
BUSYBOX=/bin/busybox
for f in "$BUSYBOX" /sbin/mkfs.ext4 /sbin/mkfs.xfs "$QEMU_MODS/accel-tcg-x86_64.so"; do
	[ -e "$f" ] || die "missing $f (busybox-static, e2fsprogs, xfsprogs, qemu-system-x86)"
done
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic' || die "$BUSYBOX is not static (install busybox-static)"
SRC=$TOP/build/linux
[ -d "$SRC/mm" ] || die "no kernel sources at $SRC (make tree)"

note "building the benchmark programs"
make -s -C "$HERE" O="$TOP/build/bench" >&2 || die "make -C bench failed"

STAGE=$TOP/build/kvm-bundle
B=$STAGE/pagecache-bench
rm -rf "$STAGE"
mkdir -p "$B"/{lib/qemu,bios,kernels,disks,bin,bench/fio}

# copy_libs BINARY DEST: the shared libraries BINARY loads, into DEST.
copy_libs() {
	local lib
	for lib in $(ldd "$1" | awk '/=> \// { print $3 }'); do
		[ -e "$2/$(basename "$lib")" ] || cp -L "$lib" "$2/"
	done
}

note "QEMU $("$QEMU_BIN" --version | head -1)"
cp -L "$QEMU_BIN" "$B/qemu-system-x86_64"
copy_libs "$QEMU_BIN" "$B/lib"
cp -L /lib64/ld-linux-x86-64.so.2 "$B/lib/ld-linux-x86-64.so.2"
cp -L "$QEMU_MODS/accel-tcg-x86_64.so" "$B/lib/qemu/"
copy_libs "$QEMU_MODS/accel-tcg-x86_64.so" "$B/lib"
# Firmware of a q35 -kernel boot with -nodefaults: SeaBIOS, the option ROMs
# that load the kernel, the TPR patching ROM.
for f in bios-256k.bin kvmvapic.bin linuxboot_dma.bin linuxboot.bin multiboot_dma.bin; do
	src=/usr/share/qemu/$f
	[ -e "$src" ] || src=/usr/share/seabios/$f
	[ -e "$src" ] || die "no firmware $f in /usr/share/qemu or /usr/share/seabios"
	cp -L "$src" "$B/bios/"
done
cp "$BUSYBOX" "$B/bin/busybox"

labels=()
for kv in $KERNELS; do
	label=${kv%%=*} img=${kv#*=}
	[ "$label" != "$kv" ] && [[ "$label" =~ ^[A-Za-z0-9._-]+$ ]] || die "KERNELS: LABEL=bzImage, not '$kv'"
	[ -f "$img" ] || die "no kernel $img"
	d=$(dirname "$img")
	cp "$img" "$B/kernels/$label.bzImage"
	[ -f "$d/commit" ] && cp "$d/commit" "$B/kernels/$label.commit"
	[ -f "$d/config" ] && cp "$d/config" "$B/kernels/$label.config"
	if [ -f "$d/config" ]; then
		for opt in VIRTIO_BLK VIRTIO_PCI EXT4_FS XFS_FS TMPFS DEVTMPFS SERIAL_8250_CONSOLE; do
			grep -q "^CONFIG_$opt=y" "$d/config" || die "$label: CONFIG_$opt is not built in; the bundle's guest needs it"
		done
	fi
	labels+=("$label")
done

note "root image"
R=$STAGE/root
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,lib/x86_64-linux-gnu,lib64,proc,sys,dev,tmp,run,mnt,root,results,etc,data,bench/bin,bench/fio}
cp "$BUSYBOX" "$R/bin/busybox"
for app in $("$BUSYBOX" --list); do
	[ "$app" = busybox ] || ln -s busybox "$R/bin/$app"
done
cp "$TOP/build/bench/pread" "$TOP/build/bench/logreread" "$TOP/build/bench/compact" "$R/bench/bin/"
cp "$HERE/guest-matrix.sh" "$R/bench/"
cp "$HERE"/fio/*.fio "$HERE/fio/table.sh" "$R/bench/fio/"
cp "$HERE/bundle/init" "$R/init"
chmod 755 "$R/init" "$R/bench/guest-matrix.sh" "$R/bench/fio/table.sh"
GIT=$(command -v git) || die "git not installed"
cp -L "$GIT" "$R/usr/bin/git"
copy_libs "$GIT" "$R/lib/x86_64-linux-gnu"
cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
echo "root:x:0:0:root:/root:/bin/sh" >"$R/etc/passwd"
echo "root:x:0:" >"$R/etc/group"
cp -a "$SRC/mm" "$R/data/"
[ "$WITH_FS" = 1 ] && cp -a "$SRC/fs" "$R/data/"
root_mb=$(( $(du -sm "$R" | cut -f1) * 5 / 4 + 32 ))
mkfs.ext4 -q -F -L benchroot -d "$R" "$B/rootfs.img" "${root_mb}M" ||
	die "mkfs.ext4 -d failed (e2fsprogs >= 1.43 needed)"

note "scratch disks"
truncate -s 1G "$B/disks/ext4.img" "$B/disks/xfs.img"
mkfs.ext4 -q -F "$B/disks/ext4.img"
mkfs.xfs -q -f "$B/disks/xfs.img"

cp "$HERE/bundle/run.sh" "$B/run.sh"
chmod 755 "$B/run.sh"
cp "$HERE/report.py" "$B/bench/"
cp "$HERE/guest-matrix.sh" "$HERE/common.sh" "$HERE/pread.c" "$HERE/logreread.c" "$HERE/compact.c" "$HERE/bench.h" \
	"$HERE/Makefile" "$B/bench/"
cp "$HERE"/fio/* "$B/bench/fio/"
{
	echo "pagecache-bench bundle, workbench $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown), made $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	for l in "${labels[@]}"; do
		echo "kernel $l: $(head -1 "$B/kernels/$l.commit" 2>/dev/null || echo 'commit unknown')"
	done
	echo "$("$QEMU_BIN" --version | head -1)"
} >"$B/BUNDLE-INFO"
cat >"$B/README" <<'EOF'
pagecache-rcu benchmark bundle: needs only Linux x86_64 with /dev/kvm, bash,
coreutils and tar.  python3 (and gnuplot) on the target make report.md; else
copy results/ back and run bench/report.py there.

    ./run.sh                    # boot diagnostics, then the matrix (3 reps)
    ./run.sh --smoke            # a minute: the whole pipeline once
    ./run.sh --full             # the long matrix
    ./run.sh --help

Raw consoles of the diagnostic boots: results/*/diag/; what serves /dev/kvm:
results/*/diag/host.txt.  KVM needs VMX or SVM: on a kvm_pvm host (a VM
without nested virtualisation) KVM emulates the guest kernel instruction by
instruction, so ./run.sh (--accel auto) runs the matrix under TCG there and
says why; --accel kvm stops instead.
EOF

note "packing"
mkdir -p "$(dirname "$OUTFILE")"
tar -C "$STAGE" --sparse -czf "$OUTFILE" pagecache-bench
mb=$(( $(stat -c %s "$OUTFILE") / 1048576 ))
[ "$mb" -lt "$LIMIT_MB" ] || die "$OUTFILE is $mb MiB, over $LIMIT_MB MiB"
note "$OUTFILE: $mb MiB (unpacked in $B)"
echo "$OUTFILE"

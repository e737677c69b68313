# bench/uml/lib.sh: building a User-Mode Linux kernel and a benchmark module
# for it, used by bench/uml/run.sh.  Sourced after
# scripts/lib.sh (die, note, TOP, KCC).

# uml_build SRC OBJ WHAT: the UML kernel and modules of source tree SRC in
# OBJ, configured (again, when bench/uml/uml.config is newer) as ARCH=um
# defconfig + bench/uml/uml.config.  WHAT names it in errors.
uml_build() {
	mkdir -p "$2"
	if [ ! -f "$2/.config" ] || [ "$TOP/bench/uml/uml.config" -nt "$2/.config" ]; then
		make -s -C "$1" ARCH=um O="$2" defconfig >/dev/null &&
			"$1/scripts/kconfig/merge_config.sh" -m -O "$2" "$2/.config" \
				"$TOP/bench/uml/uml.config" >/dev/null &&
			make -s -C "$1" ARCH=um O="$2" olddefconfig >/dev/null ||
			die "UML configuration of $3 failed"
	fi
	make -s -C "$1" ARCH=um O="$2" CC="$KCC" -j"$(nproc)" linux modules >"$2/build.log" 2>&1 ||
		{ tail -20 "$2/build.log" >&2; die "UML build of $3 failed ($2/build.log)"; }
}

# uml_ext4_image FILE SIZE: a fresh, empty ext4 image for ubd0=FILE; from
# the gzipped empty image PCB_EXT4_GZ where set (a machine without mkfs.ext4:
# bench/uml/device.sh), which fixes the size.
uml_ext4_image() {
	rm -f "$1"
	if [ -n "${PCB_EXT4_GZ:-}" ]; then
		gzip -dc "$PCB_EXT4_GZ" >"$1" || die "cannot unpack $PCB_EXT4_GZ"
		return
	fi
	truncate -s "$2" "$1"
	# 4 KiB blocks, as mkfs.ext4 picks for file systems of 512 MiB and up:
	# with its 1 KiB default for small images, the last folio of a file
	# written partially stays !uptodate (partly uptodate buffers) and
	# every read of it takes the slow path.
	mkfs.ext4 -q -F -b 4096 "$1"
}

# uml_xfs_image FILE: a fresh, empty XFS image (512 MiB, sparse; mkfs.xfs
# wants 300 MiB at least) for ubd1=FILE; from PCB_XFS_GZ where set.
uml_xfs_image() {
	rm -f "$1"
	if [ -n "${PCB_XFS_GZ:-}" ]; then
		gzip -dc "$PCB_XFS_GZ" >"$1" || die "cannot unpack $PCB_XFS_GZ"
		return
	fi
	truncate -s 512M "$1"
	mkfs.xfs -q -f "$1" || die "mkfs.xfs $1 failed"
}

# uml_module OBJ SOURCE.c: SOURCE.c and the Kbuild next to it, built as a
# module for the kernel in OBJ, in OBJ-mod (again every time: its vermagic
# must match the kernel).
uml_module() {
	local name
	name=$(basename "$2" .c)
	rm -rf "$1-mod"
	mkdir -p "$1-mod"
	cp "$2" "$(dirname "$2")/Kbuild" "$1-mod/"
	make -s -C "$1" ARCH=um CC="$KCC" M="$1-mod" modules >"$1-mod/build.log" 2>&1 ||
		{ tail -20 "$1-mod/build.log" >&2; die "$name.ko failed ($1-mod/build.log)"; }
}

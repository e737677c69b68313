#!/usr/bin/env bash
# build.sh CONFIG REF LABEL: build bzImage for kernel commit REF (in
# build/linux) with configs/CONFIG.config fragments, in the object directory
# build/obj/CONFIG, and install it as build/images/LABEL/CONFIG/bzImage.
#
# CONFIG is "guest", "debug" (guest + debug fragments) or "rt" (guest +
# PREEMPT_RT, for make check-many), all x86_64, or "arm64"
# (configs/arm64.config, cross-compiled with aarch64-linux-gnu-gcc; the
# image is build/images/LABEL/arm64/Image; CONFIGURE_ONLY=1 stops at the
# .config).  The
# kernel's own sources are checked out in a separate worktree
# (build/linux-build) so that a developer's checkout in build/linux is never
# disturbed.  ccache is used when installed; W=1 is not used for the full
# image (it is used per patch by scripts/boundaries.sh).
. "$(dirname "$0")/lib.sh"
lock_worktree

cfg=${1:?usage: build.sh CONFIG REF LABEL}
ref=${2:?usage: build.sh CONFIG REF LABEL}
label=${3:?usage: build.sh CONFIG REF LABEL}
OBJ=$BUILD/obj/$cfg
IMG=$BUILD/images/$label/$cfg
JOBS=${JOBS:-$(nproc)}
ARCH_ARGS=() TARGET=bzImage IMAGE=arch/x86/boot/bzImage
if [ "$cfg" = arm64 ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		die "no aarch64-linux-gnu-gcc (apt install gcc-aarch64-linux-gnu)"
	KCC=${KCC/gcc/aarch64-linux-gnu-gcc}
	ARCH_ARGS=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	TARGET=Image IMAGE=arch/arm64/boot/Image
fi

fragments() {
	if [ "$cfg" = arm64 ]; then
		echo "$TOP/configs/arm64.config"
	else
		echo "$TOP/configs/guest.config"
	fi
	# The selftests' own requirements, once the series carries them.
	if [ -f "$WT/tools/testing/selftests/pagecache/config" ]; then
		echo "$WT/tools/testing/selftests/pagecache/config"
	fi
	# The variant comes after them: it may turn off what PREEMPT_RT
	# excludes (THP).
	case "$cfg" in
	guest | arm64) ;;
	debug) echo "$TOP/configs/debug.config" ;;
	rt) echo "$TOP/configs/rt.config" ;;
	*) die "unknown config '$cfg' (guest, debug, rt or arm64)" ;;
	esac
	echo "$OBJ/series.config"
}

# configs/series.config, reduced to the symbols this commit's Kconfig has.
series_config() {
	local line sym
	mkdir -p "$OBJ"
	: >"$OBJ/series.config"
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		sym=${line%%=*}
		sym=${sym#CONFIG_}
		if grep -rqsx --include='Kconfig*' "config $sym" "$WT/mm" "$WT/init" "$WT/kernel" "$WT/lib" "$WT/fs"; then
			echo "$line" >>"$OBJ/series.config"
		fi
	done <"$TOP/configs/series.config"
}

checkout() {
	local sha
	sha=$(kgit rev-parse --verify "$ref^{commit}") || die "no commit '$ref' in $KSRC (run 'make tree')"
	checkout_worktree "$sha"
	echo "$sha"
}

# Every CONFIG_X=v and "# CONFIG_X is not set" line of the fragments must
# hold in the final .config: a requested option silently dropped (a missing
# dependency) is an error, not a surprise at boot.
verify_config() {
	local frag line sym want have bad=0
	local -A wants froms
	local -a order=()
	# The last fragment that names a symbol decides its value.
	for frag in $(fragments); do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) sym=${line%%=*} want=${line#*=} ;;
			'# CONFIG_'*' is not set') sym=${line#\# } sym=${sym%% *} want=n ;;
			*) continue ;;
			esac
			[ -n "${wants[$sym]+set}" ] || order+=("$sym")
			wants[$sym]=$want froms[$sym]=${frag##*/}
		done <"$frag"
	done
	for sym in "${order[@]}"; do
		want=${wants[$sym]}
		have=$(grep -E "^$sym=|^# $sym is not set" "$OBJ/.config" | head -1 || true)
		case "$have" in
		"$sym="*) have=${have#*=} ;;
		*) have=n ;;
		esac
		if [ "$have" != "$want" ]; then
			warn "$sym: requested $want by ${froms[$sym]}, got $have"
			bad=1
		fi
	done
	[ $bad = 0 ] || die "config '$cfg' does not satisfy its fragments (see above)"
}

configure() {
	local merged=$OBJ/fragments.config
	mkdir -p "$OBJ"
	cat $(fragments) >"$merged.new"
	if [ -f "$OBJ/.config" ] && cmp -s "$merged.new" "$merged"; then
		# Same fragments: only re-resolve against this commit's Kconfig.
		make -s -C "$WT" O="$OBJ" "${ARCH_ARGS[@]}" olddefconfig >/dev/null
	else
		mv "$merged.new" "$merged"
		make -s -C "$WT" O="$OBJ" "${ARCH_ARGS[@]}" KCONFIG_ALLCONFIG="$merged" allnoconfig >/dev/null
	fi
	rm -f "$merged.new"
	verify_config
}

compile() {
	local log=$OBJ/build.log
	if ! make -C "$WT" O="$OBJ" -j"$JOBS" "${ARCH_ARGS[@]}" CC="$KCC" "$TARGET" >"$log" 2>&1; then
		grep -m1 -E 'error:|Error [0-9]|undefined reference' "$log" >&2 || tail -20 "$log" >&2
		die "build of $cfg at $(git -C "$WT" log -1 --format='%h %s') failed; full log: $log"
	fi
	grep -E 'warning:' "$log" >&2 || true
}

sha=$(checkout)
series_config
configure
# CONFIGURE_ONLY=1: stop at the .config (make cross builds per boundary
# from it and needs no image).
if [ -n "${CONFIGURE_ONLY:-}" ]; then
	note "$OBJ/.config: $cfg at $(git -C "$WT" log -1 --format='%h %s' "$sha")"
	exit 0
fi
compile
mkdir -p "$IMG"
cp "$OBJ/$IMAGE" "$IMG/${IMAGE##*/}"
cp "$OBJ/.config" "$IMG/config"
printf '%s %s\n' "$sha" "$(git -C "$WT" log -1 --format=%s "$sha")" >"$IMG/commit"
note "$IMG/${IMAGE##*/}: $(cat "$IMG/commit")"

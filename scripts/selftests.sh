#!/usr/bin/env bash
# selftests.sh build | run
#   build: build tools/testing/selftests/pagecache (this repository's copy)
#          with the kernel tree's kselftest headers, lib.mk and exported
#          UAPI headers, in build/ksft, against the host's libc.
#   run:   run every test program of the suite (TAP), on whatever kernel
#          this runs on: the host's, or a guest's through scripts/vm
#          ($PAGECACHE_PROGS="counters races" runs only those).
#          Exit status 0 only if every program passed (skips allowed).
# KSFT_CROSS=aarch64-linux-gnu- builds static programs for that target in
# build/ksft-<target> instead (an initramfs guest has no libc; run them
# without this script, which needs make).
. "$(dirname "$0")/lib.sh"

SRC=$TOP/tools/testing/selftests/pagecache
KSFT=$BUILD/ksft
CROSS_ARGS=()
if [ -n "${KSFT_CROSS:-}" ]; then
	KSFT=$BUILD/ksft-${KSFT_CROSS%-linux-gnu-}
	CROSS_ARGS=(CROSS_COMPILE="$KSFT_CROSS" LDFLAGS=-static)
fi

# The programs build as in a kernel tree (lib.mk finds the exported UAPI
# headers at $top_srcdir/usr/include, counters.c includes
# tools/include/io_uring/mini_liburing.h), in a copy laid out like one:
# $KSFT/src holds the tree's kselftest framework, tools/include/io_uring
# and the UAPI headers of $KSRC (make headers), and $KSFT/pagecache
# names this repository's copy of the tests inside it.
build() {
	local ksrc=$KSRC/tools/testing/selftests tree=$KSFT/src harch
	local sel=$KSFT/src/tools/testing/selftests
	[ -f "$ksrc/lib.mk" ] || die "no kselftest framework in $ksrc (run 'make tree')"
	case "${KSFT_CROSS:-$(uname -m)-}" in
	aarch64-*) harch=arm64 ;;
	riscv64-*) harch=riscv ;;
	x86_64-* | i?86-*) harch=x86 ;;
	*) die "selftests: no kernel ARCH known for ${KSFT_CROSS:-$(uname -m)}" ;;
	esac
	rm -rf "$KSFT"
	mkdir -p "$sel" "$tree/tools/include"
	cp -r "$ksrc/lib.mk" "$ksrc/kselftest.h" "$ksrc/kselftest_harness.h" "$ksrc/kselftest" "$sel/"
	cp -r "$KSRC/tools/include/io_uring" "$tree/tools/include/"
	cp -r "$SRC" "$sel/pagecache"
	ln -s "src/tools/testing/selftests/pagecache" "$KSFT/pagecache"
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$KSRC" O="$KSFT/hdr" ARCH="$harch" \
		headers >"$KSFT/build.log" 2>&1 ||
		{ tail -5 "$KSFT/build.log" >&2; die "make headers in $KSRC failed (log: $KSFT/build.log)"; }
	mkdir -p "$tree/usr"
	mv "$KSFT/hdr/usr/include" "$tree/usr/"
	rm -rf "$KSFT/hdr"
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$KSFT/pagecache" OUTPUT="$KSFT/pagecache" "${CROSS_ARGS[@]}" >>"$KSFT/build.log" 2>&1 ||
		{ grep -m5 -E 'error|warning' "$KSFT/build.log" >&2; die "selftests do not build (log: $KSFT/build.log)"; }
	if grep -q 'warning:' "$KSFT/build.log"; then
		grep 'warning:' "$KSFT/build.log" >&2
		die "selftests build with warnings"
	fi
	note "selftests built in $KSFT/pagecache"
}

run() {
	local prog rc=0 t0
	[ -d "$KSFT/pagecache" ] || die "selftests not built (scripts/selftests.sh build)"
	cd "$KSFT/pagecache"
	note "selftests on $(uname -r), $(grep -c '^processor' /proc/cpuinfo) CPUs in /proc/cpuinfo, fast path: $(cat /proc/sys/vm/pagecache_fast_read 2>/dev/null || echo 'not in this kernel')"
	for prog in $(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -f - print KHDR_INCLUDES= <<<'include Makefile
print: ; @echo $(TEST_GEN_PROGS)'); do
		prog=${prog##*/}
		# PAGECACHE_PROGS="counters races": only those programs.
		case " ${PAGECACHE_PROGS:-$prog} " in *" $prog "*) ;; *) continue ;; esac
		t0=$SECONDS
		echo "# $prog"
		# PAGECACHE_PROG_ARGS: harness options for every program
		# (e.g. "-t folio_shape_split"); a program that has none of
		# the tests named runs none.
		# shellcheck disable=SC2086
		if ! "./$prog" ${PAGECACHE_PROG_ARGS:-}; then
			rc=1
		fi
		echo "# $prog: $((SECONDS - t0)) s"
	done
	kunit_results || rc=1
	return $rc
}

# The series' KUnit test ran at boot where the kernel has it built in
# (the rt config): one TAP line per case, from debugfs.
kunit_results() {
	local res=/sys/kernel/debug/kunit/rcu_free/results cases line rc=0
	# Only where nothing is mounted there yet (a guest; never a second
	# debugfs mount on a host).
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
	if [ ! -f "$res" ]; then
		if zcat /proc/config.gz 2>/dev/null | grep -qx 'CONFIG_PAGECACHE_RCU_FREE_KUNIT_TEST=y'; then
			echo "not ok - kunit rcu_free: built in, but no $res (kunit.enable=0?)"
			return 1
		fi
		return 0
	fi
	echo "# kunit rcu_free (ran at boot):"
	sed 's/^/#   /' "$res"
	cases=$(grep -E '^[[:space:]]+(not )?ok [0-9]+ ' "$res" || true)
	if [ -z "$cases" ]; then
		echo "not ok - kunit rcu_free: no results"
		return 1
	fi
	while read -r line; do
		case "$line" in
		"not ok "*) echo "not ok - kunit rcu_free.${line#not ok [0-9]* }"; rc=1 ;;
		"ok "*) echo "ok - kunit rcu_free.${line#ok [0-9]* }" ;;
		esac
	done <<<"$cases"
	return $rc
}

case "${1:-}" in
build) build ;;
run) run ;;
*) die "usage: selftests.sh build|run" ;;
esac

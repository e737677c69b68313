#!/usr/bin/env bash
# The guest runner itself: it passes a good run and provably fails a bad one
# (command failure, kernel WARNING, hang), and the guest has what tests need.
#   KERNEL=path/to/bzImage tests/workbench/test_vm.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$HERE/../..
. "$HERE/tap.sh"
KERNEL=${KERNEL:-$TOP/build/images/final/guest/bzImage}
[ -f "$KERNEL" ] || { echo "Bail out! no kernel at $KERNEL"; exit 1; }
vm() { "$TOP/scripts/vm" --kernel "$KERNEL" --quiet --timeout 180 "$@"; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

t "a passing command passes" expect 0 vm -- true
t "the command's exit status comes back" expect 3 vm -- sh -c 'exit 3'
t "a kernel WARNING fails the run although the command passed" \
	output_has "the kernel reported 1 problem.*exit status 0|WARNING: (.* )?at .*, CPU#[0-9]+:" \
	expect 1 vm -- sh -c 'echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT; exit 0'
t "a test that prints WARNING: itself is not a kernel problem" \
	expect 0 vm -- sh -c 'echo "WARNING: printed by a test"; echo "[    1.000000] BUG: also not kernel" >&2'
t "a hung guest is stopped at the timeout with the console tail" \
	output_has "timed out after 40 s" expect 124 vm --timeout 40 -- sleep 1000
t "no kernel image: clear error" \
	output_has "no kernel at /nonexistent" expect 2 "$TOP/scripts/vm" --kernel /nonexistent -- true
t "--arch arm64 without an initramfs: clear error" \
	output_has "needs --rootfs" expect 2 "$TOP/scripts/vm" --arch arm64 -- true
t "--arch arm64 has no --out: clear error" \
	output_has "--out needs the host's root" expect 2 "$TOP/scripts/vm" --arch arm64 --rootfs /dev/null --out "$out" -- true
# shellcheck disable=SC2016 # the guest's shell expands $VM_OUT and the rest
t "guest has ext4 and xfs scratch disks, swap, tmpfs, a read-only root and \$VM_OUT" \
	expect 0 vm --out "$out" --disk ext4:256 --disk xfs:512 --swap 64 --cpus 2 --numa 2 -- sh -euc '
		grep -q " /mnt/ext4 ext4 rw" /proc/mounts
		grep -q " /mnt/xfs xfs rw" /proc/mounts
		grep -q "^/dev/root / 9p ro" /proc/mounts
		grep -q " /tmp tmpfs rw" /proc/mounts
		test "$(awk "/SwapTotal/{print \$2}" /proc/meminfo)" -gt 0
		test -d /sys/devices/system/node/node1
		test "$(nproc)" = 2
		echo x >/mnt/ext4/f && echo y >/mnt/xfs/f && echo z >/tmp/f
		! touch /usr/.vm-write-test 2>/dev/null
		uname -r >"$VM_OUT/uname"'
t "\$VM_OUT reaches the host" test -s "$out/uname"
tap_done

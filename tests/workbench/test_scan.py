#!/usr/bin/env python3
"""The runner's console scanner (TAP): kernel problems fail a run; ordinary
kernel messages do not."""
import importlib.machinery
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
loader = importlib.machinery.SourceFileLoader("vm", os.path.join(HERE, "..", "..", "scripts", "vm"))
spec = importlib.util.spec_from_loader("vm", loader)
vm = importlib.util.module_from_spec(spec)
loader.exec_module(vm)

# Messages as 7.3 prints them (kernel/panic.c's __warn() and the others).
KERNEL_PROBLEMS = [
    "[   12.345678] WARNING: mm/filemap.c:2650 at filemap_read+0x1/0x2, CPU#1: fio/77",
    "[   12.345678] WARNING: at filemap_read+0x1/0x2, CPU#1: fio/77",
    "[    3.000001] BUG: KASAN: slab-use-after-free in filemap_read+0x12/0x400",
    "[    1.100000] BUG: unable to handle page fault for address: ffff888000000000",
    "[    5.500000] Oops: general protection fault, probably for non-canonical address",
    "[    9.000000] kernel BUG at mm/page_alloc.c:1234!",
    "[   10.000000] BUG: KFENCE: use-after-free read in copy_page_to_iter",
    "[   21.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "[   21.000000] rcu: INFO: rcu_preempt self-detected stall on CPU",
    "[   30.000000] Kernel panic - not syncing: Fatal exception",
    "[   40.000000] INFO: task fio:123 blocked for more than 120 seconds.",
    "[   40.000000] INFO: task fio:123 blocked in I/O wait for more than 120 seconds.",
    "[    2.000000] BUG: sleeping function called from invalid context at mm/filemap.c:1",
    "[    2.000000] WARNING: suspicious RCU usage",
    "[    2.000000] UBSAN: array-index-out-of-bounds in mm/filemap.c:10:5",
    "[    2.000000] BUG: Bad page state in process cat  pfn:1234",
    # Lockdep off for the rest of the run (kernel/locking/debug_locks.c).
    "[    0.005000] Disabling lock debugging due to kernel taint",
    "[    9.000000] INFO: lockdep is turned off.",
    # A kernel message that starts in the middle of an unterminated line.
    "reading[   7.000000] WARNING: mm/x.c:1 at f+0x0/0x0, CPU#0: sh/1",
]
HARMLESS = [
    "[    3.000001] ==================================================================",
    "[    0.000000] Linux version 7.3.4 (gcc) #1 SMP PREEMPT",
    "[    1.000000] EXT4-fs (vda): mounted filesystem 8f3c2d1e-0b4a-4c6d-9e8f-1a2b3c4d5e6f r/w with ordered data mode. Quota mode: none.",
    "[    2.000000] rcu: Hierarchical RCU implementation.",
    "[    2.000000] Demotion targets for Node 0: null",
    "WARNING: a line without a printk timestamp is not the kernel's",
]

n = failed = 0
for line in KERNEL_PROBLEMS:
    n += 1
    ok = vm.splat_in(line) is not None
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} - flagged: {line[15:60]}")
for line in HARMLESS:
    n += 1
    ok = vm.splat_in(line) is None
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} - not flagged: {line[:60]}")
for text, mb in (("2G", 2048), ("512M", 512), ("300", 300)):
    n += 1
    ok = vm.parse_mem(text) == mb
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} - --mem {text} is {mb} MiB")
print(f"1..{n}")
sys.exit(1 if failed else 0)

#!/usr/bin/env python3
"""analyze.py: read-size histograms from strace -ff -y traces (issue 43).

    analyze.py OUTDIR WORKLOAD...
    analyze.py --files TRACE...     the regular files the traces read

For each WORKLOAD, OUTDIR/raw/WORKLOAD/run1.* and run2.* are the per-process
traces of two consecutive runs (strace -ff -y -s 0, see trace.sh) and
OUTDIR/raw/WORKLOAD/resident.txt the page-cache residency, taken with
mincore() between the runs, of every regular file run 1 read.  Run 2 is
the one counted: the steady state of a workload that is run again.

Only reads of regular files count (the page cache): a descriptor whose
strace -y name is a pipe, socket, anon_inode or a file under /proc, /sys
or /dev is left out.  For each read (read, pread64, readv, preadv,
preadv2) the file, offset and size returned are known: read() and readv()
take the offset from the descriptor's position, followed through open,
lseek and the calls' own results, per process.

A read is a page-cache hit when every 4 KiB page it returned was resident
before run 2 or was read or written earlier in run 2.  A read re-reads
data when a page it returned was read before: earlier in run 2 ("in the
run"), or in run 1 or earlier in run 2 ("across runs").  The series flags
folios that are read while referenced, so pages re-read across runs are
the ones it would flag.

Left out, and counted so the table says how much: reads through mmap
(files mapped), sendfile/splice/copy_file_range, io_uring (strace sees
io_uring_enter, not its reads), and reads that returned an error.
"""
import collections
import csv
import glob
import os
import re
import sys

PAGE = 4096
BUCKETS = [16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576]
LABELS = ["<=16", "17-64", "65-256", "257-1K", "1K-4K", "4K-16K",
          "16K-64K", "64K-256K", "256K-1M", ">1M"]

LINE = re.compile(r"^(?P<call>\w+)\((?P<args>.*)\)\s+=\s+(?P<ret>0x[0-9a-f]+|-?\d+|\?)"
                  r"(?:<(?P<retpath>[^>]*)>)?")
FD = re.compile(r"^(-?\d+)(?:<(.*?)>)?")
IOVLEN = re.compile(r"iov_len=(\d+)")


def bucket(n):
    for i, b in enumerate(BUCKETS):
        if n <= b:
            return i
    return len(BUCKETS)


def regular(path):
    if not path or not path.startswith("/"):
        return False
    return not path.startswith(("/proc/", "/sys/", "/dev/"))


def split_args(s):
    """Top-level comma split of a syscall's argument list."""
    out, depth, cur, quote = [], 0, [], False
    i = 0
    while i < len(s):
        c = s[i]
        if quote:
            cur.append(c)
            if c == "\\":
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
            cur.append(c)
        elif c in "[{(<":
            depth += 1
            cur.append(c)
        elif c in "]})>":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        out.append("".join(cur).strip())
    return out


class Run:
    """The reads of one run, in trace order per process."""

    def __init__(self, files):
        self.reads = []          # (path, offset, returned, requested, syscall)
        self.writes = []         # (path, offset, length)
        self.events = []         # ("r"|"w", index) in order
        self.other = collections.Counter()
        for f in sorted(files):
            self.parse(f)

    def parse(self, fname):
        pos = {}
        with open(fname, errors="replace") as fh:
            for line in fh:
                m = LINE.match(line)
                if not m:
                    continue
                call, ret = m["call"], m["ret"]
                args = split_args(m["args"])
                if ret == "?" or ret.startswith("0x"):
                    if call == "mmap" and len(args) >= 5:
                        fm = FD.match(args[4])
                        if fm and regular(fm[2]):
                            self.other["mmap"] += 1
                    continue
                ret = int(ret)
                if call in ("open", "openat", "openat2", "creat"):
                    if ret >= 0:
                        pos[ret] = 0
                    continue
                if not args:
                    continue
                fm = FD.match(args[0])
                if not fm:
                    continue
                fd, path = int(fm[1]), fm[2]
                if call in ("close",):
                    pos.pop(fd, None)
                    continue
                if call == "lseek":
                    if ret >= 0:
                        pos[fd] = ret
                    continue
                if call in ("dup", "dup2", "dup3") or (call == "fcntl" and "F_DUPFD" in m["args"]):
                    if ret >= 0:
                        pos[ret] = pos.get(fd, 0)
                    continue
                if call in ("sendfile", "sendfile64", "splice", "copy_file_range"):
                    src = args[1] if call.startswith("sendfile") else args[0]
                    sm = FD.match(src)
                    if sm and regular(sm[2]) and ret > 0:
                        self.other[call + " bytes"] += ret
                        self.other[call] += 1
                    continue
                if call in ("io_uring_enter",):
                    self.other["io_uring_enter"] += 1
                    continue
                if call not in ("read", "pread64", "readv", "preadv", "preadv2",
                                "write", "pwrite64", "writev", "pwritev", "pwritev2"):
                    continue
                if call in ("read", "write"):
                    req, off, advance = int(args[2]), pos.get(fd, 0), True
                elif call in ("pread64", "pwrite64"):
                    req, off, advance = int(args[2]), int(args[3]), False
                else:
                    req = sum(int(x) for x in IOVLEN.findall(args[1]))
                    if call in ("readv", "writev"):
                        off, advance = pos.get(fd, 0), True
                    else:
                        off, advance = int(args[3]), False
                if ret < 0:
                    if regular(path) and call[0] != "w" and call != "writev":
                        self.other["read errors"] += 1
                    continue
                if advance:
                    pos[fd] = off + ret
                if not regular(path):
                    continue
                if call.startswith(("write", "pwrite")):
                    self.writes.append((path, off, ret))
                    self.events.append(("w", len(self.writes) - 1))
                else:
                    self.reads.append((path, off, ret, req, call))
                    self.events.append(("r", len(self.reads) - 1))


def pages(off, n):
    if n <= 0:
        return range(0)
    return range(off // PAGE, (off + n - 1) // PAGE + 1)


def load_resident(fname):
    res = {}
    if not os.path.exists(fname):
        return res
    with open(fname) as fh:
        for line in fh:
            path, _, spans = line.rstrip("\n").rpartition("\t")
            s = set()
            for span in filter(None, spans.split(",")):
                a, _, b = span.partition("-")
                s.update(range(int(a), int(b or a) + 1))
            res[path] = s
    return res


def analyse(name, wdir):
    run1 = Run(glob.glob(os.path.join(wdir, "run1.*")))
    run2 = Run(glob.glob(os.path.join(wdir, "run2.*")))
    resident = load_resident(os.path.join(wdir, "resident.txt"))
    seen1 = collections.defaultdict(set)
    for path, off, ret, _, _ in run1.reads:
        seen1[path].update(pages(off, ret))
    read2 = collections.defaultdict(set)
    touched2 = collections.defaultdict(set)
    hist_reads = [0] * (len(BUCKETS) + 1)
    hist_bytes = [0] * (len(BUCKETS) + 1)
    st = collections.Counter()
    for kind, i in run2.events:
        if kind == "w":
            path, off, n = run2.writes[i]
            touched2[path].update(pages(off, n))
            continue
        path, off, ret, req, call = run2.reads[i]
        st["calls"] += 1
        if ret == 0:
            st["eof"] += 1
            continue
        b = bucket(ret)
        hist_reads[b] += 1
        hist_bytes[b] += ret
        st["reads"] += 1
        st["bytes"] += ret
        st["req<=4k"] += req <= 4096
        pg = pages(off, ret)
        res = resident.get(path, set())
        hit = all(p in res or p in touched2[path] for p in pg)
        inrun = any(p in read2[path] for p in pg)
        across = inrun or any(p in seen1[path] for p in pg)
        for key, yes in (("hit", hit), ("reread_run", inrun), ("reread_across", across)):
            if yes:
                st[key] += 1
                st[key + "_bytes"] += ret
        if ret <= 4096:
            st["small"] += 1
            if hit and across:
                st["small_hot"] += 1
        read2[path].update(pg)
        touched2[path].update(pg)
    st["files"] = len(read2)
    return st, hist_reads, hist_bytes, run2.other


def pct(a, b):
    return f"{100.0 * a / b:.0f}%" if b else "-"


def main():
    if sys.argv[1:2] == ["--files"]:
        # The regular files a run read, for resident.py (trace.sh).
        for path in sorted({r[0] for r in Run(sys.argv[2:]).reads}):
            print(path)
        return
    out, workloads = sys.argv[1], sys.argv[2:]
    rows, hrows = [], []
    md = ["# Read sizes of real workloads (strace, this host's kernel)", ""]
    for w in workloads:
        st, hr, hb, other = analyse(w, os.path.join(out, "raw", w))
        rows.append((w, st, other))
        for i, lab in enumerate(LABELS):
            hrows.append([w, lab, hr[i], hb[i]])
    with open(os.path.join(out, "readsizes.csv"), "w", newline="") as fh:
        cw = csv.writer(fh)
        cw.writerow(["workload", "size", "reads", "bytes"])
        cw.writerows(hrows)
    with open(os.path.join(out, "summary.csv"), "w", newline="") as fh:
        cw = csv.writer(fh)
        cw.writerow(["workload", "reads", "bytes", "files", "le4k", "hit", "hit_bytes",
                     "reread_run", "reread_across", "reread_across_bytes", "le4k_hot",
                     "mmap", "sendfile_bytes", "io_uring_enter"])
        for w, st, other in rows:
            cw.writerow([w, st["reads"], st["bytes"], st["files"], st["small"], st["hit"],
                         st["hit_bytes"], st["reread_run"], st["reread_across"],
                         st["reread_across_bytes"], st["small_hot"], other["mmap"],
                         other["sendfile bytes"], other["io_uring_enter"]])
    md += ["Run 2 of two consecutive runs, reads of regular files that returned data.",
           "hit: every page resident before run 2 or touched earlier in it; re-read: a",
           "page read before in run 2 (run) or in run 1 or 2 (across runs, what the",
           "series would flag); hot <=4K: reads of at most 4 KiB that hit and re-read.",
           "", "| workload | reads | MiB | files | <=4 KiB | hit | re-read (run) | "
           "re-read (across) | hot <=4 KiB | not seen by read(): mmaps, sendfile MiB, "
           "io_uring_enter |", "|---|---|---|---|---|---|---|---|---|---|"]
    for w, st, other in rows:
        n = st["reads"]
        md.append(f"| {w} | {n} | {st['bytes'] / 2**20:.1f} | {st['files']} | "
                  f"{pct(st['small'], n)} | {pct(st['hit'], n)} | "
                  f"{pct(st['reread_run'], n)} | {pct(st['reread_across'], n)} | "
                  f"{pct(st['small_hot'], n)} | {other['mmap']}, "
                  f"{other['sendfile bytes'] / 2**20:.1f}, {other['io_uring_enter']} |")
    md += ["", "Reads per size returned (share of the workload's reads; bytes in brackets):",
           "", "| workload | " + " | ".join(LABELS) + " |",
           "|---|" + "---|" * len(LABELS)]
    for w, st, _ in rows:
        cells = []
        for i in range(len(LABELS)):
            r = next(h for h in hrows if h[0] == w and h[1] == LABELS[i])
            cells.append(f"{pct(r[2], st['reads'])} ({pct(r[3], st['bytes'])})")
        md.append(f"| {w} | " + " | ".join(cells) + " |")
    tot = collections.Counter()
    for _, st, _ in rows:
        tot.update(st)
    md += ["", f"All workloads: {pct(tot['small'], tot['reads'])} of reads return at most "
           f"4 KiB; {pct(tot['small_hot'], tot['small'])} of those hit the page cache and "
           f"re-read data read before (folios the series would flag)."]
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()

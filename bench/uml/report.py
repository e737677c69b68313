#!/usr/bin/env python3
"""report.md for a bench/uml/run.sh result folder (uml.csv, metadata.json).

Per row (fs, file, read size, offset mode) and kernel: the median time of one
read and its min-max over the boots; for every kernel after the first, the
speed ratio first/this (ns of the first kernel over ns of this one, so > 1
is faster), paired by rep: median and min-max.

    bench/uml/report.py DIR      write DIR/report.md, print it
    bench/uml/report.py --check  self-test on synthetic data
"""
import csv
import json
import os
import shutil
import statistics
import sys
import tempfile

MODES = {"0": "offset 0", "1": "sequential"}


def size(n):
    n = int(n)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def load(d):
    rows = {}
    with open(os.path.join(d, "uml.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["fs"], r["file"], int(r["len"]), r["mode"])
            rows.setdefault(key, {}).setdefault(r["kernel"], {})[int(r["rep"])] = float(r["ns_per_read"])
    return rows


def order(key):
    """Rows: tmpfs first, written files first, offset 0 before sequential."""
    return (key[0] != "tmpfs", key[0], key[1] != "normal", key[1], key[3], key[2])


def analyse(d):
    """(meta, labels, res): res[(fs, file, len, mode)][label] is (median,
    min, max) ns per read over the boots; res[...]["label/base"] is (median,
    min, max) of the per-boot speed ratios base ns / label ns."""
    meta = json.load(open(os.path.join(d, "metadata.json")))
    labels = [k["label"] for k in meta["kernels"]]
    base = labels[0]
    rows = load(d)
    res = {}
    for key in sorted(rows, key=order):
        per = rows[key]
        res[key] = {}
        for lb in labels:
            v = list(per.get(lb, {}).values())
            if v:
                res[key][lb] = (statistics.median(v), min(v), max(v))
        for lb in labels[1:]:
            b, k = per.get(base, {}), per.get(lb, {})
            rs = [b[r] / k[r] for r in sorted(set(b) & set(k)) if k[r] > 0]
            if rs:
                res[key][lb + "/" + base] = (statistics.median(rs), min(rs), max(rs))
    return meta, labels, res


def report(d):
    meta, labels, res = analyse(d)
    base = labels[0]
    md = ["# Page cache read cost on a real CPU (User-Mode Linux)", "",
          f"Host: {meta.get('host_cpu_model')}, {meta.get('host_cpus')} CPUs, "
          f"host kernel {meta.get('host_kernel')}; {meta.get('uml')}; "
          f"{meta.get('reps')} boots per kernel, alternating; "
          f"{meta.get('wall_seconds')} s of boots.", "",
          "Kernels: " + ", ".join(f"{k['label']} = {k['commit'][:12]}{' (--no-build)' if 'no-build' in k['commit'] else ''}" for k in meta["kernels"]), "",
          "Each row: one kernel_read() in a loop inside the kernel (bench/uml/pcbench.c), "
          "so no system call is timed. One CPU and no THP: this is the cost of a read on "
          "real hardware, not contention and not huge folios. Ratio = "
          f"{base} ns / kernel ns, paired by boot (> 1: faster than {base}).", ""]
    head = "| fs | file | read | offsets |"
    sep = "|---|---|---|---|"
    for lb in labels:
        head += f" {lb} ns (min-max) |"
        sep += "---|"
    for lb in labels[1:]:
        head += f" {lb}/{base} speed (min-max) |"
        sep += "---|"
    md += [head, sep]
    for key, r in res.items():
        line = f"| {key[0]} | {key[1]} | {size(key[2])} | {MODES.get(key[3], key[3])} |"
        for lb in labels:
            line += " %.1f (%.1f-%.1f) |" % r[lb] if lb in r else " - |"
        for lb in labels[1:]:
            q = lb + "/" + base
            line += " %.2f (%.2f-%.2f) |" % r[q] if q in r else " - |"
        md.append(line)
    md.append("")
    vm = os.path.join(d, "vmstat.txt")
    if os.path.exists(vm):
        last = {}
        for line in open(vm):
            parts = line.strip().split(",", 3)
            if len(parts) == 4:
                last[parts[1]] = parts[3].strip()
        if last:
            md += ["Counters at the end of the last boot of each kernel (`/proc/vmstat`, "
                   "pgcache_*; none on a kernel without the series):", ""]
            md += [f"- {lb}: `{last[lb] or '(none)'}`" for lb in labels if lb in last]
            md.append("")
    text = "\n".join(md)
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text)
    return res, text


def check():
    tmp = tempfile.mkdtemp(prefix="uml-report-check.")
    try:
        json.dump({"kernels": [{"label": "base", "commit": "a" * 40},
                               {"label": "final", "commit": "b" * 40}], "reps": 3},
                  open(os.path.join(tmp, "metadata.json"), "w"))
        rows = ["kernel,rep,fs,file,len,mode,iters,ns_per_read"]
        # base 200, 220, 180 ns; final 100, 100, 120 ns -> ratios 2.0, 2.2, 1.5
        for k, vals in (("base", (200, 220, 180)), ("final", (100, 100, 120))):
            for rep, v in enumerate(vals, 1):
                rows.append(f"{k},{rep},tmpfs,normal,16,0,1000,{v}.00")
        rows.append("base,1,ext4,normal,65536,1,10,5000.00")  # final missing
        open(os.path.join(tmp, "uml.csv"), "w").write("\n".join(rows) + "\n")
        res, text = report(tmp)
        fails = []
        r = res[("tmpfs", "normal", 16, "0")]
        if r["base"] != (200, 180, 220):
            fails.append(f"base median/min/max {r['base']}")
        if r["final"] != (100, 100, 120):
            fails.append(f"final median/min/max {r['final']}")
        if tuple(round(x, 6) for x in r["final/base"]) != (2.0, 1.5, 2.2):
            fails.append(f"paired ratio {r['final/base']}")
        if "final/base" in res[("ext4", "normal", 65536, "1")]:
            fails.append("a ratio without a pair")
        if "| tmpfs | normal | 16 B | offset 0 | 200.0 (180.0-220.0) | 100.0 (100.0-120.0) | 2.00 (1.50-2.20) |" not in text:
            fails.append("tmpfs row not in report.md")
        if "| ext4 | normal | 64 KiB | sequential | 5000.0 (5000.0-5000.0) | - | - |" not in text:
            fails.append("ext4 row without final not in report.md")
        for f in fails:
            print(f"not ok - uml report: {f}")
        if not fails:
            print("ok - bench/uml/report.py: medians, min-max, paired speed ratios")
        return 1 if fails else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    if argv[1:] == ["--check"]:
        return check()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: bench/uml/report.py DIR | --check", file=sys.stderr)
        return 2
    _, text = report(argv[1])
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Print the numbers block of the cover letter from one results folder.

    bench/cover-summary.py [RESULTS_DIR]

Without an argument, the folder named in results/latest is used; without
that, a line saying there are no results.  The block is plain text of at
most 72 columns, and every number in it is computed from the CSV files of
that folder, which the block names, so that the cover letter's numbers can
be traced.  scripts/export.sh puts it where cover/cover-letter.txt says
@RESULTS@.
"""

import csv
import importlib.util
import json
import os
import statistics
import sys
import textwrap

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fmt(v):
    if v >= 1e6:
        return "%.2fM" % (v / 1e6)
    if v >= 1e4:
        return "%.0fk" % (v / 1e3)
    if v >= 1e3:
        return "%.1fk" % (v / 1e3)
    return "%.1f" % v


def paired(data, key, val, base, other):
    """Per-rep ratios other/base of val for each key: (median, min, max)."""
    by = {}
    for r in data:
        by.setdefault(key(r), {}).setdefault(r["kernel"], {}).setdefault(
            r["rep"], []).append(float(r[val]))
    out = {}
    for k, ks in by.items():
        if base not in ks or other not in ks:
            continue
        ratios = []
        for rep, vals in ks[other].items():
            if rep in ks[base]:
                b = statistics.median(ks[base][rep])
                if b > 0:
                    ratios.append(statistics.median(vals) / b)
        if ratios:
            allb = [v for vs in ks[base].values() for v in vs]
            allo = [v for vs in ks[other].values() for v in vs]
            out[k] = (statistics.median(allb), statistics.median(allo),
                      statistics.median(ratios), min(ratios), max(ratios),
                      len(ratios))
    return out


def load_report(name, *path):
    """A report script under bench/ as a module (bench/report.py, for its
    model_table())."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOP, "bench", *path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def size(n):
    n = int(n)
    return "%d MiB" % (n >> 20) if n >= 1 << 20 else \
        "%d KiB" % (n >> 10) if n >= 1 << 10 else "%d B" % n


COVER_LENS = (16, 65536)


def uml_block(d, rel, meta):
    """The numbers of a bench/uml/run.sh folder: parallel efficiency of base
    and patched and their ratio, from uml-summary.json (bench/report.py)."""
    sm = json.load(open(os.path.join(d, "uml-summary.json")))
    base, pt = sm["base"], sm["patched"]
    b = meta.get("base", {})
    out = [wrap(
        "From %s: User-Mode Linux SMP on %s (%s host CPUs), %s boots x %s "
        "rounds per kernel, base and patched booted alternately, base %s; "
        "in-kernel reads through ->read_iter, one kthread per virtual CPU, "
        "own struct file per thread; median (min-max) over %s samples:"
        % (rel, meta.get("host_cpu_model"), meta.get("host_cpus"), meta.get("boots"),
           meta.get("rounds"), b.get("BASE_PKG_VERSION_USED", "?"), sm["samples"]))]
    out.append("")
    if sm["blind"]:
        out.append(wrap("The contention probe saw no contention on this "
                        "host (%s): no ratio is quoted." % sm["verdict"]))
        return out
    out.append("  %-5s %-6s %4s  %-16s %-16s %s" % (
        "fs", "read", "CPUs", "eff " + base, "eff " + pt, pt + "/" + base))

    def st(x, f="%.2f"):
        return "-" if not x else (f + " (" + f + "-" + f + ")") % (
            x["median"], x["min"], x["max"])

    def nd(x):
        """A ratio; one whose min-max holds 1.0 as "n.d." (no difference)."""
        if x and x["min"] <= 1.0 <= x["max"]:
            return "n.d. (%.2f-%.2f)" % (x["min"], x["max"])
        return st(x)
    # The cover letter's table: 16 B and 64 KiB (report.md has 1 MiB too).
    sm["headline"] = [h for h in sm["headline"] if h["len"] in COVER_LENS]
    for h in sm["headline"]:
        kb, kp = h["kernels"].get(base, {}), h["kernels"].get(pt, {})
        out.append("  %-5s %-6s %4s  %-16s %-16s %s" % (
            h["fs"], size(h["len"]), h["cpus"], st(kb.get("eff")), st(kp.get("eff")),
            nd(kp.get("ratio"))))
    ones = {}
    for h in sm["headline"]:
        r = h["kernels"].get(pt, {}).get("one_cpu_ratio")
        if r:
            ones.setdefault(h["fs"], {})[h["len"]] = r
    if ones:
        lens = sorted({ln for v in ones.values() for ln in v})
        out.append("")
        out.append("One CPU, %s/%s:" % (pt, base))
        out.append("  %-5s " % "fs" + "".join("%-18s" % size(ln) for ln in lens).rstrip())
        for fs, v in ones.items():
            out.append(("  %-5s " % fs + "".join(
                "%-18s" % (nd(v[ln]) if ln in v else "-") for ln in lens)).rstrip())
    rp = sm.get("replay") or []
    if rp:
        top = max(e["cpus"] for e in rp)
        cell = {}
        for e in rp:
            r = e["kernels"].get(pt, {}).get("ratio")
            if r:
                cell[(e["workload"], e["fs"], e["cpus"])] = nd(r)
        out.append("")
        out.append(wrap("Recorded reads of real workloads (make readsizes), "
                        "replayed in order by one kthread per CPU, %s/%s:"
                        % (pt, base)))
        out.append("  %-15s %-5s %-18s %s" % ("workload", "fs", "1 CPU",
                                              "%d CPUs" % top))
        for w, fs in sorted({(e["workload"], e["fs"]) for e in rp}):
            out.append(("  %-15s %-5s %-18s %s" % (
                w, fs, cell.get((w, fs, 1), "-"), cell.get((w, fs, top), "-"))).rstrip())
    out.append("")
    out.append(wrap("eff: rate at N CPUs / (N x rate at 1 CPU); n.d.: no "
                    "difference measured (the min-max of the ratio holds 1.0). "
                    "CPU-normalised figures and every row (1 MiB reads, "
                    "every shape, the replays at every CPU count) are in "
                    "%s/report.md." % rel))
    return out


def wrap(text):
    return textwrap.fill(text, 72, break_on_hyphens=False)


def main():
    if len(sys.argv) > 1:
        d = sys.argv[1]
    else:
        latest = os.path.join(TOP, "results", "latest")
        if not os.path.exists(latest):
            print("No benchmark results yet (results/latest is missing).")
            return 0
        d = os.path.join(TOP, "results", open(latest).read().strip())
    meta = json.load(open(os.path.join(d, "metadata.json")))
    rel = os.path.relpath(d, TOP)
    if os.path.exists(os.path.join(d, "uml-summary.json")):
        print("\n".join(uml_block(d, rel, meta)))
        return 0
    labels = [k["label"] if isinstance(k, dict) else k for k in meta["kernels"]]
    base, other = labels[0], labels[-1]
    accel = ",".join(sorted(set(meta.get("accel_per_boot") or [meta.get("accel", "?")])))
    out = []
    out.append(wrap(
        "From %s (%s profile, %s rep(s), base and patched booted "
        "alternately, %s guest CPUs, accel %s, host %s):"
        % (rel, meta.get("profile"), meta.get("reps"), meta.get("guest_cpus"),
           accel, meta.get("host_cpu_model"))))
    if len(labels) > 2:
        out.append("")
        out.append(wrap(
            "Kernels: %s, one per patch boundary; below, %s (the whole "
            "series) against %s; the report has every boundary."
            % (", ".join(labels), other, base)))
    if accel != "kvm":
        out.append("")
        out.append(wrap(
            "These guests ran under QEMU TCG: emulated CPUs, on which cache "
            "line bouncing costs nothing like on hardware, and on which two "
            "runs of the same kernel have differed by 1.5x.  The ratios "
            "below show that nothing broke, not that anything is faster; "
            "they are not a performance claim."))
    pr = rows(os.path.join(d, "pread.csv"))
    if pr:
        maxt = max(int(r["threads"]) for r in pr)
        res = paired([r for r in pr if r["len"] == "16" and r["mode"] in ("folio", "zero")],
                     lambda r: (r["fs"], int(r["threads"])), "ops_per_sec", base, other)
        out.append("")
        out.append("16-byte pread of one hot folio, ops/s (median over reps),")
        out.append("%s/%s ratio: median (min-max) of per-rep ratios:" % (other, base))
        out.append("")
        out.append("  %-6s %7s %10s %10s  %s" % ("fs", "threads", base, other, "ratio"))
        for (fs, t), (b, o, m, lo, hi, n) in sorted(res.items()):
            if t not in (1, maxt):
                continue
            out.append("  %-6s %7d %10s %10s  %.2f (%.2f-%.2f)" % (fs, t, fmt(b), fmt(o), m, lo, hi))
    lr = rows(os.path.join(d, "logreread.csv"))
    gg = rows(os.path.join(d, "gitgrep.csv"))
    if lr or gg:
        out.append("")
        out.append("Real-world workloads, %s/%s:" % (other, base))
        out.append("")
    if lr:
        res = paired(lr, lambda r: (r["fs"], r["readers"]), "reads_per_sec", base, other)
        for (fs, nr), (b, o, m, lo, hi, n) in sorted(res.items()):
            out.append("  log re-read, %s, %s readers: reads/s %s -> %s, %.2f (%.2f-%.2f)"
                       % (fs, nr, fmt(b), fmt(o), m, lo, hi))
    if gg:
        res = paired(gg, lambda r: (r["fs"],), "seconds", base, other)
        for (fs,), (b, o, m, lo, hi, n) in sorted(res.items()):
            out.append("  git grep, %s: seconds %.2f -> %.2f, %.2f (%.2f-%.2f)"
                       % (fs, b, o, m, lo, hi))
    mb = rows(os.path.join(d, "model-bench.csv"))
    if mb and "len" in mb[0]:
        mt = load_report("bench_report", "report.py").model_table(mb)
        out.append("")
        out.append(wrap(
            "Userspace model on the host's real cores (%s), one shared "
            "folio, the refcounted copy against the lockless one (which "
            "copies twice, through its bounce buffer), ops/s as the median "
            "of %d runs, rcu/refcount as median (min-max) of per-run "
            "ratios (%s/model-bench.csv):"
            % (meta.get("host_cpu_model"), max((v["runs"] for v in mt.values()), default=0),
               rel)))
        out.append("")
        out.append("  %5s %7s %12s %12s  %s" % ("read", "threads", "refcount", "rcu",
                                              "rcu/refcount"))
        for (ln, t), v in sorted(mt.items()):
            out.append("  %5s %7d %12s %12s  %.2f (%.2f-%.2f)"
                       % (("%d B" % ln, t, fmt(v["refcount"]), fmt(v["rcu"])) + v["ratio"]))
    elif mb:
        out.append("")
        out.append(wrap(
            "Userspace model on the host's real cores (%s), one shared "
            "folio, ops/s per thread count:" % meta.get("host_cpu_model")))
        out.append("")
        by = {}
        for r in mb:
            by.setdefault(int(r["threads"]), {})[r["mode"]] = float(r["ops_per_sec"])
        out.append("  %7s %12s %12s  %s" % ("threads", "refcount", "rcu", "rcu/refcount"))
        for t in sorted(by):
            rc, ru = by[t].get("refcount"), by[t].get("rcu")
            if rc and ru:
                out.append("  %7d %12s %12s  %.2f" % (t, fmt(rc), fmt(ru), ru / rc))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

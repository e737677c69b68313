#!/usr/bin/env python3
"""Make report.md (and PNG plots) from a bench/run.sh results folder.

    bench/report.py RESULTS_DIR [--base LABEL]
    bench/report.py --check        # self-test on a synthetic CSV

Reads RESULTS_DIR/{pread,fio,logreread,gitgrep}.csv (rows tagged kernel,rep)
and metadata.json.  The first kernel in metadata.json (or --base) is the
baseline; every other kernel is compared with it.  Ratios are computed per
repetition (rep r of a kernel over rep r of the base: the boots were
interleaved A B A B, so drift cancels in pairs) and summarised as median and
min-max; where the reps do not pair up, the ratio of the medians is given
with the range min/max over max/min.
"""

import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict


def fnum(x):
    return float(x)


def read_csv(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs):
    """(min, max, stddev) of xs; stddev 0 for a single value."""
    if not xs:
        return (float("nan"),) * 3
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return (min(xs), max(xs), sd)


def ratio_stats(base_by_rep, other_by_rep):
    """Median and min-max of per-rep ratios other/base.

    base_by_rep, other_by_rep: {rep: value}.  Pairs by rep when every rep of
    one is in the other; otherwise ratio of medians with range
    min(other)/max(base) .. max(other)/min(base).  Returns
    (median, lo, hi, paired) or None when either side is empty or zero."""
    if not base_by_rep or not other_by_rep:
        return None
    common = sorted(set(base_by_rep) & set(other_by_rep))
    if common and len(common) == len(base_by_rep) == len(other_by_rep) and \
            all(base_by_rep[r] > 0 for r in common):
        rs = [other_by_rep[r] / base_by_rep[r] for r in common]
        return (median(rs), min(rs), max(rs), True)
    b, o = list(base_by_rep.values()), list(other_by_rep.values())
    if min(b) <= 0 or median(b) <= 0:
        return None
    return (median(o) / median(b), min(o) / max(b), max(o) / min(b), False)


def fmt(x, digits=0):
    if x != x:  # nan
        return "-"
    if abs(x) >= 1e6:
        return f"{x / 1e6:.{max(digits, 2)}f}M"
    if abs(x) >= 1e4:
        return f"{x / 1e3:.1f}k"
    return f"{x:.{digits}f}"


def fmt_ratio(r):
    if r is None:
        return "-"
    m, lo, hi, paired = r
    return f"{m:.3f} ({lo:.2f}-{hi:.2f}){'' if paired else '*'}"


class Data:
    """Values grouped by key and rep: groups[key][kernel][rep] = [values]."""

    def __init__(self):
        self.g = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))

    def add(self, key, kernel, rep, value):
        self.g[key][kernel][rep].append(value)

    def by_rep(self, key, kernel):
        """{rep: mean of that rep's values} (one value per rep normally)."""
        return {r: statistics.mean(v) for r, v in self.g[key][kernel].items()}

    def values(self, key, kernel):
        return [x for v in self.g[key][kernel].values() for x in v]

    def keys(self):
        return sorted(self.g, key=lambda k: tuple(
            (0, x, "") if isinstance(x, (int, float)) else (1, 0, str(x)) for x in k))


def analyse(rows, key_fields, value_field, conv=None):
    d = Data()
    for r in rows:
        key = tuple((conv or {}).get(k, str)(r[k]) for k in key_fields)
        d.add(key, r["kernel"], r["rep"], fnum(r[value_field]))
    return d


def kernel_order(meta, *row_sets):
    order = [k["label"] for k in meta.get("kernels", [])]
    for rows in row_sets:
        for r in rows:
            if r["kernel"] not in order:
                order.append(r["kernel"])
    return order


def pread_tables(rows, kernels, base):
    """Markdown for the pread matrix; also returns the summary used by tests
    and plots: {(fs, mode, len, threads): {kernel: (median, min, max, sd)}}
    and {(fs, mode, len, threads): {kernel: ratio_stats}}."""
    d = analyse(rows, ["fs", "mode", "len", "threads"], "ops_per_sec",
                {"len": int, "threads": int})
    summary, ratios, out = {}, {}, []
    others = [k for k in kernels if k != base]
    head = "| fs | mode | len | threads | " + " | ".join(
        f"{k} ops/s median (min-max, sd) | eff {k}" for k in kernels)
    head += "".join(f" | {k}/{base}" for k in others) + " |"
    out.append(head)
    out.append("|" + "---|" * (4 + 2 * len(kernels) + len(others)))
    for key in d.keys():
        fs, mode, ln, t = key
        summary[key], ratios[key] = {}, {}
        cells = []
        for k in kernels:
            vs = d.values(key, k)
            med = median(vs)
            lo, hi, sd = spread(vs)
            summary[key][k] = (med, lo, hi, sd)
            one = median(d.values((fs, mode, ln, 1), k))
            eff = med / (t * one) if vs and one == one and one > 0 else float("nan")
            cells.append(f"{fmt(med)} ({fmt(lo)}-{fmt(hi)}, {fmt(sd)})" if vs else "-")
            cells.append(f"{eff:.2f}" if eff == eff else "-")
        for k in others:
            ratios[key][k] = ratio_stats(d.by_rep(key, base), d.by_rep(key, k))
            cells.append(fmt_ratio(ratios[key][k]))
        out.append(f"| {fs} | {mode} | {ln} | {t} | " + " | ".join(cells) + " |")
    return "\n".join(out), summary, ratios


def simple_table(d, key_names, kernels, base, unit, lower_is_better=False):
    others = [k for k in kernels if k != base]
    out = ["| " + " | ".join(key_names) + " | " +
           " | ".join(f"{k} {unit} median (min-max)" for k in kernels) +
           "".join(f" | {k}/{base}" for k in others) + " |",
           "|" + "---|" * (len(key_names) + len(kernels) + len(others))]
    res = {}
    for key in d.keys():
        cells = []
        for k in kernels:
            vs = d.values(key, k)
            lo, hi, _ = spread(vs)
            digits = 2 if lower_is_better else 1
            cells.append(f"{fmt(median(vs), digits)} ({fmt(lo, digits)}-{fmt(hi, digits)})"
                         if vs else "-")
        res[key] = {}
        for k in others:
            res[key][k] = ratio_stats(d.by_rep(key, base), d.by_rep(key, k))
            cells.append(fmt_ratio(res[key][k]))
        out.append("| " + " | ".join(str(x) for x in key) + " | " + " | ".join(cells) + " |")
    return "\n".join(out), res


def vmstat_deltas(resdir):
    """{run dir name: {counter: after - before}} from raw/*/vmstat-*.txt."""
    res = {}
    raw = os.path.join(resdir, "raw")
    if not os.path.isdir(raw):
        return res
    for name in sorted(os.listdir(raw)):
        b, a = (os.path.join(raw, name, f"vmstat-{w}.txt") for w in ("before", "after"))
        if not (os.path.exists(b) and os.path.exists(a)):
            continue

        def load(p):
            vals = {}
            for line in open(p):
                parts = line.split()
                if len(parts) == 2 and parts[1].lstrip("-").isdigit():
                    vals[parts[0]] = int(parts[1])
            return vals
        vb, va = load(b), load(a)
        res[name] = {k: va[k] - vb.get(k, 0) for k in va if k.startswith("pgcache")}
    return res


def caveat(meta):
    accels = meta.get("accel", [])
    why = meta.get("accel_note") or ""
    if why:
        why = f" ({why})"
    if not accels or "tcg" in accels or "unknown" in accels:
        return ("**Accel: " + (", ".join(accels) or "unknown") + why + ".** These guests ran under "
                "QEMU TCG (software emulation), not KVM. TCG numbers show that the "
                "paths work and give the same answers, not how they contend: vCPUs are "
                "emulated by host threads, atomics and cache-line bouncing cost nothing "
                "like on hardware, and two runs of the same kernel have differed by 1.5x "
                "on the 2-core development host. No scaling or speed-up claim may be "
                "made from these numbers; run the matrix (bench/kvm-bundle.sh) on a "
                "KVM host with VMX or SVM for that (a kvm_pvm host runs an unmodified "
                "guest kernel through KVM's instruction emulator, slower than TCG).")
    return ("Accel: " + ", ".join(accels) + ". Guest vCPUs ran under KVM; absolute "
            "numbers still include virtualisation overhead.")


def run_gnuplot(gp, gpf, script, png):
    """Write @script to @gpf and run gnuplot on it; True if @png was made."""
    open(gpf, "w").write("\n".join(script) + "\n")
    r = subprocess.run([gp, gpf], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"report: gnuplot failed for {png}: {r.stderr.strip()}", file=sys.stderr)
    return r.returncode == 0


def gnuplot_plots(resdir, summary, kernels, base, note=""):
    """PNG plots: ops/s vs threads per (fs, mode, len), one line per kernel;
    with more than two kernels, a bar chart of ops/s at the largest thread
    count normalised to the base.  Returns the list of files written."""
    gp = shutil.which("gnuplot")
    if not gp or not summary:
        return []
    files = []
    tmp = tempfile.mkdtemp(prefix="report.")
    try:
        groups = defaultdict(dict)
        for (fs, mode, ln, t), per in summary.items():
            groups[(fs, mode)].setdefault(ln, {})[t] = per
        for (fs, mode), by_len in sorted(groups.items()):
            png = f"pread-{fs}-{mode}.png"
            lens = sorted(by_len)
            cols = 2 if len(lens) > 1 else 1
            rows = (len(lens) + cols - 1) // cols
            script = [f"set terminal pngcairo size {600 * cols},{400 * rows} font ',9'",
                      f"set output '{os.path.join(resdir, png)}'",
                      f"set multiplot layout {rows},{cols} title "
                      f"'pread ops/s vs threads: {fs}, {mode} (median, min-max){note}'",
                      "set key top left", "set grid", "set xlabel 'threads'",
                      "set ylabel 'ops/s'", "set yrange [0:*]",
                      "set offsets graph 0.03, graph 0.03, 0, 0"]
            tmax = max(t for per_t in by_len.values() for t in per_t)
            if tmax <= 32:
                script.append("set xtics 1" if tmax <= 16 else "set xtics 2")
            for ln in lens:
                parts = []
                for ki, k in enumerate(kernels):
                    dat = os.path.join(tmp, f"{fs}-{mode}-{ln}-{ki}.dat")
                    with open(dat, "w") as f:
                        for t in sorted(by_len[ln]):
                            if k in by_len[ln][t] and by_len[ln][t][k][0] == by_len[ln][t][k][0]:
                                med, lo, hi, _ = by_len[ln][t][k]
                                f.write(f"{t} {med} {lo} {hi}\n")
                    parts.append(f"'{dat}' using 1:2:3:4 with yerrorlines title '{k}'")
                script.append(f"set title 'len {ln}'")
                script.append("plot " + ", ".join(parts))
            script.append("unset multiplot")
            if run_gnuplot(gp, os.path.join(tmp, "p.gp"), script, png):
                files.append(png)
        if len(kernels) > 2:
            dat = os.path.join(tmp, "bars.dat")
            with open(dat, "w") as f:
                f.write("point " + " ".join(kernels) + "\n")
                for (fs, mode), by_len in sorted(groups.items()):
                    for ln in sorted(by_len):
                        tmax = max(by_len[ln])
                        per = by_len[ln][tmax]
                        b = per.get(base, (float("nan"),))[0]
                        vals = [per.get(k, (float("nan"),))[0] / b if b and b == b else float("nan")
                                for k in kernels]
                        f.write(f"{fs}/{mode}/{ln}/t{tmax} " +
                                " ".join("NaN" if v != v else f"{v:.4f}" for v in vals) + "\n")
            png = "kernels-bars.png"
            script = ["set terminal pngcairo size 1200,500 font ',9'",
                      f"set output '{os.path.join(resdir, png)}'",
                      f"set title 'ops/s at the largest thread count, relative to {base} (median){note}'",
                      "set style data histograms", "set style histogram clustered gap 1",
                      "set style fill solid 0.8 border -1", "set xtics rotate by -45",
                      "set key outside right", "set grid ytics", "set yrange [0:*]",
                      "plot " + ", ".join(f"'{dat}' using {i + 2}:xtic(1) title columnheader"
                                          for i in range(len(kernels)))]
            if run_gnuplot(gp, os.path.join(tmp, "b.gp"), script, png):
                files.append(png)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return files


def report(resdir, base=None, plots=True):
    meta = {}
    mp = os.path.join(resdir, "metadata.json")
    if os.path.exists(mp):
        meta = json.load(open(mp))
    pread = read_csv(os.path.join(resdir, "pread.csv"))
    fio = read_csv(os.path.join(resdir, "fio.csv"))
    logr = read_csv(os.path.join(resdir, "logreread.csv"))
    grep = read_csv(os.path.join(resdir, "gitgrep.csv"))
    if not (pread or fio or logr or grep):
        raise SystemExit(f"report: error: no CSV rows in {resdir}")
    kernels = kernel_order(meta, pread, fio, logr, grep)
    base = base or kernels[0]
    if base not in kernels:
        raise SystemExit(f"report: error: base kernel {base} not in {kernels}")
    kernels = [base] + [k for k in kernels if k != base]

    md = ["# pagecache-rcu benchmark report", ""]
    md.append(caveat(meta))
    md.append("")
    md.append(f"Kernels: {', '.join(kernels)} (baseline **{base}**). "
              f"Profile {meta.get('profile', '?')}, {meta.get('reps', '?')} rep(s), "
              f"{meta.get('guest_cpus', '?')} guest CPUs, host CPU "
              f"{meta.get('host_cpu_model', '?')}, {meta.get('qemu_version', '?')}.")
    for k in meta.get("kernels", []):
        md.append(f"- {k['label']}: {k.get('commit', 'commit unknown')}")
    md.append("")
    md.append("Ratios: other/base per rep, median (min-max over reps); `*` marks "
              "unpaired reps (ratio of medians, range min/max over max/min). "
              "eff = parallel efficiency ops(N)/(N x ops(1)).")
    md.append("")
    result = {"kernels": kernels, "base": base}
    uml = os.path.join(resdir, "uml", "report.md")
    if os.path.exists(uml):
        lines = open(uml).read().splitlines()
        if lines and lines[0].startswith("# "):
            lines = lines[1:]
        md += ["## Real CPU, one CPU: reads inside User-Mode Linux (uml/)", ""]
        md += [ln.replace("# ", "### ", 1) if ln.startswith("# ") else ln for ln in lines]
        md.append("")
        result["uml"] = True
    if pread:
        table, summary, ratios = pread_tables(pread, kernels, base)
        result["pread"], result["pread_ratio"] = summary, ratios
        md += ["## pread: ops/s per (fs, mode, len, threads)", "", table, ""]
    if fio:
        d = analyse(fio, ["thp", "file", "bs", "tool"], "mib_per_sec")
        table, res = simple_table(d, ["thp", "file", "bs", "tool"], kernels, base, "MiB/s")
        result["fio"] = res
        md += ["## tmpfs sequential read table (Chi Zhiling's shmem read series)", "",
               "fio --ioengine=sync --rw=read --time_based on tmpfs, huge=never (thp off) "
               "and huge=always (thp on); tool pread = bench/pread -m seq where fio was "
               "not available. Whether a kernel reads tmpfs locklessly depends on its "
               "patches (shmem support came late in the series): see the commits above "
               "and the counters below.", "", table, ""]
    if logr or grep:
        md += ["## Real-world workloads", ""]
    if logr:
        d = analyse(logr, ["fs", "writers", "readers"], "reads_per_sec",
                    {"writers": int, "readers": int})
        table, res = simple_table(d, ["fs", "writers", "readers"], kernels, base, "reads/s")
        result["logreread"] = res
        md += ["### Log re-read (64-byte appends, re-reads of recent records)", "",
               table, ""]
    if grep:
        d = analyse(grep, ["workload", "fs", "threads"], "seconds", {"threads": int})
        table, res = simple_table(d, ["workload", "fs", "threads"], kernels, base, "s",
                                  lower_is_better=True)
        result["gitgrep"] = res
        md += ["### git grep over kernel sources (wall time per run; ratio < 1 is faster)",
               "", table, ""]
    model = read_csv(os.path.join(resdir, "model-bench.csv"))
    if model and "len" not in model[0]:
        # a folder from before the read-length sweep: one run at 512 bytes
        md += ["## Userspace model on the host's CPUs (tools/testing/pagecache-model)", "",
               "All threads read one shared folio: `refcount` takes and drops a "
               "reference around the copy, `rcu` is the series' filemap_fast_copy(). "
               f"Host: {meta.get('host_cpu_model', '?')}, {meta.get('host_cpus', '?')} CPUs; "
               "this runs on real cores, so it shows the cost of the refcount bouncing "
               "as far as the host has cores.", "",
               "| threads | refcount ops/s | rcu ops/s | rcu/refcount |", "|---|---|---|---|"]
        by = {}
        for r in model:
            by.setdefault(int(r["threads"]), {})[r["mode"]] = float(r["ops_per_sec"])
        for t in sorted(by):
            rc, ru = by[t].get("refcount"), by[t].get("rcu")
            if rc and ru:
                md.append(f"| {t} | {fmt(rc)} | {fmt(ru)} | {ru / rc:.2f} |")
        md.append("")
        result["model"] = by
    elif model:
        mt = model_table(model)
        runs = max(v["runs"] for v in mt.values()) if mt else 0
        md += ["## Userspace model on the host's CPUs (tools/testing/pagecache-model)", "",
               "All threads read the same bytes of one shared folio: `refcount` takes and "
               "drops a reference around a copy to the reader's buffer, `rcu` is the "
               "series' filemap_fast_copy() into a bounce buffer and a second copy out of "
               "it, as filemap_read_fast() does. "
               f"Host: {meta.get('host_cpu_model', '?')}, {meta.get('host_cpus', '?')} CPUs; "
               "this runs on real cores, so it shows the cost of the refcount bouncing "
               f"as far as the host has cores. ops/s: median of {runs} runs; rcu/refcount: "
               "median (min-max) of the per-run ratios.", "",
               "| read | threads | refcount ops/s | rcu ops/s | rcu/refcount |",
               "|---|---|---|---|---|"]
        for (ln, t), v in sorted(mt.items()):
            m, lo, hi = v["ratio"]
            md.append(f"| {ln} B | {t} | {fmt(v['refcount'])} | {fmt(v['rcu'])} | "
                      f"{m:.2f} ({lo:.2f}-{hi:.2f}) |")
        md.append("")
        result["model"] = mt
    deltas = vmstat_deltas(resdir)
    if deltas:
        names = sorted({c for v in deltas.values() for c in v})
        if names:
            md += ["## Series counters during each boot (/proc/vmstat deltas)", "",
                   "| boot | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1)]
            for run, v in deltas.items():
                md.append(f"| {run} | " + " | ".join(str(v.get(c, "-")) for c in names) + " |")
            md.append("")
    if plots and pread:
        accels = meta.get("accel", [])
        note = "" if accels and not set(accels) & {"tcg", "unknown"} else \
            " - TCG: correctness only, not performance"
        files = gnuplot_plots(resdir, result["pread"], kernels, base, note)
        if files:
            md += ["## Plots", ""] + [f"![{f}]({f})" for f in files] + [""]
        elif not shutil.which("gnuplot"):
            md += ["(no plots: gnuplot is not installed)", ""]
    with open(os.path.join(resdir, "report.md"), "w") as f:
        f.write("\n".join(md))
    return result


def model_table(rows):
    """Rows of model-bench.csv (run,mode,threads,len,...) by (len, threads):
    the median ops/s of each mode over the runs, and the median, min and max
    of the per-run ratio rcu/refcount; runs missing a mode are left out."""
    by = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        by[(int(r["len"]), int(r["threads"]))][r.get("run", "1")][r["mode"]] = \
            float(r["ops_per_sec"])
    out = {}
    for key, runs in by.items():
        pairs = [(v["refcount"], v["rcu"]) for v in runs.values()
                 if v.get("refcount", 0) > 0 and "rcu" in v]
        if not pairs:
            continue
        ratios = [ru / rc for rc, ru in pairs]
        out[key] = {"refcount": median([rc for rc, _ in pairs]),
                    "rcu": median([ru for _, ru in pairs]),
                    "ratio": (median(ratios), min(ratios), max(ratios)),
                    "runs": len(pairs)}
    return out


def check():
    """Synthetic CSV with known medians and ratios; fails loudly."""
    tmp = tempfile.mkdtemp(prefix="report-check.")
    try:
        with open(os.path.join(tmp, "metadata.json"), "w") as f:
            json.dump({"kernels": [{"label": "base"}, {"label": "final"}],
                       "accel": ["tcg"], "accel_note": "no KVM: test note", "reps": 3}, f)
        rows = ["kernel,rep,fs,mode,threads,len,ops,seconds,ops_per_sec,mib_per_sec"]
        # base: t1 = 100, 110, 90 ; t2 = 150, 170, 160
        # final: t1 = 200, 220, 180 ; t2 = 380, 400, 390 (rep 3: 390)
        data = {("base", 1): [100, 110, 90], ("base", 2): [150, 170, 160],
                ("final", 1): [200, 220, 180], ("final", 2): [380, 400, 390]}
        for (k, t), vals in data.items():
            for rep, v in enumerate(vals, 1):
                rows.append(f"{k},{rep},ext4,folio,{t},16,{v},1.000,{v}.0,0.0")
        open(os.path.join(tmp, "pread.csv"), "w").write("\n".join(rows) + "\n")
        open(os.path.join(tmp, "fio.csv"), "w").write(
            "kernel,rep,fs,thp,file,bs,mib_per_sec,tool\n"
            "base,1,tmpfs,off,normal,4k,1000.0,fio\nfinal,1,tmpfs,off,normal,4k,1500.0,fio\n"
            "base,2,tmpfs,off,normal,4k,2000.0,fio\n")  # final rep 2 missing: unpaired
        open(os.path.join(tmp, "gitgrep.csv"), "w").write(
            "kernel,rep,workload,fs,threads,run,seconds,matches\n"
            "base,1,gitgrep,tmpfs,2,1,2.00,7\nbase,1,gitgrep,tmpfs,2,2,4.00,7\n"
            "final,1,gitgrep,tmpfs,2,1,1.00,7\nfinal,1,gitgrep,tmpfs,2,2,2.00,7\n")
        # model: 16 B at 2 threads, runs 1-3: rcu/refcount 2.0, 1.5, 3.0;
        # run 4 has no rcu row and is left out
        open(os.path.join(tmp, "model-bench.csv"), "w").write(
            "run,mode,threads,len,ops,seconds,ops_per_sec\n"
            "1,refcount,2,16,10,1.000,10\n1,rcu,2,16,20,1.000,20\n"
            "2,refcount,2,16,20,1.000,20\n2,rcu,2,16,30,1.000,30\n"
            "3,refcount,2,16,10,1.000,10\n3,rcu,2,16,30,1.000,30\n"
            "4,refcount,2,16,99,1.000,99\n")
        r = report(tmp, plots=False)
        fails = []

        def eq(what, got, want):
            if abs(got - want) > 1e-9:
                fails.append(f"{what}: got {got}, want {want}")

        eq("median base t1", r["pread"][("ext4", "folio", 16, 1)]["base"][0], 100)
        eq("min base t1", r["pread"][("ext4", "folio", 16, 1)]["base"][1], 90)
        eq("max final t2", r["pread"][("ext4", "folio", 16, 2)]["final"][2], 400)
        eq("sd base t1", r["pread"][("ext4", "folio", 16, 1)]["base"][3], 10)
        rt = r["pread_ratio"][("ext4", "folio", 16, 2)]["final"]
        # per-rep ratios 380/150, 400/170, 390/160
        eq("paired ratio median t2", rt[0], 390 / 160)
        eq("paired ratio min t2", rt[1], 400 / 170)
        eq("paired ratio max t2", rt[2], 380 / 150)
        if not rt[3]:
            fails.append("t2 ratios should be paired")
        rf = r["fio"][("off", "normal", "4k", "fio")]["final"]
        eq("unpaired fio ratio", rf[0], 1500 / 1500)
        eq("unpaired fio lo", rf[1], 1500 / 2000)
        eq("unpaired fio hi", rf[2], 1500 / 1000)
        if rf[3]:
            fails.append("fio ratio should be unpaired")
        m = r["model"].get((16, 2), {})
        eq("model runs", m.get("runs", 0), 3)
        eq("model refcount median", m.get("refcount", 0), 10)
        eq("model rcu median", m.get("rcu", 0), 30)
        eq("model ratio median", m.get("ratio", (0,))[0], 2.0)
        eq("model ratio min", m.get("ratio", (0, 0))[1], 1.5)
        eq("model ratio max", m.get("ratio", (0, 0, 0))[2], 3.0)
        eq("gitgrep time ratio", r["gitgrep"][("gitgrep", "tmpfs", 2)]["final"][0], 0.5)
        text = open(os.path.join(tmp, "report.md")).read()
        if "| 16 B | 2 | 10 | 30 | 2.00 (1.50-3.00) |" not in text:
            fails.append("model row (16 B, 2 threads) not in report.md")
        if "median of 3 runs" not in text:
            fails.append("the model's run count is not in report.md")
        if "TCG" not in text:
            fails.append("the TCG caveat is missing from report.md")
        if "**Accel: tcg (no KVM: test note).**" not in text:
            fails.append("the reason for TCG (accel_note) is missing from report.md")
        # efficiency of base at 2 threads: 160 / (2 * 100) = 0.80
        if "| ext4 | folio | 16 | 2 | 160 (150-170, 10) | 0.80 |" not in text:
            fails.append("base t=2 row (median 160, eff 0.80) not in report.md")
        for f in fails:
            print(f"not ok - {f}")
        if fails:
            return 1
        print("ok - report.py: medians, spreads, paired and unpaired ratios, efficiency, "
              "caveat, model runs")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    if argv[:1] == ["--check"]:
        return check()
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    base = None
    if "--base" in argv:
        i = argv.index("--base")
        base = argv[i + 1]
        del argv[i:i + 2]
    report(argv[0], base)
    print(f"report: {os.path.join(argv[0], 'report.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

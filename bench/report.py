#!/usr/bin/env python3
"""Make report.md (and PNG plots) from a results folder of bench/uml/run.sh
(make bench) or bench/run.sh (make bench-guest).

    bench/report.py RESULTS_DIR [--base LABEL]
    bench/report.py --check        # self-test on synthetic CSVs

Reads RESULTS_DIR/uml.csv (User-Mode Linux SMP, rows tagged kernel,boot,
round), RESULTS_DIR/{pread,fio,logreread,gitgrep}.csv (QEMU guest, rows
tagged kernel,rep), model-bench.csv and metadata.json; whichever exist.  The
first kernel in metadata.json (or --base) is the baseline; every other
kernel is compared with it.  One statistic throughout: the median and the
min-max.  Ratios are computed per sample (a boot and round of uml.csv, a rep
of the guest CSVs: boot b of a kernel over boot b of the base, as the boots
were interleaved A B A B, so drift cancels in pairs) and then summarised;
where guest reps do not pair up, the ratio of the medians is given with the
range min/max over max/min.  For uml.csv a contention probe decides whether
ratios are printed at all (uml_verdict()); uml-summary.json holds its
headline numbers and uml-eff.png its efficiency plot (matplotlib, optional).
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
    """(min, max) of xs."""
    if not xs:
        return (float("nan"),) * 2
    return (min(xs), max(xs))


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
    and plots: {(fs, mode, len, threads): {kernel: (median, min, max)}}
    and {(fs, mode, len, threads): {kernel: ratio_stats}}."""
    d = analyse(rows, ["fs", "mode", "len", "threads"], "ops_per_sec",
                {"len": int, "threads": int})
    summary, ratios, out = {}, {}, []
    others = [k for k in kernels if k != base]
    head = "| fs | mode | len | threads | " + " | ".join(
        f"{k} ops/s median (min-max) | eff {k}" for k in kernels)
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
            lo, hi = spread(vs)
            summary[key][k] = (med, lo, hi)
            one = median(d.values((fs, mode, ln, 1), k))
            eff = med / (t * one) if vs and one == one and one > 0 else float("nan")
            cells.append(f"{fmt(med)} ({fmt(lo)}-{fmt(hi)})" if vs else "-")
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
            lo, hi = spread(vs)
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
                                med, lo, hi = by_len[ln][t][k]
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


# ---------------------------------------------------------------------------
# uml.csv: bench/uml/run.sh, User-Mode Linux SMP, in-kernel read loops.
#
# A sample is one (boot, round).  Everything is computed per sample first
# (efficiency against the same kernel's 1-CPU point of that sample, ratio
# against the base kernel's point of that sample) and then summarised as
# median (min-max) over the samples.

UML_SHAPES = ["ownfd", "shared", "ownfile", "private"]
UML_FS = ["tmpfs", "ramfs", "ext4", "xfs", "bdev"]
UML_HEADLINE_LENS = (16, 65536, 1048576)
CONTENTION_FACTOR = 0.8   # shared CPU-eff below 0.8 x private: contention seen
BLIND = "instrument blind to contention: no ratios are printed"


def stat(xs):
    """(median, min, max) of xs, or None when xs is empty."""
    xs = [x for x in xs if x is not None]
    return (statistics.median(xs), min(xs), max(xs)) if xs else None


def size(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def uml_load(rows):
    """{(test, fs, file, shape, mode, len, cpus): {kernel: {(boot, round):
    (rate, cpurate)}}}; cpurate = ops per host CPU-second, None when the
    row has no cpu_ns.  A sample listed twice keeps the mean."""
    acc = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        key = (r["test"], r["fs"], r["file"], r["shape"], r["mode"],
               int(r["len"]), int(r["cpus"]))
        cpu_ns = fnum(r["cpu_ns"])
        cpurate = fnum(r["ops"]) * 1e9 / cpu_ns if cpu_ns > 0 else None
        rate = fnum(r["rate"])
        if r["test"] in ("gitgrep", "logreread") and fnum(r["wall_ns"]) > 0:
            # whole greps per second: from the elapsed time, not rounded
            rate = fnum(r["ops"]) * 1e9 / fnum(r["wall_ns"])
        acc[key][r["kernel"]][(int(r["boot"]), int(r["round"]))].append(
            (rate, cpurate))
    data = {}
    for key, per in acc.items():
        data[key] = {}
        for k, samples in per.items():
            data[key][k] = {}
            for s, vals in samples.items():
                cpu = [c for _, c in vals if c is not None]
                data[key][k][s] = (statistics.mean(v for v, _ in vals),
                                   statistics.mean(cpu) if len(cpu) == len(vals) else None)
    return data


def paired(base, other, i):
    """median (min-max) over the samples both have of other[s][i] / base[s][i]."""
    return stat([other[s][i] / base[s][i] for s in sorted(set(base) & set(other))
                 if base[s][i] and other[s][i] is not None])


def uml_stats(data, kernels, base):
    """res[key][kernel] = {"rate", "cpurate", "mib", "eff", "cpu_eff",
    "ratio", "cpu_ratio", "samples"}: each a (median, min, max) or None.
    eff = rate(N) / (N x rate(1)) and cpu_eff = cpurate(N) / cpurate(1), the
    1-CPU point of the same kernel and sample; None at 1 CPU.  ratio and
    cpu_ratio: this kernel over the base, per sample; None for the base."""
    res = {}
    for key, per in data.items():
        ln, n = key[5], key[6]
        one = data.get(key[:6] + (1,), {})
        res[key] = {}
        for k in kernels:
            s = per.get(k)
            if not s:
                continue
            o = one.get(k, {})
            both = [x for x in s if x in o]
            e = {"samples": len(s),
                 "rate": stat([v[0] for v in s.values()]),
                 "cpurate": stat([v[1] for v in s.values()]),
                 "mib": stat([v[0] * ln / 2**20 for v in s.values()]) if ln >= 4096 else None,
                 "eff": None, "cpu_eff": None, "ratio": None, "cpu_ratio": None}
            if n > 1:
                e["eff"] = stat([s[x][0] / (n * o[x][0]) for x in both if o[x][0] > 0])
                e["cpu_eff"] = stat([s[x][1] / o[x][1] for x in both
                                     if s[x][1] is not None and o[x][1]])
            if k != base and base in per:
                e["ratio"] = paired(per[base], s, 0)
                e["cpu_ratio"] = paired(per[base], s, 1)
            res[key][k] = e
    return res


def uml_verdict(res, base):
    """(blind, sentence) from the contention probe of the base kernel: the
    instrument sees contention when, at the largest CPU count above 1, the
    shared counter's CPU-eff median is below CONTENTION_FACTOR x the private
    counters' (wall eff where the rows have no cpu_ns)."""
    probe = {(key[3], key[6]): v[base] for key, v in res.items()
             if key[0] == "atomic" and base in v}
    ns = sorted({n for _, n in probe if n > 1})
    if not ns:
        return True, f"{BLIND} (no contention probe above 1 CPU: nothing shows that " \
            "this host makes contention visible)."
    n = ns[-1]
    sh, pr = probe.get(("shared", n)), probe.get(("private", n))
    what = "CPU-eff" if sh and pr and sh["cpu_eff"] and pr["cpu_eff"] else "eff"
    field = "cpu_eff" if what == "CPU-eff" else "eff"
    if not (sh and pr and sh[field] and pr[field]):
        return True, f"{BLIND} (the probe lacks shared or private rows at {n} CPUs)."
    s, p = sh[field][0], pr[field][0]
    if s < CONTENTION_FACTOR * p:
        return False, (f"instrument sees contention: at {n} CPUs, {base}'s shared counter "
                       f"keeps {what} {s:.2f} against {p:.2f} for private counters "
                       f"(below {CONTENTION_FACTOR} x), so cache-line bouncing costs here "
                       "and read ratios can show it.")
    return True, (f"{BLIND} (at {n} CPUs, {base}'s shared counter keeps {what} {s:.2f} "
                  f"against {p:.2f} for private counters, not below {CONTENTION_FACTOR} x: "
                  "this host does not make cache-line bouncing visible, so rates are "
                  "shown without efficiencies or comparisons).")


def fmt_rate(st):
    """'12.3 (11.9-12.8) Mops/s', the unit chosen by the median."""
    if not st:
        return "-"
    m, lo, hi = st
    div, unit = next((d, u) for d, u in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""))
                     if m >= d or d == 1)
    dg = 2 if m / div < 10 else 1 if m / div < 100 else 0
    return f"{m / div:.{dg}f} ({lo / div:.{dg}f}-{hi / div:.{dg}f}) {unit}ops/s"


def fmt_mib(st):
    if not st:
        return "-"
    dg = 1 if st[0] < 100 else 0
    return f"{st[0]:.{dg}f} ({st[1]:.{dg}f}-{st[2]:.{dg}f})"


def fmt_eff(st):
    return f"{st[0]:.2f} ({st[1]:.2f}-{st[2]:.2f})" if st else "-"


def fmt_paired(st):
    """A per-sample ratio; one whose min-max holds 1.0 says so in words."""
    if not st:
        return "-"
    m, lo, hi = st
    if lo <= 1.0 <= hi:
        return f"no difference measured ({lo:.2f}-{hi:.2f})"
    return f"{m:.2f} ({lo:.2f}-{hi:.2f})"


def table(head, rows):
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + \
        ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]


def uml_setup(meta, kernels, base, nsamples):
    """The setup paragraph: whatever metadata.json has."""
    def show(v):
        if isinstance(v, dict):
            return ", ".join(f"{a}={b}" for a, b in v.items())
        if isinstance(v, list):
            return " ".join(str(x) for x in v)
        return str(v)
    names = [("instrument", "instrument"), ("host_cpu_model", "host CPU"),
             ("host_cpus", "host CPUs"), ("host_kernel", "host kernel"),
             ("cpus", "virtual CPUs"), ("cpu_counts", "CPU counts"), ("boots", "boots"),
             ("rounds", "rounds per boot"), ("ms", "ms per point"),
             ("wall_seconds", "s of boots"), ("series_hash", "series hash"),
             ("base", "base tree"), ("host_loadavg_before", "host load before"),
             ("host_loadavg_after", "host load after")]
    parts = [f"{label}: {show(meta[k])}" for k, label in names if k in meta and meta[k] != ""]
    out = ["Setup: " + ("; ".join(parts) if parts else "no metadata.json") + ".", ""]
    out.append(f"Kernels (baseline **{base}**; {nsamples} samples = boots x rounds):")
    commits = {k["label"]: k.get("commit", "") for k in meta.get("kernels", [])}
    out += [f"- {k}: {commits.get(k) or 'commit unknown'}" for k in kernels]
    return out + [""]


def uml_vmstat(resdir, kernels):
    """pgcache_* counters at the end of the last boot of each kernel."""
    p = os.path.join(resdir, "vmstat.txt")
    last = {}
    if os.path.exists(p):
        for line in open(p):
            parts = line.strip().split(",", 3)
            if len(parts) == 4:
                last[parts[1]] = parts[3].strip()
    if not last:
        return []
    return ["Counters at the end of the last boot of each kernel (`/proc/vmstat` "
            "pgcache_*; none on a kernel without the series):", ""] + \
        [f"- {k}: `{last[k] or '(none)'}`" for k in kernels if k in last] + [""]


HELD_BOUND = ("a CPU's chain is handed to RCU at 64 folios or 2 MiB; past the limit, 1/256 "
              "of RAM (at least 8 MiB) in flight, batches wait for an expedited grace "
              "period in a worker (`expedited`: such batches during the storm), and "
              "truncation waits after a batch with flagged folios until half the limit "
              "or less is in flight (`throttled`: such waits).  The stated bound is the limit, "
              "plus a chain per CPU (2 MiB and one folio), plus a batch of freed folios "
              "per storm process (here at most the 256 KiB file); bound held: every "
              "sample of every run at or under it")


def uml_held(resdir):
    """held.csv (bench/heldback.c in the patched boots): memory held back by
    the deferred freeing during a truncate storm, sampled every millisecond.
    Returns (markdown lines, summary rows)."""
    rows = read_csv(os.path.join(resdir, "held.csv"))
    if not rows:
        return [], []
    groups = {}
    for r in rows:
        groups.setdefault((r["kernel"], r["fs"], int(r["procs"])), []).append(r)
    head = ["kernel", "fs", "storm procs", "samples", "deferred MiB", "peak KiB",
            "median KiB", "bound KiB", "bound held", "expedited", "throttled",
            "back to zero ms", "longest gap ms"]
    body, summary = [], []
    for (k, fs, procs), rs in sorted(groups.items()):
        def st(field, div=1.0):
            return stat([fnum(r[field]) / div for r in rs if fnum(r[field]) >= 0])
        peak, med, back = st("peak_kib"), st("median_kib"), st("back_us", 1000.0)
        never = sum(1 for r in rs if fnum(r["back_us"]) < 0)
        backs = fmt_stat(back, 1) + (f", {never} never" if never else "")
        bound = st("bound_kib") if "bound_kib" in rs[0] else None
        exped = st("expedited") if "expedited" in rs[0] else None
        thr = st("throttled") if "throttled" in rs[0] else None
        if "bound_held" in rs[0]:
            broke = sum(1 for r in rs if r["bound_held"] != "1")
            held = "yes" if not broke else f"no ({broke} of {len(rs)})"
        else:
            broke, held = None, "-"
        body.append([k, fs, procs, len(rs), fmt_stat(st("deferred_kib", 1024.0), 1),
                     fmt_stat(peak), fmt_stat(med), fmt_stat(bound), held,
                     fmt_stat(exped), fmt_stat(thr),
                     backs, fmt_stat(st("max_gap_us", 1000.0), 1)])
        summary.append({"kernel": k, "fs": fs, "procs": procs, "samples": len(rs),
                        "peak_kib": peak and dict(zip(("median", "min", "max"), peak)),
                        "bound_kib": bound and bound[0],
                        "bound_held": None if broke is None else not broke,
                        "back_ms": back and dict(zip(("median", "min", "max"), back)),
                        "never_back": never})
    md = ["### Memory held back during a truncate storm", "",
          "bench/heldback.c: N processes create a 256 KiB file, read it twice (which "
          "marks its folios), truncate and unlink it, in a loop, for the storm's "
          "seconds; `pgcache_rcu_deferred - pgcache_rcu_freed` is sampled every "
          "millisecond.  Peak and median are above the level before the storm; back to "
          f"zero is measured from the end of the storm.  Bound: {HELD_BOUND}.  "
          "Median (min-max) over the boots and rounds.", ""]
    return md + table(head, body) + [""], summary


def uml_hits(resdir, meta=None):
    """hits.csv: pgcache_fast_read (chunks the lockless read copied) and its
    fallbacks over each read point of the kernels that have them.  Returns
    (markdown lines, summary rows)."""
    large = any("bench/uml/large-folios.patch" in k.get("bench_patches", [])
                for k in (meta or {}).get("kernels", []))
    rows = read_csv(os.path.join(resdir, "hits.csv"))
    if not rows:
        return [], []
    groups = {}
    for r in rows:
        if int(r["len"]) == 0:
            continue    # replayed workloads: in their own table
        key = (r["kernel"], r["fs"], r["file"], int(r["len"]))
        rnd = groups.setdefault(key, {}).setdefault((r["boot"], r["round"]), [0, 0, 0])
        rnd[0] += int(r["reads"])
        rnd[1] += int(r["fast_chunks"])
        rnd[2] += int(r["fallbacks"])
    head = ["kernel", "fs", "file", "read size", "pages per read",
            "lockless chunks per read", "fallbacks per 1000 reads", "reads"]
    body, summary = [], []
    for (k, fs, f, ln), rnds in sorted(groups.items()):
        per = [c / n for n, c, _ in rnds.values() if n]
        fb = [1000.0 * b / n for n, _, b in rnds.values() if n]
        reads = sum(n for n, _, _ in rnds.values())
        chunks = stat(per)
        body.append([k, fs, f, ln, -(-ln // 4096), fmt_stat(chunks, 2),
                     fmt_stat(stat(fb), 1), reads])
        summary.append({"kernel": k, "fs": fs, "file": f, "len": ln, "reads": reads,
                        "chunks_per_read": chunks and dict(zip(("median", "min", "max"), chunks))})
    md = ["### Reads served by the lockless path, by read size", "",
          "Deltas of `pgcache_fast_read` (chunks copied without a reference: at "
          "most one folio and 64 KiB each; " +
          ("with bench/uml/large-folios.patch, ext4 files have large folios (up to "
           "1 MiB), so one per 64 KiB there; tmpfs and ramfs still one per 4 KiB page"
           if large else "UML has no large folios, so one per 4 KiB page") +
          ") and of the `pgcache_fast_read_*` fallbacks over each read point, "
          "summed over shapes and CPU counts; median (min-max) over boots and rounds.  "
          "A read served entirely without references shows as many chunks as pages.", ""]
    return md + table(head, body) + [""], summary


def fmt_stat(st, digits=0):
    if st is None:
        return "-"
    return f"{fmt(st[0], digits)} ({fmt(st[1], digits)}-{fmt(st[2], digits)})"


def uml_plot(resdir, res, base, patched, fss):
    """uml-eff.png: eff and CPU-eff against CPUs of 16 B ownfd reads, one
    panel per fs, base and patched.  Returns a markdown line."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # optional dependency
        return f"(no plot: matplotlib is not available here: {e})"
    fig, axes = plt.subplots(1, len(fss), figsize=(4.5 * len(fss), 3.8),
                             squeeze=False, sharey=True)
    for ax, fs in zip(axes[0], fss):
        keys = sorted(k for k in res if k[:6] == ("read", fs, "hot", "ownfd", "zero", 16))
        for k, color in zip(dict.fromkeys([base, patched]), ("tab:blue", "tab:red")):
            for field, style, what in (("eff", "o-", "eff"), ("cpu_eff", "s--", "CPU-eff")):
                xs, ys, lo, hi = [], [], [], []
                for key in keys:
                    e = res[key].get(k)
                    st = (1.0, 1.0, 1.0) if key[6] == 1 and e else e and e[field]
                    if st:
                        xs.append(key[6])
                        ys.append(st[0])
                        lo.append(st[0] - st[1])
                        hi.append(st[2] - st[0])
                if xs:
                    ax.errorbar(xs, ys, yerr=[lo, hi], fmt=style, color=color, capsize=3,
                                label=f"{k} {what}")
        ax.axhline(1.0, color="grey", linewidth=0.5)
        ax.set_title(f"{fs}: 16 B reads, fd per thread")
        ax.set_xlabel("CPUs (kthreads)")
        ax.set_xticks(sorted({key[6] for key in keys}) or [1])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("parallel efficiency, median (min-max)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(resdir, "uml-eff.png"), dpi=100)
    plt.close(fig)
    return "![efficiency against CPUs, 16 B ownfd reads](uml-eff.png)"


def uml_rates(res, keys, kernels):
    """A table of read rows (fs, read size, CPUs) with each kernel's rate."""
    head = ["fs", "read", "CPUs"] + [f"{k} ops/s" for k in kernels]
    body = [[key[1], size(key[5]), key[6]] +
            [fmt_rate(res[key][k]["rate"]) if k in res[key] else "-" for k in kernels]
            for key in keys]
    return table(head, body)


def uml_realworld(res, kernels, base, others, blind, test, unit, title, what):
    """A table of one real-world workload of uml.csv (gitgrep, logreread):
    N processes in the UML guest, rate per kernel, eff, ratio."""
    keys = sorted((k for k in res if k[0] == test), key=lambda k: (k[1], k[6]))
    if not keys:
        return []
    cols = (unit,) if blind else (unit, "eff")
    head = ["fs", "file", "processes"] + [f"{k} {c}" for k in kernels for c in cols]
    if not blind:
        head += [f"{k}/{base}" for k in others]
    body = []
    for key in keys:
        row = [key[1], key[2], key[6]]
        for k in kernels:
            e = res[key].get(k)
            if not e:
                row += ["-"] * len(cols)
                continue
            row += [fmt_rate(e["rate"]) if e["rate"][0] >= 1e4 else
                    f"{e['rate'][0]:.2f} ({e['rate'][1]:.2f}-{e['rate'][2]:.2f})"]
            if not blind:
                row += [fmt_eff(e["eff"])]
        if not blind:
            row += [fmt_paired(res[key].get(k, {}).get("ratio")) for k in others]
        body.append(row)
    return [f"### {title}", "",
            f"{what}; user processes in UML are separate host processes and run in "
            "parallel, but every system call costs UML tens of microseconds, which "
            "bounds what the page cache part can change.", ""] + table(head, body) + [""]


def uml_replay(resdir, res, meta, kernels, base, others, blind):
    """The replayed workloads (test "replay" of uml.csv): lines of report.md
    and a list for uml-summary.json, one entry per (fs, workload, CPUs)."""
    keys = sorted((k for k in res if k[0] == "replay"),
                  key=lambda k: (UML_FS.index(k[1]) if k[1] in UML_FS else 9, k[2], k[6]))
    if not keys:
        return [], []
    traces = {r["workload"]: r for r in read_csv(os.path.join(resdir, "replay.csv"))}
    # fallbacks of the patched kernel per 1000 timed reads, warm-up passes
    # included (so at most that), from hits.csv
    fbk = defaultdict(list)
    for r in read_csv(os.path.join(resdir, "hits.csv")):
        if int(r["len"]) == 0 and r["kernel"] == kernels[-1] and int(r["reads"]):
            fbk[(r["fs"], r["file"], int(r["cpus"]))].append(
                1000.0 * int(r["fallbacks"]) / int(r["reads"]))
    cols = ("reads/s",) if blind else ("reads/s", "eff")
    head = ["fs", "workload", "CPUs"] + [f"{k} {c}" for k in kernels for c in cols]
    if not blind:
        head += [f"{k}/{base}" for k in others]
    head += [f"{kernels[-1]} fallbacks per 1000 reads (at most)"]
    body, summary, per_read = [], [], []
    for key in keys:
        row = [key[1], key[2], key[6]]
        ent = {"fs": key[1], "workload": key[2], "cpus": key[6], "kernels": {}}
        for k in kernels:
            e = res[key].get(k)
            if not e:
                row += ["-"] * len(cols)
                continue
            row += [fmt_rate(e["rate"])] + ([] if blind else [fmt_eff(e["eff"])])
            ent["kernels"][k] = {"rate": e["rate"], "eff": None if blind else e["eff"],
                                 "ratio": None if blind else e["ratio"]}
        if not blind:
            row += [fmt_paired(res[key].get(k, {}).get("ratio")) for k in others]
        row += [fmt_stat(stat(fbk.get((key[1], key[2], key[6]), [])), 1)]
        body.append(row)
        summary.append(ent)
        if key[6] == 1 and base in res[key] and kernels[-1] in res[key]:
            nb = 1e9 / res[key][base]["rate"][0]
            nf = 1e9 / res[key][kernels[-1]]["rate"][0]
            per_read.append(f"{key[1]} {key[2]} {nb:.0f} ns ({base}), {nf:.0f} ns "
                            f"({kernels[-1]})")
    desc = []
    for w, t in sorted(traces.items()):
        desc.append(f"{w}: {t['reads']} reads of {t['files']} files, "
                    f"{fnum(t['bytes_read']) / 2**20:.1f} MiB read, "
                    f"{fnum(t['bytes_on_disk']) / 2**20:.1f} MiB of files")
    hp = meta.get("host_pread16_ns")
    md = ["### Recorded workloads replayed in the kernel", "",
          "The reads of regular files that a real workload issued (make readsizes, "
          f"{meta.get('replay_from', 'a readsizes folder')}: strace of its second run), "
          "as (file, offset, bytes) records in trace order (bench/readsizes/replay.py), "
          "replayed by one kthread per virtual CPU through ->read_iter, each with its own "
          "struct file per file and the whole trace, from its start again at the end; "
          "the files hold random bytes of the traced extents, copied into each fs "
          "inside UML. " + "; ".join(desc) + ".", "",
          "Each thread starts at its own place in the trace (thread i at record "
          "i x records / N), after three passes that make every folio hot; a trace "
          "holds each process's reads in order, the processes one after the other. "
          "Left out: the system call around each read (entry, exit, the host's "
          "mitigations), the workload's other work, and page-cache misses; the last "
          "column counts what the lockless path left to the slow one." +
          (f" On this host a whole 16-byte pread() of a hot tmpfs file, system call "
           f"and read, costs {hp[0]:.0f} ns ({hp[1]:.0f}-{hp[2]:.0f}) (bench/pread.c, "
           "1 thread, the host's own kernel): an upper bound on what a system call "
           "adds to each read" if hp else "") +
          (f"; a replayed read costs, at 1 CPU (UML, a real core): {'; '.join(per_read)}"
           if per_read else "") + ".", ""]
    md += table(head, body) + [""]
    return md, [{"fs": e["fs"], "workload": e["workload"], "cpus": e["cpus"],
                 "kernels": {k: {f: (None if v[f] is None else
                                     dict(zip(("median", "min", "max"), v[f])))
                                 for f in v} for k, v in e["kernels"].items()}}
                for e in summary]


def uml_report(resdir, rows, meta, kernels, base, plots=True):
    """The UML section of report.md (a list of lines) and the analysis:
    {"res", "blind", "verdict", "summary"}; writes uml-summary.json and
    uml-eff.png."""
    res = uml_stats(uml_load(rows), kernels, base)
    blind, verdict = uml_verdict(res, base)
    patched = kernels[-1]
    others = [k for k in kernels if k != base]
    nsamples = len({(r["boot"], r["round"]) for r in rows})
    md = ["## Real CPUs: reads inside User-Mode Linux SMP (uml.csv)", ""]
    md += uml_setup(meta, kernels, base, nsamples)
    md += ["Each point: one kthread per virtual CPU reads in a loop inside the kernel "
           "(bench/uml/pcbench.c), no system call timed. Every number is median "
           "(min-max) over the samples (boot, round). eff = rate(N) / (N x rate(1)), "
           "CPU-eff = the same per host CPU-second (ops x 1e9 / cpu_ns), both against "
           "the 1-CPU point of the same kernel and sample." +
           ("" if blind else f" A ratio is this kernel's rate over {base}'s in the same "
            "boot and round; one whose min-max holds 1.0 is printed as \"no difference "
            "measured\"."), ""]

    # 1. the contention probe
    probe = sorted((k for k in res if k[0] == "atomic"),
                   key=lambda k: (UML_SHAPES.index(k[3]) if k[3] in UML_SHAPES else 9, k[6]))
    md += ["### Contention probe: atomic_long_inc on one shared or per-CPU counters", ""]
    if probe:
        head = ["counter", "CPUs"] + [f"{k} {c}" for k in kernels
                                      for c in ("ops/s", "eff", "CPU-eff")]
        body = []
        for key in probe:
            row = [key[3], key[6]]
            for k in kernels:
                e = res[key].get(k)
                row += [fmt_rate(e["rate"]), fmt_eff(e["eff"]), fmt_eff(e["cpu_eff"])] \
                    if e else ["-"] * 3
            body.append(row)
        md += table(head, body) + [""]
    md += [f"**Verdict: {verdict}**", ""]
    # the probe per boot: the host may place the vCPU threads differently
    # from boot to boot, and contention then costs more or less
    pb = defaultdict(list)
    maxc = max((int(r["cpus"]) for r in rows if r["test"] == "atomic"), default=1)
    for r in rows:
        if r["test"] == "atomic" and r["shape"] == "shared" and int(r["cpus"]) == maxc > 1:
            pb[(r["kernel"], int(r["boot"]))].append(fnum(r["rate"]))
    if pb:
        md += [f"Shared counter at {maxc} CPUs per boot (median of its rounds): " +
               ", ".join(f"{k} boot {b}: {fmt_rate(stat(v))}"
                         for (k, b), v in sorted(pb.items(), key=lambda x: (x[0][1], kernels.index(x[0][0]) if x[0][0] in kernels else 99))) +
               ". Boots whose shared counter differs show a host that placed the "
               "virtual CPUs differently: rows that contend differ with them.", ""]

    # 2. the read matrix, one table per fs
    reads = [k for k in res if k[0] == "read"]
    fss = [f for f in UML_FS if any(k[1] == f for k in reads)] + \
        sorted({k[1] for k in reads} - set(UML_FS))
    for fs in fss:
        keys = sorted((k for k in reads if k[1] == fs),
                      key=lambda k: (UML_SHAPES.index(k[3]) if k[3] in UML_SHAPES else 9,
                                     k[3], k[5], k[6]))
        cols = ("ops/s", "MiB/s") if blind else ("ops/s", "MiB/s", "eff", "CPU-eff")
        head = ["shape", "read", "CPUs"] + [f"{k} {c}" for k in kernels for c in cols]
        if not blind:
            head += [f"{k}/{base}" for k in others]
        body = []
        for key in keys:
            row = [key[3], size(key[5]), key[6]]
            for k in kernels:
                e = res[key].get(k)
                if not e:
                    row += ["-"] * len(cols)
                    continue
                row += [fmt_rate(e["rate"]), fmt_mib(e["mib"])]
                if not blind:
                    row += [fmt_eff(e["eff"]), fmt_eff(e["cpu_eff"])]
            if not blind:
                row += [fmt_paired(res[key].get(k, {}).get("ratio")) for k in others]
            body.append(row)
        md += [f"### {fs}: reads at offset 0 of a hot file", ""] + table(head, body) + [""]

    # 3. the headline: 16 B and 64 KiB, fd per thread, the largest CPU count
    headline = []
    for fs in fss:
        for ln in UML_HEADLINE_LENS:
            ks = [k for k in reads if k[1] == fs and k[3] == "ownfd" and k[5] == ln]
            if ks:
                headline.append(max(ks, key=lambda k: k[6]))
    pair = list(dict.fromkeys([base, patched]))   # one kernel alone: [base]
    if headline:
        md += ["### Headline: 16 B, 64 KiB and 1 MiB reads, fd per thread, the most CPUs", ""]
        if blind:
            md += uml_rates(res, headline, pair) + ["", f"({BLIND}.)", ""]
        else:
            head = ["fs", "read", "CPUs"] + [f"{k} {c}" for k in pair
                                             for c in ("eff", "CPU-eff")]
            if patched != base:
                head += [f"{patched}/{base} ops/s", f"{patched}/{base} per CPU-s"]
            body = []
            for key in headline:
                row = [key[1], size(key[5]), key[6]]
                for k in pair:
                    e = res[key].get(k, {})
                    row += [fmt_eff(e.get("eff")), fmt_eff(e.get("cpu_eff"))]
                if patched != base:
                    p = res[key].get(patched, {})
                    row += [fmt_paired(p.get("ratio")), fmt_paired(p.get("cpu_ratio"))]
                body.append(row)
            md += table(head, body) + [""]

    # 4. tmpfs sequential reads, one reader
    seq = sorted((k for k in res if k[0] == "seq"),
                 key=lambda k: (k[1], ["normal", "falloc", "hole"].index(k[2])
                                if k[2] in ("normal", "falloc", "hole") else 9, k[2], k[5]))
    if seq:
        head = ["fs", "file", "read", "CPUs"] + [f"{k} MiB/s" for k in kernels]
        if not blind:
            head += [f"{k}/{base}" for k in others]
        body = []
        for key in seq:
            row = [key[1], key[2], size(key[5]), key[6]]
            row += [fmt_mib(res[key][k]["mib"]) if k in res[key] else "-" for k in kernels]
            if not blind:
                row += [fmt_paired(res[key].get(k, {}).get("ratio")) for k in others]
            body.append(row)
        md += ["### Sequential reads, one reader (a hot 512 KiB file; written, fallocated and sparse tmpfs files)", ""]
        md += table(head, body) + [""]

    # 4b. the real-world workloads: git grep, the log re-read
    for test, unit, title, what in (
            ("gitgrep", "greps/s", "git grep over a kernel source directory on tmpfs, "
             "N processes", "Each process greps the tree in a loop, one thread each"),
            ("logreread", "reads/s", "A hot log on tmpfs: one writer appends 64-byte "
             "records, N processes re-read recent ones (bench/logreread.c)",
             "Each reader pread()s one record among the last 1024 written")):
        md += uml_realworld(res, kernels, base, others, blind, test, unit, title, what)

    # 4c. recorded workloads replayed in the kernel (bench/readsizes/replay.py)
    replay_md, replay = uml_replay(resdir, res, meta, kernels, base, others, blind)
    md += replay_md

    # 5. every patch boundary against the base
    if len(kernels) > 2 and headline:
        md += ["### Every kernel against the base: the headline rows", ""]
        if blind:
            md += uml_rates(res, headline, kernels) + [""]
        else:
            head = ["fs", "read", "CPUs", f"{base} ops/s"] + [f"{k}/{base}" for k in others]
            body = [[key[1], size(key[5]), key[6],
                     fmt_rate(res[key].get(base, {}).get("rate"))] +
                    [fmt_paired(res[key].get(k, {}).get("ratio")) for k in others]
                    for key in headline]
            md += table(head, body) + [""]

    # 6. the plot
    if plots and fss:
        if blind:
            md += ["(no efficiency plot: the instrument is blind to contention)", ""]
        elif any(k[6] > 1 for k in reads):
            md += [uml_plot(resdir, res, base, patched, fss), ""]
    held_md, held = uml_held(resdir)
    md += held_md
    hits_md, hits = uml_hits(resdir, meta)
    md += hits_md
    md += uml_vmstat(resdir, kernels)

    # 7. uml-summary.json, for the cover letter
    def js(st):
        return None if st is None else dict(zip(("median", "min", "max"), st))
    summary = {"base": base, "patched": patched, "kernels": kernels, "blind": blind,
               "verdict": verdict, "samples": nsamples, "headline": [], "held": held,
               "hits": hits, "replay": replay}
    for key in headline:
        h = {"fs": key[1], "len": key[5], "shape": key[3], "cpus": key[6], "kernels": {}}
        for k, e in res[key].items():
            h["kernels"][k] = {"rate": js(e["rate"]), "samples": e["samples"]}
            for f in ("eff", "cpu_eff", "ratio", "cpu_ratio"):
                h["kernels"][k][f] = None if blind else js(e[f])
        # the same read on one CPU: no contention, the cost of the path
        one = key[:6] + (1,) + key[7:]
        for k, e in res.get(one, {}).items():
            if k in h["kernels"]:
                h["kernels"][k]["one_cpu_ratio"] = js(e["ratio"])
        summary["headline"].append(h)
    with open(os.path.join(resdir, "uml-summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    return md, {"res": res, "blind": blind, "verdict": verdict, "summary": summary}


def guest_header(meta, kernels, base):
    """The lines above the QEMU guest tables: accel caveat, kernels, notation."""
    md = ["## QEMU guest: the system-call matrix (bench/run.sh)", "", caveat(meta), ""]
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
    return md


def report(resdir, base=None, plots=True):
    meta = {}
    mp = os.path.join(resdir, "metadata.json")
    if os.path.exists(mp):
        meta = json.load(open(mp))
    pread = read_csv(os.path.join(resdir, "pread.csv"))
    fio = read_csv(os.path.join(resdir, "fio.csv"))
    logr = read_csv(os.path.join(resdir, "logreread.csv"))
    grep = read_csv(os.path.join(resdir, "gitgrep.csv"))
    comp = read_csv(os.path.join(resdir, "compact.csv"))
    uml = read_csv(os.path.join(resdir, "uml.csv"))
    guest = pread or fio or logr or grep or comp
    if not (guest or uml):
        raise SystemExit(f"report: error: no CSV rows in {resdir}")
    kernels = kernel_order(meta, pread, fio, logr, grep, comp, uml)
    base = base or kernels[0]
    if base not in kernels:
        raise SystemExit(f"report: error: base kernel {base} not in {kernels}")
    kernels = [base] + [k for k in kernels if k != base]

    md = ["# pagecache-rcu benchmark report", ""]
    result = {"kernels": kernels, "base": base}
    if uml:
        lines, result["uml"] = uml_report(resdir, uml, meta, kernels, base, plots)
        md += lines
    if guest:
        md += guest_header(meta, kernels, base)
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
    if comp:
        lines, result["compact"] = compact_table(comp, kernels)
        md += lines
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


def compact_table(rows, kernels):
    """compact.csv (bench/compact.c): huge page faults under a truncate
    storm on a fragmented file, per fs and kernel, median (min-max) over
    the reps of the share that fell back to small pages, the failed direct
    compactions and the peak of deferred pages.  No ratios: a share of 0
    has none."""
    fields = [("fallback_pct", "THP faults fallen back, %", 1),
              ("compact_fail", "compactions failed", 0),
              ("compact_stall", "direct compactions", 0),
              ("peak_held_kib", "peak deferred, KiB", 0)]
    out = ["## Huge page faults under a truncate storm (compact.csv)", "",
           "bench/compact.c: a file of a share of RAM with every other page punched "
           "out (read twice first, so that the series marks it), 2 processes "
           "creating, reading twice and truncating files, and anonymous 2 MiB "
           "MADV_HUGEPAGE faults with transparent_hugepage/defrag=always (direct "
           "compaction at each fault). Does the deferred freeing of marked folios "
           "(a pageblock compaction emptied stays allocated for a grace period) "
           "make huge page faults fall back more often? Counts, median (min-max) "
           "over the reps.", "",
           "| fs | kernel | faults | " + " | ".join(f[1] for f in fields) + " |",
           "|" + "---|" * (3 + len(fields))]
    res = {}
    for fs in sorted({r["fs"] for r in rows}):
        for k in kernels:
            rs = [r for r in rows if r["fs"] == fs and r["kernel"] == k]
            if not rs:
                continue
            cells, res[(fs, k)] = [], {}
            for name, _, digits in fields + [("faults", "", 0)]:
                vs = [fnum(r[name]) for r in rs]
                lo, hi = spread(vs)
                res[(fs, k)][name] = (median(vs), lo, hi)
                cells.append(f"{fmt(median(vs), digits)} ({fmt(lo, digits)}-{fmt(hi, digits)})")
            out.append(f"| {fs} | {k} | {cells[-1]} | " + " | ".join(cells[:-1]) + " |")
    return out + [""], res


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


UML_HEADER = "kernel,boot,round,test,fs,file,shape,mode,len,cpus,ops,rate,cpu_ns,wall_ns"
SAMPLES = [(1, 1), (1, 2), (2, 1), (2, 2)]   # (boot, round) of the synthetic uml.csv


def synthetic_uml(shared2):
    """uml.csv rows: 2 kernels, 2 boots x 2 rounds, 1 and 2 CPUs.  Each
    thread runs 1 s, so ops = rate and cpurate = ops x 1e9 / cpu_ns.
    shared2: the shared counter's rate at 2 CPUs (private: 200)."""
    rows = [UML_HEADER]

    def add(k, vals, test, fs, file, shape, mode, ln, n, cpu_s):
        for (b, r), v in zip(SAMPLES, vals):
            rows.append(f"{k},{b},{r},{test},{fs},{file},{shape},{mode},{ln},{n},"
                        f"{v},{v},{int(cpu_s * 1e9)},{n * 1000000000}")
    for k in ("base", "final"):
        add(k, [100] * 4, "atomic", "-", "-", "private", "-", 0, 1, 1)
        add(k, [200] * 4, "atomic", "-", "-", "private", "-", 0, 2, 2)
        add(k, [100] * 4, "atomic", "-", "-", "shared", "-", 0, 1, 1)
        add(k, [shared2] * 4, "atomic", "-", "-", "shared", "-", 0, 2, 2)
        add(k, [1000] * 4, "read", "tmpfs", "hot", "ownfd", "zero", 65536, 1, 1)
        add(k, [1500 if k == "base" else 2000] * 4,
            "read", "tmpfs", "hot", "ownfd", "zero", 65536, 2, 2)
    # 16 B reads: base's vCPUs got 1.5 host CPU-seconds at 2 CPUs (time-shared)
    add("base", UML_B1, "read", "tmpfs", "hot", "ownfd", "zero", 16, 1, 1)
    add("base", UML_B2, "read", "tmpfs", "hot", "ownfd", "zero", 16, 2, 1.5)
    add("final", UML_F1, "read", "tmpfs", "hot", "ownfd", "zero", 16, 1, 1)
    add("final", UML_F2, "read", "tmpfs", "hot", "ownfd", "zero", 16, 2, 2)
    add("base", [1000, 1100, 900, 1000], "seq", "tmpfs", "normal", "ownfd", "seq", 65536, 1, 1)
    add("final", [2000, 2200, 1800, 2000], "seq", "tmpfs", "normal", "ownfd", "seq", 65536, 1, 1)
    for k, one, two in (("base", 1000, 1500), ("final", 1200, 2400)):
        add(k, [one] * 4, "replay", "tmpfs", "sqlite", "ownfd", "replay", 0, 1, 1)
        add(k, [two] * 4, "replay", "tmpfs", "sqlite", "ownfd", "replay", 0, 2, 2)
    return "\n".join(rows) + "\n"


UML_B1, UML_B2 = [100, 110, 90, 100], [150, 176, 144, 170]
UML_F1, UML_F2 = [102, 108, 91, 99], [200, 220, 180, 200]


def check_uml(fails, eq, tmp, u):
    """The uml.csv section: @u, the report of check()'s folder @tmp (guest
    CSVs and a uml.csv whose probe shows contention); then a blind uml.csv,
    the only CSV of a folder of its own."""
    def med3(xs):
        return (statistics.median(xs), min(xs), max(xs))

    def eq3(what, got, want):
        if got is None:
            fails.append(f"{what}: missing")
            return
        for name, g, w in zip(("median", "min", "max"), got, want):
            eq(f"{what} {name}", g, w)

    text = open(os.path.join(tmp, "report.md")).read()
    res = u["res"]
    k16 = ("read", "tmpfs", "hot", "ownfd", "zero", 16, 2)
    k16one = k16[:6] + (1,)
    b, f = res[k16]["base"], res[k16]["final"]
    eq3("base eff 16 B", b["eff"], med3([x / (2 * y) for x, y in zip(UML_B2, UML_B1)]))
    eq3("base CPU-eff 16 B", b["cpu_eff"], med3([x / 1.5 / y for x, y in zip(UML_B2, UML_B1)]))
    eq3("final eff 16 B", f["eff"], med3([x / (2 * y) for x, y in zip(UML_F2, UML_F1)]))
    eq3("final CPU-eff 16 B", f["cpu_eff"], med3([x / 2 / y for x, y in zip(UML_F2, UML_F1)]))
    eq3("paired ratio 16 B, 2 CPUs", f["ratio"], med3([x / y for x, y in zip(UML_F2, UML_B2)]))
    eq3("paired CPU ratio 16 B, 2 CPUs", f["cpu_ratio"],
        med3([(x / 2) / (y / 1.5) for x, y in zip(UML_F2, UML_B2)]))
    if res[k16one]["final"]["eff"] is not None:
        fails.append("an efficiency at 1 CPU")
    kseq = ("seq", "tmpfs", "normal", "ownfd", "seq", 65536, 1)
    eq3("seq base MiB/s", res[kseq]["base"]["mib"], (62.5, 900 / 16, 1100 / 16))
    eq3("seq ratio", res[kseq]["final"]["ratio"], (2.0, 2.0, 2.0))
    if u["blind"]:
        fails.append(f"shared 0.6 vs private 1.0 should see contention: {u['verdict']}")
    for want in ("**Verdict: instrument sees contention",
                 "no difference measured (0.98-1.02)",          # 16 B at 1 CPU
                 "| ownfd | 16 B | 2 | 160 (144-176) ops/s | - | 0.80 (0.75-0.85) | "
                 "1.07 (1.00-1.13) | 200 (180-220) ops/s | - | 1.00 (0.98-1.02) | "
                 "1.00 (0.98-1.02) | 1.25 (1.18-1.33) |",
                 "| tmpfs | normal | 64 KiB | 1 | 62.5 (56.2-68.8) | 125 (112-138) | "
                 "2.00 (2.00-2.00) |",
                 "- final: commit unknown", "instrument: synthetic",
                 "| tmpfs | sqlite | 2 | 1.50 (1.50-1.50) kops/s | 0.75 (0.75-0.75) | "
                 "2.40 (2.40-2.40) kops/s | 1.00 (1.00-1.00) | 1.60 (1.60-1.60) |",
                 "tmpfs sqlite 1000000 ns (base), 833333 ns (final)",
                 "## QEMU guest: the system-call matrix"):
        if want not in text:
            fails.append(f"not in report.md: {want}")
    js = json.load(open(os.path.join(tmp, "uml-summary.json")))
    h = [x for x in js["headline"] if x["fs"] == "tmpfs" and x["len"] == 16]
    if js["blind"] or not h or h[0]["cpus"] != 2 or \
            abs(h[0]["kernels"]["final"]["ratio"]["median"] - 1.25) > 1e-9:
        fails.append(f"uml-summary.json headline: {h}")
    line = uml_plot(tmp, res, "base", "final", ["tmpfs"])
    if not (line.startswith("(no plot: matplotlib") or
            (line.endswith("(uml-eff.png)") and
             os.path.getsize(os.path.join(tmp, "uml-eff.png")) > 0)):
        fails.append(f"plot: {line}")

    # held.csv: median (min-max) of peak and back-to-zero; -1 is "never"
    open(os.path.join(tmp, "held.csv"), "w").write(
        "kernel,boot,round,fs,procs,seconds,files,deferred_kib,samples,max_gap_us,"
        "peak_kib,median_kib,back_us,expedited,throttled,limit_kib,bound_kib,bound_held\n"
        "final,1,1,tmpfs,2,2.0,100,25600,2000,1500,512,256,3000,0,0,8192,13312,1\n"
        "final,1,2,tmpfs,2,2.0,100,25600,2000,1200,1024,300,5000,2,4,8192,13312,1\n"
        "final,2,1,tmpfs,2,2.0,100,25600,2000,1100,768,280,-1,1,2,8192,13312,0\n")
    hmd, hs = uml_held(tmp)
    if "| final | tmpfs | 2 | 3 | 25.0 (25.0-25.0) | 768 (512-1024) | 280 (256-300) | " \
            "13.3k (13.3k-13.3k) | no (1 of 3) | 1 (0-2) | 2 (0-4) | 4.0 (3.0-5.0), 1 never | " \
            "1.2 (1.1-1.5) |" not in hmd:
        fails.append(f"held.csv row: {hmd}")
    if not hs or hs[0]["peak_kib"]["median"] != 768 or hs[0]["never_back"] != 1 or \
            hs[0]["bound_held"] is not False:
        fails.append(f"held summary: {hs}")

    # hits.csv: chunks per read, median (min-max) over (boot, round)
    open(os.path.join(tmp, "hits.csv"), "w").write(
        "kernel,boot,round,fs,file,shape,len,cpus,reads,fast_chunks,fallbacks\n"
        "final,1,1,tmpfs,hot,ownfd,65536,1,100,1600,0\n"
        "final,1,1,tmpfs,hot,ownfd,65536,2,100,1500,10\n"
        "final,1,2,tmpfs,hot,ownfd,65536,1,200,3200,0\n")
    hmd, hs = uml_hits(tmp)
    if "| final | tmpfs | hot | 65536 | 16 | 15.75 (15.50-16.00) | 25.0 (0.0-50.0) | 400 |" \
            not in hmd:
        fails.append(f"hits.csv row: {hmd}")
    if not hs or hs[0]["chunks_per_read"]["median"] != 15.75:
        fails.append(f"hits summary: {hs}")

    # a 1-CPU-only run is blind however the probe looks
    one = [r for r in csv.DictReader(synthetic_uml(120).splitlines()) if r["cpus"] == "1"]
    if not uml_verdict(uml_stats(uml_load(one), ["base", "final"], "base"), "base")[0]:
        fails.append("a run at 1 CPU only should be blind")

    tmp = tempfile.mkdtemp(prefix="report-check-uml.")
    try:
        # blind: the shared counter scales like the private ones (0.95 vs 1.0);
        # uml.csv is the only CSV and there is no metadata.json
        open(os.path.join(tmp, "uml.csv"), "w").write(synthetic_uml(190))
        u = report(tmp, plots=True)["uml"]
        text = open(os.path.join(tmp, "report.md")).read()
        if not u["blind"] or BLIND not in text:
            fails.append(f"shared 0.95 vs private 1.0 should be blind: {u['verdict']}")
        for unwanted in ("no difference measured", "final/base", "1.25", "QEMU", "uml-eff.png"):
            if unwanted in text:
                fails.append(f"blind report.md has '{unwanted}'")
        if "| shape | read | CPUs | base ops/s | base MiB/s | final ops/s | final MiB/s |" \
                not in text:
            fails.append("blind read table should have rates only")
        js = json.load(open(os.path.join(tmp, "uml-summary.json")))
        if not js["blind"] or any(v[f] is not None for h in js["headline"]
                                  for v in h["kernels"].values()
                                  for f in ("eff", "cpu_eff", "ratio", "cpu_ratio")):
            fails.append("blind uml-summary.json should have no eff or ratio")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check():
    """Synthetic CSV with known medians and ratios; fails loudly."""
    tmp = tempfile.mkdtemp(prefix="report-check.")
    try:
        with open(os.path.join(tmp, "metadata.json"), "w") as f:
            json.dump({"kernels": [{"label": "base"}, {"label": "final"}],
                       "accel": ["tcg"], "accel_note": "no KVM: test note", "reps": 3,
                       "instrument": "synthetic"}, f)
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
        open(os.path.join(tmp, "uml.csv"), "w").write(synthetic_uml(120))
        # compact: final's fallback shares 10, 30, 20 %: median 20 (10-30)
        hdr = ("kernel,rep,fs,procs,seconds,faults,thp_alloc,thp_fallback,fallback_pct,"
               "compact_stall,compact_fail,compact_success,deferred_kib,peak_held_kib\n")
        open(os.path.join(tmp, "compact.csv"), "w").write(
            hdr + "base,1,ext4,2,5,100,100,0,0.0,4,0,4,0,0\n"
            "final,1,ext4,2,5,100,90,10,10.0,8,2,6,4096,512\n"
            "final,2,ext4,2,5,100,70,30,30.0,9,3,6,4096,1024\n"
            "final,3,ext4,2,5,100,80,20,20.0,7,1,6,4096,256\n")
        r = report(tmp, plots=False)
        fails = []

        def eq(what, got, want):
            if abs(got - want) > 1e-9:
                fails.append(f"{what}: got {got}, want {want}")

        eq("median base t1", r["pread"][("ext4", "folio", 16, 1)]["base"][0], 100)
        eq("min base t1", r["pread"][("ext4", "folio", 16, 1)]["base"][1], 90)
        eq("max final t2", r["pread"][("ext4", "folio", 16, 2)]["final"][2], 400)
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
        eq("compact fallback median", r["compact"][("ext4", "final")]["fallback_pct"][0], 20)
        eq("compact fallback max", r["compact"][("ext4", "final")]["fallback_pct"][2], 30)
        eq("compact fail median", r["compact"][("ext4", "final")]["compact_fail"][0], 2)
        text = open(os.path.join(tmp, "report.md")).read()
        if "| 16 B | 2 | 10 | 30 | 2.00 (1.50-3.00) |" not in text:
            fails.append("model row (16 B, 2 threads) not in report.md")
        if "| ext4 | final | 100 (100-100) | 20.0 (10.0-30.0) | 2 (1-3) |" not in text:
            fails.append("compact row (ext4, final) not in report.md")
        if "median of 3 runs" not in text:
            fails.append("the model's run count is not in report.md")
        if "TCG" not in text:
            fails.append("the TCG caveat is missing from report.md")
        if "**Accel: tcg (no KVM: test note).**" not in text:
            fails.append("the reason for TCG (accel_note) is missing from report.md")
        # efficiency of base at 2 threads: 160 / (2 * 100) = 0.80
        if "| ext4 | folio | 16 | 2 | 160 (150-170) | 0.80 |" not in text:
            fails.append("base t=2 row (median 160, eff 0.80) not in report.md")
        check_uml(fails, eq, tmp, r["uml"])
        for f in fails:
            print(f"not ok - {f}")
        if fails:
            return 1
        print("ok - report.py: medians, spreads, paired and unpaired ratios, efficiency, "
              "caveat, model runs, compact.csv; uml.csv: eff, CPU-eff, paired ratios, contention verdict")
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

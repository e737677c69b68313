#!/usr/bin/env python3
"""report.md for a bench/uml/ab/run.sh result folder (ab.csv, metadata.json).

Per row (file, read size, offsets): the speed of the series' tmpfs read loop
(variant 0) and of the series without the filemap_read_hot() call (variant
2) relative to 6.12's loop (variant 1) in the same boot: per boot, the
median over the rounds of the paired ratio (and its quartiles), and the mean
ns per read of 6.12's loop and of the series.  Where the run has them, two
more tables: variants 3-9 (what an earlier version of the series did, put
back one at a time) against 6.12's loop like the series, and ext4 rows with
vm.pagecache_fast_read on (f1, f7, f8) against off (f0).

    bench/uml/ab/report.py DIR      write DIR/report.md, print it
    bench/uml/ab/report.py --guest DIR  the same from DIR/ab-guest.csv
                                    (bench/ab-guest.sh in an x86 guest: THP too)
    bench/uml/ab/report.py --pool OUT DIR DIR...  OUT/pooled.md: the boots
                                    of several runs together, per row and
                                    variant the median of the per-boot
                                    medians and their range
    bench/uml/ab/report.py --check  self-test on synthetic data
"""
import csv
import importlib.util
import json
import os
import shutil
import statistics
import sys
import tempfile

# The read-size names and offset modes of bench/uml/report.py, not a copy.
_spec = importlib.util.spec_from_file_location(
    "uml_report", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report.py"))
_uml = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_uml)
size, MODES = _uml.size, _uml.MODES
FILES = ["normal", "small", "big", "falloc", "hole"]
# knob.patch's variants that put back, one at a time, what an earlier
# version of the series did.
EARLIER = {"3": "one-page reads through the batch",
           "4": "filemap_rcu_free_allowed() on every read",
           "5": "filemap_read_hot() out of line",
           "6": "folio_batch cleared on every read",
           "7": "bounce buffer cleared on every call",
           "8": "no 512-byte limit on the lockless read",
           "9": "not uptodate: under the lock, one folio at a time"}


def load(d):
    """{(file, len, mode): {variant: [(boot, ratio, q1, q3, ns), ...]}}"""
    rows = {}
    with open(os.path.join(d, "ab.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["file"], int(r["len"]), r["mode"])
            rows.setdefault(key, {}).setdefault(r["variant"], []).append(
                (int(r["boot"]), int(r["ratio_x10000"]) / 1e4, int(r["q1_x10000"]) / 1e4,
                 int(r["q3_x10000"]) / 1e4, int(r["ns_x100"]) / 100))
    return rows


def order(key):
    f, n, mode = key
    return (FILES.index(f) if f in FILES else len(FILES), f, mode != "0", n)


def speeds(per_boot):
    return ", ".join(f"{r:.2f} ({lo:.2f}-{hi:.2f})" for _, r, lo, hi, _ in sorted(per_boot))


def mean_ns(per_boot):
    return sum(x[4] for x in per_boot) / len(per_boot)


def report(d):
    rows = load(d)
    meta = json.load(open(os.path.join(d, "metadata.json")))
    out = ["# tmpfs read loop: the series against 6.12's, in one boot (User-Mode Linux)", ""]
    out.append(f"Host: {meta.get('host_cpu_model', '?')}, {meta.get('host_cpus', '?')} CPUs, "
               f"host kernel {meta.get('host_kernel', '?')}; {meta.get('uml', '')}; "
               f"{meta['boots']} boot(s), {meta['rounds']} rounds per row; "
               f"{meta.get('wall_seconds', '?')} s of boots.")
    out.append("")
    build = (" + bench/uml/ab/locked.patch (x86's atomics and bit operations with the LOCK "
              "prefix an SMP kernel gives them; UML on 6.12 has no SMP)"
              if meta.get("atomics") == "locked" else "")
    if meta.get("returns") == "thunk-inline":
        build += (", built with -mfunction-return=thunk-inline (every return through a "
                   "thunk that mispredicts it, as SRSO's Safe RET mitigation does)")
    out.append(f"Kernel: {meta['commit'][:12]} + {meta['patch']} (6.12's shmem_file_read_iter() "
               f"beside the series', picked per batch of reads){build}. Speed = ns of 6.12's loop / ns of "
               "the variant, paired within each round (> 1: faster than 6.12); per boot, the "
               "median over the rounds and (quartiles). tmpfs huge=never, 64 MiB files"
               + ("" if not {"small", "big"} & {k[0] for k in rows} else
                  " (small: 4 MiB written, in the host's L3 cache; big: 1 GiB written, the "
                  "size of the fio runs of Chi Zhiling's shmem series)")
               + ": one CPU and no THP, so neither contention nor large folios.")
    out.append("")
    out.append("| file | read | offsets | 6.12 ns | series ns | series speed per boot | "
               "without filemap_read_hot() |")
    out.append("|---|---|---|---|---|---|---|")
    for key in sorted(rows, key=order):
        v = rows[key]
        if not all(k in v for k in ("0", "1", "2")):
            continue
        f, n, mode = key
        out.append(f"| {f} | {size(n)} | {MODES.get(mode, mode)} | {mean_ns(v['1']):.1f} | "
                   f"{mean_ns(v['0']):.1f} | {speeds(v['0'])} | {speeds(v['2'])} |")
    # Variants 3-8 (newer runs only): the series with one thing an earlier
    # version did put back, each against 6.12's loop like the series above.
    earlier = [k for k in EARLIER if any(k in v for v in rows.values())]
    if earlier:
        out.append("")
        out.append("What an earlier version of the series did, put back one at a time into the "
                   "series (same boots, same pairing with 6.12's loop; compare with the series "
                   "speed above):")
        out.append("")
        out.append("| file | read | offsets | series | " +
                   " | ".join(EARLIER[k] for k in earlier) + " |")
        out.append("|---|---|---|---|" + "---|" * len(earlier))
        for key in sorted(rows, key=order):
            v = rows[key]
            if not ("0" in v and "1" in v and any(k in v for k in earlier)):
                continue
            f, n, mode = key
            out.append(f"| {f} | {size(n)} | {MODES.get(mode, mode)} | {speeds(v['0'])} | " +
                       " | ".join(speeds(v[k]) if k in v else "-" for k in earlier) + " |")
    # ext4 rows (newer runs): vm.pagecache_fast_read off (f0) and on (f1)
    ext4 = [k for k in sorted(rows, key=order) if "f0" in rows[k] and "f1" in rows[k]]
    if ext4:
        out.append("")
        out.append("ext4 (a fresh ubd image each boot), the lockless read on against off in "
                   "the same rounds (vm.pagecache_fast_read flipped between batches): speed = "
                   "ns off / ns on (> 1: the lockless read is faster):")
        out.append("")
        cols = {"f1": "speed on/off per boot", "f7": "on, bounce buffer cleared on every call",
                "f8": "on, no 512-byte limit"}
        cols = {k: t for k, t in cols.items() if any(k in rows[r] for r in ext4)}
        out.append("| file | read | offsets | off ns | on ns | " + " | ".join(cols.values()) + " |")
        out.append("|---|---|---|---|---|" + "---|" * len(cols))
        for key in ext4:
            v = rows[key]
            f, n, mode = key
            out.append(f"| {f} | {size(n)} | {MODES.get(mode, mode)} | {mean_ns(v['f0']):.1f} | "
                       f"{mean_ns(v['f1']):.1f} | " +
                       " | ".join(speeds(v[k]) if k in v else "-" for k in cols) + " |")
    text = "\n".join(out) + "\n"
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text)
    return text


def pool(out_dir, dirs):
    """Per row and variant, the per-boot medians of every run in dirs pooled:
    their median and min-max, as "m (lo-hi)"."""
    rows = {}
    for d in dirs:
        for key, per in load(d).items():
            for var, boots in per.items():
                rows.setdefault(key, {}).setdefault(var, []).extend(b[1] for b in boots)
    variants = sorted({v for per in rows.values() for v in per},
                      key=lambda v: (v.startswith("f"), int(v.lstrip("f"))))
    out = ["# Pooled same-boot runs (bench/uml/ab/report.py --pool)", "",
           "Runs: " + ", ".join(os.path.basename(os.path.normpath(d)) for d in dirs) + ". "
           "Per row and variant: the median of the per-boot medians of the paired speed "
           "ratio (against 6.12's loop, variant 1; f variants against f0) over all boots "
           "of these runs, and their range. Variants: see each run's metadata.json.", ""]
    out.append("| file | read | offsets | " + " | ".join(variants) + " |")
    out.append("|---|---|---|" + "---|" * len(variants))
    for key in sorted(rows, key=order):
        f, n, mode = key
        cells = []
        for v in variants:
            xs = sorted(rows[key].get(v, []))
            cells.append(f"{statistics.median(xs):.2f} ({xs[0]:.2f}-{xs[-1]:.2f}) n={len(xs)}"
                         if xs else "-")
        out.append(f"| {f} | {size(n)} | {MODES.get(mode, mode)} | " + " | ".join(cells) + " |")
    text = "\n".join(out) + "\n"
    with open(os.path.join(out_dir, "pooled.md"), "w") as f:
        f.write(text)
    return text


def guest_report(d):
    rows = {}
    with open(os.path.join(d, "ab-guest.csv")) as f:
        for r in csv.DictReader(f):
            rows.setdefault((r["thp"], r["file"], int(r["len"])), {})[r["variant"]] = r
    meta = {}
    if os.path.exists(os.path.join(d, "metadata.json")):
        meta = json.load(open(os.path.join(d, "metadata.json")))
    out = ["# tmpfs read loop: the series against 6.12's, in one boot of an x86 guest", ""]
    out.append(f"Guest: {meta.get('guest', '?')}; kernel {meta.get('commit', '?')[:12]} + "
               "bench/uml/ab/knob.patch; bench/abread flips "
               "/sys/module/shmem/parameters/read_exp between batches of sequential pread()s "
               f"({meta.get('rounds', '?')} rounds per row). Speed = ns of 6.12's loop / ns of "
               "the variant, median of the per-round ratios (quartiles); > 1: faster. "
               f"{meta.get('accel_note', '')}")
    out.append("")
    out.append("| tmpfs huge= | file | read | 6.12 ns | series ns | series speed | "
               "without filemap_read_hot() |")
    out.append("|---|---|---|---|---|---|---|")
    thp_order = {"never": 0, "always": 1}
    for key in sorted(rows, key=lambda k: (thp_order.get(k[0], 9), order((k[1], k[2], "1")))):
        v = rows[key]
        if not all(k in v for k in ("0", "1", "2")):
            continue
        thp, f, n = key
        cell = lambda r: f"{float(r['ratio']):.2f} ({float(r['q1']):.2f}-{float(r['q3']):.2f})"
        out.append(f"| {thp} | {f} | {size(n)} | {float(v['1']['ns_per_read']):.0f} | "
                   f"{float(v['0']['ns_per_read']):.0f} | {cell(v['0'])} | {cell(v['2'])} |")
    text = "\n".join(out) + "\n"
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text)
    return text


def drop_rows(d, part):
    """check(): take the rows containing part out of d/ab.csv again."""
    with open(os.path.join(d, "ab.csv")) as f:
        keep = [l for l in f if part not in l]
    with open(os.path.join(d, "ab.csv"), "w") as f:
        f.writelines(keep)


def check():
    d = tempfile.mkdtemp()
    try:
        with open(os.path.join(d, "ab.csv"), "w") as f:
            f.write("boot,file,len,mode,variant,ratio_x10000,q1_x10000,q3_x10000,ns_x100\n")
            for boot in (1, 2):
                for var, ratio, ns in (("1", 10000, 20000), ("0", 11000, 18182), ("2", 10500, 19048)):
                    f.write(f"{boot},hole,65536,1,{var},{ratio},{ratio - 500},{ratio + 500},{ns}\n")
                    f.write(f"{boot},normal,4096,0,{var},{ratio},{ratio - 100},{ratio + 100},{ns}\n")
            f.write("1,falloc,4096,1,0,10000,9000,11000,100\n")  # no 6.12 row: left out
        with open(os.path.join(d, "metadata.json"), "w") as f:
            json.dump({"boots": 2, "rounds": 300, "commit": "0123456789abcdef",
                       "patch": "bench/uml/ab/knob.patch"}, f)
        text = report(d)
        assert "earlier version" not in text, text
        assert "locked.patch" not in text, text
        assert "small: 4 MiB" not in text, text
        lines = [l for l in text.splitlines() if l.startswith("| ") and not l.startswith("| file")]
        assert len(lines) == 2, lines
        with open(os.path.join(d, "ab.csv"), "a") as f:
            for boot in (1, 2):
                for var, ratio in (("1", 10000), ("0", 10200), ("2", 10100)):
                    f.write(f"{boot},big,65536,1,{var},{ratio},{ratio},{ratio},5000\n")
        text = report(d)
        assert "small: 4 MiB written" in text, text
        big = [l for l in text.splitlines() if l.startswith("| ") and not l.startswith("| file")]
        assert [l.split(" | ")[0] for l in big] == ["| normal", "| big", "| hole"], big
        assert big[1].endswith("| 1.02 (1.02-1.02), 1.02 (1.02-1.02) | "
                               "1.01 (1.01-1.01), 1.01 (1.01-1.01) |"), big[1]
        drop_rows(d, ",big,")
        with open(os.path.join(d, "ab.csv"), "a") as f:
            for boot in (1, 2):
                f.write(f"{boot},normal,4096,0,3,9700,9600,9800,20619\n")
        extra = report(d).split("earlier version", 1)[1]
        rows3 = [l for l in extra.splitlines() if l.startswith("| ") and not l.startswith("| file")]
        assert rows3 == ["| normal | 4 KiB | offset 0 | 1.10 (1.09-1.11), 1.10 (1.09-1.11) | "
                         "0.97 (0.96-0.98), 0.97 (0.96-0.98) |"], rows3
        assert "| one-page reads through the batch |" in extra, extra
        assert "ext4 (a fresh" not in extra, extra
        with open(os.path.join(d, "ab.csv"), "a") as f:
            for boot in (1, 2):
                f.write(f"{boot},ext4,16,0,f0,10000,10000,10000,6000\n")
                f.write(f"{boot},ext4,16,0,f1,15000,14000,16000,4000\n")
        text = report(d)
        e4 = text.split("ext4 (a fresh", 1)[1]
        assert "| ext4 | 16 B | offset 0 | 60.0 | 40.0 | 1.50 (1.40-1.60), 1.50 (1.40-1.60) |\n" in e4, e4
        with open(os.path.join(d, "ab.csv"), "a") as f:
            for boot in (1, 2):
                f.write(f"{boot},ext4,16,0,f7,12000,11000,13000,5000\n")
                f.write(f"{boot},normal,16,0,1,10000,10000,10000,100\n")
                f.write(f"{boot},normal,16,0,0,12000,11000,13000,83\n")
                f.write(f"{boot},normal,16,0,7,11000,10000,12000,91\n")
        text = report(d)
        assert ("| ext4 | 16 B | offset 0 | 60.0 | 40.0 | 1.50 (1.40-1.60), 1.50 (1.40-1.60) | "
                "1.20 (1.10-1.30), 1.20 (1.10-1.30) |") in text, text
        assert ("| normal | 16 B | offset 0 | 1.20 (1.10-1.30), 1.20 (1.10-1.30) | - | "
                "1.10 (1.00-1.20), 1.10 (1.00-1.20) |") in text, text
        assert "| ext4 |" not in text.split("ext4 (a fresh", 1)[0], text
        assert "no 512-byte limit" not in text, text
        with open(os.path.join(d, "ab.csv"), "a") as f:
            for boot in (1, 2):
                f.write(f"{boot},ext4,4096,0,f0,10000,10000,10000,20000\n")
                f.write(f"{boot},ext4,4096,0,f1,10000,10000,10000,20000\n")
                f.write(f"{boot},ext4,4096,0,f8,8000,7500,8500,25000\n")
        text8 = report(d)
        assert "| on, bounce buffer cleared on every call | on, no 512-byte limit |" in text8, text8
        assert ("| ext4 | 4 KiB | offset 0 | 200.0 | 200.0 | 1.00 (1.00-1.00), 1.00 (1.00-1.00) | "
                "- | 0.80 (0.75-0.85), 0.80 (0.75-0.85) |") in text8, text8
        drop_rows(d, ",ext4,4096,")
        with open(os.path.join(d, "metadata.json"), "w") as f:
            json.dump({"boots": 2, "rounds": 300, "commit": "0123456789abcdef",
                       "patch": "bench/uml/ab/knob.patch", "atomics": "locked"}, f)
        assert "per batch of reads) + bench/uml/ab/locked.patch (x86's atomics" in report(d)
        assert "thunk-inline" not in report(d)
        with open(os.path.join(d, "metadata.json"), "w") as f:
            json.dump({"boots": 2, "rounds": 300, "commit": "0123456789abcdef",
                       "patch": "bench/uml/ab/knob.patch", "returns": "thunk-inline"}, f)
        text = report(d)
        assert "locked.patch" not in text, text
        assert "per batch of reads), built with -mfunction-return=thunk-inline (every" in text, text
        assert lines[0].startswith("| normal | 4 KiB | offset 0 | 200.0 | 181.8 | "
                                   "1.10 (1.09-1.11), 1.10 (1.09-1.11) | 1.05"), lines[0]
        assert lines[1].startswith("| hole | 64 KiB | sequential |"), lines[1]
        assert "1.10 (1.05-1.15)" in lines[1], lines[1]
        with open(os.path.join(d, "ab-guest.csv"), "w") as f:
            f.write("thp,file,len,variant,ratio,q1,q3,ns_per_read\n")
            for thp in ("always", "never"):
                f.write(f"{thp},normal,65536,1,1.0000,1.0000,1.0000,5000.0\n")
                f.write(f"{thp},normal,65536,0,1.2500,1.2000,1.3000,4000.0\n")
                f.write(f"{thp},normal,65536,2,1.2400,1.1000,1.3000,4032.3\n")
            f.write("never,hole,4096,0,1.0,1.0,1.0,1.0\n")  # no 6.12 row: left out
        lines = [l for l in guest_report(d).splitlines() if l.startswith("| ") and not l.startswith("| tmpfs")]
        assert len(lines) == 2, lines
        assert lines[0] == "| never | normal | 64 KiB | 5000 | 4000 | 1.25 (1.20-1.30) | 1.24 (1.10-1.30) |", lines[0]
        assert lines[1].startswith("| always |"), lines[1]
        d2 = tempfile.mkdtemp(dir=d)
        shutil.copy(os.path.join(d, "ab.csv"), d2)
        pooled = pool(d, [d, d2])
        assert "| normal | 4 KiB | offset 0 | 1.10 (1.10-1.10) n=4 | 1.00 (1.00-1.00) n=4 | " \
            "1.05 (1.05-1.05) n=4 | 0.97 (0.97-0.97) n=4 | -" in pooled, pooled
        assert "| ext4 | 16 B | offset 0 | - | - | - | - | - | 1.00 (1.00-1.00) n=4 | " \
            "1.50 (1.50-1.50) n=4 | 1.20 (1.20-1.20) n=4 |" in pooled, pooled
        print("ok - bench/uml/ab/report.py self-test")
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        check()
    elif len(sys.argv) >= 4 and sys.argv[1] == "--pool":
        print(pool(sys.argv[2], sys.argv[3:]), end="")
    elif len(sys.argv) == 3 and sys.argv[1] == "--guest":
        print(guest_report(sys.argv[2]), end="")
    elif len(sys.argv) == 2:
        print(report(sys.argv[1]), end="")
    else:
        sys.exit(__doc__)

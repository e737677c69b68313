#!/usr/bin/env bash
# kunit-cost.sh [BOOTS]: what freeing a chain of mm/rcu_free.c at its bound
# costs, on a real CPU (the RCU callback's work, or with init_on_free the
# work item's), and what one rcu_free_folios_drain() costs its caller: the
# KUnit cases rcu_free_test_callback_cost and rcu_free_test_drain_cost
# (scripts/kunit.sh, User-Mode Linux) in BOOTS boots (default 3) without
# and with init_on_free=1, 7 rounds each.  Writes
# results/<stamp>-rcu-callback/: cost.csv, drain.csv, report.md,
# metadata.json, the raw KUnit logs and reproducer.sh.  (TCG guests would
# time an emulator.)
. "$(dirname "$0")/lib.sh"

boots=${1:-3}
OUT=${OUT:-$TOP/results/$(date -u +%Y%m%dT%H%M%SZ)-rcu-callback}
mkdir -p "$OUT/raw"
OUT=$(cd "$OUT" && pwd)
echo "init_on_free,boot,folios,kib,context,median_us,min_us,max_us,rounds" >"$OUT/cost.csv"
echo "init_on_free,boot,cpus,busy_median_us,busy_min_us,busy_max_us,idle_median_ns,idle_min_ns,idle_max_ns,rounds" >"$OUT/drain.csv"
for iof in 0 1; do
	for b in $(seq 1 "$boots"); do
		KUNIT_ARGS="init_on_free=$iof" "$TOP/scripts/kunit.sh" >"$OUT/raw/tap-iof$iof-boot$b.txt" ||
			die "scripts/kunit.sh failed ($OUT/raw/tap-iof$iof-boot$b.txt)"
		cp "$BUILD/kunit/test.log" "$OUT/raw/kunit-iof$iof-boot$b.log"
		# "chain at the bound: 64 folios, 4064 KiB, init_on_free=1, freed in a work item: 980 us (730-3330) over 7 rounds"
		sed -n 's/.*chain at the bound: \([0-9]*\) folios, \([0-9]*\) KiB, init_on_free=\([01]\), freed in \([a-zA-Z ]*\): \([0-9]*\) us (\([0-9]*\)-\([0-9]*\)) over \([0-9]*\) rounds.*/\3,'"$b"',\1,\2,\4,\5,\6,\7,\8/p' \
			"$OUT/raw/tap-iof$iof-boot$b.txt" | head -1 >>"$OUT/cost.csv"
		# "drain: 310 us (250-420) with a folio on each of 2 CPUs' chains, 90 ns (80-130) with nothing in flight, over 7 rounds"
		sed -n 's/.*drain: \([0-9]*\) us (\([0-9]*\)-\([0-9]*\)) with a folio on each of \([0-9]*\) CPUs. chains, \([0-9]*\) ns (\([0-9]*\)-\([0-9]*\)) with nothing in flight, over \([0-9]*\) rounds.*/'"$iof,$b"',\4,\1,\2,\3,\5,\6,\7,\8/p' \
			"$OUT/raw/tap-iof$iof-boot$b.txt" | head -1 >>"$OUT/drain.csv"
	done
done
[ "$(wc -l <"$OUT/cost.csv")" = $((2 * boots + 1)) ] || die "not every boot reported a cost ($OUT/cost.csv)"
[ "$(wc -l <"$OUT/drain.csv")" = $((2 * boots + 1)) ] || die "not every boot reported a drain cost ($OUT/drain.csv)"
series=$("$TOP/bench/series-hash.sh" "$TOP/patches")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
python3 - "$OUT" "$series" "$cpu" "$(nproc)" "$(uname -r)" "$(kgit rev-parse "$WORK_BRANCH")" \
	"$(cat "$BUILD/base.env" 2>/dev/null | tr '\n' ' ')" "$(git -C "$TOP" rev-parse HEAD)" "$boots" <<'PY'
import csv, json, statistics, sys
out, series, cpu, ncpu, hostk, work, base, wb, boots = sys.argv[1:]
rows = list(csv.DictReader(open(f"{out}/cost.csv")))
json.dump({"instrument": "KUnit cases rcu_free_test_callback_cost and rcu_free_test_drain_cost on User-Mode Linux (kunit.py, which boots it with one CPU online), bottom halves disabled",
           "series_hash": series, "work_commit": work, "base": base.strip(),
           "host_cpu_model": cpu, "host_cpus": int(ncpu), "host_kernel": hostk,
           "boots_per_setting": int(boots), "workbench_commit": wb},
          open(f"{out}/metadata.json", "w"), indent=2)
lines = ["# Freeing a chain of deferred folios at its bound", "",
         f"Setup: {cpu}, {ncpu} host CPUs, host kernel {hostk}; User-Mode Linux (a real CPU, not emulated) "
         f"built by kunit.py from branch work {work[:12]} (series {series}); base: {base.strip()}.",
         "The KUnit case builds a chain at its bound (63 folios of order 3 and one of order 9: "
         "4064 KiB, as many pages as rcu_free_submit() lets a chain hold) and frees it with "
         "rcu_free_chain(), bottom halves disabled, as rcu_free_folios_cb() does in softirq; "
         "with init_on_free the RCU callback leaves that work to a work item (process context). "
         "7 rounds per boot, median (min-max) of the rounds per boot.", "",
         "| init_on_free | boot | folios | KiB | freed in | us |", "|---|---|---|---|---|---|"]
for r in rows:
    lines.append(f"| {r['init_on_free']} | {r['boot']} | {r['folios']} | {r['kib']} | {r['context']} | {r['median_us']} ({r['min_us']}-{r['max_us']}) |")
lines.append("")
for iof in ("0", "1"):
    med = [int(r["median_us"]) for r in rows if r["init_on_free"] == iof]
    lo = min(int(r["min_us"]) for r in rows if r["init_on_free"] == iof)
    hi = max(int(r["max_us"]) for r in rows if r["init_on_free"] == iof)
    lines.append(f"init_on_free={iof}: median of the boots' medians {statistics.median(med):.0f} us, "
                 f"all rounds {lo}-{hi} us.")
drains = list(csv.DictReader(open(f"{out}/drain.csv")))
lines += ["", "## One rcu_free_folios_drain()", "",
          "What a caller of the drain (the allocator and memcg charge before their OOM killers, compaction, "
          "alloc_contig_range(), offlining, memory failure) waits for: with a folio on the chain of every "
          "online CPU, the IPIs that submit the chains, rcu_barrier() and the work flushes; with nothing in "
          "flight, the check alone.  7 rounds per boot, median (min-max) of the rounds per boot.", "",
          "| init_on_free | boot | CPUs | with folios in flight, us | nothing in flight, ns |",
          "|---|---|---|---|---|"]
for r in drains:
    lines.append(f"| {r['init_on_free']} | {r['boot']} | {r['cpus']} | {r['busy_median_us']} "
                 f"({r['busy_min_us']}-{r['busy_max_us']}) | {r['idle_median_ns']} ({r['idle_min_ns']}-{r['idle_max_ns']}) |")
lines.append("")
for iof in ("0", "1"):
    sel = [r for r in drains if r["init_on_free"] == iof]
    lines.append(f"init_on_free={iof}: a drain with folios in flight, median of the boots' medians "
                 f"{statistics.median(int(r['busy_median_us']) for r in sel):.0f} us, all rounds "
                 f"{min(int(r['busy_min_us']) for r in sel)}-{max(int(r['busy_max_us']) for r in sel)} us; "
                 f"with nothing in flight {statistics.median(int(r['idle_median_ns']) for r in sel):.0f} ns, "
                 f"all rounds {min(int(r['idle_min_ns']) for r in sel)}-{max(int(r['idle_max_ns']) for r in sel)} ns.")
lines += ["", "Not measured here: the same on x86 hardware (zeroing there runs at tens of GB/s; "
          "UML's memory is a host file, and the first touch of a page costs a host fault)."]
open(f"{out}/report.md", "w").write("\n".join(lines) + "\n")
PY
cat >"$OUT/reproducer.sh" <<REPRO
#!/bin/sh
# From a fresh clone of the workbench at $(git -C "$TOP" rev-parse --short HEAD): the series in patches/ (hash $series).
set -e
cd "\$(dirname "\$0")/../.."
make tree
OUT=\$PWD/results/rerun-rcu-callback scripts/kunit-cost.sh $boots
REPRO
chmod +x "$OUT/reproducer.sh"
note "results in $OUT"
cat "$OUT/report.md"

#!/usr/bin/env bash
# make mutants: prove the selftests can fail.  Each tests/mutants/NAME.patch
# breaks the series on purpose (skip the revalidation, ignore i_size, free
# without the RCU deferral, copy from unflagged folios, read a tmpfs hole
# past the data after it, read a non-uptodate tmpfs folio as zeros without
# testing its lock bit, read a run of fallocated tmpfs folios as zeros past
# a written one, mark folios hot by PG_workingset instead of PG_referenced,
# defer hwpoisoned order-0 folios, uncharge a deferred folio before its
# grace period, charge a memcg without waiting for its deferred folios
# before its OOM killer, free a chain that init_on_free zeroes in
# softirq context, forget the chain of a CPU going
# offline, bound a chain in folios but not in pages, copy to the user's
# buffer before the flag test and the reload, bound a copy by a folio
# size that a split may be rewriting, keep the memcg charge of a
# poisoned folio that is not deferred, drain before the OOM path's early
# exits and call that progress, let a task free past the limit on the
# pages in flight without waiting, drain for a memcg charge whatever
# cgroup the deferred folios are charged to, hold a tmpfs read's folio
# batch across faults on the user's buffer, copy without a reference from
# a writably mapped file where flush_dcache_folio() exists, serve only
# user-backed iterators locklessly so that io_uring's registered buffers
# lose the fast path).
# For each: commit it on top of branch `work` as refs/mutants/NAME (the
# working tree is not touched), build it (guest config, or debug where the
# patch says "# config: debug"; "# config: kunit": only scripts/kunit.sh on
# UML, for a mutant that a KUnit case kills; "# config: arm64": the arm64
# guest of scripts/arm64.sh, for what only an architecture with
# flush_dcache_folio() runs), boot it, run the suite (its races for the
# seconds that a "# race-seconds: N" line asks, default 2).  A mutant that changes
# mm/filemap_fast.h is also built into the userspace model
# (tools/testing/pagecache-model), which runs that very header: the model
# kills it or not, too.  A mutant that neither kills is a bug in the tests:
# exit status 1.  One that only the model kills is reported as such.
#   MUTANTS="no-defer ignore-isize" make mutants   runs a subset
#   MUTANTS_OUT=results/<stamp>-mutants make mutants   also keeps the
#       verdicts (mutants.tap), each mutant's suite log and console,
#       metadata.json and reproducer.sh there
. "$(dirname "$0")/lib.sh"

LOGDIR=$BUILD/mutants
mkdir -p "$LOGDIR"
if [ -n "${MUTANTS_OUT:-}" ]; then
	mkdir -p "$MUTANTS_OUT/raw"
	MUTANTS_OUT=$(cd "$MUTANTS_OUT" && pwd)
	exec > >(tee "$MUTANTS_OUT/mutants.tap")
fi
killed=0 survived=0 broken=0 model_only=0
MODEL=$TOP/tools/testing/pagecache-model

# model_verdict NAME: run the userspace model on the mutant's own
# mm/filemap_fast.h.  Prints the verdict; status 0 killed, 1 survived,
# 2 not applicable (the mutant does not change that header), 3 broken.
model_verdict() {
	local name=$1 dir=$BUILD/model-mutants/$1 rc first
	if kgit diff --quiet "$WORK_BRANCH" "refs/mutants/$name" -- mm/filemap_fast.h; then
		echo "model: n/a"
		return 2
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	kgit show "refs/mutants/$name:mm/filemap_fast.h" >"$dir/filemap_fast.h"
	if ! make -s -C "$MODEL" KSRC="$KSRC" O="$dir" FAST_H="$dir/filemap_fast.h" all >"$dir/build.log" 2>&1; then
		echo "model: does not build ($dir/build.log)"
		return 3
	fi
	rc=0
	ASAN_OPTIONS=exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=87 \
		"$dir/pagecache-model" -s "${SEED:-1}" -d "${MODEL_SECONDS:-10}" -t 4 -x \
		>"$dir/run.log" 2>&1 || rc=$?
	first=$(grep -m1 -E '^not ok [1-5] - ' "$dir/run.log" || true)
	if [ $rc = 1 ] && [ -n "$first" ]; then
		echo "model: killed (${first#not ok })"
		return 0
	fi
	echo "model: survived (rc $rc, $dir/run.log)"
	return 1
}
names=${MUTANTS:-$(cd "$TOP/tests/mutants" && ls *.patch | sed 's/\.patch$//')}
"$TOP/scripts/selftests.sh" build

for name in $names; do
	patch=$TOP/tests/mutants/$name.patch
	[ -f "$patch" ] || die "no mutant $patch"
	cfg=$(mutant_config "$name")
	# "# race-seconds: N": the races of races.c run N seconds instead of 2,
	# for a mutant whose window only a longer race hits reliably.
	secs=$(sed -n 's/^# race-seconds: \([0-9][0-9]*\)$/\1/p' "$patch" | head -1)
	# "# programs: P..." and "# args: A...": only those selftest programs,
	# with those harness options (e.g. -t TEST), for a mutant that one
	# long race kills and the whole suite at that length would not fit.
	progs=$(sed -n 's/^# programs: \(.*\)$/\1/p' "$patch" | head -1)
	pargs=$(sed -n 's/^# args: \(.*\)$/\1/p' "$patch" | head -1)
	t0=$SECONDS
	if ! mutant_commit "$name" "$LOGDIR/$name.apply" >/dev/null; then
		note "mutant $name: does not apply to $WORK_BRANCH any more (regenerate it): $(head -1 "$LOGDIR/$name.apply")"
		broken=$((broken + 1))
		continue
	fi
	if [ "$cfg" = kunit ]; then
		# "# config: kunit": the mutant is for a KUnit case, which
		# scripts/kunit.sh runs on UML in seconds once built.
		rc=0
		"$TOP/scripts/kunit.sh" "refs/mutants/$name" >"$LOGDIR/$name.log" 2>&1 || rc=$?
		why=$(grep -E '^not ok ' "$LOGDIR/$name.log" | head -4 | tr '\n' ';' || true)
		if [ $rc != 0 ] && [ -n "$why" ] && ! grep -q 'no case ran' "$LOGDIR/$name.log"; then
			killed=$((killed + 1))
			echo "ok - mutant $name (KUnit on UML) killed ($((SECONDS - t0)) s): $why"
		else
			survived=$((survived + 1))
			echo "not ok - mutant $name (KUnit on UML) SURVIVED ($((SECONDS - t0)) s; $LOGDIR/$name.log)"
		fi
		continue
	fi
	if [ "$cfg" = arm64 ]; then
		rc=0
		ARM64_REF="refs/mutants/$name" ARM64_LABEL="mutant-$name" \
			ARM64_PROGS="${progs:-}" ARM64_ARGS="$pargs" \
			ARM64_TIMEOUT="${GUEST_TIMEOUT:-1800}" \
			"$TOP/scripts/arm64.sh" >"$LOGDIR/$name.log" 2>&1 || rc=$?
		why=$(grep -E '^not ok ' "$LOGDIR/$name.log" | head -4 | tr '\n' ';' || true)
		if [ $rc != 0 ] && [ -n "$why" ]; then
			killed=$((killed + 1))
			echo "ok - mutant $name (arm64) killed by the suite ($((SECONDS - t0)) s): $why"
		else
			survived=$((survived + 1))
			echo "not ok - mutant $name (arm64) SURVIVED ($((SECONDS - t0)) s; $LOGDIR/$name.log)"
		fi
		continue
	fi
	if ! "$TOP/scripts/build.sh" "$cfg" "refs/mutants/$name" "mutant-$name" >"$LOGDIR/$name.build" 2>&1; then
		note "mutant $name: does not build ($LOGDIR/$name.build)"
		broken=$((broken + 1))
		continue
	fi
	set +e
	"$TOP/scripts/vm" --kernel "$BUILD/images/mutant-$name/$cfg/bzImage" --quiet \
		--cpus 2 --numa 2 --mem 2G --swap 256 --disk ext4 --disk xfs \
		--timeout "${GUEST_TIMEOUT:-1800}" --console-log "$LOGDIR/$name.console" \
		--append "movablecore=25%" -- env BUILD="$BUILD" PAGECACHE_RACE_SECONDS="${secs:-2}" PAGECACHE_PROGS="$progs" PAGECACHE_PROG_ARGS="$pargs" PAGECACHE_HWPOISON=1 PAGECACHE_OFFLINE=1 "$TOP/scripts/selftests.sh" run \
		>"$LOGDIR/$name.log" 2>&1
	rc=$?
	set -e
	why=$( (grep -E '^not ok ' "$LOGDIR/$name.log"; grep -E '^vm: (error|  )' "$LOGDIR/$name.log") | head -4 | tr '\n' ';' || true)
	mrc=0
	model=$(model_verdict "$name") || mrc=$?
	if [ $rc != 0 ]; then
		killed=$((killed + 1))
		echo "ok - mutant $name ($cfg) killed by the suite ($((SECONDS - t0)) s): $why $model"
	elif [ $mrc = 0 ]; then
		killed=$((killed + 1)) model_only=$((model_only + 1))
		echo "ok - mutant $name ($cfg) killed by the model only; the suite did not hit its window ($((SECONDS - t0)) s): $model"
	else
		survived=$((survived + 1))
		echo "not ok - mutant $name ($cfg) SURVIVED the suite and the model ($((SECONDS - t0)) s): $model"
	fi
done
echo "mutants: $killed killed ($model_only by the model only), $survived survived, $broken broken; logs in $LOGDIR"
if [ -n "${MUTANTS_OUT:-}" ]; then
	for name in $names; do
		for f in log console; do
			[ -f "$LOGDIR/$name.$f" ] && cp "$LOGDIR/$name.$f" "$MUTANTS_OUT/raw/"
		done
	done
	python3 - "$MUTANTS_OUT" "$("$TOP/bench/series-hash.sh" "$TOP/patches")" \
		"$(kgit rev-parse "$WORK_BRANCH")" "$(git -C "$TOP" rev-parse HEAD)" \
		"$(tr '\n' ' ' <"$BUILD/base.env" 2>/dev/null)" "$names" <<'PY'
import json, sys
out, series, work, wb, base, names = sys.argv[1:]
json.dump({"instrument": "make mutants: each tests/mutants/NAME.patch built, booted in a "
                         "2-vCPU QEMU/TCG guest (correctness only) and run through the selftests; "
                         "mm/filemap_fast.h mutants also through the userspace model",
           "series_hash": series, "work_commit": work, "workbench_commit": wb,
           "base": base.strip(), "mutants": names.split()},
          open(f"{out}/metadata.json", "w"), indent=1)
PY
	cat >"$MUTANTS_OUT/reproducer.sh" <<REPRO
#!/bin/sh
# From a fresh clone of the workbench at $(git -C "$TOP" rev-parse --short HEAD).
set -e
cd "\$(dirname "\$0")/../.."
git checkout $(git -C "$TOP" rev-parse HEAD)
make deps tree
MUTANTS="$(echo $names)" MUTANTS_OUT=\$PWD/results/rerun-mutants scripts/mutants.sh
REPRO
	chmod +x "$MUTANTS_OUT/reproducer.sh"
fi
[ $survived = 0 ] && [ $broken = 0 ]

#!/usr/bin/env bash
# bench/ab-vm.sh (make bench-ab-vm): patch 6's tmpfs read loop against
# 6.12's in one boot of the x86 guest, THP on and off (bench/ab-guest.sh).
#
#   bench/ab-vm.sh [--rev REV] [--rounds N] [--cpus N] [--out DIR]
#
# The kernel is REV (default branch work) plus bench/uml/ab/knob.patch,
# committed on a detached head in build/linux-ab (the worktree that
# bench/uml/ab/run.sh uses) and built with configs/guest.config as
# build/images/ab/guest/bzImage.  Under TCG (no usable KVM here) the
# ratios compare the emulated cost of two loops, which follows the work
# each does (lookups, locks, copies) but not a real CPU's caches; the
# report says which accelerator ran.  Output (default
# results/<UTC date>-ab-vm/): ab-guest.csv, vm.log, metadata.json,
# report.md.
. "$(dirname "$0")/../scripts/lib.sh"

REV=$WORK_BRANCH ROUNDS=60 CPUS=2 OUT=''
while [ $# -gt 0 ]; do
	case "$1" in
	--rev) REV=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--cpus) CPUS=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h | --help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (bench/ab-vm.sh --help)" ;;
	esac
	shift
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] && [ "$ROUNDS" -le 10000 ] ||
	die "--rounds wants an integer 1..10000, not '$ROUNDS'"
[[ "$CPUS" =~ ^[1-9][0-9]*$ ]] || die "--cpus wants a positive integer, not '$CPUS'"

sha=$(kgit rev-parse --verify "$REV^{commit}" 2>/dev/null) ||
	die "no commit '$REV' in $KSRC (make tree)"
SRC=$BUILD/linux-ab
checkout_worktree "$sha" "$SRC"
git -C "$SRC" apply "$TOP/bench/uml/ab/knob.patch" ||
	die "knob.patch does not apply to $REV: regenerate it (see its header)"
git -C "$SRC" -c user.name=pagecache-rcu -c user.email=pagecache-rcu@example.invalid \
	commit -q -a -m "bench: knob.patch (experiment build, never posted)" \
	--date="$BASE_DATE"
ab=$(git -C "$SRC" rev-parse HEAD)
"$TOP/scripts/build.sh" guest "$ab" ab
make -s -C "$TOP/bench" O="$BUILD/bench"

OUT=${OUT:-$TOP/results/$(date -u +%Y%m%dT%H%M%SZ)-ab-vm}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
T0=$SECONDS
"$TOP/scripts/vm" --kernel "$BUILD/images/ab/guest/bzImage" --cpus "$CPUS" --quiet \
	--out "$OUT" --console-log "$OUT/console.log" --timeout 3600 \
	-- "$TOP/bench/ab-guest.sh" "$ROUNDS" >"$OUT/ab-guest.csv" 2>"$OUT/vm.log" ||
	{ tail -20 "$OUT/vm.log" >&2; die "guest run failed ($OUT/vm.log)"; }
accel="$(grep -o 'accel=[a-z]*' "$OUT/vm.log" | tail -1 || true) $(grep -m1 -o 'falling back to TCG.*' "$OUT/vm.log" || true)"
python3 - "$OUT" "$ROUNDS" "$CPUS" "$((SECONDS - T0))" "$sha" "$accel" <<'EOF'
import json, os, sys
out, rounds, cpus, wall, sha, accel = sys.argv[1:7]
meta = {"kind": "ab-vm", "rounds": int(rounds), "wall_seconds": int(wall), "commit": sha,
        "patch": "bench/uml/ab/knob.patch",
        "guest": f"x86_64 QEMU guest, {cpus} vCPUs, configs/guest.config, 2G",
        "accel_note": accel,
        "variants": {"0": "series", "1": "6.12 shmem loop", "2": "series without filemap_read_hot()"}}
with open(os.path.join(out, "metadata.json"), "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
EOF
python3 "$TOP/bench/uml/ab/report.py" --guest "$OUT"
note "ab-vm: results in $OUT ($((SECONDS - T0)) s in the guest)"

#!/usr/bin/env bash
# make mutants: prove the selftests can fail.  Each tests/mutants/NAME.patch
# breaks the series on purpose (skip the revalidation, ignore i_size, free
# without the RCU deferral, copy from unflagged folios).  For each: commit it
# on top of branch `work` as refs/mutants/NAME (the working tree is not
# touched), build it (guest config, or debug where the patch says
# "# config: debug"), boot it, run the suite.  A mutant the suite does not
# kill is a bug in the suite: exit status 1.
#   MUTANTS="no-defer ignore-isize" make mutants   runs a subset
. "$(dirname "$0")/lib.sh"

LOGDIR=$BUILD/mutants
mkdir -p "$LOGDIR"
killed=0 survived=0 broken=0
names=${MUTANTS:-$(cd "$TOP/tests/mutants" && ls *.patch | sed 's/\.patch$//')}
"$TOP/scripts/selftests.sh" build

for name in $names; do
	patch=$TOP/tests/mutants/$name.patch
	[ -f "$patch" ] || die "no mutant $patch"
	cfg=$(sed -n 's/^# config: //p' "$patch" | head -1)
	cfg=${cfg:-guest}
	t0=$SECONDS
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx kgit read-tree "$WORK_BRANCH"
	if ! GIT_INDEX_FILE=$idx kgit apply --cached "$patch" 2>"$LOGDIR/$name.apply"; then
		rm -f "$idx"
		note "mutant $name: does not apply to $WORK_BRANCH any more (regenerate it): $(head -1 "$LOGDIR/$name.apply")"
		broken=$((broken + 1))
		continue
	fi
	tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
	rm -f "$idx"
	c=$(kgit commit-tree "$tree" -p "$WORK_BRANCH" -m "mutant: $name")
	kgit update-ref "refs/mutants/$name" "$c"
	if ! "$TOP/scripts/build.sh" "$cfg" "refs/mutants/$name" "mutant-$name" >"$LOGDIR/$name.build" 2>&1; then
		note "mutant $name: does not build ($LOGDIR/$name.build)"
		broken=$((broken + 1))
		continue
	fi
	set +e
	"$TOP/scripts/vm" --kernel "$BUILD/images/mutant-$name/$cfg/bzImage" --quiet \
		--cpus 2 --numa 2 --mem 2G --swap 256 --disk ext4 --disk xfs \
		--timeout "${GUEST_TIMEOUT:-1800}" --console-log "$LOGDIR/$name.console" \
		-- "$TOP/scripts/selftests.sh" run >"$LOGDIR/$name.log" 2>&1
	rc=$?
	set -e
	why=$( (grep -E '^not ok ' "$LOGDIR/$name.log"; grep -E '^vm: (error|  )' "$LOGDIR/$name.log") | head -4 | tr '\n' ';' || true)
	if [ $rc = 0 ]; then
		survived=$((survived + 1))
		echo "not ok - mutant $name ($cfg) SURVIVED the suite ($((SECONDS - t0)) s)"
	else
		killed=$((killed + 1))
		echo "ok - mutant $name ($cfg) killed ($((SECONDS - t0)) s): $why"
	fi
done
echo "mutants: $killed killed, $survived survived, $broken broken; logs in $LOGDIR"
[ $survived = 0 ] && [ $broken = 0 ]

# shellcheck shell=bash
# Minimal TAP for the workbench's own tests: t "description" command...
TAP_N=0
TAP_FAIL=0
t() {
	local what=$1 out rc
	shift
	TAP_N=$((TAP_N + 1))
	set +e
	out=$("$@" 2>&1)
	rc=$?
	set -e
	if [ $rc = 0 ]; then
		echo "ok $TAP_N - $what"
	else
		echo "not ok $TAP_N - $what"
		printf '%s\n' "$out" | tail -15 | sed 's/^/# /'
		TAP_FAIL=$((TAP_FAIL + 1))
	fi
}
# expect RC command...: succeed when command exits with RC.
expect() {
	local want=$1 rc
	shift
	set +e
	"$@"
	rc=$?
	set -e
	[ "$rc" = "$want" ] || { echo "exit status $rc, expected $want"; return 1; }
}
# output_has REGEX command...: run, succeed if its output matches.
output_has() {
	local re=$1 out
	shift
	out=$("$@" 2>&1) || true
	printf '%s\n' "$out" | grep -qE -- "$re" || { printf '%s\n' "$out" | tail -20; echo "no match for /$re/"; return 1; }
}
# applies_to_work KSRC PATCH: PATCH applies to branch work of the git tree
# KSRC, checked as scripts/mutants.sh applies a mutant: git apply --cached
# to an index read from work (the working tree is not touched).
applies_to_work() {
	local idx rc=0
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx git -C "$1" read-tree work &&
		GIT_INDEX_FILE=$idx git -C "$1" apply --cached --check "$2" || rc=$?
	rm -f "$idx"
	return $rc
}
tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAIL" = 0 ]
}

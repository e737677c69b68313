#!/usr/bin/env bash
# bench/kernels.sh: build the kernels `make bench-guest` compares and print them as
# KERNELS="LABEL=bzImage ...".  Default: base and final.  BOUNDARIES=all:
# every patch boundary of branch `work` (p1..pN; pN is the final series),
# built with scripts/build.sh into build/images/pK/CONFIG.
. "$(dirname "$0")/../scripts/lib.sh"

cfg=${CONFIG:-guest}
out="base=$BUILD/images/base/$cfg/bzImage"
if [ "${BOUNDARIES:-}" = all ]; then
	k=0
	for sha in $(kgit rev-list --reverse "$BASE_TAG..$WORK_BRANCH"); do
		k=$((k + 1))
		note "bench: building boundary p$k: $(kgit log -1 --format=%s "$sha")"
		"$TOP/scripts/build.sh" "$cfg" "$sha" "p$k" >&2
		out="$out p$k=$BUILD/images/p$k/$cfg/bzImage"
	done
elif [ -n "${BOUNDARIES:-}" ]; then
	die "BOUNDARIES=all or unset, not '$BOUNDARIES'"
else
	out="$out final=$BUILD/images/final/$cfg/bzImage"
fi
echo "$out"

# bench/common.sh: shell steps that bench/run.sh (here, under bash) and the
# KVM bundle's run.sh (on the target, with only bash, coreutils and tar)
# share.  Sourced, not run; POSIX sh plus `local` (bash, dash, busybox).

# merge_csv OUT: OUT/{pread,fio,logreread,gitgrep,compact}.csv from every boot's
# OUT/raw/*/KIND.csv, the header once, rows in boot-folder order.
merge_csv() {
	local kind first f
	for kind in pread fio logreread gitgrep compact; do
		first=1
		: >"$1/$kind.csv"
		for f in "$1"/raw/*/"$kind.csv"; do
			[ -f "$f" ] || continue
			if [ "$first" = 1 ]; then
				cat "$f" >>"$1/$kind.csv"
				first=0
			else
				tail -n +2 "$f" >>"$1/$kind.csv"
			fi
		done
	done
}

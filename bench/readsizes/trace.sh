#!/usr/bin/env bash
# bench/readsizes/trace.sh [WORKLOAD...]: read sizes of real workloads on
# this host's own kernel (issue 43; no patched kernel involved).
#
# Each workload runs twice under strace -ff -y (every process, descriptors
# named); between the runs resident.py records, with mincore(2), which
# pages of the files run 1 read are in the page cache.  analyze.py counts
# run 2: the read sizes returned, the share of reads that hit the page
# cache and that re-read data read before (what the series would flag).
# strace, not bpftrace or perf trace: this host's kernel has no tracefs
# here, and strace sees the file, offset and size of each read.
#
# Workloads: git-grep (a kernel tree), git-log (git log -p of the series
# on it), ripgrep (rg over the tree, --no-ignore-vcs: the tree lies in this
# repository's build/, which its .gitignore hides; a clean tree has
# nothing else to hide), cc-build (make -j2 defconfig scripts,
# a kernel's host programs: cc1, as, ld read their inputs), python-imports
# (20 interpreters importing 12 stdlib modules), sqlite (2000 indexed
# lookups and 20 range scans on a 40 MiB database, the default 2 MiB
# sqlite cache), nginx-sendfile and nginx-read (Debian's nginx serving
# 2000 small files over loopback to a keep-alive client, sendfile on and
# off), tail-log (tail -F following a log a writer appends to every ms).
#
# OUT (default results/<stamp>-readsizes) gets raw/<workload>.tar.xz with
# both runs' traces and the residency, readsizes.csv, summary.csv, report.md,
# metadata.json and reproducer.sh.
. "$(dirname "$0")/../../scripts/lib.sh"

ALL="git-grep git-log ripgrep cc-build python-imports sqlite nginx-sendfile nginx-read tail-log"
[ "${1:-}" = --help ] && { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0; }
WORKLOADS=${*:-$ALL}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$TOP/results/$stamp-readsizes}
W=$BUILD/readsizes
mkdir -p "$OUT/raw" "$W"
KTREE=$W/linux
SYSCALLS=open,openat,openat2,creat,close,lseek,dup,dup2,dup3,fcntl,read,pread64,readv,preadv,preadv2,write,pwrite64,writev,pwritev,pwritev2,mmap,sendfile,splice,copy_file_range,io_uring_enter
PY=/usr/bin/python3
STRACE_EXTRA=

need() {
	local missing=()
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
	[ ${#missing[@]} = 0 ] && return
	note "readsizes: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		die "cannot install ${missing[*]}"
}

ktree() {
	[ -d "$KTREE/.git" ] && return
	[ -d "$KSRC/.git" ] || die "no kernel tree at $KSRC (make tree)"
	note "readsizes: cloning $KSRC into $KTREE (shared objects)"
	git clone -q --shared --no-checkout "$KSRC" "$KTREE"
	git -C "$KTREE" checkout -q -B work origin/work
	git -C "$KTREE" fetch -q origin "refs/tags/base:refs/tags/base"
}

# traced RUN CMD...: run CMD under strace into $dir/RUN.<pid>.
traced() {
	local run=$1
	shift
	# shellcheck disable=SC2086
	timeout 600 strace -ff -y -qq -s 0 -e trace=$SYSCALLS -e signal=none $STRACE_EXTRA \
		-o "$dir/$run" "$@" >/dev/null 2>>"$dir/stderr.txt" || note "readsizes: $wl $run exited $?"
}

resident() {
	"$PY" "$TOP/bench/readsizes/analyze.py" --files "$dir"/run1.* |
		"$PY" "$TOP/bench/readsizes/resident.py" >"$dir/resident.txt"
}

nginx_conf() {
	mkdir -p "$W/www" "$W/nginx"
	if [ ! -f "$W/www/f1999" ]; then
		"$PY" - "$W/www" <<'EOF'
import os, random, sys
random.seed(43)
for i in range(2000):
    with open(os.path.join(sys.argv[1], f"f{i}"), "wb") as f:
        f.write(os.urandom(random.choice([512, 1024, 2048, 4096, 8192, 16384])))
EOF
	fi
	cat >"$W/nginx/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1; error_log $W/nginx/error.log; pid $W/nginx/pid;
events { worker_connections 64; }
http { access_log off; sendfile $1; server { listen 127.0.0.1:18043; root $W/www; } }
EOF
}

client() {
	"$PY" - <<'EOF'
import http.client, random, time
random.seed(7)
for _ in range(100):
    try:
        c = http.client.HTTPConnection("127.0.0.1", 18043, timeout=10); c.connect(); break
    except OSError:
        time.sleep(0.1)
names = [f"f{int(random.paretovariate(1.2)) % 2000}" for _ in range(5000)]
for n in names:
    c.request("GET", "/" + n); c.getresponse().read()
EOF
}

run_workload() {
	local run=$1
	case $wl in
	git-grep) traced "$run" git -C "$KTREE" grep -n -e folio_try_get -e rcu_read_lock ;;
	git-log) traced "$run" git -C "$KTREE" log -p base..work ;;
	ripgrep) traced "$run" rg -n --no-ignore-vcs -e folio_try_get -e rcu_read_lock "$KTREE" ;;
	cc-build)
		rm -rf "$W/cc-obj"
		traced "$run" make -s -C "$KTREE" O="$W/cc-obj" -j2 defconfig scripts
		;;
	python-imports)
		# shellcheck disable=SC2016
		traced "$run" sh -c 'for i in $(seq 20); do /usr/bin/python3 -c "import json, email.parser, http.server, sqlite3, asyncio, unittest, xml.etree.ElementTree, decimal, argparse, logging, subprocess, csv"; done' ;;
	sqlite) traced "$run" sqlite3 "$W/db.sqlite" ".read $W/queries.sql" ;;
	nginx-sendfile | nginx-read)
		nginx_conf "$([ "$wl" = nginx-sendfile ] && echo on || echo off)"
		(traced "$run" nginx -c "$W/nginx/nginx.conf") &
		client
		kill "$(cat "$W/nginx/pid")" 2>/dev/null || true
		wait
		;;
	tail-log)
		# Only the log's system calls: not the writer's own start-up.
		: >"$W/app.log"
		STRACE_EXTRA="-P $W/app.log" traced "$run" sh -c "timeout 6 tail -n 0 -F $W/app.log & $PY $TOP/bench/readsizes/logwriter.py $W/app.log; wait"
		;;
	*) die "unknown workload '$wl' ($ALL)" ;;
	esac
}

prepare() {
	case $wl in
	git-grep | git-log | ripgrep | cc-build) ktree ;;
	esac
	case $wl in
	ripgrep) need ripgrep ;;
	nginx-*) need nginx-light ;;
	sqlite)
		need sqlite3
		[ -f "$W/db.sqlite" ] || "$PY" - "$W/db.sqlite" <<'EOF'
import random, sqlite3, sys
random.seed(1)
db = sqlite3.connect(sys.argv[1])
db.execute("create table t (id integer primary key, k integer, v text)")
db.executemany("insert into t (k, v) values (?, ?)",
               ((random.randrange(10**9), "x" * random.randrange(50, 250)) for _ in range(250000)))
db.execute("create index tk on t(k)")
db.commit()
EOF
		"$PY" - "$W/queries.sql" <<'EOF'
import random, sys
random.seed(2)
with open(sys.argv[1], "w") as f:
    for i in range(2000):
        f.write(f"select v from t where id = {random.randrange(1, 250001)};\n")
    for i in range(20):
        a = random.randrange(10**9)
        f.write(f"select count(*), sum(length(v)) from t where k between {a} and {a + 10**7};\n")
EOF
		;;
	esac
}

need strace
for wl in $WORKLOADS; do
	dir=$OUT/raw/$wl
	rm -rf "$dir"
	mkdir -p "$dir"
	prepare
	t0=$SECONDS
	run_workload run1
	resident
	run_workload run2
	note "readsizes: $wl: $((SECONDS - t0)) s, $(cat "$dir"/run2.* | wc -l) trace lines"
done
# shellcheck disable=SC2086
"$PY" "$TOP/bench/readsizes/analyze.py" "$OUT" $WORKLOADS >/dev/null
# One xz archive per workload (its many per-process traces compress ten
# times better together): tar -xJf raw/WORKLOAD.tar.xz -C raw, then
# analyze.py OUT WORKLOAD... counts them again.
for wl in $WORKLOADS; do
	XZ_OPT=-9 tar -C "$OUT/raw" -cJf "$OUT/raw/$wl.tar.xz" "$wl"
	rm -rf "${OUT:?}/raw/$wl"
done
"$PY" - "$OUT" "$WORKLOADS" <<'EOF'
import json, os, platform, subprocess, sys
out, wls = sys.argv[1], sys.argv[2].split()
ver = lambda *c: subprocess.run(c, capture_output=True, text=True).stdout.splitlines()[:1]
json.dump({"kind": "readsizes", "instrument": "strace -ff -y on the host's own kernel "
           "(no patched kernel), two runs per workload, run 2 counted",
           "workloads": wls, "host_kernel": platform.release(), "host_cpus": os.cpu_count(),
           "strace": ver("strace", "-V"), "series_hash": "host"},
          open(os.path.join(out, "metadata.json"), "w"), indent=2)
EOF
{
	echo '#!/bin/sh'
	echo "# Re-run at the top of a fresh clone of the workbench."
	echo 'set -e'
	echo "git checkout $(git -C "$TOP" rev-parse HEAD)"
	echo 'make deps tree'
	echo "bench/readsizes/trace.sh $WORKLOADS"
} >"$OUT/reproducer.sh"
chmod +x "$OUT/reproducer.sh"
cat "$OUT/report.md"

// SPDX-License-Identifier: GPL-2.0
/*
 * compact: do huge page allocations fail more often because deferred
 * folios delay the freeing of their pageblocks?  (The series' freeing after
 * an RCU grace period leaves a migrated or truncated PG_rcu_free folio
 * allocated until the grace period ends, so a pageblock that compaction
 * just emptied is not free yet.)
 *
 * 1. Fragment: write a file of -f bytes in -d DIR, read it twice (the
 *    second read marks its folios PG_rcu_free on a kernel with the series)
 *    and punch out every other page, so that every pageblock the file
 *    holds keeps half of its pages: a 2 MiB page exists only after
 *    compaction migrates them (and migration frees the old, marked folios
 *    through the deferral).
 * 2. P storm processes (storm_files() in bench.h) free marked folios all
 *    the time, while this process faults in -n anonymous 2 MiB regions
 *    with MADV_HUGEPAGE (default: twice what -a holds), one at a time,
 *    keeping up to -a bytes of them mapped, then unmapping them all and
 *    starting again; -D seconds is a cap.  A fixed number of faults, not a
 *    fixed time, so that kernels that fault at different speeds are asked
 *    for the same work.
 *    With transparent_hugepage/defrag "always" (set by the caller), each
 *    fault compacts directly when no free 2 MiB block exists.
 * 3. From /proc/vmstat deltas: how many of those faults got a huge page
 *    (thp_fault_alloc) and how many fell back to small pages
 *    (thp_fault_fallback), the direct compactions (compact_stall) and how
 *    they ended (compact_fail, compact_success), and the pages the series
 *    deferred (pgcache_rcu_deferred, 0 without the series).  Also the peak
 *    of deferred minus freed pages, sampled at every fault.
 *
 * Output: one CSV line (-H prints the header first)
 *   fs,procs,seconds,faults,thp_alloc,thp_fallback,fallback_pct,
 *   compact_stall,compact_fail,compact_success,deferred_kib,peak_held_kib
 * The faults counted are this process's; the vmstat deltas are the
 * system's, so nothing else should fault huge pages meanwhile.
 * Exit status 2, with a message, on a kernel without THP counters.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_PROCS	64
#define HPAGE		(2UL << 20)

struct counter {
	uint64_t n;
	char pad[CACHELINE - sizeof(uint64_t)];
};

struct shared {
	struct bench_ctl ctl;
	struct counter files[MAX_PROCS];
};

enum { THP_ALLOC, THP_FALLBACK, STALL, FAIL, SUCCESS, DEFERRED, FREED, NR_STATS };
static const char *const stat_names[NR_STATS] = {
	"thp_fault_alloc", "thp_fault_fallback", "compact_stall",
	"compact_fail", "compact_success", "pgcache_rcu_deferred",
	"pgcache_rcu_freed",
};

/* The NR_STATS counters of /proc/vmstat; -1 for one that is missing. */
static void vmstat(int fd, long long *v)
{
	static char buf[16384];
	char key[64], *p;
	ssize_t n;
	int i;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		die("read /proc/vmstat: %s", n ? strerror(errno) : "empty");
	buf[n] = 0;
	for (i = 0; i < NR_STATS; i++) {
		snprintf(key, sizeof(key), "\n%s ", stat_names[i]);
		p = strstr(buf, key);
		v[i] = p ? strtoll(p + strlen(key), NULL, 10) : -1;
	}
}

/* Step 1: a file of @size bytes whose every other page is a hole. */
static char fill_path[4096];

static void fragment(const char *dir, size_t size)
{
	char *path = fill_path, *buf;
	size_t page = getpagesize(), off, chunk = 1 << 20;
	int fd;

	snprintf(path, sizeof(fill_path), "%s/compact.fill", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	buf = malloc(chunk);
	if (!buf)
		die("out of memory");
	memset(buf, 0x3c, chunk);
	for (off = 0; off < size; off += chunk)
		if (pwrite(fd, buf, chunk, off) != (ssize_t)chunk)
			die("write %s: %s", path, strerror(errno));
	for (int pass = 0; pass < 2; pass++)
		for (off = 0; off < size; off += chunk)
			if (pread(fd, buf, chunk, off) != (ssize_t)chunk)
				die("read %s: %s", path, strerror(errno));
	for (off = page; off < size; off += 2 * page)
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, page))
			die("punch %s: %s", path, strerror(errno));
	free(buf);
	close(fd);
	/* Kept until the end: its pages are what compaction has to move. */
}

static void usage(void)
{
	fprintf(stderr,
		"usage: compact -d DIR [-P procs] [-n faults] [-D seconds at most] [-s storm file size]\n"
		"               [-f fragmented file size] [-a huge bytes mapped at most] [-H]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	long long v0[NR_STATS], v[NR_STATS], held0, peak = 0;
	size_t fsize = 256 << 10, fill = 256 << 20, amax = 256 << 20, nmap;
	size_t chunk = 1 << 20;
	double duration = 60, t0, t;
	long procs = 2, i, faults = 0, nfaults = 0;
	const char *dir = NULL;
	bool header = false;
	pid_t pids[MAX_PROCS];
	struct shared *sh;
	char **maps;
	int c, vfd, kib = getpagesize() / 1024;

	while ((c = getopt(argc, argv, "d:P:n:D:s:f:a:H")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'P': procs = parse_long('P', optarg, 0, MAX_PROCS); break;
		case 'n': nfaults = parse_long('n', optarg, 1, 1L << 30); break;
		case 'D': duration = parse_double('D', optarg, 0.01); break;
		case 's': fsize = parse_size('s', optarg); break;
		case 'f': fill = parse_size('f', optarg); break;
		case 'a': amax = parse_size('a', optarg); break;
		case 'H': header = true; break;
		default: usage();
		}
	}
	if (!dir || optind != argc)
		usage();
	if (!fsize || fsize > (1ULL << 30))
		die("-s: from 1 byte to 1 GiB");
	if (amax < HPAGE)
		die("-a: at least 2m");
	fill = (fill + chunk - 1) / chunk * chunk;
	vfd = open("/proc/vmstat", O_RDONLY);
	if (vfd < 0)
		die("open /proc/vmstat: %s", strerror(errno));
	vmstat(vfd, v0);
	if (v0[THP_ALLOC] < 0 || v0[THP_FALLBACK] < 0 || v0[STALL] < 0) {
		fprintf(stderr, "compact: no thp_fault_alloc/compact_stall in /proc/vmstat: a kernel without THP or compaction\n");
		return 2;
	}
	nmap = amax / HPAGE;
	if (!nfaults)
		nfaults = 2 * nmap;
	maps = calloc(nmap, sizeof(*maps));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!maps || sh == MAP_FAILED)
		die("out of memory");
	ctl = &sh->ctl;

	fragment(dir, fill);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork: %s", strerror(errno));
		if (!pids[i]) {
			storm_files(dir, "compact", i, fsize, &sh->files[i].n);
			exit(0);
		}
	}
	vmstat(vfd, v0);
	held0 = v0[DEFERRED] - v0[FREED];
	WRITE_ONCE(ctl->start, 1);
	t0 = now();
	for (size_t k = 0; !READ_ONCE(ctl->stop); k = (k + 1) % nmap) {
		char *p;

		if (faults >= nfaults || now() - t0 >= duration)
			break;
		if (k == 0)
			for (size_t j = 0; j < nmap; j++)
				if (maps[j]) {
					munmap(maps[j], HPAGE);
					maps[j] = NULL;
				}
		/* 4 MiB, then the 2 MiB-aligned middle of it. */
		p = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		{
			char *a = (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));

			if (a > p)
				munmap(p, a - p);
			if (a + HPAGE < p + 2 * HPAGE)
				munmap(a + HPAGE, p + 2 * HPAGE - (a + HPAGE));
			p = a;
		}
		if (madvise(p, HPAGE, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
		p[0] = 1;	/* the fault: a huge page, or a fallback */
		maps[k] = p;
		faults++;
		vmstat(vfd, v);
		if (v[DEFERRED] - v[FREED] - held0 > peak)
			peak = v[DEFERRED] - v[FREED] - held0;
	}
	WRITE_ONCE(ctl->stop, 1);
	t = now() - t0;
	for (i = 0; i < procs; i++) {
		int status;

		waitpid(pids[i], &status, 0);
	}
	exit_if_failed();
	vmstat(vfd, v);
	for (size_t j = 0; j < nmap; j++)
		if (maps[j])
			munmap(maps[j], HPAGE);
	unlink(fill_path);
	{
		long long a = v[THP_ALLOC] - v0[THP_ALLOC];
		long long f = v[THP_FALLBACK] - v0[THP_FALLBACK];

		if (header)
			printf("fs,procs,seconds,faults,thp_alloc,thp_fallback,fallback_pct,"
			       "compact_stall,compact_fail,compact_success,deferred_kib,peak_held_kib\n");
		printf("%s,%ld,%.3f,%ld,%lld,%lld,%.1f,%lld,%lld,%lld,%lld,%lld\n",
		       fs_name(dir), procs, t, faults, a, f,
		       a + f ? 100.0 * f / (a + f) : 0.0,
		       v[STALL] - v0[STALL], v[FAIL] - v0[FAIL],
		       v[SUCCESS] - v0[SUCCESS],
		       v0[DEFERRED] < 0 ? 0 : (v[DEFERRED] - v0[DEFERRED]) * kib,
		       v0[DEFERRED] < 0 ? 0 : peak * kib);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * heldback: how much memory the series' deferred freeing holds back during
 * a truncate storm, sampled every millisecond.
 *
 * P storm processes (storm_files() in bench.h) each loop: create a file in
 * -d DIR, write -s bytes, read them twice (the second read marks the folios
 * PG_rcu_free), truncate the file to zero and unlink it, so that every
 * folio of it is freed through the RCU deferral.  The parent
 * samples pgcache_rcu_deferred - pgcache_rcu_freed in /proc/vmstat (pages
 * deferred and not yet freed) every -i microseconds for -D seconds, stops
 * the storm and keeps sampling until the difference is back where it was
 * before the storm (or -T seconds pass).
 *
 * Output: one CSV line (-H prints the header first)
 *   fs,procs,seconds,files,deferred_kib,samples,max_gap_us,peak_kib,
 *   median_kib,back_us,expedited,throttled,limit_kib,bound_kib,bound_held
 * deferred_kib: what was deferred during the storm in all; peak_kib and median_kib:
 * of the samples during the storm, above the level before it; max_gap_us:
 * the longest time between two samples (a late sampler misses peaks);
 * back_us: from the end of the storm to the first sample at or below the
 * level before it, -1 if that did not happen within -T seconds;
 * expedited: batches that passed mm/rcu_free.c's limit on the pages in
 * flight (pgcache_rcu_expedited, 0 on kernels without it); throttled:
 * times a freeing task waited past that limit (pgcache_rcu_throttled, 0
 * without it); limit_kib: that limit, 1/256 of MemTotal and at least
 * 8 MiB; bound_kib: the bound that the
 * series states for what waits for a grace period (deferred and not
 * freed) while only paths that wait past the limit free flagged folios:
 * the limit, plus one chain per possible CPU (2 MiB plus one folio), plus
 * one batch of freed folios per storm process (a folio batch of 31 folios,
 * here at most the file: a storm file's folios are no larger than it);
 * bound_held: 1 if every sample, before the storm's level is taken off,
 * was at or under bound_kib, else 0.
 * Exit status 2, with a message, on a kernel without the counters.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_PROCS	512
#define MAX_SAMPLES	(1 << 20)

struct counter {
	uint64_t n;
	char pad[CACHELINE - sizeof(uint64_t)];
};

struct shared {
	struct bench_ctl ctl;
	struct counter files[MAX_PROCS];
};

static struct shared *sh;
static const char *dir;
static size_t fsize = 256 << 10;

/*
 * pgcache_rcu_expedited (batches) and pgcache_rcu_throttled at the last
 * held_pages(), 0 if absent.
 */
static long long expedited, throttled;

/*
 * pgcache_rcu_deferred - pgcache_rcu_freed in @held, pgcache_rcu_deferred
 * in @deferred (pages); false if the counters are missing.
 */
static bool held_pages(int fd, long long *held, long long *deferred)
{
	static char buf[16384];
	long long d = -1, f = -1;
	ssize_t n;
	char *p;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		die("read /proc/vmstat: %s", n ? strerror(errno) : "empty");
	buf[n] = 0;
	p = strstr(buf, "\npgcache_rcu_deferred ");
	if (p)
		d = strtoll(p + 22, NULL, 10);
	p = strstr(buf, "\npgcache_rcu_freed ");
	if (p)
		f = strtoll(p + 19, NULL, 10);
	p = strstr(buf, "\npgcache_rcu_expedited ");
	expedited = p ? strtoll(p + 23, NULL, 10) : 0;
	p = strstr(buf, "\npgcache_rcu_throttled ");
	throttled = p ? strtoll(p + 23, NULL, 10) : 0;
	if (d < 0 || f < 0)
		return false;
	*held = d - f;
	*deferred = d;
	return true;
}

static void storm(int id)
{
	storm_files(dir, "held", id, fsize, &sh->files[id].n);
	exit(0);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: heldback -d DIR [-P procs] [-D seconds] [-s file size] [-i interval_us]\n"
		"                [-T seconds to wait after] [-H]\n");
	exit(1);
}

/*
 * mm/rcu_free.c's limit on the pages in flight, in KiB: 1/256 of RAM, at
 * least 8 MiB (from MemTotal, which is what it reads at boot, less what
 * the kernel took since).
 */
static long long limit_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long long total = 0, b;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %lld kB", &total) == 1)
			break;
	if (f)
		fclose(f);
	b = total / 256;
	return b > 8192 ? b : 8192;
}

/*
 * The stated bound on what waits for a grace period during the storm, in
 * KiB (see the top of this file): the limit, a chain per possible CPU, and
 * a batch per storm process.
 */
static long long bound_kib(long procs)
{
	long long file_kib = (fsize + 1023) / 1024;
	long long folio_kib = file_kib < 2048 ? file_kib : 2048;
	long long batch_kib = 31 * folio_kib < file_kib ? 31 * folio_kib :
			      file_kib;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	return limit_kib() + (cpus > 0 ? cpus : 1) * (2048 + folio_kib) +
	       procs * batch_kib;
}

int main(int argc, char **argv)
{
	long long held0, held, peak = 0, *samples, d0, d1, d, e0, t0, bound;
	double duration = 3, settle = 10, t, last, maxgap = 0, end, back = -1;
	long interval = 1000, nsamples = 0, procs = 1, i;
	uint64_t files = 0;
	bool header = false, bound_held = true;
	pid_t pids[MAX_PROCS];
	int c, vfd;

	while ((c = getopt(argc, argv, "d:P:D:s:i:T:H")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'P': procs = parse_long('P', optarg, 1, MAX_PROCS); break;
		case 'D': duration = parse_double('D', optarg, 0.01); break;
		case 's': fsize = parse_size('s', optarg); break;
		case 'i': interval = parse_long('i', optarg, 10, 1000000); break;
		case 'T': settle = parse_double('T', optarg, 0.01); break;
		case 'H': header = true; break;
		default: usage();
		}
	}
	if (!dir || optind != argc)
		usage();
	if (!fsize || fsize > (1ULL << 30))
		die("-s: from 1 byte to 1 GiB");
	vfd = open("/proc/vmstat", O_RDONLY);
	if (vfd < 0)
		die("open /proc/vmstat: %s", strerror(errno));
	if (!held_pages(vfd, &held0, &d0)) {
		fprintf(stderr, "heldback: no pgcache_rcu_deferred/freed in /proc/vmstat: not a kernel with the series\n");
		return 2;
	}
	samples = malloc(sizeof(*samples) * MAX_SAMPLES);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!samples || sh == MAP_FAILED)
		die("out of memory");
	ctl = &sh->ctl;
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork: %s", strerror(errno));
		if (!pids[i])
			storm(i);
	}
	held_pages(vfd, &held0, &d0);
	e0 = expedited;
	t0 = throttled;
	bound = bound_kib(procs) / (getpagesize() / 1024);
	WRITE_ONCE(sh->ctl.start, 1);
	t = last = now();
	end = t + duration;
	/* Sample on a fixed grid: a late sample does not shift the next. */
	for (i = 1; ; i++) {
		double next = t + i * interval / 1e6, n2 = now();

		if (next > n2)
			sleep_for(next - n2);
		n2 = now();
		if (n2 - last > maxgap)
			maxgap = n2 - last;
		last = n2;
		held_pages(vfd, &held, &d);
		if (nsamples < MAX_SAMPLES)
			samples[nsamples++] = held - held0;
		if (held - held0 > peak)
			peak = held - held0;
		if (held > bound)
			bound_held = false;
		if (n2 >= end || READ_ONCE(sh->ctl.stop))
			break;
	}
	WRITE_ONCE(sh->ctl.stop, 1);
	end = now();
	for (i = 0; i < procs; i++) {
		int status;

		waitpid(pids[i], &status, 0);
		files += READ_ONCE(sh->files[i].n);
	}
	exit_if_failed();
	held_pages(vfd, &held, &d1);
	/* Back to the level before the storm? */
	do {
		held_pages(vfd, &held, &d);
		if (held <= held0) {
			back = now() - end;
			break;
		}
		usleep(interval);
	} while (now() - end < settle);
	qsort(samples, nsamples, sizeof(*samples), cmp_ll);
	if (header)
		printf("fs,procs,seconds,files,deferred_kib,samples,max_gap_us,peak_kib,median_kib,back_us,expedited,throttled,limit_kib,bound_kib,bound_held\n");
	printf("%s,%ld,%.3f,%llu,%llu,%ld,%.0f,%lld,%lld,%.0f,%lld,%lld,%lld,%lld,%d\n", fs_name(dir),
	       procs, end - t, (unsigned long long)files,
	       (unsigned long long)(d1 - d0) * (getpagesize() / 1024), nsamples,
	       maxgap * 1e6, peak * (long long)(getpagesize() / 1024),
	       (nsamples ? samples[nsamples / 2] : 0) *
	       (long long)(getpagesize() / 1024),
	       back < 0 ? -1 : back * 1e6, expedited - e0, throttled - t0,
	       limit_kib(), bound_kib(procs), bound_held);
	return 0;
}

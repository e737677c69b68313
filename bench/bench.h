/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h: what the benchmark programs (pread.c, logreread.c, heldback.c,
 * compact.c) share: the start/stop/failure block their workers see through
 * MAP_SHARED memory, the error exits, the clock, the file system name,
 * strict option parsing (a malformed number is an error, never a silent 0)
 * and the truncate storm.
 *
 * Each program is one translation unit that includes this header once, so
 * the helpers are static; the ones a program may not call are static inline
 * so that -Wunused-function stays quiet.
 */
#ifndef BENCH_H
#define BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Per-worker counters sit on their own cache lines (128: adjacent-line prefetch). */
#define CACHELINE	128

/*
 * The parent and its workers share this block.  The parent waits until
 * `ready` counts every worker, sets `start`, measures, sets `stop`.  The
 * first worker to fail records its message in `msg` and sets `stop`.
 */
struct bench_ctl {
	int start;
	int stop;
	int failed;
	int ready;
	char msg[256];
};

/* Set by the program once its shared memory is mapped. */
static struct bench_ctl *ctl __attribute__((unused));

/* Errors are "PROGRAM: error: ..." on stderr and exit status 1. */
static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Worker failure: record the first message, tell everyone to stop. */
static inline void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	if (!__sync_lock_test_and_set(&ctl->failed, 1)) {
		va_start(ap, fmt);
		vsnprintf(ctl->msg, sizeof(ctl->msg), fmt, ap);
		va_end(ap);
	}
	WRITE_ONCE(ctl->stop, 1);
}

/* Exit 1 with the recorded worker failure, if there was one. */
static inline void exit_if_failed(void)
{
	if (READ_ONCE(ctl->failed)) {
		fprintf(stderr, "%s: error: %s\n", program_invocation_short_name, ctl->msg);
		exit(1);
	}
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void sleep_for(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The fs column of the CSV, from statfs() of the benchmark directory. */
static inline const char *fs_name(const char *dir)
{
	struct statfs st;

	if (statfs(dir, &st))
		die("statfs %s: %s", dir, strerror(errno));
	switch ((unsigned long)st.f_type) {
	case 0x01021994:
		return "tmpfs";
	case 0xEF53:
		return "ext4";
	case 0x58465342:
		return "xfs";
	case 0x9123683E:
		return "btrfs";
	case 0x01021997:
		return "9p";
	default:
		return "other";
	}
}

/* -X N: a whole decimal number in [min, max], or die naming the option. */
static inline long parse_long(char opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		die("-%c '%s': a whole number from %ld to %ld", opt, s, min, max);
	return v;
}

/* -X SEC: a finite decimal number >= min, or die naming the option. */
static inline double parse_double(char opt, const char *s, double min)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min) || v > 1e9)
		die("-%c '%s': a number of at least %g", opt, s, min);
	return v;
}

/* -X SIZE: bytes, with an optional k, m or g suffix (powers of 1024). */
static inline unsigned long long parse_size(char opt, const char *s)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	}
	if (errno || end == s || *end || *s == '-' || v > (~0ULL >> shift))
		die("-%c '%s': a size in bytes, with an optional k, m or g suffix", opt, s);
	return v << shift;
}

/*
 * The truncate storm of heldback.c and compact.c, one process of it: from
 * ctl->start to ctl->stop, create a file in @dir, write @fsize bytes, read
 * them twice (the second read finds the folios referenced, which marks them
 * PG_rcu_free on a kernel with the series), truncate it to zero and unlink
 * it, so that every folio of it is freed (through the RCU deferral where
 * marked).  Files done are stored in *@files; a failure goes to fail().
 */
static inline void storm_files(const char *dir, const char *tag, int id,
			       size_t fsize, uint64_t *files)
{
	char path[4096], *data = malloc(fsize), *back = malloc(fsize);
	uint64_t n = 0;

	if (!data || !back) {
		fail("storm %d: out of memory", id);
		return;
	}
	memset(data, 0x5a ^ id, fsize);
	while (!READ_ONCE(ctl->start))
		usleep(100);
	while (!READ_ONCE(ctl->stop)) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s.%d.%llu", dir, tag, id,
			 (unsigned long long)n);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) {
			fail("create %s: %s", path, strerror(errno));
			break;
		}
		if (pwrite(fd, data, fsize, 0) != (ssize_t)fsize ||
		    pread(fd, back, fsize, 0) != (ssize_t)fsize ||
		    pread(fd, back, fsize, 0) != (ssize_t)fsize ||
		    ftruncate(fd, 0) || unlink(path)) {
			fail("storm on %s: %s", path, strerror(errno));
			close(fd);
			break;
		}
		close(fd);
		WRITE_ONCE(*files, ++n);
	}
	free(data);
	free(back);
}

#endif /* BENCH_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * logreread: many processes append 64-byte records to one log file while
 * many others re-read recently written (so cached, hot) records - the
 * workload Matthew Wilcox described for the lockless page-cache read:
 * millions of 64-byte re-reads of recent entries.
 *
 * W writer processes each append records with O_APPEND write() at up to
 * -r records per second; R reader processes stat the file every 64 reads
 * and pread() one record among the last -n written ones.  Every record
 * carries its writer, sequence number and a checksum: a reader that finds a
 * record it reads torn, short or wrong stops the run with exit status 1.
 *
 * Output: one CSV line
 *   fs,writers,readers,reads,writes,seconds,reads_per_sec,writes_per_sec
 * (-H prints the header first).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define REC		64
#define MAGIC		0x6c6f677265633634ULL	/* "logrec64" */
#define MAX_PROCS	512

struct record {
	uint64_t magic;
	uint64_t writer;
	uint64_t seq;
	uint64_t payload[4];
	uint64_t sum;
};

struct counter {
	uint64_t n;
	char pad[CACHELINE - sizeof(uint64_t)];
};

struct shared {
	struct bench_ctl ctl;
	struct counter reads[MAX_PROCS];
	struct counter writes[MAX_PROCS];
};

static struct shared *sh;
static const char *path;
static int writers = 1, readers = 1, recent = 1024;
static double rate = 20000, duration = 5, warmup = 1;

_Static_assert(sizeof(struct record) == REC, "record is 64 bytes");

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t record_sum(const struct record *r)
{
	uint64_t s = mix(r->magic ^ mix(r->writer) ^ mix(r->seq + 1));
	int i;

	for (i = 0; i < 4; i++)
		s = mix(s ^ r->payload[i]);
	return s;
}

static void fill(struct record *r, uint64_t writer, uint64_t seq)
{
	int i;

	r->magic = MAGIC;
	r->writer = writer;
	r->seq = seq;
	for (i = 0; i < 4; i++)
		r->payload[i] = mix(writer * 1000003 + seq * 4 + i);
	r->sum = record_sum(r);
}

static bool valid(const struct record *r)
{
	int i;

	if (r->magic != MAGIC || r->sum != record_sum(r))
		return false;
	for (i = 0; i < 4; i++)
		if (r->payload[i] != mix(r->writer * 1000003 + r->seq * 4 + i))
			return false;
	return true;
}

static void writer(int id)
{
	struct record r;
	uint64_t seq = 0;
	double t0, gap = rate > 0 ? 1.0 / rate : 0;
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0) {
		fail("writer %d: open %s: %s", id, path, strerror(errno));
		return;
	}
	__sync_fetch_and_add(&ctl->ready, 1);
	while (!READ_ONCE(ctl->start))
		sleep_for(0.0001);
	t0 = now();
	while (!READ_ONCE(ctl->stop)) {
		fill(&r, id, seq);
		if (write(fd, &r, REC) != REC) {
			fail("writer %d: append: %s", id, strerror(errno));
			break;
		}
		seq++;
		WRITE_ONCE(sh->writes[id].n, sh->writes[id].n + 1);
		/* Pace to the rate: sleep when ahead of schedule. */
		if (gap > 0) {
			double ahead = t0 + seq * gap - now();

			if (ahead > 0.0005)
				sleep_for(ahead);
		}
	}
	close(fd);
}

static void reader(int id)
{
	uint64_t x = mix(id + 12345), nrec = 0, reads = 0;
	struct record r;
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fail("reader %d: open %s: %s", id, path, strerror(errno));
		return;
	}
	__sync_fetch_and_add(&ctl->ready, 1);
	while (!READ_ONCE(ctl->start))
		sleep_for(0.0001);
	while (!READ_ONCE(ctl->stop)) {
		uint64_t idx;
		ssize_t n;

		if ((reads++ & 63) == 0) {
			if (fstat(fd, &st)) {
				fail("reader %d: fstat: %s", id, strerror(errno));
				break;
			}
			nrec = st.st_size / REC;
			if (st.st_size % REC) {
				fail("reader %d: log size %lld is not a multiple of %d",
				     id, (long long)st.st_size, REC);
				break;
			}
		}
		x = mix(x);
		idx = nrec - 1 - x % (nrec < (uint64_t)recent ? nrec : (uint64_t)recent);
		n = pread(fd, &r, REC, idx * REC);
		if (n != REC) {
			fail("reader %d: read of record %llu returned %zd (%s)", id,
			     (unsigned long long)idx, n, n < 0 ? strerror(errno) : "short");
			break;
		}
		if (!valid(&r)) {
			fail("reader %d: record %llu is corrupt (writer %llu seq %llu)",
			     id, (unsigned long long)idx,
			     (unsigned long long)r.writer, (unsigned long long)r.seq);
			break;
		}
		WRITE_ONCE(sh->reads[id].n, sh->reads[id].n + 1);
	}
	close(fd);
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
"usage: logreread -d DIR [options]\n"
"  -d DIR    directory for the log (required)\n"
"  -f NAME   fs column (default: from statfs of DIR)\n"
"  -W N      writer processes (default 1)\n"
"  -R N      reader processes (default 1)\n"
"  -r RATE   records per second per writer, 0 = unlimited (default 20000)\n"
"  -n N      readers pick among the last N records (default 1024)\n"
"  -D SEC    measured duration (default 5)\n"
"  -w SEC    warm-up (default 1)\n"
"  -H        print the CSV header first\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	static char buf[4096];
	uint64_t r0 = 0, r1 = 0, w0 = 0, w1 = 0;
	const char *dir = NULL, *fs = NULL;
	pid_t pids[2 * MAX_PROCS];
	bool header = false;
	int c, i, n, fd, status;
	double t0, t1;

	while ((c = getopt(argc, argv, "d:f:W:R:r:n:D:w:Hh")) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'f':
			fs = optarg;
			break;
		case 'W':
			writers = parse_long('W', optarg, 1, MAX_PROCS);
			break;
		case 'R':
			readers = parse_long('R', optarg, 0, MAX_PROCS);
			break;
		case 'r':
			rate = parse_double('r', optarg, 0);
			break;
		case 'n':
			recent = parse_long('n', optarg, 1, 1 << 24);
			break;
		case 'D':
			duration = parse_double('D', optarg, 0.001);
			break;
		case 'w':
			warmup = parse_double('w', optarg, 0);
			break;
		case 'H':
			header = true;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (!dir || optind != argc)
		usage(2);
	if (!fs)
		fs = fs_name(dir);
	snprintf(buf, sizeof(buf), "%s/logreread.log", dir);
	path = buf;

	/* Start with `recent` records written and read twice: they are hot. */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	for (i = 0; i < recent; i++) {
		struct record r;

		fill(&r, MAX_PROCS + 1, i);
		if (write(fd, &r, REC) != REC)
			die("write %s: %s", path, strerror(errno));
	}
	fsync(fd);
	for (n = 0; n < 2; n++)
		for (i = 0; i < recent; i++) {
			struct record r;

			if (pread(fd, &r, REC, (off_t)i * REC) != REC || !valid(&r))
				die("%s: record %d does not read back", path, i);
		}
	close(fd);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	ctl = &sh->ctl;
	n = 0;
	for (i = 0; i < writers + readers; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (!pid) {
			if (i < writers)
				writer(i);
			else
				reader(i - writers);
			_exit(0);
		}
		pids[n++] = pid;
	}
	while (READ_ONCE(ctl->ready) < writers + readers && !READ_ONCE(ctl->failed))
		sleep_for(0.001);
	WRITE_ONCE(ctl->start, 1);
	sleep_for(warmup);
	for (i = 0; i < MAX_PROCS; i++) {
		r0 += READ_ONCE(sh->reads[i].n);
		w0 += READ_ONCE(sh->writes[i].n);
	}
	t0 = now();
	sleep_for(duration);
	for (i = 0; i < MAX_PROCS; i++) {
		r1 += READ_ONCE(sh->reads[i].n);
		w1 += READ_ONCE(sh->writes[i].n);
	}
	t1 = now();
	WRITE_ONCE(ctl->stop, 1);
	for (i = 0; i < n; i++)
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail("process %d died", pids[i]);
	unlink(path);
	exit_if_failed();
	if (header)
		printf("fs,writers,readers,reads,writes,seconds,reads_per_sec,writes_per_sec\n");
	printf("%s,%d,%d,%llu,%llu,%.3f,%.1f,%.1f\n", fs, writers, readers,
	       (unsigned long long)(r1 - r0), (unsigned long long)(w1 - w0),
	       t1 - t0, (r1 - r0) / (t1 - t0), (w1 - w0) / (t1 - t0));
	return 0;
}

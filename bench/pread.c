// SPDX-License-Identifier: GPL-2.0
/*
 * pread: will-it-scale style page-cache read benchmark.
 *
 * N threads (or -P processes) read L bytes from one hot file in a loop for a
 * fixed time and count the reads.  Each worker opens the file itself unless
 * -S (one shared fd).  Offset modes:
 *
 *   zero    every read at offset 0
 *   folio   offsets 0, 64, ..., 4032 in turn (each worker starts at its own),
 *           so reads of up to 64 bytes stay inside the first 4 KiB folio and
 *           all workers hit the same folio at different offsets
 *   random  uniformly random offset in [0, S - L]
 *   seq     read() sequentially from 0, rewinding at EOF (fio's sync
 *           sequential read, used where fio is not available)
 *
 * The file DIR/pread-bench.dat (S bytes) is created (-c write: a position
 * dependent pattern; falloc: fallocate()d; hole: ftruncate()d, sparse),
 * synced and read twice so that its folios are hot.  The first read of every
 * worker, and every read in -C (check all) mode, is compared with what the
 * file holds; a short or wrong read makes the run exit 1.
 *
 * Output: one CSV line per run
 *   fs,mode,threads,len,ops,seconds,ops_per_sec,mib_per_sec
 * (-H prints the header first).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_WORKERS	1024
#define FOLIO_SPAN	4096
#define FOLIO_STEP	64

enum mode { MODE_ZERO, MODE_FOLIO, MODE_RANDOM, MODE_SEQ };
static const char * const mode_names[] = { "zero", "folio", "random", "seq" };

enum create { CREATE_WRITE, CREATE_FALLOC, CREATE_HOLE };
static const char * const create_names[] = { "write", "falloc", "hole" };

struct counter {
	uint64_t ops;
	char pad[CACHELINE - sizeof(uint64_t)];
};

/* Shared between the parent and the workers (MAP_SHARED for -P). */
struct shared {
	struct bench_ctl ctl;
	struct counter cnt[MAX_WORKERS];
};

static struct {
	const char *dir;
	const char *fs;
	const char *path;
	enum mode mode;
	enum create create;
	int threads;
	bool procs;
	bool shared_fd;
	bool pin;
	bool header;
	bool keep;
	bool check_all;
	size_t len;
	off_t size;
	double duration;
	double warmup;
	int shared_fdnum;
	const char *selftest;
	int ncpus;
	int cpus[MAX_WORKERS];
} opt = {
	.mode = MODE_FOLIO,
	.create = CREATE_WRITE,
	.threads = 1,
	.len = 4096,
	.size = 16 << 20,
	.duration = 5,
	.warmup = 1,
	.shared_fdnum = -1,
};

static struct shared *sh;

static inline uint8_t pattern(uint64_t off)
{
	return (uint8_t)((off % 251) ^ (off >> 12) ^ (off >> 20));
}

static inline uint8_t expected(uint64_t off)
{
	return opt.create == CREATE_WRITE ? pattern(off) : 0;
}

static int check_buf(const uint8_t *buf, uint64_t off, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != expected(off + i))
			return (int)i;
	return -1;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (id + 1);
	off_t span = opt.size - (off_t)opt.len;
	off_t off = (id * FOLIO_STEP) % FOLIO_SPAN;
	off_t pos = 0;
	bool checked = false;
	uint8_t *buf;
	int fd;

	if (opt.pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(opt.cpus[id % opt.ncpus], &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			fail("worker %ld: sched_setaffinity(cpu %d): %s", id,
			     opt.cpus[id % opt.ncpus], strerror(errno));
	}
	if (posix_memalign((void **)&buf, 4096, opt.len)) {
		fail("worker %ld: out of memory", id);
		return NULL;
	}
	if (opt.shared_fd && opt.mode != MODE_SEQ) {
		fd = opt.shared_fdnum;
	} else {
		fd = open(opt.path, O_RDONLY);
		if (fd < 0) {
			fail("worker %ld: open %s: %s", id, opt.path, strerror(errno));
			return NULL;
		}
	}
	__sync_fetch_and_add(&ctl->ready, 1);
	while (!READ_ONCE(ctl->start))
		;
	while (!READ_ONCE(ctl->stop)) {
		ssize_t r;
		off_t at;

		switch (opt.mode) {
		case MODE_ZERO:
			at = 0;
			break;
		case MODE_FOLIO:
			at = off;
			off = (off + FOLIO_STEP) % FOLIO_SPAN;
			break;
		case MODE_RANDOM:
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			at = span > 0 ? (off_t)(x % (uint64_t)(span + 1)) : 0;
			break;
		default:
			at = pos;
			break;
		}
		if (opt.mode == MODE_SEQ) {
			r = read(fd, buf, opt.len);
			if (r == 0) {
				pos = 0;
				if (lseek(fd, 0, SEEK_SET)) {
					fail("worker %ld: lseek: %s", id, strerror(errno));
					break;
				}
				continue;
			}
			pos += r > 0 ? r : 0;
		} else {
			r = pread(fd, buf, opt.len, at);
		}
		if (r < 0) {
			fail("worker %ld: read at %lld: %s", id, (long long)at,
			     strerror(errno));
			break;
		}
		/* A sequential read ends short only at EOF. */
		if ((size_t)r != opt.len &&
		    !(opt.mode == MODE_SEQ && at + r == opt.size)) {
			fail("worker %ld: short read at %lld: %zd of %zu bytes", id,
			     (long long)at, r, opt.len);
			break;
		}
		if (!checked || opt.check_all) {
			int bad = check_buf(buf, at, r);

			if (bad >= 0) {
				fail("worker %ld: wrong data at offset %lld: 0x%02x, expected 0x%02x",
				     id, (long long)at + bad, buf[bad],
				     expected(at + bad));
				break;
			}
			checked = true;
		}
		WRITE_ONCE(sh->cnt[id].ops, sh->cnt[id].ops + 1);
	}
	if (fd != opt.shared_fdnum)
		close(fd);
	free(buf);
	return NULL;
}

static void create_file(void)
{
	size_t chunk = 1 << 20;
	uint8_t *buf = malloc(chunk);
	off_t done;
	int fd, pass;

	if (!buf)
		die("out of memory");
	unlink(opt.path);
	fd = open(opt.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s: %s", opt.path, strerror(errno));
	switch (opt.create) {
	case CREATE_WRITE:
		for (done = 0; done < opt.size; done += chunk) {
			size_t n = opt.size - done < (off_t)chunk ? (size_t)(opt.size - done) : chunk;
			size_t i;

			for (i = 0; i < n; i++)
				buf[i] = pattern(done + i);
			if (pwrite(fd, buf, n, done) != (ssize_t)n)
				die("write %s: %s", opt.path, strerror(errno));
		}
		break;
	case CREATE_FALLOC:
		errno = posix_fallocate(fd, 0, opt.size);
		if (errno)
			die("fallocate %s: %s", opt.path, strerror(errno));
		break;
	case CREATE_HOLE:
		if (ftruncate(fd, opt.size))
			die("truncate %s: %s", opt.path, strerror(errno));
		break;
	}
	if (fsync(fd))
		die("fsync %s: %s", opt.path, strerror(errno));
	/* Read it all twice: the second read finds the folios hot. */
	for (pass = 0; pass < 2; pass++) {
		for (done = 0; done < opt.size; done += chunk) {
			ssize_t r = pread(fd, buf, chunk, done);

			if (r <= 0)
				die("warm read %s at %lld: %s", opt.path,
				    (long long)done, r ? strerror(errno) : "EOF");
			if (pass == 0 && check_buf(buf, done, r) >= 0)
				die("%s does not read back what was written at %lld",
				    opt.path, (long long)done);
		}
	}
	close(fd);
	free(buf);
}

/* -T: damage the file so that the workers' checks must catch it. */
static void break_file(void)
{
	int fd = open(opt.path, O_RDWR);
	uint8_t b;

	if (fd < 0)
		die("open %s: %s", opt.path, strerror(errno));
	if (opt.mode == MODE_RANDOM)
		die("-T needs a mode whose first read is at offset 0 (zero, folio, seq)");
	if (!strcmp(opt.selftest, "corrupt")) {
		b = expected(0) ^ 0x5a;
		if (pwrite(fd, &b, 1, 0) != 1)
			die("self-test write: %s", strerror(errno));
	} else if (!strcmp(opt.selftest, "short")) {
		if (ftruncate(fd, opt.len / 2))
			die("self-test truncate: %s", strerror(errno));
	} else {
		die("-T corrupt or short, not '%s'", opt.selftest);
	}
	close(fd);
}

static int parse_enum(const char *s, const char * const *names, int n, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	die("unknown %s '%s'", what, s);
	return -1;
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
"usage: pread -d DIR [options]\n"
"  -d DIR     directory for the test file (required)\n"
"  -f NAME    fs column (default: from statfs of DIR)\n"
"  -m MODE    zero | folio | random | seq (default folio)\n"
"  -t N       workers (default 1)\n"
"  -P         workers are processes (default threads)\n"
"  -S         one shared fd (default: one open per worker)\n"
"  -l LEN     bytes per read (default 4096; k/m suffixes)\n"
"  -s SIZE    file size (default 16m)\n"
"  -c KIND    write | falloc | hole: how the file is made (default write)\n"
"  -D SEC     measured duration (default 5)\n"
"  -w SEC     warm-up before measuring (default 1)\n"
"  -p         pin worker i to the i-th allowed CPU\n"
"  -C         check every read, not only each worker's first\n"
"  -k         keep the file\n"
"  -H         print the CSV header first\n"
"  -T KIND    self-test of the checks: corrupt (one byte changed) or short\n"
"             (file truncated) after warming; the run must then fail\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	static char path[4096];
	pthread_t tids[MAX_WORKERS];
	pid_t pids[MAX_WORKERS];
	uint64_t before, after;
	double t0, t1, secs;
	cpu_set_t allowed;
	int c, i, status, rc = 0;

	while ((c = getopt(argc, argv, "d:f:m:t:PSl:s:c:D:w:pCkHT:h")) != -1) {
		switch (c) {
		case 'd':
			opt.dir = optarg;
			break;
		case 'f':
			opt.fs = optarg;
			break;
		case 'm':
			opt.mode = parse_enum(optarg, mode_names, 4, "mode");
			break;
		case 't':
			opt.threads = parse_long('t', optarg, 1, MAX_WORKERS);
			break;
		case 'P':
			opt.procs = true;
			break;
		case 'S':
			opt.shared_fd = true;
			break;
		case 'l':
			opt.len = parse_size('l', optarg);
			break;
		case 's':
			opt.size = parse_size('s', optarg);
			break;
		case 'c':
			opt.create = parse_enum(optarg, create_names, 3, "file kind");
			break;
		case 'D':
			opt.duration = parse_double('D', optarg, 0.001);
			break;
		case 'w':
			opt.warmup = parse_double('w', optarg, 0);
			break;
		case 'p':
			opt.pin = true;
			break;
		case 'C':
			opt.check_all = true;
			break;
		case 'k':
			opt.keep = true;
			break;
		case 'H':
			opt.header = true;
			break;
		case 'T':
			opt.selftest = optarg;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (!opt.dir || optind != argc)
		usage(2);
	if (opt.len < 1 || opt.len > (1 << 30))
		die("-l %zu: 1 byte to 1 GiB", opt.len);
	if (opt.mode == MODE_FOLIO && opt.size < FOLIO_SPAN + (off_t)opt.len)
		die("-s %lld: folio mode needs at least 4096 + LEN bytes",
		    (long long)opt.size);
	if (opt.mode != MODE_SEQ && opt.size < (off_t)opt.len)
		die("-s %lld is smaller than -l %zu", (long long)opt.size, opt.len);
	if (!opt.fs)
		opt.fs = fs_name(opt.dir);

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		die("sched_getaffinity: %s", strerror(errno));
	for (i = 0; i < CPU_SETSIZE && opt.ncpus < MAX_WORKERS; i++)
		if (CPU_ISSET(i, &allowed))
			opt.cpus[opt.ncpus++] = i;

	snprintf(path, sizeof(path), "%s/pread-bench.dat", opt.dir);
	opt.path = path;
	create_file();
	if (opt.selftest)
		break_file();
	if (opt.shared_fd) {
		opt.shared_fdnum = open(opt.path, O_RDONLY);
		if (opt.shared_fdnum < 0)
			die("open %s: %s", opt.path, strerror(errno));
	}

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	ctl = &sh->ctl;

	for (i = 0; i < opt.threads; i++) {
		if (opt.procs) {
			pids[i] = fork();
			if (pids[i] < 0)
				die("fork: %s", strerror(errno));
			if (!pids[i]) {
				worker((void *)(long)i);
				_exit(0);
			}
		} else {
			errno = pthread_create(&tids[i], NULL, worker, (void *)(long)i);
			if (errno)
				die("pthread_create: %s", strerror(errno));
		}
	}
	while (READ_ONCE(ctl->ready) < opt.threads && !READ_ONCE(ctl->failed))
		sleep_for(0.001);
	WRITE_ONCE(ctl->start, 1);
	sleep_for(opt.warmup);
	before = 0;
	for (i = 0; i < opt.threads; i++)
		before += READ_ONCE(sh->cnt[i].ops);
	t0 = now();
	sleep_for(opt.duration);
	after = 0;
	for (i = 0; i < opt.threads; i++)
		after += READ_ONCE(sh->cnt[i].ops);
	t1 = now();
	WRITE_ONCE(ctl->stop, 1);

	for (i = 0; i < opt.threads; i++) {
		if (opt.procs) {
			if (waitpid(pids[i], &status, 0) < 0 ||
			    !WIFEXITED(status) || WEXITSTATUS(status))
				fail("worker %d (pid %d) died", i, pids[i]);
		} else {
			pthread_join(tids[i], NULL);
		}
	}
	if (!opt.keep)
		unlink(opt.path);
	exit_if_failed();
	secs = t1 - t0;
	if (opt.header)
		printf("fs,mode,threads,len,ops,seconds,ops_per_sec,mib_per_sec\n");
	printf("%s,%s,%d,%zu,%llu,%.3f,%.1f,%.3f\n", opt.fs, mode_names[opt.mode],
	       opt.threads, opt.len, (unsigned long long)(after - before), secs,
	       (after - before) / secs,
	       (after - before) * (double)opt.len / secs / (1 << 20));
	return rc;
}

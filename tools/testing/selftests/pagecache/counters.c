// SPDX-License-Identifier: GPL-2.0
/*
 * Observability of the page-cache read fast path: hot reads move the hit
 * counter, reads of a fresh file do not, and after a storm of truncates
 * and cache drops the RCU-deferred and RCU-freed folio counters balance
 * again within a few seconds, also when CPUs went offline and online
 * during the storm, and a storm in a small memory cgroup never calls its
 * OOM killer; hot pages soft-offlined in a memory cgroup give its charge
 * back; growing the hugetlb pool past what memory allows fails in
 * bounded time during a truncate storm; which folios get PG_rcu_free
 * follows the documented rule per file type; and hot reads through
 * preadv2(RWF_NOWAIT) and io_uring take the fast path with the slow
 * path's results.  Skips on kernels without the counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kernel-page-flags.h>

#include "../kselftest_harness.h"
#include "../../../include/io_uring/mini_liburing.h"
#include "pagecache_util.h"

#define CNT_SIZE	(1 << 20)
#define CNT_READS	2048
#define CNT_SLACK	64	/* folios other tasks may have in flight */

FIXTURE(cnt) {
	struct pc_backing b;
	int fd;
	int saved_fast;
	uint8_t *buf;
};

FIXTURE_VARIANT(cnt) {
	enum pc_backing_type backing;
};

FIXTURE_VARIANT_ADD(cnt, ext4)
{
	.backing = PC_EXT4,
};

FIXTURE_VARIANT_ADD(cnt, xfs)
{
	.backing = PC_XFS,
};

FIXTURE_VARIANT_ADD(cnt, tmpfs)
{
	.backing = PC_TMPFS,
};

FIXTURE_VARIANT_ADD(cnt, tmpfs_huge)
{
	.backing = PC_TMPFS_HUGE,
};

FIXTURE_VARIANT_ADD(cnt, memfd)
{
	.backing = PC_MEMFD,
};

static uint64_t cnt_get(struct __test_metadata *_metadata, const char *name)
{
	uint64_t v = 0;

	EXPECT_EQ(0, pc_vmstat(name, &v)) TH_LOG("/proc/vmstat has no %s",
						 name);
	return v;
}

FIXTURE_SETUP(cnt)
{
	static const char * const names[] = {
		PC_VMSTAT_FAST_READ, PC_VMSTAT_FAST_READ_NOT_HOT,
		PC_VMSTAT_RCU_DEFERRED, PC_VMSTAT_RCU_FREED,
	};
	char reason[PC_REASON_LEN];
	unsigned int i;
	uint64_t v;
	int ret;

	self->fd = -1;
	self->saved_fast = -1;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (pc_vmstat(names[i], &v))
			SKIP(return,
			     "/proc/vmstat has no %s (kernel without the page-cache fast read)",
			     names[i]);
	ret = pc_backing_setup(&self->b, variant->backing, reason);
	if (ret == KSFT_SKIP)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, ret) TH_LOG("%s", reason);
	self->buf = malloc(CNT_SIZE);
	ASSERT_NE(NULL, self->buf);
	self->fd = pc_backing_create(&self->b, "cnt", 0, NULL, 0);
	ASSERT_LE(0, self->fd);
	self->saved_fast = pc_fast_read_get();
	if (self->saved_fast >= 0)
		ASSERT_EQ(0, pc_fast_read_set(1));
}

FIXTURE_TEARDOWN(cnt)
{
	if (self->saved_fast >= 0)
		pc_fast_read_set(self->saved_fast);
	if (self->fd >= 0)
		close(self->fd);
	pc_backing_teardown(&self->b);
}

/* Small reads at random offsets; returns how many were issued. */
static int cnt_small_reads(FIXTURE_DATA(cnt) *self, struct pc_rng *r)
{
	int i;

	for (i = 0; i < CNT_READS; i++) {
		uint64_t off = pc_rand_below(r, CNT_SIZE - 256);

		if (pread(self->fd, self->buf, 1 + pc_rand_below(r, 256),
			  off) <= 0)
			return i;
	}
	return i;
}

TEST_F(cnt, hot_reads_hit)
{
	uint64_t hit0, hit1, fb0, fb1;
	struct pc_rng r;
	int i, n;

	pc_print_seed();
	pc_rng_init(&r, pc_seed());
	ASSERT_EQ(0, pc_write_pattern(self->fd, 0, CNT_SIZE, PC_MAGIC_DATA, 1,
				      1));
	/* Read everything twice: from now on every folio is hot. */
	for (i = 0; i < 2; i++)
		ASSERT_EQ(CNT_SIZE, pread(self->fd, self->buf, CNT_SIZE, 0));
	hit0 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	fb0 = cnt_get(_metadata, PC_VMSTAT_FAST_READ_NOT_HOT);
	n = cnt_small_reads(self, &r);
	hit1 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	fb1 = cnt_get(_metadata, PC_VMSTAT_FAST_READ_NOT_HOT);
	ASSERT_EQ(CNT_READS, n);
	ksft_print_msg("%s: %d hot reads: %s +%llu, %s +%llu\n", self->b.name,
		       n, PC_VMSTAT_FAST_READ,
		       (unsigned long long)(hit1 - hit0),
		       PC_VMSTAT_FAST_READ_NOT_HOT,
		       (unsigned long long)(fb1 - fb0));
	ASSERT_LE(n / 2, hit1 - hit0)
		TH_LOG("hot reads did not use the fast path");
}

TEST_F(cnt, fresh_reads_miss)
{
	size_t chunk = self->b.folio_size < CNT_SIZE ? self->b.folio_size :
		       CNT_SIZE;
	uint64_t hit0, hit1;
	int n = 0;
	off_t off;

	ASSERT_EQ(0, pc_write_pattern(self->fd, 0, CNT_SIZE, PC_MAGIC_DATA, 1,
				      1));
	/* Where the fs allows, start from an empty page cache. */
	fsync(self->fd);
	posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED);
	hit0 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	/*
	 * Read once, sequentially, one folio-aligned chunk per read: every
	 * read touches folios that were never read before.
	 */
	for (off = 0; off < CNT_SIZE; off += chunk, n++)
		ASSERT_EQ(chunk, pread(self->fd, self->buf, chunk, off));
	hit1 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	ksft_print_msg("%s: %d streaming reads of a fresh file: %s +%llu\n",
		       self->b.name, n, PC_VMSTAT_FAST_READ,
		       (unsigned long long)(hit1 - hit0));
	/* Allow a little noise from other tasks, nothing more. */
	ASSERT_GE(CNT_SLACK, hit1 - hit0)
		TH_LOG("reads of never-read folios went through the fast path");
}

/*
 * Folios that are in the page cache but were never read (only written:
 * tmpfs and memfd mark them referenced) are not hot: a first small read of
 * each must not be served by the fast path, which may only copy from
 * folios with PG_rcu_free.  One read per folio, since a read that finds a
 * folio referenced marks it.
 */
TEST_F(cnt, first_small_reads_miss)
{
	size_t chunk = self->b.folio_size;
	uint64_t hit0, hit1;
	int i, fd, nr = 64;
	char path[512];

	fd = pc_backing_create(&self->b, "first", 0, path, sizeof(path));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pc_write_pattern(fd, 0, nr * chunk, PC_MAGIC_DATA, 1, 1));
	hit0 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	for (i = 0; i < nr; i++)
		ASSERT_EQ(64, pread(fd, self->buf, 64, (off_t)i * chunk));
	hit1 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	if (path[0])
		unlink(path);
	close(fd);
	ksft_print_msg("%s: %d first 64-byte reads of written folios: %s +%llu\n",
		       self->b.name, nr, PC_VMSTAT_FAST_READ,
		       (unsigned long long)(hit1 - hit0));
	/* Every one of them would count if unflagged folios were served. */
	ASSERT_GT(nr / 2, hit1 - hit0)
		TH_LOG("folios without PG_rcu_free went through the fast path");
}

/*
 * preadv2(RWF_NOWAIT) sets IOCB_NOWAIT, as io_uring's first, inline try
 * of a read does.  Hot data: the lockless path serves it (it never
 * blocks), never EAGAIN, and returns what pread() returns.  Data not in
 * the page cache (ext4, xfs, after POSIX_FADV_DONTNEED), with the switch
 * on and off: EAGAIN, or the bytes if the readahead that the read starts
 * finished first, as on the slow path.
 */
TEST_F(cnt, nowait_reads)
{
	bool shmem = self->b.type == PC_TMPFS || self->b.type == PC_TMPFS_HUGE ||
		     self->b.type == PC_MEMFD;
	int i, n, err[2] = { 0, 0 }, fast;
	uint64_t offs[CNT_READS], h0, h1;
	size_t lens[CNT_READS];
	struct iovec iov;
	struct pc_rng r;
	char *ref;
	ssize_t ret[2];

	pc_rng_init(&r, pc_seed());
	ref = malloc(256);
	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, pc_write_pattern(self->fd, 0, CNT_SIZE, PC_MAGIC_DATA, 1,
				      1));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(CNT_SIZE, pread(self->fd, self->buf, CNT_SIZE, 0));
	iov.iov_base = self->buf;
	iov.iov_len = 1;
	if (preadv2(self->fd, &iov, 1, 0, RWF_NOWAIT) < 0 &&
	    errno == EOPNOTSUPP) {
		free(ref);
		SKIP(return, "%s: preadv2(RWF_NOWAIT) is EOPNOTSUPP (no FMODE_NOWAIT)",
		     self->b.name);
	}
	for (i = 0; i < CNT_READS; i++) {
		offs[i] = pc_rand_below(&r, CNT_SIZE - 256);
		lens[i] = 1 + pc_rand_below(&r, 256);
	}
	h0 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	for (n = 0; n < CNT_READS; n++) {
		/* CNT_READS * 256 bytes fit in the buffer */
		iov.iov_base = (char *)self->buf + n * 256;
		iov.iov_len = lens[n];
		if (preadv2(self->fd, &iov, 1, offs[n], RWF_NOWAIT) !=
		    (ssize_t)lens[n])
			break;
	}
	h1 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	ASSERT_EQ(CNT_READS, n)
		TH_LOG("RWF_NOWAIT read %d of hot data: %s", n,
		       strerror(errno));
	for (i = 0; i < CNT_READS; i++) {
		char *got = (char *)self->buf + i * 256;

		ASSERT_EQ((ssize_t)lens[i],
			  pread(self->fd, ref, lens[i], offs[i]));
		ASSERT_EQ(0, memcmp(ref, got, lens[i]))
			TH_LOG("RWF_NOWAIT read %d returned other bytes than pread()",
			       i);
	}
	/* Not cached: what the slow path returns, whichever path runs. */
	for (fast = 1; !shmem && self->saved_fast >= 0 && fast >= 0; fast--) {
		ASSERT_EQ(0, pc_fast_read_set(fast));
		ASSERT_EQ(0, fsync(self->fd));
		ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
		iov.iov_base = self->buf;
		iov.iov_len = 64;
		ret[fast] = preadv2(self->fd, &iov, 1, CNT_SIZE / 2,
				    RWF_NOWAIT);
		err[fast] = ret[fast] < 0 ? errno : 0;
		if (ret[fast] == 64) {
			ASSERT_EQ(64, pread(self->fd, ref, 64, CNT_SIZE / 2));
			ASSERT_EQ(0, memcmp(ref, self->buf, 64));
		}
	}
	if (self->saved_fast >= 0)
		ASSERT_EQ(0, pc_fast_read_set(1));
	free(ref);
	ksft_print_msg("%s: %d hot RWF_NOWAIT reads: %s +%llu; not cached: %s%s\n",
		       self->b.name, n, PC_VMSTAT_FAST_READ,
		       (unsigned long long)(h1 - h0),
		       shmem ? "n/a (shmem)" :
		       self->saved_fast < 0 ? "no switch" :
		       err[1] ? "EAGAIN with the switch on" :
		       "the bytes with the switch on",
		       shmem || self->saved_fast < 0 ? "" :
		       err[0] ? ", EAGAIN off" : ", the bytes off");
	ASSERT_LE(n / 2, h1 - h0)
		TH_LOG("hot RWF_NOWAIT reads did not use the fast path");
	for (fast = 1; !shmem && self->saved_fast >= 0 && fast >= 0; fast--) {
		ASSERT_TRUE(ret[fast] == 64 || err[fast] == EAGAIN)
			TH_LOG("switch %d: a RWF_NOWAIT read of data not cached returned %zd (%s)",
			       fast, ret[fast], strerror(err[fast]));
	}
}

#define URING_BATCH	32
#define URING_MAX	256
/* Read slots of a page-aligned buffer: every 16th one straddles a page. */
#define URING_STRIDE	(URING_MAX + 8)

/*
 * Reads through io_uring: IORING_OP_READ of a registered file into a user
 * buffer, and IORING_OP_READ_FIXED into a registered buffer (a bvec
 * iterator, not a user address).  io_uring tries each read inline with
 * IOCB_NOWAIT where the file has FMODE_NOWAIT, else from an io-wq worker;
 * either way it reaches ->read_iter, so hot data takes the lockless path.
 * Every completion is what the slow path gives: this file's bytes, a short
 * read at EOF, 0 past it.
 */
TEST_F(cnt, io_uring_reads)
{
	static const char * const name[] = { "READ", "READ_FIXED" };
	struct iovec reg = { .iov_base = self->buf, .iov_len = CNT_SIZE };
	uint8_t *dst = (uint8_t *)(((uintptr_t)self->buf + 4095) & ~4095UL);
	uint64_t offs[CNT_READS], h[3];
	size_t lens[CNT_READS], want;
	int i, n, op, done, ret, res[CNT_READS];
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct pc_rng r;
	uint8_t *exp;

	pc_print_seed();
	pc_rng_init(&r, pc_seed());
	exp = malloc(URING_MAX);
	ASSERT_NE(NULL, exp);
	ASSERT_EQ(0, pc_write_pattern(self->fd, 0, CNT_SIZE, PC_MAGIC_DATA, 1,
				      1));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(CNT_SIZE, pread(self->fd, self->buf, CNT_SIZE, 0));
	ret = io_uring_queue_init(URING_BATCH, &ring, 0);
	if (ret == -1 && (errno == ENOSYS || errno == EPERM)) {
		free(exp);
		SKIP(return, "io_uring_setup(): %s (no CONFIG_IO_URING, or kernel.io_uring_disabled)",
		     strerror(errno));
	}
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup(): %s", strerror(errno));
	ASSERT_EQ(0, syscall(__NR_io_uring_register, ring.ring_fd,
			     IORING_REGISTER_FILES, &self->fd, 1))
		TH_LOG("IORING_REGISTER_FILES: %s", strerror(errno));
	ret = io_uring_register_buffers(&ring, &reg, 1);
	ASSERT_EQ(0, ret) TH_LOG("IORING_REGISTER_BUFFERS: %s (RLIMIT_MEMLOCK?)",
				 strerror(-ret));

	for (i = 0; i < CNT_READS; i++) {
		offs[i] = pc_rand_below(&r, CNT_SIZE - URING_MAX);
		lens[i] = 1 + pc_rand_below(&r, URING_MAX);
	}
	/* Across EOF, at EOF and past it */
	offs[0] = CNT_SIZE - 10;
	offs[1] = CNT_SIZE;
	offs[2] = CNT_SIZE + 4096;
	for (i = 0; i < 3; i++)
		lens[i] = 100;
	h[0] = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	for (op = 0; op < 2; op++) {
		for (i = 0; i < CNT_READS; i++)
			res[i] = INT_MIN;	/* no completion */
		memset(dst, 0, CNT_READS * URING_STRIDE);
		for (n = 0; n < CNT_READS; n += URING_BATCH) {
			for (i = n; i < n + URING_BATCH; i++) {
				sqe = io_uring_get_sqe(&ring);
				ASSERT_NE(NULL, sqe);
				memset(sqe, 0, sizeof(*sqe));
				sqe->opcode = op ? IORING_OP_READ_FIXED :
						   IORING_OP_READ;
				sqe->flags = IOSQE_FIXED_FILE;
				sqe->fd = 0;	/* the registered file */
				sqe->off = offs[i];
				/* CNT_READS slots fit in the buffer */
				sqe->addr = (unsigned long)(dst +
							    i * URING_STRIDE);
				sqe->len = lens[i];
				sqe->buf_index = 0;
				sqe->user_data = i;
			}
			ASSERT_EQ(URING_BATCH, io_uring_submit(&ring));
			for (done = 0; done < URING_BATCH; done++) {
				ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
				ASSERT_GT(CNT_READS, cqe->user_data);
				res[cqe->user_data] = cqe->res;
				io_uring_cqe_seen(&ring);
			}
		}
		h[op + 1] = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
		for (i = 0; i < CNT_READS; i++) {
			want = offs[i] >= CNT_SIZE ? 0 :
			       CNT_SIZE - offs[i] < lens[i] ?
			       CNT_SIZE - offs[i] : lens[i];
			ASSERT_EQ((int)want, res[i])
				TH_LOG("%s %d of %zu bytes at %llu: %d (%s), not %zu",
				       name[op], i, lens[i],
				       (unsigned long long)offs[i], res[i],
				       res[i] == INT_MIN ? "no completion" :
				       res[i] < 0 ? strerror(-res[i]) : "bytes",
				       want);
			pc_fill(exp, offs[i], want, PC_MAGIC_DATA, 1, 1);
			ASSERT_EQ(0, memcmp(exp, dst + i * URING_STRIDE,
					    want))
				TH_LOG("%s %d at %llu returned other bytes than the file's",
				       name[op], i,
				       (unsigned long long)offs[i]);
		}
	}
	io_uring_queue_exit(&ring);
	free(exp);
	ksft_print_msg("%s: %d hot io_uring reads of a registered file: READ %s +%llu, READ_FIXED %s +%llu\n",
		       self->b.name, CNT_READS, PC_VMSTAT_FAST_READ,
		       (unsigned long long)(h[1] - h[0]), PC_VMSTAT_FAST_READ,
		       (unsigned long long)(h[2] - h[1]));
	/* Braces: the harness's TH_LOG is a statement after the assertion. */
	for (op = 0; op < 2; op++) {
		ASSERT_LE(CNT_READS / 2, h[op + 1] - h[op])
			TH_LOG("hot io_uring %s reads did not use the fast path",
			       name[op]);
	}
}

#define WM_LEN	(64 << 10)

/*
 * filemap_read() flushes user aliases before it copies from a file that
 * has a shared writable mapping, where the architecture implements
 * flush_dcache_folio(), and that needs a reference: the fast path must
 * leave such reads to it, and take them again once the mapping is gone.
 * Elsewhere the mapping changes nothing.  Either way read() returns what
 * was written through the mapping.
 */
TEST_F(cnt, writably_mapped)
{
	bool flushes = pc_arch_flushes_dcache();
	uint64_t h0, h1, h2, h3;
	struct pc_rng r;
	uint8_t *map;
	int i, n;

	pc_rng_init(&r, pc_seed());
	ASSERT_EQ(0, pc_write_pattern(self->fd, 0, CNT_SIZE, PC_MAGIC_DATA, 1,
				      1));
	map = mmap(NULL, CNT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	for (i = 0; i < WM_LEN; i++)
		map[i] = (uint8_t)(i * 7 + 3);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(CNT_SIZE, pread(self->fd, self->buf, CNT_SIZE, 0));
	for (i = 0; i < WM_LEN; i++)
		if (((uint8_t *)self->buf)[i] != (uint8_t)(i * 7 + 3))
			break;
	ASSERT_EQ(WM_LEN, i)
		TH_LOG("read() missed a write through the mapping at byte %d",
		       i);
	h0 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	n = cnt_small_reads(self, &r);
	h1 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	ASSERT_EQ(CNT_READS, n);
	ASSERT_EQ(0, munmap(map, CNT_SIZE));
	h2 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	n = cnt_small_reads(self, &r);
	h3 = cnt_get(_metadata, PC_VMSTAT_FAST_READ);
	ASSERT_EQ(CNT_READS, n);
	ksft_print_msg("%s: %d hot reads of a writably mapped file: %s +%llu; %d once unmapped: +%llu (%s)\n",
		       self->b.name, n, PC_VMSTAT_FAST_READ,
		       (unsigned long long)(h1 - h0), n,
		       (unsigned long long)(h3 - h2),
		       flushes ? "flush_dcache_folio() here: slow path while mapped" :
				 "no flush_dcache_folio() here");
	if (flushes) {
		ASSERT_GE(CNT_SLACK, h1 - h0)
			TH_LOG("reads of a writably mapped file went through the fast path, which does not flush");
	} else {
		ASSERT_LE(n / 2, h1 - h0)
			TH_LOG("a writable mapping kept hot reads from the fast path");
	}
	ASSERT_LE(n / 2, h3 - h2)
		TH_LOG("hot reads did not use the fast path once the mapping was gone");
}

/*
 * One file of a truncate storm: create it, write @len bytes of generation
 * @gen, read them twice (the second read marks the folios hot), truncate
 * to nothing or to a partial first page (@i alternates), delete, close.
 * Returns 0, or the step that failed.
 */
static int cnt_storm_file(struct pc_backing *b, const char *tag, void *buf,
			  size_t len, uint8_t gen, int i)
{
	char path[PC_PATH_LEN];
	int fd, ret = 0;

	fd = pc_backing_create(b, tag, 0, path, sizeof(path));
	if (fd < 0)
		return 1;
	if (pc_write_pattern(fd, 0, len, PC_MAGIC_DATA, gen, 1))
		ret = 2;
	else if (pread(fd, buf, len, 0) != (ssize_t)len ||
		 pread(fd, buf, len, 0) != (ssize_t)len)
		ret = 3;
	else if (ftruncate(fd, i & 1 ? 0 : 4097))
		ret = 4;
	if (path[0])
		unlink(path);
	close(fd);
	return ret;
}

/*
 * For a forked child: join @cg unless it is NULL, then run a truncate
 * storm of quarter-megabyte files for pc_race_seconds() and exit with 0,
 * the step of cnt_storm_file() that failed, or 100 (joining the cgroup).
 */
static void __noreturn
cnt_storm_child(FIXTURE_DATA(cnt) *self, const char *cg, const char *tag)
{
	double end;
	int i, step;

	if (cg && pc_cgroup_move(cg, 0))
		_exit(100);
	end = pc_now() + pc_race_seconds();
	for (i = 0; pc_now() < end; i++) {
		step = cnt_storm_file(&self->b, tag, self->buf, CNT_SIZE / 4,
				      4, i);
		if (step)
			_exit(step);
	}
	_exit(0);
}

TEST_F_TIMEOUT(cnt, rcu_balance, 120)
{
	uint64_t d0, f0, d1, f1, d, f;
	double end, start, wait = 5 * (pc_race_seconds() / 2 + 1);
	int64_t inflight0, inflight;
	int i;

	d0 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	f0 = cnt_get(_metadata, PC_VMSTAT_RCU_FREED);
	inflight0 = d0 - f0;
	/* Storm: hot files, then truncate, delete and drop caches. */
	end = pc_now() + pc_race_seconds();
	for (i = 0; pc_now() < end; i++) {
		ASSERT_EQ(0, cnt_storm_file(&self->b, "storm", self->buf,
					    CNT_SIZE / 4, 2, i));
		if (pc_is_root() && (i & 15) == 15)
			pc_drop_caches();
	}
	d1 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	f1 = cnt_get(_metadata, PC_VMSTAT_RCU_FREED);
	start = pc_now();
	do {
		d = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
		f = cnt_get(_metadata, PC_VMSTAT_RCU_FREED);
		inflight = d - f;
		if (inflight <= inflight0 + CNT_SLACK)
			break;
		usleep(50000);
	} while (pc_now() - start < wait);
	ksft_print_msg("%s: %d files; storm: %s +%llu %s +%llu; in flight %lld -> %lld in %.2fs\n",
		       self->b.name, i, PC_VMSTAT_RCU_DEFERRED,
		       (unsigned long long)(d1 - d0), PC_VMSTAT_RCU_FREED,
		       (unsigned long long)(f1 - f0), (long long)inflight0,
		       (long long)inflight, pc_now() - start);
	ASSERT_LT(0, d1 - d0) TH_LOG("no folio freed through RCU during the storm");
	ASSERT_GE(inflight0 + CNT_SLACK, inflight)
		TH_LOG("%s - %s did not come back to balance within %.0fs",
		       PC_VMSTAT_RCU_DEFERRED, PC_VMSTAT_RCU_FREED, wait);
}

#define HP_MAX_CPUS	1024
/*
 * CPUs taken offline per cycle.  Each offline and online is a
 * stop_machine(); on 64 emulated CPUs taking 32 offline took minutes.
 */
#define HP_BATCH	8

/* CPU @cpu exists; *online and *pluggable say more. */
static bool hp_cpu(int cpu, bool *online, bool *pluggable)
{
	char path[96], buf[16];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	if (access(path, F_OK))
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	*pluggable = !access(path, W_OK);
	*online = !*pluggable || (!pc_read_file(path, buf, sizeof(buf)) &&
				  buf[0] == '1');
	return true;
}

static int hp_set(int cpu, bool online)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return pc_write_file(path, online ? "1\n" : "0\n");
}

/*
 * One storm process per CPU: hot files truncated and deleted, bound to
 * @cpu whenever it is online, so that every CPU's chain fills while CPUs
 * come and go.
 */
static void hp_storm(FIXTURE_DATA(cnt) *self, int cpu, pid_t parent)
{
	cpu_set_t set;
	char tag[32];
	int i;

	/* Do not outlive the test when the harness kills it at its timeout. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	snprintf(tag, sizeof(tag), "hp%d", cpu);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	for (i = 0;; i++) {
		/* Fails while @cpu is offline: run where the kernel put us. */
		sched_setaffinity(0, sizeof(set), &set);
		if (cnt_storm_file(&self->b, tag, self->buf, 16 * 4096, 3, i))
			_exit(1);
	}
}

/*
 * CPU hotplug while folios are deferred and freed: one storm process per
 * online CPU while the CPUs that can go offline do so and come back, up to
 * HP_BATCH at a time, round robin, in a loop.  Then, with the last batch
 * offline, the storms stop, and the deferred and freed counters must meet
 * exactly: the chain of a CPU that went offline was freed (a lost one keeps
 * them apart) and nothing was freed twice (freed would run ahead; DEBUG_VM
 * and KASAN would report it).
 */
TEST_F_TIMEOUT(cnt, cpu_hotplug, 600)
{
	static int cpus[HP_MAX_CPUS], victims[HP_MAX_CPUS], off[HP_BATCH];
	static pid_t pids[HP_MAX_CPUS];
	int nr_cpus = 0, nr_victims = 0, cycles = 0, nr_off = 0, next = 0;
	double end, start, waited, wait = 10 * (pc_race_seconds() / 2 + 1);
	uint64_t d0, f0, d, f;
	bool online, pluggable, balanced = false;
	int cpu, i, status, failed = 0;
	pid_t parent = getpid();

	if (!pc_is_root())
		SKIP(return, "CPU hotplug needs root");
	for (cpu = 0; cpu < HP_MAX_CPUS; cpu++) {
		if (!hp_cpu(cpu, &online, &pluggable) || !online)
			continue;
		cpus[nr_cpus++] = cpu;
		if (pluggable)
			victims[nr_victims++] = cpu;
	}
	/* One CPU stays online, whatever the sysfs files allow. */
	if (nr_victims == nr_cpus)
		nr_victims--;
	if (nr_victims < 1)
		SKIP(return, "no CPU can go offline (%d online; needs CONFIG_HOTPLUG_CPU, two CPUs and root)",
		     nr_cpus);

	d0 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	f0 = cnt_get(_metadata, PC_VMSTAT_RCU_FREED);
	for (i = 0; i < nr_cpus; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			hp_storm(self, cpus[i], parent);
	}
	/*
	 * Each cycle takes the next HP_BATCH victims offline, so that over
	 * the cycles every victim has its turn, then brings them back; the
	 * last cycle leaves its batch offline.  After the first cycle the
	 * deadline is checked after each CPU, as one hotplug can take seconds
	 * with many CPUs; the first always takes a whole batch offline.
	 */
	end = pc_now() + pc_race_seconds();
	do {
		nr_off = 0;
		for (i = 0; i < HP_BATCH && i < nr_victims; i++) {
			cpu = victims[next];
			next = (next + 1) % nr_victims;
			if (!hp_set(cpu, false))
				off[nr_off++] = cpu;
			if (cycles && nr_off && pc_now() >= end)
				break;
		}
		usleep(20000);
		cycles++;
		if (pc_now() >= end)
			break;
		for (i = 0; i < nr_off; i++)
			hp_set(off[i], true);
		usleep(20000);
	} while (1);

	for (i = 0; i < nr_cpus; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < nr_cpus; i++) {
		waitpid(pids[i], &status, 0);
		if (!WIFSIGNALED(status))
			failed++;
	}
	/* With the last batch still offline: every chain must be freed. */
	start = pc_now();
	do {
		d = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
		f = cnt_get(_metadata, PC_VMSTAT_RCU_FREED);
		if (d == f) {
			balanced = true;
			break;
		}
		usleep(10000);
	} while (pc_now() - start < wait);
	waited = pc_now() - start;
	for (i = 0; i < nr_off; i++)
		hp_set(off[i], true);
	ksft_print_msg("%s: %d CPUs online, %d hotpluggable; %d cycles of up to %d, %d offline at the end; %s +%llu %s +%llu; in flight %lld after %.2fs\n",
		       self->b.name, nr_cpus, nr_victims, cycles, HP_BATCH,
		       nr_off, PC_VMSTAT_RCU_DEFERRED,
		       (unsigned long long)(d - d0), PC_VMSTAT_RCU_FREED,
		       (unsigned long long)(f - f0), (long long)(d - f), waited);
	ASSERT_EQ(0, failed) TH_LOG("%d storm processes failed", failed);
	ASSERT_LT(0, nr_off) TH_LOG("no CPU went offline");
	ASSERT_LT(0, d - d0) TH_LOG("no folio freed through RCU during the storm");
	ASSERT_TRUE(balanced)
		TH_LOG("%s - %s is %lld, not 0, %.0fs after the storm with %d CPUs offline",
		       PC_VMSTAT_RCU_DEFERRED, PC_VMSTAT_RCU_FREED,
		       (long long)(d - f), wait, nr_off);
}

#define MC_MAX	(2 << 20)

/*
 * A truncate storm in a memory cgroup limited to MC_MAX, which is less than
 * what may wait for a grace period (at least 8 MiB in flight, plus the
 * chains).  Deferred folios stay charged to the cgroup until they are
 * freed, so a charge that reclaim cannot satisfy must wait for them: the
 * memcg OOM killer must not run ("oom" in memory.events stays 0) and the
 * storm must not fail.  Before the grace period the memory is not
 * reclaimable, only about to be freed.
 */
TEST_F_TIMEOUT(cnt, memcg_storm, 120)
{
	char cg[PC_PATH_LEN], p[PC_PATH_LEN + 32], buf[64];
	char reason[PC_REASON_LEN];
	uint64_t d0, d1, r0, r1, oom = 0, kills = 0, peak = 0;
	double t0, secs;
	bool has_oom;
	pid_t child;
	int status;

	if (pc_memcg_create(cg, sizeof(cg), "pagecache_cnt", reason))
		SKIP(return, "%s", reason);
	snprintf(buf, sizeof(buf), "%d\n", MC_MAX);
	if (pc_cgroup_write(cg, "memory.max", buf)) {
		rmdir(cg);
		SKIP(return, "cannot set %s/memory.max", cg);
	}
	pc_cgroup_write(cg, "memory.swap.max", "0\n");

	d0 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	r0 = cnt_get(_metadata, PC_VMSTAT_RCU_DRAINS);
	t0 = pc_now();
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		cnt_storm_child(self, cg, "mcstorm");
	ASSERT_EQ(child, waitpid(child, &status, 0));
	secs = pc_now() - t0;
	d1 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	r1 = cnt_get(_metadata, PC_VMSTAT_RCU_DRAINS);
	snprintf(p, sizeof(p), "%s/memory.events", cg);
	has_oom = !pc_read_key(p, "oom", &oom);
	pc_read_key(p, "oom_kill", &kills);
	snprintf(p, sizeof(p), "%s/memory.peak", cg);
	if (!pc_read_file(p, buf, sizeof(buf)))
		peak = strtoull(buf, NULL, 10);
	rmdir(cg);
	ksft_print_msg("%s: memory.max %d KiB, peak %llu KiB; in %.1f s: %s +%llu, %s +%llu; oom %llu, oom_kill %llu\n",
		       self->b.name, MC_MAX >> 10,
		       (unsigned long long)peak >> 10, secs,
		       PC_VMSTAT_RCU_DEFERRED, (unsigned long long)(d1 - d0),
		       PC_VMSTAT_RCU_DRAINS, (unsigned long long)(r1 - r0),
		       (unsigned long long)oom, (unsigned long long)kills);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the storm in the cgroup %s (status 0x%x: step %d of cnt_storm_file(), 100: joining the cgroup)",
		       WIFSIGNALED(status) ? "was killed" : "failed", status,
		       WIFEXITED(status) ? WEXITSTATUS(status) : 0);
	ASSERT_TRUE(has_oom) TH_LOG("no oom in %s/memory.events", cg);
	ASSERT_EQ(0, oom) TH_LOG("the memcg OOM killer ran %llu times (%llu kills)",
				 (unsigned long long)oom,
				 (unsigned long long)kills);
	ASSERT_LT(0, d1 - d0) TH_LOG("no folio freed through RCU during the storm");
}

#define MD_MAX		(4 << 20)
#define MD_HOG		(64UL << 20)

/*
 * A memcg at its limit with no deferred folio charged to it does not wait
 * for other cgroups' deferred folios: while a truncate storm runs outside
 * it, children that allocate anonymous memory past its memory.max (no
 * swap) are OOM-killed, and pgcache_rcu_drains, the drains that waited for
 * batches in flight, does not move.  Nothing else here drains (no
 * system-wide memory pressure).  memcg_storm shows that a memcg whose
 * own deferred folios hold its charge still waits for them.
 */
TEST_F_TIMEOUT(cnt, memcg_drain_own, 120)
{
	char cg[PC_PATH_LEN], p[PC_PATH_LEN + 32], buf[64];
	char reason[PC_REASON_LEN];
	uint64_t d0, d1, r0, r1, kills = 0;
	int i, status, hogs = 0, killed = 0;
	pid_t storm, hog;

	if (pc_memcg_create(cg, sizeof(cg), "pagecache_md", reason))
		SKIP(return, "%s", reason);
	snprintf(buf, sizeof(buf), "%d\n", MD_MAX);
	if (pc_cgroup_write(cg, "memory.max", buf) ||
	    pc_cgroup_write(cg, "memory.swap.max", "0\n")) {
		rmdir(cg);
		SKIP(return, "cannot set %s/memory.max and memory.swap.max", cg);
	}

	d0 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	r0 = cnt_get(_metadata, PC_VMSTAT_RCU_DRAINS);
	storm = fork();
	ASSERT_LE(0, storm);
	if (!storm)
		cnt_storm_child(self, NULL, "mdstorm");
	/* OOM kills in the cgroup for as long as the storm runs */
	while (waitpid(storm, &status, WNOHANG) == 0) {
		hog = fork();
		ASSERT_LE(0, hog);
		if (!hog) {
			char *mem;
			size_t off;

			if (pc_cgroup_move(cg, 0))
				_exit(100);
			mem = mmap(NULL, MD_HOG, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (mem == MAP_FAILED)
				_exit(101);
			for (off = 0; off < MD_HOG; off += 4096)
				mem[off] = 1;
			_exit(0);
		}
		ASSERT_EQ(hog, waitpid(hog, &i, 0));
		hogs++;
		if (WIFSIGNALED(i) && WTERMSIG(i) == SIGKILL)
			killed++;
		else
			TH_LOG("a child allocating %lu MiB in a cgroup of %d MiB was not OOM-killed (status 0x%x)",
			       MD_HOG >> 20, MD_MAX >> 20, i);
	}
	d1 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	r1 = cnt_get(_metadata, PC_VMSTAT_RCU_DRAINS);
	snprintf(p, sizeof(p), "%s/memory.events", cg);
	pc_read_key(p, "oom_kill", &kills);
	rmdir(cg);
	ksft_print_msg("%s: %d children OOM-killed of %d (oom_kill %llu) during the storm; %s +%llu; %s +%llu\n",
		       self->b.name, killed, hogs, (unsigned long long)kills,
		       PC_VMSTAT_RCU_DEFERRED, (unsigned long long)(d1 - d0),
		       PC_VMSTAT_RCU_DRAINS, (unsigned long long)(r1 - r0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the storm failed (status 0x%x: step %d of cnt_storm_file())",
		       status, WIFEXITED(status) ? WEXITSTATUS(status) : 0);
	ASSERT_EQ(hogs, killed);
	ASSERT_LT(0, killed);
	ASSERT_LT(0, d1 - d0) TH_LOG("no folio freed through RCU during the storm");
	ASSERT_EQ(0, r1 - r0)
		TH_LOG("%llu drains for OOMs of a cgroup that had no deferred folio",
		       (unsigned long long)(r1 - r0));
}

#define MK_PAGES	16

/*
 * Pages of @fd (MK_PAGES of them) whose folio has PG_rcu_free, through a
 * read-only shared mapping, pagemap and /proc/kpageflags; -1 if the pages
 * cannot be looked at.  Faulting the pages in marks nothing, and the
 * unmap may set PG_referenced: look only once a file is done with.
 */
static int mk_flagged(int fd, size_t pg)
{
	uint8_t *map = mmap(NULL, MK_PAGES * pg, PROT_READ, MAP_SHARED, fd, 0);
	uint64_t pfn, kpf;
	int i, n = 0;

	if (map == MAP_FAILED)
		return -1;
	for (i = 0; i < MK_PAGES && n >= 0; i++) {
		__atomic_load_n(map + i * pg, __ATOMIC_RELAXED);
		if (pc_pfn(map + i * pg, &pfn) || pc_kpageflags(pfn, &kpf))
			n = -1;
		else
			n += kpf >> PC_KPF_RCU_FREE & 1;
	}
	munmap(map, MK_PAGES * pg);
	return n;
}

/*
 * Write MK_PAGES pages to @fd with write(2), then read them @passes times
 * from the start in @chunk byte reads into @buf; returns the pages
 * flagged, -1 if they could not be counted, -2 on an I/O error.
 */
static int mk_count(int fd, void *buf, int passes, size_t chunk)
{
	size_t pg = getpagesize(), len = MK_PAGES * pg, off;
	int p;

	if (pc_write_pattern(fd, 0, len, PC_MAGIC_DATA, 6, 1))
		return -2;
	for (p = 0; p < passes; p++)
		for (off = 0; off < len; off += chunk)
			if (pread(fd, buf, chunk, off) != (ssize_t)chunk)
				return -2;
	return mk_flagged(fd, pg);
}

/* mk_count() on a new file of the fixture's backing */
static int mk_case(FIXTURE_DATA(cnt) *self, const char *tag, int passes,
		   size_t chunk)
{
	char path[PC_PATH_LEN];
	int fd, n;

	fd = pc_backing_create(&self->b, tag, 0, path, sizeof(path));
	if (fd < 0)
		return -2;
	n = mk_count(fd, self->buf, passes, chunk);
	if (path[0])
		unlink(path);
	close(fd);
	return n;
}

/*
 * The marking rule as documented (Documentation/mm/pagecache_rcu.rst, "Hot
 * folio"): a folio gets PG_rcu_free when a read finds it referenced.
 * Written and never read: no flag anywhere.  Through filemap_read() (ext4,
 * xfs) a folio is referenced by a read, so a single pass, in pages or in
 * small sequential reads, flags nothing and a second pass flags every
 * page.  shmem (tmpfs, memfd) references what write(2) wrote, so there
 * the first read flags it.
 */
TEST_F(cnt, marking_rule)
{
	bool shmem = self->b.type == PC_TMPFS || self->b.type == PC_TMPFS_HUGE ||
		     self->b.type == PC_MEMFD;
	int once_exp = shmem ? MK_PAGES : 0;
	int written, once, stream, twice;

	if (!pc_is_root())
		SKIP(return, "page frame numbers in pagemap need root");
	written = mk_case(self, "mkw", 0, 4096);
	if (written == -1)
		SKIP(return, "no /proc/kpageflags or pagemap PFNs here");
	once = mk_case(self, "mk1", 1, 4096);
	stream = mk_case(self, "mks", 1, 512);
	twice = mk_case(self, "mk2", 2, 4096);
	ksft_print_msg("%s: pages of %d flagged: written %d, read once %d, one pass of 512-byte reads %d, read twice %d\n",
		       self->b.name, MK_PAGES, written, once, stream, twice);
	ASSERT_EQ(0, written) TH_LOG("a written, never read file has flagged pages");
	ASSERT_EQ(once_exp, once) TH_LOG("one pass of page reads");
	ASSERT_EQ(once_exp, stream) TH_LOG("one pass of 512-byte reads");
	ASSERT_EQ(MK_PAGES, twice) TH_LOG("a second pass must flag every page");
}

#define LRU_GEN_ENABLED	"/sys/kernel/mm/lru_gen/enabled"

/* Pages flagged in a ramfs file of MK_PAGES pages read @passes times */
static int mk_ramfs_case(const char *dir, int passes)
{
	size_t pg = getpagesize();
	char path[PC_PATH_LEN], *buf = malloc(pg);
	int fd, n = -2;

	snprintf(path, sizeof(path), "%s/mkr%d", dir, passes);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0 && buf)
		n = mk_count(fd, buf, passes, pg);
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(buf);
	return n;
}

/*
 * ramfs folios are unevictable, and follow the rule of ext4 with either
 * LRU: one read flags no page, a second flags every page.  With the
 * classic LRU, folio_mark_accessed() references them as it does any
 * folio; MGLRU's lru_gen_inc_refs() leaves folios on the unevictable list
 * alone, so the marker references them itself (without that, a second
 * read flagged only the pages that had not reached the LRU at the first:
 * 3 of 16 in one run).  Checked with whichever LRU runs, and with the
 * other too where /sys/kernel/mm/lru_gen/enabled can be switched (then
 * restored).
 */
TEST(marking_ramfs)
{
	char dir[] = "/tmp/pc_ramfs.XXXXXX", saved[32] = "";
	int mode, nmodes = 1, once = 0, twice = 0, fast;
	bool mglru = false, can_switch;
	uint64_t v;

	if (pc_vmstat(PC_VMSTAT_RCU_DEFERRED, &v))
		SKIP(return, "/proc/vmstat has no %s (kernel without the series)",
		     PC_VMSTAT_RCU_DEFERRED);
	if (!pc_is_root())
		SKIP(return, "mounting ramfs and page frame numbers need root");
	ASSERT_NE(NULL, mkdtemp(dir));
	if (mount("pagecache_ramfs", dir, "ramfs", 0, NULL)) {
		rmdir(dir);
		SKIP(return, "mount ramfs: %s", strerror(errno));
	}
	/* folios are flagged only while the switch is on */
	fast = pc_fast_read_get();
	if (fast >= 0 && pc_fast_read_set(1)) {
		umount(dir);
		rmdir(dir);
		ASSERT_TRUE(0) TH_LOG("cannot turn the fast read switch on");
	}
	if (!pc_read_file(LRU_GEN_ENABLED, saved, sizeof(saved)))
		mglru = strtoul(saved, NULL, 16) & 1;
	can_switch = saved[0] && !pc_write_file(LRU_GEN_ENABLED,
						mglru ? "y" : "n");
	if (can_switch)
		nmodes = 2;
	for (mode = 0; mode < nmodes; mode++) {
		bool on = mode ? !mglru : mglru;

		if (mode && pc_write_file(LRU_GEN_ENABLED, on ? "y" : "n"))
			break;
		once = mk_ramfs_case(dir, 1);
		twice = mk_ramfs_case(dir, 2);
		ksft_print_msg("ramfs, %s: pages of %d flagged: read once %d, read twice %d\n",
			       on ? "MGLRU" : "classic LRU", MK_PAGES, once,
			       twice);
		if (once == -1 || twice == -1)
			break;
		EXPECT_EQ(0, once) TH_LOG("one pass of page reads");
		EXPECT_EQ(MK_PAGES, twice)
			TH_LOG("two passes with %s", on ? "MGLRU" : "the classic LRU");
	}
	if (can_switch)
		pc_write_file(LRU_GEN_ENABLED, saved);
	if (fast >= 0)
		pc_fast_read_set(fast);
	umount(dir);
	rmdir(dir);
	if (once == -1 || twice == -1)
		SKIP(return, "no /proc/kpageflags or pagemap PFNs here");
}

#define HG_NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"
/*
 * How long growing the hugetlb pool may take while a truncate storm runs.
 * A __GFP_RETRY_MAYFAIL order-9 allocation that cannot succeed fails after
 * reclaim and compaction give up; in a 2-CPU TCG guest with 2 GiB the whole
 * resize took seconds.  Drained before the allocator's early exits and
 * counted as progress whenever a page was in flight, it retried for as
 * long as the storm kept one there.
 */
#define HG_GROW_MAX	60.0

static void hg_storm(FIXTURE_DATA(cnt) *self, int id, pid_t parent)
{
	char tag[32];
	int i;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	/* The first to go if the shrunken memory runs out. */
	pc_write_file("/proc/self/oom_score_adj", "1000");
	snprintf(tag, sizeof(tag), "hg%d", id);
	for (i = 0;; i++)
		if (cnt_storm_file(&self->b, tag, self->buf, CNT_SIZE / 4, 5, i))
			_exit(1);
}

/*
 * Grow the hugetlb pool to all of RAM, which must fail part way, while one
 * truncate storm per CPU keeps folios waiting for their grace period: the
 * resize must end (its last allocation fail) within HG_GROW_MAX seconds.
 * Then the pool goes back to its size before.
 */
TEST_F_TIMEOUT(cnt, hugetlb_grow_storm, 180)
{
	char buf[64], target[32];
	pid_t pids[64], parent = getpid(), grower;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, nr = 0;
	uint64_t d0, d1, hp_kib = 0, total_kib = 0, got = 0;
	double t0, took = -1;
	int status;

	if (!pc_is_root())
		SKIP(return, "resizing the hugetlb pool needs root");
	if (pc_read_file(HG_NR_HUGEPAGES, buf, sizeof(buf)))
		SKIP(return, "no " HG_NR_HUGEPAGES " (CONFIG_HUGETLBFS)");
	if (strtoul(buf, NULL, 10))
		SKIP(return, "the hugetlb pool is in use here (%s pages)", buf);
	if (pc_read_key("/proc/meminfo", "Hugepagesize:", &hp_kib) || !hp_kib ||
	    pc_read_key("/proc/meminfo", "MemTotal:", &total_kib))
		SKIP(return, "no Hugepagesize or MemTotal in /proc/meminfo");
	snprintf(target, sizeof(target), "%llu",
		 (unsigned long long)(total_kib / hp_kib));
	if (ncpu > (long)ARRAY_SIZE(pids))
		ncpu = ARRAY_SIZE(pids);

	d0 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	for (i = 0; i < ncpu; i++) {
		pids[nr] = fork();
		ASSERT_LE(0, pids[nr]);
		if (!pids[nr])
			hg_storm(self, i, parent);
		nr++;
	}
	usleep(500000);
	t0 = pc_now();
	grower = fork();
	ASSERT_LE(0, grower);
	if (!grower)
		_exit(pc_write_file(HG_NR_HUGEPAGES, target) ? 1 : 0);
	while (pc_now() - t0 < HG_GROW_MAX) {
		if (waitpid(grower, &status, WNOHANG) == grower) {
			took = pc_now() - t0;
			break;
		}
		usleep(20000);
	}
	d1 = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	/* Stop the storm first: that also ends a retry loop that waits on it. */
	for (i = 0; i < nr; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < nr; i++)
		waitpid(pids[i], NULL, 0);
	if (took < 0)
		waitpid(grower, &status, 0);
	if (!pc_read_file(HG_NR_HUGEPAGES, buf, sizeof(buf)))
		got = strtoull(buf, NULL, 10);
	pc_write_file(HG_NR_HUGEPAGES, "0");
	ksft_print_msg("%s: nr_hugepages %s asked, %llu reached in %.1fs (limit %.0fs) with %ld storm processes; %s +%llu\n",
		       self->b.name, target, (unsigned long long)got, took,
		       HG_GROW_MAX, nr, PC_VMSTAT_RCU_DEFERRED,
		       (unsigned long long)(d1 - d0));
	ASSERT_LE(0, took)
		TH_LOG("growing the hugetlb pool did not end within %.0fs while folios were deferred",
		       HG_GROW_MAX);
	ASSERT_LT(0, d1 - d0) TH_LOG("no folio freed through RCU during the storm");
}

#define MSO_SOFT_OFFLINE	"/sys/devices/system/memory/soft_offline_page"
#define MSO_FILES		64
/*
 * What the cgroup may still be charged for once the test's files are gone
 * and caches dropped: file system metadata that the child brought in.
 * Measured in a 2-CPU guest: 4-20 KiB on ext4, 0-4 KiB on xfs, which needs
 * up to half a second to get there (up to 64 KiB before, until its inodes
 * are reclaimed).  The wait ends below MSO_SETTLED, or after MSO_WAIT
 * seconds.  A leak is a page per soft-offlined hot file, 256 KiB.
 */
#define MSO_SLACK		(64 << 10)
#define MSO_SETTLED		(32 << 10)
#define MSO_WAIT		10.0

/* What the child in the cgroup saw, in memory shared with the parent. */
struct mso_res {
	unsigned int flagged;	/* order-0 pages with PG_rcu_free */
	unsigned int offlined;	/* soft offline succeeded */
	unsigned int evicted;	/* ... by dropping the page from the cache */
	unsigned int leaky;	/* evicted and flagged */
	int offline_err;	/* errno of the first failed soft offline */
	int err;		/* errno of the failed step */
};

/* Is the first page of @fd in the page cache?  -1 on error. */
static int mso_cached(int fd, size_t pg)
{
	unsigned char vec = 0;
	void *map;
	int ret;

	map = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	ret = mincore(map, pg, &vec);
	munmap(map, pg);
	return ret ? -1 : vec & 1;
}

/*
 * Soft offline the page of @fd at offset 0 while it is unmapped: a clean
 * unmapped page cache page is dropped from the cache and poisoned
 * (mapping_evict_folio(), page_handle_poison()), anything else migrated.
 * Returns 0, or the step that failed.
 */
static int mso_offline(int fd, size_t pg, struct mso_res *res)
{
	uint64_t pfn, kpf;
	bool flagged;
	char num[32];
	uint8_t *map;
	int cached;

	map = mmap(NULL, pg, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return 10;
	if (pc_pfn(map, &pfn)) {
		munmap(map, pg);
		return 11;
	}
	/* munmap() also drains this CPU's LRU batches (lru_add_drain()). */
	munmap(map, pg);
	if (pc_kpageflags(pfn, &kpf))
		return 12;
	flagged = (kpf >> PC_KPF_RCU_FREE & 1) &&
		  !(kpf >> KPF_COMPOUND_HEAD & 1) &&
		  !(kpf >> KPF_COMPOUND_TAIL & 1);
	res->flagged += flagged;
	snprintf(num, sizeof(num), "%#llx\n", (unsigned long long)(pfn * pg));
	if (pc_write_file(MSO_SOFT_OFFLINE, num)) {
		if (!res->offline_err)
			res->offline_err = errno;
		return 0;
	}
	res->offlined++;
	cached = mso_cached(fd, pg);
	if (cached < 0)
		return 13;
	if (!cached) {
		res->evicted++;
		res->leaky += flagged;
	}
	return 0;
}

/*
 * The child in the cgroup: MSO_FILES one-page files written, synced, read
 * hot in small reads, each page soft-offlined while unmapped, the files
 * deleted.  Returns 0, or the step that failed.
 */
static int mso_child(struct pc_backing *b, struct mso_res *res)
{
	static char paths[MSO_FILES][PC_PATH_LEN];
	static int fds[MSO_FILES];
	size_t pg = b->page_size, off;
	char buf[256];
	cpu_set_t set;
	int i, k, step;

	/* One CPU, so that munmap() drains the batches the page may be in. */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 1;
	for (i = 0; i < MSO_FILES; i++) {
		fds[i] = pc_backing_create(b, "mso", 0, paths[i], PC_PATH_LEN);
		if (fds[i] < 0)
			return 2;
		if (pc_write_pattern(fds[i], 0, pg, PC_MAGIC_DATA, i + 1, 1))
			return 3;
	}
	/* Clean pages: soft offline drops them rather than migrates them. */
	if (syncfs(fds[0]))
		return 4;
	/* Every page read again in small reads: hot, flagged. */
	for (i = 0; i < MSO_FILES; i++)
		for (k = 0; k < 4; k++)
			for (off = 0; off < pg; off += sizeof(buf))
				if (pread(fds[i], buf, sizeof(buf), off) !=
				    sizeof(buf))
					return 5;
	for (i = 0; i < MSO_FILES; i++) {
		step = mso_offline(fds[i], pg, res);
		if (step)
			return step;
	}
	for (i = 0; i < MSO_FILES; i++) {
		unlink(paths[i]);
		close(fds[i]);
	}
	return 0;
}

/* memory.current of @cg, once the per-CPU charge caches are drained. */
static int64_t mso_current(const char *cg)
{
	char p[PC_PATH_LEN + 32], buf[64];

	/* Above memory.high: drain_all_stock(), then reclaim. */
	if (pc_cgroup_write(cg, "memory.high", "0\n"))
		return -1;
	snprintf(p, sizeof(p), "%s/memory.current", cg);
	if (pc_read_file(p, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * Drop caches until memory.current of @cg is back within MSO_SETTLED of
 * @before, for at most MSO_WAIT seconds; returns the seconds waited, with
 * the last memory.current (-1: none) in @after.
 */
static double mso_settle(const char *cg, int64_t before, int64_t *after)
{
	double start = pc_now();

	do {
		pc_drop_caches();
		*after = mso_current(cg);
		if (*after >= 0 && *after <= before + MSO_SETTLED)
			break;
		usleep(100000);
	} while (pc_now() - start < MSO_WAIT);
	return pc_now() - start;
}

/*
 * One round of memcg_soft_offline with the fast read switch at @fast (-1:
 * no switch).  A failed assertion may leave the cgroup behind.
 */
static void mso_round(struct __test_metadata *_metadata,
		      FIXTURE_DATA(cnt) *self, int fast)
{
	char cg[PC_PATH_LEN], reason[PC_REASON_LEN];
	int64_t before, after = -1;
	struct mso_res *res;
	uint64_t d, f;
	double waited;
	int status, rm;
	pid_t child;

	if (fast >= 0)
		ASSERT_EQ(0, pc_fast_read_set(fast));
	ASSERT_EQ(0, pc_memcg_create(cg, sizeof(cg), "pagecache_mso", reason))
		TH_LOG("%s", reason);
	/* Touched here: the child's writes to it are not charged to cg. */
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	memset(res, 0, sizeof(*res));
	before = mso_current(cg);
	ASSERT_LE(0, before);
	ASSERT_EQ(0, pc_cgroup_write(cg, "memory.high", "max\n"));

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		int step = pc_cgroup_move(cg, 0) ? 100 : mso_child(&self->b, res);

		res->err = errno;
		_exit(step);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));

	/* Files gone: the deferred frees uncharge within a grace period. */
	waited = mso_settle(cg, before, &after);
	d = cnt_get(_metadata, PC_VMSTAT_RCU_DEFERRED);
	f = cnt_get(_metadata, PC_VMSTAT_RCU_FREED);
	rm = rmdir(cg) ? errno : 0;
	ksft_print_msg("%s, fast read %d: %u pages, %u hot; %u soft-offlined (%s), %u dropped (%u hot); memory.current %lld KiB before, %lld KiB after %.1fs; in flight %lld\n",
		       self->b.name, fast, MSO_FILES, res->flagged,
		       res->offlined,
		       res->offline_err ? strerror(res->offline_err) : "none failed",
		       res->evicted, res->leaky, (long long)before >> 10,
		       (long long)after >> 10, waited, (long long)(d - f));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the child in %s failed (status 0x%x: step %d of mso_child(), 100: joining the cgroup; %s)",
		       cg, status, WIFEXITED(status) ? WEXITSTATUS(status) : 0,
		       strerror(res->err));
	ASSERT_EQ(0, rm) TH_LOG("rmdir %s: %s", cg, strerror(rm));
	ASSERT_LE(0, after) TH_LOG("no memory.current in %s", cg);
	/* EXPECT: the round with the switch off still runs, for comparison */
	EXPECT_GE(before + MSO_SLACK, after)
		TH_LOG("%lld KiB of memory.current not given back %.0fs after the files are gone: %u soft-offlined hot pages, %llu KiB",
		       (long long)(after - before) >> 10, MSO_WAIT, res->leaky,
		       (unsigned long long)res->leaky * self->b.page_size >> 10);
	if (fast)
		EXPECT_LE(MSO_FILES / 2, res->leaky)
			TH_LOG("only %u of %u pages were hot, flagged and dropped by soft offline: the test tests nothing",
			       res->leaky, MSO_FILES);
	munmap(res, sizeof(*res));
}

#define MMG_PAGES	64
#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE	(1 << 1)
#endif

/*
 * The child of memcg_migrate, in the cgroup: a file of MMG_PAGES pages
 * written, read hot, mapped and moved page by page to the node it is not
 * on (move_pages()), unmapped and deleted.  *@moved: pages moved, *@hot:
 * of them, flagged before the move.  Returns 0, or the step that failed.
 */
static int mmg_child(struct pc_backing *b, void *buf, unsigned int *moved,
		     unsigned int *hot)
{
	size_t pg = b->page_size, len = MMG_PAGES * pg;
	void *pages[MMG_PAGES];
	int nodes[MMG_PAGES], status[MMG_PAGES];
	char path[PC_PATH_LEN];
	uint64_t pfn, kpf;
	uint8_t *map;
	int fd, i, k;

	fd = pc_backing_create(b, "mmg", 0, path, sizeof(path));
	if (fd < 0)
		return 1;
	if (pc_write_pattern(fd, 0, len, PC_MAGIC_DATA, 7, 1))
		return 2;
	for (k = 0; k < 3; k++)
		if (pread(fd, buf, len, 0) != (ssize_t)len)
			return 3;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return 4;
	for (i = 0; i < MMG_PAGES; i++)
		pages[i] = map + i * pg;
	if (syscall(SYS_move_pages, 0, MMG_PAGES, pages, NULL, status, 0))
		return 5;
	for (i = 0; i < MMG_PAGES; i++) {
		nodes[i] = status[i] == 0 ? 1 : 0;
		if (!pc_pfn(pages[i], &pfn) && !pc_kpageflags(pfn, &kpf) &&
		    (kpf >> PC_KPF_RCU_FREE & 1))
			(*hot)++;
	}
	if (syscall(SYS_move_pages, 0, MMG_PAGES, pages, nodes, status,
		    MPOL_MF_MOVE) < 0)
		return 6;
	for (i = 0; i < MMG_PAGES; i++)
		*moved += status[i] == nodes[i];
	munmap(map, len);
	if (path[0])
		unlink(path);
	close(fd);
	return 0;
}

/*
 * A migrated flagged folio: mem_cgroup_migrate() moves its charge to the
 * new folio, and the old one waits for its grace period charged to nobody.
 * A child in a fresh cgroup moves the pages of a hot file to the other
 * node and deletes the file; the cgroup's memory.current must come back
 * within MSO_SLACK of where it started (a charge kept by the old copy, or
 * taken twice, would not), and the cgroup must go away.
 */
TEST_F_TIMEOUT(cnt, memcg_migrate, 120)
{
	char cg[PC_PATH_LEN], reason[PC_REASON_LEN];
	unsigned int *res;
	int64_t before, after = -1;
	double waited;
	int status, rm;
	pid_t child;

	if (!pc_is_root())
		SKIP(return, "a memory cgroup and page frame numbers need root");
	if (pc_nr_mem_nodes() < 2)
		SKIP(return, "needs 2 NUMA nodes with memory");
	if (syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0) < 0 &&
	    errno == ENOSYS)
		SKIP(return, "no move_pages(2) (CONFIG_NUMA_MIGRATION)");
	if (pc_memcg_create(cg, sizeof(cg), "pagecache_mmg", reason))
		SKIP(return, "%s", reason);
	res = mmap(NULL, 2 * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	res[0] = 0;
	res[1] = 0;
	before = mso_current(cg);
	ASSERT_LE(0, before);
	ASSERT_EQ(0, pc_cgroup_write(cg, "memory.high", "max\n"));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(pc_cgroup_move(cg, 0) ? 100 :
		      mmg_child(&self->b, self->buf, &res[0], &res[1]));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	waited = mso_settle(cg, before, &after);
	rm = rmdir(cg) ? errno : 0;
	ksft_print_msg("%s: %u of %d pages moved to the other node, %u of them flagged before; memory.current %lld KiB before, %lld KiB after %.1fs\n",
		       self->b.name, res[0], MMG_PAGES, res[1],
		       (long long)before >> 10, (long long)after >> 10,
		       waited);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the child failed (status 0x%x: step %d of mmg_child(), 100: joining the cgroup)",
		       status, WIFEXITED(status) ? WEXITSTATUS(status) : 0);
	ASSERT_EQ(0, rm) TH_LOG("rmdir %s: %s", cg, strerror(rm));
	ASSERT_GE(before + MSO_SLACK, after)
		TH_LOG("%lld KiB of memory.current not given back after the migrated file was deleted",
		       (long long)(after - before) >> 10);
	ASSERT_LT(0, res[0]) TH_LOG("move_pages() moved no page");
	ASSERT_LT(0, res[1]) TH_LOG("no moved page was flagged: the test tests nothing");
	munmap(res, 2 * sizeof(*res));
}

/*
 * Hot page cache pages soft-offlined in a memory cgroup, then deleted:
 * the cgroup's charge comes back.  Soft offline drops a clean unmapped
 * page from the page cache, and page_handle_poison() puts its last
 * reference and takes a new one; the page is freed as poisoned, not
 * deferred, so its uncharge cannot wait for mm/rcu_free.c as a deferred
 * folio's does.  A child in a fresh cgroup writes MSO_FILES one-page
 * files, syncs them, reads them hot in small reads (PG_rcu_free, checked
 * in /proc/kpageflags), soft-offlines each page through sysfs while it is
 * unmapped and deletes the files; once it is gone and caches are dropped,
 * memory.current must be back within MSO_SLACK of where it started.  Then
 * again with the fast read switched off, nothing flagged, for comparison.
 * The pages stay poisoned until reboot.
 */
TEST_F_TIMEOUT(cnt, memcg_soft_offline, 120)
{
	const char *env = getenv(PC_ENV_HWPOISON);
	char cg[PC_PATH_LEN], reason[PC_REASON_LEN];

	if (!env || strcmp(env, "1"))
		SKIP(return, "soft offline takes pages out of use until reboot: set %s=1 where that is fine (make check's guests do)",
		     PC_ENV_HWPOISON);
	if (self->b.type != PC_EXT4 && self->b.type != PC_XFS)
		SKIP(return, "soft offline migrates %s pages (dirty, never dropped): only disk file systems take the path tested",
		     self->b.name);
	if (!pc_is_root())
		SKIP(return, "soft offline and /proc/kpageflags need root");
	if (access(MSO_SOFT_OFFLINE, W_OK))
		SKIP(return, "no %s (CONFIG_MEMORY_FAILURE)", MSO_SOFT_OFFLINE);
	if (pc_memcg_create(cg, sizeof(cg), "pagecache_mso", reason))
		SKIP(return, "%s", reason);
	rmdir(cg);

	mso_round(_metadata, self, self->saved_fast >= 0 ? 1 : -1);
	if (self->saved_fast >= 0)
		mso_round(_metadata, self, 0);
}

TEST_HARNESS_MAIN

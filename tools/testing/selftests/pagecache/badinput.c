// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to page-cache reads: unmapped, partly unmapped and read-only
 * user buffers, a buffer that maps the file being read, negative and huge
 * offsets and counts, write-only files and directories, and a page of the
 * file hit by a memory error.
 *
 * Every case checks the documented slow-path result exactly (a read that
 * faults after copying some bytes returns exactly the bytes up to the
 * faulting page), and when the fast path can be switched off, the results
 * (return value, errno, file position, bytes) with it on and off must be
 * identical.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "pagecache_util.h"

#define BAD_SIZE	(256 * 1024 + 100)
#define BAD_MAX_RES	256

/* NULL, but not known to be NULL at compile time (-Wnonnull). */
void *bad_null_buf;

struct bad_res {
	ssize_t ret;
	int err;
	int64_t pos;
	uint64_t sum;
};

FIXTURE(bad) {
	struct pc_backing b;
	char path[512];
	int fd;
	int saved_fast;
	size_t pg;
	uint8_t *ref;
	struct bad_res res[BAD_MAX_RES];
	int nr_res;
};

FIXTURE_VARIANT(bad) {
	enum pc_backing_type backing;
};

FIXTURE_VARIANT_ADD(bad, ext4)
{
	.backing = PC_EXT4,
};

FIXTURE_VARIANT_ADD(bad, xfs)
{
	.backing = PC_XFS,
};

FIXTURE_VARIANT_ADD(bad, tmpfs)
{
	.backing = PC_TMPFS,
};

FIXTURE_VARIANT_ADD(bad, tmpfs_huge)
{
	.backing = PC_TMPFS_HUGE,
};

FIXTURE_VARIANT_ADD(bad, memfd)
{
	.backing = PC_MEMFD,
};

FIXTURE_SETUP(bad)
{
	char reason[PC_REASON_LEN];
	int ret;

	self->fd = -1;
	self->saved_fast = -1;
	ret = pc_backing_setup(&self->b, variant->backing, reason);
	if (ret == KSFT_SKIP)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, ret) TH_LOG("%s", reason);
	self->pg = self->b.page_size;
	self->fd = pc_backing_create(&self->b, "bad", 0, self->path,
				     sizeof(self->path));
	ASSERT_LE(0, self->fd);
	self->ref = malloc(BAD_SIZE);
	ASSERT_NE(NULL, self->ref);
	self->saved_fast = pc_fast_read_get();
}

FIXTURE_TEARDOWN(bad)
{
	if (self->saved_fast >= 0)
		pc_fast_read_set(self->saved_fast);
	if (self->fd >= 0)
		close(self->fd);
	pc_backing_teardown(&self->b);
}

static uint64_t bad_sum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

static void bad_record(FIXTURE_DATA(bad) *self, ssize_t ret, int err,
		       int64_t pos, const void *buf)
{
	struct bad_res *r = &self->res[self->nr_res++ % BAD_MAX_RES];

	r->ret = ret;
	r->err = ret < 0 ? err : 0;
	r->pos = pos;
	r->sum = ret > 0 && buf ? bad_sum(buf, ret) : 0;
}

/*
 * Read @size bytes of @fd three times: the fast path only serves folios
 * that were read before.
 */
static int bad_read_hot(int fd, void *buf, size_t size)
{
	int i;

	for (i = 0; i < 3; i++)
		if (pread(fd, buf, size, 0) != (ssize_t)size)
			return -1;
	return 0;
}

/* (Re)write the seeded file content, then make the file's folios hot. */
static int bad_reset(FIXTURE_DATA(bad) *self)
{
	static uint8_t buf[BAD_SIZE];
	struct pc_rng r;
	size_t i;

	pc_rng_init(&r, pc_seed());
	for (i = 0; i < BAD_SIZE; i++)
		self->ref[i] = pc_rand(&r) | 1;	/* never 0 */
	if (ftruncate(self->fd, BAD_SIZE) ||
	    pc_pwrite_all(self->fd, self->ref, BAD_SIZE, 0))
		return -1;
	return bad_read_hot(self->fd, buf, BAD_SIZE);
}

typedef void (*bad_case_fn)(struct __test_metadata *_metadata,
			    FIXTURE_DATA(bad) *self);

/*
 * Run @fn with the fast path on and off where possible; both runs must
 * record the same results.
 */
static void bad_run(struct __test_metadata *_metadata, FIXTURE_DATA(bad) *self,
		    bad_case_fn fn)
{
	struct bad_res first[BAD_MAX_RES];
	int on, nr_first = 0, i;

	pc_print_seed();
	if (self->saved_fast < 0 || pc_fast_read_set(self->saved_fast)) {
		ksft_print_msg("%s %s: checked against the documented slow-path results only\n",
			       PC_SYSCTL_FAST_READ,
			       self->saved_fast < 0 ? "absent" : "not writable");
		ASSERT_EQ(0, bad_reset(self));
		fn(_metadata, self);
		return;
	}
	for (on = 1; on >= 0; on--) {
		ASSERT_EQ(0, pc_fast_read_set(on));
		self->nr_res = 0;
		ASSERT_EQ(0, bad_reset(self));
		fn(_metadata, self);
		if (_metadata->exit_code)
			TH_LOG("failure above is with %s=%d",
			       PC_SYSCTL_FAST_READ, on);
		ASSERT_EQ(0, _metadata->exit_code);
		if (on) {
			nr_first = self->nr_res;
			memcpy(first, self->res, sizeof(first));
			continue;
		}
		ASSERT_EQ(nr_first, self->nr_res);
		for (i = 0; i < nr_first && i < BAD_MAX_RES; i++) {
			struct bad_res *a = &first[i], *b = &self->res[i];

			EXPECT_TRUE(a->ret == b->ret && a->err == b->err &&
				    a->pos == b->pos && a->sum == b->sum)
				TH_LOG("result %d: fast path on: ret %zd errno %d pos %lld sum %016llx; off: ret %zd errno %d pos %lld sum %016llx",
				       i, a->ret, a->err, (long long)a->pos,
				       (unsigned long long)a->sum,
				       b->ret, b->err, (long long)b->pos,
				       (unsigned long long)b->sum);
		}
	}
	ASSERT_EQ(0, pc_fast_read_set(self->saved_fast));
}

/* Two pages: the first usable, the second unmapped or read-only. */
static uint8_t *bad_area(struct __test_metadata *_metadata,
			 FIXTURE_DATA(bad) *self, int second_prot)
{
	uint8_t *area;

	area = mmap(NULL, 2 * self->pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return NULL;
	memset(area, 0, 2 * self->pg);
	if (second_prot < 0)
		munmap(area + self->pg, self->pg);
	else
		mprotect(area + self->pg, self->pg, second_prot);
	return area;
}

static void bad_unmap(FIXTURE_DATA(bad) *self, uint8_t *area)
{
	munmap(area, 2 * self->pg);
}

static void case_efault(struct __test_metadata *_metadata,
			FIXTURE_DATA(bad) *self)
{
	uint8_t *area = bad_area(_metadata, self, -1);
	uint8_t *hole = area + self->pg;
	struct iovec iov[2];
	ssize_t ret;
	int64_t pos;

	ASSERT_NE(NULL, area);
	errno = 0;
	ret = pread(self->fd, hole, 100, 10);
	bad_record(self, ret, errno, -1, NULL);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EFAULT, errno);

	ASSERT_EQ(123, lseek(self->fd, 123, SEEK_SET));
	errno = 0;
	ret = read(self->fd, hole, self->pg);
	pos = lseek(self->fd, 0, SEEK_CUR);
	bad_record(self, ret, errno, pos, NULL);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(123, pos);

	/* A NULL buffer and a kernel address. */
	errno = 0;
	ret = pread(self->fd, bad_null_buf, 10, 0);
	bad_record(self, ret, errno, -1, NULL);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EFAULT, errno);
	errno = 0;
	ret = pread(self->fd, (void *)-4096L, 10, 0);
	bad_record(self, ret, errno, -1, NULL);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EFAULT, errno);

	/* preadv whose first segment is unmapped. */
	iov[0].iov_base = hole;
	iov[0].iov_len = 64;
	iov[1].iov_base = area;
	iov[1].iov_len = 64;
	errno = 0;
	ret = preadv(self->fd, iov, 2, 0);
	bad_record(self, ret, errno, -1, NULL);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EFAULT, errno);

	/* The whole buffer read-only. */
	ASSERT_EQ(0, mprotect(area, self->pg, PROT_READ));
	errno = 0;
	ret = pread(self->fd, area, 64, 0);
	bad_record(self, ret, errno, -1, NULL);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EFAULT, errno);
	bad_unmap(self, area);
}

/*
 * The buffer's tail faults: the read returns exactly the bytes up to the
 * faulting page, with the right content, and moves the file position by
 * exactly that much.
 */
static void bad_tail(struct __test_metadata *_metadata, FIXTURE_DATA(bad) *self,
		     int second_prot)
{
	size_t ks[] = { 1, 7, 100, 4095 };
	int64_t offs[] = { 0, 1, 4096 - 50, 65536 - 3, BAD_SIZE - 6000 };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		for (j = 0; j < ARRAY_SIZE(offs); j++) {
			uint8_t *area = bad_area(_metadata, self, second_prot);
			size_t k = ks[i] % self->pg;
			uint8_t *start = area + self->pg - k;
			int64_t off = offs[j], pos;
			struct iovec iov[2];
			ssize_t ret;

			ASSERT_NE(NULL, area);
			errno = 0;
			ret = pread(self->fd, start, 2 * self->pg, off);
			bad_record(self, ret, errno, -1, start);
			ASSERT_EQ((ssize_t)k, ret)
				TH_LOG("pread(off=%lld, len=%zu) with %zu writable bytes before a %s page: %zd (%s)",
				       (long long)off, 2 * self->pg, k,
				       second_prot < 0 ? "unmapped" : "read-only",
				       ret, strerror(errno));
			ASSERT_EQ(0, memcmp(start, self->ref + off, k));

			ASSERT_EQ(off, lseek(self->fd, off, SEEK_SET));
			memset(area, 0, self->pg);
			ret = read(self->fd, start, 3 * self->pg);
			pos = lseek(self->fd, 0, SEEK_CUR);
			bad_record(self, ret, errno, pos, start);
			ASSERT_EQ((ssize_t)k, ret);
			ASSERT_EQ(off + (int64_t)k, pos);
			ASSERT_EQ(0, memcmp(start, self->ref + off, k));

			/* The same through two iovecs: good, then bad. */
			memset(area, 0, self->pg);
			iov[0].iov_base = area;
			iov[0].iov_len = self->pg - k;
			iov[1].iov_base = area + self->pg;
			iov[1].iov_len = self->pg;
			ret = preadv(self->fd, iov, 2, off);
			bad_record(self, ret, errno, -1, area);
			ASSERT_EQ((ssize_t)(self->pg - k), ret);
			ASSERT_EQ(0, memcmp(area, self->ref + off,
					    self->pg - k));
			bad_unmap(self, area);
		}
	}
}

static void case_tail_unmapped(struct __test_metadata *_metadata,
			       FIXTURE_DATA(bad) *self)
{
	bad_tail(_metadata, self, -1);
}

static void case_tail_readonly(struct __test_metadata *_metadata,
			       FIXTURE_DATA(bad) *self)
{
	bad_tail(_metadata, self, PROT_READ);
}

static void bad_expect(struct __test_metadata *_metadata,
		       FIXTURE_DATA(bad) *self, const char *what,
		       ssize_t ret, int err, ssize_t exp, int exp_err)
{
	bad_record(self, ret, err, -1, NULL);
	ASSERT_EQ(exp, ret) TH_LOG("%s: returned %zd (%s), expected %zd (%s)",
				   what, ret, strerror(err), exp,
				   strerror(exp_err));
	if (exp < 0)
		ASSERT_EQ(exp_err, err) TH_LOG("%s: errno %s, expected %s",
					       what, strerror(err),
					       strerror(exp_err));
}

#define BAD_EXPECT(self, call, exp, exp_err) do {			\
	ssize_t __r;							\
	errno = 0;							\
	__r = (call);							\
	bad_expect(_metadata, self, #call, __r, errno, exp, exp_err);	\
} while (0)

static void case_offsets(struct __test_metadata *_metadata,
			 FIXTURE_DATA(bad) *self)
{
	uint8_t buf[256];
	struct iovec iov = { buf, sizeof(buf) };
	int fd = self->fd;

	BAD_EXPECT(self, pread(fd, buf, 10, -1), -1, EINVAL);
	BAD_EXPECT(self, pread(fd, buf, 10, LLONG_MIN), -1, EINVAL);
	BAD_EXPECT(self, pread(fd, buf, 0, -1), -1, EINVAL);
	BAD_EXPECT(self, preadv(fd, &iov, 1, -4096), -1, EINVAL);
	BAD_EXPECT(self, lseek(fd, -1, SEEK_SET), -1, EINVAL);
	/* Near s_maxbytes and LLONG_MAX. */
	BAD_EXPECT(self, pread(fd, buf, 5, LLONG_MAX - 10), 0, 0);
	BAD_EXPECT(self, pread(fd, buf, 100, LLONG_MAX - 10), -1, EINVAL);
	BAD_EXPECT(self, pread(fd, buf, 0, LLONG_MAX), 0, 0);
	BAD_EXPECT(self, pread(fd, buf, 1, LLONG_MAX), -1, EINVAL);
	BAD_EXPECT(self, pread(fd, buf, 100, 1LL << 62), 0, 0);
	BAD_EXPECT(self, pread(fd, buf, 100, (1LL << 44) - 1), 0, 0);
	BAD_EXPECT(self, pread(fd, buf, 100, BAD_SIZE), 0, 0);
	BAD_EXPECT(self, pread(fd, buf, 100, BAD_SIZE + 1), 0, 0);
	BAD_EXPECT(self, pread(fd, buf, 100, BAD_SIZE - 1), 1, 0);
	ASSERT_EQ(self->ref[BAD_SIZE - 1], buf[0]);
	BAD_EXPECT(self, pread(fd, buf, 0, 0), 0, 0);
	BAD_EXPECT(self, pread(fd, NULL, 0, 0), 0, 0);
}

/*
 * Counts larger than the buffer and than MAX_RW_COUNT: the read stops at
 * EOF, so only the file's bytes are copied.  The buffer is placed low in
 * the address space so that buf + count stays a valid user address.
 */
static void case_huge_counts(struct __test_metadata *_metadata,
			     FIXTURE_DATA(bad) *self)
{
	size_t len = BAD_SIZE + self->pg;
	size_t counts[] = { 0x7ffff001UL, 1UL << 40 };
	int64_t offs[] = { 0, 12345, BAD_SIZE - 10, BAD_SIZE, BAD_SIZE + 7 };
	unsigned int i, j;
	uint8_t *buf;
	ssize_t ret;

	buf = mmap((void *)(1UL << 32), len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (buf == MAP_FAILED)
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		if ((uintptr_t)buf + counts[i] >= (1UL << 47))
			continue;
		for (j = 0; j < ARRAY_SIZE(offs); j++) {
			ssize_t exp = offs[j] >= BAD_SIZE ? 0 :
				      BAD_SIZE - offs[j];

			errno = 0;
			ret = pread(self->fd, buf, counts[i], offs[j]);
			bad_record(self, ret, errno, -1, buf);
			ASSERT_EQ(exp, ret) TH_LOG("pread(count=%#zx, off=%lld): %zd (%s)",
						   counts[i], (long long)offs[j],
						   ret, strerror(errno));
			ASSERT_EQ(0, memcmp(buf, self->ref + offs[j], exp));
		}
	}
	/*
	 * SSIZE_MAX and SIZE_MAX: vfs_read() checks access_ok(buf, count)
	 * first, which fails where user space is smaller than that; where it
	 * passes, the count is clamped and the read stops at EOF.
	 */
	for (i = 0; i < 2; i++) {
		size_t count = i ? SIZE_MAX : SSIZE_MAX;

		errno = 0;
		ret = pread(self->fd, buf, count, 0);
		bad_record(self, ret, errno, -1, NULL);
		ASSERT_TRUE((ret == -1 && errno == EFAULT) ||
			    (ret == -1 && errno == EINVAL && i) ||
			    ret == BAD_SIZE)
			TH_LOG("pread(count=%#zx): %zd (%s)", count, ret,
			       strerror(errno));
	}
	munmap(buf, len);
}

static void case_bad_fds(struct __test_metadata *_metadata,
			 FIXTURE_DATA(bad) *self)
{
	char p[600];
	uint8_t buf[64];
	struct iovec iov = { buf, sizeof(buf) };
	int fd, dfd;

	if (pc_backing_has_path(&self->b))
		snprintf(p, sizeof(p), "%s", self->path);
	else
		snprintf(p, sizeof(p), "/proc/self/fd/%d", self->fd);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open(%s, O_WRONLY): %s", p, strerror(errno));
	BAD_EXPECT(self, read(fd, buf, sizeof(buf)), -1, EBADF);
	BAD_EXPECT(self, pread(fd, buf, sizeof(buf), 0), -1, EBADF);
	BAD_EXPECT(self, preadv(fd, &iov, 1, 0), -1, EBADF);
	close(fd);

	fd = open(p, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	BAD_EXPECT(self, pread(fd, buf, sizeof(buf), 0), -1, EBADF);
	close(fd);

	dfd = open(pc_backing_has_path(&self->b) ? self->b.dir : "/tmp",
		   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dfd);
	BAD_EXPECT(self, read(dfd, buf, sizeof(buf)), -1, EISDIR);
	BAD_EXPECT(self, pread(dfd, buf, sizeof(buf), 0), -1, EISDIR);
	close(dfd);
}

/*
 * The user buffer maps another part of the same file: the copy to user
 * faults on the file's own page cache.  A fast path that copied under RCU
 * straight to user space would deadlock or fault here.
 */
static void case_buffer_maps_file(struct __test_metadata *_metadata,
				  FIXTURE_DATA(bad) *self)
{
	size_t half = 64 * 1024, src = 3, dst = 128 * 1024 + 5;
	uint8_t *map, *priv, *check;
	ssize_t ret;

	check = malloc(BAD_SIZE);
	ASSERT_NE(NULL, check);
	map = mmap(NULL, BAD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	/* Shared mapping: the read modifies the file itself. */
	ret = pread(self->fd, map + dst, half, src);
	bad_record(self, ret, errno, -1, map + dst);
	ASSERT_EQ((ssize_t)half, ret);
	memmove(self->ref + dst, self->ref + src, half);
	ASSERT_EQ(BAD_SIZE, pread(self->fd, check, BAD_SIZE, 0));
	ASSERT_EQ(0, memcmp(check, self->ref, BAD_SIZE));

	/*
	 * Overlapping source and destination in the same file.  As with
	 * memcpy() of overlapping areas, which bytes land in the destination
	 * depends on the copy's granularity (byte by byte in copy_to_user(),
	 * a chunk at a time through a bounce buffer), so only the count and
	 * the bytes around the destination are compared; then the file is
	 * restored, so that what follows starts from the same content.
	 */
	ret = pread(self->fd, map + 4096 + 1, 8192, 4096 - 7);
	bad_record(self, ret, errno, -1, NULL);
	ASSERT_EQ(8192, ret);
	ASSERT_EQ(BAD_SIZE, pread(self->fd, check, BAD_SIZE, 0));
	ASSERT_EQ(0, memcmp(check, map, BAD_SIZE));
	ASSERT_EQ(0, memcmp(check, self->ref, 4096 + 1));
	ASSERT_EQ(0, memcmp(check + 4096 + 1 + 8192,
			    self->ref + 4096 + 1 + 8192,
			    BAD_SIZE - (4096 + 1 + 8192)));
	munmap(map, BAD_SIZE);
	ASSERT_EQ(0, pc_pwrite_all(self->fd, self->ref, BAD_SIZE, 0));

	/* Private mapping of the file as the buffer: copy-on-write. */
	priv = mmap(NULL, BAD_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		    self->fd, 0);
	ASSERT_NE(MAP_FAILED, priv);
	ret = pread(self->fd, priv + dst, half, src);
	bad_record(self, ret, errno, -1, priv + dst);
	ASSERT_EQ((ssize_t)half, ret);
	ASSERT_EQ(0, memcmp(priv + dst, self->ref + src, half));
	ASSERT_EQ(BAD_SIZE, pread(self->fd, check, BAD_SIZE, 0));
	ASSERT_EQ(0, memcmp(check, self->ref, BAD_SIZE));
	munmap(priv, BAD_SIZE);
	free(check);
}

static int bad_sigbus;

static void bad_sigbus_handler(int sig)
{
	__atomic_fetch_add(&bad_sigbus, 1, __ATOMIC_RELAXED);
}

/*
 * A page of the file hit by a memory error (MADV_HWPOISON runs
 * memory_failure() on it).  tmpfs and memfd keep the folio and fail reads
 * of that page with EIO, and a read across it stops short at it; other
 * pages, in the same large folio too, read their data.  ext4 and xfs drop
 * the clean folio, or keep it if they cannot, and read the file's data
 * either way.  A fresh file each run: a poisoned page cannot be written
 * again.
 */
static void case_hwpoison(struct __test_metadata *_metadata,
			  FIXTURE_DATA(bad) *self)
{
	bool shmem = self->b.type == PC_TMPFS ||
		     self->b.type == PC_TMPFS_HUGE || self->b.type == PC_MEMFD;
	size_t pg = self->pg, fs = self->b.folio_size;
	/* In the middle of a large folio where the backing has them. */
	uint64_t p = fs >= 4 * pg ? fs / 2 : pg;
	size_t size = (fs >= 4 * pg ? fs : 4 * pg) + 3 * pg + 100;
	struct sigaction sa = { .sa_handler = bad_sigbus_handler }, old;
	static const struct {
		int64_t off;	/* from the poisoned page */
		size_t len;
	} reads[] = {
		{ 0, 16 }, { 0, 4096 }, { -100, 200 }, { -4096, 8192 },
		{ 4096, 4096 }, { -4096, 4096 }, { 100, 16 },
	};
	uint8_t *data, *buf, *map;
	unsigned int i, k;
	ssize_t ret;
	int64_t pos;
	int fd;

	data = malloc(size);
	buf = malloc(size);
	ASSERT_NE(NULL, data);
	ASSERT_NE(NULL, buf);
	pc_fill(data, 0, size, PC_MAGIC_DATA, 1, 1);
	fd = pc_backing_create(&self->b, "hwpoison", 0, NULL, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pc_pwrite_all(fd, data, size, 0));
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, bad_read_hot(fd, buf, size));

	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(data[p], map[p]);
	/*
	 * memory_failure() sends SIGBUS to a task that maps a dirty page it
	 * poisons (tmpfs pages are dirty): count it, the read is what is
	 * tested.
	 */
	__atomic_store_n(&bad_sigbus, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, &old));
	ret = madvise(map + p, pg, MADV_HWPOISON);
	ASSERT_EQ(0, sigaction(SIGBUS, &old, NULL));
	/*
	 * EBUSY: poisoned, but memory_failure() could not recover the page;
	 * EHWPOISON: poisoned, but a large folio could not be split (an
	 * extra reference, such as a per-CPU LRU batch's): the folio stays
	 * whole and reads still stop at the poisoned page.
	 */
	ASSERT_TRUE(ret == 0 || errno == EBUSY || errno == EHWPOISON)
		TH_LOG("MADV_HWPOISON: %s", strerror(errno));
	munmap(map, size);
	ksft_print_msg("%s: page at %llu poisoned (madvise %s, %d SIGBUS)\n",
		       self->b.name, (unsigned long long)p,
		       ret ? strerror(errno) : "ok",
		       __atomic_load_n(&bad_sigbus, __ATOMIC_RELAXED));

	for (k = 0; k < 3; k++) {
		for (i = 0; i < ARRAY_SIZE(reads); i++) {
			uint64_t off = p + reads[i].off;
			size_t len = reads[i].len;
			ssize_t want = len;

			if (shmem && off >= p && off < p + pg)
				want = -1;
			else if (shmem && off < p && off + len > p)
				want = p - off;
			memset(buf, 0, len);
			errno = 0;
			ret = pread(fd, buf, len, off);
			bad_record(self, ret, errno, -1, buf);
			EXPECT_EQ(want, ret)
				TH_LOG("pread(%zu at %llu), poisoned page at %llu: %s",
				       len, (unsigned long long)off,
				       (unsigned long long)p,
				       ret < 0 ? strerror(errno) : "");
			if (ret < 0)
				EXPECT_EQ(EIO, errno);
			if (ret > 0)
				EXPECT_EQ(0, memcmp(buf, data + off, ret))
					TH_LOG("pread(%zu at %llu): wrong data",
					       len, (unsigned long long)off);
		}
		/* The whole file, and read(2) from before the page. */
		ret = pread(fd, buf, size, 0);
		bad_record(self, ret, errno, -1, buf);
		EXPECT_EQ(shmem ? (ssize_t)p : (ssize_t)size, ret);
		if (ret > 0)
			EXPECT_EQ(0, memcmp(buf, data, ret));
		ASSERT_EQ((off_t)(p - 10), lseek(fd, p - 10, SEEK_SET));
		errno = 0;
		ret = read(fd, buf, 3 * pg);
		pos = lseek(fd, 0, SEEK_CUR);
		bad_record(self, ret, errno, pos, buf);
		EXPECT_EQ(shmem ? 10 : (ssize_t)(3 * pg), ret);
		EXPECT_EQ((int64_t)(p - 10 + (ret > 0 ? ret : 0)), pos);
	}
	close(fd);
	free(buf);
	free(data);
}

#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE	101	/* <asm-generic/mman-common.h> */
#endif
#define PC_UNPOISON	"/sys/kernel/debug/hwpoison/unpoison-pfn"
#define PC_SOFT_ROUNDS	40

/*
 * A hot page soft-offlined, then unpoisoned at once, within an RCU grace
 * period.  memory_failure()'s page_handle_poison() drops the last
 * reference of the migrated-away page and takes a new one right away; a
 * PG_rcu_free folio must not sit on a deferred-free chain meanwhile, or
 * unpoison's final put queues it twice and it is freed twice (list
 * corruption, "double call_rcu()", a crash within a few rounds).  Each
 * round: a fresh file read hot in small reads, one page soft-offlined and
 * unpoisoned, the file read back.
 */
static void case_soft_offline(struct __test_metadata *_metadata,
			      FIXTURE_DATA(bad) *self)
{
	size_t pg = self->pg, size = 16 * pg, off;
	uint8_t *data, *buf, *map;
	unsigned int round, offlined = 0;
	char num[32];
	uint64_t pfn;
	int fd, k;

	data = malloc(size);
	buf = malloc(size);
	ASSERT_NE(NULL, data);
	ASSERT_NE(NULL, buf);
	for (round = 0; round < PC_SOFT_ROUNDS; round++) {
		size_t p = (round % 15 + 1) * pg;

		pc_fill(data, 0, size, PC_MAGIC_DATA, round + 1, 1);
		fd = pc_backing_create(&self->b, "softoffline", 0, NULL, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pc_pwrite_all(fd, data, size, 0));
		ASSERT_EQ(0, fsync(fd));
		/* Every page read again in small reads: hot, flagged. */
		for (k = 0; k < 4; k++)
			for (off = 0; off < size; off += 256)
				ASSERT_EQ(256, pread(fd, buf + off, 256, off));
		ASSERT_EQ(0, memcmp(buf, data, size));
		map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		ASSERT_EQ(data[p], map[p]);
		ASSERT_EQ(0, pc_pfn(map + p, &pfn))
			TH_LOG("no pfn for the mapped page (CAP_SYS_ADMIN?)");
		if (!madvise(map + p, pg, MADV_SOFT_OFFLINE)) {
			offlined++;
			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)pfn);
			/* At once: the deferred free is still pending. */
			EXPECT_EQ(0, pc_write_file(PC_UNPOISON, num))
				TH_LOG("unpoison pfn %s: %s", num,
				       strerror(errno));
		} else {
			/* EBUSY, EIO: the page could not be migrated */
			EXPECT_TRUE(errno == EBUSY || errno == EIO)
				TH_LOG("MADV_SOFT_OFFLINE: %s",
				       strerror(errno));
		}
		munmap(map, size);
		ASSERT_EQ((ssize_t)size, pread(fd, buf, size, 0));
		EXPECT_EQ(0, memcmp(buf, data, size));
		close(fd);
	}
	ksft_print_msg("%s: %u of %u soft offlines, each unpoisoned at once\n",
		       self->b.name, offlined, PC_SOFT_ROUNDS);
	free(buf);
	free(data);
}

TEST_F(bad, efault)
{
	bad_run(_metadata, self, case_efault);
}

TEST_F(bad, tail_unmapped)
{
	bad_run(_metadata, self, case_tail_unmapped);
}

TEST_F(bad, tail_readonly)
{
	bad_run(_metadata, self, case_tail_readonly);
}

TEST_F(bad, offsets)
{
	bad_run(_metadata, self, case_offsets);
}

TEST_F(bad, huge_counts)
{
	bad_run(_metadata, self, case_huge_counts);
}

TEST_F(bad, bad_fds)
{
	bad_run(_metadata, self, case_bad_fds);
}

TEST_F(bad, buffer_maps_file)
{
	bad_run(_metadata, self, case_buffer_maps_file);
}

TEST_F(bad, hwpoison)
{
	const char *env = getenv(PC_ENV_HWPOISON);
	void *probe;

	if (!env || strcmp(env, "1"))
		SKIP(return, "MADV_HWPOISON takes a page out of use until reboot: set %s=1 where that is fine (make check's guests do)",
		     PC_ENV_HWPOISON);
	if (!pc_is_root())
		SKIP(return, "MADV_HWPOISON needs CAP_SYS_ADMIN");
	/* A zero-length MADV_HWPOISON: EINVAL without CONFIG_MEMORY_FAILURE */
	probe = mmap(NULL, self->pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, probe);
	if (madvise(probe, 0, MADV_HWPOISON)) {
		munmap(probe, self->pg);
		SKIP(return, "MADV_HWPOISON: %s (no CONFIG_MEMORY_FAILURE?)",
		     strerror(errno));
	}
	munmap(probe, self->pg);
	bad_run(_metadata, self, case_hwpoison);
}

TEST_F(bad, soft_offline_unpoison)
{
	const char *env = getenv(PC_ENV_HWPOISON);

	if (!env || strcmp(env, "1"))
		SKIP(return, "soft offline and unpoison move pages and count poison: set %s=1 where that is fine (make check's guests do)",
		     PC_ENV_HWPOISON);
	if (!pc_is_root())
		SKIP(return, "MADV_SOFT_OFFLINE and unpoison need CAP_SYS_ADMIN");
	if (access(PC_UNPOISON, W_OK))
		SKIP(return, "no %s (CONFIG_HWPOISON_INJECT, debugfs)",
		     PC_UNPOISON);
	bad_run(_metadata, self, case_soft_offline);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Page-cache read equivalence: every read(2)/pread(2)/preadv(2) result
 * (bytes, return value, errno, file position) is compared with an in-memory
 * reference model of the file, after buffered writes, mmap stores, truncates
 * and O_DIRECT writes.  Each read is repeated so that the folios it touches
 * are "hot" (the lockless fast path only serves folios read before).
 *
 * When the fast path can be switched off (PC_SYSCTL_FAST_READ), the same
 * seeded run is done with the fast path on and off, and the two result
 * streams must be identical.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "pagecache_util.h"

#define EQ_SENTINEL	0xee
#define EQ_GUARD	64
#define EQ_REPEAT	3	/* reads of the same range: the later ones are hot */
#define EQ_MAX_SEGS	256
#define EQ_DEFAULT_OPS	300

FIXTURE(eq) {
	struct pc_backing b;
	char path[512];
	int fd;
	int dfd;		/* O_DIRECT fd, or -1 */
	int saved_fast;		/* original sysctl value, -1: no sysctl */
	size_t base_size;	/* initial file size */
	size_t cap;		/* largest size the model allows */
	size_t size;		/* model: current file size */
	uint8_t *ref;		/* model: file contents */
	uint8_t *buf;		/* read buffer, cap + guard */
	uint8_t *wbuf;		/* write buffer (O_DIRECT aligned) */
	uint64_t digest;	/* of every result of the current run */
	uint64_t nr_reads;
};

FIXTURE_VARIANT(eq) {
	enum pc_backing_type backing;
};

FIXTURE_VARIANT_ADD(eq, ext4)
{
	.backing = PC_EXT4,
};

FIXTURE_VARIANT_ADD(eq, xfs)
{
	.backing = PC_XFS,
};

FIXTURE_VARIANT_ADD(eq, tmpfs)
{
	.backing = PC_TMPFS,
};

FIXTURE_VARIANT_ADD(eq, tmpfs_huge)
{
	.backing = PC_TMPFS_HUGE,
};

FIXTURE_VARIANT_ADD(eq, memfd)
{
	.backing = PC_MEMFD,
};

FIXTURE_SETUP(eq)
{
	char reason[PC_REASON_LEN];
	int ret;

	self->fd = -1;
	self->dfd = -1;
	self->saved_fast = -1;
	ret = pc_backing_setup(&self->b, variant->backing, reason);
	if (ret == KSFT_SKIP)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, ret) TH_LOG("%s", reason);

	self->fd = pc_backing_create(&self->b, "eq", 0, self->path,
				     sizeof(self->path));
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(errno));

	/* 2 MiB plus a tail, so that EOF is inside a page and a folio. */
	self->base_size = 2 * 1024 * 1024 + 777;
	/* Room for the file shapes of eq_shape_reset() too. */
	self->cap = self->base_size + 6 * self->b.folio_size + 65536;
	self->ref = malloc(self->cap);
	ASSERT_NE(NULL, self->ref);
	self->buf = malloc(self->cap + EQ_GUARD * (EQ_MAX_SEGS + 2));
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, posix_memalign((void **)&self->wbuf, 4096, self->cap));
	self->saved_fast = pc_fast_read_get();
}

FIXTURE_TEARDOWN(eq)
{
	if (self->saved_fast >= 0)
		pc_fast_read_set(self->saved_fast);
	if (self->dfd >= 0)
		close(self->dfd);
	if (self->fd >= 0)
		close(self->fd);
	pc_backing_teardown(&self->b);
}

static void eq_digest(FIXTURE_DATA(eq) *self, uint64_t v)
{
	self->digest = (self->digest ^ v) * 0x100000001b3ULL;
}

static void eq_fill_random(struct pc_rng *r, uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint64_t v = pc_rand(r);

		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	while (len--)
		*p++ = pc_rand(r);
}

/* Model: bytes [off, off + len) were written with @data. */
static void eq_model_write(FIXTURE_DATA(eq) *self, uint64_t off,
			   const uint8_t *data, size_t len)
{
	if (off > self->size)
		memset(self->ref + self->size, 0, off - self->size);
	memcpy(self->ref + off, data, len);
	if (off + len > self->size)
		self->size = off + len;
}

static void eq_model_truncate(FIXTURE_DATA(eq) *self, size_t size)
{
	if (size > self->size)
		memset(self->ref + self->size, 0, size - self->size);
	self->size = size;
}

static ssize_t eq_expected(FIXTURE_DATA(eq) *self, int64_t off, size_t len)
{
	if (off < 0)
		return -1;
	if ((uint64_t)off >= self->size)
		return 0;
	return len < self->size - off ? len : self->size - off;
}

/* Index of the first byte of @a that differs from @b, or -1. */
static ssize_t eq_first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; a[i] == b[i]; i++)
		;
	return i;
}

static ssize_t eq_first_not_sentinel(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != EQ_SENTINEL)
			return i;
	return -1;
}

/* Check one contiguous read of [off, off + len) into self->buf. */
static void eq_check_contig(struct __test_metadata *_metadata,
			    FIXTURE_DATA(eq) *self, const char *op,
			    int64_t off, size_t len, ssize_t ret, int err,
			    int64_t pos_before, int64_t pos_after)
{
	ssize_t exp = eq_expected(self, off, len), diff;

	eq_digest(self, ret);
	eq_digest(self, ret < 0 ? err : 0);
	eq_digest(self, pos_after);
	self->nr_reads++;
	ASSERT_EQ(exp, ret) TH_LOG("%s(off=%lld, len=%zu) size=%zu: got %zd (%s), expected %zd",
				   op, (long long)off, len, self->size, ret,
				   ret < 0 ? strerror(err) : "-", exp);
	if (ret > 0) {
		diff = eq_first_diff(self->buf, self->ref + off, ret);
		ASSERT_EQ(-1, diff)
			TH_LOG("%s(off=%lld, len=%zu): byte %lld is 0x%02x, expected 0x%02x",
			       op, (long long)off, len, (long long)(off + diff),
			       self->buf[diff], self->ref[off + diff]);
		eq_digest(self, self->buf[0]);
		eq_digest(self, self->buf[ret - 1]);
	}
	/* Nothing may be written past the returned count. */
	diff = eq_first_not_sentinel(self->buf + (ret > 0 ? ret : 0),
				     len - (ret > 0 ? ret : 0) + EQ_GUARD);
	ASSERT_EQ(-1, diff)
		TH_LOG("%s(off=%lld, len=%zu) returned %zd but wrote user buffer byte %zd",
		       op, (long long)off, len, ret, (ret > 0 ? ret : 0) + diff);
	if (pos_before >= 0) {
		ASSERT_EQ(pos_before + (ret > 0 ? ret : 0), pos_after)
			TH_LOG("%s(off=%lld, len=%zu): file position %lld after returning %zd",
			       op, (long long)off, len, (long long)pos_after,
			       ret);
	}
}

static void eq_pread(struct __test_metadata *_metadata,
		     FIXTURE_DATA(eq) *self, int64_t off, size_t len)
{
	ssize_t ret;
	int i, err;

	for (i = 0; i < EQ_REPEAT; i++) {
		memset(self->buf, EQ_SENTINEL, len + EQ_GUARD);
		errno = 0;
		ret = pread(self->fd, self->buf, len, off);
		err = errno;
		eq_check_contig(_metadata, self, "pread", off, len, ret, err,
				-1, -1);
	}
}

static void eq_read(struct __test_metadata *_metadata,
		    FIXTURE_DATA(eq) *self, int64_t off, size_t len)
{
	int64_t pos;
	ssize_t ret;
	int i, err;

	for (i = 0; i < EQ_REPEAT; i++) {
		memset(self->buf, EQ_SENTINEL, len + EQ_GUARD);
		ASSERT_EQ(off, lseek(self->fd, off, SEEK_SET));
		errno = 0;
		ret = read(self->fd, self->buf, len);
		err = errno;
		pos = lseek(self->fd, 0, SEEK_CUR);
		eq_check_contig(_metadata, self, "read", off, len, ret, err,
				off, pos);
	}
}

/* preadv() with @nseg segments separated by guard gaps. */
static void eq_preadv(struct __test_metadata *_metadata,
		      FIXTURE_DATA(eq) *self, struct pc_rng *r, int64_t off,
		      size_t total)
{
	struct iovec iov[EQ_MAX_SEGS];
	size_t left = total, done, span;
	int nseg = 0, i, rep;
	ssize_t ret, exp, d;
	uint8_t *p = self->buf;

	/* Many segments, some empty, most small, the last takes the rest. */
	while (nseg < EQ_MAX_SEGS - 1 && left) {
		size_t l = pc_rand_below(r, 4) ? pc_rand_below(r, 600) :
			   pc_rand_below(r, left + 1);

		if (l > left)
			l = left;
		iov[nseg].iov_base = p;
		iov[nseg].iov_len = l;
		p += l + EQ_GUARD;
		left -= l;
		nseg++;
		if (!pc_rand_below(r, 24))
			break;
	}
	iov[nseg].iov_base = p;
	iov[nseg].iov_len = left;
	p += left + EQ_GUARD;
	nseg++;
	span = p - self->buf;
	exp = eq_expected(self, off, total);

	for (rep = 0; rep < EQ_REPEAT; rep++) {
		memset(self->buf, EQ_SENTINEL, span);
		errno = 0;
		ret = preadv(self->fd, iov, nseg, off);
		eq_digest(self, ret);
		self->nr_reads++;
		ASSERT_EQ(exp, ret)
			TH_LOG("preadv(off=%lld, %d segs, %zu bytes) size=%zu: got %zd (%s)",
			       (long long)off, nseg, total, self->size, ret,
			       strerror(errno));
		for (i = 0, done = 0; i < nseg; i++) {
			size_t l = iov[i].iov_len, got;
			uint8_t *b = iov[i].iov_base;

			got = done >= (size_t)ret ? 0 :
			      ((size_t)ret - done < l ? (size_t)ret - done : l);
			d = eq_first_diff(b, self->ref + off + done, got);
			ASSERT_EQ(-1, d) TH_LOG("preadv(off=%lld, %d segs): segment %d byte %zd (file offset %lld) is 0x%02x, expected 0x%02x",
						(long long)off, nseg, i, d,
						(long long)(off + done + d),
						b[d], self->ref[off + done + d]);
			d = eq_first_not_sentinel(b + got,
						  l - got + EQ_GUARD);
			ASSERT_EQ(-1, d) TH_LOG("preadv(off=%lld, %d segs): segment %d overwritten at %zd beyond %zu copied bytes",
						(long long)off, nseg, i,
						d, got);
			done += l;
		}
	}
}

static void eq_pwrite(struct __test_metadata *_metadata,
		      FIXTURE_DATA(eq) *self, struct pc_rng *r)
{
	uint64_t off = pc_rand_offset(r, self->size + 4096,
				      self->b.folio_size);
	size_t len;

	/* The model and the write buffer hold at most cap bytes. */
	if (off >= self->cap)
		off = self->cap - 1;
	len = pc_rand_len(r, self->cap - off, self->b.folio_size);

	eq_fill_random(r, self->wbuf, len);
	ASSERT_EQ(len, pwrite(self->fd, self->wbuf, len, off))
		TH_LOG("pwrite(off=%llu, len=%zu): %s",
		       (unsigned long long)off, len, strerror(errno));
	eq_model_write(self, off, self->wbuf, len);
}

static void eq_mmap_store(struct __test_metadata *_metadata,
			  FIXTURE_DATA(eq) *self, struct pc_rng *r)
{
	uint64_t off;
	size_t len;
	uint8_t *map;

	if (!self->size)
		return;
	off = pc_rand_below(r, self->size);
	len = pc_rand_len(r, self->size - off, self->b.folio_size);
	map = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, 0);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	eq_fill_random(r, self->wbuf, len);
	memcpy(map + off, self->wbuf, len);
	ASSERT_EQ(0, munmap(map, self->size));
	eq_model_write(self, off, self->wbuf, len);
}

static void eq_truncate(struct __test_metadata *_metadata,
			FIXTURE_DATA(eq) *self, struct pc_rng *r)
{
	size_t size = pc_rand_offset(r, self->base_size + self->b.folio_size,
				     self->b.folio_size);

	ASSERT_EQ(0, ftruncate(self->fd, size))
		TH_LOG("ftruncate(%zu): %s", size, strerror(errno));
	eq_model_truncate(self, size);
}

static void eq_direct_write(struct __test_metadata *_metadata,
			    FIXTURE_DATA(eq) *self, struct pc_rng *r)
{
	uint64_t off = 4096 * pc_rand_below(r, self->size / 4096 + 2);
	size_t len = 4096 * (1 + pc_rand_below(r, 16));
	ssize_t ret;

	while (off + len > self->cap)
		off -= 4096;
	eq_fill_random(r, self->wbuf, len);
	ret = pwrite(self->dfd, self->wbuf, len, off);
	ASSERT_EQ(len, ret) TH_LOG("O_DIRECT pwrite(off=%llu, len=%zu): %s",
				   (unsigned long long)off, len,
				   strerror(errno));
	eq_model_write(self, off, self->wbuf, len);
}

/*
 * Hole punch, or preallocation (which may extend the file), where the file
 * system supports them.  Preallocated blocks and folios read as zeros:
 * on tmpfs they are folios that are not uptodate.
 */
static void eq_fallocate(struct __test_metadata *_metadata,
			 FIXTURE_DATA(eq) *self, struct pc_rng *r)
{
	uint64_t off = pc_rand_offset(r, self->size + self->b.folio_size,
				      self->b.folio_size);
	bool punch = pc_rand_below(r, 2), keep = pc_rand_below(r, 2);
	int mode = punch ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
		   keep ? FALLOC_FL_KEEP_SIZE : 0;
	size_t len;

	if (off >= self->cap)
		off = self->cap - 1;
	len = pc_rand_len(r, self->cap - off, self->b.folio_size);
	if (fallocate(self->fd, mode, off, len)) {
		ASSERT_EQ(EOPNOTSUPP, errno)
			TH_LOG("fallocate(%#x, off=%llu, len=%zu): %s", mode,
			       (unsigned long long)off, len, strerror(errno));
		return;
	}
	if (punch && off < self->size)
		memset(self->ref + off, 0,
		       len < self->size - off ? len : self->size - off);
	else if (!punch && !keep && off + len > self->size)
		eq_model_truncate(self, off + len);
}

/* Reset the file and the model to the same seeded content. */
static void eq_reset(struct __test_metadata *_metadata,
		     FIXTURE_DATA(eq) *self, struct pc_rng *r)
{
	ASSERT_EQ(0, ftruncate(self->fd, 0));
	self->size = 0;
	eq_fill_random(r, self->wbuf, self->base_size);
	ASSERT_EQ(0, pc_pwrite_all(self->fd, self->wbuf, self->base_size, 0));
	eq_model_write(self, 0, self->wbuf, self->base_size);
	self->digest = 0xcbf29ce484222325ULL;
	self->nr_reads = 0;
}

static int eq_nr_ops(void)
{
	const char *env = getenv("PAGECACHE_EQ_OPS");

	return env && atoi(env) > 0 ? atoi(env) : EQ_DEFAULT_OPS;
}

/* One seeded run of random reads mixed with modifications. */
static void eq_random_run(struct __test_metadata *_metadata,
			  FIXTURE_DATA(eq) *self, bool direct)
{
	int i, nr = eq_nr_ops();
	struct pc_rng r;

	pc_rng_init(&r, pc_seed());
	eq_reset(_metadata, self, &r);
	for (i = 0; i < nr; i++) {
		uint64_t c = pc_rand_below(&r, 100);
		int64_t off = pc_rand_offset(&r, self->size + 8192,
					     self->b.folio_size);
		size_t len = pc_rand_len(&r, 2 * self->b.folio_size,
					 self->b.folio_size);

		if (pc_rand_below(&r, 20) == 0)
			len = 0;
		if (c < 40) {
			eq_pread(_metadata, self, off, len);
		} else if (c < 52) {
			eq_read(_metadata, self, off, len);
		} else if (c < 64) {
			eq_preadv(_metadata, self, &r, off, len);
		} else if (c < 72) {
			eq_pwrite(_metadata, self, &r);
			eq_pread(_metadata, self, off, len);
		} else if (c < 78) {
			eq_mmap_store(_metadata, self, &r);
			eq_pread(_metadata, self, off, len);
		} else if (c < 82) {
			eq_truncate(_metadata, self, &r);
			eq_pread(_metadata, self, off, len);
		} else if (c < 86) {
			eq_fallocate(_metadata, self, &r);
			eq_pread(_metadata, self, off, len);
		} else if (c < 92 && direct) {
			eq_direct_write(_metadata, self, &r);
			eq_pread(_metadata, self, off, len);
		} else if (c < 94) {
			/* Make the folios cold again where the fs allows. */
			posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED);
			eq_pread(_metadata, self, off, len);
		} else {
			eq_read(_metadata, self, self->size + (c & 3), len);
		}
		if (_metadata->exit_code)
			return;
	}
}

/* Deterministic sweep over page, folio and EOF boundaries. */
static void eq_boundary_run(struct __test_metadata *_metadata,
			    FIXTURE_DATA(eq) *self, bool direct)
{
	size_t pg = self->b.page_size, fs = self->b.folio_size;
	size_t lens[] = { 0, 1, 2, 7, 8, 9, pg - 1, pg, pg + 1, 2 * pg + 3,
			  fs - 1, fs, fs + 1, 2 * fs };
	uint64_t bounds[] = { 0, pg, 3 * pg, fs, 2 * fs, self->base_size & ~(pg - 1),
			      self->base_size, self->base_size + pg };
	struct pc_rng r;
	unsigned int b, l;
	int d;

	pc_rng_init(&r, pc_seed());
	eq_reset(_metadata, self, &r);
	for (b = 0; b < ARRAY_SIZE(bounds); b++) {
		for (d = -1; d <= 1; d++) {
			int64_t off = bounds[b] + d;

			if (off < 0)
				continue;
			for (l = 0; l < ARRAY_SIZE(lens); l++) {
				eq_pread(_metadata, self, off, lens[l]);
				eq_read(_metadata, self, off, lens[l]);
				if (_metadata->exit_code)
					return;
			}
		}
	}
}

/*
 * A file of every shape a read can meet, each boundary off page and folio
 * alignment: data, a preallocated range (zeros; folios that are not
 * uptodate on tmpfs), more data, and a sparse tail (holes: no folio).
 * Returns the boundaries in @bounds.
 */
static int eq_shape_reset(struct __test_metadata *_metadata,
			  FIXTURE_DATA(eq) *self, struct pc_rng *r,
			  uint64_t *bounds)
{
	size_t pg = self->b.page_size, fs = self->b.folio_size;
	uint64_t a = fs + 777, b = 2 * fs + pg, c = b + fs + 3 * pg;
	uint64_t d = c + pg + 5, e = d + fs, size = e + fs / 2 + 13;
	int n = 0, ret;

	ASSERT_GE(self->cap, size);
	ASSERT_EQ(0, ftruncate(self->fd, 0));
	self->size = 0;
	eq_fill_random(r, self->wbuf, a);
	ASSERT_EQ(0, pc_pwrite_all(self->fd, self->wbuf, a, 0));
	eq_model_write(self, 0, self->wbuf, a);
	ret = fallocate(self->fd, 0, b, c - b);
	ASSERT_TRUE(!ret || errno == EOPNOTSUPP)
		TH_LOG("fallocate(off=%llu, len=%llu): %s",
		       (unsigned long long)b, (unsigned long long)(c - b),
		       strerror(errno));
	if (!ret)
		eq_model_truncate(self, c);
	eq_fill_random(r, self->wbuf, e - d);
	ASSERT_EQ(0, pc_pwrite_all(self->fd, self->wbuf, e - d, d));
	eq_model_write(self, d, self->wbuf, e - d);
	ASSERT_EQ(0, ftruncate(self->fd, size));
	eq_model_truncate(self, size);
	self->digest = 0xcbf29ce484222325ULL;
	self->nr_reads = 0;
	bounds[n++] = 0;
	bounds[n++] = a;
	bounds[n++] = b;
	bounds[n++] = c;
	bounds[n++] = d;
	bounds[n++] = e;
	bounds[n++] = e + fs / 2 - (e & (pg - 1));	/* page in the tail */
	bounds[n++] = size;
	return n;
}

/*
 * Reads around every boundary of the shaped file, then random reads mixed
 * with writes that fill holes and preallocated ranges and with new holes.
 */
static void eq_shape_run(struct __test_metadata *_metadata,
			 FIXTURE_DATA(eq) *self, bool direct)
{
	size_t pg = self->b.page_size, fs = self->b.folio_size;
	size_t lens[] = { 1, 16, pg - 1, pg + 1, fs, fs + pg + 1 };
	uint64_t bounds[8];
	struct pc_rng r;
	int b, l, d, i, n;

	pc_rng_init(&r, pc_seed());
	n = eq_shape_reset(_metadata, self, &r, bounds);
	for (b = 0; b < n; b++) {
		for (d = -1; d <= 1; d++) {
			int64_t off = bounds[b] + d;

			if (off < 0)
				continue;
			for (l = 0; l < (int)ARRAY_SIZE(lens); l++) {
				eq_pread(_metadata, self, off, lens[l]);
				eq_preadv(_metadata, self, &r, off, lens[l]);
				if (_metadata->exit_code)
					return;
			}
		}
	}
	for (i = 0; i < eq_nr_ops() / 2; i++) {
		int64_t off = pc_rand_offset(&r, self->size + pg, fs);
		size_t len = pc_rand_len(&r, 2 * fs, fs);

		switch (pc_rand_below(&r, 8)) {
		case 0:
			eq_pwrite(_metadata, self, &r);
			break;
		case 1:
			eq_fallocate(_metadata, self, &r);
			break;
		}
		eq_pread(_metadata, self, off, len);
		if (_metadata->exit_code)
			return;
	}
}

/*
 * Run @body with the fast path on and then off (when it can be switched),
 * and require identical result digests.
 */
static void eq_both(struct __test_metadata *_metadata, FIXTURE_DATA(eq) *self,
		    void (*body)(struct __test_metadata *,
				 FIXTURE_DATA(eq) *, bool),
		    bool direct)
{
	uint64_t digest[2], reads[2];
	int on;

	pc_print_seed();
	if (self->saved_fast < 0 || pc_fast_read_set(self->saved_fast)) {
		ksft_print_msg("%s %s: fast path cannot be switched, single run\n",
			       PC_SYSCTL_FAST_READ,
			       self->saved_fast < 0 ? "absent" : "not writable");
		body(_metadata, self, direct);
		ksft_print_msg("%s: %llu reads matched the model\n",
			       self->b.name,
			       (unsigned long long)self->nr_reads);
		return;
	}
	for (on = 1; on >= 0; on--) {
		ASSERT_EQ(0, pc_fast_read_set(on));
		body(_metadata, self, direct);
		if (_metadata->exit_code)
			TH_LOG("failure above is with %s=%d",
			       PC_SYSCTL_FAST_READ, on);
		ASSERT_EQ(0, _metadata->exit_code);
		digest[on] = self->digest;
		reads[on] = self->nr_reads;
	}
	ASSERT_EQ(0, pc_fast_read_set(self->saved_fast));
	ASSERT_EQ(reads[1], reads[0]);
	ASSERT_EQ(digest[1], digest[0])
		TH_LOG("results differ between fast path on and off");
	ksft_print_msg("%s: %llu reads matched the model, fast path on and off\n",
		       self->b.name, (unsigned long long)reads[1]);
}

TEST_F_TIMEOUT(eq, boundaries, 300)
{
	eq_both(_metadata, self, eq_boundary_run, false);
}

TEST_F_TIMEOUT(eq, shapes, 300)
{
	eq_both(_metadata, self, eq_shape_run, false);
}

TEST_F_TIMEOUT(eq, random_mix, 300)
{
	eq_both(_metadata, self, eq_random_run, false);
}

TEST_F_TIMEOUT(eq, direct_io_mix, 300)
{
	char p[64];

	if (pc_backing_has_path(&self->b)) {
		self->dfd = open(self->path, O_RDWR | O_DIRECT | O_CLOEXEC);
	} else {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", self->fd);
		self->dfd = open(p, O_RDWR | O_DIRECT | O_CLOEXEC);
	}
	if (self->dfd < 0 && errno == EINVAL)
		SKIP(return, "%s does not support O_DIRECT", self->b.name);
	ASSERT_LE(0, self->dfd) TH_LOG("open(O_DIRECT): %s", strerror(errno));
	eq_both(_metadata, self, eq_random_run, true);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Page-cache reads racing with everything that can free, move or change
 * the folios being read: truncate, hole punching and range shifting,
 * preallocation (fallocate) then writes, overwrites, reclaim, swap-out,
 * memcg reclaim, migration, soft offline, memory offlining, large folio
 * splits, the lockless read switched off and on, and the reuse of freed
 * folios by another file filled with a secret pattern; and reads whose
 * destination buffer is not faulted in, or is swapped out or migrated
 * while they copy into it.
 *
 * Readers check every byte against generation stamped patterns (see
 * pagecache_util.h): an older generation of this file at this offset, or
 * zeros where truncate/punch allow them, is "stale but allowed"; bytes of
 * another file are an information leak ("foreign"); anything else is
 * "never valid".  Both must be zero.
 *
 * The folio shape races (folio_shape_*) keep one large folio of the file
 * (verified through /proc/kpageflags, or the race skips) and have most
 * reads start in its last pages and cross its end, while the mutator
 * splits it through debugfs (to order 0, 2 or 4, uniformly or buddy-like),
 * punches a hole into it, truncates into it or migrates it, and builds it
 * again; each requires that the shape changes it counts happened.
 * folio_shape_mthp does the same to an order 4 folio (64 KiB) of tmpfs or
 * a memfd, which shmem allocates where a write fills an aligned hole among
 * smaller folios.
 *
 * Every race runs for PAGECACHE_RACE_SECONDS (default 2) seconds, with
 * PAGECACHE_READERS (default 2, at most 256) reader threads, and with the
 * lockless read switched on where the kernel has it: then it must have
 * served reads during the race (pgcache_fast_read in /proc/vmstat).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/falloc.h>
#include <linux/kernel-page-flags.h>
#include <linux/userfaultfd.h>

#include "../kselftest_harness.h"
#include "pagecache_util.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif
#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE	101
#endif
#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE	(1 << 1)
#endif
#ifndef MPOL_MF_MOVE_ALL
#define MPOL_MF_MOVE_ALL (1 << 2)
#endif

#define MAX_READERS	256
#define MAX_OPS		6
#define MAX_FILES	64
#define MAX_COUNTERS	8
#define SECRET_FID	0x5ec7

#define MTHP_SYSFS	"/sys/kernel/mm/transparent_hugepage/"
/* Sum of the split counts of every THP size, a race_count() name. */
#define RACE_CNT_MTHP_SPLIT	"hugepages-*kB/stats/split"
#define SPLIT_DEBUGFS	"/sys/kernel/debug/split_huge_pages"
/* The order of the folio folio_shape_mthp builds: 64 KiB of 4 KiB pages. */
#define MTHP_ORDER	4
/*
 * Soft offline takes the old page out of use until reboot (or unpoison):
 * at most this many per race.
 */
#define SOFT_OFFLINE_MAX	256

struct race;

struct race_op {
	const char *name;
	int (*fn)(struct race *rc, struct pc_rng *r);
	int thread;		/* which mutator thread runs it */
	uint64_t done;
	bool unsupported;
	char why[96];
};

/* Why a memory block did not go offline (struct race's offline_why[]). */
enum {
	OFF_SPANS, OFF_TIMEOUT, OFF_BUSY, OFF_EIO, OFF_EINVAL, OFF_HWPOISON,
	OFF_OTHER, OFF_BOOT,
	OFF_NR
};

/* How a folio shape race builds its large folio again (struct shape). */
enum {
	SHAPE_COLLAPSE,		/* MADV_COLLAPSE: the data stays as it is */
	SHAPE_REWRITE,		/* punch the range, write it in one go */
};

/* What the folio shape races did (struct shape's n[]). */
enum {
	SH_READY, SH_REBUILT, SH_REBUILD_FAILED, SH_COLLAPSE_RETRY,
	SH_SPLIT_WRITE, SH_SPLIT_0, SH_SPLIT_MID, SH_SPLIT_BUDDY,
	SH_SPLIT_MISSED, SH_CUT_SPLIT, SH_CUT_KEPT, SH_MOVED, SH_MOVED_LARGE,
	SH_NOT_MOVED, SH_PUNCHED, SH_TRUNCATED, SH_NR
};

/*
 * A folio shape race: readers start most reads in the last pages of one
 * large folio of the file, so that their copies cross its end, while the
 * mutator splits, punches, truncates or migrates it and builds it again.
 * Only the mutator thread writes here once the race runs.
 */
struct shape {
	uint64_t fpos;		/* file offset of the large folio */
	size_t fsize;		/* its size as built */
	int order;		/* its order as built */
	int rebuild;		/* SHAPE_COLLAPSE or SHAPE_REWRITE */
	bool pmd;		/* the folio is PMD-sized */
	int pagemap_fd, kpf_fd;
	char path[64];		/* the file for split_huge_pages */
	char shmem_enabled[32];	/* to restore, or "" */
	uint8_t *buf;		/* rc->size bytes for the mutator */
	uint64_t n[SH_NR];
};

struct race {
	struct __test_metadata *md;
	struct pc_backing *b;
	int fd;			/* the file the readers keep open */
	char path[512];		/* path of the file that gets replaced */
	int nr_ops;
	struct race_op ops[MAX_OPS];
	size_t size;		/* nominal size: reads never return more */
	bool zeros_ok, shift_ok, size_varies, replace;
	unsigned int gen;	/* generation counter, atomic */
	int stop;		/* atomic */
	uint8_t *map;		/* mutator's shared mapping, or NULL */
	/*
	 * Whether it is writable: not where flush_dcache_folio() exists, or
	 * no read would take the lockless path (pc_arch_flushes_dcache()).
	 */
	bool map_writable;
	uint8_t *ref;		/* the file's bytes if they never change */

	pthread_mutex_t lock;	/* protects everything below */
	struct {
		ino_t ino;
		uint16_t fid;
	} files[MAX_FILES];
	unsigned int nr_files;
	uint16_t next_fid;
	struct pc_verdict v;
	uint64_t reads, bytes, short_reads;
	uint64_t tails;		/* reads that wrote past their count */
	bool failed;
	char msg[256];

	/* memcg op */
	char cg[256], cg_orig[256];
	/* migration op */
	int node[2];
	/* fast read switch op: writes to it so far */
	uint64_t flips;
	/* soft offline op: pages offlined, and not (EBUSY, EIO) */
	uint64_t soft_offlined, soft_busy;
	/* memory offlining op */
	uint64_t block_size;
	uint64_t offline_tries, offline_movable, offlined;	/* atomic */
	/* why the others did not: OFF_* (atomic) */
	uint64_t offline_why[OFF_NR];

	/* folio shape ops */
	struct shape sh;

	/*
	 * Destination faults: readers read into anonymous mappings, half
	 * the time not faulted in, that they publish in dst[] (atomic) for
	 * the mutator to swap out or migrate while they copy.
	 */
	bool dst_fault;
	int nr_readers;
	uint8_t *dst[MAX_READERS];
	size_t dst_len;		/* the length of each, atomic */
	uint64_t dst_reads;	/* reads into a buffer not faulted in */
	uint64_t dst_faulted;	/* of those, reads whose copy faulted */
	uint64_t dst_moved;	/* buffer pages on the node asked for */

	/* Counters compared over the race; the first: the lockless read's. */
	const char *cnt_name[MAX_COUNTERS];
	uint64_t cnt[MAX_COUNTERS];	/* how much they moved */
	bool cnt_ok[MAX_COUNTERS];	/* they exist here */
	int nr_cnt;
	bool fast_on;		/* the lockless read is switched on */
	int saved_fast;		/* vm.pagecache_fast_read to restore, or -1 */
	/* Prints what the ops did, before the verdict. */
	void (*report)(struct race *rc);
};

static void race_fail(struct race *rc, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&rc->lock);
	if (!rc->failed) {
		rc->failed = true;
		va_start(ap, fmt);
		vsnprintf(rc->msg, sizeof(rc->msg), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&rc->lock);
	__atomic_store_n(&rc->stop, 1, __ATOMIC_RELEASE);
}

static bool race_stopped(struct race *rc)
{
	return __atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE);
}

static uint8_t gen_byte(unsigned int g)
{
	return (g - 1) % 255 + 1;
}

/*
 * Compare counter @name (of /proc/vmstat, or RACE_CNT_MTHP_SPLIT) before
 * and after the race.
 */
static void race_count(struct race *rc, const char *name)
{
	if (rc->nr_cnt < MAX_COUNTERS)
		rc->cnt_name[rc->nr_cnt++] = name;
}

/* How much counter @name moved over the race; 0 if it does not exist. */
static uint64_t race_counted(struct race *rc, const char *name)
{
	int i;

	for (i = 0; i < rc->nr_cnt; i++)
		if (!strcmp(rc->cnt_name[i], name))
			return rc->cnt[i];
	return 0;
}

static int race_counter(const char *name, uint64_t *val)
{
	char buf[32];
	int ret = -1;
	glob_t g;
	size_t i;

	if (strcmp(name, RACE_CNT_MTHP_SPLIT))
		return pc_vmstat(name, val);
	*val = 0;
	if (glob(MTHP_SYSFS RACE_CNT_MTHP_SPLIT, 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		if (!pc_read_file(g.gl_pathv[i], buf, sizeof(buf))) {
			*val += strtoull(buf, NULL, 10);
			ret = 0;
		}
	}
	globfree(&g);
	return ret;
}

/* Rewrite [off, off + len) of @fd (file id @fid) with a new generation. */
static int race_rewrite_fd(struct race *rc, int fd, uint16_t fid,
			   uint64_t off, size_t len)
{
	unsigned int g = __atomic_add_fetch(&rc->gen, 1, __ATOMIC_ACQ_REL);

	if (!len)
		return 0;
	if (pc_write_pattern(fd, off, len, PC_MAGIC_DATA, fid, gen_byte(g)))
		return -errno;
	return 0;
}

static int race_rewrite(struct race *rc, uint64_t off, size_t len)
{
	return race_rewrite_fd(rc, rc->fd, 1, off, len);
}

static void race_register(struct race *rc, ino_t ino, uint16_t fid)
{
	pthread_mutex_lock(&rc->lock);
	rc->files[rc->nr_files % MAX_FILES].ino = ino;
	rc->files[rc->nr_files % MAX_FILES].fid = fid;
	rc->nr_files++;
	pthread_mutex_unlock(&rc->lock);
}

/* File id of the newest registered file with inode @ino, or 0. */
static uint16_t race_lookup(struct race *rc, ino_t ino)
{
	uint16_t fid = 0;
	unsigned int i, n;

	pthread_mutex_lock(&rc->lock);
	n = rc->nr_files < MAX_FILES ? rc->nr_files : MAX_FILES;
	for (i = 1; i <= n && !fid; i++) {
		unsigned int k = (rc->nr_files - i) % MAX_FILES;

		if (rc->files[k].ino == ino)
			fid = rc->files[k].fid;
	}
	pthread_mutex_unlock(&rc->lock);
	return fid;
}

/* What a reader's buffer holds before each read. */
#define RACE_FILL	0xee

/*
 * The bytes of @buf past the @ret a read of @len returned: a prefix written
 * by a copy that did not count (the lockless read reverts, the slow path
 * stops short) may hold this file's bytes of any generation, or zeros, but
 * nothing else; the rest must still be @fill (RACE_FILL, or zeros where
 * the buffer was not faulted in).
 */
static size_t race_check_tail(const uint8_t *buf, uint64_t off, size_t ret,
			      size_t len, const struct pc_rules *rules,
			      struct pc_verdict *v, uint8_t fill)
{
	struct pc_rules tail = *rules;
	struct pc_verdict tv = { 0 };
	size_t end = len;

	while (end > ret && buf[end - 1] == fill)
		end--;
	if (end == ret)
		return 0;
	tail.zeros_ok = true;
	pc_check(buf + ret, off + ret, end - ret, &tail, &tv);
	v->foreign += tv.foreign;
	v->invalid += tv.invalid;
	if (tv.have_bad && !v->have_bad) {
		v->have_bad = true;
		v->bad_off = tv.bad_off;
		v->bad_val = tv.bad_val;
		v->bad_exp = tv.bad_exp;
	}
	return end - ret;
}

struct reader {
	struct race *rc;
	int idx;
	pthread_t thread;
};

/*
 * A read of a folio shape race, from one of the last pages of the large
 * folio across its end.  Even numbered readers read mostly from one of
 * its last two pages to just past its end: short reads, so that they look
 * the folio up often, since the window of a split in which its size is
 * wrong is only microseconds long.  The others read 64 KiB, or one in
 * eight 1 MiB, give or take a byte, and leave one in eight random.
 */
static void shape_pick(struct race *rc, struct pc_rng *r, int idx,
		       uint64_t *off, size_t *len)
{
	size_t pg = rc->b->page_size;
	uint64_t end = rc->sh.fpos + rc->sh.fsize;
	uint64_t c = pc_rand_below(r, 8);

	if (!rc->sh.fsize || (idx & 1 && !c))
		return;
	if (!(idx & 1) && c) {
		*off = end - pg * (1 + pc_rand_below(r, 2));
		*len = end - *off + 1 + pc_rand_below(r, pg);
		return;
	}
	*off = end - pg * (1 + pc_rand_below(r, 8));
	if (!pc_rand_below(r, 4))
		*off += pc_rand_below(r, pg);
	if (c == 1)
		*len = (1 << 20) - 1 + pc_rand_below(r, 3);
	else
		*len = 65535 + pc_rand_below(r, 3);
}

/*
 * A reader's buffer where rc->dst_fault: an anonymous private mapping, so
 * that zapped pages fault in again as zeros, published for the mutator.
 */
static uint8_t *reader_map(struct reader *rd, size_t len)
{
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return NULL;
	__atomic_store_n(&rd->rc->dst[rd->idx], buf, __ATOMIC_RELEASE);
	return buf;
}

/* Minor faults of this thread so far, a copy to user memory's included. */
static long reader_minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_minflt;
}

/*
 * Leave the first @len bytes of the reader's buffer not faulted in, so
 * that the read's copy faults on every page of it (the lockless copy does
 * not handle faults: it stops short): zap them, which leaves zeros behind,
 * or, one time in eight, take a fresh mapping.  The thread's minor faults
 * before the read, or -1.
 */
static long reader_unfault(struct reader *rd, uint8_t **buf, size_t buflen,
			   size_t len, struct pc_rng *r)
{
	size_t pg = rd->rc->b->page_size;
	uint8_t *nb;

	if (!pc_rand_below(r, 8)) {
		nb = reader_map(rd, buflen);
		if (!nb)
			return -1;
		munmap(*buf, buflen);
		*buf = nb;
	} else if (madvise(*buf, (len + pg - 1) & ~(pg - 1), MADV_DONTNEED)) {
		return -1;
	}
	return reader_minflt();
}

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;
	struct race *rc = rd->rc;
	size_t fs = rc->b->folio_size;
	/* Reads of 1 MiB and more, up to past the end of the file. */
	size_t maxlen = 2 * fs > (2 << 20) ? 2 * fs : (2 << 20);
	struct pc_verdict v = { 0 };
	uint64_t reads = 0, bytes = 0, shorts = 0, tails = 0;
	uint64_t dst_reads = 0, dst_faulted = 0;
	size_t pg = rc->b->page_size, buflen = maxlen + 64;
	struct pc_rules rules = {
		.zeros_ok = rc->zeros_ok,
		.shift_ok = rc->shift_ok,
		.shift_unit = rc->b->blksize,
	};
	bool by_path = rc->replace && (rd->idx & 1);
	struct pc_rng r;
	uint8_t *buf;

	pc_rng_init(&r, pc_seed() ^ (0x1000 + rd->idx));
	if (rc->dst_fault) {
		buflen = (buflen + pg - 1) & ~(pg - 1);
		__atomic_store_n(&rc->dst_len, buflen, __ATOMIC_RELAXED);
		buf = reader_map(rd, buflen);
	} else {
		buf = malloc(buflen);
	}
	if (!buf) {
		race_fail(rc, "reader: no memory");
		return NULL;
	}
	while (!race_stopped(rc)) {
		uint64_t off = pc_rand_offset(&r, rc->size, fs);
		size_t len = pc_rand_len(&r, maxlen, fs);
		int fd = rc->fd, rep, nrep = 1 + pc_rand_below(&r, 3);
		struct stat st;

		/* Folio shape races: most reads cross the large folio's end. */
		shape_pick(rc, &r, rd->idx, &off, &len);
		rules.fid = 1;
		if (by_path) {
			fd = open(rc->path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st)) {
				race_fail(rc, "reader: open %s: %s", rc->path,
					  strerror(errno));
				break;
			}
			rules.fid = race_lookup(rc, st.st_ino);
			if (!rules.fid) {
				race_fail(rc, "reader: unknown inode %lu",
					  (unsigned long)st.st_ino);
				close(fd);
				break;
			}
		}
		/* The same range several times: later reads are "hot". */
		for (rep = 0; rep < nrep; rep++) {
			uint8_t fill = RACE_FILL;
			long flt = -1;
			ssize_t ret, exp;
			unsigned int g;

			/*
			 * Bytes past the count returned must not be another
			 * file's either: the lockless read copies before it
			 * revalidates, and a racing thread could see them.
			 */
			if (rc->dst_fault && pc_rand_below(&r, 2)) {
				flt = reader_unfault(rd, &buf, buflen, len, &r);
				if (flt < 0) {
					race_fail(rc, "reader: unfault: %s",
						  strerror(errno));
					break;
				}
				fill = 0;
			} else {
				memset(buf, RACE_FILL, len);
			}
			if (pc_rand_below(&r, 5)) {
				ret = pread(fd, buf, len, off);
			} else {
				size_t a = len / 3, b2 = len / 3;
				struct iovec iov[3] = {
					{ buf, a },
					{ buf + a, b2 },
					{ buf + a + b2, len - a - b2 },
				};

				ret = preadv(fd, iov, 3, off);
			}
			if (ret < 0) {
				race_fail(rc, "read(off=%llu, len=%zu): %s",
					  (unsigned long long)off, len,
					  strerror(errno));
				break;
			}
			/* Generations that may be visible now. */
			g = __atomic_load_n(&rc->gen, __ATOMIC_ACQUIRE);
			rules.max_gen = gen_byte(g);
			rules.gen_wrapped = g > 255;
			exp = off >= rc->size ? 0 :
			      (rc->size - off < len ? rc->size - off : len);
			if (ret > exp || (ret < exp && !rc->size_varies)) {
				race_fail(rc, "read(off=%llu, len=%zu) returned %zd, file size %zu",
					  (unsigned long long)off, len, ret,
					  rc->size);
				break;
			}
			shorts += ret < exp;
			reads++;
			bytes += ret;
			if (flt >= 0) {
				dst_reads++;
				dst_faulted += ret > 0 && reader_minflt() > flt;
			}
			/* The file as it is: all current, checked at once. */
			if (rc->ref && ret && !memcmp(buf, rc->ref + off, ret))
				v.words_ok += (off + ret + 7) / 8 - off / 8;
			else
				pc_check(buf, off, ret, &rules, &v);
			tails += race_check_tail(buf, off, ret, len, &rules,
						 &v, fill) != 0;
			if (v.have_bad) {
				__atomic_store_n(&rc->stop, 1,
						 __ATOMIC_RELEASE);
				break;
			}
		}
		if (by_path)
			close(fd);
	}
	if (rc->dst_fault) {
		__atomic_store_n(&rc->dst[rd->idx], NULL, __ATOMIC_RELEASE);
		munmap(buf, buflen);
	} else {
		free(buf);
	}

	pthread_mutex_lock(&rc->lock);
	rc->reads += reads;
	rc->dst_reads += dst_reads;
	rc->dst_faulted += dst_faulted;
	rc->bytes += bytes;
	rc->short_reads += shorts;
	rc->tails += tails;
	rc->v.words_ok += v.words_ok;
	rc->v.words_stale += v.words_stale;
	rc->v.words_zero += v.words_zero;
	rc->v.words_shifted += v.words_shifted;
	rc->v.foreign += v.foreign;
	rc->v.invalid += v.invalid;
	if (v.have_bad && !rc->v.have_bad) {
		rc->v.have_bad = true;
		rc->v.bad_off = v.bad_off;
		rc->v.bad_val = v.bad_val;
		rc->v.bad_exp = v.bad_exp;
	}
	pthread_mutex_unlock(&rc->lock);
	return NULL;
}

struct mutator {
	struct race *rc;
	int idx;
	pthread_t thread;
};

/* Whether mutator thread @idx has an operation left to run. */
static bool mutator_live(struct race *rc, int idx)
{
	int i;

	for (i = 0; i < rc->nr_ops; i++)
		if (rc->ops[i].thread == idx && !rc->ops[i].unsupported)
			return true;
	return false;
}

static void *mutator_fn(void *arg)
{
	struct mutator *mu = arg;
	struct race *rc = mu->rc;
	struct pc_rng r;

	pc_rng_init(&r, pc_seed() ^ (0x2000 + mu->idx));
	while (!race_stopped(rc) && mutator_live(rc, mu->idx)) {
		struct race_op *op = &rc->ops[pc_rand_below(&r, rc->nr_ops)];
		int ret;

		if (op->thread != mu->idx || op->unsupported)
			continue;
		ret = op->fn(rc, &r);
		if (ret == -EOPNOTSUPP) {
			op->unsupported = true;
			if (!op->why[0])
				snprintf(op->why, sizeof(op->why),
					 "EOPNOTSUPP");
		} else if (ret) {
			race_fail(rc, "%s: %s", op->name, strerror(-ret));
		} else {
			op->done++;
		}
	}
	return NULL;
}

/* ---- operations ---- */

static int op_truncate(struct race *rc, struct pc_rng *r)
{
	uint64_t to = pc_rand_offset(r, rc->size, rc->b->folio_size);

	if (ftruncate(rc->fd, to))
		return -errno;
	if (pc_rand_below(r, 2))
		sched_yield();
	if (ftruncate(rc->fd, rc->size))
		return -errno;
	return race_rewrite(rc, to, rc->size - to);
}

/* Truncate into the middle of a (possibly large) folio: splits it. */
static int op_split(struct race *rc, struct pc_rng *r)
{
	size_t fs = rc->b->folio_size, pg = rc->b->page_size;
	uint64_t to;

	if (pc_rand_below(r, 2)) {
		/* Start over so that large folios get allocated again. */
		if (ftruncate(rc->fd, 0))
			return -errno;
		return race_rewrite(rc, 0, rc->size);
	}
	to = pc_rand_below(r, rc->size / fs) * fs +
	     pg * (1 + pc_rand_below(r, fs / pg - 1)) + pc_rand_below(r, pg);
	if (to >= rc->size)
		to = rc->size / 2 + 1;
	if (pc_rand_below(r, 3)) {
		if (ftruncate(rc->fd, to) || ftruncate(rc->fd, rc->size))
			return -errno;
		return race_rewrite(rc, to, rc->size - to);
	}
	/* A partial hole in a large folio splits it as well. */
	if (fallocate(rc->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      to, pg * (1 + pc_rand_below(r, 4))))
		return errno == EOPNOTSUPP ? 0 : -errno;
	to &= ~(uint64_t)(pg - 1);
	return race_rewrite(rc, to, rc->size - to < 5 * pg ?
			    rc->size - to : 5 * pg);
}

static int race_falloc(struct race *rc, int mode, uint64_t off, uint64_t len)
{
	if (!fallocate(rc->fd, mode, off, len))
		return 0;
	return errno == EOPNOTSUPP || errno == ENOTSUP ? -EOPNOTSUPP : -errno;
}

static int op_punch(struct race *rc, struct pc_rng *r)
{
	uint64_t off = pc_rand_offset(r, rc->size - 1, rc->b->folio_size);
	uint64_t len = pc_rand_len(r, rc->size - off, rc->b->folio_size);
	int ret;

	ret = race_falloc(rc, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
			  len);
	return ret ? ret : race_rewrite(rc, off, len);
}

static int op_zero_range(struct race *rc, struct pc_rng *r)
{
	uint64_t off = pc_rand_offset(r, rc->size - 1, rc->b->folio_size);
	uint64_t len = pc_rand_len(r, rc->size - off, rc->b->folio_size);
	int ret;

	ret = race_falloc(rc, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, off,
			  len);
	return ret ? ret : race_rewrite(rc, off, len);
}

/* COLLAPSE_RANGE then INSERT_RANGE at the same place: data moves and back. */
static int op_collapse_insert(struct race *rc, struct pc_rng *r)
{
	uint64_t blk = rc->b->blksize, nblk = rc->size / blk;
	uint64_t len = blk * (1 + pc_rand_below(r, 8));
	uint64_t off = blk * pc_rand_below(r, nblk - len / blk);
	int ret;

	ret = race_falloc(rc, FALLOC_FL_COLLAPSE_RANGE, off, len);
	if (ret)
		return ret;
	ret = race_falloc(rc, FALLOC_FL_INSERT_RANGE, off, len);
	if (ret) {
		/* Put the file back in shape whatever happened. */
		if (ftruncate(rc->fd, rc->size))
			return -errno;
		race_rewrite(rc, off, rc->size - off);
		return ret;
	}
	return race_rewrite(rc, off, len);
}

/*
 * Punch a range, preallocate it (mode 0: tmpfs adds folios that are not
 * uptodate, whose memory still holds what was there before, and reads
 * must see zeros in them until written; a disk file system adds unwritten
 * extents) and write it again, in up to three writes with yields between.
 */
static int op_falloc_write(struct race *rc, struct pc_rng *r)
{
	uint64_t off = pc_rand_offset(r, rc->size - 1, rc->b->folio_size);
	uint64_t len = pc_rand_len(r, rc->size - off, rc->b->folio_size);
	uint64_t done = 0, n;
	int ret, writes = 0;

	ret = race_falloc(rc, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
			  len);
	if (!ret)
		ret = race_falloc(rc, 0, off, len);
	if (ret) {
		/* The punch may have happened: data again. */
		race_rewrite(rc, off, len);
		return ret;
	}
	/* Pieces of any length: partial writes to a preallocated folio. */
	while (done < len) {
		sched_yield();
		n = len - done;
		if (++writes < 3 && n > 1 && pc_rand_below(r, 2))
			n = 1 + pc_rand_below(r, n - 1);
		ret = race_rewrite(rc, off + done, n);
		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

static int op_overwrite(struct race *rc, struct pc_rng *r)
{
	uint64_t off = pc_rand_offset(r, rc->size - 1, rc->b->folio_size);
	size_t len = pc_rand_len(r, rc->size - off, rc->b->folio_size);
	unsigned int g;

	if (!rc->map || !rc->map_writable || pc_rand_below(r, 2))
		return race_rewrite(rc, off, len);
	/* Store through a shared mapping. */
	g = __atomic_add_fetch(&rc->gen, 1, __ATOMIC_ACQ_REL);
	pc_fill(rc->map + off, off, len, PC_MAGIC_DATA, 1, gen_byte(g));
	return 0;
}

static int op_drop_caches(struct race *rc, struct pc_rng *r)
{
	if (pc_write_file("/proc/sys/vm/drop_caches", "1\n"))
		return -errno;
	return 0;
}

static int op_fadvise(struct race *rc, struct pc_rng *r)
{
	int ret;

	ret = posix_fadvise(rc->fd, 0, 0, POSIX_FADV_DONTNEED);
	if (!ret && pc_rand_below(r, 4) == 0)
		ret = race_rewrite(rc, 0, rc->b->page_size * 3);
	return -ret;
}

static int op_pageout(struct race *rc, struct pc_rng *r)
{
	size_t i;

	for (i = 0; i < rc->size; i += rc->b->page_size)
		__atomic_load_n(&rc->map[i], __ATOMIC_RELAXED);
	if (madvise(rc->map, rc->size, MADV_PAGEOUT))
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	return 0;
}

/*
 * Flip the lockless read off and on (vm.pagecache_fast_read) while reads
 * run: off for 0-200 us, on for 0-1000 us, so that most reads can still
 * take it (a slow disk's race has few lockless reads to spare), and many
 * reads run across a flip.
 */
static int op_fast_flip(struct race *rc, struct pc_rng *r)
{
	/* Off first: it is on when the race starts. */
	int on = rc->flips++ & 1;

	if (pc_fast_read_set(on))
		return -errno;
	usleep(pc_rand_below(r, on ? 1000 : 200));
	return 0;
}

/*
 * Soft offline a page of the file through the shared mapping: the kernel
 * migrates it (splitting a large folio first) to a new page, or drops a
 * clean one, and takes the old one out of use.  EBUSY or EIO: it could not
 * be migrated now.  At most SOFT_OFFLINE_MAX pages per race.
 */
static int op_soft_offline(struct race *rc, struct pc_rng *r)
{
	size_t pg = rc->b->page_size;
	uint8_t *addr = rc->map + pc_rand_below(r, rc->size / pg) * pg;

	if (rc->soft_offlined >= SOFT_OFFLINE_MAX) {
		usleep(10000);
		return 0;
	}
	/*
	 * A disk file system's large folio splits only once its buffers can
	 * go, not while they are dirty: written back first, or ext4 answers
	 * EBUSY every time.
	 */
	if ((rc->b->type == PC_EXT4 || rc->b->type == PC_XFS) &&
	    fdatasync(rc->fd))
		return -errno;
	__atomic_load_n(addr, __ATOMIC_RELAXED);
	if (!madvise(addr, pg, MADV_SOFT_OFFLINE)) {
		rc->soft_offlined++;
		return 0;
	}
	if (errno == EBUSY || errno == EIO) {
		rc->soft_busy++;
		return 0;
	}
	return errno == EINVAL ? -EOPNOTSUPP : -errno;
}

/*
 * Up to 64 pages of a reader's buffer, every 0-1 ms: the readers must
 * still get on.  Its address, or NULL if the reader has none now.
 */
static uint8_t *dst_pick(struct race *rc, struct pc_rng *r, size_t *n)
{
	size_t pg = rc->b->page_size, npages;
	uint8_t *p;

	usleep(pc_rand_below(r, 1000));
	p = __atomic_load_n(&rc->dst[pc_rand_below(r, rc->nr_readers)],
			    __ATOMIC_ACQUIRE);
	npages = __atomic_load_n(&rc->dst_len, __ATOMIC_RELAXED) / pg;
	if (!p || !npages)
		return NULL;
	*n = 1 + pc_rand_below(r, 64);
	if (*n > npages)
		*n = npages;
	return p + pc_rand_below(r, npages - *n + 1) * pg;
}

/*
 * Swap pages of a reader's buffer out while the reader copies into them:
 * the copy faults and swaps them in, with the bytes already copied.
 * Errors do not matter: the reader may have just replaced that mapping.
 */
static int op_dst_pageout(struct race *rc, struct pc_rng *r)
{
	uint8_t *p;
	size_t n;

	p = dst_pick(rc, r, &n);
	if (p)
		madvise(p, n * rc->b->page_size, MADV_PAGEOUT);
	return 0;
}

/*
 * Move pages of a reader's buffer to a node while the reader copies into
 * them: the copy meets migration entries.  As above, errors do not matter.
 */
static int op_dst_migrate(struct race *rc, struct pc_rng *r)
{
	int to = rc->node[pc_rand_below(r, 2)], nodes[64], status[64];
	size_t pg = rc->b->page_size, n, k;
	void *pages[64];
	uint8_t *p;

	p = dst_pick(rc, r, &n);
	if (!p)
		return 0;
	for (k = 0; k < n; k++) {
		pages[k] = p + k * pg;
		nodes[k] = to;
		status[k] = -1;
	}
	/* race_nodes() found move_pages(2) */
	syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
	for (k = 0; k < n; k++)
		rc->dst_moved += status[k] == to;
	return 0;
}

static int op_compact(struct race *rc, struct pc_rng *r)
{
	if (pc_write_file("/proc/sys/vm/compact_memory", "1\n"))
		return -errno;
	return 0;
}

static int op_memcg_reclaim(struct race *rc, struct pc_rng *r)
{
	char p[300], v[32];

	snprintf(p, sizeof(p), "%s/memory.reclaim", rc->cg);
	snprintf(v, sizeof(v), "%zu\n", rc->size / 2);
	if (pc_write_file(p, v) && errno != EAGAIN) {
		/* No memory.reclaim (< 5.19): squeeze with memory.high. */
		snprintf(p, sizeof(p), "%s/memory.high", rc->cg);
		if (pc_write_file(p, "1M\n"))
			return -errno;
		usleep(1000);
		if (pc_write_file(p, "max\n"))
			return -errno;
	}
	if (pc_rand_below(r, 4) == 0)
		return race_rewrite(rc, 0, rc->b->page_size * 3);
	return 0;
}

static int op_migrate(struct race *rc, struct pc_rng *r)
{
	size_t pg = rc->b->page_size, npages = rc->size / pg, i, n;
	void *pages[64];
	int nodes[64], status[64];
	int to = rc->node[pc_rand_below(r, 2)];
	long ret;

	n = 1 + pc_rand_below(r, 64);
	if (n > npages)
		n = npages;
	i = pc_rand_below(r, npages - n + 1);
	for (size_t k = 0; k < n; k++) {
		pages[k] = rc->map + (i + k) * pg;
		__atomic_load_n((uint8_t *)pages[k], __ATOMIC_RELAXED);
		nodes[k] = to;
	}
	ret = syscall(SYS_move_pages, 0, n, pages, nodes, status,
		      MPOL_MF_MOVE_ALL);
	if (ret < 0 && errno == EPERM)
		ret = syscall(SYS_move_pages, 0, n, pages, nodes, status,
			      MPOL_MF_MOVE);
	if (ret < 0)
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	return 0;
}

#define MEMORY_SYSFS	"/sys/devices/system/memory"

static const char *const off_why[OFF_NR] = {
	"spans zones", "timeout", "EBUSY", "EIO", "EINVAL",
	"a poisoned page (soft_offline)", "EINTR/EAGAIN",
	"EPERM (boot memory, which arm64 never offlines)",
};

/*
 * Offline the memory block that holds one of the file's pages, which
 * migrates everything in it away and waits for the deferred frees of the
 * folios it replaced (offline_pages()), then online it again.  A block
 * that cannot go offline counts as a try.  The write runs in a child with
 * an alarm, since offline_pages() retries until a signal if a page cannot
 * be migrated.
 */
/*
 * Whether memory block @block has a poisoned page (soft_offline leaves
 * them): it would go offline, but not online again (EHWPOISON).
 */
static bool offline_block_poisoned(struct race *rc, unsigned long long block)
{
	unsigned long long pfn = block * rc->block_size / rc->b->page_size;
	unsigned long long n = rc->block_size / rc->b->page_size, i;
	uint64_t kpf[512];
	bool poisoned = false;
	int fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (i = 0; i < n && !poisoned; i += ARRAY_SIZE(kpf)) {
		ssize_t got = pread(fd, kpf, sizeof(kpf), (pfn + i) * sizeof(*kpf));
		ssize_t j;

		for (j = 0; j < got / (ssize_t)sizeof(*kpf); j++)
			poisoned |= kpf[j] >> KPF_HWPOISON & 1;
		if (got <= 0)
			break;
	}
	close(fd);
	return poisoned;
}

static int op_offline(struct race *rc, struct pc_rng *r)
{
	size_t pg = rc->b->page_size, i = pc_rand_below(r, rc->size / pg);
	uint8_t *addr = rc->map + i * pg;
	char path[128], zpath[128], zone[64];
	const char *online;
	unsigned long long ent, pfn, block;
	int fd, st, err, why;
	bool movable;
	pid_t pid;

	__atomic_load_n(addr, __ATOMIC_RELAXED);
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = pread(fd, &ent, sizeof(ent),
		    (uintptr_t)addr / pg * sizeof(ent)) == sizeof(ent) ?
		0 : -EIO;
	close(fd);
	pfn = ent & ((1ULL << 55) - 1);
	if (err || !(ent >> 63) || !pfn)
		return err;	/* not mapped (reclaimed meanwhile) */
	block = pfn * pg / rc->block_size;
	snprintf(path, sizeof(path), MEMORY_SYSFS "/memory%llu/state", block);
	/* Online, a block's valid_zones is the zone it is in. */
	snprintf(zpath, sizeof(zpath), MEMORY_SYSFS "/memory%llu/valid_zones",
		 block);
	if (pc_read_file(zpath, zone, sizeof(zone)))
		return 0;	/* not online, or no such block */
	__atomic_add_fetch(&rc->offline_tries, 1, __ATOMIC_RELAXED);
	if (offline_block_poisoned(rc, block)) {
		__atomic_add_fetch(&rc->offline_why[OFF_HWPOISON], 1,
				   __ATOMIC_RELAXED);
		return 0;
	}
	if (!strncmp(zone, "none", 4)) {
		/* Never goes offline: do not bother the kernel. */
		__atomic_add_fetch(&rc->offline_why[OFF_SPANS], 1,
				   __ATOMIC_RELAXED);
		return 0;
	}
	movable = !strncmp(zone, "Movable", 7);
	online = movable ? "online_movable\n" : "online_kernel\n";
	if (movable)
		__atomic_add_fetch(&rc->offline_movable, 1, __ATOMIC_RELAXED);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		/* Only async-signal-safe calls after fork() in a threaded process. */
		fd = open(path, O_WRONLY);
		alarm(3);
		_exit(fd < 0 ? errno : write(fd, "offline", 7) == 7 ? 0 : errno);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -errno;
	/*
	 * The alarm: migration did not finish in time.  EBUSY: unmovable
	 * pages (boot-time allocations at the top of a node too), EIO:
	 * migration failed, EINVAL: the block has a hole (QEMU's last block
	 * does), is offline already, or no CONFIG_MEMORY_HOTREMOVE,
	 * EHWPOISON: a page of the block was poisoned meanwhile, EINTR: a
	 * signal, EPERM: a memory notifier vetoed it (arm64 does for memory
	 * present at boot: prevent_memory_remove_notifier()).
	 */
	err = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	why = err < 0 ? OFF_TIMEOUT : err == EBUSY ? OFF_BUSY :
	      err == EIO ? OFF_EIO : err == EINVAL ? OFF_EINVAL :
	      err == EHWPOISON ? OFF_HWPOISON :
	      err == EINTR || err == EAGAIN ? OFF_OTHER :
	      err == EPERM ? OFF_BOOT : -1;
	if (err && why < 0)
		return -err;
	if (err) {
		__atomic_add_fetch(&rc->offline_why[why], 1, __ATOMIC_RELAXED);
		return 0;
	}
	__atomic_add_fetch(&rc->offlined, 1, __ATOMIC_RELAXED);
	if (pc_write_file(path, online))
		return -errno;
	return 0;
}

/* Truncate the kept-open file to nothing and fill it again. */
static int op_victim_truncate(struct race *rc, struct pc_rng *r)
{
	if (ftruncate(rc->fd, 0))
		return -errno;
	if (pc_rand_below(r, 2))
		sched_yield();
	return race_rewrite(rc, 0, rc->size);
}

/* Replace the file at rc->path by a new one (old one deleted). */
static int op_victim_replace(struct race *rc, struct pc_rng *r)
{
	char tmp[600];
	struct stat st;
	uint16_t fid;
	int fd, ret;

	snprintf(tmp, sizeof(tmp), "%s.new", rc->path);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&rc->lock);
	fid = rc->next_fid++;
	pthread_mutex_unlock(&rc->lock);
	ret = race_rewrite_fd(rc, fd, fid, 0, rc->size);
	if (!ret && fstat(fd, &st))
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	race_register(rc, st.st_ino, fid);
	if (rename(tmp, rc->path))
		return -errno;
	return 0;
}

/* Fill freshly allocated page cache of another file with a secret. */
static int op_secret_fill(struct race *rc, struct pc_rng *r)
{
	uint8_t *buf = malloc(rc->size);
	char path[600];
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = pc_backing_create(rc->b, "secret", 0, path, sizeof(path));
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	if (pc_write_pattern(fd, 0, rc->size, PC_MAGIC_SECRET, SECRET_FID, 1) ||
	    pread(fd, buf, rc->size, 0) < 0)
		ret = -errno;
	if (path[0])
		unlink(path);
	close(fd);
	free(buf);
	return ret;
}

/* ---- folio shape operations ---- */

static bool shape_disk(struct race *rc)
{
	return rc->b->type == PC_EXT4 || rc->b->type == PC_XFS;
}

/*
 * Order of the folio that holds file offset @off, from the PFN pagemap
 * gives for it through rc->map and the compound page flags of the PFNs
 * around it; -1 when it cannot tell.  Faults the page in: @off must be
 * below i_size.
 */
static int shape_order(struct race *rc, uint64_t off)
{
	const uint64_t head = 1ULL << KPF_COMPOUND_HEAD;
	const uint64_t tail = 1ULL << KPF_COMPOUND_TAIL;
	size_t pg = rc->b->page_size;
	uint8_t *addr = rc->map + off / pg * pg;
	uint64_t ent, pfn, first, flags[1024];
	long i, h, n;
	int order;

	__atomic_load_n(addr, __ATOMIC_RELAXED);
	if (pread(rc->sh.pagemap_fd, &ent, sizeof(ent),
		  (uintptr_t)addr / pg * sizeof(ent)) != sizeof(ent))
		return -1;
	pfn = ent & ((1ULL << 55) - 1);
	if (!(ent >> 63) || !pfn)
		return -1;
	/* The head is at most 511 PFNs before, the end 512 after. */
	first = pfn > 511 ? pfn - 511 : 0;
	n = pread(rc->sh.kpf_fd, flags, sizeof(flags), first * sizeof(flags[0]));
	i = pfn - first;
	if (n < 0 || n / (long)sizeof(flags[0]) <= i)
		return -1;
	n /= sizeof(flags[0]);
	if (!(flags[i] & (head | tail)))
		return 0;
	for (h = i; h > 0 && (flags[h] & tail); h--)
		;
	if (!(flags[h] & head))
		return -1;
	for (i = h + 1; i < n && (flags[i] & tail); i++)
		;
	for (order = 0; (1L << order) < i - h; order++)
		;
	return order;
}

static int shape_sync(struct race *rc)
{
	if (shape_disk(rc) && fdatasync(rc->fd))
		return -errno;
	return 0;
}

/*
 * Drop [off, off + len) and write it again in one write of a new
 * generation: the page cache allocates folios as large as the writes, or
 * (tmpfs) as the empty aligned range.  Written back on a disk, so that a
 * split does not find it dirty.
 */
static int shape_rewrite(struct race *rc, uint64_t off, size_t len)
{
	unsigned int g;
	int ret;

	ret = race_falloc(rc, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
			  len);
	if (ret)
		return ret;
	g = __atomic_add_fetch(&rc->gen, 1, __ATOMIC_ACQ_REL);
	pc_fill(rc->sh.buf, off, len, PC_MAGIC_DATA, 1, gen_byte(g));
	if (pc_pwrite_all(rc->fd, rc->sh.buf, len, off))
		return -errno;
	return shape_sync(rc);
}

/*
 * Build the large folio again: 0, or -errno.  After a rewrite, collapse
 * what readers of the hole (on a disk) left as small folios.
 */
static int shape_rebuild(struct race *rc)
{
	struct shape *sh = &rc->sh;
	int i, ret;

	if (sh->rebuild == SHAPE_REWRITE) {
		ret = shape_rewrite(rc, sh->fpos, sh->fsize);
		if (ret || !sh->pmd || shape_order(rc, sh->fpos) == sh->order)
			return ret;
	}
	/* Fails while a reader holds a reference to one of the folios. */
	for (i = 0; i < 8; i++) {
		if (!madvise(rc->map + sh->fpos, sh->fsize, MADV_COLLAPSE))
			break;
		sh->n[SH_COLLAPSE_RETRY]++;
		sched_yield();
	}
	return 0;
}

/*
 * Make a new folio hot, so that readers copy from it without a reference,
 * which would make a split fail.  Read its first page (tmpfs marks a
 * folio accessed only when a read starts at its beginning), then across
 * its end (the next read starts in another folio than this one ended in,
 * as the page cache wants it to mark the folio accessed again), and again.
 * Then drain the per-CPU LRU batches, whose reference to a new folio makes
 * a split fail too: MADV_COLLAPSE does that first, and then finds the
 * folio PMD-sized already.
 */
static void shape_warm(struct race *rc)
{
	struct shape *sh = &rc->sh;
	size_t pg = rc->b->page_size;
	int i;

	for (i = 0; i < 8; i++)
		if (pread(rc->fd, sh->buf, pg, sh->fpos) < 0 ||
		    pread(rc->fd, sh->buf, 2 * pg,
			  sh->fpos + sh->fsize - pg) < 0)
			break;
	if (sh->pmd)
		madvise(rc->map + sh->fpos, sh->fsize, MADV_COLLAPSE);
}

/*
 * Before each shape change: make sure that the large folio is there, as
 * built at the start, and hot.  1 if so, 0 if it could not be built again
 * this time, or -errno.
 */
static int shape_ready(struct race *rc)
{
	struct shape *sh = &rc->sh;
	int tries, ret;

	for (tries = 0; shape_order(rc, sh->fpos) != sh->order; tries++) {
		if (tries == 3) {
			sh->n[SH_REBUILD_FAILED]++;
			usleep(1000);
			return 0;
		}
		ret = shape_rebuild(rc);
		if (ret)
			return ret;
	}
	sh->n[SH_READY]++;
	sh->n[SH_REBUILT] += tries > 0;
	shape_warm(rc);
	return 1;
}

/* A page in the last pages of the folio, where the readers start. */
static uint64_t shape_last_page(struct race *rc, struct pc_rng *r)
{
	struct shape *sh = &rc->sh;

	return sh->fpos + sh->fsize - rc->b->page_size * (1 + pc_rand_below(r, 8));
}

/*
 * Split the folio through debugfs: to order 0 or to an intermediate
 * order, all of it (uniform), or only down to a page readers start in
 * (buddy-like, from order - 1 down).  Counted as a split when the folio of
 * the last page, or of that page, has the new order afterwards.
 */
static int op_shape_split(struct race *rc, struct pc_rng *r)
{
	struct shape *sh = &rc->sh;
	size_t pg = rc->b->page_size, nr = sh->fsize / pg;
	int ret, to = 0, order, tries;
	long at = -1;
	char cmd[160];
	size_t n;

	ret = shape_ready(rc);
	if (ret <= 0)
		return ret;
	/*
	 * Mostly a uniform split to order 0: only that one rewrites page 1,
	 * which holds the size of the old folio, before the XArray changes.
	 */
	switch (pc_rand_below(r, 8)) {
	case 0:
		to = 2;
		break;
	case 1:
		to = 4;
		break;
	case 2:
	case 3:
		at = nr - 1 - pc_rand_below(r, 8);
		break;
	}
	if (to >= sh->order)
		to = 0;
	n = snprintf(cmd, sizeof(cmd), "%s,0x%llx,0x%llx,%d", sh->path,
		     (unsigned long long)(sh->fpos / pg),
		     (unsigned long long)(sh->fpos / pg + nr), to);
	if (at >= 0)
		snprintf(cmd + n, sizeof(cmd) - n, ",%ld", at);
	/*
	 * A reader that started to copy with a reference while the folio was
	 * still cold may hold it for a while: try again a few times.
	 */
	for (tries = 0; tries < 4; tries++) {
		if (tries)
			usleep(1000);
		if (pc_write_file(SPLIT_DEBUGFS, cmd))
			return -errno;
		sh->n[SH_SPLIT_WRITE]++;
		order = shape_order(rc, sh->fpos + (at >= 0 ? at : nr - 1) * pg);
		if (order >= 0 && order <= to) {
			sh->n[at >= 0 ? SH_SPLIT_BUDDY : to ? SH_SPLIT_MID :
			      SH_SPLIT_0]++;
			return 0;
		}
	}
	sh->n[SH_SPLIT_MISSED]++;
	return 0;
}

/* Count whether a punch or truncate split the folio or only zeroed it. */
static void shape_cut_count(struct race *rc)
{
	struct shape *sh = &rc->sh;

	sh->n[shape_order(rc, sh->fpos) == sh->order ? SH_CUT_KEPT :
	      SH_CUT_SPLIT]++;
}

/*
 * Punch a hole of a few pages into the folio: over the pages readers
 * start in, or anywhere in it, at times from the middle of a page.  The
 * kernel splits the folio around the hole, or zeroes the hole in place.
 */
static int op_shape_punch(struct race *rc, struct pc_rng *r)
{
	struct shape *sh = &rc->sh;
	size_t pg = rc->b->page_size;
	uint64_t end = sh->fpos + sh->fsize, off, len;
	int ret;

	ret = shape_ready(rc);
	if (ret <= 0)
		return ret;
	if (pc_rand_below(r, 2))
		off = shape_last_page(rc, r);
	else
		off = sh->fpos + pg * pc_rand_below(r, sh->fsize / pg);
	if (!pc_rand_below(r, 4))
		off += pc_rand_below(r, pg);
	len = pg * (1 + pc_rand_below(r, 4));
	if (len > end - off)
		len = end - off;
	ret = race_falloc(rc, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
			  len);
	if (ret)
		return ret;
	shape_cut_count(rc);
	sh->n[SH_PUNCHED]++;
	/* Data again where the folio was kept: zeros are no test. */
	ret = race_rewrite(rc, off, len);
	return ret ? ret : shape_sync(rc);
}

/*
 * Truncate into the folio, in the last pages or anywhere in it, then
 * extend the file again and write everything after the folio's start
 * again (the next folio went with the truncate).
 */
static int op_shape_truncate(struct race *rc, struct pc_rng *r)
{
	struct shape *sh = &rc->sh;
	size_t pg = rc->b->page_size;
	uint64_t to;
	int ret;

	ret = shape_ready(rc);
	if (ret <= 0)
		return ret;
	if (pc_rand_below(r, 2))
		to = shape_last_page(rc, r);
	else
		to = sh->fpos + pg * (1 + pc_rand_below(r, sh->fsize / pg - 1));
	if (pc_rand_below(r, 2))
		to += pc_rand_below(r, pg);
	if (ftruncate(rc->fd, to))
		return -errno;
	shape_cut_count(rc);
	sh->n[SH_TRUNCATED]++;
	if (pc_rand_below(r, 2))
		sched_yield();
	if (ftruncate(rc->fd, rc->size))
		return -errno;
	return shape_rewrite(rc, sh->fpos, rc->size - sh->fpos);
}

/*
 * Move the folio to the other node (one of its last pages named, the
 * whole folio moves).  Counted as moved when the page is on that node
 * afterwards, and as moved large when it is still in a folio of the
 * order it was built with (migration splits a folio it cannot move whole).
 */
static int op_shape_migrate(struct race *rc, struct pc_rng *r)
{
	struct shape *sh = &rc->sh;
	void *addr;
	int ret, to, st;
	long err;

	ret = shape_ready(rc);
	if (ret <= 0)
		return ret;
	addr = rc->map + shape_last_page(rc, r);
	__atomic_load_n((uint8_t *)addr, __ATOMIC_RELAXED);
	/* No nodes: where the page is. */
	err = syscall(SYS_move_pages, 0, 1, &addr, NULL, &st, 0);
	if (err < 0)
		return -errno;
	if (st < 0) {
		sh->n[SH_NOT_MOVED]++;
		return 0;
	}
	to = st == rc->node[0] ? rc->node[1] : rc->node[0];
	err = syscall(SYS_move_pages, 0, 1, &addr, &to, &st, MPOL_MF_MOVE_ALL);
	if (err < 0 && errno == EPERM)
		err = syscall(SYS_move_pages, 0, 1, &addr, &to, &st,
			      MPOL_MF_MOVE);
	if (err < 0)
		return -errno;
	if (st != to) {
		sh->n[SH_NOT_MOVED]++;
		return 0;
	}
	sh->n[SH_MOVED]++;
	sh->n[SH_MOVED_LARGE] += shape_order(rc, sh->fpos) == sh->order;
	return 0;
}

/* ---- setup helpers for ops that need it ---- */

/*
 * Map the file shared at @addr (MAP_FIXED if not NULL): writable where
 * that keeps reads lockless, else read-only through a descriptor opened
 * read-only, since a shared mapping of one opened for writing counts as
 * writable (VM_MAYWRITE) even without PROT_WRITE.
 */
static void *race_mmap(struct race *rc, void *addr)
{
	int flags = MAP_SHARED | (addr ? MAP_FIXED : 0), fd = rc->fd;
	char path[64];
	void *map;

	rc->map_writable = !pc_arch_flushes_dcache();
	if (rc->map_writable)
		return mmap(addr, rc->size, PROT_READ | PROT_WRITE, flags, fd,
			    0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", rc->fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return MAP_FAILED;
	map = mmap(addr, rc->size, PROT_READ, flags, fd, 0);
	close(fd);
	return map;
}

static void race_map(struct race *rc)
{
	rc->map = race_mmap(rc, NULL);
	if (rc->map == MAP_FAILED)
		rc->map = NULL;
}

/* Move this process into a new memory cgroup; "" on success. */
static void memcg_enter(struct race *rc, char *reason)
{
	char buf[512];
	char *s = NULL;

	reason[0] = '\0';
	if (!pc_read_file("/proc/self/cgroup", buf, sizeof(buf)))
		s = strstr(buf, "0::");
	if (!s) {
		snprintf(reason, PC_REASON_LEN, "cannot read /proc/self/cgroup");
		return;
	}
	s += 3;
	s[strcspn(s, "\n")] = '\0';
	snprintf(rc->cg_orig, sizeof(rc->cg_orig), PC_CGROUP_ROOT "%s", s);
	if (pc_memcg_create(rc->cg, sizeof(rc->cg), "pagecache_test", reason))
		return;
	if (pc_cgroup_move(rc->cg, 0)) {
		snprintf(reason, PC_REASON_LEN, "moving into %.100s: %s",
			 rc->cg, strerror(errno));
		rmdir(rc->cg);
		rc->cg[0] = '\0';
	}
}

static void memcg_leave(struct race *rc)
{
	if (!rc->cg[0])
		return;
	pc_cgroup_move(rc->cg_orig, 0);
	rmdir(rc->cg);
	rc->cg[0] = '\0';
}

/* ---- the fixture ---- */

FIXTURE(race) {
	struct pc_backing b;
	struct race rc;
};

FIXTURE_VARIANT(race) {
	enum pc_backing_type backing;
};

FIXTURE_VARIANT_ADD(race, ext4)
{
	.backing = PC_EXT4,
};

FIXTURE_VARIANT_ADD(race, xfs)
{
	.backing = PC_XFS,
};

FIXTURE_VARIANT_ADD(race, tmpfs)
{
	.backing = PC_TMPFS,
};

FIXTURE_VARIANT_ADD(race, tmpfs_huge)
{
	.backing = PC_TMPFS_HUGE,
};

FIXTURE_VARIANT_ADD(race, memfd)
{
	.backing = PC_MEMFD,
};

/* What every race fixture sets up: the backing, and the race state. */
static void race_common_setup(struct __test_metadata *_metadata,
			      struct pc_backing *b, struct race *rc,
			      enum pc_backing_type backing)
{
	char reason[PC_REASON_LEN];
	int ret;

	memset(rc, 0, sizeof(*rc));
	rc->fd = -1;
	ret = pc_backing_setup(b, backing, reason);
	if (ret == KSFT_SKIP)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, ret) TH_LOG("%s", reason);
	pthread_mutex_init(&rc->lock, NULL);
	rc->md = _metadata;
	rc->b = b;
	rc->next_fid = 2;
	rc->sh.pagemap_fd = -1;
	rc->sh.kpf_fd = -1;
	/* Every race must see reads served by the lockless path. */
	rc->saved_fast = pc_fast_read_get();
	if (rc->saved_fast == 1 ||
	    (rc->saved_fast == 0 && !pc_fast_read_set(1)))
		rc->fast_on = true;
	race_count(rc, PC_VMSTAT_FAST_READ);
	race_count(rc, PC_VMSTAT_FAST_READ_CHANGED);
	/* Modest sizes: this must finish on slow emulated CPUs. */
	rc->size = backing == PC_TMPFS_HUGE ? b->folio_size :
		   backing == PC_XFS ? 2 << 20 : 1 << 20;
}

static void race_common_teardown(struct pc_backing *b, struct race *rc)
{
	struct shape *sh = &rc->sh;

	memcg_leave(rc);
	if (rc->map)
		munmap(rc->map, rc->size);
	if (rc->fd >= 0)
		close(rc->fd);
	pc_backing_teardown(b);
	if (sh->pagemap_fd >= 0)
		close(sh->pagemap_fd);
	if (sh->kpf_fd >= 0)
		close(sh->kpf_fd);
	free(sh->buf);
	free(rc->ref);
	if (sh->shmem_enabled[0])
		pc_write_file(MTHP_SYSFS "shmem_enabled", sh->shmem_enabled);
	/* race.fast_flip may have left it either way. */
	if (rc->saved_fast >= 0)
		pc_fast_read_set(rc->saved_fast);
}

FIXTURE_SETUP(race)
{
	race_common_setup(_metadata, &self->b, &self->rc, variant->backing);
}

FIXTURE_TEARDOWN(race)
{
	race_common_teardown(&self->b, &self->rc);
}

static void race_add(struct race *rc, const char *name,
		     int (*fn)(struct race *, struct pc_rng *), int thread)
{
	struct race_op *op = &rc->ops[rc->nr_ops++];

	op->name = name;
	op->fn = fn;
	op->thread = thread;
}

/* How often operation @name succeeded. */
static uint64_t race_done(struct race *rc, const char *name)
{
	int i;

	for (i = 0; i < rc->nr_ops; i++)
		if (!strcmp(rc->ops[i].name, name))
			return rc->ops[i].done;
	return 0;
}

/* After race_run(): whether it skipped, having no usable operation. */
static bool race_skipped(struct __test_metadata *_metadata)
{
	return _metadata->exit_code == KSFT_SKIP;
}

/* Whether a swap area is active: /proc/swaps has more than its header. */
static bool race_have_swap(void)
{
	char buf[256], *nl;

	if (pc_read_file("/proc/swaps", buf, sizeof(buf)))
		return false;
	nl = strchr(buf, '\n');
	return nl && nl[1];
}

static void race_disable(struct race *rc, const char *name, const char *why)
{
	int i;

	for (i = 0; i < rc->nr_ops; i++) {
		if (!strcmp(rc->ops[i].name, name)) {
			rc->ops[i].unsupported = true;
			snprintf(rc->ops[i].why, sizeof(rc->ops[i].why), "%s",
				 why);
		}
	}
}

/* Create and fill the file(s); call after the ops were added. */
static void race_prepare(struct __test_metadata *_metadata, struct race *rc)
{
	struct stat st;

	pc_print_seed();
	rc->fd = pc_backing_create(rc->b, "race", 0, NULL, 0);
	ASSERT_LE(0, rc->fd) TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, race_rewrite(rc, 0, rc->size));
	race_map(rc);
	if (rc->replace && pc_backing_has_path(rc->b)) {
		snprintf(rc->path, sizeof(rc->path), "%s/replaced", rc->b->dir);
		ASSERT_EQ(0, op_victim_replace(rc, NULL));
		ASSERT_EQ(0, stat(rc->path, &st));
	} else {
		rc->replace = false;
		race_disable(rc, "replace", "no path for memfd");
	}
}

static const char *const sh_names[SH_NR] = {
	[SH_READY] = "ready", [SH_REBUILT] = "rebuilt",
	[SH_REBUILD_FAILED] = "not-rebuilt",
	[SH_COLLAPSE_RETRY] = "collapse-retries",
	[SH_SPLIT_WRITE] = "split-writes", [SH_SPLIT_0] = "split-to-0",
	[SH_SPLIT_MID] = "split-to-2-or-4", [SH_SPLIT_BUDDY] = "split-buddy",
	[SH_SPLIT_MISSED] = "not-split", [SH_CUT_SPLIT] = "cut-split",
	[SH_CUT_KEPT] = "cut-kept-large", [SH_MOVED] = "moved",
	[SH_MOVED_LARGE] = "moved-large", [SH_NOT_MOVED] = "not-moved",
	[SH_PUNCHED] = "punched", [SH_TRUNCATED] = "truncated",
};

static void shape_report(struct race *rc)
{
	struct shape *sh = &rc->sh;
	char buf[512];
	size_t n = 0;
	int i;

	for (i = 0; i < SH_NR; i++)
		if (sh->n[i])
			n += snprintf(buf + n, sizeof(buf) - n, " %s=%llu",
				      sh_names[i], (unsigned long long)sh->n[i]);
	ksft_print_msg("folio of order %d at %llu, built again by %s:%s\n",
		       sh->order, (unsigned long long)sh->fpos,
		       sh->rebuild == SHAPE_COLLAPSE ? "MADV_COLLAPSE" :
		       sh->pmd ? "punch and write (and MADV_COLLAPSE)" :
		       "punch and write",
		       n ? buf : " nothing");
}

/*
 * Where the race keeps the file's data as it is (a split or a migration,
 * and a rebuild by MADV_COLLAPSE), readers compare with a copy first.
 */
static void shape_ref(struct __test_metadata *_metadata, struct race *rc)
{
	struct pc_verdict v = { 0 };
	struct pc_rules rules = {
		.fid = 1,
		.max_gen = gen_byte(rc->gen),
	};

	if (rc->sh.rebuild != SHAPE_COLLAPSE)
		return;
	rc->ref = malloc(rc->size);
	ASSERT_NE(NULL, rc->ref);
	ASSERT_EQ(rc->size, pread(rc->fd, rc->ref, rc->size, 0));
	pc_check(rc->ref, 0, rc->size, &rules, &v);
	ASSERT_EQ(0, v.foreign + v.invalid + v.words_zero)
		TH_LOG("the file does not hold what was written");
}

/* Free memory with a secret in it, for the file's folios to land next to. */
static void shape_spray(struct race *rc, size_t len)
{
	char path[600];
	int fd;

	fd = pc_backing_create(rc->b, "spray", 0, path, sizeof(path));
	if (fd < 0)
		return;
	pc_write_pattern(fd, 0, len, PC_MAGIC_SECRET, SECRET_FID, 1);
	if (path[0])
		unlink(path);
	close(fd);
}

/* Map the file at a PMD aligned address, as MADV_COLLAPSE needs. */
static int shape_map(struct race *rc, size_t align)
{
	size_t len = rc->size + align;
	uint8_t *p, *a;

	p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a = (uint8_t *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (race_mmap(rc, a) == MAP_FAILED) {
		munmap(p, len);
		return -errno;
	}
	if (a > p)
		munmap(p, a - p);
	munmap(a + rc->size, p + len - (a + rc->size));
	if (rc->map)
		munmap(rc->map, rc->size);
	rc->map = a;
	return 0;
}

/* Use the split_huge_pages file of debugfs, mounting debugfs if need be. */
static bool shape_debugfs(void)
{
	if (!access(SPLIT_DEBUGFS, W_OK))
		return true;
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return !access(SPLIT_DEBUGFS, W_OK);
}

/* memfd: large folios only where shmem_enabled says so; until teardown. */
static bool shape_shmem_always(struct race *rc, char *reason)
{
	char buf[128], *s, *e;

	if (pc_read_file(MTHP_SYSFS "shmem_enabled", buf, sizeof(buf))) {
		snprintf(reason, PC_REASON_LEN, "no " MTHP_SYSFS "shmem_enabled");
		return false;
	}
	s = strchr(buf, '[');
	e = s ? strchr(s, ']') : NULL;
	if (!e) {
		snprintf(reason, PC_REASON_LEN, "cannot parse shmem_enabled: %s",
			 buf);
		return false;
	}
	*e = '\0';
	if (!strcmp(s + 1, "always") || !strcmp(s + 1, "force"))
		return true;
	if (pc_write_file(MTHP_SYSFS "shmem_enabled", "always")) {
		snprintf(reason, PC_REASON_LEN, "shmem_enabled=always: %s",
			 strerror(errno));
		return false;
	}
	snprintf(rc->sh.shmem_enabled, sizeof(rc->sh.shmem_enabled), "%s",
		 s + 1);
	return true;
}

/*
 * Set up a folio shape race, after the ops were added: a file of two PMD
 * sizes whose first one is a single large folio (verified through
 * /proc/kpageflags), with a secret in free memory around.  The folio is
 * built again by MADV_COLLAPSE where @collapse and the backing can (the
 * data stays, so no zeros are allowed), else by punching and writing it.
 * False after a SKIP.
 */
static bool shape_prepare(struct __test_metadata *_metadata, struct race *rc,
			  bool collapse)
{
	struct shape *sh = &rc->sh;
	size_t pmd = pc_pmd_size(), pg = rc->b->page_size;
	char reason[PC_REASON_LEN];
	int order;

	if (!pc_is_root())
		SKIP(return false, "needs root (pagemap PFNs, /proc/kpageflags)");
	if (!pmd)
		SKIP(return false, "no transparent huge pages");
	if (rc->b->type == PC_TMPFS)
		SKIP(return false, "tmpfs huge=never makes no large folios");
	if (rc->b->type == PC_MEMFD && !shape_shmem_always(rc, reason))
		SKIP(return false, "memfd: %s", reason);
	sh->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	sh->kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (sh->pagemap_fd < 0 || sh->kpf_fd < 0)
		SKIP(return false, "no pagemap or kpageflags in /proc");

	shape_spray(rc, 16 * pmd);
	rc->size = 2 * pmd;
	sh->buf = malloc(rc->size);
	ASSERT_NE(NULL, sh->buf);
	race_prepare(_metadata, rc);
	ASSERT_EQ(0, shape_map(rc, pmd));
	snprintf(sh->path, sizeof(sh->path), "/proc/%d/fd/%d", getpid(),
		 rc->fd);
	/* The second folio first: it is not the memory after the first. */
	ASSERT_EQ(0, shape_rewrite(rc, pmd, pmd));
	ASSERT_EQ(0, shape_rewrite(rc, 0, pmd));
	order = shape_order(rc, 0);
	if (order < 2)
		SKIP(return false, "%s gives no large folio here: order %d after a %zu KiB write",
		     rc->b->name, order, pmd >> 10);
	sh->order = order;
	sh->fsize = pg << order;
	sh->pmd = sh->fsize == pmd;
	sh->rebuild = SHAPE_REWRITE;
	if (collapse && sh->pmd &&
	    !madvise(rc->map, pmd, MADV_COLLAPSE))
		sh->rebuild = SHAPE_COLLAPSE;
	rc->zeros_ok |= sh->rebuild == SHAPE_REWRITE;
	rc->report = shape_report;
	ksft_print_msg("%s: folio of order %d at 0, the next one of order %d\n",
		       rc->b->name, order, shape_order(rc, pmd));
	return true;
}

/*
 * Set up folio_shape_mthp: as shape_prepare(), then make the last 1 <<
 * MTHP_ORDER pages of the first PMD-sized folio a folio of that order.
 * Punching them splits the folio around the hole; shmem fills a hole with
 * a folio as large as the largest aligned range around it that is empty,
 * and the pages before bound it.  Built again the same way (SHAPE_REWRITE).
 * False after a SKIP.
 */
static bool shape_prepare_mthp(struct __test_metadata *_metadata,
			       struct race *rc)
{
	struct shape *sh = &rc->sh;
	size_t pmd = pc_pmd_size(), pg = rc->b->page_size;
	size_t len = pg << MTHP_ORDER;
	int i, order = -1;

	if (!shape_prepare(_metadata, rc, false))
		return false;
	if (!sh->pmd || len >= pmd)
		SKIP(return false, "no PMD-sized folio with room for an order %d hole",
		     MTHP_ORDER);
	sh->fpos = pmd - len;
	for (i = 0; i < 8 && order != MTHP_ORDER; i++) {
		if (i)
			usleep(1000);
		ASSERT_EQ(0, shape_rewrite(rc, sh->fpos, len));
		order = shape_order(rc, sh->fpos);
	}
	if (order != MTHP_ORDER)
		SKIP(return false, "%s makes no order %d folio in a hole here: order %d",
		     rc->b->name, MTHP_ORDER, order);
	sh->order = order;
	sh->fsize = len;
	sh->pmd = false;
	ksft_print_msg("%s: folio of order %d at %llu; before it order %d, after it %d\n",
		       rc->b->name, order, (unsigned long long)sh->fpos,
		       shape_order(rc, sh->fpos - pg), shape_order(rc, pmd));
	return true;
}

/* Reader threads per race: PAGECACHE_READERS, default 2. */
static int race_nr_readers(void)
{
	const char *env = getenv("PAGECACHE_READERS");
	int n = env && *env ? atoi(env) : 2;

	return n < 1 ? 1 : n > MAX_READERS ? MAX_READERS : n;
}

static void race_run(struct __test_metadata *_metadata, struct race *rc)
{
	static struct reader rd[MAX_READERS];
	int nr_readers = race_nr_readers();
	struct mutator mu[2];
	double secs = pc_race_seconds();
	int i, nr_mu = 1, live = 0;
	char opsbuf[512];
	size_t n = 0;
	uint64_t v;

	for (i = 0; i < rc->nr_ops; i++) {
		if (rc->ops[i].thread >= nr_mu)
			nr_mu = rc->ops[i].thread + 1;
		live += !rc->ops[i].unsupported;
	}
	if (!live) {
		for (i = 0; i < rc->nr_ops; i++)
			n += snprintf(opsbuf + n, sizeof(opsbuf) - n, "%s%s: %s",
				      i ? "; " : "", rc->ops[i].name,
				      rc->ops[i].why);
		SKIP(return, "no usable operation (%s)", opsbuf);
	}

	for (i = 0; i < rc->nr_cnt; i++)
		rc->cnt_ok[i] = !race_counter(rc->cnt_name[i], &rc->cnt[i]);
	rc->nr_readers = nr_readers;
	for (i = 0; i < nr_readers; i++) {
		rd[i].rc = rc;
		rd[i].idx = i;
		ASSERT_EQ(0, pthread_create(&rd[i].thread, NULL, reader_fn,
					    &rd[i]));
	}
	for (i = 0; i < nr_mu; i++) {
		mu[i].rc = rc;
		mu[i].idx = i;
		ASSERT_EQ(0, pthread_create(&mu[i].thread, NULL, mutator_fn,
					    &mu[i]));
	}
	{
		double start = pc_now(), end = start + secs, now;

		/*
		 * A race whose writer keeps the folios cold (reclaim) may
		 * not have had a lockless read yet: give it up to as long
		 * again to have one.
		 */
		while (!race_stopped(rc)) {
			now = pc_now();
			if (now >= end &&
			    (now >= end + secs || !rc->fast_on ||
			     !rc->cnt_ok[0] ||
			     race_counter(rc->cnt_name[0], &v) ||
			     v != rc->cnt[0]))
				break;
			usleep(20000);
		}
		secs = pc_now() - start;
	}
	__atomic_store_n(&rc->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nr_readers; i++)
		pthread_join(rd[i].thread, NULL);
	for (i = 0; i < nr_mu; i++)
		pthread_join(mu[i].thread, NULL);
	for (i = 0; i < rc->nr_cnt; i++) {
		rc->cnt_ok[i] = rc->cnt_ok[i] &&
				!race_counter(rc->cnt_name[i], &v);
		rc->cnt[i] = rc->cnt_ok[i] ? v - rc->cnt[i] : 0;
	}

	n = 0;
	for (i = 0; i < rc->nr_ops; i++) {
		struct race_op *op = &rc->ops[i];

		if (op->unsupported)
			n += snprintf(opsbuf + n, sizeof(opsbuf) - n,
				      " %s=skipped(%s)", op->name, op->why);
		else
			n += snprintf(opsbuf + n, sizeof(opsbuf) - n, " %s=%llu",
				      op->name, (unsigned long long)op->done);
	}
	ksft_print_msg("%s: %.1fs, %d readers, %llu reads (%llu short, %llu wrote past the count), %llu MiB; ops:%s\n",
		       rc->b->name, secs, nr_readers,
		       (unsigned long long)rc->reads,
		       (unsigned long long)rc->short_reads,
		       (unsigned long long)rc->tails,
		       (unsigned long long)(rc->bytes >> 20), opsbuf);
	ksft_print_msg("words: current=%llu stale=%llu zero=%llu shifted=%llu foreign=%llu never-valid=%llu\n",
		       (unsigned long long)rc->v.words_ok,
		       (unsigned long long)rc->v.words_stale,
		       (unsigned long long)rc->v.words_zero,
		       (unsigned long long)rc->v.words_shifted,
		       (unsigned long long)rc->v.foreign,
		       (unsigned long long)rc->v.invalid);
	n = 0;
	for (i = 0; i < rc->nr_cnt; i++) {
		if (rc->cnt_ok[i])
			n += snprintf(opsbuf + n, sizeof(opsbuf) - n, " %s +%llu",
				      rc->cnt_name[i],
				      (unsigned long long)rc->cnt[i]);
		else
			n += snprintf(opsbuf + n, sizeof(opsbuf) - n, " %s n/a",
				      rc->cnt_name[i]);
	}
	ksft_print_msg("counters (lockless read %s):%s\n",
		       rc->fast_on ? "on" : "off or absent", opsbuf);
	if (rc->report)
		rc->report(rc);

	ASSERT_FALSE(rc->failed) TH_LOG("%s", rc->msg);
	ASSERT_EQ(0, rc->v.foreign)
		TH_LOG("information leak at file offset %llu: 0x%016llx (expected like 0x%016llx)",
		       (unsigned long long)rc->v.bad_off,
		       (unsigned long long)rc->v.bad_val,
		       (unsigned long long)rc->v.bad_exp);
	ASSERT_EQ(0, rc->v.invalid)
		TH_LOG("never-valid data at file offset %llu: 0x%016llx (expected like 0x%016llx)",
		       (unsigned long long)rc->v.bad_off,
		       (unsigned long long)rc->v.bad_val,
		       (unsigned long long)rc->v.bad_exp);
	ASSERT_LT(0, rc->reads);
	/* The race only tested the lockless read if it served reads. */
	if (rc->fast_on && rc->cnt_ok[0])
		ASSERT_LT(0, rc->cnt[0])
			TH_LOG("no read was served by the lockless path (%s did not move)",
			       PC_VMSTAT_FAST_READ);
}

#define RACE_TIMEOUT	120

TEST_F_TIMEOUT(race, truncate, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	rc->zeros_ok = true;
	rc->size_varies = true;
	race_add(rc, "truncate", op_truncate, 0);
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
}

TEST_F_TIMEOUT(race, fallocate, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	rc->zeros_ok = true;
	rc->size_varies = true;
	rc->shift_ok = true;
	race_add(rc, "punch_hole", op_punch, 0);
	race_add(rc, "zero_range", op_zero_range, 0);
	race_add(rc, "collapse_insert", op_collapse_insert, 0);
	/* The checker cannot tell a smaller move from foreign data. */
	if (rc->b->blksize < PC_SHIFT_MIN_UNIT)
		race_disable(rc, "collapse_insert", "blocks under 2 KiB");
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
}

/*
 * Holes preallocated, then written, under the readers.  tmpfs's fallocate
 * adds folios that are neither uptodate nor cleared: a read that copied
 * from one would return whatever the memory held before, which the secret
 * fill makes a secret as often as it can.
 */
TEST_F_TIMEOUT(race, falloc_write, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	rc->zeros_ok = true;
	race_add(rc, "falloc_write", op_falloc_write, 0);
	race_add(rc, "secret_fill", op_secret_fill, 1);
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
	if (race_skipped(_metadata))
		return;
	ASSERT_LT(0, race_done(rc, "falloc_write"))
		TH_LOG("no range was preallocated and written again");
}

TEST_F_TIMEOUT(race, overwrite, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	race_add(rc, "overwrite", op_overwrite, 0);
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
}

TEST_F_TIMEOUT(race, reclaim, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	race_add(rc, "fadvise_dontneed", op_fadvise, 0);
	race_add(rc, "drop_caches", op_drop_caches, 0);
	race_add(rc, "madv_pageout", op_pageout, 0);
	race_add(rc, "compact_memory", op_compact, 0);
	race_prepare(_metadata, rc);
	if (!pc_is_root()) {
		race_disable(rc, "drop_caches", "needs root");
		race_disable(rc, "compact_memory", "needs root");
	}
	if (access("/proc/sys/vm/compact_memory", F_OK))
		race_disable(rc, "compact_memory", "no CONFIG_COMPACTION");
	if (!rc->map)
		race_disable(rc, "madv_pageout", "mmap failed");
	race_run(_metadata, rc);
}

/*
 * The lockless read switched off and on (vm.pagecache_fast_read) under
 * load, while the file is overwritten and truncated: a read that sees the
 * switch either way, or finds it changed on its way, reads the same.
 */
TEST_F_TIMEOUT(race, fast_flip, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	if (rc->saved_fast < 0)
		SKIP(return, "no %s (a kernel without the series)",
		     PC_SYSCTL_FAST_READ);
	if (!pc_is_root() || !rc->fast_on)
		SKIP(return, "writing %s needs root", PC_SYSCTL_FAST_READ);
	rc->zeros_ok = true;
	rc->size_varies = true;
	race_add(rc, "overwrite", op_overwrite, 0);
	race_add(rc, "truncate", op_truncate, 0);
	race_add(rc, "flip", op_fast_flip, 1);
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
	if (race_skipped(_metadata))
		return;
	ASSERT_LT(1, race_done(rc, "flip"))
		TH_LOG("the lockless read was not switched off and on again");
}

/*
 * tmpfs and memfd folios written to swap (MADV_PAGEOUT through the only
 * mapping of the file) and read back, under the readers: requires that
 * pages went to swap (pswpout).
 */
TEST_F_TIMEOUT(race, swap_out, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	if (shape_disk(rc))
		SKIP(return, "%s writes its pages back to the file, not to swap",
		     self->b.name);
	if (!race_have_swap())
		SKIP(return, "no active swap area in /proc/swaps");
	race_add(rc, "madv_pageout", op_pageout, 0);
	race_add(rc, "overwrite", op_overwrite, 0);
	race_prepare(_metadata, rc);
	ASSERT_NE(NULL, rc->map);
	race_count(rc, "pswpout");
	race_count(rc, "pswpin");
	race_run(_metadata, rc);
	if (race_skipped(_metadata))
		return;
	ASSERT_LT(0, race_counted(rc, "pswpout"))
		TH_LOG("MADV_PAGEOUT wrote no page to swap (pswpout did not move)");
}

TEST_F_TIMEOUT(race, memcg_reclaim, RACE_TIMEOUT)
{
	char reason[PC_REASON_LEN];
	struct race *rc = &self->rc;

	/* Enter the cgroup first so that the file's page cache is charged. */
	memcg_enter(rc, reason);
	if (reason[0])
		SKIP(return, "%s", reason);
	race_add(rc, "memcg_reclaim", op_memcg_reclaim, 0);
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
}

/* Two nodes to migrate between in rc->node[]: NULL, or why not. */
static const char *race_nodes(struct race *rc)
{
	char buf[256], *p;

	if (pc_nr_mem_nodes() < 2)
		return "needs 2 NUMA nodes with memory";
	/* No pages: only tells whether the system call exists. */
	if (syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0) < 0 &&
	    errno == ENOSYS)
		return "no move_pages(2) (CONFIG_NUMA_MIGRATION)";
	pc_read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf));
	rc->node[0] = strtol(buf, &p, 10);
	rc->node[1] = strtol(p + 1, NULL, 10);
	if (*p == '-')
		rc->node[1] = rc->node[0] + 1;
	return NULL;
}

TEST_F_TIMEOUT(race, migrate, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;
	const char *why = race_nodes(rc);

	if (why)
		SKIP(return, "%s", why);
	race_add(rc, "move_pages", op_migrate, 0);
	race_add(rc, "overwrite", op_overwrite, 0);
	race_prepare(_metadata, rc);
	ASSERT_NE(NULL, rc->map);
	race_run(_metadata, rc);
}

/*
 * Destination faults: half of the reads go to a buffer that is not
 * faulted in (zapped, or a fresh mapping), on which the lockless copy
 * stops short, and the mutator swaps the readers' buffers out or moves
 * them to another node while they copy, as the file is overwritten.  A
 * read returns valid bytes only, as many as it says, and nothing of
 * another file past them.
 */
TEST_F_TIMEOUT(race, dst_fault, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;
	const char *why;

	rc->dst_fault = true;
	race_add(rc, "overwrite", op_overwrite, 0);
	race_add(rc, "dst_pageout", op_dst_pageout, 1);
	race_add(rc, "dst_migrate", op_dst_migrate, 1);
	race_prepare(_metadata, rc);
	if (!race_have_swap())
		race_disable(rc, "dst_pageout", "no active swap area");
	why = race_nodes(rc);
	if (why)
		race_disable(rc, "dst_migrate", why);
	race_count(rc, "pswpout");
	race_count(rc, "pgmigrate_success");
	race_run(_metadata, rc);
	ksft_print_msg("dst: %llu reads to unfaulted buffers, %llu faulted; %llu pages moved\n",
		       (unsigned long long)rc->dst_reads,
		       (unsigned long long)rc->dst_faulted,
		       (unsigned long long)rc->dst_moved);
	if (race_skipped(_metadata))
		return;
	ASSERT_LT(0, rc->dst_faulted)
		TH_LOG("no read faulted in its destination buffer");
}

/*
 * Offline and online the memory blocks under the file.  The allocator keeps
 * the file in one block per node, often one that cannot go offline: it
 * spans zones, holds boot-time allocations or a hole.  The guests boot
 * with movablecore= to have more blocks that can.
 * Off unless $PAGECACHE_OFFLINE=1, since it moves the machine's memory.
 */
TEST_F_TIMEOUT(race, memory_offline, RACE_TIMEOUT)
{
	const char *env = getenv("PAGECACHE_OFFLINE");
	struct race *rc = &self->rc;
	char buf[64], why[320];
	size_t i, n;

	if (!env || strcmp(env, "1"))
		SKIP(return, "offlines memory blocks of this machine: set PAGECACHE_OFFLINE=1 where that is fine (make check's guests do)");
	if (!pc_is_root())
		SKIP(return, "needs root (pagemap PFNs, memory block state)");
	if (pc_read_file(MEMORY_SYSFS "/block_size_bytes", buf, sizeof(buf)))
		SKIP(return, "no " MEMORY_SYSFS " (CONFIG_MEMORY_HOTPLUG)");
	rc->block_size = strtoull(buf, NULL, 16);
	ASSERT_LT(0, rc->block_size);
	race_add(rc, "offline", op_offline, 0);
	race_add(rc, "overwrite", op_overwrite, 0);
	race_prepare(_metadata, rc);
	ASSERT_NE(NULL, rc->map);
	race_run(_metadata, rc);
	for (i = 0, n = 0; i < ARRAY_SIZE(off_why); i++)
		n += snprintf(why + n, sizeof(why) - n, "%s%s %llu", i ? ", " : "",
			      off_why[i],
			      (unsigned long long)rc->offline_why[i]);
	ksft_print_msg("memory blocks offlined: %llu of %llu tries (%llu in ZONE_MOVABLE); not: %s\n",
		       (unsigned long long)rc->offlined,
		       (unsigned long long)rc->offline_tries,
		       (unsigned long long)rc->offline_movable, why);
	if (!rc->offlined)
		SKIP(return, "no block under the file went offline in %llu tries (see the counts above)",
		     (unsigned long long)rc->offline_tries);
}

/*
 * Soft offline pages of the file (MADV_SOFT_OFFLINE through a shared
 * mapping) while readers run and the file is overwritten: the kernel
 * splits a large folio, migrates the page to a new one and takes the old
 * one out of use.  Off unless $PAGECACHE_HWPOISON=1: the old pages stay
 * poisoned until reboot (SOFT_OFFLINE_MAX per race at most).
 */
TEST_F_TIMEOUT(race, large_folio_split, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	if (self->b.type != PC_TMPFS_HUGE && self->b.type != PC_XFS &&
	    self->b.type != PC_EXT4)
		SKIP(return, "%s makes no large folios here", self->b.name);
	rc->zeros_ok = true;
	rc->size_varies = true;
	race_add(rc, "split", op_split, 0);
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
}

/*
 * Folio shape races.  The lockless read takes the folio's size without a
 * reference: a split to a lower order rewrites it while the XArray still
 * maps the old head at every index.  Readers start their 64 KiB and 1 MiB
 * reads in the last pages of a large folio, so that every copy crosses
 * its end, while the mutator changes the folio's shape and builds it
 * again.  Each race checks that the folio was large before the race and
 * counts, and requires, the shape changes it made.
 */
TEST_F_TIMEOUT(race, folio_shape_split, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;
	struct shape *sh = &rc->sh;
	size_t pg = self->b.page_size;
	char cmd[160];
	int i;

	if (!shape_debugfs())
		SKIP(return, "no " SPLIT_DEBUGFS " (CONFIG_DEBUG_FS)");
	race_add(rc, "split_huge_pages", op_shape_split, 0);
	if (!shape_prepare(_metadata, rc, true))
		return;
	/* Does a split folio come back, whole, with the data as it was? */
	snprintf(cmd, sizeof(cmd), "%s,0x0,0x%zx,0", sh->path,
		 sh->fsize / pg);
	shape_warm(rc);
	for (i = 0; i < 3 && shape_order(rc, sh->fsize - pg); i++) {
		if (!pc_write_file(SPLIT_DEBUGFS, cmd))
			continue;
		/* Kernel lockdown, or a container's debugfs */
		if (errno == EPERM || errno == EACCES)
			SKIP(return, "%s refuses writes here: %s",
			     SPLIT_DEBUGFS, strerror(errno));
		ASSERT_EQ(0, errno)
			TH_LOG("write %s to " SPLIT_DEBUGFS ": %s", cmd,
			       strerror(errno));
	}
	ASSERT_EQ(0, shape_order(rc, sh->fsize - pg))
		TH_LOG("%s did not split the folio", cmd);
	ASSERT_EQ(0, shape_rebuild(rc));
	if (shape_order(rc, 0) != sh->order) {
		ksft_print_msg("MADV_COLLAPSE made no folio of order %d: punch and write instead\n",
			       sh->order);
		sh->rebuild = SHAPE_REWRITE;
		rc->zeros_ok = true;
	}
	shape_ref(_metadata, rc);
	race_count(rc, "thp_split_page");
	race_count(rc, "thp_split_page_failed");
	race_count(rc, RACE_CNT_MTHP_SPLIT);
	race_run(_metadata, rc);
	ASSERT_LT(0, sh->n[SH_SPLIT_0] + sh->n[SH_SPLIT_MID] +
		  sh->n[SH_SPLIT_BUDDY])
		TH_LOG("no write to " SPLIT_DEBUGFS " split the folio");
	ASSERT_LT(0, race_counted(rc, "thp_split_page") +
		  race_counted(rc, RACE_CNT_MTHP_SPLIT))
		TH_LOG("neither thp_split_page nor " RACE_CNT_MTHP_SPLIT " moved");
}

TEST_F_TIMEOUT(race, folio_shape_punch, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	rc->zeros_ok = true;
	race_add(rc, "punch_hole", op_shape_punch, 0);
	if (!shape_prepare(_metadata, rc, false))
		return;
	race_count(rc, RACE_CNT_MTHP_SPLIT);
	race_run(_metadata, rc);
	ASSERT_LT(0, rc->sh.n[SH_CUT_SPLIT] + rc->sh.n[SH_CUT_KEPT])
		TH_LOG("no hole punched into the large folio");
}

TEST_F_TIMEOUT(race, folio_shape_truncate, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	rc->zeros_ok = true;
	rc->size_varies = true;
	race_add(rc, "truncate", op_shape_truncate, 0);
	if (!shape_prepare(_metadata, rc, false))
		return;
	race_count(rc, RACE_CNT_MTHP_SPLIT);
	race_run(_metadata, rc);
	ASSERT_LT(0, rc->sh.n[SH_CUT_SPLIT] + rc->sh.n[SH_CUT_KEPT])
		TH_LOG("no truncate into the large folio");
}

TEST_F_TIMEOUT(race, folio_shape_migrate, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;
	const char *why = race_nodes(rc);

	if (why)
		SKIP(return, "%s", why);
	race_add(rc, "move_pages", op_shape_migrate, 0);
	if (!shape_prepare(_metadata, rc, true))
		return;
	shape_ref(_metadata, rc);
	race_count(rc, "pgmigrate_success");
	race_count(rc, "thp_migration_success");
	race_count(rc, "thp_migration_split");
	race_count(rc, "thp_migration_fail");
	race_run(_metadata, rc);
	ASSERT_LT(0, rc->sh.n[SH_MOVED])
		TH_LOG("move_pages never moved the large folio");
}

/*
 * The shape races on an order 4 folio of shmem, which the lockless read
 * meets at more places in a file than PMD-sized ones: it is split through
 * debugfs (where debugfs takes writes), a hole is punched into it or the
 * file is truncated into it, and it is built again by punching and
 * writing its range.  Requires splits (where tried), punches and
 * truncates of the folio.
 */
TEST_F_TIMEOUT(race, folio_shape_mthp, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;
	struct shape *sh = &rc->sh;
	size_t pg = self->b.page_size;
	bool split = false;
	char cmd[160];
	int i;

	if (self->b.type != PC_TMPFS_HUGE && self->b.type != PC_MEMFD)
		SKIP(return, "%s: shmem builds this folio (tmpfs huge=always, memfd)",
		     self->b.name);
	rc->zeros_ok = true;
	rc->size_varies = true;
	race_add(rc, "split_huge_pages", op_shape_split, 0);
	race_add(rc, "punch_hole", op_shape_punch, 0);
	race_add(rc, "truncate", op_shape_truncate, 0);
	if (!shape_prepare_mthp(_metadata, rc))
		return;
	/* Does debugfs split the folio, and does it come back? */
	snprintf(cmd, sizeof(cmd), "%s,0x%llx,0x%llx,0", sh->path,
		 (unsigned long long)(sh->fpos / pg),
		 (unsigned long long)((sh->fpos + sh->fsize) / pg));
	if (!shape_debugfs()) {
		race_disable(rc, "split_huge_pages",
			     "no " SPLIT_DEBUGFS " (CONFIG_DEBUG_FS)");
	} else {
		for (i = 0; i < 3 && shape_order(rc, sh->fpos); i++) {
			if (!pc_write_file(SPLIT_DEBUGFS, cmd))
				continue;
			ASSERT_TRUE(errno == EPERM || errno == EACCES)
				TH_LOG("write %s to " SPLIT_DEBUGFS ": %s", cmd,
				       strerror(errno));
			/* Kernel lockdown, or a container's debugfs */
			race_disable(rc, "split_huge_pages",
				     "debugfs refuses writes");
			break;
		}
		split = !shape_order(rc, sh->fpos);
		if (i == 3)
			ASSERT_TRUE(split) TH_LOG("%s did not split the folio",
						  cmd);
		if (split)
			ASSERT_EQ(1, shape_ready(rc))
				TH_LOG("the order %d folio was not built again",
				       MTHP_ORDER);
	}
	race_count(rc, RACE_CNT_MTHP_SPLIT);
	race_run(_metadata, rc);
	if (race_skipped(_metadata))
		return;
	ASSERT_LT(0, sh->n[SH_PUNCHED])
		TH_LOG("no hole punched into the folio");
	ASSERT_LT(0, sh->n[SH_TRUNCATED])
		TH_LOG("no truncate into the folio");
	if (split)
		ASSERT_LT(0, sh->n[SH_SPLIT_0] + sh->n[SH_SPLIT_MID] +
			  sh->n[SH_SPLIT_BUDDY])
			TH_LOG("no write to " SPLIT_DEBUGFS " split the folio");
}

/*
 * Free the file's folios (truncate to zero, or replace-and-delete the file)
 * while another thread fills freshly allocated folios of another file with
 * a secret: a reader must never see the secret.
 */
TEST_F_TIMEOUT(race, reuse_leak, RACE_TIMEOUT)
{
	struct race *rc = &self->rc;

	rc->zeros_ok = true;
	rc->size_varies = true;
	rc->replace = true;
	race_add(rc, "truncate_to_zero", op_victim_truncate, 0);
	race_add(rc, "replace", op_victim_replace, 0);
	race_add(rc, "secret_fill", op_secret_fill, 1);
	race_prepare(_metadata, rc);
	race_run(_metadata, rc);
}

/*
 * F_SEAL_WRITE while readers copy from the memfd into buffers whose every
 * page faults, each fault held for SEAL_FAULT_MS by a userfaultfd handler.
 * memfd_wait_for_pins() fails with EBUSY when a folio keeps a reference
 * beyond its own for about 150 ms.  7.3 holds one folio per reader across
 * such a fault, for one fault, and the seal succeeds; a reader that kept
 * its whole folio batch (up to 31 folios) across its faults would keep
 * the first of them for 31 faults, and the seal would fail.
 */
#define SEAL_FILE_SIZE	(4UL << 20)
#define SEAL_READ_SIZE	(128UL << 10)
#define SEAL_FAULT_MS	20
#define SEAL_TRIES	6
#define SEAL_READERS	2

struct seal_reader {
	pthread_t reader, handler;
	int memfd, uffd;
	char *buf, *zeros;
	size_t page_size;
	off_t off;
	bool stop, done;
	unsigned long faults, reads;
	int error;
	const char *what;
};

static void seal_fail(struct seal_reader *r, const char *what, int error)
{
	if (!__atomic_load_n(&r->error, __ATOMIC_ACQUIRE)) {
		r->what = what;
		__atomic_store_n(&r->error, error ? error : EIO, __ATOMIC_RELEASE);
	}
}

static void *seal_reader_fn(void *arg)
{
	struct seal_reader *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&r->error, __ATOMIC_ACQUIRE)) {
		ssize_t n;

		/* Every page of the buffer faults again */
		if (madvise(r->buf, SEAL_READ_SIZE, MADV_DONTNEED)) {
			seal_fail(r, "madvise(MADV_DONTNEED)", errno);
			break;
		}
		n = pread(r->memfd, r->buf, SEAL_READ_SIZE, r->off);
		if (n != (ssize_t)SEAL_READ_SIZE) {
			seal_fail(r, "pread", n < 0 ? errno : EIO);
			break;
		}
		__atomic_add_fetch(&r->reads, 1, __ATOMIC_RELAXED);
		r->off = (r->off + SEAL_READ_SIZE) % SEAL_FILE_SIZE;
	}
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Resolves each fault of the reader's buffer SEAL_FAULT_MS late */
static void *seal_handler_fn(void *arg)
{
	struct seal_reader *r = arg;
	struct pollfd pfd = { .fd = r->uffd, .events = POLLIN };

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		struct uffdio_copy copy = { 0 };
		struct uffd_msg msg;
		ssize_t n;

		if (poll(&pfd, 1, 10) <= 0)
			continue;
		n = read(r->uffd, &msg, sizeof(msg));
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n != sizeof(msg)) {
			seal_fail(r, "read(userfaultfd)", n < 0 ? errno : EIO);
			break;
		}
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		usleep(SEAL_FAULT_MS * 1000);
		copy.dst = msg.arg.pagefault.address & ~(__u64)(r->page_size - 1);
		copy.src = (unsigned long)r->zeros;
		copy.len = r->page_size;
		if (ioctl(r->uffd, UFFDIO_COPY, &copy) && errno != EEXIST) {
			seal_fail(r, "UFFDIO_COPY", errno);
			break;
		}
		__atomic_add_fetch(&r->faults, 1, __ATOMIC_RELAXED);
	}
	/* A reader still waiting in a fault goes on once this is closed */
	close(r->uffd);
	return NULL;
}

static int seal_reader_start(struct seal_reader *r, int memfd, int i,
			     char *reason)
{
	struct uffdio_register reg = { 0 };
	struct uffdio_api api = { .api = UFFD_API };

	memset(r, 0, sizeof(*r));
	r->memfd = memfd;
	r->page_size = sysconf(_SC_PAGESIZE);
	r->off = i * (SEAL_FILE_SIZE / SEAL_READERS);
	r->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (r->uffd < 0) {
		if (errno == ENOSYS)
			snprintf(reason, PC_REASON_LEN,
				 "no userfaultfd (CONFIG_USERFAULTFD)");
		else
			snprintf(reason, PC_REASON_LEN,
				 "userfaultfd: %s (faults in the kernel need CAP_SYS_PTRACE or vm.unprivileged_userfaultfd=1)",
				 strerror(errno));
		return -1;
	}
	r->buf = mmap(NULL, SEAL_READ_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r->zeros = mmap(NULL, r->page_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (unsigned long)r->buf;
	reg.range.len = SEAL_READ_SIZE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (r->buf == MAP_FAILED || r->zeros == MAP_FAILED ||
	    ioctl(r->uffd, UFFDIO_API, &api) ||
	    ioctl(r->uffd, UFFDIO_REGISTER, &reg)) {
		snprintf(reason, PC_REASON_LEN, "userfaultfd setup: %s",
			 strerror(errno));
		close(r->uffd);
		return -1;
	}
	memset(r->zeros, 0, r->page_size);
	if (pthread_create(&r->handler, NULL, seal_handler_fn, r)) {
		close(r->uffd);
		snprintf(reason, PC_REASON_LEN, "pthread_create failed");
		return -1;
	}
	if (pthread_create(&r->reader, NULL, seal_reader_fn, r)) {
		__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
		pthread_join(r->handler, NULL);
		snprintf(reason, PC_REASON_LEN, "pthread_create failed");
		return -1;
	}
	return 0;
}

static void seal_reader_stop(struct seal_reader *r)
{
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	pthread_join(r->reader, NULL);
	pthread_join(r->handler, NULL);
	munmap(r->buf, SEAL_READ_SIZE);
	munmap(r->zeros, r->page_size);
}

TEST(memfd_seal_write)
{
	struct seal_reader readers[SEAL_READERS];
	char reason[PC_REASON_LEN] = "";
	unsigned long faults = 0;
	int try, busy = 0;

	for (try = 0; try < SEAL_TRIES; try++) {
		int memfd, i, started = 0, ret, err = 0;
		double deadline;

		memfd = memfd_create("seal_write", MFD_CLOEXEC |
						   MFD_ALLOW_SEALING);
		ASSERT_LE(0, memfd);
		ASSERT_EQ(0, pc_write_pattern(memfd, 0, SEAL_FILE_SIZE,
					      PC_MAGIC_DATA, 1, 1));
		for (i = 0; i < SEAL_READERS; i++) {
			if (seal_reader_start(&readers[i], memfd, i, reason))
				break;
			started++;
		}
		/* Seal once every reader is between faults, mid-read */
		deadline = pc_now() + 10;
		for (i = 0; i < started && pc_now() < deadline; ) {
			if (__atomic_load_n(&readers[i].faults,
					    __ATOMIC_RELAXED) >= 3 ||
			    __atomic_load_n(&readers[i].error,
					    __ATOMIC_ACQUIRE))
				i++;
			else
				usleep(1000);
		}
		ret = started == SEAL_READERS ?
		      fcntl(memfd, F_ADD_SEALS, F_SEAL_WRITE) : 0;
		if (ret)
			err = errno;
		for (i = 0; i < started; i++) {
			seal_reader_stop(&readers[i]);
			faults += readers[i].faults;
			if (readers[i].error)
				TH_LOG("reader %d: %s: %s", i, readers[i].what,
				       strerror(readers[i].error));
			EXPECT_EQ(0, readers[i].error);
		}
		close(memfd);
		if (started < SEAL_READERS)
			SKIP(return, "%s", reason);
		ASSERT_TRUE(!ret || err == EBUSY)
			TH_LOG("F_ADD_SEALS: %s", strerror(err));
		if (ret)
			busy++;
	}
	ksft_print_msg("F_SEAL_WRITE: EBUSY in %d of %d tries, %lu faults of %d ms\n",
		       busy, SEAL_TRIES, faults, SEAL_FAULT_MS);
	ASSERT_LT(0, faults);
	EXPECT_EQ(0, busy)
		TH_LOG("F_SEAL_WRITE failed with EBUSY in %d of %d tries while readers faulted",
		       busy, SEAL_TRIES);
}

/*
 * Races that poison pages for good (until reboot: the test guests have no
 * unpoison) have their own fixture, which the harness runs after every
 * variant of race: a memory block with a poisoned page goes offline but
 * not online again, so race.*.memory_offline leaves such blocks alone and
 * would have little left to try.
 */
FIXTURE(race_poison) {
	struct pc_backing b;
	struct race rc;
};

FIXTURE_VARIANT(race_poison) {
	enum pc_backing_type backing;
};

FIXTURE_VARIANT_ADD(race_poison, ext4)
{
	.backing = PC_EXT4,
};

FIXTURE_VARIANT_ADD(race_poison, xfs)
{
	.backing = PC_XFS,
};

FIXTURE_VARIANT_ADD(race_poison, tmpfs)
{
	.backing = PC_TMPFS,
};

FIXTURE_VARIANT_ADD(race_poison, tmpfs_huge)
{
	.backing = PC_TMPFS_HUGE,
};

FIXTURE_VARIANT_ADD(race_poison, memfd)
{
	.backing = PC_MEMFD,
};

FIXTURE_SETUP(race_poison)
{
	race_common_setup(_metadata, &self->b, &self->rc, variant->backing);
}

FIXTURE_TEARDOWN(race_poison)
{
	race_common_teardown(&self->b, &self->rc);
}

TEST_F_TIMEOUT(race_poison, soft_offline, RACE_TIMEOUT)
{
	const char *env = getenv(PC_ENV_HWPOISON);
	struct race *rc = &self->rc;
	void *probe;

	if (!env || strcmp(env, "1"))
		SKIP(return, "soft offline poisons pages until reboot: set %s=1 where fine",
		     PC_ENV_HWPOISON);
	if (!pc_is_root())
		SKIP(return, "MADV_SOFT_OFFLINE needs CAP_SYS_ADMIN");
	/* Zero length: EINVAL without CONFIG_MEMORY_FAILURE, else nothing */
	probe = mmap(NULL, self->b.page_size, PROT_READ,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, probe);
	if (madvise(probe, 0, MADV_SOFT_OFFLINE)) {
		munmap(probe, self->b.page_size);
		SKIP(return, "MADV_SOFT_OFFLINE: %s (no CONFIG_MEMORY_FAILURE?)",
		     strerror(errno));
	}
	munmap(probe, self->b.page_size);
	race_add(rc, "soft_offline", op_soft_offline, 0);
	race_add(rc, "overwrite", op_overwrite, 0);
	race_prepare(_metadata, rc);
	ASSERT_NE(NULL, rc->map);
	race_run(_metadata, rc);
	ksft_print_msg("soft offline: %llu pages offlined, %llu not (EBUSY or EIO)\n",
		       (unsigned long long)rc->soft_offlined,
		       (unsigned long long)rc->soft_busy);
	if (race_skipped(_metadata))
		return;
	ASSERT_LT(0, rc->soft_offlined)
		TH_LOG("no page of the file was soft offlined");
}

TEST_HARNESS_MAIN

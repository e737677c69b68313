/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the page-cache read selftests: backings, generation
 * stamped patterns, the knobs and counters of the lockless read fast path.
 */
#ifndef __PAGECACHE_UTIL_H
#define __PAGECACHE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Names introduced by the pagecache-rcu series.  Keep them here, and only
 * here, so that a rename in the series is a one-line change in the tests.
 */
#define PC_SYSCTL_FAST_READ		"/proc/sys/vm/pagecache_fast_read"
#define PC_VMSTAT_FAST_READ		"pgcache_fast_read"
#define PC_VMSTAT_FAST_READ_NOT_HOT	"pgcache_fast_read_not_hot"
#define PC_VMSTAT_FAST_READ_CHANGED	"pgcache_fast_read_changed"
#define PC_VMSTAT_RCU_DEFERRED		"pgcache_rcu_deferred"
#define PC_VMSTAT_RCU_FREED		"pgcache_rcu_freed"
#define PC_VMSTAT_RCU_DRAINS		"pgcache_rcu_drains"

/* Environment variables understood by the suite. */
#define PC_ENV_EXT4_DIR		"PAGECACHE_EXT4_DIR"
#define PC_ENV_XFS_DIR		"PAGECACHE_XFS_DIR"
#define PC_ENV_SEED		"PAGECACHE_SEED"
#define PC_ENV_RACE_SECONDS	"PAGECACHE_RACE_SECONDS"

#define PC_DEFAULT_EXT4_DIR	"/mnt/ext4"
#define PC_DEFAULT_XFS_DIR	"/mnt/xfs"
#define PC_DEFAULT_RACE_SECONDS	2.0

#define PC_REASON_LEN		256

enum pc_backing_type {
	PC_EXT4,
	PC_XFS,
	PC_TMPFS,
	PC_TMPFS_HUGE,
	PC_MEMFD,
};

struct pc_backing {
	enum pc_backing_type type;
	const char *name;
	char dir[256];		/* directory holding our files, "" for memfd */
	char mnt[256];		/* tmpfs we mounted ourselves, or "" */
	size_t page_size;
	size_t folio_size;	/* largest folio the backing may use */
	size_t blksize;		/* fs block size (fallocate granule) */
	unsigned int nr_files;
};

/*
 * Prepare a backing.  Returns 0 when usable, KSFT_SKIP with @reason filled
 * in when it is not available here, -1 (and @reason) on a real error.
 * On a non-zero return nothing needs to be torn down.
 */
int pc_backing_setup(struct pc_backing *b, enum pc_backing_type type,
		     char *reason);
void pc_backing_teardown(struct pc_backing *b);

/*
 * Create and open (O_RDWR | @flags) a new empty file on the backing.  When
 * @path is not NULL it receives the path ("" for memfd).
 */
int pc_backing_create(struct pc_backing *b, const char *tag, int flags,
		      char *path, size_t pathlen);
/* Whether the backing has a path namespace (everything but memfd). */
static inline bool pc_backing_has_path(const struct pc_backing *b)
{
	return b->type != PC_MEMFD;
}

/* Random numbers: xorshift64*, one state per thread. */
struct pc_rng {
	uint64_t s;
};

uint64_t pc_seed(void);
void pc_print_seed(void);
static inline void pc_rng_init(struct pc_rng *r, uint64_t seed)
{
	r->s = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
	if (!r->s)
		r->s = 1;
}

static inline uint64_t pc_rand(struct pc_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t pc_rand_below(struct pc_rng *r, uint64_t n)
{
	return n ? pc_rand(r) % n : 0;
}

/* An offset in [0, limit] biased towards page and folio boundaries. */
uint64_t pc_rand_offset(struct pc_rng *r, uint64_t limit, size_t folio_size);
/*
 * A length in [1, max]: mostly small, sometimes around page and folio
 * boundaries, 64 KiB or 1 MiB.
 */
size_t pc_rand_len(struct pc_rng *r, size_t max, size_t folio_size);

/*
 * Generation stamped patterns.  Every aligned 8-byte word of a test file
 * holds (little endian):
 *
 *   byte 0-3  file offset of the word >> 3
 *   byte 4    generation (1..255, 0 never written)
 *   byte 5-6  file id
 *   byte 7    magic: PC_MAGIC_DATA for test files, PC_MAGIC_SECRET for
 *             the "other file" whose data must never leak into a read
 *
 * Every byte carries meaning, so a word torn between two writers (or
 * between a writer and truncate zeroing) can still be checked byte by byte.
 */
#define PC_MAGIC_DATA		0xa5
#define PC_MAGIC_SECRET		0x5e
#define PC_GEN_BYTE		4

static inline uint64_t pc_word(uint8_t magic, uint16_t fid, uint8_t gen,
			       uint64_t off)
{
	return (uint64_t)magic << 56 | (uint64_t)fid << 40 |
	       (uint64_t)gen << 32 | (uint32_t)(off >> 3);
}

/* Fill @buf with the pattern of file bytes [off, off + len). */
void pc_fill(void *buf, uint64_t off, size_t len, uint8_t magic,
	     uint16_t fid, uint8_t gen);

/* How a byte range compared with the pattern rules. */
struct pc_verdict {
	uint64_t words_ok;
	uint64_t words_stale;	/* older generation of this file/offset */
	uint64_t words_zero;	/* zeros where truncate/punch allow them */
	uint64_t words_shifted;	/* moved by collapse/insert range */
	uint64_t foreign;	/* bytes of another file: information leak */
	uint64_t invalid;	/* never valid for this file at this offset */
	uint64_t bad_off;	/* first failure */
	uint64_t bad_val;
	uint64_t bad_exp;
	bool have_bad;
};

struct pc_rules {
	uint16_t fid;
	uint8_t max_gen;	/* newest generation written (gens wrap) */
	bool gen_wrapped;
	bool zeros_ok;		/* truncate/punch/zero-range may leave zeros */
	bool shift_ok;		/* collapse/insert may move data by blocks */
	size_t shift_unit;
};

/*
 * The smallest block a collapse/insert may move data by and still be told
 * apart from foreign data: a word holds its file offset >> 3 in bytes 0-3,
 * and only bytes 1-3 may differ in a moved word.
 */
#define PC_SHIFT_MIN_UNIT	2048

/* Check bytes [off, off + len) of a file held in @buf; accumulate in @v. */
void pc_check(const void *buf, uint64_t off, size_t len,
	      const struct pc_rules *rules, struct pc_verdict *v);

/* Fast-read sysctl: -1 when absent. */
int pc_fast_read_get(void);
int pc_fast_read_set(int val);

/*
 * The value of @name in a file of "name value" lines (/proc/vmstat,
 * memory.events); returns -1 if the file or the name does not exist.
 */
int pc_read_key(const char *path, const char *name, uint64_t *val);
/* Read a /proc/vmstat counter; returns -1 if it does not exist. */
int pc_vmstat(const char *name, uint64_t *val);

#define PC_CGROUP_ROOT	"/sys/fs/cgroup"
#define PC_PATH_LEN	512
/*
 * Create the memory cgroup PC_CGROUP_ROOT/<tag>.<pid> into @cg (len
 * bytes, at most PC_PATH_LEN - 32 used); 0, or -1 with @reason (a skip: no
 * root, no cgroup v2 or no memory controller).  Remove it with rmdir(cg)
 * once no task is left in it.
 */
int pc_memcg_create(char *cg, size_t len, const char *tag, char *reason);
/* Write @val to the file @file of cgroup @cg; 0 on success. */
int pc_cgroup_write(const char *cg, const char *file, const char *val);
/* Move task @pid (0: the caller) into cgroup @cg; 0 on success. */
int pc_cgroup_move(const char *cg, pid_t pid);

/* Small file helpers, 0 on success. */
int pc_write_file(const char *path, const char *str);
int pc_read_file(const char *path, char *buf, size_t len);
int pc_pwrite_all(int fd, const void *buf, size_t len, off_t off);
int pc_write_pattern(int fd, uint64_t off, size_t len, uint8_t magic,
		     uint16_t fid, uint8_t gen);

double pc_now(void);
double pc_race_seconds(void);
bool pc_is_root(void);
int pc_nr_mem_nodes(void);
/* hpage_pmd_size, 0 without transparent huge pages. */
size_t pc_pmd_size(void);
int pc_drop_caches(void);

/*
 * Tests that poison pages (hwpoison, soft offline) run only where this
 * environment variable is 1: the pages stay out of use until reboot.
 */
#define PC_ENV_HWPOISON	"PAGECACHE_HWPOISON"
/*
 * The pfn behind @addr (mapped and present), from /proc/self/pagemap, and
 * a pfn's /proc/kpageflags word; 0, or -1 (no root: pagemap hides pfns).
 */
int pc_pfn(const void *addr, uint64_t *pfn);
int pc_kpageflags(uint64_t pfn, uint64_t *flags);
/*
 * Does this architecture implement flush_dcache_folio()
 * (ARCH_IMPLEMENTS_FLUSH_DCACHE_PAGE)?  There, reads of a file with a
 * shared writable mapping take the slow path, which flushes user aliases:
 * tests that need lockless reads map their files read-only.
 */
bool pc_arch_flushes_dcache(void);
/* PG_rcu_free in /proc/kpageflags (include/linux/kernel-page-flags.h) */
#define PC_KPF_RCU_FREE	43

#endif /* __PAGECACHE_UTIL_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace model of the lockless page cache read, mm/filemap_fast.h.
 *
 * Readers call the real filemap_fast_copy() (built in fast.c) under
 * rcu_read_lock() on model files, while adversary threads truncate,
 * punch holes, overwrite, migrate, split (uniformly or buddy-style, in
 * the kernel's order of writes), mark folios hot and free and reuse
 * folios for a file full of a secret pattern.  Model folios come
 * from a fixed pool that is never returned to libc, like struct page;
 * freeing a folio poisons its data and bumps its generation, and a folio
 * with PG_rcu_free is freed only after an RCU grace period (call_rcu()),
 * except with -DMODEL_NO_DEFER.
 *
 * Every copy that filemap_fast_copy() reports as FILEMAP_FAST_COPIED is
 * checked word by word: file data words encode the file, page index,
 * word offset and a generation, so foreign, secret and poison words are
 * told apart from valid (possibly stale) data.  kmap_local_page() and
 * kunmap_local() check that the page stays allocated while it is mapped.
 *
 * Before the run, lru_rule_check() puts one folio through every LRU state
 * with MGLRU off and on, and checks that the lockless read takes it
 * exactly when the slow path would not mark it accessed (the caller did)
 * or folio_mark_accessed(), copied from Linux 7.3, would leave it as it
 * is - and never when it is PG_readahead or PG_dropbehind; then
 * step_rule_check() reads across folios of orders 0 and LARGE_ORDER in
 * a quiet file, which must copy in one call; then split_rule_check()
 * splits large folios step by step, as __split_folio_to_order() writes
 * their tail pages (page 1's words are the folio's order and page count),
 * and reads across the end of the folio at each step, which must not
 * leave it.
 */
#include <assert.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared.h"
#include "model.h"

#include <linux/radix-tree.h>

/* Pool of model pages: descriptors and data are never given back. */
#define NR_POOL_PAGES		4096
#define LARGE_ORDER		2		/* the usual large folio */
#define LARGE_NR		BIT(LARGE_ORDER)
#define MODEL_MAX_ORDER		4		/* the largest folio */
#define MODEL_MAX_NR		BIT(MODEL_MAX_ORDER)

#define NR_FILES		4		/* files that readers read */
#define SECRET_FILE		NR_FILES	/* gets reused folios */
#define NR_ALL_FILES		(NR_FILES + 1)
#define FILE_MAX_PAGES		32

/* Data words: magic:8 file:8 index:16 word-offset:9 tag:23 */
#define MAGIC_DATA		0xd5UL	/* tag: write generation */
#define MAGIC_HOLE		0x40UL	/* zeroes; tag: size epoch */
#define MAGIC_SECRET		0x5eUL	/* another file's private data */
#define POISON_BYTE		0x6b
#define POISON_WORD		0x6b6b6b6b6b6b6b6bUL
#define TAG_BITS		23
#define TAG_MASK		((1UL << TAG_BITS) - 1)
#define WORDS_PER_PAGE		(PAGE_SIZE / sizeof(u64))

/* Size history of a file, for the beyond-EOF check. */
#define SIZE_HIST_ORDER		16
#define SIZE_HIST		BIT(SIZE_HIST_ORDER)
#define SIZE_HIST_MASK		(SIZE_HIST - 1)

#define READ_BUF_SIZE		(LARGE_NR * PAGE_SIZE)
/*
 * Pages after the pool that are never allocated (free, poisoned): a read
 * that runs past the last folio of the pool, as one that trusts a page
 * count that a split rewrote would, lands there and not outside the
 * arrays.
 */
#define NR_GUARD_PAGES		(READ_BUF_SIZE / PAGE_SIZE + 1)
#define NR_ALL_PAGES		(NR_POOL_PAGES + NR_GUARD_PAGES)
/* What a read buffer holds where nothing was copied to it. */
#define UNWRITTEN_WORD		0x0123456789abcdefUL

struct model_file {
	struct inode inode;
	struct address_space mapping;
	pthread_mutex_t lock;		/* i_rwsem, invalidate_lock, folio locks */
	unsigned int id;
	unsigned long wgen;		/* last write generation */
	unsigned long epoch;		/* last published size epoch */
	loff_t size_hist[SIZE_HIST];	/* size set by each epoch */
};

static struct model_file files[NR_ALL_FILES];

static struct page pool[NR_ALL_PAGES] __aligned(64);
static u8 *pool_data;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cds_list_head free_lists[MODEL_MAX_ORDER + 1];
#define FREE_TAIL		0xffU	/* free_order of a free block's tail */

/*
 * The memory cgroup the files are charged to.  A folio's memcg_data
 * points to it, as a file folio's points to its struct mem_cgroup: the
 * value that __split_folio_to_order() copies into page 1 over the old
 * head's _nr_pages.
 */
static struct model_memcg {
	unsigned long id;
} model_memcg __aligned(64);

/* Options. */
static unsigned long opt_seed;
static double opt_duration = 10;
static unsigned int opt_readers = 4;
static unsigned int opt_adversaries = 2;
static bool opt_widen = true;
static bool opt_stop_on_error;
static bool opt_bench;
static bool opt_verbose;

int model_lru_gen;		/* lru_gen_enabled(), see shim mm_inline.h */
static int stop;
static unsigned long model_clock;	/* orders hwpoison against reads */

/* Results. */
enum model_counter {
	CNT_FOREIGN,		/* another file, wrong place, garbage */
	CNT_SECRET,		/* the secret file's data */
	CNT_POISON,		/* a freed folio's poison */
	CNT_UAF_MAP,		/* kmap of a page that was free */
	CNT_UAF_COPY,		/* page freed while it was mapped */
	CNT_BEYOND_EOF,		/* zeroes beyond the EOF of their truncate */
	CNT_HWPOISON,		/* read of a page poisoned before the read */
	CNT_BAD_LEN,		/* copy longer than the request */
	CNT_STALE,		/* older write generation (allowed) */
	CNT_UNCHECKED,		/* size epoch too old to check (allowed) */
	CNT_WORDS,		/* words checked */
	CNT_ALLOC_FAIL,		/* pool exhausted (allowed) */
	CNT_REFCOUNT,		/* refcount underflow */
	CNT_WILD_NR,		/* a reader read a split's page count (allowed) */
	NR_COUNTERS,
};

static const char * const counter_names[NR_COUNTERS] = {
	"foreign", "secret", "poison", "uaf_map", "uaf_copy", "beyond_eof",
	"hwpoison", "bad_len", "stale", "unchecked", "words", "alloc_fail",
	"refcount", "wild_nr",
};

static unsigned long counters[NR_COUNTERS];

#define NR_STATUS	(FILEMAP_FAST_FAULT + 1)
static const char * const status_names[NR_STATUS] = {
	[FILEMAP_FAST_COPIED] = "COPIED",
	[FILEMAP_FAST_EOF] = "EOF",
	[FILEMAP_FAST_NOT_FOUND] = "NOT_FOUND",
	[FILEMAP_FAST_NOT_HOT] = "NOT_HOT",
	[FILEMAP_FAST_NOT_UPTODATE] = "NOT_UPTODATE",
	[FILEMAP_FAST_CHANGED] = "CHANGED",
	[FILEMAP_FAST_FAULT] = "FAULT",
};

static unsigned long status_count[NR_STATUS];
static unsigned long copied_lru_gen[2];	/* COPIED by LRU mode at the start */
static unsigned long copied_spans;	/* valid copies across two folios */

enum adv_op {
	OP_TRUNCATE, OP_PUNCH, OP_OVERWRITE, OP_MIGRATE, OP_SPLIT,
	OP_REUSE, OP_FILL, OP_HOT, OP_HWPOISON, OP_LRU_GEN, NR_OPS,
};

static const char * const op_names[NR_OPS] = {
	"truncate", "punch", "overwrite", "migrate", "split", "reuse",
	"fill", "hot", "hwpoison", "lru_gen",
};

static unsigned long op_count[NR_OPS];

static void count(enum model_counter c, unsigned long n)
{
	if (!n)
		return;
	uatomic_add(&counters[c], n);
	if (c <= CNT_BAD_LEN && opt_stop_on_error)
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* Per-thread state. */
struct model_thread {
	u64 rng;
	/* kmap_local_page() bookkeeping of the reader. */
	struct page *map_page;
	unsigned long map_gen;
	unsigned long read_clock;
	bool reading;
	/* split_rule_check(): the pages a read may map, and how often not. */
	struct page *fence_lo, *fence_hi;
	unsigned long fence_bad;
};

static __thread struct model_thread *self;

static u64 rnd(void)
{
	/* xorshift64* */
	u64 x = self->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	self->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static unsigned long rnd_below(unsigned long n)
{
	return n ? rnd() % n : 0;
}

static void thread_init(struct model_thread *t, unsigned long salt)
{
	memset(t, 0, sizeof(*t));
	t->rng = (opt_seed + 1) * 0x9e3779b97f4a7c15ULL + salt * 0xbf58476d1ce4e5b9ULL;
	if (!t->rng)
		t->rng = 1;
	self = t;
}

#ifndef MODEL_BENCH_BUILD
/* A short random delay, so that the windows between the steps widen. */
void model_window(enum model_window_site site)
{
	unsigned long r, i;

	if (!opt_widen || !self)
		return;
	r = rnd();
	switch (r & 15) {
	case 0:
		sched_yield();
		break;
	case 1:
	case 2:
	case 3:
		for (i = (r >> 8) & 1023; i; i--)
			caa_cpu_relax();
		break;
	default:
		break;
	}
}

/*
 * folio_nr_pages() in a read returned more pages than any model folio
 * has: __split_folio_to_order() had copied the head's memcg_data into
 * page 1, or its flags (the order byte).
 */
void model_large_nr(unsigned long nr)
{
	if (self && self->reading && nr > MODEL_MAX_NR)
		count(CNT_WILD_NR, 1);
}
#endif

static u8 *page_data(struct page *page)
{
	return pool_data + (size_t)(page - pool) * PAGE_SIZE;
}

static unsigned long page_gen(struct page *page)
{
	return __atomic_load_n(&page->gen, __ATOMIC_ACQUIRE);
}

static int page_state(struct page *page)
{
	return __atomic_load_n(&page->state, __ATOMIC_ACQUIRE);
}

void *model_kmap(struct page *page)
{
	struct model_thread *t = self;

	assert(page >= pool && page < pool + NR_ALL_PAGES);
	t->map_page = page;
	t->map_gen = page_gen(page);
	if (t->fence_lo && (page < t->fence_lo || page >= t->fence_hi))
		t->fence_bad++;
	if (page_state(page) != MODEL_PAGE_ALLOCATED)
		count(CNT_UAF_MAP, 1);
	/* A page that was hwpoisoned before this read began must be skipped. */
	if (t->reading && PageHWPoison(page) &&
	    __atomic_load_n(&page->hwpoison_seq, __ATOMIC_ACQUIRE) <= t->read_clock)
		count(CNT_HWPOISON, 1);
	model_window(MW_KMAP);
	return page_data(page);
}

void model_kunmap(const void *addr)
{
	struct model_thread *t = self;
	struct page *page = t->map_page;

	assert(addr == page_data(page));
	model_window(MW_KUNMAP);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (page_gen(page) != t->map_gen ||
	    page_state(page) != MODEL_PAGE_ALLOCATED)
		count(CNT_UAF_COPY, 1);
	t->map_page = NULL;
}

/*
 * Model page allocator: a LIFO free list per order up to MODEL_MAX_ORDER,
 * buddy-style: a block is split on demand, and free blocks are merged
 * into a larger one only when no block is large enough.
 */

static void pool_init(void)
{
	unsigned long i;

	pool_data = aligned_alloc(PAGE_SIZE, (size_t)NR_ALL_PAGES * PAGE_SIZE);
	if (!pool_data) {
		perror("pool");
		exit(2);
	}
	memset(pool_data, POISON_BYTE, (size_t)NR_ALL_PAGES * PAGE_SIZE);
	for (i = 0; i <= MODEL_MAX_ORDER; i++)
		CDS_INIT_LIST_HEAD(&free_lists[i]);
	for (i = 0; i < NR_ALL_PAGES; i++) {
		pool[i].state = MODEL_PAGE_FREE;
		pool[i].hwpoison_seq = ULONG_MAX;
		pool[i].free_order = FREE_TAIL;
		CDS_INIT_LIST_HEAD(&pool[i].lru);
	}
	for (i = 0; i < NR_POOL_PAGES; i += MODEL_MAX_NR) {
		pool[i].free_order = MODEL_MAX_ORDER;
		cds_list_add_tail(&pool[i].lru, &free_lists[MODEL_MAX_ORDER]);
	}
}

/*
 * Merge the free blocks of an aligned range into one of @order, if all
 * of its pages are free and no free block crosses its edges.  alloc_lock
 * held.
 */
static bool pool_merge(unsigned int order)
{
	unsigned long i, j, nr = BIT(order);
	struct page *page;

	for (i = 0; i < NR_POOL_PAGES; i += nr) {
		for (j = 0; j < nr; j += BIT(page->free_order)) {
			page = &pool[i + j];
			if (page_state(page) != MODEL_PAGE_FREE ||
			    page->free_order > order)
				break;
		}
		if (j < nr)
			continue;
		for (j = 0; j < nr; j += BIT(page->free_order)) {
			page = &pool[i + j];
			cds_list_del_init(&page->lru);
		}
		for (j = 0; j < nr; j++)
			pool[i + j].free_order = FREE_TAIL;
		pool[i].free_order = order;
		cds_list_add(&pool[i].lru, &free_lists[order]);
		return true;
	}
	return false;
}

/* Take a free block of @order, splitting a larger one.  alloc_lock held. */
static struct page *pool_take(unsigned int order)
{
	struct page *page;
	unsigned int o;

	for (o = order; o <= MODEL_MAX_ORDER; o++)
		if (!cds_list_empty(&free_lists[o]))
			break;
	if (o > MODEL_MAX_ORDER) {
		if (!pool_merge(order))
			return NULL;
		o = order;
	}
	page = cds_list_first_entry(&free_lists[o], struct page, lru);
	cds_list_del_init(&page->lru);
	while (o > order) {
		struct page *buddy = page + BIT(--o);

		buddy->free_order = o;
		cds_list_add(&buddy->lru, &free_lists[o]);
	}
	return page;
}

/* mm/internal.h: the order in page 1's flags, the count in its memcg_data. */
static void folio_set_order(struct folio *folio, unsigned int order)
{
	unsigned long flags = __atomic_load_n(&folio->_flags_1,
					      __ATOMIC_RELAXED);

	assert(order && folio_test_large(folio));
	__atomic_store_n(&folio->_flags_1, (flags & ~0xffUL) | order,
			 __ATOMIC_RELAXED);
#ifdef NR_PAGES_IN_LARGE_FOLIO
	__atomic_store_n(&folio->_nr_pages, 1U << order, __ATOMIC_RELAXED);
#endif
}

/* mm/page_alloc.c: head flag, tails, then the order (prep_compound_head()). */
static void prep_compound_page(struct page *page, unsigned int order)
{
	unsigned int i;

	__atomic_or_fetch(&page->flags.f, BIT(PG_head), __ATOMIC_RELEASE);
	for (i = 1; i < BIT(order); i++) {
		WRITE_ONCE(page[i].mapping, TAIL_MAPPING);	/* poison.h */
		WRITE_ONCE(page[i].compound_info, (unsigned long)page | 1);
	}
	folio_set_order((struct folio *)page, order);
}

static struct folio *folio_alloc_model(unsigned int order)
{
	struct page *page;
	unsigned int i, nr = 1U << order;

	assert(order <= MODEL_MAX_ORDER);
	pthread_mutex_lock(&alloc_lock);
	page = pool_take(order);
	if (!page) {
		pthread_mutex_unlock(&alloc_lock);
		count(CNT_ALLOC_FAIL, 1);
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		assert(page_state(&page[i]) == MODEL_PAGE_FREE);
		page[i].free_order = FREE_TAIL;
		WRITE_ONCE(page[i].mapping, NULL);
		WRITE_ONCE(page[i].index, 0);
		page[i].private = NULL;
		WRITE_ONCE(page[i].compound_info, 0);
		__atomic_store_n(&page[i].memcg_data, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&page[i]._refcount, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&page[i].flags.f, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&page[i].state, MODEL_PAGE_ALLOCATED,
				 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&alloc_lock);
	__atomic_store_n(&page->_refcount, 1, __ATOMIC_RELAXED);
	if (order)
		prep_compound_page(page, order);
	/* mem_cgroup_charge() when the folio is added to the page cache. */
	__atomic_store_n(&page->memcg_data, (unsigned long)&model_memcg,
			 __ATOMIC_RELAXED);
	return (struct folio *)page;
}

/* Give the folio's pages back: poison, bump the generation, free list. */
static void folio_free_now(struct folio *folio)
{
	struct page *page = &folio->page;
	unsigned int i, order = folio_order(folio), nr = 1U << order;

	for (i = 0; i < nr; i++) {
		__atomic_store_n(&page[i].flags.f, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&page[i].memcg_data, 0, __ATOMIC_RELAXED);
		WRITE_ONCE(page[i].compound_info, 0);
		__atomic_store_n(&page[i].hwpoison_seq, ULONG_MAX,
				 __ATOMIC_RELAXED);
		__atomic_add_fetch(&page[i].gen, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&page[i].state, MODEL_PAGE_FREE,
				 __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		memset(page_data(&page[i]), POISON_BYTE, PAGE_SIZE);
	}
	pthread_mutex_lock(&alloc_lock);
	page->free_order = order;
	for (i = 1; i < nr; i++)
		page[i].free_order = FREE_TAIL;
	cds_list_add(&page->lru, &free_lists[order]);
	pthread_mutex_unlock(&alloc_lock);
}

static void __maybe_unused folio_free_rcu(struct rcu_head *head)
{
	struct folio *folio = (struct folio *)
		container_of(head, struct page, rcu_head);

	/*
	 * call_rcu() orders everything before it before the callback; pair
	 * with the release of the final folio_put_model() so that TSan,
	 * which does not see inside liburcu, knows it too.
	 */
	if (__atomic_load_n(&folio->_refcount, __ATOMIC_ACQUIRE))
		count(CNT_REFCOUNT, 1);
	__atomic_and_fetch(&folio->flags.f, ~(1UL << PG_rcu_free),
			   __ATOMIC_RELAXED);
	folio_free_now(folio);
}

static bool folio_try_get_model(struct folio *folio)
{
	int ref = __atomic_load_n(&folio->_refcount, __ATOMIC_RELAXED);

	do {
		if (ref <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&folio->_refcount, &ref, ref + 1,
					      false, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static void folio_put_model(struct folio *folio)
{
	int ref = __atomic_sub_fetch(&folio->_refcount, 1, __ATOMIC_ACQ_REL);

	if (ref > 0)
		return;
	if (ref < 0) {
		count(CNT_REFCOUNT, 1);
		return;
	}
#ifndef MODEL_NO_DEFER
	if (folio_test_rcu_free(folio)) {
		call_rcu(&folio->page.rcu_head, folio_free_rcu);
		return;
	}
#endif
	folio_free_now(folio);
}

/* LRU state. */

/*
 * The flags of a folio that the lockless read may take with either LRU:
 * PG_rcu_free, and folio_mark_accessed() would change nothing.
 */
#define MODEL_HOT_FLAGS	(BIT(PG_referenced) | BIT(PG_active) | \
			 BIT(PG_workingset) | LRU_REFS_MASK | BIT(PG_rcu_free))

static void folio_set_flag(struct folio *folio, unsigned int nr)
{
	__atomic_or_fetch(&folio->flags.f, BIT(nr), __ATOMIC_RELEASE);
}

static void folio_clear_flag(struct folio *folio, unsigned int nr)
{
	__atomic_and_fetch(&folio->flags.f, ~BIT(nr), __ATOMIC_RELEASE);
}

/* lru_gen_inc_refs() of mm/folio.c in Linux 7.3. */
static void lru_gen_inc_refs_model(struct folio *folio)
{
	unsigned long new_flags, old_flags;

	old_flags = __atomic_load_n(&folio->flags.f, __ATOMIC_RELAXED);
	if (folio_test_unevictable(folio))
		return;

	/* see the comment on LRU_REFS_FLAGS */
	if (!folio_test_referenced(folio)) {
		/* set_mask_bits(&folio->flags.f, LRU_REFS_MASK, ...) */
		do {
			new_flags = (old_flags & ~LRU_REFS_MASK) |
				    BIT(PG_referenced);
		} while (!__atomic_compare_exchange_n(&folio->flags.f,
						      &old_flags, new_flags,
						      false, __ATOMIC_RELEASE,
						      __ATOMIC_RELAXED));
		return;
	}

	do {
		if ((old_flags & LRU_REFS_MASK) == LRU_REFS_MASK) {
			if (!folio_test_workingset(folio))
				folio_set_flag(folio, PG_workingset);
			return;
		}

		new_flags = old_flags + BIT(LRU_REFS_PGOFF);
	} while (!__atomic_compare_exchange_n(&folio->flags.f, &old_flags,
					      new_flags, false,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

/*
 * folio_mark_accessed() of mm/folio.c in Linux 7.3, on the model's flags:
 * the reference for what the lockless read, which does not call it, may
 * skip.  The model has no LRU lists or folio batches: folio_activate()
 * and __lru_cache_activate_folio() both end in PG_active, and
 * workingset_activation() only counts.
 */
static void folio_mark_accessed_model(struct folio *folio)
{
	if (folio_test_dropbehind(folio))
		return;
	if (lru_gen_enabled()) {
		lru_gen_inc_refs_model(folio);
		return;
	}

	if (!folio_test_referenced(folio)) {
		folio_set_flag(folio, PG_referenced);
	} else if (folio_test_unevictable(folio)) {
		/*
		 * Unevictable pages are on the "LRU_UNEVICTABLE" list. But,
		 * this list is never rotated or maintained, so marking an
		 * unevictable page accessed has no effect.
		 */
	} else if (!folio_test_active(folio)) {
		folio_set_flag(folio, PG_active);
		folio_clear_flag(folio, PG_referenced);
	}
	if (folio_test_idle(folio))
		folio_clear_flag(folio, PG_idle);
}

/* File data. */

static u64 make_word(unsigned long magic, unsigned int file, pgoff_t index,
		     unsigned long woff, unsigned long tag)
{
	return (u64)magic << 56 | (u64)(file & 0xff) << 48 |
	       (u64)(index & 0xffff) << 32 | (u64)(woff & 0x1ff) << 23 |
	       (tag & TAG_MASK);
}

static void store_word(u8 *data, unsigned long woff, u64 word)
{
	__atomic_store_n((u64 *)data + woff, word, __ATOMIC_RELAXED);
}

/*
 * Fill the pages of @folio from file offset @from on: file data of
 * generation @wgen below i_size, zeroes (hole words of the current size
 * epoch) above.  File lock held.
 */
static void folio_fill(struct model_file *f, struct folio *folio,
		       pgoff_t index, loff_t from)
{
	loff_t isize = f->inode.i_size;
	unsigned int i, nr = folio_nr_pages(folio);
	unsigned long w;

	for (i = 0; i < nr; i++) {
		u8 *data = page_data(folio_page(folio, i));

		for (w = 0; w < WORDS_PER_PAGE; w++) {
			loff_t pos = (loff_t)(index + i) * PAGE_SIZE + w * 8;

			if (pos < from)
				continue;
			if (f->id == SECRET_FILE)
				store_word(data, w,
					   make_word(MAGIC_SECRET, f->id,
						     index + i, w, f->wgen));
			else if (pos < isize)
				store_word(data, w,
					   make_word(MAGIC_DATA, f->id,
						     index + i, w, f->wgen));
			else
				store_word(data, w,
					   make_word(MAGIC_HOLE, f->id,
						     index + i, w, f->epoch));
		}
	}
}

static void mapping_store(struct model_file *f, pgoff_t index,
			  unsigned int order, void *entry)
{
	XA_STATE_ORDER(xas, &f->mapping.i_pages, index, order);

	do {
		xas_lock(&xas);
		xas_store(&xas, entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	assert(!xas_error(&xas));
}

static struct folio *mapping_lookup(struct model_file *f, pgoff_t index)
{
	void *entry = xa_load(&f->mapping.i_pages, index);

	if (!entry || xa_is_value(entry))
		return NULL;
	return entry;
}

/* Take @folio out of the page cache and drop the page cache reference. */
static void folio_remove(struct model_file *f, struct folio *folio)
{
	mapping_store(f, folio->index, folio_order(folio), NULL);
	model_window(MW_ADVERSARY);
	WRITE_ONCE(folio->mapping, NULL);
	model_window(MW_ADVERSARY);
	folio_put_model(folio);
}

/* Insert a new folio at @index (read it in).  File lock held. */
static struct folio *folio_read_in(struct model_file *f, pgoff_t index,
				   unsigned int order, unsigned long flags)
{
	struct folio *folio = folio_alloc_model(order);

	if (!folio)
		return NULL;
	WRITE_ONCE(folio->index, index);
	WRITE_ONCE(folio->mapping, &f->mapping);
	folio_fill(f, folio, index, 0);
	/* folio_mark_uptodate(): the data before the flag. */
	__atomic_or_fetch(&folio->flags.f, flags | 1UL << PG_uptodate,
			  __ATOMIC_RELEASE);
	mapping_store(f, index, order, folio);
	return folio;
}

static bool range_empty(struct model_file *f, pgoff_t index, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (xa_load(&f->mapping.i_pages, index + i))
			return false;
	return true;
}

static pgoff_t size_pages(loff_t size)
{
	return (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/*
 * Cold or hot, readahead or not, for either LRU (a refault may set
 * PG_workingset, MGLRU tiers): all the states a reader can meet.
 */
static unsigned long random_new_flags(void)
{
	unsigned long flags = 0;
	unsigned long r = rnd();

	if (r & 1) {
		flags |= 1UL << PG_referenced;
		flags |= ((r >> 8) << LRU_REFS_PGOFF) & LRU_REFS_MASK;
	}
	if ((r & 0x41) == 0x41)
		flags |= 1UL << PG_active;
	if ((r & 0x81) == 0x81)
		flags |= 1UL << PG_workingset;
	if ((r & 6) == 6)
		flags |= 1UL << PG_rcu_free;
	if ((r & 0x38) == 0)
		flags |= 1UL << PG_readahead;
	return flags;
}

/* Read in all missing pages below i_size.  File lock held. */
static void op_fill(struct model_file *f)
{
	pgoff_t index, end = size_pages(f->inode.i_size);

	for (index = 0; index < end; index++) {
		if (xa_load(&f->mapping.i_pages, index))
			continue;
		if (!(index % MODEL_MAX_NR) && !(rnd() & 3) &&
		    range_empty(f, index, MODEL_MAX_NR)) {
			if (folio_read_in(f, index, MODEL_MAX_ORDER,
					  random_new_flags())) {
				index += MODEL_MAX_NR - 1;
				continue;
			}
		}
		if (!(index % LARGE_NR) && (rnd() & 1) &&
		    range_empty(f, index, LARGE_NR)) {
			if (folio_read_in(f, index, LARGE_ORDER,
					  random_new_flags())) {
				index += LARGE_NR - 1;
				continue;
			}
		}
		folio_read_in(f, index, 0, random_new_flags());
	}
}

/* Zero [from, end of folio): hole words of the current size epoch. */
static void folio_zero_tail(struct model_file *f, struct folio *folio,
			    loff_t from)
{
	unsigned int i, nr = folio_nr_pages(folio);
	unsigned long w;

	for (i = 0; i < nr; i++) {
		pgoff_t index = folio->index + i;
		u8 *data = page_data(folio_page(folio, i));

		for (w = 0; w < WORDS_PER_PAGE; w++) {
			if ((loff_t)index * PAGE_SIZE + w * 8 < from)
				continue;
			store_word(data, w, make_word(MAGIC_HOLE, f->id, index,
						      w, f->epoch));
			if (!(w & 63))
				model_window(MW_ADVERSARY);
		}
	}
}

/*
 * Called at each step of a split, where the model may widen the window:
 * split_rule_check() reads there, single-threaded.
 */
static void (*split_probe)(void);

static void split_step(void)
{
	if (split_probe)
		split_probe();
	model_window(MW_ADVERSARY);
}

/*
 * __split_folio_to_order() of Linux 7.3, in its order of writes.  For
 * each new folio after the first: the flags cloned from the head (page
 * 1's flags word holds the old folio's order in its low byte), mapping
 * and index, no longer a tail, a compound head if it is large, then
 * memcg_data copied from the head: page 1's is the old folio's _nr_pages.
 * The head's order and page count are reset only at the end, and all the
 * while the XArray maps the whole range to the head.
 */
static void split_folio_to_order(struct folio *folio, unsigned int old_order,
				 unsigned int new_order)
{
	const unsigned long keep = BIT(PG_referenced) | BIT(PG_uptodate) |
				   BIT(PG_active) | BIT(PG_workingset) |
				   BIT(PG_locked) | BIT(PG_unevictable) |
				   BIT(PG_rcu_free) | BIT(PG_dirty) |
				   BIT(PG_dropbehind) | LRU_REFS_MASK;
	unsigned long head_flags, flags, i;
	unsigned long new_nr = BIT(new_order), nr = BIT(old_order);

	head_flags = __atomic_load_n(&folio->flags.f, __ATOMIC_RELAXED);
	for (i = new_nr; i < nr; i += new_nr) {
		struct page *new_head = folio_page(folio, i);
		struct folio *new_folio = (struct folio *)new_head;

		/* Clone page flags: page 1 loses the old order here. */
		flags = __atomic_load_n(&new_head->flags.f, __ATOMIC_RELAXED);
		flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
		flags |= head_flags & keep;
		__atomic_store_n(&new_head->flags.f, flags, __ATOMIC_RELEASE);
		split_step();
		WRITE_ONCE(new_folio->mapping, folio->mapping);
		WRITE_ONCE(new_folio->index, folio->index + i);
		split_step();
		/* smp_wmb(); clear_compound_head() */
		__atomic_store_n(&new_head->compound_info, 0, __ATOMIC_RELEASE);
		if (new_order) {
			prep_compound_page(new_head, new_order);
			split_step();
		}
		if (head_flags & BIT(PG_idle))
			folio_set_flag(new_folio, PG_idle);
		/* Page 1's memcg_data is the old folio's _nr_pages. */
		__atomic_store_n(&new_folio->memcg_data,
				 __atomic_load_n(&folio->memcg_data,
						 __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		split_step();
	}
	if (new_order)
		folio_set_order(folio, new_order);
	else
		folio_clear_flag(folio, PG_head);	/* ClearPageCompound() */
	split_step();
}

/*
 * Split a large folio the way __folio_split() does it in Linux 7.3, with
 * the folio locked and frozen (the file lock): uniform (@split_at < 0)
 * into folios of @new_order, with xas_split() first; or buddy-style
 * (folio_split()), halving the part that holds page @split_at until it
 * has @new_order, xas_try_split() before each step.  The XArray holds the
 * old folio in every slot of its range until all of
 * __split_folio_to_order() is done, then the new folios are stored over
 * it, then they are unlocked.
 */
static void folio_split_model(struct model_file *f, struct folio *folio,
			      unsigned int new_order, long split_at)
{
	XA_STATE(xas, &f->mapping.i_pages, folio->index);
	unsigned int order = folio_order(folio), old, split_order;
	unsigned long nr = BIT(order), p;
	struct folio *cur = folio;

	if (order <= new_order)
		return;
	folio_set_flag(folio, PG_locked);
	if (split_at < 0) {
		xas_set_order(&xas, folio->index, new_order);
		xas_split_alloc(&xas, folio, order, GFP_KERNEL);
		assert(!xas_error(&xas));
		xas_lock(&xas);
		xas_split(&xas, folio, order);
		split_step();
		split_folio_to_order(folio, order, new_order);
	} else {
		assert(split_at < nr);
		xas_lock(&xas);
		for (old = order; old > new_order; old--) {
			split_order = old - 1;
			xas_set_order(&xas, cur->index, split_order);
			/*
			 * xas_try_split() would allocate the one node it may
			 * need with GFP_NOWAIT, which the userspace slab
			 * refuses: allocate it first.
			 */
			xas_split_alloc(&xas, folio, old, GFP_KERNEL);
			xas_try_split(&xas, folio, old);
			assert(!xas_error(&xas));
			split_step();
			split_folio_to_order(cur, old, split_order);
			cur = (struct folio *)folio_page(folio, split_at &
							 ~(BIT(split_order) - 1));
		}
	}
	/* __folio_freeze_and_split_unmapped(): store the new folios. */
	for (p = folio_nr_pages(folio); p < nr; p += folio_nr_pages(cur)) {
		cur = (struct folio *)folio_page(folio, p);
		__atomic_store_n(&cur->_refcount, 1, __ATOMIC_RELAXED);
		xas_set_order(&xas, folio->index + p, 0);
		xas_store(&xas, cur);
		split_step();
	}
	xas_unlock(&xas);
	for (p = 0; p < nr; p += folio_nr_pages(cur)) {
		cur = (struct folio *)folio_page(folio, p);
		folio_clear_flag(cur, PG_locked);
	}
}

/*
 * A split as truncation, hole punching or reclaim asks for one: to order
 * 0, to a random lower order, or buddy-style at page @split_at.
 */
static void folio_split_random(struct model_file *f, struct folio *folio,
			       unsigned long split_at)
{
	unsigned int order = folio_order(folio);

	switch (rnd() & 3) {
	case 0:
	case 1:
		folio_split_model(f, folio, 0, -1);
		break;
	case 2:
		folio_split_model(f, folio, rnd_below(order), -1);
		break;
	default:
		folio_split_model(f, folio, 0, split_at);
		break;
	}
}

/* Publish a new i_size: history, then epoch, then i_size. */
static void set_size(struct model_file *f, loff_t size)
{
	unsigned long epoch = f->epoch + 1;

	assert(epoch < TAG_MASK);
	f->size_hist[epoch & SIZE_HIST_MASK] = size;
	__atomic_store_n(&f->epoch, epoch, __ATOMIC_SEQ_CST);
	i_size_write(&f->inode, size);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Remove the folios that start at or after @index. */
static void remove_from(struct model_file *f, pgoff_t index, pgoff_t end)
{
	struct folio *folio;
	pgoff_t i;

	for (i = index; i < end; i++) {
		folio = mapping_lookup(f, i);
		if (!folio || folio->index < index)
			continue;
		folio_remove(f, folio);
	}
}

static void op_truncate(struct model_file *f)
{
	loff_t old = f->inode.i_size, size;
	struct folio *folio;
	pgoff_t index;

	/* Down into a page (often of a large folio), or back up. */
	if (old > PAGE_SIZE && (rnd() % 3)) {
		size = rnd_below(old / 8) * 8;
		/* Often land in the middle of a page. */
		if (!(size % PAGE_SIZE))
			size += 8 * (1 + rnd_below(WORDS_PER_PAGE - 1));
		if (size >= old)
			size = old - 8;
	} else {
		size = 8 * (1 + rnd_below(FILE_MAX_PAGES * WORDS_PER_PAGE));
	}
	set_size(f, size);
	model_window(MW_ADVERSARY);
	if (size >= old)
		return;

	/* truncate_inode_partial_folio(): zero the tail, maybe split. */
	index = size >> PAGE_SHIFT;
	folio = mapping_lookup(f, index);
	if (folio && (loff_t)folio->index * PAGE_SIZE < size) {
		folio_zero_tail(f, folio, size);
		if (folio_order(folio) && (rnd() & 1))
			folio_split_random(f, folio, index - folio->index);
	}
	model_window(MW_ADVERSARY);
	remove_from(f, size_pages(size), FILE_MAX_PAGES + MODEL_MAX_NR);
}

static struct folio *random_folio(struct model_file *f)
{
	pgoff_t end = size_pages(f->inode.i_size);
	struct folio *folio;

	folio = mapping_lookup(f, rnd_below(end ? end : 1));
	return folio;
}

static void op_punch(struct model_file *f)
{
	pgoff_t index = rnd_below(FILE_MAX_PAGES), end = index + 1 + rnd_below(4);
	struct folio *folio;
	pgoff_t i;

	for (i = index; i < end; i++) {
		/* Split until the folio at i is within the hole. */
		while ((folio = mapping_lookup(f, i)) && folio_order(folio) &&
		       (folio->index < index ||
			folio->index + folio_nr_pages(folio) > end))
			folio_split_random(f, folio, i - folio->index);
		if (folio)
			folio_remove(f, folio);
	}
}

static void op_overwrite(struct model_file *f)
{
	struct folio *folio = random_folio(f);
	loff_t isize = f->inode.i_size;
	unsigned int i, nr;
	unsigned long w;

	if (!folio)
		return;
	__atomic_store_n(&f->wgen, (f->wgen + 1) & TAG_MASK, __ATOMIC_RELAXED);
	nr = folio_nr_pages(folio);
	for (i = 0; i < nr; i++) {
		pgoff_t index = folio->index + i;
		u8 *data = page_data(folio_page(folio, i));

		for (w = 0; w < WORDS_PER_PAGE; w++) {
			if ((loff_t)index * PAGE_SIZE + w * 8 >= isize)
				break;
			store_word(data, w, make_word(MAGIC_DATA, f->id, index,
						      w, f->wgen));
		}
		model_window(MW_ADVERSARY);
	}
}

/* Migration: a new folio with the same data replaces the old one. */
static void op_migrate(struct model_file *f)
{
	struct folio *folio = random_folio(f), *new;
	unsigned int order, i;
	unsigned long keep = 1UL << PG_uptodate | 1UL << PG_referenced |
			     1UL << PG_active | 1UL << PG_workingset |
			     1UL << PG_unevictable | 1UL << PG_idle |
			     1UL << PG_readahead | LRU_REFS_MASK;

	if (!folio)
		return;
	order = folio_order(folio);
	new = folio_alloc_model(order);
	if (!new)
		return;
	for (i = 0; i < (1U << order); i++)
		memcpy(page_data(folio_page(new, i)),
		       page_data(folio_page(folio, i)), PAGE_SIZE);
	WRITE_ONCE(new->index, folio->index);
	WRITE_ONCE(new->mapping, &f->mapping);
	__atomic_or_fetch(&new->flags.f,
			  __atomic_load_n(&folio->flags.f, __ATOMIC_RELAXED) & keep,
			  __ATOMIC_RELEASE);
	mapping_store(f, folio->index, order, new);
	model_window(MW_ADVERSARY);
	WRITE_ONCE(folio->mapping, NULL);
	folio_put_model(folio);
}

/* Split a large folio of the file, from a random index on. */
static void op_split(struct model_file *f)
{
	pgoff_t start = rnd_below(FILE_MAX_PAGES), i;
	struct folio *folio;

	for (i = 0; i < FILE_MAX_PAGES; i++) {
		folio = mapping_lookup(f, (start + i) % FILE_MAX_PAGES);
		if (folio && folio_order(folio)) {
			folio_split_random(f, folio,
					   rnd_below(folio_nr_pages(folio)));
			return;
		}
	}
}

/*
 * Free the file's folios and give fresh ones (most likely the same memory:
 * the free lists are LIFO) to the secret file, hot.  Secret file lock is
 * taken inside the file lock; nothing takes them the other way round.
 */
static void op_reuse(struct model_file *f)
{
	struct model_file *s = &files[SECRET_FILE];
	pgoff_t start = rnd_below(FILE_MAX_PAGES), nr = 1 + rnd_below(8);
	pgoff_t i;
	struct folio *folio;

	remove_from(f, start, start + nr);
	pthread_mutex_lock(&s->lock);
	__atomic_store_n(&s->wgen, (s->wgen + 1) & TAG_MASK, __ATOMIC_RELAXED);
	for (i = start; i < start + nr && i < FILE_MAX_PAGES; i++) {
		folio = mapping_lookup(s, i);
		if (folio)
			folio_remove(s, folio);
		folio = folio_read_in(s, i, 0, MODEL_HOT_FLAGS);
		if (!folio)
			break;
	}
	pthread_mutex_unlock(&s->lock);
}

/*
 * A slow-path read, filemap_read_mark_accessed(): filemap_read_mark_hot()
 * sets PG_rcu_free on a folio found referenced (not PG_dropbehind), then
 * folio_mark_accessed() marks it, in the LRU mode of the moment.  Half of
 * them start readahead, which clears PG_readahead.
 */
static void op_hot(struct model_file *f)
{
	struct folio *folio = random_folio(f);

	if (!folio)
		return;
	if (folio_test_referenced(folio) && !folio_test_rcu_free(folio) &&
	    !folio_test_dropbehind(folio))
		folio_set_flag(folio, PG_rcu_free);
	folio_mark_accessed_model(folio);
	if (folio_test_readahead(folio) && (rnd() & 1))
		folio_clear_flag(folio, PG_readahead);
}

/*
 * echo y/n > /sys/kernel/mm/lru_gen/enabled: switch MGLRU on or off while
 * readers run.  The folios keep their flags.
 */
static void op_lru_gen(struct model_file *f)
{
	__atomic_xor_fetch(&model_lru_gen, 1, __ATOMIC_RELAXED);
}

/* memory_failure() on a page: flag it, then stamp the model clock. */
static void op_hwpoison(struct model_file *f)
{
	struct folio *folio = random_folio(f);
	struct page *page;
	unsigned long seq;

	if (!folio)
		return;
	page = folio_page(folio, rnd_below(folio_nr_pages(folio)));
	if (PageHWPoison(page))
		return;
	__atomic_store_n(&page->hwpoison_seq, ULONG_MAX, __ATOMIC_SEQ_CST);
	__atomic_or_fetch(&page->flags.f, 1UL << PG_hwpoison, __ATOMIC_SEQ_CST);
	seq = __atomic_add_fetch(&model_clock, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&page->hwpoison_seq, seq, __ATOMIC_SEQ_CST);
}

static void adversary_op(struct model_file *f, enum adv_op op)
{
	switch (op) {
	case OP_TRUNCATE:
		op_truncate(f);
		break;
	case OP_PUNCH:
		op_punch(f);
		break;
	case OP_OVERWRITE:
		op_overwrite(f);
		break;
	case OP_MIGRATE:
		op_migrate(f);
		break;
	case OP_SPLIT:
		op_split(f);
		break;
	case OP_REUSE:
		op_reuse(f);
		break;
	case OP_FILL:
		op_fill(f);
		break;
	case OP_HOT:
		op_hot(f);
		break;
	case OP_HWPOISON:
		op_hwpoison(f);
		break;
	case OP_LRU_GEN:
		op_lru_gen(f);
		break;
	default:
		break;
	}
	uatomic_inc(&op_count[op]);
}

/* Weights of the operations, out of 100. */
static const unsigned int op_weight[NR_OPS] = {
	[OP_TRUNCATE] = 12, [OP_PUNCH] = 6, [OP_OVERWRITE] = 10,
	[OP_MIGRATE] = 10, [OP_SPLIT] = 6, [OP_REUSE] = 10, [OP_FILL] = 20,
	[OP_HOT] = 24, [OP_HWPOISON] = 1, [OP_LRU_GEN] = 1,
};

static void *adversary_thread(void *arg)
{
	struct model_thread t;

	thread_init(&t, 1000 + (unsigned long)arg);
	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct model_file *f = &files[rnd_below(NR_FILES)];
		unsigned int r = rnd_below(100), op;

		for (op = 0; op < NR_OPS - 1; op++) {
			if (r < op_weight[op])
				break;
			r -= op_weight[op];
		}
		pthread_mutex_lock(&f->lock);
		adversary_op(f, op);
		pthread_mutex_unlock(&f->lock);
		model_window(MW_ADVERSARY);
	}
	rcu_unregister_thread();
	return NULL;
}

/* Reader side. */

/*
 * Zeroes at @pos tagged with size epoch @tag: fine unless @pos was beyond
 * the EOF that epoch set and no later size change up to @ret_epoch (read
 * after the copy returned) moved EOF past @pos again.
 */
static void check_hole(struct model_file *f, loff_t pos, unsigned long tag,
		       unsigned long ret_epoch, unsigned long *bad,
		       unsigned long *unchecked)
{
	unsigned long t = ret_epoch - ((ret_epoch - tag) & TAG_MASK), e;

	if (ret_epoch - t >= SIZE_HIST - 64) {
		(*unchecked)++;
		return;
	}
	if (pos < f->size_hist[t & SIZE_HIST_MASK])
		return;
	for (e = t + 1; e <= ret_epoch; e++)
		if (pos < f->size_hist[e & SIZE_HIST_MASK])
			return;
	(*bad)++;
}

static void check_copy(struct model_file *f, loff_t pos, const u64 *buf,
		       size_t len, size_t want, unsigned long ret_epoch)
{
	unsigned long c[NR_COUNTERS] = { 0 };
	unsigned long wgen = __atomic_load_n(&f->wgen, __ATOMIC_RELAXED);
	size_t i;

	if (len > want || !len || len % 8)
		c[CNT_BAD_LEN]++;
	for (i = 0; i < len / 8; i++) {
		loff_t p = pos + i * 8;
		pgoff_t index = p >> PAGE_SHIFT;
		unsigned long woff = offset_in_page(p) / 8;
		u64 w = buf[i];
		unsigned long magic = w >> 56, tag = w & TAG_MASK;
		bool here = ((w >> 48) & 0xff) == f->id &&
			    ((w >> 32) & 0xffff) == (index & 0xffff) &&
			    ((w >> 23) & 0x1ff) == woff;

		c[CNT_WORDS]++;
		if (w == POISON_WORD) {
			c[CNT_POISON]++;
		} else if (magic == MAGIC_SECRET) {
			c[CNT_SECRET]++;
		} else if (!here) {
			c[CNT_FOREIGN]++;
		} else if (magic == MAGIC_DATA) {
			if (tag != wgen)
				c[CNT_STALE]++;
		} else if (magic == MAGIC_HOLE) {
			check_hole(f, p, tag, ret_epoch, &c[CNT_BEYOND_EOF],
				   &c[CNT_UNCHECKED]);
		} else {
			c[CNT_FOREIGN]++;
		}
	}
	for (i = 0; i < NR_COUNTERS; i++)
		count(i, c[i]);
	if (opt_verbose && (c[CNT_FOREIGN] || c[CNT_SECRET] ||
			    c[CNT_POISON] || c[CNT_BEYOND_EOF]))
		printf("# bad copy: file %u pos %lld len %zu first %016llx\n",
		       f->id, (long long)pos, len, (unsigned long long)buf[0]);
}

/*
 * filemap_fast_copy() writes to the user's buffer directly, and another
 * thread of the process can read the buffer while the read runs: every
 * word it wrote, also those it did not count as copied, must be this
 * file's data (or zeroes) at that position, never another file's, the
 * secret file's or freed memory.
 */
static void check_transient(struct model_file *f, loff_t pos, const u64 *buf,
			    size_t from, size_t want)
{
	unsigned long c[NR_COUNTERS] = { 0 };
	size_t i;

	for (i = from / 8; i < want / 8; i++) {
		loff_t p = pos + i * 8;
		pgoff_t index = p >> PAGE_SHIFT;
		unsigned long woff = offset_in_page(p) / 8;
		u64 w = buf[i];
		unsigned long magic = w >> 56;

		if (w == UNWRITTEN_WORD)
			continue;
		c[CNT_WORDS]++;
		if (w == POISON_WORD)
			c[CNT_POISON]++;
		else if (magic == MAGIC_SECRET)
			c[CNT_SECRET]++;
		else if (((w >> 48) & 0xff) != f->id ||
			 ((w >> 32) & 0xffff) != (index & 0xffff) ||
			 ((w >> 23) & 0x1ff) != woff ||
			 (magic != MAGIC_DATA && magic != MAGIC_HOLE))
			c[CNT_FOREIGN]++;
	}
	for (i = 0; i < NR_COUNTERS; i++)
		count(i, c[i]);
	if (opt_verbose && (c[CNT_FOREIGN] || c[CNT_SECRET] || c[CNT_POISON]))
		printf("# bad transient copy: file %u pos %lld from %zu\n",
		       f->id, (long long)pos, from);
}

static void *reader_thread(void *arg)
{
	unsigned long local_status[NR_STATUS] = { 0 };
	unsigned long local_copied[2] = { 0 }, local_spans = 0;
	u64 *buf = malloc(READ_BUF_SIZE);
	struct model_thread t;
	unsigned int i;

	thread_init(&t, (unsigned long)arg);
	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct model_file *f = &files[rnd_below(NR_FILES)];
		enum filemap_fast_status status;
		unsigned long ret_epoch;
		size_t want, len = 0, fault_at;
		loff_t pos, isize;
		bool lru_gen;

		/* Half of the reads near EOF, where truncation races. */
		isize = i_size_read(&f->inode);
		if (rnd() & 1)
			pos = isize - 2 * PAGE_SIZE +
			      8 * rnd_below(4 * WORDS_PER_PAGE);
		else
			pos = 8 * rnd_below(FILE_MAX_PAGES * WORDS_PER_PAGE);
		if (pos < 0)
			pos = 0;
		/* A quarter 512 bytes, a quarter up to a page, the rest more. */
		switch (rnd() & 3) {
		case 0:
			want = 512;
			break;
		case 1:
			want = 8 * (1 + rnd_below(WORDS_PER_PAGE));
			break;
		default:
			want = 8 * (1 + rnd_below(READ_BUF_SIZE / 8));
			break;
		}
		/* An eighth of the reads fault somewhere in the user buffer. */
		fault_at = (rnd() & 7) ? SIZE_MAX : 8 * rnd_below(want / 8 + 1);
		for (i = 0; i < want / 8; i++)
			buf[i] = UNWRITTEN_WORD;

		t.read_clock = __atomic_load_n(&model_clock, __ATOMIC_SEQ_CST);
		t.reading = true;
		lru_gen = lru_gen_enabled();
		rcu_read_lock();
		/*
		 * No folio counts as marked by an earlier read: op_hot()
		 * marks folios until folio_mark_accessed() would leave them
		 * as they are.
		 */
		status = model_fast_copy(&f->mapping, pos, -1, buf, want,
					 fault_at, &len);
		rcu_read_unlock();
		t.reading = false;
		ret_epoch = __atomic_load_n(&f->epoch, __ATOMIC_SEQ_CST);

		assert(status < NR_STATUS);
		local_status[status]++;
		/*
		 * Whatever the status, the bytes counted as copied must be
		 * valid: those of the folios before a fallback too.
		 */
		if (status == FILEMAP_FAST_COPIED)
			local_copied[lru_gen]++;
		if (len) {
			check_copy(f, pos, buf, len, want, ret_epoch);
			/* Crossed a large folio's boundary: one section, two folios. */
			if (pos / (LARGE_NR * PAGE_SIZE) !=
			    (pos + len - 1) / (LARGE_NR * PAGE_SIZE))
				local_spans++;
		}
		check_transient(f, pos, buf, len, want);
	}
	rcu_unregister_thread();
	for (i = 0; i < NR_STATUS; i++)
		uatomic_add(&status_count[i], local_status[i]);
	for (i = 0; i < 2; i++)
		uatomic_add(&copied_lru_gen[i], local_copied[i]);
	uatomic_add(&copied_spans, local_spans);
	free(buf);
	return NULL;
}

/* Set up and tear down. */

static void files_init(void)
{
	struct model_thread t;
	unsigned int i;

	thread_init(&t, 999);
	for (i = 0; i < NR_ALL_FILES; i++) {
		struct model_file *f = &files[i];
		loff_t size;

		f->id = i;
		pthread_mutex_init(&f->lock, NULL);
		f->inode.i_mapping = &f->mapping;
		f->mapping.host = &f->inode;
		xa_init(&f->mapping.i_pages);
		size = 8 * (1 + rnd_below(FILE_MAX_PAGES * WORDS_PER_PAGE));
		if (i == SECRET_FILE)
			size = FILE_MAX_PAGES * PAGE_SIZE;
		set_size(f, size);
		f->wgen = 1;
		if (i != SECRET_FILE)
			op_fill(f);
	}
	self = NULL;
}

/* Drop every folio, wait for RCU, and check that the pool is whole. */
static bool teardown_check(void)
{
	unsigned long i, nfree = 0, listed = 0;
	struct page *page;
	bool ok = true;

	for (i = 0; i < NR_ALL_FILES; i++) {
		struct model_file *f = &files[i];

		pthread_mutex_lock(&f->lock);
		remove_from(f, 0, FILE_MAX_PAGES + MODEL_MAX_NR);
		pthread_mutex_unlock(&f->lock);
		if (!xa_empty(&f->mapping.i_pages))
			ok = false;
	}
	rcu_barrier();
	/* The lock also orders this after the frees for TSan. */
	pthread_mutex_lock(&alloc_lock);
	for (i = 0; i < NR_POOL_PAGES; i++)
		if (page_state(&pool[i]) == MODEL_PAGE_FREE)
			nfree++;
	for (i = 0; i <= MODEL_MAX_ORDER; i++)
		cds_list_for_each_entry(page, &free_lists[i], lru)
			listed += BIT(i);
	pthread_mutex_unlock(&alloc_lock);
	if (nfree != NR_POOL_PAGES || listed != NR_POOL_PAGES) {
		printf("# pool: %lu of %u pages free, %lu on free lists\n",
		       nfree, NR_POOL_PAGES, listed);
		ok = false;
	}
	if (counters[CNT_REFCOUNT])
		ok = false;
	return ok;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run_for(double seconds)
{
	double end = now() + seconds;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && now() < end)
		usleep(10000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static unsigned int tap_nr;
static bool tap_failed;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", ok ? "" : "not ", ++tap_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		tap_failed = true;
}

/* The LRU flags of a folio that lru_rule_check() runs through. */
static const unsigned long lru_rule_bits[] = {
	BIT(PG_referenced), BIT(PG_active), BIT(PG_workingset),
	BIT(PG_unevictable), BIT(PG_idle), BIT(PG_readahead),
	BIT(PG_dropbehind), BIT(LRU_REFS_PGOFF), BIT(LRU_REFS_PGOFF + 1),
};

static_assert(LRU_REFS_WIDTH == 2, "lru_rule_bits: all LRU_REFS bits");

#define LRU_RULE_STATES	BIT(ARRAY_SIZE(lru_rule_bits))
#define LRU_RULE_CASES	(2 * LRU_RULE_STATES * 3)
#define LRU_RULE_PRINT	8

struct lru_rule_result {
	unsigned long bad_lru;		/* check 10 */
	unsigned long bad_dropbehind;	/* check 11 */
	unsigned int printed;
};

/*
 * One case of lru_rule_check(): @folio, the folio at index 0 of @f, with
 * the LRU flags @flags, and @m: -1 no position marked, 0 a position in
 * this folio, 1 one in the next folio.
 */
static void lru_rule_case(struct model_file *f, struct folio *folio,
			  unsigned long base, unsigned long flags, int m,
			  struct lru_rule_result *res)
{
	enum filemap_fast_status status;
	struct folio copy = { };
	bool copied, expected;
	loff_t marked = -1;
	size_t len = 0;
	u64 buf[2];

	if (m >= 0)
		marked = (loff_t)(folio->index + m * folio_nr_pages(folio)) *
			 PAGE_SIZE;
	copy.flags.f = flags;
	folio_mark_accessed_model(&copy);
	expected = !(flags & (BIT(PG_readahead) | BIT(PG_dropbehind))) &&
		   (m == 0 || copy.flags.f == flags);

	__atomic_store_n(&folio->flags.f, base | flags, __ATOMIC_RELEASE);
	rcu_read_lock();
	status = model_fast_copy(&f->mapping, 0, marked, buf, sizeof(buf),
				 SIZE_MAX, &len);
	rcu_read_unlock();
	copied = status == FILEMAP_FAST_COPIED;
	if (copied == expected)
		return;
	if (flags & BIT(PG_dropbehind))
		res->bad_dropbehind++;
	else
		res->bad_lru++;
	if (res->printed++ < LRU_RULE_PRINT)
		printf("# lru case: MGLRU %s, flags %#lx, marked %lld: %s; marking: %#lx\n",
		       lru_gen_enabled() ? "on" : "off", flags,
		       (long long)marked, status_names[status], copy.flags.f);
}

/*
 * The lockless read does not call folio_mark_accessed(), start readahead
 * or drop a PG_dropbehind (RWF_DONTCACHE) folio after the read, as the
 * slow path does.  So it may only take a folio that has neither
 * PG_readahead nor PG_dropbehind, and that the slow path would not mark
 * on this read (the folio of @marked) or that folio_mark_accessed() would
 * leave as it is - and it should take every such folio.  One folio,
 * single-threaded, before the run: every combination of the LRU flags
 * and the MGLRU tier, with no, this or the next folio marked, with MGLRU
 * off and on; folio_mark_accessed_model() on a copy of the folio tells
 * whether marking would change anything.
 */
static void lru_rule_check(struct lru_rule_result *res)
{
	unsigned long lru = 0, saved, base, flags, v;
	struct model_file *f = &files[0];
	int saved_lru_gen = model_lru_gen;
	struct model_thread t;
	struct folio *folio;
	unsigned int i;
	int lru_gen, m;

	for (i = 0; i < ARRAY_SIZE(lru_rule_bits); i++)
		lru |= lru_rule_bits[i];
	memset(res, 0, sizeof(*res));
	thread_init(&t, 7777);
	folio = mapping_lookup(f, 0);
	if (!folio)
		folio = folio_read_in(f, 0, 0, 0);
	if (i_size_read(&f->inode) < PAGE_SIZE)
		set_size(f, PAGE_SIZE);
	saved = __atomic_load_n(&folio->flags.f, __ATOMIC_RELAXED);
	base = (saved & ~lru) | BIT(PG_uptodate) | BIT(PG_rcu_free);
	for (lru_gen = 0; lru_gen < 2; lru_gen++) {
		__atomic_store_n(&model_lru_gen, lru_gen, __ATOMIC_RELAXED);
		for (v = 0; v < LRU_RULE_STATES; v++) {
			flags = 0;
			for (i = 0; i < ARRAY_SIZE(lru_rule_bits); i++)
				if (v & BIT(i))
					flags |= lru_rule_bits[i];
			for (m = -1; m <= 1; m++)
				lru_rule_case(f, folio, base, flags, m, res);
		}
	}
	__atomic_store_n(&folio->flags.f, saved, __ATOMIC_RELEASE);
	__atomic_store_n(&model_lru_gen, saved_lru_gen, __ATOMIC_RELAXED);
	self = NULL;
	/* -x: no need to run the threads. */
	if (opt_stop_on_error && (res->bad_lru || res->bad_dropbehind))
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/*
 * Step 9, single-threaded, before the run: three hot folios in a row, with
 * each of the steps 0 -> 0, 0 -> LARGE_ORDER, LARGE_ORDER -> 0 and
 * LARGE_ORDER -> LARGE_ORDER in a position, the middle one at each
 * LARGE_NR-aligned index (so that some of the steps cross from one XArray
 * node to the next), and a read from the last 64 bytes of the first folio
 * to the first 64 bytes of the third.  Nothing changes the file, so the
 * read must copy all of it in one call, and the right bytes.  The racing
 * readers cannot show this: a step that lands on the wrong index can still
 * find the right folio while a split has stored the head in every slot.
 */
#define STEP_RULE_PRINT	4

/* Words that checks 1-6 count as wrong so far. */
static unsigned long step_rule_wrong(void)
{
	return counters[CNT_FOREIGN] + counters[CNT_SECRET] +
	       counters[CNT_POISON] + counters[CNT_UAF_MAP] +
	       counters[CNT_UAF_COPY] + counters[CNT_BEYOND_EOF] +
	       counters[CNT_HWPOISON] + counters[CNT_BAD_LEN];
}

static unsigned long step_rule_check(unsigned long *cases)
{
	const unsigned long hot = BIT(PG_rcu_free) | BIT(PG_referenced) |
				  BIT(PG_unevictable);
	struct model_file *f = &files[0];
	unsigned int c, o1, o2, o3, printed = 0;
	unsigned long bad = 0, wrong;
	struct model_thread t;
	size_t want, len;
	pgoff_t b;
	u64 *buf;

	thread_init(&t, 8888);
	buf = malloc(2 * READ_BUF_SIZE);
	assert(buf);
	*cases = 0;
	pthread_mutex_lock(&f->lock);
	set_size(f, FILE_MAX_PAGES * PAGE_SIZE);
	for (b = LARGE_NR; b + 2 * LARGE_NR <= FILE_MAX_PAGES; b += LARGE_NR) {
		for (c = 0; c < 8; c++) {
			enum filemap_fast_status status;
			loff_t pos = (loff_t)b * PAGE_SIZE - 64;

			o1 = c & 1 ? LARGE_ORDER : 0;
			o2 = c & 2 ? LARGE_ORDER : 0;
			o3 = c & 4 ? LARGE_ORDER : 0;
			/* A large folio right after a small one is misaligned. */
			if (o3 > o2)
				continue;
			remove_from(f, 0, FILE_MAX_PAGES + MODEL_MAX_NR);
			if (!folio_read_in(f, b - BIT(o1), o1, hot) ||
			    !folio_read_in(f, b, o2, hot) ||
			    !folio_read_in(f, b + BIT(o2), o3, hot)) {
				printf("# step case: out of model memory\n");
				bad++;
				continue;
			}
			want = 64 + BIT(o2) * PAGE_SIZE + 64;
			for (len = 0; len < want / 8; len++)
				buf[len] = UNWRITTEN_WORD;
			wrong = step_rule_wrong();
			len = 0;
			rcu_read_lock();
			status = model_fast_copy(&f->mapping, pos, -1, buf,
						 want, SIZE_MAX, &len);
			rcu_read_unlock();
			(*cases)++;
			if (len)
				check_copy(f, pos, buf, len, want, f->epoch);
			if (status == FILEMAP_FAST_COPIED && len == want &&
			    step_rule_wrong() == wrong)
				continue;
			bad++;
			if (printed++ < STEP_RULE_PRINT)
				printf("# step case: orders %u %u %u at %lu: %s, %zu of %zu\n",
				       o1, o2, o3, b, status_names[status],
				       len, want);
		}
	}
	/* Back to a random file, as files_init() left it. */
	remove_from(f, 0, FILE_MAX_PAGES + MODEL_MAX_NR);
	set_size(f, 8 * (1 + rnd_below(FILE_MAX_PAGES * WORDS_PER_PAGE)));
	op_fill(f);
	pthread_mutex_unlock(&f->lock);
	free(buf);
	self = NULL;
	if (opt_stop_on_error && bad)
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	return bad;
}

/*
 * Step 5 against a split, single-threaded, before the run: a hot folio of
 * order LARGE_ORDER or MODEL_MAX_ORDER at index 0, a hole after it and
 * i_size far beyond, is split uniformly to every lower order and
 * buddy-style to order 0 at its first, second and last page.  At every
 * step of the split (split_step()), while the XArray still holds the old
 * folio in every slot and the head's order and page count are whatever
 * __split_folio_to_order() has written so far, reads start in the first
 * page and in the last 64 bytes of each of the last two pages, with
 * lengths that cross the end of the folio.  No read may map a page
 * outside the folio (a kmap_local_page() fence) or copy a wrong byte; the
 * racing reads find such a window only by chance.  The counters of checks
 * 1-6 are left as they were, and with -x the threads still run: this
 * check reports its own.
 */
#define SPLIT_RULE_PRINT	4

struct split_rule {
	struct model_file *file;
	struct folio *folio;		/* the folio being split */
	unsigned long nr;		/* its pages before the split */
	unsigned int order, new_order;
	long split_at;
	unsigned long step;		/* of this case */
	unsigned long steps, reads, copied, garbage, bad, cases;
	unsigned int printed;
	u64 *buf;
};

static struct split_rule split_rule;

/* split_probe: the reads at one step of the split. */
static void split_rule_read(void)
{
	struct split_rule *sr = &split_rule;
	struct model_file *f = sr->file;
	struct folio *folio = sr->folio;
	unsigned long from[3] = { 0, sr->nr - 2, sr->nr - 1 };
	unsigned long j, w, wrong;
	unsigned int i;

	sr->step++;
	sr->steps++;
	if (folio_nr_pages(folio) > sr->nr)
		sr->garbage++;
	for (i = 0; i < ARRAY_SIZE(from); i++) {
		enum filemap_fast_status status;
		loff_t pos;
		size_t want, len = 0;

		j = from[i];
		pos = (loff_t)(folio->index + j + 1) * PAGE_SIZE - 64;
		want = min_t(size_t, READ_BUF_SIZE,
			     (sr->nr - j) * PAGE_SIZE + 64);
		for (w = 0; w < want / 8; w++)
			sr->buf[w] = UNWRITTEN_WORD;
		wrong = step_rule_wrong();
		self->fence_lo = &folio->page;
		self->fence_hi = &folio->page + sr->nr;
		self->fence_bad = 0;
		rcu_read_lock();
		status = model_fast_copy(&f->mapping, pos, -1, sr->buf, want,
					 SIZE_MAX, &len);
		rcu_read_unlock();
		self->fence_lo = NULL;
		if (len)
			check_copy(f, pos, sr->buf, len, want, f->epoch);
		check_transient(f, pos, sr->buf, len, want);
		sr->reads++;
		if (len)
			sr->copied++;
		if (!self->fence_bad && step_rule_wrong() == wrong)
			continue;
		sr->bad++;
		if (sr->printed++ >= SPLIT_RULE_PRINT)
			continue;
		printf("# split case: order %u to %u, ", sr->order,
		       sr->new_order);
		if (sr->split_at < 0)
			printf("uniform, ");
		else
			printf("buddy-style at page %ld, ", sr->split_at);
		printf("step %lu: ", sr->step);
		printf("page count %lu, read at page %lu, %zu bytes: ",
		       folio_nr_pages(folio), j, want);
		printf("%s, %zu copied, %lu pages mapped outside the folio\n",
		       status_names[status], len, self->fence_bad);
	}
}

static void split_rule_check(struct split_rule *sr)
{
	const unsigned long hot = BIT(PG_rcu_free) | BIT(PG_referenced) |
				  BIT(PG_unevictable);
	static const unsigned int orders[] = { LARGE_ORDER, MODEL_MAX_ORDER };
	int saved_stop = __atomic_load_n(&stop, __ATOMIC_RELAXED);
	unsigned long saved[NR_COUNTERS];
	struct model_file *f = &files[0];
	struct model_thread t;
	unsigned int i, c, nr;

	thread_init(&t, 9999);
	memset(sr, 0, sizeof(*sr));
	sr->file = f;
	sr->buf = malloc(READ_BUF_SIZE);
	assert(sr->buf);
	memcpy(saved, counters, sizeof(saved));
	pthread_mutex_lock(&f->lock);
	set_size(f, FILE_MAX_PAGES * PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		nr = BIT(orders[i]);
		/* Uniform to each lower order, then at pages 0, 1, nr - 1. */
		for (c = 0; c < orders[i] + 3; c++) {
			sr->order = orders[i];
			sr->new_order = c < orders[i] ? c : 0;
			if (c < orders[i])
				sr->split_at = -1;
			else if (c == orders[i])
				sr->split_at = 0;
			else
				sr->split_at = c == orders[i] + 1 ? 1 : nr - 1;
			remove_from(f, 0, FILE_MAX_PAGES + MODEL_MAX_NR);
			sr->folio = folio_read_in(f, 0, sr->order, hot);
			if (!sr->folio) {
				printf("# split case: out of model memory\n");
				sr->bad++;
				continue;
			}
			sr->nr = nr;
			sr->step = 0;
			split_rule_read();
			split_probe = split_rule_read;
			folio_split_model(f, sr->folio, sr->new_order,
					  sr->split_at);
			split_probe = NULL;
			sr->cases++;
		}
	}
	/* Back to a random file, as files_init() left it. */
	remove_from(f, 0, FILE_MAX_PAGES + MODEL_MAX_NR);
	set_size(f, 8 * (1 + rnd_below(FILE_MAX_PAGES * WORDS_PER_PAGE)));
	op_fill(f);
	pthread_mutex_unlock(&f->lock);
	free(sr->buf);
	sr->buf = NULL;
	/*
	 * Run the threads even with -x: whether the racing reads catch
	 * what this check caught is worth knowing.
	 */
	memcpy(counters, saved, sizeof(saved));
	__atomic_store_n(&stop, saved_stop, __ATOMIC_RELAXED);
	self = NULL;
}

static int run_model(void)
{
	pthread_t *threads;
	unsigned int i, n = opt_readers + opt_adversaries;
	double start = now(), elapsed;
	unsigned long step_bad, step_cases;
	struct split_rule *split = &split_rule;
	struct lru_rule_result lru;
	bool pool_ok;

	files_init();
	lru_rule_check(&lru);
	step_bad = step_rule_check(&step_cases);
	split_rule_check(split);
	threads = calloc(n, sizeof(*threads));
	for (i = 0; i < n; i++) {
		void *(*fn)(void *) = i < opt_readers ? reader_thread :
						       adversary_thread;

		if (pthread_create(&threads[i], NULL, fn, (void *)(long)i)) {
			perror("pthread_create");
			exit(2);
		}
	}
	run_for(opt_duration);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	elapsed = now() - start;
	pool_ok = teardown_check();

	printf("# ran %.2f s, %u readers, %u adversaries, widen %s%s\n",
	       elapsed, opt_readers, opt_adversaries, opt_widen ? "on" : "off",
#ifdef MODEL_NO_DEFER
	       ", MODEL_NO_DEFER"
#else
	       ""
#endif
	       );
	for (i = 0; i < NR_STATUS; i++)
		printf("# status %-12s %lu\n", status_names[i], status_count[i]);
	for (i = 0; i < NR_OPS; i++)
		printf("# op %-10s %lu\n", op_names[i], op_count[i]);
	for (i = 0; i < NR_COUNTERS; i++)
		printf("# counter %-10s %lu\n", counter_names[i], counters[i]);

	printf("# memcg_data %#lx: read as a page count (_nr_pages) %u\n",
	       (unsigned long)&model_memcg, (unsigned int)(long)&model_memcg);
	printf("1..13\n");
	tap(!counters[CNT_FOREIGN] && !counters[CNT_SECRET],
	    "no foreign or secret data copied (%lu foreign, %lu secret words)",
	    counters[CNT_FOREIGN], counters[CNT_SECRET]);
	tap(!counters[CNT_POISON], "no poison copied (%lu words)",
	    counters[CNT_POISON]);
	tap(!counters[CNT_UAF_MAP] && !counters[CNT_UAF_COPY],
	    "no use after free while mapped (%lu free at map, %lu freed during copy)",
	    counters[CNT_UAF_MAP], counters[CNT_UAF_COPY]);
	tap(!counters[CNT_BEYOND_EOF],
	    "no truncated data beyond EOF copied (%lu words)",
	    counters[CNT_BEYOND_EOF]);
	tap(!counters[CNT_HWPOISON],
	    "no read of a page hwpoisoned before the read (%lu)",
	    counters[CNT_HWPOISON]);
	tap(!counters[CNT_BAD_LEN], "copy lengths within the request (%lu bad)",
	    counters[CNT_BAD_LEN]);
	tap(copied_lru_gen[0] && copied_lru_gen[1],
	    "COPIED returned with MGLRU off and on (%lu, %lu)",
	    copied_lru_gen[0], copied_lru_gen[1]);
	tap(status_count[FILEMAP_FAST_CHANGED] > 0,
	    "CHANGED returned: revalidation raced (%lu)",
	    status_count[FILEMAP_FAST_CHANGED]);
	tap(pool_ok, "pool whole and refcounts sane after teardown");
	tap(!lru.bad_lru,
	    "lockless read where, and only where, the slow path would neither mark the folio accessed nor start readahead, MGLRU off and on (%lu of %lu cases wrong)",
	    lru.bad_lru, (unsigned long)LRU_RULE_CASES);
	tap(!lru.bad_dropbehind,
	    "no PG_dropbehind folio read locklessly (%lu of %lu cases)",
	    lru.bad_dropbehind, (unsigned long)LRU_RULE_CASES / 2);
	tap(!step_bad && copied_spans > 0,
	    "a read across folios copies all of it in one call, every order on each side of each step (%lu of %lu cases wrong); valid copies that spanned two folios while the file changed (%lu)",
	    step_bad, step_cases, copied_spans);
	tap(!split->bad && split->garbage && split->copied,
	    "a read across the end of a large folio at every step of a split maps no page outside the folio and copies none but its bytes, orders %u and %u, uniform and buddy-style (%lu of %lu reads wrong, %lu with bytes; %lu of %lu steps in %lu splits with the head's page count beyond the folio)",
	    LARGE_ORDER, MODEL_MAX_ORDER, split->bad, split->reads,
	    split->copied, split->garbage, split->steps, split->cases);
	return tap_failed ? 1 : 0;
}

/*
 * Bench: refcounted read vs filemap_fast_copy(), 1..N threads, for each
 * read length of -l.  Both copy straight into the reader's buffer, as
 * copy_folio_to_iter() and filemap_read_fast() do.
 */

#define BENCH_MAX_LEN	4096	/* PAGE_SIZE: the folio at index 0 */
#define BENCH_MAX_LENS	16

static struct model_file *bench_file;
static int bench_mode;		/* 0: refcount, 1: rcu */
static size_t bench_len;
static size_t bench_lens[BENCH_MAX_LENS] = { 16, 64, 256, 512 };
static unsigned int bench_nlens = 4;

struct bench_arg {
	unsigned long ops;
};

static void *bench_thread(void *arg)
{
	struct bench_arg *ba = arg;
	struct address_space *mapping = &bench_file->mapping;
	struct model_thread t;
	u64 buf[BENCH_MAX_LEN / 8], out[BENCH_MAX_LEN / 8];
	size_t want = bench_len;
	unsigned long ops = 0;

	thread_init(&t, 5000);
	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (bench_mode == 0) {
			XA_STATE(xas, &mapping->i_pages, 0);
			struct folio *folio;
			void *kaddr;

			/* filemap_get_entry() + copy + folio_put(). */
			rcu_read_lock();
			do {
				xas_reset(&xas);
				folio = xas_load(&xas);
				if (!folio || xa_is_value(folio) ||
				    !folio_try_get_model(folio)) {
					folio = NULL;
					break;
				}
				if (folio != xas_reload(&xas)) {
					folio_put_model(folio);
					continue;
				}
				break;
			} while (1);
			rcu_read_unlock();
			if (!folio)
				continue;
			kaddr = kmap_local_page(folio_page(folio, 0));
			memcpy(out, kaddr, want);
			kunmap_local(kaddr);
			folio_put_model(folio);
			ops++;
		} else {
			enum filemap_fast_status status;
			size_t len;

			rcu_read_lock();
			status = model_fast_copy(mapping, 0, -1, out, want,
						 SIZE_MAX, &len);
			rcu_read_unlock();
			if (status != FILEMAP_FAST_COPIED)
				continue;
			ops++;
		}
		/* the copies are the work: keep the compiler from dropping them */
		asm volatile("" : : "r"(out), "r"(buf) : "memory");
	}
	rcu_unregister_thread();
	ba->ops = ops;
	return NULL;
}

/* One CSV line: n threads reading bench_len bytes in bench_mode. */
static int bench_point(unsigned int n)
{
	pthread_t th[n];
	struct bench_arg ba[n];
	unsigned long ops = 0;
	double start, secs;
	unsigned int i;

	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	start = now();
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, bench_thread, &ba[i]);
	run_for(opt_duration);
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		ops += ba[i].ops;
	}
	secs = now() - start;
	printf("%s,%u,%zu,%lu,%.3f,%.0f\n", bench_mode ? "rcu" : "refcount",
	       n, bench_len, ops, secs, ops / secs);
	fflush(stdout);
	return ops ? 0 : 1;
}

static int run_bench(void)
{
	unsigned int n, l, max = opt_readers;
	struct folio *folio;
	struct model_thread t;

	opt_widen = false;
	files_init();
	thread_init(&t, 4999);
	bench_file = &files[0];
	folio = mapping_lookup(bench_file, 0);
	if (!folio)
		folio = folio_read_in(bench_file, 0, 0, 0);
	__atomic_or_fetch(&folio->flags.f, MODEL_HOT_FLAGS, __ATOMIC_RELEASE);
	__atomic_and_fetch(&folio->flags.f, ~(1UL << PG_readahead),
			   __ATOMIC_RELEASE);
	if (i_size_read(&bench_file->inode) < BENCH_MAX_LEN)
		set_size(bench_file, PAGE_SIZE);

	printf("mode,threads,len,ops,seconds,ops_per_sec\n");
	for (l = 0; l < bench_nlens; l++) {
		bench_len = bench_lens[l];
		for (bench_mode = 0; bench_mode < 2; bench_mode++)
			for (n = 1; n <= max; n++)
				if (bench_point(n))
					return 1;
	}
	self = NULL;
	return 0;
}

/* -l 16,64,...: read lengths of the bench, 1..BENCH_MAX_LEN each. */
static bool parse_lens(const char *arg)
{
	const char *p = arg;
	char *end;

	bench_nlens = 0;
	do {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || !v || v > BENCH_MAX_LEN ||
		    bench_nlens == BENCH_MAX_LENS || (*end && *end != ','))
			return false;
		bench_lens[bench_nlens++] = v;
		p = end + 1;
	} while (*end);
	return true;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s seed] [-d seconds] [-t readers] [-a adversaries]\n"
		"          [-w 0|1] [-x] [-v] [-b [-l len,...]]\n"
		"  -s  random seed (default: time)\n"
		"  -d  duration in seconds (bench: per point; default 10, bench 1)\n"
		"  -t  reader threads (bench: up to this many; default 4, bench nproc)\n"
		"  -a  adversary threads (default 2)\n"
		"  -w  widen race windows with random delays (default 1)\n"
		"  -x  stop at the first data or use-after-free error\n"
		"  -v  print bad copies\n"
		"  -b  bench: refcount vs RCU read, CSV\n"
		"  -l  bench read lengths, 1..%d bytes each (default 16,64,256,512)\n",
		prog, BENCH_MAX_LEN);
	exit(2);
}

int main(int argc, char **argv)
{
	bool have_d = false, have_t = false;
	int opt, ret;

	opt_seed = time(NULL);
	while ((opt = getopt(argc, argv, "s:d:t:a:w:xvbl:h")) != -1) {
		switch (opt) {
		case 's':
			opt_seed = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			opt_duration = strtod(optarg, NULL);
			have_d = true;
			break;
		case 't':
			opt_readers = strtoul(optarg, NULL, 0);
			have_t = true;
			break;
		case 'a':
			opt_adversaries = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			opt_widen = strtoul(optarg, NULL, 0);
			break;
		case 'x':
			opt_stop_on_error = true;
			break;
		case 'v':
			opt_verbose = true;
			break;
		case 'b':
			opt_bench = true;
			break;
		case 'l':
			if (!parse_lens(optarg)) {
				fprintf(stderr,
					"-l wants at most %d lengths of 1..%d bytes, comma-separated, not '%s'\n",
					BENCH_MAX_LENS, BENCH_MAX_LEN, optarg);
				exit(2);
			}
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (opt_bench) {
		if (!have_d)
			opt_duration = 1;
		if (!have_t)
			opt_readers = sysconf(_SC_NPROCESSORS_ONLN);
	}
	if (!opt_readers || opt_duration <= 0)
		print_usage(argv[0]);

	if (!opt_bench) {
		printf("TAP version 13\n");
		printf("# seed %lu\n", opt_seed);
	} else {
		fprintf(stderr, "# seed %lu\n", opt_seed);
	}
	fflush(stdout);

	rcu_register_thread();
	radix_tree_init();
	pool_init();
	ret = opt_bench ? run_bench() : run_model();
	rcu_unregister_thread();
	return ret;
}

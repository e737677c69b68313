/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model struct page / struct folio and the hooks that the shim headers
 * call into.  Shared by the shim headers (and so by mm/filemap_fast.h)
 * and by model.c.
 */
#ifndef __MODEL_MM_H
#define __MODEL_MM_H

#include <stddef.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/compiler.h>
#include <urcu.h>
#include <urcu/list.h>

/* tools/include has no pgoff_t (include/linux/types.h typedefs it). */
typedef unsigned long pgoff_t;

#ifndef PAGE_SIZE
#define PAGE_SIZE	BIT(PAGE_SHIFT)
#endif
#ifndef PAGE_MASK
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#endif
#ifndef offset_in_page
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)
#endif

/*
 * enum pageflags of Linux 7.3 on x86_64 (CONFIG_MMU, CONFIG_MEMORY_FAILURE,
 * CONFIG_PAGE_IDLE_FLAG, CONFIG_PAGECACHE_RCU_FREE), at the kernel's bit
 * numbers: the low byte of page 1's flags word is also the order of a
 * large folio, so a split that clones the head's flags into page 1 leaves
 * the order that the head's low flag bits spell.  The model uses a subset.
 */
enum pageflags {
	PG_locked,
	PG_writeback,
	PG_referenced,
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_head,
	PG_waiters,
	PG_active,
	PG_workingset,
	PG_owner_priv_1,
	PG_owner_2,
	PG_arch_1,
	PG_reserved,
	PG_private,
	PG_private_2,
	PG_reclaim,
	PG_swapbacked,
	PG_unevictable,
	PG_dropbehind,
	PG_mlocked,
	PG_hwpoison,
	PG_young,
	PG_idle,
	PG_rcu_free,
	__NR_PAGEFLAGS,

	PG_readahead = PG_reclaim,
};

#define PAGEFLAGS_MASK		(BIT(__NR_PAGEFLAGS) - 1)

/*
 * The model is built for a kernel with MGLRU (CONFIG_LRU_GEN), switched on
 * and off at run time by lru_gen_enabled() (shim linux/mm_inline.h).  Its
 * tier counter lives in the flags word above the flags, as LRU_REFS_PGOFF
 * places it in the kernel, and is 2 bits wide, MAX_NR_TIERS - 2 as there;
 * LRU_REFS_FLAGS as in include/linux/mmzone.h.
 */
#define CONFIG_LRU_GEN		1
#define LRU_REFS_WIDTH		2
#define LRU_REFS_PGOFF		(BITS_PER_LONG - LRU_REFS_WIDTH)
#define LRU_REFS_MASK		((BIT(LRU_REFS_WIDTH) - 1) << LRU_REFS_PGOFF)
#define LRU_REFS_FLAGS		(LRU_REFS_MASK | BIT(PG_referenced))
static_assert(__NR_PAGEFLAGS <= LRU_REFS_PGOFF, "LRU_REFS above the flags");

/* page-flags.h: what a page must not have when the allocator hands it out. */
#define PAGE_FLAGS_CHECK_AT_PREP \
	((PAGEFLAGS_MASK & ~BIT(PG_hwpoison)) | LRU_REFS_MASK)

/* The flags word of struct page and struct folio, as in mm_types.h. */
typedef struct {
	unsigned long f;
} memdesc_flags_t;

/* Allocation state of a model page (model only, not in the kernel). */
enum model_page_state {
	MODEL_PAGE_FREE,	/* on a free list, data poisoned */
	MODEL_PAGE_ALLOCATED,	/* owned, possibly waiting for RCU */
};

struct address_space;

/*
 * 7.3 defines NR_PAGES_IN_LARGE_FOLIO with CONFIG_MEMCG: a large folio's
 * page count is then _nr_pages, which shares page 1's memcg_data word;
 * without it, folio_nr_pages() is 1 << the order in page 1's flags.  The
 * model follows x86_64 with CONFIG_MEMCG unless built with
 * -DMODEL_NO_NR_PAGES.
 */
#ifndef MODEL_NO_NR_PAGES
#define NR_PAGES_IN_LARGE_FOLIO
#endif

/*
 * The first 64 bytes are struct page of 7.3 on x86_64 with CONFIG_MEMCG,
 * word for word, so that struct folio below lays page 1's fields over
 * them as the kernel does.
 */
struct page {
	memdesc_flags_t flags;
	unsigned long compound_info;	/* lru.next; a tail's head | 1 */
	unsigned long _lru_prev;	/* lru.prev */
	struct address_space *mapping;
	pgoff_t index;
	void *private;
	int _mapcount;
	int _refcount;
	unsigned long memcg_data;
	/* Model bookkeeping below. */
	struct rcu_head rcu_head;	/* deferred free of PG_rcu_free */
	struct cds_list_head lru;	/* free list */
	unsigned long gen;		/* bumped whenever freed */
	int state;			/* enum model_page_state */
	unsigned int free_order;	/* order of the free block (head) */
	unsigned long hwpoison_seq;	/* model clock when poisoned */
};

/*
 * As in mm_types.h: the head page's fields, then page 1's, where the
 * large folio keeps its order (low byte of _flags_1) and page count
 * (_nr_pages, in page 1's memcg_data word).  A split rewrites both
 * while the folio is still in the page cache.
 */
struct folio {
	union {
		struct {
			memdesc_flags_t flags;
			unsigned long _lru[2];
			struct address_space *mapping;
			pgoff_t index;
			void *private;
			int _mapcount;
			int _refcount;
			unsigned long memcg_data;
		};
		struct page page;
	};
	union {
		struct {
			unsigned long _flags_1;
			unsigned long _head_1;
			unsigned long _usable_1[4];
			int _mapcount_1;
			int _refcount_1;
#ifdef NR_PAGES_IN_LARGE_FOLIO
			unsigned int _nr_pages;
#endif
		};
		struct page __page_1;
	};
};

#define FOLIO_MATCH(pg, fl) \
	static_assert(offsetof(struct page, pg) == offsetof(struct folio, fl), \
		      "folio/page layout " #pg)
FOLIO_MATCH(flags, flags);
FOLIO_MATCH(compound_info, _lru);
FOLIO_MATCH(mapping, mapping);
FOLIO_MATCH(index, index);
FOLIO_MATCH(private, private);
FOLIO_MATCH(_mapcount, _mapcount);
FOLIO_MATCH(_refcount, _refcount);
FOLIO_MATCH(memcg_data, memcg_data);
#undef FOLIO_MATCH
#define FOLIO_MATCH(pg, fl) \
	static_assert(offsetof(struct folio, fl) == \
		      sizeof(struct page) + offsetof(struct page, pg), \
		      "folio/page 1 layout " #pg)
FOLIO_MATCH(flags, _flags_1);
FOLIO_MATCH(compound_info, _head_1);
FOLIO_MATCH(_mapcount, _mapcount_1);
FOLIO_MATCH(_refcount, _refcount_1);
#ifdef NR_PAGES_IN_LARGE_FOLIO
/* 64-bit little-endian: _nr_pages is the low half of page 1's memcg_data. */
FOLIO_MATCH(memcg_data, _nr_pages);
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	      "_nr_pages is the low half of memcg_data");
#endif
#undef FOLIO_MATCH
static_assert(offsetof(struct page, memcg_data) == 56, "7.3 struct page");
static_assert(sizeof(struct folio) == 2 * sizeof(struct page), "folio size");

/* Places where the model may widen a race window. */
enum model_window_site {
	MW_FLAG_TEST,
	MW_UPTODATE,
	MW_ISIZE,
	MW_KMAP,
	MW_KUNMAP,
	MW_RMB,
	MW_ADVERSARY,
	MW_NR_SITES,
};

#ifdef MODEL_BENCH_BUILD
/*
 * The bench build times the protocol, not the hooks that widen its race
 * windows (the bench never widens them): the lockless read passes six
 * more of them than the reference-counted one, each a call.
 */
static inline void model_window(enum model_window_site site)
{
}

static inline void model_large_nr(unsigned long nr)
{
}
#else
void model_window(enum model_window_site site);
/* A reader read a large folio's page count: count the wild ones. */
void model_large_nr(unsigned long nr);
#endif
void *model_kmap(struct page *page);
void model_kunmap(const void *addr);

static inline struct page *folio_page(struct folio *folio, unsigned long n)
{
	return &folio->page + n;
}

static inline struct folio *page_folio_raw(struct page *page)
{
	return (struct folio *)page;
}

#endif /* __MODEL_MM_H */

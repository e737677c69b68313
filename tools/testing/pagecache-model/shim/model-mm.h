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

/* The subset of enum pageflags that the model uses. */
enum pageflags {
	PG_locked,
	PG_referenced,
	PG_active,
	PG_workingset,
	PG_unevictable,
	PG_dropbehind,
	PG_uptodate,
	PG_head,
	PG_readahead,
	PG_hwpoison,
	PG_idle,
	PG_rcu_free,
	__NR_PAGEFLAGS,
};

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

struct page {
	memdesc_flags_t flags;
	struct address_space *mapping;
	pgoff_t index;
	int _refcount;
	unsigned int order;		/* of the folio, valid if PG_head */
	void *private;
	/* Model bookkeeping below. */
	struct rcu_head rcu_head;	/* deferred free of PG_rcu_free */
	struct cds_list_head lru;	/* free list */
	unsigned long gen;		/* bumped whenever freed */
	int state;			/* enum model_page_state */
	unsigned int free_order;	/* order of the free block (head) */
	unsigned long hwpoison_seq;	/* model clock when poisoned */
};

struct folio {
	union {
		struct {
			memdesc_flags_t flags;
			struct address_space *mapping;
			pgoff_t index;
			int _refcount;
			unsigned int _order;
			void *private;
		};
		struct page page;
	};
};

#define FOLIO_MATCH(pg, fl) \
	static_assert(offsetof(struct page, pg) == offsetof(struct folio, fl), \
		      "folio/page layout " #pg)
FOLIO_MATCH(flags, flags);
FOLIO_MATCH(mapping, mapping);
FOLIO_MATCH(index, index);
FOLIO_MATCH(_refcount, _refcount);
FOLIO_MATCH(order, _order);
FOLIO_MATCH(private, private);
#undef FOLIO_MATCH
static_assert(sizeof(struct folio) == sizeof(struct page), "folio size");

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
#else
void model_window(enum model_window_site site);
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

/* SPDX-License-Identifier: GPL-2.0 */
/* Model shim: the folio flag tests that mm/filemap_fast.h uses. */
#ifndef _LINUX_PAGE_FLAGS_H
#define _LINUX_PAGE_FLAGS_H

#include <linux/bitops.h>
#include "model-mm.h"

/*
 * The flag tests go through one place so that the model can widen the
 * window before them.  Atomic loads keep ThreadSanitizer quiet about the
 * flag words, which adversaries change with atomic RMW operations.
 */
static inline bool model_test_flag(unsigned long nr, const unsigned long *p,
				   int memorder)
{
	return (__atomic_load_n(p, memorder) >> nr) & 1;
}

static inline bool test_bit_acquire(unsigned long nr, const unsigned long *addr)
{
	model_window(MW_FLAG_TEST);
	return model_test_flag(nr, addr, __ATOMIC_ACQUIRE);
}

/* folio_test_uptodate() orders later reads after the flag (smp_rmb()). */
static inline bool folio_test_uptodate(const struct folio *folio)
{
	model_window(MW_UPTODATE);
	return model_test_flag(PG_uptodate, &folio->flags.f, __ATOMIC_ACQUIRE);
}

#define MODEL_FOLIO_TEST(name, bit)					\
static inline bool folio_test_##name(const struct folio *folio)	\
{									\
	return model_test_flag(bit, &folio->flags.f, __ATOMIC_RELAXED);	\
}

MODEL_FOLIO_TEST(referenced, PG_referenced)
MODEL_FOLIO_TEST(active, PG_active)
MODEL_FOLIO_TEST(workingset, PG_workingset)
MODEL_FOLIO_TEST(unevictable, PG_unevictable)
MODEL_FOLIO_TEST(dropbehind, PG_dropbehind)
MODEL_FOLIO_TEST(readahead, PG_readahead)
MODEL_FOLIO_TEST(rcu_free, PG_rcu_free)
MODEL_FOLIO_TEST(large, PG_head)
MODEL_FOLIO_TEST(locked, PG_locked)
/* CONFIG_PAGE_IDLE_FLAG on 64-bit: PG_idle is a page flag. */
MODEL_FOLIO_TEST(idle, PG_idle)
#undef MODEL_FOLIO_TEST

static inline bool PageHWPoison(const struct page *page)
{
	return model_test_flag(PG_hwpoison, &page->flags.f, __ATOMIC_RELAXED);
}

/*
 * include/linux/mm.h: the order is the low byte of page 1's flags, the
 * page count (NR_PAGES_IN_LARGE_FOLIO) page 1's memcg_data word.  Read
 * without a reference, both can be whatever a concurrent split left.
 */
static inline unsigned int folio_large_order(const struct folio *folio)
{
	return __atomic_load_n(&folio->_flags_1, __ATOMIC_RELAXED) & 0xff;
}

static inline unsigned long folio_large_nr_pages(const struct folio *folio)
{
#ifdef NR_PAGES_IN_LARGE_FOLIO
	unsigned long nr = __atomic_load_n(&folio->_nr_pages, __ATOMIC_RELAXED);
#else
	unsigned long nr = 1L << folio_large_order(folio);
#endif

	model_large_nr(nr);
	return nr;
}

static inline unsigned int folio_order(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return 0;
	return folio_large_order(folio);
}

static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return 1;
	return folio_large_nr_pages(folio);
}

#endif /* _LINUX_PAGE_FLAGS_H */

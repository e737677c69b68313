/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading hot page cache folios without taking a folio reference.
 *
 * This is the lookup, copy and revalidation core of filemap_read_fast()
 * in mm/filemap.c.  It only uses the XArray, folio flag and i_size
 * helpers and copy_page_to_iter_nofault(), so that a userspace model can
 * build the same code with a few shims.
 *
 * The protocol relies on PG_rcu_free (see mm/rcu_free.c): a folio that
 * is seen with the flag set inside an RCU read-side critical section is
 * not handed back to the page allocator before that section ends.  It may
 * still be removed from the page cache, migrated, split or truncated
 * meanwhile, so the data copied here is only valid if the revalidation
 * at the end succeeds.
 */
#ifndef __MM_FILEMAP_FAST_H
#define __MM_FILEMAP_FAST_H

#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm_inline.h>
#include <linux/page_idle.h>
#include <linux/page-flags.h>
#include <linux/pagemap.h>
#include <linux/uio.h>
#include <linux/xarray.h>

enum filemap_fast_status {
	FILEMAP_FAST_COPIED,		/* @iter got valid file data */
	FILEMAP_FAST_EOF,		/* @pos is at or beyond i_size */
	FILEMAP_FAST_NOT_FOUND,		/* hole, shadow entry or retry */
	FILEMAP_FAST_NOT_HOT,		/* not PG_rcu_free, readahead, to mark */
	FILEMAP_FAST_NOT_UPTODATE,	/* not uptodate, or hwpoisoned page */
	FILEMAP_FAST_CHANGED,		/* revalidation failed */
	FILEMAP_FAST_FAULT,		/* fault on @iter, part copied */
};

/*
 * Would folio_mark_accessed() leave @folio as it is?  The lockless read
 * does not call it, so it may only serve a read that would not change the
 * folio's LRU state on the slow path either.  Reclaim aging takes these
 * bits away again, so that the next read goes the slow way and marks the
 * folio.  Must agree with folio_mark_accessed() and lru_gen_inc_refs().
 */
static inline bool filemap_fast_accessed(const struct folio *folio)
{
	unsigned long flags = READ_ONCE(folio->flags.f);

#ifdef CONFIG_LRU_GEN
	/*
	 * lru_gen_inc_refs(): PG_referenced first, then LRU_REFS_MASK up to
	 * its maximum, then PG_workingset.  Only when all of them are set
	 * does it change nothing.
	 */
	if (lru_gen_enabled())
		return (flags & BIT(PG_unevictable)) ||
		       (flags & (LRU_REFS_FLAGS | BIT(PG_workingset))) ==
		       (LRU_REFS_FLAGS | BIT(PG_workingset));
#endif
	return (flags & BIT(PG_referenced)) &&
	       (flags & (BIT(PG_active) | BIT(PG_unevictable))) &&
	       !folio_test_idle(folio);
}

/*
 * Does the page cache map @index to @folio?  A folio is only ever stored
 * at indices it covered when it was added: a split stores the new folios
 * over the old one's slots, a collapse stores a new folio.  So if it does,
 * the page at @index is memory of @folio at @index in this file, whatever
 * a concurrent split has written to the tail pages so far.
 */
static inline bool filemap_fast_maps(struct address_space *mapping,
				     pgoff_t index, const struct folio *folio)
{
	XA_STATE(xas, &mapping->i_pages, index);

	return xas_load(&xas) == folio;
}

/*
 * Steps 2-8 of filemap_fast_copy() for the folio that @xas found at the
 * index of @pos: copy at most @len bytes, to the end of the folio or to
 * i_size, and set *@copied to the valid ones.
 */
static inline enum filemap_fast_status
filemap_fast_copy_folio(struct address_space *mapping, struct xa_state *xas,
			struct folio *folio, loff_t pos, loff_t marked,
			struct iov_iter *iter, size_t len, size_t *copied)
{
	struct inode *inode = mapping->host;
	pgoff_t index = pos >> PAGE_SHIFT;
	size_t offset = offset_in_page(pos);
	enum filemap_fast_status status = FILEMAP_FAST_COPIED;
	unsigned long delta, nr;
	pgoff_t first, last;
	size_t done = 0;
	loff_t isize;

	*copied = 0;
	if (xas_retry(xas, folio) || !folio || xa_is_value(folio) ||
	    xa_is_sibling(folio))
		return FILEMAP_FAST_NOT_FOUND;

	/*
	 * Until the flag is seen, @folio may be any struct page, possibly
	 * freed and reused as a tail page: test the bit directly, without
	 * the folio flag helpers' debug checks.
	 */
	if (!test_bit_acquire(PG_rcu_free, &folio->flags.f))
		return FILEMAP_FAST_NOT_HOT;
	if (unlikely(xas_reload(xas) != folio))
		return FILEMAP_FAST_CHANGED;

	if (!folio_test_uptodate(folio))
		return FILEMAP_FAST_NOT_UPTODATE;
	/*
	 * The slow path must start readahead, or drop a PG_dropbehind
	 * folio after the read.
	 */
	if (folio_test_readahead(folio) || folio_test_dropbehind(folio))
		return FILEMAP_FAST_NOT_HOT;

	/*
	 * Step 5.  The size is not stable: a split rewrites it (page 1's
	 * memcg_data or flags) while the folio is still in the XArray.  It is
	 * trusted below only as far as filemap_fast_maps() confirms it.
	 */
	first = READ_ONCE(folio->index);
	nr = folio_nr_pages(folio);
	if (!(marked >= 0 && (pgoff_t)(marked >> PAGE_SHIFT) - first < nr) &&
	    !filemap_fast_accessed(folio))
		return FILEMAP_FAST_NOT_HOT;

	delta = index - first;
	if (delta >= nr)
		return FILEMAP_FAST_CHANGED;

	isize = i_size_read(inode);
	if (pos >= isize)
		return FILEMAP_FAST_EOF;
	len = min_t(loff_t, len, isize - pos);
	if ((offset + len - 1) >> PAGE_SHIFT >= nr - delta)
		len = ((nr - delta) << PAGE_SHIFT) - offset;
	/*
	 * The index of step 3 and @last are both in the range the folio
	 * covered when it was added, and so is every index between them.
	 */
	last = index + ((offset + len - 1) >> PAGE_SHIFT);
	if (last != index && !filemap_fast_maps(mapping, last, folio))
		return FILEMAP_FAST_CHANGED;

	while (done < len) {
		struct page *page = folio_page(folio, delta);
		size_t n = min_t(size_t, len - done, PAGE_SIZE - offset);
		size_t ret;

		if (PageHWPoison(page)) {
			status = FILEMAP_FAST_NOT_UPTODATE;
			break;
		}
		ret = copy_page_to_iter_nofault(page, offset, n, iter);
		done += ret;
		if (ret < n) {
			status = FILEMAP_FAST_FAULT;
			break;
		}
		delta++;
		offset = 0;
	}

	/* Order the data reads before the checks. */
	smp_rmb();
	if (xas_reload(xas) != folio ||
	    READ_ONCE(folio->mapping) != mapping ||
	    !folio_test_uptodate(folio) || i_size_read(inode) != isize) {
		iov_iter_revert(iter, done);
		return FILEMAP_FAST_CHANGED;
	}
	if (status == FILEMAP_FAST_NOT_UPTODATE) {
		iov_iter_revert(iter, done);
		return status;
	}
	/* The copy ended at i_size: there is no next folio to read. */
	if (status == FILEMAP_FAST_COPIED && pos + done == isize)
		status = FILEMAP_FAST_EOF;
	*copied = done;
	return status;
}

/**
 * filemap_fast_copy - Copy page cache data without a folio reference.
 * @mapping: The address_space to read from.
 * @pos: File position to read at.
 * @marked: A file position whose folio the caller's slow path would not
 *	mark accessed again if it read @pos, or -1.
 * @iter: Destination of the data.
 * @len: Maximum number of bytes to copy, not more than @iter holds.
 * @copied: Set to the number of valid bytes copied to @iter.
 *
 * Copies from the folio that contains @pos, and from the folios after it
 * while @len is not reached, never beyond i_size, directly to @iter.  The
 * steps, 2-8 for each folio:
 *
 * 1. Look up the folio at the index of @pos.
 * 2. Require PG_rcu_free, read with acquire semantics, so that the tests
 *    below are ordered after it.
 * 3. Reload the index and require the same folio.  The memory is then
 *    this file's folio at that index, and stays allocated, and so this
 *    file's, until rcu_read_unlock(): a folio that was in the page cache
 *    after this RCU read-side critical section began, and had the flag,
 *    goes back to the allocator only after a grace period.  If it was
 *    freed and reused since step 1, its new use had the flag at step 2
 *    and is this file's folio at this index at step 3, with the same
 *    guarantee.  A split gives every new folio the flag.
 * 4. Require uptodate (which orders the reads below after it), no
 *    PG_readahead (the slow path must start readahead) and no
 *    PG_dropbehind (it must drop the folio after the read), and that the
 *    slow path would not mark the folio accessed: it already did for the
 *    folio of @marked, or folio_mark_accessed() would change nothing.
 * 5. Read the folio's index and size; take the page at the index from
 *    them.  The size is not to be trusted: a split to a lower order
 *    (__split_folio_to_order()) rewrites it (page 1's memcg_data holds
 *    _nr_pages, or page 1's flags the order) while the old folio still
 *    fills every slot of its range.  So clamp the length to the size,
 *    then, if the copy goes beyond the page at the index, require that
 *    the XArray maps the index of its last page to the folio.  A folio
 *    is only ever stored at indices it covered when it was added; the
 *    index of step 3 and the last one are both among them, so every
 *    page in between is memory of the folio of step 3, at its index in
 *    this file, and stays allocated like it, whatever the split has
 *    written to the tail pages.
 * 6. Read i_size after the uptodate check and clamp the length.
 * 7. Copy to @iter page by page, with page faults disabled; stop at a
 *    hwpoisoned page or at a fault on the destination.  Only bytes of
 *    this file reach @iter: stale ones if a truncate, hole punch or
 *    overwrite races with the copy, never another file's.
 * 8. Revalidate: the same folio is still at the index, still belongs to
 *    @mapping, is still uptodate, and i_size did not change.  Otherwise
 *    revert this folio's bytes from @iter: the caller's slow path copies
 *    them again.  The bytes of the folios before it stay: each passed its
 *    own revalidation.
 * 9. If the copy reached the end of the folio, neither @len nor i_size,
 *    step the XArray state to the next index (xas_next(), no new walk
 *    from the root, as filemap_get_read_batch() does) and go to step 2.
 *
 * Context: rcu_read_lock() must be held.
 * Return: FILEMAP_FAST_COPIED if @len bytes were copied, or
 * FILEMAP_FAST_EOF if the copy reached i_size (or @pos is beyond it);
 * otherwise why the rest of the range should go the reference-counted
 * way (FILEMAP_FAST_FAULT: a fault on @iter).  *@copied bytes are valid
 * in every case.
 */
static inline enum filemap_fast_status
filemap_fast_copy(struct address_space *mapping, loff_t pos, loff_t marked,
		  struct iov_iter *iter, size_t len, size_t *copied)
{
	XA_STATE(xas, &mapping->i_pages, pos >> PAGE_SHIFT);
	enum filemap_fast_status status;
	struct folio *folio;
	size_t done = 0, n;

	folio = xas_load(&xas);
	for (;;) {
		status = filemap_fast_copy_folio(mapping, &xas, folio,
						 pos + done, marked, iter,
						 len - done, &n);
		done += n;
		if (status != FILEMAP_FAST_COPIED || done == len)
			break;
		/* Step 9: the copy ended at the end of the folio. */
		xas_advance(&xas, ((pos + done) >> PAGE_SHIFT) - 1);
		folio = xas_next(&xas);
	}
	*copied = done;
	return status;
}

#endif /* __MM_FILEMAP_FAST_H */

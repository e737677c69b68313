/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model shim: a user-space destination for filemap_fast_copy().  The
 * buffer is the "user buffer" of a read: every byte that reaches it, even
 * one that is reverted afterwards, is visible to other threads, so the
 * model checks all of them.  @fault_at injects a fault: the copy of a
 * chunk that would write at or beyond it fails as a whole, as
 * copy_to_user_nofault() does.
 */
#ifndef _LINUX_UIO_H
#define _LINUX_UIO_H

#include <linux/types.h>
#include <string.h>
#include <assert.h>
#include <linux/highmem.h>
#include "model-mm.h"

struct iov_iter {
	char *buf;
	size_t off;		/* bytes written and not reverted */
	size_t count;		/* bytes left */
	size_t fault_at;	/* first offset that faults */
};

static inline size_t iov_iter_count(const struct iov_iter *i)
{
	return i->count;
}

static inline void iov_iter_revert(struct iov_iter *i, size_t bytes)
{
	assert(bytes <= i->off);
	i->off -= bytes;
	i->count += bytes;
}

/* Like lib/iov_iter.c, for a chunk within one page, as the caller uses it. */
static inline size_t copy_page_to_iter_nofault(struct page *page,
					       unsigned int offset,
					       size_t bytes, struct iov_iter *i)
{
	void *kaddr;

	assert(offset + bytes <= PAGE_SIZE);
	if (bytes > i->count)
		bytes = i->count;
	if (i->off + bytes > i->fault_at)
		return 0;
	kaddr = kmap_local_page(page);
	memcpy(i->buf + i->off, (char *)kaddr + offset, bytes);
	kunmap_local(kaddr);
	i->off += bytes;
	i->count -= bytes;
	return bytes;
}

#endif /* _LINUX_UIO_H */

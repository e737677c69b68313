// SPDX-License-Identifier: GPL-2.0
/*
 * Build mm/filemap_fast.h (or a mutant copy of it, see mutants/) out of
 * line, so that model.c calls exactly that code.  FILEMAP_FAST_H names
 * the header; model.h includes it.
 */
#include "shared.h"
#include "model.h"

/*
 * Read at most @len bytes at @pos into @buf as filemap_read_fast() reads
 * into a user buffer: filemap_fast_copy() writes there directly.  A copy
 * that would write at or beyond @fault_at faults.
 */
enum filemap_fast_status model_fast_copy(struct address_space *mapping,
					 loff_t pos, loff_t marked, void *buf,
					 size_t len, size_t fault_at,
					 size_t *copied)
{
	struct iov_iter iter = {
		.buf = buf, .count = len, .fault_at = fault_at,
	};
	enum filemap_fast_status status;

	status = filemap_fast_copy(mapping, pos, marked, &iter, len, copied);
	assert(iter.off == *copied);
	return status;
}

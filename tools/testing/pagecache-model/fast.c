// SPDX-License-Identifier: GPL-2.0
/*
 * Build mm/filemap_fast.h (or a mutant copy of it, see mutants/) out of
 * line, so that model.c calls exactly that code.  FILEMAP_FAST_H names
 * the header; model.h includes it.
 */
#include "shared.h"
#include "model.h"

enum filemap_fast_status model_fast_copy(struct address_space *mapping,
					 loff_t pos, loff_t marked, void *buf,
					 size_t len, size_t *copied)
{
	return filemap_fast_copy(mapping, pos, marked, buf, len, copied);
}

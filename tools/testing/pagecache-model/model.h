/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PAGECACHE_MODEL_H
#define __PAGECACHE_MODEL_H

#include <linux/fs.h>

#ifndef FILEMAP_FAST_H
#error "FILEMAP_FAST_H must name the filemap_fast.h to build"
#endif
#include FILEMAP_FAST_H

/* fast.c: mm/filemap_fast.h (or a mutant of it) built out of line. */
enum filemap_fast_status model_fast_copy(struct address_space *mapping,
					 loff_t pos, loff_t marked, void *buf,
					 size_t len, size_t fault_at,
					 size_t *copied);

#endif /* __PAGECACHE_MODEL_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* Model shim: page cache helpers for mm/filemap_fast.h. */
#ifndef _LINUX_PAGEMAP_H
#define _LINUX_PAGEMAP_H

#include <linux/fs.h>
#include <linux/page-flags.h>
#include <asm/barrier.h>

#ifdef smp_rmb
#undef smp_rmb
#endif

/*
 * Stands for the kernel's smp_rmb() in filemap_fast_copy(): the reads of
 * the folio data by the copy are ordered before the reads that revalidate
 * the folio (xarray slot, mapping, uptodate flag, i_size).  The acquire
 * fence is that read barrier in C11 terms; on x86 it is a compiler
 * barrier, like tools/include's smp_rmb(), which is enough there for
 * loads.  The model widens the race window there too.
 */
#define smp_rmb()					\
	do {						\
		__atomic_thread_fence(__ATOMIC_ACQUIRE);\
		model_window(MW_RMB);			\
	} while (0)

#endif /* _LINUX_PAGEMAP_H */

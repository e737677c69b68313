/* SPDX-License-Identifier: GPL-2.0 */
/* Model shim: page cache helpers for mm/filemap_fast.h. */
#ifndef _LINUX_PAGEMAP_H
#define _LINUX_PAGEMAP_H

#include <linux/fs.h>
#include <linux/page-flags.h>
#include <asm/barrier.h>

/*
 * smp_rmb() separates the copy from the revalidation: widen the window
 * there.  The barrier itself stays what tools/include gives (a compiler
 * barrier on x86, which is enough there for loads).
 */
#ifdef smp_rmb
#undef smp_rmb
#endif
#define smp_rmb()					\
	do {						\
		__atomic_thread_fence(__ATOMIC_ACQUIRE);\
		model_window(MW_RMB);			\
	} while (0)

#endif /* _LINUX_PAGEMAP_H */

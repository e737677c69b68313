/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model shim: mm/filemap_fast.h includes this for its LRU tests, which
 * the model's page-flags.h provides (the model has no MGLRU).
 */
#ifndef _LINUX_MM_INLINE_H
#define _LINUX_MM_INLINE_H

#include <linux/page-flags.h>

#endif

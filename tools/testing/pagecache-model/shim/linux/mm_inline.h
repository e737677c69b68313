/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model shim: lru_gen_enabled(), which mm/filemap_fast.h tests.  In the
 * kernel it is a static key that /sys/kernel/mm/lru_gen/enabled switches
 * at run time; in the model, model_lru_gen (model.c), which the model
 * switches while readers run.  LRU_REFS_* are in model-mm.h.
 */
#ifndef _LINUX_MM_INLINE_H
#define _LINUX_MM_INLINE_H

#include <linux/page-flags.h>

extern int model_lru_gen;

static inline bool lru_gen_enabled(void)
{
	return __atomic_load_n(&model_lru_gen, __ATOMIC_RELAXED);
}

#endif

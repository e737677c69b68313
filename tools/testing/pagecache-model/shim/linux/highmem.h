/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model shim: kmap_local_page() and kunmap_local() go to the model, which
 * checks that the page stays allocated (same generation) while mapped.
 */
#ifndef _LINUX_HIGHMEM_H
#define _LINUX_HIGHMEM_H

#include "model-mm.h"

static inline void *kmap_local_page(struct page *page)
{
	return model_kmap(page);
}

#define kunmap_local(addr)	model_kunmap(addr)

#endif /* _LINUX_HIGHMEM_H */

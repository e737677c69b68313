/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model shim: mm/filemap_fast.h includes this for folio_test_idle(),
 * which the model's page-flags.h provides (PG_idle is a page flag, as
 * with CONFIG_PAGE_IDLE_FLAG on 64-bit).
 */
#ifndef _LINUX_PAGE_IDLE_H
#define _LINUX_PAGE_IDLE_H

#include <linux/page-flags.h>

#endif

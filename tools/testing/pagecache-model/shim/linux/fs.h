/* SPDX-License-Identifier: GPL-2.0 */
/* Model shim: the inode and address_space fields mm/filemap_fast.h uses. */
#ifndef _LINUX_FS_H
#define _LINUX_FS_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/xarray.h>
#include "model-mm.h"

struct inode {
	loff_t i_size;
	struct address_space *i_mapping;
};

struct address_space {
	struct inode *host;
	struct xarray i_pages;
};

/* 64-bit: a plain (but single-copy atomic) load, as in the kernel. */
static inline loff_t i_size_read(const struct inode *inode)
{
	loff_t isize;

	model_window(MW_ISIZE);
	isize = __atomic_load_n(&inode->i_size, __ATOMIC_RELAXED);
	return isize;
}

static inline void i_size_write(struct inode *inode, loff_t i_size)
{
	__atomic_store_n(&inode->i_size, i_size, __ATOMIC_RELEASE);
}

#endif /* _LINUX_FS_H */

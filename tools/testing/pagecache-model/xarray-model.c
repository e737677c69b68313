// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's lib/xarray.c, built for the page cache model with the
 * userspace shims of tools/testing/shared (like tools/testing/radix-tree,
 * but without XA_DEBUG, whose checks print and slow the races down).
 */
#include "shared.h"

#include <xarray.c>	/* $(KSRC)/lib is on the include path */

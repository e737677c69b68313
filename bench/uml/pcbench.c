// SPDX-License-Identifier: GPL-2.0
/*
 * pcbench: time page cache reads from inside the kernel, with no system call
 * around them.  Built as a module against a User-Mode Linux build: there the
 * kernel runs as a host process, on the host's real CPU, so per-read costs
 * are those of real hardware (one CPU: bench/uml/uml.config leaves UML's
 * SMP off, so this says nothing about contention).
 *
 *   insmod pcbench.ko path=/mnt/t/f len=16 iters=1000000 mode=0
 *
 * mode 0: every read at offset 0; mode 1: sequential, wrapping at EOF.
 * One line on the kernel log: "pcbench: <path> len=.. mode=.. iters=..
 * ns=.. ns_per_read=.." (ns_per_read in hundredths).  The module refuses to
 * stay loaded (-ECANCELED) once it has printed, so the next run can insmod
 * it again; any other error is a real failure.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/sched.h>

static char *path;
module_param(path, charp, 0);
static unsigned int len = 16;
module_param(len, uint, 0);
static unsigned long iters = 100000;
module_param(iters, ulong, 0);
static int mode;
module_param(mode, int, 0);

static int __init pcbench_init(void)
{
	struct file *f;
	unsigned long i;
	loff_t pos = 0;
	u64 t0, ns;
	ssize_t ret;
	void *buf;
	int err = -ECANCELED;

	if (!path || !len || len > (64U << 20) || !iters || mode < 0 || mode > 1) {
		pr_err("pcbench: need path=, len=1..64M, iters>0, mode=0|1\n");
		return -EINVAL;
	}
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f)) {
		pr_err("pcbench: open %s: %ld\n", path, PTR_ERR(f));
		return PTR_ERR(f);
	}
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out_close;
	}
	/* one read first, so that the folios are in and (if hot) marked */
	ret = kernel_read(f, buf, len, &pos);
	if (ret <= 0) {
		pr_err("pcbench: first read of %s: %zd\n", path, ret);
		err = ret ? ret : -ENODATA;
		goto out_free;
	}
	pos = 0;
	t0 = ktime_get_ns();
	for (i = 0; i < iters; i++) {
		if (mode == 0)
			pos = 0;
		ret = kernel_read(f, buf, len, &pos);
		if (ret < 0) {
			pr_err("pcbench: read at %lld: %zd\n", pos, ret);
			err = ret;
			goto out_free;
		}
		if (ret < len)
			pos = 0;
		if (!(i & 1023))
			cond_resched();
	}
	ns = ktime_get_ns() - t0;
	pr_info("pcbench: %s len=%u mode=%d iters=%lu ns=%llu ns_per_read_x100=%llu\n",
		path, len, mode, iters, ns, div64_u64(ns * 100, iters));
out_free:
	kvfree(buf);
out_close:
	filp_close(f, NULL);
	return err;
}
module_init(pcbench_init);

MODULE_DESCRIPTION("time page cache reads from inside the kernel (UML benchmark)");
MODULE_LICENSE("GPL");

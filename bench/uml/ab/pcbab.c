// SPDX-License-Identifier: GPL-2.0
/*
 * pcbab: A/B of two tmpfs read loops in one boot, for a UML kernel built
 * with bench/uml/ab/knob.patch (the series plus 6.12's shmem read loop,
 * picked by the global shmem_read_exp).
 *
 *   insmod pcbab.ko path=/mnt/t/f len=4096 mode=1 iters=2000 rounds=300 \
 *                   variants=0,1 [knob=fast]
 *
 * The variant is shmem_read_exp (knob.patch's read loops).  With knob=fast,
 * variant 0 turns the lockless read off (/proc/sys/vm/pagecache_fast_read),
 * for any file system, and any other turns it on, with shmem_read_exp set
 * to the variant if it is more than 1.
 *
 * Each round reads iters times with every variant in turn (the order
 * reversed every other round), timing each batch.  Slow phases of the
 * host (seconds at a time here) hit both sides of a round alike, so the
 * ratio within a round is what is kept: per variant, the median and
 * quartiles over the rounds of (ns of variants[0]) / (ns of this one),
 * its speed relative to variants[0] (> 1: faster).
 *
 * mode 0: every read at offset 0; mode 1: sequential, wrapping at EOF.
 * One line per variant on the kernel log:
 *   "pcbab: PATH len=L mode=M variant=V ratio_x10000=R q1=A q3=B ns_x100=N"
 * (V is fN with knob=fast)
 * (ns_x100: mean ns per read in hundredths).  Like pcbench, the module
 * refuses to stay loaded (-ECANCELED) once it has printed.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sort.h>

extern int shmem_read_exp;

#define MAX_VARIANTS	8
#define MAX_ROUNDS	1000

static char *path;
module_param(path, charp, 0);
static unsigned int len = 4096;
module_param(len, uint, 0);
static unsigned long iters = 2000;
module_param(iters, ulong, 0);
static int mode;
module_param(mode, int, 0);
static unsigned int rounds = 300;
module_param(rounds, uint, 0);
static char *knob = "shmem";
module_param(knob, charp, 0);
static bool knob_fast;	/* knob=fast, decided once in pcbab_init() */
static int variants[MAX_VARIANTS] = { 0, 1 };
static int nvariants = 2;
module_param_array_named(variants, variants, int, &nvariants, 0);

static u32 ratio[MAX_VARIANTS][MAX_ROUNDS];

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static int set_variant(int v)
{
	char c[2] = { '0' + !!v, '\n' };
	struct file *f;
	loff_t pos = 0;
	ssize_t ret;

	if (!knob_fast) {
		WRITE_ONCE(shmem_read_exp, v);
		return 0;
	}
	WRITE_ONCE(shmem_read_exp, v > 1 ? v : 0);
	f = filp_open("/proc/sys/vm/pagecache_fast_read", O_WRONLY, 0);
	if (IS_ERR(f)) {
		pr_err("pcbab: open vm.pagecache_fast_read: %ld\n", PTR_ERR(f));
		return PTR_ERR(f);
	}
	ret = kernel_write(f, c, sizeof(c), &pos);
	filp_close(f, NULL);
	if (ret != sizeof(c)) {
		pr_err("pcbab: write vm.pagecache_fast_read: %zd\n", ret);
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}

static int read_batch(struct file *f, void *buf, loff_t *pos)
{
	unsigned long i;
	ssize_t ret;

	for (i = 0; i < iters; i++) {
		if (mode == 0)
			*pos = 0;
		ret = kernel_read(f, buf, len, pos);
		if (ret < 0) {
			pr_err("pcbab: read at %lld: %zd\n", *pos, ret);
			return ret;
		}
		if (ret < len)
			*pos = 0;
	}
	return 0;
}

static int __init pcbab_init(void)
{
	u64 ns[MAX_VARIANTS], sum[MAX_VARIANTS] = { 0 };
	unsigned int r, v;
	struct file *f;
	loff_t pos = 0;
	void *buf;
	int err;

	if (!path || !len || len > (64U << 20) || !iters || mode < 0 ||
	    mode > 1 || !rounds || rounds > MAX_ROUNDS || nvariants < 2 ||
	    (strcmp(knob, "shmem") && strcmp(knob, "fast"))) {
		pr_err("pcbab: need path=, len=1..64M, iters>0, mode=0|1, rounds=1..%d, variants=A,B[,..], knob=shmem|fast\n",
		       MAX_ROUNDS);
		return -EINVAL;
	}
	knob_fast = !strcmp(knob, "fast");
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f)) {
		pr_err("pcbab: open %s: %ld\n", path, PTR_ERR(f));
		return PTR_ERR(f);
	}
	buf = kvmalloc(len, GFP_KERNEL);
	err = -ENOMEM;
	if (!buf)
		goto out_close;
	/* one batch first, so that the folios are in and (if hot) marked */
	err = read_batch(f, buf, &pos);
	if (err)
		goto out;

	for (r = 0; r < rounds; r++) {
		for (v = 0; v < nvariants; v++) {
			unsigned int k = (r & 1) ? nvariants - 1 - v : v;
			u64 t;

			err = set_variant(variants[k]);
			if (err)
				goto out;
			t = ktime_get_ns();
			err = read_batch(f, buf, &pos);
			if (err)
				goto out;
			ns[k] = ktime_get_ns() - t;
			sum[k] += ns[k];
			cond_resched();
		}
		for (v = 0; v < nvariants; v++)
			ratio[v][r] = div64_u64(ns[0] * 10000, max_t(u64, ns[v], 1));
	}
	for (v = 0; v < nvariants; v++) {
		sort(ratio[v], rounds, sizeof(u32), cmp_u32, NULL);
		pr_info("pcbab: %s len=%u mode=%d variant=%s%d ratio_x10000=%u q1=%u q3=%u ns_x100=%llu\n",
			path, len, mode, knob_fast ? "f" : "", variants[v], ratio[v][rounds / 2],
			ratio[v][rounds / 4], ratio[v][(3 * rounds) / 4],
			div64_u64(sum[v] * 100, (u64)iters * rounds));
	}
	err = -ECANCELED;
out:
	if (knob_fast)
		set_variant(1);
	WRITE_ONCE(shmem_read_exp, 0);
	kvfree(buf);
out_close:
	filp_close(f, NULL);
	return err;
}
module_init(pcbab_init);

MODULE_DESCRIPTION("A/B of two tmpfs read loops in one boot (UML benchmark)");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * pcsoak: racing page-cache reads at volume, inside a User-Mode Linux SMP
 * kernel (scripts/soak.sh, make soak).  Test code of the workbench; never
 * part of the posted series.
 *
 * The selftests (tools/testing/selftests/pagecache/races.c) race reads from
 * user space against every way a folio can go away, with a checker that
 * knows generations and shifts; they do about 10^3 reads a second in a
 * TCG guest and 10^4 in UML, where a system call costs tens of
 * microseconds.  A use-after-free window of a few nanoseconds needs far
 * more reads, so here the readers are kernel threads, one per CPU, calling
 * the file's ->read_iter with a kvec iterator: the same filemap_read() /
 * shmem_file_read_iter() paths, lockless path included (its counters
 * show it), at millions of reads a second.  What this does not cover, the
 * selftests do: user copies that fault, EFAULT, short copies.
 *
 * Files: FILES files of SIZE bytes in DIR (soak.0 ..), each 8-byte word at
 * offset o holding (fid << 48 | o / 8), fid = 1 + file number, never zero;
 * a secret file (fid 0x5ec7) is written and truncated in a loop, so that
 * the pages freed by the mutator are reused at once by another file.
 *
 * Readers: random file, random 8-aligned offset (past EOF at times),
 * length weighted to small reads (8 B - 512 B 75%, to 8 KiB 22%, to
 * 128 KiB 3%: every size goes through the lockless path, small reads
 * give the most reads per second, large ones span folios and EOF).  The buffer is filled with a poison
 * byte first; after the read, every word up to the count is checked:
 * this file's word for that offset, or zero (a racing truncate or punch
 * may show a hole), is allowed; a word of another file is "foreign" (an
 * information leak: the bug this series must never have); anything else is
 * "invalid".  Words past the count must be poison or this file's own
 * words (the lockless copy may have written them before it fell back),
 * never another file's ("tail_foreign").
 *
 * Mutator: one kernel thread, round robin over truncate (to a random size,
 * then rewritten), hole punch (then rewritten), invalidate (sync, then
 * invalidate_mapping_pages: clean folios freed), and the secret file's
 * fill and truncate.
 *
 * Interface as pcbench's: write "soak dir=DIR files=N size=BYTES
 * readers=N ms=T" to /sys/module/pcsoak/parameters/run (returns when done),
 * read the counts from .../parameters/result.  It fails (-EUCLEAN) when
 * any foreign or invalid word was seen, after filling in the result.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/falloc.h>
#include <linux/uio.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/ktime.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include <linux/completion.h>
#include <linux/random.h>
#include <linux/sched.h>

#define MAX_READERS	64
#define MAX_FILES	64
#define MAX_LEN		(128U << 10)
#define SECRET_FID	0x5ec7ULL
#define POISON		0xa5
#define RESULT_LEN	512

struct soak_reader {
	struct task_struct *task;
	struct file *files[MAX_FILES];
	u8 *buf;
	u64 rng;
	u64 reads, bytes, shorts, zero_words, own_words;
	u64 foreign, invalid, tail_foreign;
	u64 bad_off, bad_val, bad_exp;
	bool have_bad;
	int err;
} ____cacheline_aligned_in_smp;

static struct {
	char dir[128];
	unsigned int files, readers, ms;
	size_t size;
} cfg;

static struct soak_reader readers[MAX_READERS];
static struct file *wfiles[MAX_FILES], *secret;
static struct task_struct *mutator;
static u64 nr_truncate, nr_punch, nr_invalidate, nr_secret;
static int mutator_err;
static bool stop ____cacheline_aligned_in_smp;
static atomic_t done;
static DECLARE_COMPLETION(all_done);
static DEFINE_MUTEX(soak_lock);
static char result[RESULT_LEN] = "none";

static u64 soak_word(u64 fid, loff_t off)
{
	return fid << 48 | ((u64)off >> 3 & ((1ULL << 48) - 1));
}

static u64 soak_rand(u64 *s)
{
	/* xorshift64*: cheap, per thread */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Fill @len bytes of file @f from @off with the words of @fid. */
static int soak_fill(struct file *f, u64 fid, loff_t off, size_t len)
{
	size_t chunk = PAGE_SIZE, i;
	u64 *buf;
	int err = 0;

	buf = kmalloc(chunk, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while (len && !err) {
		size_t n = min(len, chunk);
		loff_t pos = off;
		ssize_t ret;

		for (i = 0; i < n / 8; i++)
			buf[i] = soak_word(fid, off + i * 8);
		ret = kernel_write(f, buf, n, &pos);
		if (ret != n)
			err = ret < 0 ? ret : -EIO;
		off += n;
		len -= n;
	}
	kfree(buf);
	return err;
}

static void soak_check(struct soak_reader *r, unsigned int fi, loff_t off,
		       size_t len, ssize_t ret)
{
	u64 own = 1 + fi, *w = (u64 *)r->buf;
	size_t i, n = ret > 0 ? ret / 8 : 0;
	u64 poison;

	memset(&poison, POISON, sizeof(poison));
	for (i = 0; i < len / 8; i++) {
		loff_t o = off + i * 8;
		u64 v = w[i], fid = v >> 48;
		bool past = i >= n;

		if (v == soak_word(own, o)) {
			r->own_words += !past;
			continue;
		}
		/*
		 * Past the count: poison, or what a lockless copy wrote
		 * before it fell back (zeros of a truncated folio's tail).
		 */
		if (past && (v == poison || !v))
			continue;
		if (!past && !v) {
			r->zero_words++;
			continue;
		}
		if (fid == SECRET_FID || (fid >= 1 && fid <= cfg.files && fid != own)) {
			if (past)
				r->tail_foreign++;
			else
				r->foreign++;
		} else {
			r->invalid++;
		}
		if (!r->have_bad) {
			r->have_bad = true;
			r->bad_off = o;
			r->bad_val = v;
			r->bad_exp = soak_word(own, o);
		}
	}
}

/* A finished thread stays until soak_cleanup()'s kthread_stop(). */
static int soak_park(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int soak_reader_fn(void *arg)
{
	struct soak_reader *r = arg;

	while (!READ_ONCE(stop)) {
		unsigned int fi = soak_rand(&r->rng) % cfg.files;
		u64 x = soak_rand(&r->rng);
		unsigned int pick = x % 100;
		size_t len, max = pick < 75 ? 512 : pick < 97 ? 8192 : MAX_LEN;
		/* up to 1/8 past EOF: short reads and EOF too */
		loff_t off = ((x >> 8) % (cfg.size + cfg.size / 8)) & ~7ULL;
		struct kvec kv;
		struct iov_iter iter;
		struct kiocb kiocb;
		ssize_t ret;
		int rep;

		len = (((x >> 40) % max) & ~7ULL) + 8;
		/* the same range again: the second read finds it hot */
		for (rep = 0; rep < 2 && !READ_ONCE(stop); rep++) {
			struct file *f = r->files[fi];

			memset(r->buf, POISON, len);
			kv.iov_base = r->buf;
			kv.iov_len = len;
			init_sync_kiocb(&kiocb, f);
			kiocb.ki_pos = off;
			iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
			ret = f->f_op->read_iter(&kiocb, &iter);
			if (ret < 0 || ret > len) {
				r->err = ret < 0 ? ret : -EOVERFLOW;
				goto out;
			}
			r->reads++;
			r->bytes += ret;
			r->shorts += ret < len;
			/* a short read ends on a word boundary: sizes are */
			soak_check(r, fi, off, len, ret & ~7L);
		}
		if (!(r->reads & 63))
			cond_resched();
	}
out:
	if (atomic_dec_and_test(&done))
		complete(&all_done);
	return soak_park();
}

static int soak_mutate_once(u64 *rng, unsigned int op)
{
	unsigned int fi = soak_rand(rng) % cfg.files;
	struct file *f = wfiles[fi];
	loff_t off = (soak_rand(rng) % cfg.size) & PAGE_MASK;
	size_t len = min_t(size_t, cfg.size - off,
			   (1 + soak_rand(rng) % 16) * PAGE_SIZE);
	int err;

	switch (op) {
	case 0:
		err = vfs_truncate(&f->f_path, off);
		if (!err)
			err = soak_fill(f, 1 + fi, off, cfg.size - off);
		nr_truncate++;
		return err;
	case 1:
		err = vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				    off, len);
		if (err == -EOPNOTSUPP)
			err = 0;
		if (!err)
			err = soak_fill(f, 1 + fi, off, len);
		nr_punch++;
		return err;
	case 2:
		err = vfs_fsync(f, 0);
		if (!err)
			invalidate_mapping_pages(f->f_mapping, 0, -1);
		nr_invalidate++;
		return err;
	default:
		err = soak_fill(secret, SECRET_FID, 0, 2 * cfg.size);
		if (!err)
			err = vfs_truncate(&secret->f_path, 0);
		nr_secret++;
		return err;
	}
}

static int soak_mutator_fn(void *arg)
{
	u64 rng = get_random_u64() | 1;
	unsigned int op = 0;

	while (!READ_ONCE(stop) && !mutator_err) {
		mutator_err = soak_mutate_once(&rng, op++ % 4);
		cond_resched();
	}
	return soak_park();
}

static struct file *soak_open(const char *name, int flags)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", cfg.dir, name);
	return filp_open(path, flags, 0600);
}

static void soak_cleanup(void)
{
	unsigned int i, j;

	if (mutator)
		kthread_stop(mutator);
	mutator = NULL;
	for (i = 0; i < MAX_READERS; i++) {
		struct soak_reader *r = &readers[i];

		if (r->task)
			kthread_stop(r->task);
		for (j = 0; j < MAX_FILES; j++)
			if (r->files[j])
				filp_close(r->files[j], NULL);
		kvfree(r->buf);
	}
	memset(readers, 0, sizeof(readers));
	for (i = 0; i < MAX_FILES; i++) {
		if (wfiles[i])
			filp_close(wfiles[i], NULL);
		wfiles[i] = NULL;
	}
	if (secret)
		filp_close(secret, NULL);
	secret = NULL;
}

static int soak_run(void)
{
	u64 reads = 0, bytes = 0, shorts = 0, zero = 0, own = 0;
	u64 foreign = 0, invalid = 0, tail = 0;
	struct soak_reader *bad = NULL;
	unsigned int i, j;
	char name[16];
	u64 t0;
	int err = 0;

	WRITE_ONCE(stop, false);
	nr_truncate = nr_punch = nr_invalidate = nr_secret = 0;
	mutator_err = 0;
	reinit_completion(&all_done);
	atomic_set(&done, cfg.readers);

	for (i = 0; i < cfg.files; i++) {
		snprintf(name, sizeof(name), "soak.%u", i);
		wfiles[i] = soak_open(name, O_RDWR | O_CREAT | O_TRUNC);
		if (IS_ERR(wfiles[i])) {
			err = PTR_ERR(wfiles[i]);
			wfiles[i] = NULL;
			goto out;
		}
		err = soak_fill(wfiles[i], 1 + i, 0, cfg.size);
		if (err)
			goto out;
	}
	secret = soak_open("soak.secret", O_RDWR | O_CREAT | O_TRUNC);
	if (IS_ERR(secret)) {
		err = PTR_ERR(secret);
		secret = NULL;
		goto out;
	}
	for (i = 0; i < cfg.readers; i++) {
		struct soak_reader *r = &readers[i];

		for (j = 0; j < cfg.files; j++) {
			snprintf(name, sizeof(name), "soak.%u", j);
			r->files[j] = soak_open(name, O_RDONLY);
			if (IS_ERR(r->files[j])) {
				err = PTR_ERR(r->files[j]);
				r->files[j] = NULL;
				goto out;
			}
		}
		r->buf = kvmalloc(MAX_LEN, GFP_KERNEL);
		if (!r->buf) {
			err = -ENOMEM;
			goto out;
		}
		r->rng = get_random_u64() | 1;
		r->task = kthread_create(soak_reader_fn, r, "pcsoak/%u", i);
		if (IS_ERR(r->task)) {
			err = PTR_ERR(r->task);
			r->task = NULL;
			goto out;
		}
		kthread_bind(r->task, i % num_online_cpus());
	}
	mutator = kthread_create(soak_mutator_fn, NULL, "pcsoak/mutator");
	if (IS_ERR(mutator)) {
		err = PTR_ERR(mutator);
		mutator = NULL;
		goto out;
	}
	t0 = ktime_get_ns();
	for (i = 0; i < cfg.readers; i++)
		wake_up_process(readers[i].task);
	wake_up_process(mutator);
	/* sleep in slices: a soak runs for minutes */
	while (ktime_get_ns() - t0 < (u64)cfg.ms * NSEC_PER_MSEC && !mutator_err)
		msleep(100);
	WRITE_ONCE(stop, true);
	wait_for_completion(&all_done);

	for (i = 0; i < cfg.readers; i++) {
		struct soak_reader *r = &readers[i];

		if (r->err && !err)
			err = r->err;
		reads += r->reads;
		bytes += r->bytes;
		shorts += r->shorts;
		zero += r->zero_words;
		own += r->own_words;
		foreign += r->foreign;
		invalid += r->invalid;
		tail += r->tail_foreign;
		if (r->have_bad && !bad)
			bad = r;
	}
	if (mutator_err && !err)
		err = mutator_err;
	snprintf(result, sizeof(result),
		 "reads=%llu bytes=%llu short=%llu own_words=%llu zero_words=%llu foreign=%llu tail_foreign=%llu invalid=%llu truncate=%llu punch=%llu invalidate=%llu secret=%llu ms=%llu err=%d",
		 reads, bytes, shorts, own, zero, foreign, tail, invalid,
		 nr_truncate, nr_punch, nr_invalidate, nr_secret,
		 div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC), err);
	if (bad) {
		size_t l = strlen(result);

		snprintf(result + l, sizeof(result) - l,
			 " first_bad=off:%llu,val:%#llx,expected:%#llx",
			 bad->bad_off, bad->bad_val, bad->bad_exp);
	}
	if (!err && (foreign || invalid || tail))
		err = -EUCLEAN;
out:
	WRITE_ONCE(stop, true);
	soak_cleanup();
	return err;
}

static int soak_parse(char *line)
{
	char *tok;

	memset(&cfg, 0, sizeof(cfg));
	cfg.files = 8;
	cfg.size = 256 << 10;
	cfg.readers = num_online_cpus();
	cfg.ms = 1000;
	line = strim(line);
	tok = strsep(&line, " ");
	if (!tok || strcmp(tok, "soak"))
		return -EINVAL;
	while ((tok = strsep(&line, " "))) {
		char *val = strchr(tok, '=');
		unsigned long v;

		if (!*tok)
			continue;
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "dir")) {
			if (strscpy(cfg.dir, val, sizeof(cfg.dir)) < 0)
				return -ENAMETOOLONG;
			continue;
		}
		if (kstrtoul(val, 0, &v))
			return -EINVAL;
		if (!strcmp(tok, "files"))
			cfg.files = v;
		else if (!strcmp(tok, "size"))
			cfg.size = v;
		else if (!strcmp(tok, "readers"))
			cfg.readers = v;
		else if (!strcmp(tok, "ms"))
			cfg.ms = v;
		else
			return -EINVAL;
	}
	if (!cfg.dir[0] || !cfg.files || cfg.files > MAX_FILES ||
	    !cfg.readers || cfg.readers > MAX_READERS ||
	    cfg.size < PAGE_SIZE || cfg.size > (64UL << 20) ||
	    cfg.size % PAGE_SIZE || !cfg.ms || cfg.ms > 3600 * 1000)
		return -EINVAL;
	return 0;
}

static int soak_set_run(const char *val, const struct kernel_param *kp)
{
	char *line;
	int err;

	line = kstrdup(val, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	mutex_lock(&soak_lock);
	strscpy(result, "error", sizeof(result));
	err = soak_parse(line);
	if (!err)
		err = soak_run();
	else
		snprintf(result, sizeof(result), "error=%d", err);
	mutex_unlock(&soak_lock);
	kfree(line);
	return err;
}

static const struct kernel_param_ops soak_run_ops = {
	.set = soak_set_run,
};
module_param_cb(run, &soak_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "a soak to run (see the source)");

static int soak_get_result(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&soak_lock);
	ret = sysfs_emit(buf, "%s\n", result);
	mutex_unlock(&soak_lock);
	return ret;
}

static const struct kernel_param_ops soak_result_ops = {
	.get = soak_get_result,
};
module_param_cb(result, &soak_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "the last soak's counts");

MODULE_DESCRIPTION("racing page cache reads at volume on every CPU (UML SMP soak)");
MODULE_LICENSE("GPL");

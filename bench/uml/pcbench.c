// SPDX-License-Identifier: GPL-2.0
/*
 * pcbench: page cache read loops inside the kernel, one kernel thread per
 * CPU, for User-Mode Linux with SMP (bench/uml/run.sh).  Benchmark code
 * only; never part of the posted series.
 *
 * In UML each virtual CPU is a host thread, so N kernel threads bound to
 * N virtual CPUs run on N host cores at once and contend for cache lines
 * as on real hardware.  Reading through the file's own ->read_iter with a
 * kiocb and an iov_iter, with no system call around it (a UML system call
 * costs tens of microseconds), leaves exactly the code the series changes.
 *
 * Loaded once; every measurement is a line written to
 * /sys/module/pcbench/parameters/run, which returns when it is done, and
 * its result is read back from .../parameters/result:
 *
 *   atomic shape=shared|private cpus=N ms=T
 *       the contention probe: atomic_long_inc() on one shared counter, or
 *       on a counter per thread (own cache line)
 *   read path=P shape=shared|ownfd|ownfile len=L mode=zero|seq cpus=N ms=T
 *       shared: one struct file for all threads; ownfd: the same file
 *       opened by each thread (the shape of a pread benchmark with an fd
 *       per thread); ownfile: thread i reads P.i.  mode zero reads L bytes
 *       at offset 0; seq reads on, wrapping at EOF.
 *   replay path=D cpus=N ms=T
 *       a recorded workload's reads (bench/readsizes/replay.py): every
 *       thread opens D/f00000.. itself and reads D/trace.bin's (file,
 *       offset, size) records in order, thread i from record
 *       i * records / N on, around again at the end; three passes before
 *       the clock starts, so that every folio is hot (read while
 *       referenced, and active) even at one thread.
 *
 * result: "ops=.. rate=.. cpu_ns=.. wall_ns=.. min_ops=.. max_ops=..":
 * total reads, the sum over threads of ops/window (per second), the host
 * CPU time the threads' virtual CPUs got during their windows and the sum
 * of the windows.  The host CPU time is read with a host system call
 * (clock_gettime(CLOCK_THREAD_CPUTIME_ID)) on the virtual CPU's own host
 * thread: it tells how much of the host's cores the virtual CPUs really
 * had, so that time-sharing on a busy host can be told from contention.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/uio.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include <linux/completion.h>
#include <linux/wait.h>

#define MAX_THREADS	64
#define RESULT_LEN	160

enum pcb_test { PCB_ATOMIC, PCB_READ, PCB_REPLAY };

/* D/trace.bin: a header, then nr_recs records (host byte order) */
struct pcb_trace_hdr {
	char magic[4];			/* "PCBR" */
	u32 nr_files, nr_recs, max_len;
};

struct pcb_rec {
	u32 file, len;
	u64 off;
};

enum pcb_shape { SH_SHARED, SH_PRIVATE, SH_OWNFD, SH_OWNFILE };

struct pcb_thread {
	struct task_struct *task;
	struct file *file;
	struct file **files;		/* PCB_REPLAY: one per trace file */
	void *buf;
	u64 ops, ns, cpu_ns;
	int err;
	atomic_long_t counter;		/* SH_PRIVATE probe */
} ____cacheline_aligned_in_smp;

static struct {
	enum pcb_test test;
	enum pcb_shape shape;
	unsigned int cpus, len, ms;
	bool seq;
	char path[128];
	struct file *shared_file;
	void *trace;			/* PCB_REPLAY: D/trace.bin */
	const struct pcb_rec *recs;
	u32 nr_files, nr_recs;
} cfg;

static struct pcb_thread threads[MAX_THREADS];
static atomic_long_t shared_counter ____cacheline_aligned_in_smp;
static bool go ____cacheline_aligned_in_smp, stop;
static DECLARE_WAIT_QUEUE_HEAD(go_wq);
static atomic_t ready, done;
static DECLARE_COMPLETION(all_ready);
static DECLARE_COMPLETION(all_done);
static DEFINE_MUTEX(pcb_lock);
static char result[RESULT_LEN] = "none";

/* Host CPU time of the calling virtual CPU's host thread, 0 if unknown. */
static u64 host_thread_cpu_ns(void)
{
#if defined(CONFIG_UML) && defined(CONFIG_64BIT)
	struct { long sec, nsec; } ts = { 0, 0 };
	long ret;

	/* x86_64 host: clock_gettime (228), CLOCK_THREAD_CPUTIME_ID (3) */
	asm volatile("syscall" : "=a" (ret)
		     : "0" (228L), "D" (3L), "S" (&ts)
		     : "rcx", "r11", "memory");
	if (ret)
		return 0;
	return (u64)ts.sec * NSEC_PER_SEC + ts.nsec;
#else
	return 0;
#endif
}

static ssize_t pcb_read_at(struct file *file, void *buf, size_t len,
			   loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t ret;

	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	ret = file->f_op->read_iter(&kiocb, &iter);
	if (ret > 0)
		*pos = kiocb.ki_pos;
	return ret;
}

static ssize_t pcb_read(struct pcb_thread *t, loff_t *pos)
{
	return pcb_read_at(t->file, t->buf, cfg.len, pos);
}

/* Record @i of the trace, read by @t; negative on error. */
static ssize_t pcb_replay_one(struct pcb_thread *t, u32 i)
{
	const struct pcb_rec *r = &cfg.recs[i];
	loff_t pos = r->off;

	return pcb_read_at(t->files[r->file], t->buf, r->len, &pos);
}

static int pcb_thread_fn(void *arg)
{
	struct pcb_thread *t = arg;
	u64 ops = 0, t0, c0;
	loff_t pos = 0;
	u32 rec = 0;
	ssize_t ret;

	/* warm: fault the folios in (and let a patched kernel mark them) */
	if (cfg.test == PCB_REPLAY) {
		u32 i;

		for (i = 0; i < 3 * cfg.nr_recs && !t->err; i++) {
			ret = pcb_replay_one(t, i % cfg.nr_recs);
			if (ret < 0)
				t->err = ret;
			if (!(i & 255))
				cond_resched();
		}
		/* not in lockstep with the other threads */
		rec = div_u64((u64)(t - threads) * cfg.nr_recs, cfg.cpus);
	} else if (cfg.test == PCB_READ) {
		int i;

		for (i = 0; i < 3; i++) {
			pos = 0;
			ret = pcb_read(t, &pos);
			if (ret <= 0) {
				t->err = ret ? ret : -ENODATA;
				break;
			}
		}
		pos = 0;
	}
	if (atomic_inc_return(&ready) == cfg.cpus)
		complete(&all_ready);
	wait_event(go_wq, READ_ONCE(go));

	t0 = ktime_get_ns();
	c0 = host_thread_cpu_ns();
	while (!t->err && !READ_ONCE(stop)) {
		if (cfg.test == PCB_REPLAY) {
			ret = pcb_replay_one(t, rec);
			if (ret < 0) {
				t->err = ret;
				break;
			}
			if (++rec == cfg.nr_recs)
				rec = 0;
		} else if (cfg.test == PCB_ATOMIC) {
			if (cfg.shape == SH_SHARED)
				atomic_long_inc(&shared_counter);
			else
				atomic_long_inc(&t->counter);
		} else {
			if (!cfg.seq)
				pos = 0;
			ret = pcb_read(t, &pos);
			if (ret < 0) {
				t->err = ret;
				break;
			}
			if (!cfg.seq && ret != cfg.len) {
				t->err = -EIO;
				break;
			}
			if (ret < cfg.len)
				pos = 0;	/* seq: EOF, start again */
		}
		if (!(++ops & 255))
			cond_resched();
	}
	t->cpu_ns = host_thread_cpu_ns();
	t->cpu_ns = c0 && t->cpu_ns > c0 ? t->cpu_ns - c0 : 0;
	t->ns = ktime_get_ns() - t0;
	t->ops = ops;
	if (atomic_inc_return(&done) == cfg.cpus)
		complete(&all_done);
	/* stay until kthread_stop() */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void pcb_cleanup(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct pcb_thread *t = &threads[i];

		if (t->task)
			kthread_stop(t->task);
		if (t->file && t->file != cfg.shared_file)
			filp_close(t->file, NULL);
		if (t->files) {
			u32 f;

			for (f = 0; f < cfg.nr_files; f++) {
				if (t->files[f])
					filp_close(t->files[f], NULL);
			}
			kvfree(t->files);
		}
		kvfree(t->buf);
		t->task = NULL;
		t->file = NULL;
		t->files = NULL;
		t->buf = NULL;
	}
	if (cfg.shared_file)
		filp_close(cfg.shared_file, NULL);
	cfg.shared_file = NULL;
	kvfree(cfg.trace);
	cfg.trace = NULL;
	cfg.recs = NULL;
}

/* Read and check D/trace.bin; cfg.len becomes its largest read. */
static int pcb_load_trace(void)
{
	const struct pcb_trace_hdr *h;
	struct file *f;
	char name[160];
	loff_t size, pos = 0;
	ssize_t n;
	u32 i;

	snprintf(name, sizeof(name), "%s/trace.bin", cfg.path);
	f = filp_open(name, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	size = i_size_read(file_inode(f));
	if (size < (loff_t)sizeof(*h) || size > (64 << 20)) {
		filp_close(f, NULL);
		return -EINVAL;
	}
	cfg.trace = kvmalloc(size, GFP_KERNEL);
	if (!cfg.trace) {
		filp_close(f, NULL);
		return -ENOMEM;
	}
	n = kernel_read(f, cfg.trace, size, &pos);
	filp_close(f, NULL);
	if (n != size)
		return n < 0 ? n : -EIO;
	h = cfg.trace;
	if (memcmp(h->magic, "PCBR", 4) || !h->nr_files || !h->nr_recs ||
	    !h->max_len || h->max_len > (16U << 20) ||
	    size != sizeof(*h) + (loff_t)h->nr_recs * sizeof(struct pcb_rec))
		return -EINVAL;
	cfg.recs = (const void *)(h + 1);
	for (i = 0; i < h->nr_recs; i++) {
		if (cfg.recs[i].file >= h->nr_files ||
		    cfg.recs[i].len > h->max_len ||
		    cfg.recs[i].off > MAX_LFS_FILESIZE - cfg.recs[i].len)
			return -EINVAL;
	}
	cfg.nr_files = h->nr_files;
	cfg.nr_recs = h->nr_recs;
	cfg.len = h->max_len;
	return 0;
}

/* Thread @t's own struct file for every file of the trace. */
static int pcb_open_trace_files(struct pcb_thread *t)
{
	char name[160];
	u32 f;

	t->files = kvcalloc(cfg.nr_files, sizeof(*t->files), GFP_KERNEL);
	if (!t->files)
		return -ENOMEM;
	for (f = 0; f < cfg.nr_files; f++) {
		struct file *file;

		snprintf(name, sizeof(name), "%s/f%05u", cfg.path, f);
		file = filp_open(name, O_RDONLY, 0);
		if (IS_ERR(file))
			return PTR_ERR(file);
		t->files[f] = file;
	}
	return 0;
}

static struct file *pcb_open(unsigned int i)
{
	char name[160];

	if (cfg.shape == SH_OWNFILE) {
		snprintf(name, sizeof(name), "%s.%u", cfg.path, i);
		return filp_open(name, O_RDONLY, 0);
	}
	return filp_open(cfg.path, O_RDONLY, 0);
}

static int pcb_run(void)
{
	u64 ops = 0, cpu_ns = 0, wall_ns = 0, min_ops = U64_MAX, max_ops = 0;
	unsigned long rate = 0;
	unsigned int i, n = cfg.cpus;
	int err = 0;

	if (n > num_online_cpus())
		return -EINVAL;
	memset(threads, 0, sizeof(threads));
	atomic_set(&ready, 0);
	atomic_set(&done, 0);
	atomic_long_set(&shared_counter, 0);
	reinit_completion(&all_ready);
	reinit_completion(&all_done);
	WRITE_ONCE(go, false);
	WRITE_ONCE(stop, false);

	if (cfg.test == PCB_REPLAY) {
		err = pcb_load_trace();
		if (err)
			goto out;
	}
	if (cfg.test == PCB_READ && cfg.shape == SH_SHARED) {
		cfg.shared_file = filp_open(cfg.path, O_RDONLY, 0);
		if (IS_ERR(cfg.shared_file)) {
			err = PTR_ERR(cfg.shared_file);
			cfg.shared_file = NULL;
			return err;
		}
	}
	for (i = 0; i < n; i++) {
		struct pcb_thread *t = &threads[i];

		if (cfg.test == PCB_REPLAY) {
			err = pcb_open_trace_files(t);
			if (err)
				goto out;
		}
		if (cfg.test == PCB_READ) {
			t->file = cfg.shared_file ?: pcb_open(i);
			if (IS_ERR(t->file)) {
				err = PTR_ERR(t->file);
				t->file = NULL;
				goto out;
			}
		}
		if (cfg.test != PCB_ATOMIC) {
			t->buf = kvmalloc(cfg.len, GFP_KERNEL);
			if (!t->buf) {
				err = -ENOMEM;
				goto out;
			}
		}
		t->task = kthread_create(pcb_thread_fn, t, "pcbench/%u", i);
		if (IS_ERR(t->task)) {
			err = PTR_ERR(t->task);
			t->task = NULL;
			goto out;
		}
		kthread_bind(t->task, i);
	}
	for (i = 0; i < n; i++)
		wake_up_process(threads[i].task);
	wait_for_completion(&all_ready);
	WRITE_ONCE(go, true);
	wake_up_all(&go_wq);
	msleep(cfg.ms);
	WRITE_ONCE(stop, true);
	wait_for_completion(&all_done);

	for (i = 0; i < n; i++) {
		struct pcb_thread *t = &threads[i];

		if (t->err && !err)
			err = t->err;
		ops += t->ops;
		cpu_ns += t->cpu_ns;
		wall_ns += t->ns;
		min_ops = min(min_ops, t->ops);
		max_ops = max(max_ops, t->ops);
		if (t->ns)
			rate += div64_u64(t->ops * NSEC_PER_SEC, t->ns);
	}
	if (!err)
		snprintf(result, sizeof(result),
			 "ops=%llu rate=%lu cpu_ns=%llu wall_ns=%llu min_ops=%llu max_ops=%llu",
			 ops, rate, cpu_ns, wall_ns, min_ops, max_ops);
out:
	pcb_cleanup(n);
	return err;
}

static int pcb_parse(char *line)
{
	char *tok;

	memset(&cfg, 0, sizeof(cfg));
	cfg.len = 16;
	cfg.ms = 500;
	cfg.cpus = 1;
	line = strim(line);
	tok = strsep(&line, " ");
	if (!strcmp(tok, "atomic"))
		cfg.test = PCB_ATOMIC;
	else if (!strcmp(tok, "read"))
		cfg.test = PCB_READ;
	else if (!strcmp(tok, "replay"))
		cfg.test = PCB_REPLAY;
	else
		return -EINVAL;
	cfg.shape = cfg.test == PCB_ATOMIC ? SH_SHARED : SH_OWNFD;
	while ((tok = strsep(&line, " "))) {
		char *val = strchr(tok, '=');

		if (!*tok)
			continue;
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "path")) {
			if (strscpy(cfg.path, val, sizeof(cfg.path)) < 0)
				return -ENAMETOOLONG;
		} else if (!strcmp(tok, "shape")) {
			if (!strcmp(val, "shared"))
				cfg.shape = SH_SHARED;
			else if (!strcmp(val, "private"))
				cfg.shape = SH_PRIVATE;
			else if (!strcmp(val, "ownfd"))
				cfg.shape = SH_OWNFD;
			else if (!strcmp(val, "ownfile"))
				cfg.shape = SH_OWNFILE;
			else
				return -EINVAL;
		} else if (!strcmp(tok, "mode")) {
			if (!strcmp(val, "seq"))
				cfg.seq = true;
			else if (strcmp(val, "zero"))
				return -EINVAL;
		} else if (!strcmp(tok, "len")) {
			if (kstrtouint(val, 0, &cfg.len))
				return -EINVAL;
		} else if (!strcmp(tok, "cpus")) {
			if (kstrtouint(val, 0, &cfg.cpus))
				return -EINVAL;
		} else if (!strcmp(tok, "ms")) {
			if (kstrtouint(val, 0, &cfg.ms))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (!cfg.cpus || cfg.cpus > MAX_THREADS || !cfg.ms || cfg.ms > 60000)
		return -EINVAL;
	if (cfg.test == PCB_ATOMIC)
		return cfg.shape == SH_SHARED || cfg.shape == SH_PRIVATE ? 0 : -EINVAL;
	if (cfg.test == PCB_REPLAY)
		return cfg.path[0] && cfg.shape == SH_OWNFD ? 0 : -EINVAL;
	if (!cfg.path[0] || !cfg.len || cfg.len > (16U << 20) ||
	    cfg.shape == SH_PRIVATE)
		return -EINVAL;
	return 0;
}

static int pcb_set_run(const char *val, const struct kernel_param *kp)
{
	char *line;
	int err;

	line = kstrdup(val, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	mutex_lock(&pcb_lock);
	strscpy(result, "error", sizeof(result));
	err = pcb_parse(line);
	if (!err)
		err = pcb_run();
	if (err)
		snprintf(result, sizeof(result), "error=%d", err);
	mutex_unlock(&pcb_lock);
	kfree(line);
	return err;
}

static const struct kernel_param_ops pcb_run_ops = {
	.set = pcb_set_run,
};
module_param_cb(run, &pcb_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "a measurement to run (see the source)");

static int pcb_get_result(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&pcb_lock);
	ret = sysfs_emit(buf, "%s\n", result);
	mutex_unlock(&pcb_lock);
	return ret;
}

static const struct kernel_param_ops pcb_result_ops = {
	.get = pcb_get_result,
};
module_param_cb(result, &pcb_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "the last measurement's result");

MODULE_DESCRIPTION("in-kernel page cache read loops on every CPU (UML SMP benchmark)");
MODULE_LICENSE("GPL");

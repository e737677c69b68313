// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers for the page-cache read selftests.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mntent.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/vfs.h>

#include "../kselftest.h"
#include "pagecache_util.h"

#ifndef EXT4_SUPER_MAGIC
#define EXT4_SUPER_MAGIC	0xef53
#endif
#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC		0x58465342
#endif

static uint64_t pc_seed_val;

/* Chosen once in the parent so that every forked test uses the same seed. */
static void __attribute__((constructor)) pc_seed_init(void)
{
	const char *env = getenv(PC_ENV_SEED);
	struct timespec ts;

	if (env && *env) {
		pc_seed_val = strtoull(env, NULL, 0);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	pc_seed_val = ((uint64_t)ts.tv_sec * 1000000007ULL) ^ ts.tv_nsec ^
		      ((uint64_t)getpid() << 32);
	pc_seed_val &= 0xffffffffffffULL;
}

uint64_t pc_seed(void)
{
	return pc_seed_val;
}

void pc_print_seed(void)
{
	ksft_print_msg("seed %llu (rerun with %s=%llu)\n",
		       (unsigned long long)pc_seed_val, PC_ENV_SEED,
		       (unsigned long long)pc_seed_val);
}

double pc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double pc_race_seconds(void)
{
	const char *env = getenv(PC_ENV_RACE_SECONDS);
	double s;

	if (!env || !*env)
		return PC_DEFAULT_RACE_SECONDS;
	s = strtod(env, NULL);
	return s > 0 ? s : PC_DEFAULT_RACE_SECONDS;
}

bool pc_is_root(void)
{
	return geteuid() == 0;
}

int pc_write_file(const char *path, const char *str)
{
	size_t len = strlen(str);
	int fd, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, str, len);
	close(fd);
	return ret == (ssize_t)len ? 0 : -1;
}

int pc_read_file(const char *path, char *buf, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = read(fd, buf, len - 1);
	close(fd);
	if (ret < 0)
		return -1;
	buf[ret] = '\0';
	return 0;
}

int pc_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t ret = pwrite(fd, p, len, off);

		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0)
			return -1;
		p += ret;
		off += ret;
		len -= ret;
	}
	return 0;
}

int pc_write_pattern(int fd, uint64_t off, size_t len, uint8_t magic,
		     uint16_t fid, uint8_t gen)
{
	size_t chunk = 256 * 1024;
	char *buf;
	int ret = 0;

	buf = malloc(chunk);
	if (!buf)
		return -1;
	while (len && !ret) {
		size_t n = len < chunk ? len : chunk;

		pc_fill(buf, off, n, magic, fid, gen);
		ret = pc_pwrite_all(fd, buf, n, off);
		off += n;
		len -= n;
	}
	free(buf);
	return ret;
}

int pc_fast_read_get(void)
{
	char buf[32];

	if (pc_read_file(PC_SYSCTL_FAST_READ, buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

int pc_fast_read_set(int val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d\n", val);
	return pc_write_file(PC_SYSCTL_FAST_READ, buf);
}

int pc_read_key(const char *path, const char *name, uint64_t *val)
{
	size_t nlen = strlen(name);
	char line[256];
	int ret = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, nlen) && line[nlen] == ' ') {
			*val = strtoull(line + nlen + 1, NULL, 10);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int pc_vmstat(const char *name, uint64_t *val)
{
	return pc_read_key("/proc/vmstat", name, val);
}

int pc_memcg_create(char *cg, size_t len, const char *tag, char *reason)
{
	char buf[512], p[PC_PATH_LEN + 32];

	cg[0] = '\0';
	if (!pc_is_root()) {
		snprintf(reason, PC_REASON_LEN, "memcg setup needs root");
		return -1;
	}
	if (pc_read_file(PC_CGROUP_ROOT "/cgroup.controllers", buf,
			 sizeof(buf))) {
		snprintf(reason, PC_REASON_LEN,
			 "no cgroup v2 at " PC_CGROUP_ROOT);
		return -1;
	}
	if (!strstr(buf, "memory")) {
		snprintf(reason, PC_REASON_LEN,
			 "memory controller not available in cgroup v2");
		return -1;
	}
	pc_write_file(PC_CGROUP_ROOT "/cgroup.subtree_control", "+memory\n");
	snprintf(cg, len, PC_CGROUP_ROOT "/%s.%d", tag, getpid());
	if (mkdir(cg, 0755) && errno != EEXIST) {
		snprintf(reason, PC_REASON_LEN, "mkdir %.100s: %s", cg,
			 strerror(errno));
		cg[0] = '\0';
		return -1;
	}
	snprintf(p, sizeof(p), "%s/memory.max", cg);
	if (access(p, F_OK)) {
		snprintf(reason, PC_REASON_LEN,
			 "memory controller not enabled for %.100s", cg);
		rmdir(cg);
		cg[0] = '\0';
		return -1;
	}
	return 0;
}

int pc_cgroup_write(const char *cg, const char *file, const char *val)
{
	char p[PC_PATH_LEN + 64];

	snprintf(p, sizeof(p), "%s/%s", cg, file);
	return pc_write_file(p, val);
}

int pc_cgroup_move(const char *cg, pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d\n", pid ? pid : getpid());
	return pc_cgroup_write(cg, "cgroup.procs", buf);
}

int pc_drop_caches(void)
{
	sync();
	return pc_write_file("/proc/sys/vm/drop_caches", "3\n");
}

/* Number of NUMA nodes with memory, from a list like "0-1,3". */
int pc_nr_mem_nodes(void)
{
	char buf[256], *p;
	int nr = 0;

	if (pc_read_file("/sys/devices/system/node/has_memory", buf,
			 sizeof(buf)))
		return 1;
	p = buf;
	while (*p && *p != '\n') {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		nr += b - a + 1;
		if (*p == ',')
			p++;
		else
			break;
	}
	return nr ? nr : 1;
}

size_t pc_pmd_size(void)
{
	char buf[64];

	if (pc_read_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
			 buf, sizeof(buf)))
		return 0;
	return strtoul(buf, NULL, 10);
}

/* Is @dir the mount point of a filesystem of type @fstype? */
static bool pc_is_mount_of(const char *dir, const char *fstype)
{
	struct mntent *m;
	bool found = false;
	FILE *f;

	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return false;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_dir, dir))
			found = !strcmp(m->mnt_type, fstype);
	}
	endmntent(f);
	return found;
}

static int pc_setup_diskfs(struct pc_backing *b, const char *env,
			   const char *def, const char *fstype,
			   unsigned long magic, char *reason)
{
	const char *dir = getenv(env);
	struct statfs sfs;

	if (dir && *dir) {
		if (statfs(dir, &sfs)) {
			snprintf(reason, PC_REASON_LEN, "%s=%s: %s", env, dir,
				 strerror(errno));
			return KSFT_SKIP;
		}
		if ((unsigned long)sfs.f_type != magic) {
			snprintf(reason, PC_REASON_LEN, "%s=%s is not %s",
				 env, dir, fstype);
			return KSFT_SKIP;
		}
	} else {
		dir = def;
		if (!pc_is_mount_of(dir, fstype)) {
			snprintf(reason, PC_REASON_LEN,
				 "no %s mounted at %s (set %s)", fstype, dir,
				 env);
			return KSFT_SKIP;
		}
	}
	snprintf(b->dir, sizeof(b->dir), "%s/pagecache.XXXXXX", dir);
	if (!mkdtemp(b->dir)) {
		snprintf(reason, PC_REASON_LEN, "cannot create a directory in %s: %s",
			 dir, strerror(errno));
		return KSFT_SKIP;
	}
	if (statfs(b->dir, &sfs) == 0)
		b->blksize = sfs.f_bsize;
	return 0;
}

static int pc_setup_tmpfs(struct pc_backing *b, bool huge, char *reason)
{
	char opts[64];

	if (!pc_is_root()) {
		snprintf(reason, PC_REASON_LEN,
			 "mounting a tmpfs needs root");
		return KSFT_SKIP;
	}
	if (huge && !pc_pmd_size()) {
		snprintf(reason, PC_REASON_LEN,
			 "no transparent huge pages (CONFIG_TRANSPARENT_HUGEPAGE)");
		return KSFT_SKIP;
	}
	snprintf(b->mnt, sizeof(b->mnt), "/tmp/pagecache.XXXXXX");
	if (!mkdtemp(b->mnt)) {
		snprintf(reason, PC_REASON_LEN, "mkdtemp: %s", strerror(errno));
		b->mnt[0] = '\0';
		return -1;
	}
	snprintf(opts, sizeof(opts), "huge=%s,size=256m,mode=0700",
		 huge ? "always" : "never");
	if (mount("pagecache_test", b->mnt, "tmpfs", 0, opts)) {
		snprintf(reason, PC_REASON_LEN, "mount -t tmpfs -o %s: %s",
			 opts, strerror(errno));
		rmdir(b->mnt);
		b->mnt[0] = '\0';
		return KSFT_SKIP;
	}
	snprintf(b->dir, sizeof(b->dir), "%s", b->mnt);
	return 0;
}

int pc_backing_setup(struct pc_backing *b, enum pc_backing_type type,
		     char *reason)
{
	static const char * const names[] = {
		[PC_EXT4] = "ext4", [PC_XFS] = "xfs", [PC_TMPFS] = "tmpfs",
		[PC_TMPFS_HUGE] = "tmpfs huge=always", [PC_MEMFD] = "memfd",
	};
	size_t pmd = pc_pmd_size();
	int ret = 0, fd;

	memset(b, 0, sizeof(*b));
	b->type = type;
	b->name = names[type];
	b->page_size = sysconf(_SC_PAGESIZE);
	b->blksize = b->page_size;
	/* Boundary scale for offsets: small folios, or a PMD where likely. */
	b->folio_size = 16 * b->page_size;
	reason[0] = '\0';

	switch (type) {
	case PC_EXT4:
		ret = pc_setup_diskfs(b, PC_ENV_EXT4_DIR, PC_DEFAULT_EXT4_DIR,
				      "ext4", EXT4_SUPER_MAGIC, reason);
		break;
	case PC_XFS:
		ret = pc_setup_diskfs(b, PC_ENV_XFS_DIR, PC_DEFAULT_XFS_DIR,
				      "xfs", XFS_SUPER_MAGIC, reason);
		if (pmd)
			b->folio_size = pmd;
		break;
	case PC_TMPFS:
		ret = pc_setup_tmpfs(b, false, reason);
		break;
	case PC_TMPFS_HUGE:
		ret = pc_setup_tmpfs(b, true, reason);
		b->folio_size = pmd;
		break;
	case PC_MEMFD:
		fd = memfd_create("pagecache_probe", MFD_CLOEXEC);
		if (fd < 0) {
			snprintf(reason, PC_REASON_LEN, "memfd_create: %s",
				 strerror(errno));
			return KSFT_SKIP;
		}
		close(fd);
		break;
	}
	return ret;
}

void pc_backing_teardown(struct pc_backing *b)
{
	struct dirent *de;
	DIR *d;

	if (b->dir[0]) {
		d = opendir(b->dir);
		if (d) {
			while ((de = readdir(d))) {
				if (de->d_name[0] == '.')
					continue;
				unlinkat(dirfd(d), de->d_name, 0);
			}
			closedir(d);
		}
		if (!b->mnt[0])
			rmdir(b->dir);
	}
	if (b->mnt[0]) {
		umount2(b->mnt, MNT_DETACH);
		rmdir(b->mnt);
	}
	b->dir[0] = '\0';
	b->mnt[0] = '\0';
}

int pc_backing_create(struct pc_backing *b, const char *tag, int flags,
		      char *path, size_t pathlen)
{
	char buf[512];

	if (b->type == PC_MEMFD) {
		if (path)
			path[0] = '\0';
		return memfd_create(tag, MFD_CLOEXEC);
	}
	snprintf(buf, sizeof(buf), "%s/%s.%u", b->dir, tag, b->nr_files++);
	if (path)
		snprintf(path, pathlen, "%s", buf);
	return open(buf, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0600);
}

uint64_t pc_rand_offset(struct pc_rng *r, uint64_t limit, size_t folio_size)
{
	uint64_t scale, off;
	int shift, max_shift = 0;

	switch (pc_rand_below(r, 8)) {
	case 0:
	case 1:
	case 2:
		return pc_rand_below(r, limit + 1);
	case 3:
		/* Around EOF. */
		off = limit - pc_rand_below(r, 64);
		off += pc_rand_below(r, 32);
		return off > limit ? limit : off;
	default:
		break;
	}
	/* Near a multiple of 4K, 8K, ... up to the folio size. */
	while ((4096ULL << (max_shift + 1)) <= folio_size)
		max_shift++;
	shift = pc_rand_below(r, max_shift + 1);
	scale = 4096ULL << shift;
	off = pc_rand_below(r, limit / scale + 1) * scale;
	if (pc_rand_below(r, 2))
		off += pc_rand_below(r, 16);
	else if (off >= 16)
		off -= pc_rand_below(r, 16);
	return off > limit ? limit : off;
}

size_t pc_rand_len(struct pc_rng *r, size_t max, size_t folio_size)
{
	uint64_t c = pc_rand_below(r, 100);
	size_t len;

	if (c < 10)
		len = 1 + pc_rand_below(r, 16);
	else if (c < 30)
		len = 1 + pc_rand_below(r, 512);
	else if (c < 38)
		len = 1 + pc_rand_below(r, 4096);
	else if (c < 55)
		len = 1 + pc_rand_below(r, 65536);
	else if (c < 62)	/* 64 KiB, a lockless chunk, and off by one */
		len = 65535 + pc_rand_below(r, 3);
	else if (c < 77)
		len = 4096 * (1 + pc_rand_below(r, 32)) - 1 +
		      pc_rand_below(r, 3);
	else if (c < 80)	/* 1 MiB: several chunks, across folios */
		len = (1 << 20) - 1 + pc_rand_below(r, 3);
	else if (c < 88)
		len = folio_size - 1 + pc_rand_below(r, 3);
	else
		len = 1 + pc_rand_below(r, 2 * folio_size);
	if (len > max)
		len = max;
	return len ? len : 1;
}

static inline uint8_t pc_byte(uint64_t w, unsigned int i)
{
	return w >> (8 * i);
}

void pc_fill(void *buf, uint64_t off, size_t len, uint8_t magic,
	     uint16_t fid, uint8_t gen)
{
	uint8_t *p = buf;
	uint64_t w;

	while (len && (off & 7)) {
		*p++ = pc_byte(pc_word(magic, fid, gen, off), off & 7);
		off++;
		len--;
	}
	while (len >= 8) {
		w = pc_word(magic, fid, gen, off);
		memcpy(p, &w, 8);	/* little endian layout below */
		p += 8;
		off += 8;
		len -= 8;
	}
	while (len) {
		*p++ = pc_byte(pc_word(magic, fid, gen, off), off & 7);
		off++;
		len--;
	}
}

static bool pc_gen_ok(const struct pc_rules *rules, uint8_t gen)
{
	if (!gen)
		return false;
	return rules->gen_wrapped || gen <= rules->max_gen;
}

static void pc_note_bad(struct pc_verdict *v, uint64_t off, uint64_t val,
			uint64_t exp)
{
	if (v->have_bad)
		return;
	v->have_bad = true;
	v->bad_off = off;
	v->bad_val = val;
	v->bad_exp = exp;
}

/* Slow path: check the bytes [lo, hi) of the word at file offset @wo. */
static void pc_check_bytes(const uint8_t *obs, uint64_t wo, unsigned int lo,
			   unsigned int hi, const struct pc_rules *rules,
			   struct pc_verdict *v)
{
	uint64_t exp = pc_word(PC_MAGIC_DATA, rules->fid,
			       rules->max_gen ? rules->max_gen : 1, wo);
	bool bad = false, foreign = false, zero = false, shifted = false;
	uint64_t val = 0;
	unsigned int i;

	for (i = lo; i < hi; i++) {
		uint8_t b = obs[i - lo], e = pc_byte(exp, i);

		val |= (uint64_t)b << (8 * i);
		if (b == 0 && rules->zeros_ok) {
			zero = true;
			continue;
		}
		if (i == PC_GEN_BYTE) {
			if (!pc_gen_ok(rules, b))
				bad = true;
			continue;
		}
		if (b == e)
			continue;
		/* Offset bits above the block moved by collapse/insert. */
		if (rules->shift_ok && i >= 1 && i <= 3 &&
		    rules->shift_unit >= PC_SHIFT_MIN_UNIT) {
			shifted = true;
			continue;
		}
		bad = true;
		if (i == 7 && b != PC_MAGIC_DATA)
			foreign |= b == PC_MAGIC_SECRET;
		if (i == 5 || i == 6)
			foreign = true;	/* another test file's id */
	}
	/* A secret magic byte anywhere in the word makes it foreign. */
	if (hi == 8 && lo <= 7 && obs[7 - lo] == PC_MAGIC_SECRET)
		foreign = true;
	if (foreign) {
		v->foreign++;
		pc_note_bad(v, wo + lo, val, exp);
	} else if (bad) {
		v->invalid++;
		pc_note_bad(v, wo + lo, val, exp);
	} else if (shifted) {
		v->words_shifted++;
	} else if (zero) {
		v->words_zero++;
	} else {
		v->words_ok++;
	}
}

void pc_check(const void *buf, uint64_t off, size_t len,
	      const struct pc_rules *rules, struct pc_verdict *v)
{
	const uint8_t *p = buf;
	uint64_t end = off + len;

	while (off < end) {
		uint64_t wo = off & ~7ULL;
		unsigned int lo = off - wo;
		unsigned int hi = end - wo < 8 ? end - wo : 8;

		if (lo == 0 && hi == 8) {
			uint64_t w, exp;
			uint8_t gen;

			memcpy(&w, p, 8);
			gen = pc_byte(w, PC_GEN_BYTE);
			exp = pc_word(PC_MAGIC_DATA, rules->fid, gen, wo);
			if (w == exp && pc_gen_ok(rules, gen)) {
				if (gen == rules->max_gen)
					v->words_ok++;
				else
					v->words_stale++;
				p += 8;
				off += 8;
				continue;
			}
		}
		pc_check_bytes(p, wo, lo, hi, rules, v);
		p += hi - lo;
		off += hi - lo;
	}
}

int pc_pfn(const void *addr, uint64_t *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t pg = getpagesize();
	uint64_t ent;
	ssize_t ret;

	if (fd < 0)
		return -1;
	ret = pread(fd, &ent, sizeof(ent), (uintptr_t)addr / pg * sizeof(ent));
	close(fd);
	/* Bit 63: present; bits 0-54: the pfn (0 without CAP_SYS_ADMIN) */
	if (ret != sizeof(ent) || !(ent >> 63) || !(ent & ((1ULL << 55) - 1)))
		return -1;
	*pfn = ent & ((1ULL << 55) - 1);
	return 0;
}

int pc_kpageflags(uint64_t pfn, uint64_t *flags)
{
	int fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	ssize_t ret;

	if (fd < 0)
		return -1;
	ret = pread(fd, flags, sizeof(*flags), pfn * sizeof(*flags));
	close(fd);
	return ret == sizeof(*flags) ? 0 : -1;
}

/* Of the architectures Linux runs on, all but these implement it. */
bool pc_arch_flushes_dcache(void)
{
	static const char *const none[] = { "x86_64", "i386", "i486", "i586",
					    "i686", "s390", "loongarch",
					    "alpha" };
	struct utsname u;
	size_t i;

	if (uname(&u))
		return false;
	for (i = 0; i < ARRAY_SIZE(none); i++)
		if (!strncmp(u.machine, none[i], strlen(none[i])))
			return false;
	return true;
}

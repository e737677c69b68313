// SPDX-License-Identifier: GPL-2.0
/*
 * abread: A/B of two kernel read paths in one boot, from userspace.  The
 * kernel is built with bench/uml/ab/knob.patch, whose global variable
 * shmem_read_exp (a parameter of the built-in shmem code,
 * /sys/module/shmem/parameters/read_exp) picks the tmpfs read loop.  Each
 * round times one batch of sequential pread()s (wrapping at EOF) per
 * variant, order reversed every other round; what is kept is the ratio
 * within a round, so slow phases of the host hit both sides alike.
 *
 *   abread -f FILE -l LEN [-n READS] [-r ROUNDS] [-v 1,0,2] [-k KNOB]
 *
 * Output, one CSV line per variant (-H: header first):
 *   file,len,variant,ratio,q1,q3,ns_per_read
 * ratio: median over the rounds of (ns of the first variant) / (ns of
 * this one), its speed relative to the first (> 1: faster); q1, q3: its
 * quartiles; ns_per_read: the mean over all rounds.
 */
#include "bench.h"

#include <fcntl.h>
#include <unistd.h>

#define MAX_VARIANTS	4
#define MAX_ROUNDS	10000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void set_variant(int knob, int v)
{
	char s[16];
	int n = snprintf(s, sizeof(s), "%d\n", v);

	if (pwrite(knob, s, n, 0) != n)
		die("writing variant %d to the knob: %s", v, strerror(errno));
}

static double batch(int fd, char *buf, size_t len, long reads, off_t *pos)
{
	double t = now();
	long i;

	for (i = 0; i < reads; i++) {
		ssize_t r = pread(fd, buf, len, *pos);

		if (r < 0)
			die("pread at %lld: %s", (long long)*pos, strerror(errno));
		*pos += r;
		if ((size_t)r < len)
			*pos = 0;
	}
	return now() - t;
}

int main(int argc, char **argv)
{
	const char *file = NULL, *knob_path = "/sys/module/shmem/parameters/read_exp";
	int variants[MAX_VARIANTS] = { 1, 0 }, nvar = 2, header = 0, c, knob, fd;
	long reads = 1000, rounds = 100, r;
	static double ratio[MAX_VARIANTS][MAX_ROUNDS];
	double sum[MAX_VARIANTS] = { 0 };
	size_t len = 4096;
	off_t pos = 0;
	char *buf, *s;

	while ((c = getopt(argc, argv, "f:l:n:r:v:k:H")) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'l':
			len = parse_size('l', optarg);
			break;
		case 'n':
			reads = parse_long('n', optarg, 1, 1L << 30);
			break;
		case 'r':
			rounds = parse_long('r', optarg, 1, MAX_ROUNDS);
			break;
		case 'v':
			nvar = 0;
			for (s = strtok(optarg, ","); s; s = strtok(NULL, ",")) {
				if (nvar == MAX_VARIANTS)
					die("-v: at most %d variants", MAX_VARIANTS);
				variants[nvar++] = parse_long('v', s, 0, 9);
			}
			break;
		case 'k':
			knob_path = optarg;
			break;
		case 'H':
			header = 1;
			break;
		default:
			die("usage: abread -f FILE -l LEN [-n READS] [-r ROUNDS] [-v A,B,...] [-k KNOB] [-H]");
		}
	}
	if (!file || optind != argc)
		die("usage: abread -f FILE -l LEN [-n READS] [-r ROUNDS] [-v A,B,...] [-k KNOB] [-H]");
	if (nvar < 2)
		die("-v: at least two variants");
	if (!len || len > (64UL << 20))
		die("-l: 1 byte to 64 MiB");
	knob = open(knob_path, O_WRONLY);
	if (knob < 0)
		die("%s: %s (a kernel built with bench/uml/ab/knob.patch?)", knob_path, strerror(errno));
	fd = open(file, O_RDONLY);
	if (fd < 0)
		die("%s: %s", file, strerror(errno));
	buf = malloc(len);
	if (!buf)
		die("no memory for %zu bytes", len);
	memset(buf, 0, len);

	/* one pass first, so that the folios are in and (if hot) marked */
	set_variant(knob, variants[0]);
	batch(fd, buf, len, reads, &pos);
	for (r = 0; r < rounds; r++) {
		double t[MAX_VARIANTS];
		int i;

		for (i = 0; i < nvar; i++) {
			int k = (r & 1) ? nvar - 1 - i : i;

			set_variant(knob, variants[k]);
			t[k] = batch(fd, buf, len, reads, &pos);
			sum[k] += t[k];
		}
		for (i = 0; i < nvar; i++)
			ratio[i][r] = t[0] / (t[i] > 0 ? t[i] : 1e-9);
	}
	set_variant(knob, 0);

	if (header)
		printf("file,len,variant,ratio,q1,q3,ns_per_read\n");
	for (c = 0; c < nvar; c++) {
		qsort(ratio[c], rounds, sizeof(double), cmp_double);
		printf("%s,%zu,%d,%.4f,%.4f,%.4f,%.1f\n", file, len, variants[c],
		       ratio[c][rounds / 2], ratio[c][rounds / 4], ratio[c][(3 * rounds) / 4],
		       sum[c] * 1e9 / ((double)reads * rounds));
	}
	return 0;
}

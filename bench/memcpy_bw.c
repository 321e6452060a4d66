/*
 * memcpy bandwidth: the reference that in-process message bandwidth is
 * compared with (DESIGN.md section 10 asks for >= 80% of it at 4 MiB).
 *
 * Reports bytes copied / time (MB/s, 1 MB = 10^6 bytes), the same convention
 * as pingpong's bw_MBps (size / one-way time), so a single-copy transport
 * can at best match it.
 *
 * The cache footprint decides the number at sizes near the cache sizes, so
 * -b picks the footprint of the ping-pong being compared with:
 *   -b 2 (default)  A -> B again and again: 2 x size, what each core touches
 *                   when the two ranks run on two PEs;
 *   -b 4            A -> B, then C -> D: 4 x size, what one core touches when
 *                   both ranks share it (a send and a receive buffer each).
 *
 * Every buffer is written with non-zero data before timing.  With -z
 * the sources are left as allocated (untouched calloc memory, which maps the
 * kernel's shared zero page): that number is wrong on purpose, to show how
 * much an unwritten send buffer inflates a bandwidth benchmark.
 *
 * Output: size=4194304 buffers=2 memcpy_MBps=12345.6 us=... min_us=...
 *         iters=... reps=...
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_SIZE (4u << 20)
#define DEFAULT_ITERS 200
#define DEFAULT_REPS 7
#define MAX_REPS 101
#define MAX_BUFFERS 4

typedef struct options {
    unsigned long size;
    unsigned long iters;
    unsigned long reps;
    unsigned long buffers;
    int zero_page;
} options_t;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Keeps the compiler from dropping or merging copies whose results are
 * never read. */
static void clobber(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [-s BYTES] [-b 2|4] [-i ITERS] [-r REPS] [-z]\n"
            "  -s BYTES  bytes per copy; k or m suffix for KiB/MiB "
            "(default 4m)\n"
            "  -b N      buffers: 2 copies A->B, 4 alternates A->B and C->D\n"
            "            (default 2)\n"
            "  -i ITERS  copies per repetition (default %d)\n"
            "  -r REPS   repetitions, median reported (default %d)\n"
            "  -z        leave the sources untouched (zero page): a wrong\n"
            "            number, printed to show the trap\n",
            prog, DEFAULT_ITERS, DEFAULT_REPS);
}

static int parse_count(const char *arg, const char *flag, unsigned long lo,
                       unsigned long hi, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(arg, &end, 10);
    unsigned long unit = 1;
    if (end != arg && (*end == 'k' || *end == 'K')) {
        unit = 1024;
        end++;
    } else if (end != arg && (*end == 'm' || *end == 'M')) {
        unit = 1024 * 1024;
        end++;
    }
    if (end == arg || *end != '\0' || errno != 0 || v > hi / unit ||
        v * unit < lo) {
        fprintf(stderr, "memcpy_bw: %s wants a number in %lu..%lu, got '%s'\n",
                flag, lo, hi, arg);
        return -1;
    }
    *out = v * unit;
    return 0;
}

/* Returns 0 to run, 1 after -h, -1 on a bad command line. */
static int parse_args(int argc, char **argv, options_t *o)
{
    o->size = DEFAULT_SIZE;
    o->iters = DEFAULT_ITERS;
    o->reps = DEFAULT_REPS;
    o->buffers = 2;
    o->zero_page = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int status = 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout, argv[0]);
            return 1;
        } else if (strcmp(a, "-z") == 0) {
            o->zero_page = 1;
        } else if (i + 1 < argc && strcmp(a, "-s") == 0) {
            status = parse_count(argv[++i], "-s", 1, 1ul << 32, &o->size);
        } else if (i + 1 < argc && strcmp(a, "-b") == 0) {
            status = parse_count(argv[++i], "-b", 2, MAX_BUFFERS, &o->buffers);
            if (status == 0 && o->buffers % 2 != 0) {
                fprintf(stderr, "memcpy_bw: -b wants 2 or 4\n");
                status = -1;
            }
        } else if (i + 1 < argc && strcmp(a, "-i") == 0) {
            status = parse_count(argv[++i], "-i", 1, 100000000ul, &o->iters);
        } else if (i + 1 < argc && strcmp(a, "-r") == 0) {
            status = parse_count(argv[++i], "-r", 1, MAX_REPS, &o->reps);
        } else {
            fprintf(stderr, "memcpy_bw: unknown or incomplete option '%s'\n",
                    a);
            status = -1;
        }
        if (status != 0) {
            usage(stderr, argv[0]);
            return -1;
        }
    }
    return 0;
}

/* count copies; copy k goes from buf[2p] to buf[2p + 1], p = k mod pairs. */
static void copies(unsigned char **buf, unsigned long pairs, size_t size,
                   unsigned long count)
{
    for (unsigned long k = 0; k < count; k++) {
        unsigned long p = k % pairs;
        memcpy(buf[2 * p + 1], buf[2 * p], size);
        clobber(buf[2 * p + 1]);
    }
}

int main(int argc, char **argv)
{
    options_t o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;

    unsigned char *buf[MAX_BUFFERS] = {NULL};
    int status = 1;
    for (unsigned long b = 0; b < o.buffers; b++) {
        buf[b] = calloc(1, o.size);
        if (buf[b] == NULL) {
            fprintf(stderr, "memcpy_bw: cannot allocate %lu x %lu bytes\n",
                    o.buffers, o.size);
            goto err_free_bufs;
        }
        /* Sources are the even buffers: -z leaves them on the zero page. */
        if (!(o.zero_page && b % 2 == 0))
            memset(buf[b], (int)(0x11 * (b + 1)), o.size);
    }

    unsigned long pairs = o.buffers / 2;
    copies(buf, pairs, o.size, o.iters / 10 + 2);
    double us[MAX_REPS];
    for (unsigned long r = 0; r < o.reps; r++) {
        double t0 = now_us();
        copies(buf, pairs, o.size, o.iters);
        us[r] = (now_us() - t0) / (double)o.iters;
    }
    qsort(us, o.reps, sizeof(double), cmp_double);
    unsigned long m = o.reps / 2;
    double med = o.reps % 2 ? us[m] : 0.5 * (us[m - 1] + us[m]);

    printf("size=%lu buffers=%lu memcpy_MBps=%.1f us=%.3f min_us=%.3f "
           "iters=%lu reps=%lu%s\n",
           o.size, o.buffers, (double)o.size / med, med, us[0], o.iters, o.reps,
           o.zero_page ? " zero_page=1" : "");
    status = 0;

err_free_bufs:
    for (unsigned long b = 0; b < o.buffers; b++)
        free(buf[b]);
    return status;
}

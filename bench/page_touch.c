/*
 * What the first use of a page costs, by how much memory is in use: the
 * floor under every rank's start-up (docs/bench.md, "Very large jobs").
 *
 * Maps GIB GiB (no huge pages) and, one GiB after the other, backs it in
 * one MADV_POPULATE_WRITE call, then reads one byte of each 4 KiB page.
 * On bare metal the first costs the kernel's clearing of the page (well
 * under a microsecond) and the second nothing; in a virtual machine each
 * may trap to the host: backing a guest page the host gave back (after a
 * guest with free page reporting freed it) and filling a shadow page
 * table on the first access.
 *
 *   page_touch [GIB]     (default 4)
 *
 * Output, a line a GiB: page_touch gib=K populate_us=... touch_us=...
 * (microseconds a 4 KiB page).
 */
#define _GNU_SOURCE /* MADV_POPULATE_WRITE, MADV_NOHUGEPAGE */

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

enum { PAGE = 4096 };
#define GIB (1ul << 30)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long gib = argc > 1 ? atol(argv[1]) : 4;
    if (gib < 1 || gib > 1024) {
        fprintf(stderr, "page_touch: GIB must be 1 to 1024, not %s\n", argv[1]);
        return 2;
    }
    char *p = mmap(NULL, (size_t)gib * GIB, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED || madvise(p, (size_t)gib * GIB, MADV_NOHUGEPAGE)) {
        perror("page_touch: mmap");
        return 1;
    }
    const double pages = (double)(GIB / PAGE);
    for (long g = 0; g < gib; g++) {
        char *at = p + (size_t)g * GIB;
        double t0 = now();
        if (madvise(at, GIB, MADV_POPULATE_WRITE)) {
            perror("page_touch: MADV_POPULATE_WRITE");
            return 1;
        }
        double t1 = now();
        unsigned sum = 0;
        for (size_t off = 0; off < GIB; off += PAGE)
            sum += (unsigned char)((volatile char *)at)[off];
        double t2 = now();
        if (sum) /* freshly backed pages read zero */
            return 1;
        printf("page_touch gib=%ld populate_us=%.3f touch_us=%.3f\n", g,
               (t1 - t0) * 1e6 / pages, (t2 - t1) * 1e6 / pages);
    }
    return 0;
}

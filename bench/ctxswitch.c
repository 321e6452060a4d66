/*
 * Cost of one user-level-thread context switch (DESIGN.md section 10 target:
 * <= 20 ns on x86-64).
 *
 * Two contexts bounce control back and forth: the benchmark's own stack and
 * one ULT made with amp_ult_ctx_make.  N round trips are 2N switches; the
 * time per switch is the median over several repetitions.  The ULT counts
 * how often it is resumed, and the count is checked, so a switch that
 * silently does nothing cannot pass for a fast one.
 *
 * The scheduler does one thing more at every switch to a rank: it stores
 * the rank's thread pointer into %fs:0 (amp_tls_set), through which the
 * rank's privatized globals are reached (tlsglobals/tls.h).  The amp_ult_tls
 * loop does the same: each context gets its own copy of the static TLS
 * block, made as the runtime makes a rank's, and each switch first installs
 * the copy of the context it resumes.  The kernel thread's own pointer is
 * put back after every repetition, before anything else runs.  Plain and
 * TLS repetitions alternate, so that a burst of other work on the machine
 * hits both alike; their difference is the cost of the TLS switch.
 *
 * The same loop over glibc's swapcontext runs in the same invocation for
 * comparison.  swapcontext also saves and restores the signal mask, a system
 * call per switch, which is the main reason runtimes write their own.
 *
 * Output:
 *   method=amp_ult ns_per_switch=6.1 min_ns=5.9 switches=2000000 reps=7
 *   method=amp_ult_tls ns_per_switch=6.4 min_ns=6.1 switches=2000000 reps=7
 *   method=ucontext ns_per_switch=250.3 min_ns=245.0 switches=200000 reps=7
 *   ratio_tls_over_amp_ult=1.05
 *   ratio_ucontext_over_amp_ult=41.0
 */
#define _GNU_SOURCE /* makecontext and swapcontext, clock_gettime */

#include "tlsglobals/tls.h"
#include "ult/ult.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#define STACK_SIZE (64 * 1024)
#define DEFAULT_ROUNDS 1000000L
#define DEFAULT_REPS 7
#define MAX_REPS 101
/* swapcontext costs a system call per switch: give it fewer rounds. */
#define UCONTEXT_ROUNDS_DIVISOR 10

typedef struct amp_pair {
    amp_ult_ctx_t main_ctx;
    amp_ult_ctx_t ult_ctx;
    long resumed; /* times the ULT has been switched to */
} amp_pair_t;

typedef struct tls_pair {
    amp_ult_ctx_t main_ctx;
    amp_ult_ctx_t ult_ctx;
    void *main_tp, *ult_tp; /* thread pointers of the two TLS copies */
    void *kernel_tp;        /* the kernel thread's own, put back after */
    void *copies;           /* memory of both copies */
    long resumed;
} tls_pair_t;

typedef struct uc_pair {
    ucontext_t main_ctx;
    ucontext_t ult_ctx;
    long resumed;
} uc_pair_t;

typedef struct result {
    double median_ns;
    double min_ns;
    long switches;
} result_t;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarize(double *ns, int reps, long switches, result_t *out)
{
    qsort(ns, (size_t)reps, sizeof(double), cmp_double);
    out->median_ns =
        reps % 2 ? ns[reps / 2] : 0.5 * (ns[reps / 2 - 1] + ns[reps / 2]);
    out->min_ns = ns[0];
    out->switches = switches;
}

/* ------------------------------------------------------------------ amp */

static void amp_body(void *arg)
{
    amp_pair_t *p = arg;
    for (;;) {
        p->resumed++;
        amp_ult_switch(&p->ult_ctx, &p->main_ctx);
    }
}

static void amp_rounds(amp_pair_t *p, long rounds)
{
    for (long k = 0; k < rounds; k++)
        amp_ult_switch(&p->main_ctx, &p->ult_ctx);
}

/* ------------------------------------------------------------ amp + TLS */

/* A variable of this program's own TLS block.  Every copy must hold its
 * initial value, not the kernel thread's current one: the copies are made
 * from the initialization image, as a rank's are. */
static _Thread_local long tls_marker = 0x5a17;

static void tls_body(void *arg)
{
    tls_pair_t *p = arg;
    for (;;) {
        p->resumed++;
        amp_tls_set(p->main_tp);
        amp_ult_switch(&p->ult_ctx, &p->main_ctx);
    }
}

/* Leaves %fs:0 pointing at main's copy: the caller puts the kernel
 * thread's pointer back. */
static void tls_rounds(tls_pair_t *p, long rounds)
{
    for (long k = 0; k < rounds; k++) {
        amp_tls_set(p->ult_tp);
        amp_ult_switch(&p->main_ctx, &p->ult_ctx);
    }
}

/* Gives main and the ULT a TLS copy each.  Returns 0, or -1 (reported). */
static int tls_pair_init(tls_pair_t *p, void *stack)
{
    amp_tls_image_t img;

    memset(p, 0, sizeof(*p));
    if (amp_tls_image_init(&img) != AMP_OK) {
        fprintf(stderr, "ctxswitch: cannot read the static TLS layout\n");
        return -1;
    }
    size_t size = amp_tls_copy_size(&img);
    if (posix_memalign(&p->copies, 64, 2 * size) != 0) {
        fprintf(stderr, "ctxswitch: cannot allocate two %zu-byte TLS copies\n",
                size);
        return -1;
    }
    p->kernel_tp = amp_tls_get();
    tls_marker = 1; /* the kernel thread's value, which no copy may show */
    ptrdiff_t marker_off = (char *)&tls_marker - (char *)p->kernel_tp;
    p->main_tp = amp_tls_copy_init(&img, p->copies);
    p->ult_tp = amp_tls_copy_init(&img, (char *)p->copies + size);
    long in_main = *(long *)((char *)p->main_tp + marker_off);
    long in_ult = *(long *)((char *)p->ult_tp + marker_off);
    if (in_main != 0x5a17 || in_ult != 0x5a17) {
        fprintf(stderr,
                "ctxswitch: TLS copies hold %#lx and %#lx, expected "
                "%#lx\n",
                (unsigned long)in_main, (unsigned long)in_ult, 0x5a17UL);
        free(p->copies);
        return -1;
    }
    amp_ult_ctx_make(&p->ult_ctx, stack, STACK_SIZE, tls_body, p);
    return 0;
}

/* One timed repetition of the TLS loop, in ns per switch; 0 when the ULT's
 * store to %fs:0 did not take effect (reported). */
static double tls_rep(tls_pair_t *p, long rounds)
{
    double t0 = now_ns();
    tls_rounds(p, rounds);
    void *tp = amp_tls_get();
    amp_tls_set(p->kernel_tp);
    double ns = (now_ns() - t0) / (2.0 * (double)rounds);
    if (tp != p->main_tp) {
        fprintf(stderr,
                "ctxswitch: amp_ult_tls: %%fs:0 is %p after the switch "
                "back, expected main's copy %p\n",
                tp, p->main_tp);
        return 0.0;
    }
    return ns;
}

static int check_resumed(const char *method, long resumed, long expected)
{
    if (resumed == expected)
        return 0;
    fprintf(stderr, "ctxswitch: %s: ULT resumed %ld times, expected %ld\n",
            method, resumed, expected);
    return -1;
}

/* amp_ult_switch alone (into plain) and with the TLS store (into tls), in
 * alternating repetitions.  Returns 0, or -1 when a check failed. */
static int bench_amp(void *stack, void *tls_stack, long rounds, int reps,
                     result_t *plain, result_t *tls)
{
    amp_pair_t p;
    tls_pair_t t;
    double ns[MAX_REPS], tls_ns[MAX_REPS];
    long warmup = rounds / 10 + 1;

    if (tls_pair_init(&t, tls_stack) != 0)
        return -1;
    memset(&p, 0, sizeof(p));
    amp_ult_ctx_make(&p.ult_ctx, stack, STACK_SIZE, amp_body, &p);
    amp_rounds(&p, warmup);
    tls_rounds(&t, warmup);
    amp_tls_set(t.kernel_tp);
    int status = 0;
    for (int r = 0; r < reps && status == 0; r++) {
        double t0 = now_ns();
        amp_rounds(&p, rounds);
        ns[r] = (now_ns() - t0) / (2.0 * (double)rounds);
        tls_ns[r] = tls_rep(&t, rounds);
        if (tls_ns[r] == 0.0)
            status = -1;
    }
    long expected = warmup + (long)reps * rounds;
    if (status == 0)
        status = check_resumed("amp_ult", p.resumed, expected);
    if (status == 0)
        status = check_resumed("amp_ult_tls", t.resumed, expected);
    if (status == 0) {
        summarize(ns, reps, 2 * rounds, plain);
        summarize(tls_ns, reps, 2 * rounds, tls);
    }
    /* Both ULTs stay suspended in their bodies, never switched to again:
     * their stacks and TLS copies can go. */
    free(t.copies);
    return status;
}

/* ------------------------------------------------------------- ucontext */

/* makecontext passes int arguments only: the pointer travels in two halves. */
static void uc_body(int hi, int lo)
{
    uintptr_t v = ((uintptr_t)(unsigned)hi << 16 << 16) | (unsigned)lo;
    uc_pair_t *p = (uc_pair_t *)v;
    for (;;) {
        p->resumed++;
        swapcontext(&p->ult_ctx, &p->main_ctx);
    }
}

static void uc_rounds(uc_pair_t *p, long rounds)
{
    for (long k = 0; k < rounds; k++)
        swapcontext(&p->main_ctx, &p->ult_ctx);
}

static int bench_ucontext(void *stack, long rounds, int reps, result_t *out)
{
    uc_pair_t p;
    double ns[MAX_REPS];
    long warmup = rounds / 10 + 1;

    memset(&p, 0, sizeof(p));
    if (getcontext(&p.ult_ctx) != 0) {
        fprintf(stderr, "ctxswitch: getcontext: %s\n", strerror(errno));
        return -1;
    }
    p.ult_ctx.uc_stack.ss_sp = stack;
    p.ult_ctx.uc_stack.ss_size = STACK_SIZE;
    p.ult_ctx.uc_link = NULL;
    uintptr_t v = (uintptr_t)&p;
    makecontext(&p.ult_ctx, (void (*)(void))uc_body, 2,
                (int)(unsigned)(v >> 16 >> 16), (int)(unsigned)v);

    uc_rounds(&p, warmup);
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        uc_rounds(&p, rounds);
        ns[r] = (now_ns() - t0) / (2.0 * (double)rounds);
    }
    long expected = warmup + (long)reps * rounds;
    if (p.resumed != expected) {
        fprintf(stderr,
                "ctxswitch: ucontext: resumed %ld times, expected "
                "%ld\n",
                p.resumed, expected);
        return -1;
    }
    summarize(ns, reps, 2 * rounds, out);
    return 0;
}

/* ----------------------------------------------------------------- main */

static int parse_long(const char *arg, const char *flag, long lo, long hi,
                      long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || errno != 0 || v < lo || v > hi) {
        fprintf(stderr,
                "ctxswitch: %s wants an integer in %ld..%ld, got "
                "'%s'\n",
                flag, lo, hi, arg);
        return -1;
    }
    *out = v;
    return 0;
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [-n ROUNDS] [-r REPS]\n"
            "  -n ROUNDS  round trips (2 switches each) per repetition for\n"
            "             amp_ult; ucontext gets ROUNDS/%d (default %ld)\n"
            "  -r REPS    repetitions, median reported (default %d)\n",
            prog, UCONTEXT_ROUNDS_DIVISOR, DEFAULT_ROUNDS, DEFAULT_REPS);
}

static void print_result(const char *method, const result_t *r, int reps)
{
    printf("method=%s ns_per_switch=%.2f min_ns=%.2f switches=%ld reps=%d\n",
           method, r->median_ns, r->min_ns, r->switches, reps);
}

int main(int argc, char **argv)
{
    long rounds = DEFAULT_ROUNDS, reps = DEFAULT_REPS;

    for (int i = 1; i < argc; i++) {
        int status;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else if (i + 1 < argc && strcmp(argv[i], "-n") == 0) {
            status = parse_long(argv[++i], "-n", UCONTEXT_ROUNDS_DIVISOR,
                                1000000000L, &rounds);
        } else if (i + 1 < argc && strcmp(argv[i], "-r") == 0) {
            status = parse_long(argv[++i], "-r", 1, MAX_REPS, &reps);
        } else {
            fprintf(stderr, "ctxswitch: unknown or incomplete option '%s'\n",
                    argv[i]);
            status = -1;
        }
        if (status != 0) {
            usage(stderr, argv[0]);
            return 2;
        }
    }

    void *stack, *tls_stack;
    if (posix_memalign(&stack, 4096, STACK_SIZE) != 0) {
        fprintf(stderr, "ctxswitch: cannot allocate a %d-byte stack\n",
                STACK_SIZE);
        return 1;
    }
    if (posix_memalign(&tls_stack, 4096, STACK_SIZE) != 0) {
        fprintf(stderr, "ctxswitch: cannot allocate a %d-byte stack\n",
                STACK_SIZE);
        goto err_free_stack;
    }
    /* Fault the stacks in before timing. */
    memset(stack, 0x5a, STACK_SIZE);
    memset(tls_stack, 0x5a, STACK_SIZE);

    result_t amp, amp_tls, uc;
    printf("# ctxswitch: round trips between two contexts, 2 switches "
           "each; median of %ld repetitions\n",
           reps);
    if (bench_amp(stack, tls_stack, rounds, (int)reps, &amp, &amp_tls) != 0)
        goto err_free_stacks;
    print_result("amp_ult", &amp, (int)reps);
    print_result("amp_ult_tls", &amp_tls, (int)reps);
    fflush(stdout);
    /* The amp ULTs are abandoned, never resumed: reuse a stack. */
    memset(stack, 0x5a, STACK_SIZE);
    if (bench_ucontext(stack, rounds / UCONTEXT_ROUNDS_DIVISOR, (int)reps,
                       &uc) != 0)
        goto err_free_stacks;
    print_result("ucontext", &uc, (int)reps);
    printf("ratio_tls_over_amp_ult=%.3f\n", amp_tls.median_ns / amp.median_ns);
    printf("ratio_ucontext_over_amp_ult=%.1f\n", uc.median_ns / amp.median_ns);

    free(tls_stack);
    free(stack);
    return 0;

err_free_stacks:
    free(tls_stack);
err_free_stack:
    free(stack);
    return 1;
}

/* The context switch: registers, FP control state, many contexts. */
#include "unit.h"

#include "ult/ult.h"

#include <fenv.h>
#include <stdint.h>
#include <stdlib.h>

void unit_switch_with_patterns(amp_ult_ctx_t *from, amp_ult_ctx_t *to,
                               uint64_t out[6]);
void unit_clobber_and_switch(amp_ult_ctx_t *from, amp_ult_ctx_t *to);

#define STACK (256 * 1024)

static amp_ult_ctx_t main_ctx, other_ctx;

static void clobber_entry(void *arg)
{
    (void)arg;
    for (;;)
        unit_clobber_and_switch(&other_ctx, &main_ctx);
}

UNIT_TEST(ult_switch_preserves_callee_saved_registers)
{
    void *stack = malloc(STACK);
    uint64_t out[6];
    amp_ult_ctx_make(&other_ctx, stack, STACK, clobber_entry, NULL);
    for (int round = 0; round < 3; round++) {
        unit_switch_with_patterns(&main_ctx, &other_ctx, out);
        UNIT_EQ(out[0], 0x1111111111111111ULL);
        UNIT_EQ(out[1], 0x2222222222222222ULL);
        UNIT_EQ(out[2], 0x3333333333333333ULL);
        UNIT_EQ(out[3], 0x4444444444444444ULL);
        UNIT_EQ(out[4], 0x5555555555555555ULL);
        UNIT_EQ(out[5], 0x6666666666666666ULL);
    }
}

static void rounding_entry(void *arg)
{
    int *seen = arg;
    for (;;) {
        *seen = fegetround();
        fesetround(FE_UPWARD);
        amp_ult_switch(&other_ctx, &main_ctx);
    }
}

/* Each context keeps its own rounding mode (MXCSR and x87 control word). */
UNIT_TEST(ult_switch_keeps_fp_control_per_context)
{
    void *stack = malloc(STACK);
    int seen = -1;
    fesetround(FE_TONEAREST);
    amp_ult_ctx_make(&other_ctx, stack, STACK, rounding_entry, &seen);
    fesetround(FE_TOWARDZERO);
    amp_ult_switch(&main_ctx, &other_ctx);
    UNIT_EQ(seen, FE_TONEAREST); /* a new context starts with its creator's */
    UNIT_EQ(fegetround(), FE_TOWARDZERO);
    fesetround(FE_DOWNWARD);
    amp_ult_switch(&main_ctx, &other_ctx);
    UNIT_EQ(seen, FE_UPWARD);
    UNIT_EQ(fegetround(), FE_DOWNWARD);
    /* the x87 unit rounds the same way */
    volatile long double one = 1.0L, three = 3.0L;
    long double third = one / three;
    long double down = third * three;
    UNIT_TRUE(down < 1.0L);
    fesetround(FE_TONEAREST);
}

#define NCTX 64
static amp_ult_ctx_t ring[NCTX + 1];
static long visits[NCTX];

static void ring_entry(void *arg)
{
    int i = (int)(intptr_t)arg;
    for (;;) {
        visits[i]++;
        /* pass to the next context; the last returns to main */
        amp_ult_switch(&ring[i], &ring[i + 1 < NCTX ? i + 1 : NCTX]);
    }
}

UNIT_TEST(ult_many_contexts_take_turns)
{
    char *stacks = malloc((size_t)NCTX * STACK);
    for (int i = 0; i < NCTX; i++)
        amp_ult_ctx_make(&ring[i], stacks + (size_t)i * STACK, STACK,
                         ring_entry, (void *)(intptr_t)i);
    for (int round = 1; round <= 100; round++) {
        amp_ult_switch(&ring[NCTX], &ring[0]);
        for (int i = 0; i < NCTX; i++)
            UNIT_EQ(visits[i], round);
    }
}

/* Not instrumented: AddressSanitizer would put probe on its fake stack. */
__attribute__((no_sanitize("address"))) static void align_entry(void *arg)
{
    uintptr_t *sp = arg;
    volatile char probe __attribute__((aligned(16)));
    *sp = (uintptr_t)&probe;
    amp_ult_switch(&other_ctx, &main_ctx);
}

/* A new context's entry runs with a 16-byte aligned stack (SSE code and
 * aligned locals depend on it). */
UNIT_TEST(ult_entry_stack_is_aligned)
{
    for (int off = 0; off < 16; off++) {
        char *stack = malloc(STACK + 16);
        uintptr_t sp = 0;
        amp_ult_ctx_make(&other_ctx, stack + off, STACK, align_entry, &sp);
        amp_ult_switch(&main_ctx, &other_ctx);
        UNIT_EQ(sp % 16, 0);
        UNIT_TRUE(sp > (uintptr_t)stack && sp < (uintptr_t)stack + STACK + 16);
    }
}

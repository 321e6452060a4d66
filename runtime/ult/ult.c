#include "ult/ult.h"

#include <stdint.h>
#include <string.h>

void amp_ult_trampoline(void);

/* Saved-context slots, in 8-byte words from ctx->sp (see the .S file). */
enum {
    SLOT_FPCTL,
    SLOT_R15,
    SLOT_R14,
    SLOT_R13,
    SLOT_R12,
    SLOT_RBX,
    SLOT_RBP,
    SLOT_RET,
    SLOT_COUNT
};

static uint64_t current_fp_control(void)
{
    uint32_t mxcsr;
    uint16_t x87cw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(x87cw));
    return (uint64_t)mxcsr | ((uint64_t)x87cw << 32);
}

void amp_ult_ctx_make(amp_ult_ctx_t *ctx, void *stack, size_t size,
                      amp_ult_entry_fn_t fn, void *arg)
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    /* After the final ret the stack pointer is top: 16-byte aligned. */
    uint64_t *frame = (uint64_t *)(top - SLOT_COUNT * sizeof(uint64_t));

    memset(frame, 0, SLOT_COUNT * sizeof(uint64_t));
    frame[SLOT_FPCTL] = current_fp_control();
    frame[SLOT_R12] = (uint64_t)(uintptr_t)fn;
    frame[SLOT_R13] = (uint64_t)(uintptr_t)arg;
    frame[SLOT_RET] = (uint64_t)(uintptr_t)amp_ult_trampoline;
    amp_ult_ctx_resume(ctx, frame, stack, size);
}

void amp_ult_ctx_resume(amp_ult_ctx_t *ctx, void *sp, void *stack, size_t size)
{
    ctx->sp = sp;
#ifdef AMP_ASAN
    ctx->stack = stack;
    ctx->stack_size = size;
    ctx->fake_stack = NULL;
#else
    (void)stack;
    (void)size;
#endif
}

#ifdef AMP_ASAN
#include <sanitizer/common_interface_defs.h>

void amp_ult_switch_stacks(amp_ult_ctx_t *from, amp_ult_ctx_t *to);
void amp_ult_fiber_start(void);

/* The calling kernel thread's stack as AddressSanitizer was last told, and
 * the context it last left.  A kernel thread's own stack is learned when
 * it is first left: the context switched to reports it (arrived).  Only in
 * the sanitizer build, and reached as %fs:offset, so the per-rank TLS
 * copies (tlsglobals/) do not hide it. */
static __thread struct {
    const void *stack;
    size_t size;
    amp_ult_ctx_t *left;
} fiber __attribute__((tls_model("initial-exec")));

static void arrived(void *fake_stack)
{
    const void *stack;
    size_t size;
    __sanitizer_finish_switch_fiber(fake_stack, &stack, &size);
    amp_ult_ctx_t *left = fiber.left;
    if (left && !left->stack_size) {
        left->stack = stack;
        left->stack_size = size;
    }
}

/* What a new context runs first (the trampoline calls it). */
void amp_ult_fiber_start(void)
{
    arrived(NULL);
}

void amp_ult_switch(amp_ult_ctx_t *from, amp_ult_ctx_t *to)
{
    from->stack = fiber.stack;
    from->stack_size = fiber.size;
    fiber.left = from;
    fiber.stack = to->stack;
    fiber.size = to->stack_size;
    __sanitizer_start_switch_fiber(&from->fake_stack, to->stack,
                                   to->stack_size);
    amp_ult_switch_stacks(from, to);
    arrived(from->fake_stack);
}
#endif

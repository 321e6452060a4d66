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
    ctx->sp = frame;
}

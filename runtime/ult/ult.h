/*
 * ult: execution contexts for user-level threads.  A context is a stack
 * pointer; everything else is saved on the stack it points into (see
 * switch_x86_64_sysv_elf.S for the picture).
 */
#ifndef AMP_ULT_H
#define AMP_ULT_H

/* Under AddressSanitizer (the AMPI_SANITIZE build) every switch tells it
 * which stack runs next (the fiber annotations of
 * sanitizer/common_interface_defs.h), so that it checks each thread against
 * its own stack; a context then also records its stack's bounds.
 * Otherwise nothing of this exists. */
#include "base/sanitize.h"

#ifndef __ASSEMBLER__
#include <stddef.h>

typedef struct amp_ult_ctx {
    void *sp;
#ifdef AMP_ASAN
    const void *stack; /* the stack sp points into (0: not known yet) */
    size_t stack_size;
    void *fake_stack; /* AddressSanitizer's, while switched away */
#endif
} amp_ult_ctx_t;

typedef void (*amp_ult_entry_fn_t)(void *arg);

/* Prepares ctx so that the first switch to it runs fn(arg) on
 * [stack, stack + size).  fn must never return: it ends by switching away
 * for the last time. */
void amp_ult_ctx_make(amp_ult_ctx_t *ctx, void *stack, size_t size,
                      amp_ult_entry_fn_t fn, void *arg);

/* Saves the running context into from and resumes to. */
void amp_ult_switch(amp_ult_ctx_t *from, amp_ult_ctx_t *to);

/* Makes ctx the context saved at sp (by amp_ult_switch, in this process or
 * in the one the stack was copied from) on [stack, stack + size). */
void amp_ult_ctx_resume(amp_ult_ctx_t *ctx, void *sp, void *stack, size_t size);

#endif /* __ASSEMBLER__ */
#endif

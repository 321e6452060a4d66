/*
 * ult: execution contexts for user-level threads.  A context is a stack
 * pointer; everything else is saved on the stack it points into (see
 * switch_x86_64_sysv_elf.S for the picture).
 */
#ifndef AMP_ULT_H
#define AMP_ULT_H

#include <stddef.h>

typedef struct amp_ult_ctx {
    void *sp;
} amp_ult_ctx_t;

typedef void (*amp_ult_entry_fn_t)(void *arg);

/* Prepares ctx so that the first switch to it runs fn(arg) on
 * [stack, stack + size).  fn must never return: it ends by switching away
 * for the last time. */
void amp_ult_ctx_make(amp_ult_ctx_t *ctx, void *stack, size_t size,
                      amp_ult_entry_fn_t fn, void *arg);

/* Saves the running context into from and resumes to. */
void amp_ult_switch(amp_ult_ctx_t *from, amp_ult_ctx_t *to);

#endif

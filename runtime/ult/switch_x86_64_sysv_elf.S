/*
 * User-level context switch for x86-64, System V ABI, ELF.
 *
 *   void amp_ult_switch(amp_ult_ctx_t *from, amp_ult_ctx_t *to);
 *
 * Only what the ABI says a callee must preserve is saved: rbx, rbp,
 * r12-r15, rsp, the MXCSR control bits and the x87 control word.  The
 * caller-saved registers are already dead at the call.  The context is kept
 * on the stack being left; the context struct only records its top:
 *
 *          higher addresses
 *      +------------------------+
 *      | return address         |  <- pushed by the call to amp_ult_switch
 *      | rbp                    |
 *      | rbx                    |
 *      | r12                    |
 *      | r13                    |
 *      | r14                    |
 *      | r15                    |
 *      | x87 CW (2) | MXCSR (4) |  MXCSR at +0, x87 control word at +4
 *      +------------------------+  <- ctx->sp
 *          lower addresses
 *
 * amp_ult_ctx_make (ult.c) builds the same picture on a fresh stack with
 * amp_ult_trampoline as the return address, the entry function in r12 and
 * its argument in r13.
 */
#include "ult/ult.h"

/* Under AddressSanitizer amp_ult_switch is ult.c's, which tells it about
 * the switch and calls this one; a new context reports its arrival first. */
#ifdef AMP_ASAN
#define amp_ult_switch amp_ult_switch_stacks
#endif

        .text

        .globl  amp_ult_switch
        .hidden amp_ult_switch
        .type   amp_ult_switch, @function
        .p2align 4
amp_ult_switch:
        .cfi_startproc
        endbr64
        pushq   %rbp                    /* callee-saved registers ...      */
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15                    /* ... onto the stack being left   */
        subq    $8, %rsp                /* room for the FP control state   */
        stmxcsr (%rsp)                  /* SSE control/status register     */
        fnstcw  4(%rsp)                 /* x87 control word                */
        movq    %rsp, (%rdi)            /* from->sp = top of saved context */
        movq    (%rsi), %rsp            /* switch to the other stack       */
        ldmxcsr (%rsp)                  /* restore its SSE control         */
        fldcw   4(%rsp)                 /* restore its x87 control word    */
        addq    $8, %rsp                /* drop the FP control slot        */
        popq    %r15                    /* its callee-saved registers ...  */
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp                    /* ... in reverse order            */
        ret                             /* resume where it called switch   */
        .cfi_endproc
        .size   amp_ult_switch, .-amp_ult_switch

/*
 * First code a new context runs: amp_ult_switch "returns" here with the
 * stack 16-byte aligned, so the call below enters fn with the alignment the
 * ABI requires.  fn must never return.
 */
        .globl  amp_ult_trampoline
        .hidden amp_ult_trampoline
        .type   amp_ult_trampoline, @function
        .p2align 4
amp_ult_trampoline:
        .cfi_startproc
        .cfi_undefined rip              /* outermost frame for debuggers   */
        endbr64
#ifdef AMP_ASAN
        callq   amp_ult_fiber_start     /* keeps r12 and r13 (callee-saved) */
#endif
        movq    %r13, %rdi              /* the entry argument              */
        callq   *%r12                   /* fn(arg)                         */
        ud2                             /* fn returned: a runtime bug      */
        .cfi_endproc
        .size   amp_ult_trampoline, .-amp_ult_trampoline

        .section .note.GNU-stack,"",@progbits

/*
 * unit_switch_with_patterns(amp_ult_ctx_t *from, amp_ult_ctx_t *to,
 *                           uint64_t out[6])
 *
 * Loads known patterns into every callee-saved register, switches to `to`
 * (which clobbers all of them), and when switched back stores what the
 * registers then hold into out: rbx, rbp, r12, r13, r14, r15.
 */
        .text
        .globl  unit_switch_with_patterns
        .type   unit_switch_with_patterns, @function
unit_switch_with_patterns:
        pushq   %rbp                    /* keep our caller's registers */
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        pushq   %rdx                    /* out, needed after the switch */
        subq    $8, %rsp                /* keep 16-byte alignment at call */
        movabsq $0x1111111111111111, %rbx
        movabsq $0x2222222222222222, %rbp
        movabsq $0x3333333333333333, %r12
        movabsq $0x4444444444444444, %r13
        movabsq $0x5555555555555555, %r14
        movabsq $0x6666666666666666, %r15
        call    amp_ult_switch          /* rdi = from, rsi = to */
        addq    $8, %rsp
        popq    %rdx
        movq    %rbx, 0(%rdx)
        movq    %rbp, 8(%rdx)
        movq    %r12, 16(%rdx)
        movq    %r13, 24(%rdx)
        movq    %r14, 32(%rdx)
        movq    %r15, 40(%rdx)
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .size   unit_switch_with_patterns, .-unit_switch_with_patterns

/* unit_clobber_and_switch(from, to): trashes the callee-saved registers
 * (as another thread's code would) and switches. */
        .globl  unit_clobber_and_switch
        .type   unit_clobber_and_switch, @function
unit_clobber_and_switch:
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        movq    $-1, %rbx
        movq    $-2, %rbp
        movq    $-3, %r12
        movq    $-4, %r13
        movq    $-5, %r14
        movq    $-6, %r15
        call    amp_ult_switch
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .size   unit_clobber_and_switch, .-unit_clobber_and_switch

        .section .note.GNU-stack,"",@progbits

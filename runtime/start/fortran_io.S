/*
 * The beginnings of flang's Fortran I/O statements, wrapped (ampif90 links
 * with -Wl,--wrap= for each): take the process's Fortran I/O lock
 * (start/fortran_io.c), then go on to the runtime's own function with the
 * caller's arguments untouched.  _FortranAioEndIoStatement's wrapper, in
 * start/fortran_main.c, gives the lock back.  x86-64 System V.
 */
#include "start/fortran_io_names.h"

        .text

/* __wrap_NAME: saves the six argument registers (and aligns the stack for
 * the call), takes the lock, restores them and jumps to __real_NAME, which
 * returns to our caller; arguments on the stack stay where they were. */
        .macro LOCKED name
        .globl __wrap_\name
        .type __wrap_\name, @function
__wrap_\name:
        .cfi_startproc
        pushq %rdi
        .cfi_adjust_cfa_offset 8
        pushq %rsi
        .cfi_adjust_cfa_offset 8
        pushq %rdx
        .cfi_adjust_cfa_offset 8
        pushq %rcx
        .cfi_adjust_cfa_offset 8
        pushq %r8
        .cfi_adjust_cfa_offset 8
        pushq %r9
        .cfi_adjust_cfa_offset 8
        subq $8, %rsp
        .cfi_adjust_cfa_offset 8
        call amp_fortran_io_lock@PLT
        addq $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq %r9
        .cfi_adjust_cfa_offset -8
        popq %r8
        .cfi_adjust_cfa_offset -8
        popq %rcx
        .cfi_adjust_cfa_offset -8
        popq %rdx
        .cfi_adjust_cfa_offset -8
        popq %rsi
        .cfi_adjust_cfa_offset -8
        popq %rdi
        .cfi_adjust_cfa_offset -8
        jmp __real_\name@PLT
        .cfi_endproc
        .size __wrap_\name, . - __wrap_\name
        .endm

#define LOCK_ONE(name) LOCKED name;
        AMP_FORTRAN_IO_BEGINS(LOCK_ONE)

        .section .note.GNU-stack, "", @progbits

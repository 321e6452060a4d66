/*
 * Fatal signals.  A rank that overflows its stack faults in the guard page
 * below it; the handler (on an alternate signal stack, since the faulting
 * one is full) names the rank and the option to raise, then lets the
 * default action end the process.  (A terminating signal's report of the
 * ranks is report.c's.)
 */
#define _GNU_SOURCE 1 /* REG_RIP */
#include "start/start.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALT_STACK_SIZE (64u << 10)

/* Under pie privatization, where the faulting instruction is in the
 * program: its address in the loaded original (which debuggers and
 * backtraces know) and in the program file (for addr2line). */
static int describe_pc(char *msg, size_t size, const void *ucontext)
{
    const ucontext_t *uc = ucontext;
    const amp_pie_image_t *img = &amp_proc.pie;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    uintptr_t orig = (uintptr_t)amp_pie_to_original((const void *)pc);
    if (!img->active || orig == pc)
        return 0;
    return snprintf(msg, size,
                    "ampi: the instruction is at %p in the rank's copy of "
                    "the program: %p in the original (addr2line -e %s "
                    "%#lx)\n",
                    (void *)pc, (void *)orig, img->path,
                    (unsigned long)(orig - img->bias));
}

static void on_fault(int sig, siginfo_t *si, void *ucontext)
{
    char msg[640];
    int n;
    int slot = amp_mem_guard_slot(&amp_proc.mem, si->si_addr);
    if (slot >= 0) {
        n = snprintf(msg, sizeof(msg),
                     "ampi: rank %d overflowed its %zu-byte stack; raise it "
                     "with +stacksize (e.g. +stacksize %zuM) or "
                     "AMPI_STACKSIZE\n",
                     slot, amp_proc.mem.stack_size,
                     2 * (amp_proc.mem.stack_size >> 20) + 1);
    } else {
        amp_pe_t *pe = amp_pe_self();
        amp_rank_t *rank =
            pe && pe->current ? (amp_rank_t *)pe->current->owner : NULL;
        n = snprintf(msg, sizeof(msg),
                     "ampi: rank %d: fatal signal %d (%s) at address %p\n",
                     rank ? rank->world_rank : -1, sig, strsignal(sig),
                     si->si_addr);
        if (n > 0 && n < (int)sizeof(msg))
            n += describe_pc(msg + n, sizeof(msg) - (size_t)n, ucontext);
    }
    if (n > 0) {
        ssize_t ignored = write(STDERR_FILENO, msg, (size_t)n);
        (void)ignored;
    }
    signal(sig, SIG_DFL); /* returning re-faults into the default action */
}

/* Without the handler the program runs on; only the report is lost. */
static void install(int sig, const char *name)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, NULL) != 0)
        amp_log_error("cannot install the handler of %s (sigaction: %s): a "
                      "rank's stack overflow or fault will not be named",
                      name, strerror(errno));
}

void amp_signals_install(void)
{
    install(SIGSEGV, "SIGSEGV");
    install(SIGBUS, "SIGBUS");
}

/* Without an alternate stack the handler cannot run after a stack
 * overflow (the fault then ends the process unnamed); other faults are
 * still reported. */
void amp_signals_thread_init(void)
{
    stack_t ss;
    ss.ss_sp = malloc(ALT_STACK_SIZE);
    ss.ss_size = ALT_STACK_SIZE;
    ss.ss_flags = 0;
    if (!ss.ss_sp) {
        amp_log_error("out of memory for the signal stack of a PE: a rank's "
                      "stack overflow will not be named");
        return;
    }
    if (sigaltstack(&ss, NULL) != 0) {
        amp_log_error("cannot set the signal stack of a PE (sigaltstack: %s): "
                      "a rank's stack overflow will not be named",
                      strerror(errno));
        free(ss.ss_sp);
    }
}

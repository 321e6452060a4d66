/*
 * omp_set_num_threads of a rank (with -Wl,--wrap=omp_set_num_threads, see
 * omp_fork.c): the ranks of a PE share the PE's kernel thread, and with it
 * its OpenMP settings, so on a rank's user-level thread under libomp the
 * count is kept for the rank and given to its next regions.  Elsewhere,
 * and under another OpenMP runtime (GCC's libgomp, whose regions run as
 * they are), the call goes to the OpenMP runtime unchanged.
 */
#include <stddef.h>

void __real_omp_set_num_threads(int n);
void __wrap_omp_set_num_threads(int n);
/* Present when libomp is linked (its fork, wrapped: omp_fork.c). */
void __real___kmpc_fork_call(void *loc, int argc, void *fn, ...)
    __attribute__((weak));

int amp_omp_on_rank_ult(void);
int *amp_omp_state(void);

void __wrap_omp_set_num_threads(int n)
{
    int *st = __real___kmpc_fork_call ? amp_omp_state() : NULL;
    if (st && amp_omp_on_rank_ult() && n > 0) {
        st[0] = n;
        return;
    }
    __real_omp_set_num_threads(n);
}

// A status of the runtime dropped on the floor fails a -Werror build under
// Clang and under gcc; amp_status_ignore() drops one on purpose.  Under
// Clang the type itself carries the rule, so static functions and calls
// through pointers are held to it too.
// RUN: not %clang -std=gnu11 -fsyntax-only -Werror -I%S/../../runtime %s 2>&1 | FileCheck %s
// RUN: not gcc -std=gnu11 -c -o /dev/null -Werror -I%S/../../runtime %s 2>&1 | FileCheck %s
// RUN: not %clang -std=gnu11 -fsyntax-only -Werror -DCLANG_TYPE -I%S/../../runtime %s 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: %clang -std=gnu11 -fsyntax-only -Werror -DMEANT -I%S/../../runtime %s
// RUN: gcc -std=gnu11 -c -o /dev/null -Werror -DMEANT -I%S/../../runtime %s
#include "mem/heap.h"

static amp_status_t local(void)
{
    return AMP_OK;
}

void drop(amp_heap_t *h, void *p, amp_status_t (*fn)(void))
{
#if defined(MEANT)
    amp_status_ignore(amp_heap_free(h, p)); /* the test says it is meant */
    amp_status_ignore(local());
    amp_status_ignore(fn());
#elif defined(CLANG_TYPE)
    // TYPE: [[@LINE+1]]:5: error: ignoring return value
    local();
    // TYPE: [[@LINE+1]]:5: error: ignoring return value
    fn();
#else
    // CHECK: [[@LINE+1]]:5: error: ignoring return value
    amp_heap_free(h, p);
#endif
}

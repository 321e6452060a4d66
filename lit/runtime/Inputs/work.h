/* The balancing tests' computation: about a millisecond per 100000 units
 * on this project's machines; returns units, so that a result built from
 * it does not depend on the timing. */
#ifndef LIT_RUNTIME_WORK_H
#define LIT_RUNTIME_WORK_H

static long work(long units)
{
    volatile long x = 0;
    for (long i = 0; i < units * 10; i++)
        x += i % 3 == 0;
    return x > 0 ? units : 0;
}

#endif

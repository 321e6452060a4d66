/*
 * A small unit-test runner.  Each test runs in its own child process with
 * a time limit; a failed check prints the expression, both values and
 * file:line, and fails that test only.
 */
#ifndef UNIT_H
#define UNIT_H

typedef void (*unit_fn_t)(void);

void unit_register(const char *name, unit_fn_t fn);
void unit_fail(const char *file, int line, const char *expr, long long a,
               long long b);

#define UNIT_TEST(name)                                                        \
    static void name(void);                                                    \
    __attribute__((constructor)) static void register_##name(void)             \
    {                                                                          \
        unit_register(#name, name);                                            \
    }                                                                          \
    static void name(void)

#define UNIT_EQ(a, b)                                                          \
    do {                                                                       \
        long long unit_a_ = (long long)(a), unit_b_ = (long long)(b);          \
        if (unit_a_ != unit_b_)                                                \
            unit_fail(__FILE__, __LINE__, #a " == " #b, unit_a_, unit_b_);     \
    } while (0)

#define UNIT_TRUE(c) UNIT_EQ(!!(c), 1)

#endif

/* The checksum of rank files (runtime/rank/checkpoint.h, amp_ckpt_sum_t):
 * the same however the stream is cut, and changed by any one flipped bit,
 * any byte more or less. */
#include "unit.h"

#include "mem/sys_alloc.h" /* mpi/proc.h, under checkpoint.h, uses it */
#include "rank/checkpoint.h"

#include <string.h>

enum { LEN = 4099 }; /* not a multiple of the 32-byte block */

static unsigned char data[LEN];

static void fill(void)
{
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < LEN; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (unsigned char)x;
    }
}

static uint64_t sum_cut(const unsigned char *p, size_t n, size_t piece)
{
    amp_ckpt_sum_t s;
    amp_ckpt_sum_init(&s);
    for (size_t at = 0; at < n; at += piece)
        amp_ckpt_sum_add(&s, p + at, n - at < piece ? n - at : piece);
    return amp_ckpt_sum_end(&s);
}

UNIT_TEST(ckpt_sum_cuts)
{
    fill();
    uint64_t whole = sum_cut(data, LEN, LEN);
    static const size_t pieces[] = {1, 3, 7, 8, 31, 32, 33, 100, 4096};
    for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++)
        UNIT_EQ(sum_cut(data, LEN, pieces[i]), whole);
}

UNIT_TEST(ckpt_sum_changes)
{
    fill();
    uint64_t whole = sum_cut(data, LEN, LEN);
    for (int at = 0; at < LEN; at += 37)
        for (int bit = 0; bit < 8; bit += 3) {
            data[at] ^= (unsigned char)(1 << bit);
            UNIT_TRUE(sum_cut(data, LEN, LEN) != whole);
            data[at] ^= (unsigned char)(1 << bit);
        }
    UNIT_TRUE(sum_cut(data, LEN - 1, LEN) != whole);
    static unsigned char zeros[64];
    UNIT_TRUE(sum_cut(zeros, 63, 64) != sum_cut(zeros, 64, 64));
    UNIT_TRUE(sum_cut(zeros, 0, 1) != sum_cut(zeros, 1, 1));
}

/*
 * The external32 data representation (MPI_Pack_external): every basic
 * value big-endian, in the sizes the MPI standard fixes.  On the LP64
 * platforms this runtime runs on, each native type already has its
 * external32 size (long and MPI_Aint 8, wchar_t 4, long double 16), so
 * conversion works in place: integers and IEEE floats swap their bytes,
 * complex values swap each half, and x87 80-bit long double becomes IEEE
 * binary128.
 */
#include "dt/dt.h"

#include <float.h>
#include <string.h>

uint32_t amp_dt_x32_kind(const amp_dt_t *dt)
{
    int ld = dt->basic_size == sizeof(long double) &&
             sizeof(long double) != sizeof(double);
    if (dt->flags & AMP_DT_COMPLEX)
        return dt->basic_size == sizeof(long double _Complex)
                   ? AMP_DT_X32_LDCOMPLEX
                   : AMP_DT_X32_COMPLEX;
    if ((dt->flags & AMP_DT_FLOAT) && ld)
        return AMP_DT_X32_LDOUBLE;
    return AMP_DT_X32_PLAIN;
}

/* 1 if long double converts: x87 extended (64-bit mantissa with an
 * explicit integer bit) or already binary128. */
static int ldouble_ok(void)
{
    return sizeof(long double) == 16 &&
           (LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113);
}

static void swap_bytes(unsigned char *p, size_t n)
{
    for (size_t i = 0, j = n - 1; i < j; i++, j--) {
        unsigned char t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* x87 extended (little-endian: 64-bit mantissa, then sign and 15-bit
 * exponent) <-> big-endian binary128 (sign, 15-bit exponent, 112-bit
 * fraction).  The exponent bias is the same; the fraction is the x87
 * mantissa without its integer bit, shifted to the top. */
static void ldouble_to_x32(unsigned char *p)
{
    uint64_t mant;
    uint16_t se;
    memcpy(&mant, p, 8);
    memcpy(&se, p + 8, 2);
    uint64_t frac = mant & ~(1ull << 63); /* 63 bits */
    uint64_t hi = ((uint64_t)se << 48) | (frac >> 15);
    uint64_t lo = frac << 49;
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(hi >> (56 - 8 * i));
        p[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
    }
}

static void ldouble_from_x32(unsigned char *p)
{
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; i++) {
        hi = (hi << 8) | p[i];
        lo = (lo << 8) | p[8 + i];
    }
    uint16_t se = (uint16_t)(hi >> 48);
    uint64_t frac = ((hi & 0xffffffffffffull) << 15) | (lo >> 49);
    uint64_t integer = (se & 0x7fff) ? 1ull << 63 : 0; /* 0: denormal */
    uint64_t mant = integer | frac;
    memset(p, 0, 16);
    memcpy(p, &mant, 8);
    memcpy(p + 8, &se, 2);
}

static void convert_ldouble(unsigned char *p, int to_x32)
{
    if (LDBL_MANT_DIG == 113)
        swap_bytes(p, 16);
    else if (to_x32)
        ldouble_to_x32(p);
    else
        ldouble_from_x32(p);
}

/* Converts len bytes of values of size elem and kind x32 at p. */
static void convert_run(unsigned char *p, size_t len, size_t elem, uint32_t x32,
                        int to_x32)
{
    size_t half = elem / 2;
    for (size_t at = 0; at + elem <= len; at += elem) {
        switch (x32) {
        case AMP_DT_X32_COMPLEX:
            swap_bytes(p + at, half);
            swap_bytes(p + at + half, half);
            break;
        case AMP_DT_X32_LDOUBLE: convert_ldouble(p + at, to_x32); break;
        case AMP_DT_X32_LDCOMPLEX:
            convert_ldouble(p + at, to_x32);
            convert_ldouble(p + at + half, to_x32);
            break;
        default: swap_bytes(p + at, elem);
        }
    }
}

long long amp_dt_x32_size(const amp_dt_t *dt, int count)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    for (int j = 0; j < n; j++)
        if ((b[j].x32 == AMP_DT_X32_LDOUBLE ||
             b[j].x32 == AMP_DT_X32_LDCOMPLEX) &&
            !ldouble_ok())
            return -1;
    return (long long)dt->size * count;
}

void amp_dt_x32_convert(const amp_dt_t *dt, int count, void *buf, int packed,
                        int to_x32)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    unsigned char *p = buf;
    for (int i = 0; i < count; i++) {
        unsigned char *elem = (unsigned char *)buf + (ptrdiff_t)i * dt->extent;
        for (int j = 0; j < n; j++) {
            unsigned char *at = packed ? p : elem + b[j].off;
            convert_run(at, b[j].len, b[j].elem, b[j].x32, to_x32);
            p += b[j].len;
        }
    }
}

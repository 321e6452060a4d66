/*
 * The external32 data representation (MPI_Pack_external): every basic
 * value big-endian, in the sizes the MPI standard fixes.  On the LP64
 * platforms this runtime runs on, most native types already have their
 * external32 size (MPI_Aint 8, long long 8, long double 16), so their
 * conversion works in place: integers and IEEE floats swap their bytes,
 * complex values swap each half, and x87 80-bit long double becomes IEEE
 * binary128.  Three are larger here than there: MPI_LONG and
 * MPI_UNSIGNED_LONG (8 bytes, 4 in external32) and MPI_WCHAR (4, 2);
 * types holding them go through a copy, value by value, and a value that
 * does not fit the smaller size is an error rather than lost.
 */
#include "dt/dt.h"

#include "mpi.h"

#include <float.h>
#include <limits.h>
#include <string.h>
#include <wchar.h>

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

/* The external32 size of one value of kind x32, elem bytes here. */
static size_t ext_elem(uint32_t x32, size_t elem)
{
    switch (x32) {
    case AMP_DT_X32_LONG:
    case AMP_DT_X32_ULONG: return 4;
    case AMP_DT_X32_WCHAR: return 2;
    default: return elem;
    }
}

long long amp_dt_x32_size(const amp_dt_t *dt, int count)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    long long per = 0;
    for (int j = 0; j < n; j++) {
        if ((b[j].x32 == AMP_DT_X32_LDOUBLE ||
             b[j].x32 == AMP_DT_X32_LDCOMPLEX) &&
            !ldouble_ok())
            return -1;
        per +=
            (long long)(b[j].len / b[j].elem * ext_elem(b[j].x32, b[j].elem));
    }
    return per * amp_dt_reps(dt) * count;
}

int amp_dt_x32_resizes(const amp_dt_t *dt)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    for (int j = 0; j < n; j++)
        if (ext_elem(b[j].x32, b[j].elem) != b[j].elem)
            return 1;
    return 0;
}

/* v in the k bytes at p, big-endian, and back. */
static void put_be(unsigned char *p, unsigned long long v, size_t k)
{
    for (size_t i = 0; i < k; i++)
        p[i] = (unsigned char)(v >> (8 * (k - 1 - i)));
}

static unsigned long long get_be(const unsigned char *p, size_t k)
{
    unsigned long long v = 0;
    for (size_t i = 0; i < k; i++)
        v = (v << 8) | p[i];
    return v;
}

/* One value of kind x32 that changes size: native at in -> external at
 * out; 0 when it does not fit. */
static int narrow_one(uint32_t x32, const unsigned char *in, unsigned char *out)
{
    long l;
    unsigned long u;
    wchar_t w;
    switch (x32) {
    case AMP_DT_X32_LONG:
        memcpy(&l, in, sizeof(l));
        put_be(out, (unsigned long long)(l & 0xffffffffL), 4);
        return l >= INT32_MIN && l <= INT32_MAX;
    case AMP_DT_X32_ULONG:
        memcpy(&u, in, sizeof(u));
        put_be(out, u & 0xffffffffUL, 4);
        return u <= UINT32_MAX;
    default:
        memcpy(&w, in, sizeof(w));
        put_be(out, (unsigned long long)w & 0xffff, 2);
        return w >= 0 && w <= 0xffff;
    }
}

static void widen_one(uint32_t x32, const unsigned char *in, unsigned char *out)
{
    long l;
    unsigned long u;
    wchar_t w;
    switch (x32) {
    case AMP_DT_X32_LONG:
        l = (int32_t)(uint32_t)get_be(in, 4);
        memcpy(out, &l, sizeof(l));
        break;
    case AMP_DT_X32_ULONG:
        u = (unsigned long)get_be(in, 4);
        memcpy(out, &u, sizeof(u));
        break;
    default: w = (wchar_t)get_be(in, 2); memcpy(out, &w, sizeof(w));
    }
}

/* Walks count elements of packed values, native at nat and external at
 * ext, value kind by kind: narrows (to_x32) or widens. */
static int resize_walk(const amp_dt_t *dt, int count, unsigned char *nat,
                       unsigned char *ext, int to_x32)
{
    amp_dt_block_t one;
    int n, fits = 1;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    /* packed: the repetitions of the blocks are back to back too */
    long long units = (long long)count * amp_dt_reps(dt);
    for (long long i = 0; i < units; i++)
        for (int j = 0; j < n; j++) {
            size_t e = ext_elem(b[j].x32, b[j].elem), k = b[j].len / b[j].elem;
            if (e == b[j].elem) { /* same size: a copy converted in place */
                if (to_x32) {
                    memcpy(ext, nat, b[j].len);
                    convert_run(ext, b[j].len, b[j].elem, b[j].x32, 1);
                } else {
                    memcpy(nat, ext, b[j].len);
                    convert_run(nat, b[j].len, b[j].elem, b[j].x32, 0);
                }
            } else {
                for (size_t v = 0; v < k; v++) {
                    if (to_x32)
                        fits &= narrow_one(b[j].x32, nat + v * b[j].elem,
                                           ext + v * e);
                    else
                        widen_one(b[j].x32, ext + v * e, nat + v * b[j].elem);
                }
            }
            nat += b[j].len;
            ext += k * e;
        }
    return fits;
}

amp_status_t amp_dt_x32_narrow(const amp_dt_t *dt, int count, const void *in,
                               void *out)
{
    return resize_walk(dt, count, (unsigned char *)in, out, 1) ? AMP_OK
                                                               : AMP_ERR_ARG;
}

void amp_dt_x32_widen(const amp_dt_t *dt, int count, const void *in, void *out)
{
    resize_walk(dt, count, out, (unsigned char *)in, 0);
}

void amp_dt_x32_convert(const amp_dt_t *dt, int count, void *buf, int packed,
                        int to_x32)
{
    amp_dt_block_t one;
    int n;
    const amp_dt_block_t *b = amp_dt_blocks(dt, &n, &one);
    long long reps = amp_dt_reps(dt);
    unsigned char *p = buf;
    /* back at zero after each element's last repetition */
    long long idx[AMP_DT_MAX_DIMS] = {0};
    for (int i = 0; i < count; i++) {
        unsigned char *elem = (unsigned char *)buf + (ptrdiff_t)i * dt->extent;
        for (long long r = 0; r < reps; r++, elem += amp_dt_rep_next(dt, idx))
            for (int j = 0; j < n; j++) {
                unsigned char *at = packed ? p : elem + b[j].off;
                convert_run(at, b[j].len, b[j].elem, b[j].x32, to_x32);
                p += b[j].len;
            }
    }
}

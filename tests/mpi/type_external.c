/*
 * type_external: MPI_Pack_external / MPI_Unpack_external /
 * MPI_Pack_external_size with "external32".  The packed bytes are
 * big-endian in the standard's sizes (int 4, long and unsigned long 4,
 * wchar_t 2, long long 8, double 8, complex as two reals, MPI_DOUBLE_INT
 * 8 + 4, MPI_LONG_INT 4 + 4, long double as IEEE binary128), also inside
 * a struct type; a strided type round-trips without touching the gaps;
 * other representations answer MPI_ERR_ARG, a short buffer
 * MPI_ERR_TRUNCATE, and a long that does not fit in 4 bytes MPI_ERR_ARG.
 */
#include "mpitest.h"

#include <complex.h>
#include <stddef.h>
#include <wchar.h>
#include <string.h>

static void check_bytes(const unsigned char *got, const unsigned char *want,
                        int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            MT_FAIL("%s: byte %d is %#x, expected %#x", what, i, got[i],
                    want[i]);
            return;
        }
}

/* Packs count values of type at in, checks the bytes and the size, and
 * unpacks them again into out. */
static void pack_one(const void *in, void *out, int count, MPI_Datatype type,
                     const unsigned char *want, int n, const char *what)
{
    unsigned char buf[64];
    MPI_Aint pos = 0, size;
    MT_CHECK_MPI(MPI_Pack_external_size("external32", count, type, &size));
    MT_CHECK_INT_EQ(size, n);
    MT_CHECK_MPI(
        MPI_Pack_external("external32", in, count, type, buf, 64, &pos));
    MT_CHECK_INT_EQ(pos, n);
    check_bytes(buf, want, n, what);
    pos = 0;
    MT_CHECK_MPI(
        MPI_Unpack_external("external32", buf, n, &pos, out, count, type));
    MT_CHECK_INT_EQ(pos, n);
}

static void basic_types(void)
{
    int i = 0x01020304, i2;
    const unsigned char wi[] = {1, 2, 3, 4};
    pack_one(&i, &i2, 1, MPI_INT, wi, 4, "MPI_INT");
    MT_CHECK_INT_EQ(i2, i);

    long l[2] = {-2, 0x01020304}, l2[2];
    const unsigned char wl[] = {0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4};
    pack_one(l, l2, 2, MPI_LONG, wl, 8, "MPI_LONG");
    MT_CHECK_INT_EQ(l2[0], l[0]);
    MT_CHECK_INT_EQ(l2[1], l[1]);

    unsigned long ul = 0xfffffffeUL, ul2;
    const unsigned char wul[] = {0xff, 0xff, 0xff, 0xfe};
    pack_one(&ul, &ul2, 1, MPI_UNSIGNED_LONG, wul, 4, "MPI_UNSIGNED_LONG");
    MT_CHECK(ul2 == ul);

    long long ll = -2, ll2;
    const unsigned char wll[] = {0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff, 0xfe};
    pack_one(&ll, &ll2, 1, MPI_LONG_LONG, wll, 8, "MPI_LONG_LONG");
    MT_CHECK_INT_EQ(ll2, ll);

    wchar_t wc[2] = {L'A', 0x20ac}, wc2[2];
    const unsigned char wwc[] = {0, 0x41, 0x20, 0xac};
    pack_one(wc, wc2, 2, MPI_WCHAR, wwc, 4, "MPI_WCHAR");
    MT_CHECK_INT_EQ(wc2[0], wc[0]);
    MT_CHECK_INT_EQ(wc2[1], wc[1]);

    struct {
        long v;
        int i;
    } li = {-3, 9}, li2;
    const unsigned char wli[] = {0xff, 0xff, 0xff, 0xfd, 0, 0, 0, 9};
    pack_one(&li, &li2, 1, MPI_LONG_INT, wli, 8, "MPI_LONG_INT");
    MT_CHECK_INT_EQ(li2.v, li.v);
    MT_CHECK_INT_EQ(li2.i, li.i);

    short s[2] = {0x0102, -1}, s2[2];
    const unsigned char ws[] = {1, 2, 0xff, 0xff};
    pack_one(s, s2, 2, MPI_SHORT, ws, 4, "MPI_SHORT");
    MT_CHECK_INT_EQ(s2[0], s[0]);
    MT_CHECK_INT_EQ(s2[1], s[1]);

    double d = 1.0, d2;
    const unsigned char wd[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    pack_one(&d, &d2, 1, MPI_DOUBLE, wd, 8, "MPI_DOUBLE");
    MT_CHECK_DBL_EQ(d2, d);

    float _Complex z = 1.0f + 2.0f * I, z2;
    const unsigned char wz[] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0};
    pack_one(&z, &z2, 1, MPI_C_FLOAT_COMPLEX, wz, 8, "MPI_C_FLOAT_COMPLEX");
    MT_CHECK(z2 == z);

    struct {
        double v;
        int i;
    } di = {-1.0, 7}, di2;
    const unsigned char wdi[] = {0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
    pack_one(&di, &di2, 1, MPI_DOUBLE_INT, wdi, 12, "MPI_DOUBLE_INT");
    MT_CHECK_DBL_EQ(di2.v, di.v);
    MT_CHECK_INT_EQ(di2.i, di.i);

    long double ld[2] = {1.0L, -2.5L}, ld2[2];
    /* binary128: sign, exponent 0x3fff (+1 for 2.5), fraction .01 */
    const unsigned char wld[32] = {0x3f, 0xff, [16] = 0xc0, 0x00, 0x40};
    pack_one(ld, ld2, 2, MPI_LONG_DOUBLE, wld, 32, "MPI_LONG_DOUBLE");
    MT_CHECK(ld2[0] == ld[0]);
    MT_CHECK(ld2[1] == ld[1]);
}

static void strided(void)
{
    int a[12], b[12];
    for (int k = 0; k < 12; k++) {
        a[k] = 0x10000 * k + k;
        b[k] = -1;
    }
    MPI_Datatype v;
    MT_CHECK_MPI(MPI_Type_vector(4, 1, 3, MPI_INT, &v));
    MT_CHECK_MPI(MPI_Type_commit(&v));
    unsigned char buf[16];
    MPI_Aint pos = 0;
    MT_CHECK_MPI(MPI_Pack_external("external32", a, 1, v, buf, 16, &pos));
    MT_CHECK_INT_EQ(pos, 16);
    for (int k = 0; k < 4; k++) {
        unsigned char want[4] = {0, (unsigned char)(3 * k), 0,
                                 (unsigned char)(3 * k)};
        check_bytes(buf + 4 * k, want, 4, "vector");
    }
    pos = 0;
    MT_CHECK_MPI(MPI_Unpack_external("external32", buf, 16, &pos, b, 1, v));
    for (int k = 0; k < 12; k++)
        MT_CHECK_INT_EQ(b[k], k % 3 ? -1 : a[k]);
    MT_CHECK_MPI(MPI_Type_free(&v));
}

/* A struct of a long, a double and a wchar_t: 4 + 8 + 2 bytes. */
static void mixed_struct(void)
{
    struct rec {
        long l;
        double d;
        wchar_t w;
    } r = {5, 1.0, L'z'}, r2 = {0, 0, 0};
    int len[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct rec, l), offsetof(struct rec, d),
                        offsetof(struct rec, w)};
    MPI_Datatype types[3] = {MPI_LONG, MPI_DOUBLE, MPI_WCHAR}, t;
    MT_CHECK_MPI(MPI_Type_create_struct(3, len, disp, types, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    const unsigned char want[] = {0, 0, 0, 5, 0x3f, 0xf0, 0,
                                  0, 0, 0, 0, 0,    0,    0x7a};
    pack_one(&r, &r2, 1, t, want, 14, "struct of long, double, wchar_t");
    MT_CHECK_INT_EQ(r2.l, 5);
    MT_CHECK_DBL_EQ(r2.d, 1.0);
    MT_CHECK_INT_EQ(r2.w, L'z');
    MT_CHECK_MPI(MPI_Type_free(&t));
}

static void errors(void)
{
    int x = 1;
    unsigned char buf[8];
    MPI_Aint pos = 0, size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(
        MPI_Pack_external("native", &x, 1, MPI_INT, buf, 8, &pos), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Pack_external_size("external64", 1, MPI_INT, &size),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Unpack_external("internal", buf, 8, &pos, &x, 1, MPI_INT),
        MPI_ERR_ARG);
    pos = 6;
    MT_CHECK_ERR_CLASS(
        MPI_Pack_external("external32", &x, 1, MPI_INT, buf, 8, &pos),
        MPI_ERR_TRUNCATE);
    MT_CHECK_ERR_CLASS(
        MPI_Pack_external_size("external32", 1, MPI_DATATYPE_NULL, &size),
        MPI_ERR_TYPE);
    long big = 1L << 40;
    pos = 0;
    MT_CHECK_ERR_CLASS(
        MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, 8, &pos),
        MPI_ERR_ARG);
    MT_CHECK_INT_EQ(pos, 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    basic_types();
    mixed_struct();
    strided();
    errors();
    return mt_finish_and_finalize();
}

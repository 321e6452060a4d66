/*
 * io_short_read: reads that ask for more than the file holds.  The file
 * pointers advance by what was asked for, whatever was read (MPI-4.0
 * section 14.4.1: the new offset is the old one plus the count asked for,
 * in etypes, set by the call that starts the access), and MPI_Get_count
 * says how much was read: the individual pointer after MPI_File_read,
 * iread (before its wait too), read_all, iread_all and the split
 * read_all_begin/_end; the shared pointer after MPI_File_read_shared,
 * iread_shared, read_ordered and read_ordered_begin/_end.  The view's
 * etype is MPI_INT, so positions count ints.
 */
#include "iotest.h"

#include <stdlib.h>

enum { ASK = 4, SEED = 5 };

typedef struct shape {
    int rank, size;
    int total; /* ints in the file: 2 * size + 1 */
} shape_t;

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* The ints a read of ask ints at pos finds.  (Written with a branch:
 * clang 19 at -O1 and above drops the test of "n < 0 ? 0 : min(n, ask)"
 * when the result bounds a loop over a 3-int array, as in ordered().) */
static int avail(const shape_t *s, int pos, int ask)
{
    if (pos >= s->total)
        return 0;
    return min_int(s->total - pos, ask);
}

/* st says got ints, buf holds the file's ints from pos, and the
 * individual pointer is at after. */
static void check_read(MPI_File fh, const MPI_Status *st, const int *buf,
                       int pos, int got, MPI_Offset after)
{
    int count = -1;
    MPI_Offset at = -1;
    MT_CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
    MT_CHECK_INT_EQ(count, got);
    for (int i = 0; i < got && i < count; i++)
        MT_CHECK_INT_EQ(buf[i], io_value(pos + i, SEED));
    MT_CHECK_MPI(MPI_File_get_position(fh, &at));
    MT_CHECK_INT_EQ(at, after);
}

static void check_shared_at(MPI_File fh, MPI_Offset expect)
{
    MPI_Offset at = -1;
    MT_CHECK_MPI(MPI_File_get_position_shared(fh, &at));
    MT_CHECK_INT_EQ(at, expect);
}

/* Rank 0 writes the file's ints; every rank sees them. */
static MPI_File make_file(const shape_t *s, char *name, int len)
{
    MPI_File fh;
    io_name(MPI_COMM_WORLD, "io_short_read", name, len);
    MT_CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, name,
                               MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                               &fh));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    if (s->rank == 0) {
        int *v = malloc((size_t)s->total * sizeof(int));
        for (int i = 0; i < s->total; i++)
            v[i] = io_value(i, SEED);
        MT_CHECK_MPI(
            MPI_File_write_at(fh, 0, v, s->total, MPI_INT, MPI_STATUS_IGNORE));
        free(v);
    }
    MT_CHECK_MPI(MPI_File_sync(fh));
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MT_CHECK_MPI(MPI_File_sync(fh));
    return fh;
}

/* Independent reads at the last int and past the end. */
static void individual(MPI_File fh, const shape_t *s)
{
    int buf[ASK];
    MPI_Status st;
    MPI_Request req;
    MPI_Offset at = -1;
    int last = s->total - 1, past = s->total + 2;
    MT_CHECK_MPI(MPI_File_seek(fh, last, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_read(fh, buf, ASK, MPI_INT, &st));
    check_read(fh, &st, buf, last, 1, last + ASK);

    MT_CHECK_MPI(MPI_File_seek(fh, last, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_iread(fh, buf, ASK, MPI_INT, &req));
    MT_CHECK_MPI(MPI_File_get_position(fh, &at));
    MT_CHECK_INT_EQ(at, last + ASK); /* moved by the call that started it */
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    check_read(fh, &st, buf, last, 1, last + ASK);

    MT_CHECK_MPI(MPI_File_seek(fh, past, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_read(fh, buf, ASK, MPI_INT, &st));
    check_read(fh, &st, buf, past, 0, past + ASK);
    MT_CHECK_MPI(MPI_File_read(fh, buf, ASK, MPI_INT, &st));
    check_read(fh, &st, buf, past + ASK, 0, past + 2 * ASK);
}

/* Collective reads from 2 * rank: the last rank's is short. */
static void collective(MPI_File fh, const shape_t *s)
{
    int buf[ASK], pos = 2 * s->rank, got = avail(s, pos, ASK);
    MPI_Status st;
    MPI_Request req;
    MPI_Offset at = -1;
    MT_CHECK_MPI(MPI_File_seek(fh, pos, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_read_all(fh, buf, ASK, MPI_INT, &st));
    check_read(fh, &st, buf, pos, got, pos + ASK);

    MT_CHECK_MPI(MPI_File_seek(fh, pos, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_iread_all(fh, buf, ASK, MPI_INT, &req));
    MT_CHECK_MPI(MPI_File_get_position(fh, &at));
    MT_CHECK_INT_EQ(at, pos + ASK);
    MT_CHECK_MPI(MPI_Wait(&req, &st));
    check_read(fh, &st, buf, pos, got, pos + ASK);

    MT_CHECK_MPI(MPI_File_seek(fh, pos, MPI_SEEK_SET));
    MT_CHECK_MPI(MPI_File_read_all_begin(fh, buf, ASK, MPI_INT));
    MT_CHECK_MPI(MPI_File_read_all_end(fh, buf, &st));
    check_read(fh, &st, buf, pos, got, pos + ASK);
}

/* Ordered reads of 3 ints each from 0: the parts of the ranks past
 * 2 * size / 3 are short or empty; the shared pointer moves past all. */
static void ordered(MPI_File fh, const shape_t *s)
{
    enum { EACH = 3 };
    int buf[EACH], pos = EACH * s->rank, got = avail(s, pos, EACH);
    MPI_Status st;
    int count = -1;
    for (int split = 0; split < 2; split++) {
        MT_CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
        if (split) {
            MT_CHECK_MPI(MPI_File_read_ordered_begin(fh, buf, EACH, MPI_INT));
            MT_CHECK_MPI(MPI_File_read_ordered_end(fh, buf, &st));
        } else {
            MT_CHECK_MPI(MPI_File_read_ordered(fh, buf, EACH, MPI_INT, &st));
        }
        MT_CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        MT_CHECK_INT_EQ(count, got);
        for (int i = 0; i < got && i < count; i++)
            MT_CHECK_INT_EQ(buf[i], io_value(pos + i, SEED));
        check_shared_at(fh, EACH * s->size);
        MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* all have looked */
    }
}

/* Rank 0 reads at the shared pointer from the last int, twice; the
 * others then see where it left the pointer. */
static void shared(MPI_File fh, const shape_t *s)
{
    int buf[ASK], last = s->total - 1, count = -1;
    MPI_Status st;
    MPI_Request req;
    MT_CHECK_MPI(MPI_File_seek_shared(fh, last, MPI_SEEK_SET));
    if (s->rank == 0) {
        MT_CHECK_MPI(MPI_File_read_shared(fh, buf, ASK, MPI_INT, &st));
        MT_CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        MT_CHECK_INT_EQ(count, 1);
        MT_CHECK_INT_EQ(buf[0], io_value(last, SEED));
        check_shared_at(fh, last + ASK);
        MT_CHECK_MPI(MPI_File_iread_shared(fh, buf, ASK, MPI_INT, &req));
        check_shared_at(fh, last + 2 * ASK);
        MT_CHECK_MPI(MPI_Wait(&req, &st));
        MT_CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        MT_CHECK_INT_EQ(count, 0);
    }
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_shared_at(fh, last + 2 * ASK);
    MT_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* before the next seek */
}

int main(int argc, char **argv)
{
    char name[128];
    shape_t s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    s.total = 2 * s.size + 1;
    MPI_File fh = make_file(&s, name, sizeof(name));
    individual(fh, &s);
    collective(fh, &s);
    ordered(fh, &s);
    shared(fh, &s);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (s.rank == 0)
        MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
    return mt_finish_and_finalize();
}

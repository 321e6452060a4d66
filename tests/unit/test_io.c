/* io/: views as maps from the data stream to file offsets, the cursors
 * that walk them, the merge of several cursors, and transfers (windows,
 * sieving, the end of the file) on a real file. */
#include "unit.h"

#include "io/io.h"
#include "mpi.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const amp_dt_t *pre(int id)
{
    return amp_dt_predefined(id);
}

/* 3 blocks of 2 ints, 5 ints apart: tiles of 12 ints, 6 of them data. */
static void vector_view(amp_dt_t *d, amp_io_view_t *v, int64_t disp)
{
    memset(d, 0, sizeof(*d));
    UNIT_EQ(
        amp_dt_make_hvector(d, 3, 2, 5 * sizeof(int), pre(AMPI_DTID_MPI_INT)),
        AMP_OK);
    UNIT_EQ(amp_io_view_init(v, disp, pre(AMPI_DTID_MPI_INT), d), AMP_OK);
}

UNIT_TEST(io_view_offsets_of_a_vector_filetype)
{
    amp_dt_t d;
    amp_io_view_t v;
    vector_view(&d, &v, 100);
    UNIT_TRUE(!v.dense);
    UNIT_EQ(amp_io_view_offset(&v, 0), 100);
    UNIT_EQ(amp_io_view_offset(&v, 4), 104);
    UNIT_EQ(amp_io_view_offset(&v, 8), 100 + 5 * 4);   /* second block */
    UNIT_EQ(amp_io_view_offset(&v, 24), 100 + 12 * 4); /* second tile */
    UNIT_EQ(amp_io_view_offset(&v, 24 + 17), 100 + 48 + 40 + 1);
    /* The stream below an offset: inverse of the map. */
    UNIT_EQ(amp_io_view_stream_below(&v, 100), 0);
    UNIT_EQ(amp_io_view_stream_below(&v, 108), 8);
    UNIT_EQ(amp_io_view_stream_below(&v, 115), 8); /* in the hole */
    UNIT_EQ(amp_io_view_stream_below(&v, 122), 10);
    UNIT_EQ(amp_io_view_stream_below(&v, 148), 24);
    UNIT_EQ(amp_io_view_stream_below(&v, 0), 0);
    amp_io_view_cleanup(&v);
    amp_dt_destroy(&d);
}

UNIT_TEST(io_cursor_yields_the_blocks_in_order)
{
    amp_dt_t d;
    amp_io_view_t v;
    amp_io_cursor_t c;
    amp_io_seg_t s;
    char mem[64];
    vector_view(&d, &v, 0);
    /* From byte 4 of the stream, 30 bytes: the rest of block 0 (4 bytes),
     * block 1 (8), block 2 joined with block 0 of the next tile, which
     * starts where it ends (16), then 2 bytes of that tile's block 1. */
    amp_io_cursor_init(&c, &v, 4, 30, mem, 3);
    static const int64_t off[] = {4, 20, 40, 68};
    static const size_t len[] = {4, 8, 16, 2};
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        UNIT_TRUE(amp_io_cursor_next(&c, &s));
        UNIT_EQ(s.off, off[i]);
        UNIT_EQ(s.len, len[i]);
        UNIT_TRUE(s.mem == mem + at);
        UNIT_EQ(s.src, 3);
        at += s.len;
    }
    UNIT_TRUE(!amp_io_cursor_next(&c, &s));
    amp_io_view_cleanup(&v);
    amp_dt_destroy(&d);
}

UNIT_TEST(io_cursor_of_a_dense_view_is_one_piece)
{
    amp_io_view_t v;
    amp_io_cursor_t c;
    amp_io_seg_t s;
    char mem[1];
    UNIT_EQ(amp_io_view_init(&v, 7, pre(AMPI_DTID_MPI_BYTE),
                             pre(AMPI_DTID_MPI_BYTE)),
            AMP_OK);
    UNIT_TRUE(v.dense);
    amp_io_cursor_init(&c, &v, 1000, (size_t)1 << 33, mem, 0);
    UNIT_TRUE(amp_io_cursor_next(&c, &s));
    UNIT_EQ(s.off, 1007);
    UNIT_EQ(s.len, (size_t)1 << 33);
    UNIT_TRUE(!amp_io_cursor_next(&c, &s));
    amp_io_view_cleanup(&v);
}

UNIT_TEST(io_cursor_joins_blocks_that_touch_across_tiles)
{
    /* 2 ints at 8 resized to extent 8: the tiles' blocks touch. */
    amp_dt_t b, r;
    amp_io_view_t v;
    amp_io_cursor_t c;
    amp_io_seg_t s;
    char mem[1];
    amp_dt_part_t part = {8, 2, pre(AMPI_DTID_MPI_INT)};
    memset(&b, 0, sizeof(b));
    memset(&r, 0, sizeof(r));
    UNIT_EQ(amp_dt_make_struct(&b, 1, &part, 0), AMP_OK);
    UNIT_EQ(amp_dt_make_resized(&r, &b, 0, 8), AMP_OK);
    UNIT_EQ(amp_io_view_init(&v, 0, pre(AMPI_DTID_MPI_INT), &r), AMP_OK);
    amp_io_cursor_init(&c, &v, 0, 40, mem, 0);
    UNIT_TRUE(amp_io_cursor_next(&c, &s));
    UNIT_EQ(s.off, 8);
    UNIT_EQ(s.len, 40);
    UNIT_TRUE(!amp_io_cursor_next(&c, &s));
    amp_io_view_cleanup(&v);
    amp_dt_destroy(&r);
    amp_dt_destroy(&b);
}

UNIT_TEST(io_view_problems_of_typemaps)
{
    amp_dt_t d;
    amp_dt_part_t back[2] = {{12, 1, pre(AMPI_DTID_MPI_INT)},
                             {0, 1, pre(AMPI_DTID_MPI_INT)}};
    amp_dt_part_t over[2] = {{0, 3, pre(AMPI_DTID_MPI_INT)},
                             {4, 1, pre(AMPI_DTID_MPI_INT)}};
    amp_dt_part_t neg[2] = {{-8, 1, pre(AMPI_DTID_MPI_INT)},
                            {8, 1, pre(AMPI_DTID_MPI_INT)}};
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_struct(&d, 2, back, 0), AMP_OK);
    UNIT_TRUE(amp_io_view_problem(&d, 0) != NULL);
    amp_dt_destroy(&d);
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_struct(&d, 2, over, 0), AMP_OK);
    UNIT_TRUE(amp_io_view_problem(&d, 1) != NULL);
    UNIT_TRUE(amp_io_view_problem(&d, 0) == NULL); /* read-only: fine */
    amp_dt_destroy(&d);
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_struct(&d, 2, neg, 0), AMP_OK);
    UNIT_TRUE(amp_io_view_problem(&d, 0) != NULL);
    amp_dt_destroy(&d);
    UNIT_TRUE(amp_io_view_problem(pre(AMPI_DTID_MPI_DOUBLE), 1) == NULL);
}

UNIT_TEST(io_merge_orders_pieces_of_several_cursors)
{
    /* Two ranks' interleaved blocks of 4 bytes: 0, 8, 16 and 4, 12, 20. */
    amp_dt_t r;
    amp_io_view_t v0, v1;
    amp_io_cursor_t cur[2];
    amp_io_seg_t head[2], s;
    int heap[2];
    amp_io_merge_t m;
    char a[12], b[12];
    memset(&r, 0, sizeof(r));
    UNIT_EQ(amp_dt_make_resized(&r, pre(AMPI_DTID_MPI_INT), 0, 8), AMP_OK);
    UNIT_EQ(amp_io_view_init(&v0, 0, pre(AMPI_DTID_MPI_INT), &r), AMP_OK);
    UNIT_EQ(amp_io_view_init(&v1, 4, pre(AMPI_DTID_MPI_INT), &r), AMP_OK);
    amp_io_cursor_init(&cur[0], &v0, 0, 12, a, 0);
    amp_io_cursor_init(&cur[1], &v1, 0, 12, b, 1);
    amp_io_merge_init(&m, cur, 2, head, heap);
    for (int i = 0; i < 6; i++) {
        UNIT_TRUE(amp_io_merge_next(&m, &s));
        UNIT_EQ(s.off, 4 * i);
        UNIT_EQ(s.src, i % 2);
        UNIT_TRUE(s.mem == (i % 2 ? b : a) + 4 * (i / 2));
    }
    UNIT_TRUE(!amp_io_merge_next(&m, &s));
    amp_io_view_cleanup(&v0);
    amp_io_view_cleanup(&v1);
    amp_dt_destroy(&r);
}

/* ---- transfers on a real file ---- */

typedef struct pieces {
    amp_io_seg_t *s;
    int n, i;
} pieces_t;

static int next_piece(void *arg, amp_io_seg_t *seg)
{
    pieces_t *p = arg;
    if (p->i == p->n)
        return 0;
    *seg = p->s[p->i++];
    return 1;
}

static amp_io_file_t *temp_file(char *path)
{
    strcpy(path, "/tmp/ampi-unit-io-XXXXXX");
    int fd = mkstemp(path);
    UNIT_TRUE(fd >= 0);
    amp_io_file_t *f = calloc(1, sizeof(*f));
    f->fd = fd;
    pthread_rwlock_init(&f->atomic_lock, NULL);
    return f;
}

static amp_status_t transfer(amp_io_file_t *f, int write, amp_io_seg_t *s,
                             int n, size_t bounce, size_t *done)
{
    pieces_t p = {s, n, 0};
    amp_io_xfer_t x = {.file = f,
                       .write = write,
                       .next = next_piece,
                       .src = &p,
                       .bounce = bounce,
                       .done = done,
                       .nsrc = 2};
    int err;
    return amp_io_xfer_run(&x, &err);
}

UNIT_TEST(io_transfer_writes_and_sieves_reads)
{
    char path[64], data[300], back[300];
    amp_io_file_t *f = temp_file(path);
    for (int i = 0; i < 300; i++)
        data[i] = (char)(i * 7 + 1);
    /* Many small adjacent pieces (bounced), then pieces with gaps. */
    amp_io_seg_t w[40];
    for (int i = 0; i < 30; i++)
        w[i] = (amp_io_seg_t){i * 5, 5, data + i * 5, i % 2};
    for (int i = 30; i < 40; i++)
        w[i] = (amp_io_seg_t){200 + (i - 30) * 10, 5, data + 150 + (i - 30) * 5,
                              0};
    size_t done[2] = {0, 0};
    UNIT_EQ(transfer(f, 1, w, 40, 4096, done), AMP_OK);
    UNIT_EQ(done[0] + done[1], 200);
    UNIT_EQ(lseek(f->fd, 0, SEEK_END), 295);
    /* Read them back: the gapped ones through the sieve. */
    memset(back, 0, sizeof(back));
    for (int i = 0; i < 40; i++)
        w[i].mem = back + (w[i].mem - data);
    done[0] = done[1] = 0;
    UNIT_EQ(transfer(f, 0, w, 40, 4096, done), AMP_OK);
    UNIT_EQ(done[0] + done[1], 200);
    UNIT_EQ(memcmp(back, data, 200), 0);
    /* Past the end: a piece half out, one all out. */
    amp_io_seg_t r[2] = {{290, 10, back, 0}, {400, 8, back + 10, 1}};
    done[0] = done[1] = 0;
    UNIT_EQ(transfer(f, 0, r, 2, 4096, done), AMP_OK);
    UNIT_EQ(done[0], 5);
    UNIT_EQ(done[1], 0);
    close(f->fd);
    unlink(path);
    pthread_rwlock_destroy(&f->atomic_lock);
    free(f);
}

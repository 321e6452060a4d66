/* Fence epochs on windows of every flavor: put, get and accumulate to
 * the neighbours, a strided (derived) target type, MPI_PROC_NULL. */
#include "mpitest.h"

#include <stdlib.h>

#define N 16

/* A window of N ints per rank, of the given flavor; *mem is the rank's
 * memory (for dynamic windows, attached; *disp0 its displacement). */
static MPI_Win make_win(MPI_Comm comm, int flavor, int **mem, void **own,
                        MPI_Aint *disp0, MPI_Aint *disps)
{
    MPI_Win win = MPI_WIN_NULL;
    MPI_Aint bytes = N * sizeof(int);
    *own = NULL;
    if (flavor == MPI_WIN_FLAVOR_CREATE) {
        *own = calloc(N, sizeof(int));
        *mem = *own;
        MPI_Win_create(*mem, bytes, sizeof(int), MPI_INFO_NULL, comm, &win);
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, comm, mem, &win);
    } else if (flavor == MPI_WIN_FLAVOR_SHARED) {
        MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, comm, mem,
                                &win);
    } else {
        *own = calloc(N, sizeof(int));
        *mem = *own;
        MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win);
        MPI_Win_attach(win, *mem, bytes);
    }
    MPI_Get_address(*mem, disp0);
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC)
        *disp0 = 0;
    MPI_Allgather(disp0, 1, MPI_AINT, disps, 1, MPI_AINT, comm);
    int flag = 0, *fl = NULL;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
    MT_CHECK(flag && *fl == flavor);
    int *model = NULL;
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    MT_CHECK(flag && *model == MPI_WIN_UNIFIED);
    return win;
}

/* Displacement of element i at rank r. */
static MPI_Aint at(int flavor, const MPI_Aint *disps, int r, int i)
{
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return disps[r] + (MPI_Aint)(i * sizeof(int));
    return i;
}

/* Shared windows take the ranks of one process (all when the job has
 * one); the others every rank of the job. */
static void run(int flavor, MPI_Aint *disps)
{
    int *mem, got[N], one = 1, me, np;
    void *own;
    MPI_Aint d0;
    MPI_Comm comm = MPI_COMM_WORLD;
    if (flavor == MPI_WIN_FLAVOR_SHARED)
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &comm);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    MPI_Win win = make_win(comm, flavor, &mem, &own, &d0, disps);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int i = 0; i < N; i++)
        mem[i] = 1000 * me + i;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    /* Get the left neighbour's 0..3 before anyone writes (fence epoch 1). */
    MPI_Get(got, 4, MPI_INT, left, at(flavor, disps, left, 0), 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++)
        MT_CHECK_INT_EQ(got[i], 1000 * left + i);
    /* Put my rank into slot 4 of the right neighbour; add 1 to slot 5 of
     * rank 0 from everyone. */
    MPI_Put(&me, 1, MPI_INT, right, at(flavor, disps, right, 4), 1, MPI_INT,
            win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, at(flavor, disps, 0, 5), 1, MPI_INT,
                   MPI_SUM, win);
    MPI_Put(&me, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MT_CHECK_INT_EQ(mem[4], left);
    MT_CHECK_INT_EQ(mem[5], me == 0 ? 5 + np : 1000 * me + 5);
    /* A strided target: every other int of 8..15 at the right neighbour
     * (apart from what the last epoch wrote: the others may be in this
     * epoch while a rank still checks that one). */
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int src[4] = {-1 - me, -2 - me, -3 - me, -4 - me};
    MPI_Put(src, 4, MPI_INT, right, at(flavor, disps, right, 8), 1, vec, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < 4; i++)
        MT_CHECK_INT_EQ(mem[8 + 2 * i], -1 - left - i);
    MT_CHECK_INT_EQ(mem[9], 1000 * me + 9);
    MPI_Type_free(&vec);
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
        MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    MT_CHECK(win == MPI_WIN_NULL);
    free(own);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int np;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Aint *disps = malloc((size_t)np * sizeof(MPI_Aint));
    int flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                     MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC};
    for (int f = 0; f < 4; f++)
        run(flavors[f], disps);
    free(disps);
    return mt_finish_and_finalize();
}

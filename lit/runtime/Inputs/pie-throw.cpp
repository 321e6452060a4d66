// A -privatize=pie program that throws a C++ exception through its copy's
// code after a checkpoint (argv[1] a directory, or "none"): a restarted
// rank's copy must have its unwind tables registered in the new process.
// Each rank's privatized global survives too.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

static int counter;

static void thrower(int v)
{
    if (v >= 0)
        throw std::runtime_error("thrown after the checkpoint");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    counter = rank + 1;
    if (argc > 1 && std::strcmp(argv[1], "none") != 0) {
        MPI_Info info;
        char value[512];
        MPI_Info_create(&info);
        std::snprintf(value, sizeof(value), "to_file=%s", argv[1]);
        MPI_Info_set(info, "ampi_checkpoint", value);
        AMPI_Migrate(info);
        MPI_Info_free(&info);
    }
    int mine[2] = {0, counter}, all[2] = {0, 0};
    try {
        thrower(counter);
    } catch (const std::exception &e) {
        mine[0] = std::strcmp(e.what(), "thrown after the checkpoint") == 0;
    }
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("caught %d, globals %d\n", all[0], all[1]);
    MPI_Finalize();
    return 0;
}

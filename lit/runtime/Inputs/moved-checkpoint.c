/* Ranks move between processes (the ranks of process 0 report four times
 * the load of the others), then checkpoint to the directory argv[1]; the
 * total printed depends on every rank's heap and privatized global. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int global_value;

static int my_process(void)
{
    int *p, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_PROCESS, &p, &flag);
    return flag ? *p : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, moved = 0, any = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *heap = malloc(1000 * sizeof(int));
    for (int i = 0; i < 1000; i++)
        heap[i] = rank * i;
    global_value = rank + 1;
    int before = my_process();
    AMPI_Load_set_value(before == 0 ? 4.0 : 1.0);
    AMPI_Migrate(AMPI_INFO_LB_SYNC);
    moved = my_process() != before;
    MPI_Allreduce(&moved, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks that changed process: %s\n", any ? "some" : "none");
    MPI_Info info;
    char value[512];
    snprintf(value, sizeof(value), "to_file=%s", argv[1]);
    MPI_Info_create(&info);
    MPI_Info_set(info, "ampi_checkpoint", value);
    AMPI_Migrate(info);
    MPI_Info_free(&info);
    long sum = global_value * 1000000L, total = 0;
    for (int i = 0; i < 1000; i++)
        sum += heap[i];
    MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %ld\n", total);
    free(heap);
    MPI_Finalize();
    return 0;
}

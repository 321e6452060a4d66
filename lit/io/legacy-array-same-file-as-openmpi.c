/* A legacy-style program (its state in globals, privatized per rank)
 * writes a 3-D array distributed in blocks collectively through a
 * subarray view, after a header written in rank order through the shared
 * file pointer and before a trailer, then reads it all back with another
 * decomposition (slabs of x planes) and checks it.  Built with ampicc and
 * run in one process and in two, and built with Open MPI's mpicc and run
 * by its mpirun, the files are the same byte for byte.
 * REQUIRES: ampi-runtime, openmpi-mpirun
 * RUN: rm -f %t.one.dat %t.two.dat %t.ompi.dat
 * RUN: %ampicc %s -o %t
 * RUN: %openmpi_mpicc %s -o %t.ompi
 * RUN: %t +vp 4 +p 2 %t.one.dat | FileCheck %s
 * RUN: %mpirun -np 2 %t +vp 4 +p 1 %t.two.dat | FileCheck %s
 * RUN: %mpirun -np 4 %t.ompi %t.ompi.dat | FileCheck %s
 * RUN: cmp %t.one.dat %t.ompi.dat
 * RUN: cmp %t.two.dat %t.ompi.dat
 * CHECK: rank 0 of 4 wrote 6552 doubles
 * CHECK: No Errors
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 36
#define NY 28
#define NZ 26
#define HDR 32

int myrank, nprocs, errors;
int dims[3], coords[3], lsize[3], lstart[3];
double *block;
MPI_File fh;
MPI_Offset header_bytes;

double value(int x, int y, int z)
{
    return x * 10000.0 + y * 100.0 + z + 0.25;
}

void decompose(int n, int p, int c, int *start, int *len)
{
    *len = n / p + (c < n % p);
    *start = c * (n / p) + (c < n % p ? c : n % p);
}

void write_header(void)
{
    char line[HDR + 1];
    MPI_Status st;
    sprintf(line, "rank %4d of %4d  (block data)", myrank, nprocs);
    memset(line + strlen(line), ' ', HDR - strlen(line));
    line[HDR - 1] = '\n';
    MPI_File_write_ordered(fh, line, HDR, MPI_CHAR, &st);
    MPI_File_get_position_shared(fh, &header_bytes);
}

void write_array(void)
{
    int gsizes[3] = {NX, NY, NZ}, i, j, k, n = 0;
    MPI_Datatype filetype;
    MPI_Status st;
    MPI_Dims_create(nprocs, 3, dims);
    coords[0] = myrank / (dims[1] * dims[2]);
    coords[1] = myrank / dims[2] % dims[1];
    coords[2] = myrank % dims[2];
    for (i = 0; i < 3; i++)
        decompose(gsizes[i], dims[i], coords[i], &lstart[i], &lsize[i]);
    block = malloc(sizeof(double) * lsize[0] * lsize[1] * lsize[2]);
    for (i = 0; i < lsize[0]; i++)
        for (j = 0; j < lsize[1]; j++)
            for (k = 0; k < lsize[2]; k++)
                block[n++] = value(lstart[0] + i, lstart[1] + j, lstart[2] + k);
    MPI_Type_create_subarray(3, gsizes, lsize, lstart, MPI_ORDER_C, MPI_DOUBLE,
                             &filetype);
    MPI_Type_commit(&filetype);
    MPI_File_set_view(fh, header_bytes, MPI_DOUBLE, filetype, "native",
                      MPI_INFO_NULL);
    MPI_File_write_all(fh, block, n, MPI_DOUBLE, &st);
    MPI_Type_free(&filetype);
    if (myrank == 0)
        printf("rank 0 of %d wrote %d doubles\n", nprocs, n);
}

void write_trailer(void)
{
    char end[8] = "the end\n";
    MPI_File_set_view(fh, header_bytes + (MPI_Offset)NX * NY * NZ * 8, MPI_BYTE,
                      MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_write_ordered(fh, end, myrank == 0 ? 8 : 0, MPI_CHAR,
                           MPI_STATUS_IGNORE);
}

void check_header(void)
{
    char line[HDR + 1], want[HDR + 1];
    MPI_File_read_ordered(fh, line, HDR, MPI_CHAR, MPI_STATUS_IGNORE);
    sprintf(want, "rank %4d of %4d", myrank, nprocs);
    if (strncmp(line, want, strlen(want)) != 0) {
        printf("rank %d: header line '%.16s'\n", myrank, line);
        errors++;
    }
}

/* Slabs of x planes, one per rank. */
void check_slabs(void)
{
    int gsizes[3] = {NX, NY, NZ}, sizes[3], starts[3] = {0, 0, 0};
    int i, j, k, n = 0;
    double *slab;
    MPI_Datatype filetype;
    decompose(NX, nprocs, myrank, &starts[0], &sizes[0]);
    sizes[1] = NY;
    sizes[2] = NZ;
    slab = malloc(sizeof(double) * sizes[0] * NY * NZ + 1);
    MPI_Type_create_subarray(3, gsizes, sizes, starts, MPI_ORDER_C, MPI_DOUBLE,
                             &filetype);
    MPI_Type_commit(&filetype);
    MPI_File_set_view(fh, header_bytes, MPI_DOUBLE, filetype, "native",
                      MPI_INFO_NULL);
    MPI_File_read_all(fh, slab, sizes[0] * NY * NZ, MPI_DOUBLE,
                      MPI_STATUS_IGNORE);
    for (i = 0; i < sizes[0]; i++)
        for (j = 0; j < NY; j++)
            for (k = 0; k < NZ; k++, n++)
                if (slab[n] != value(starts[0] + i, j, k) && errors++ < 5)
                    printf("rank %d: (%d,%d,%d) is %g\n", myrank, starts[0] + i,
                           j, k, slab[n]);
    MPI_Type_free(&filetype);
    free(slab);
}

int main(int argc, char **argv)
{
    int total;
    char *name = argc > 1 ? argv[1] : "legacy-array.dat";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                  MPI_INFO_NULL, &fh);
    write_header();
    write_array();
    write_trailer();
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    check_header();
    check_slabs();
    MPI_File_close(&fh);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (myrank == 0)
        printf(total ? " Found %d errors\n" : " No Errors\n", total);
    free(block);
    MPI_Finalize();
    return total != 0;
}

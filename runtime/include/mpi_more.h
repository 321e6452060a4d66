/*
 * mpi_more.h: the rest of the MPI-3.1 C binding, included by mpi.h.
 *
 * mpi.h holds the calls the runtime grew up with; this header completes
 * the standard's function list, with the types and constants the
 * prototypes and ordinary programs need.  Whether a call declared here
 * does its job or fails with MPI_ERR_UNSUPPORTED_OPERATION is listed in
 * docs/mpi-support.md.  Not declared: the large-count "_c" variants
 * (MPI-4), the MPI_T tool interface and the Fortran 2008 status
 * conversions.
 *
 * Include mpi.h, not this file.
 */
#ifndef AMPI_MPI_MORE_H
#define AMPI_MPI_MORE_H

#ifndef AMPI_MPI_H
#error "include <mpi.h> instead of mpi_more.h"
#endif

/* ---- Types ---- */

typedef int MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)

/* Attribute callbacks (chapter 6). */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
                                        void *extra_state,
                                        void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
                                          void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
                                        void *extra_state,
                                        void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype,
                                          int type_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval,
                                       void *extra_state,
                                       void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval,
                                         void *attribute_val,
                                         void *extra_state);
/* Deprecated since MPI-2.0, still in MPI-3.1 (MPI_Keyval_create). */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out,
                              int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state);

/* Error handlers for windows and files (chapter 8). */
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef void MPI_File_errhandler_function(MPI_File *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
/* Removed in MPI-3.0; kept for MPI_Errhandler_create in legacy programs. */
typedef void MPI_Handler_function(MPI_Comm *, int *, ...);

/* Generalized requests (chapter 12). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* User-defined data representations (chapter 13). */
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype,
                                        MPI_Aint *file_extent,
                                        void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf,
                                            MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position,
                                            void *extra_state);

/* ---- Constants ---- */

/* Predefined objects.  Index 0 of their kind's table is reserved for them. */
#define MPI_GROUP_EMPTY ((MPI_Group)AMPI_HANDLE(AMPI_HANDLE_GROUP, 0))
#define MPI_INFO_ENV ((MPI_Info)AMPI_HANDLE(AMPI_HANDLE_INFO, 0))

/* String lengths. */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_DATAREP_STRING 128

/* Datatype combiners beyond NAMED and CONTIGUOUS (in mpi.h). */
#define MPI_COMBINER_DUP 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_F90_REAL 13
#define MPI_COMBINER_F90_COMPLEX 14
#define MPI_COMBINER_F90_INTEGER 15
#define MPI_COMBINER_RESIZED 16
/* What MPI-2 named the Fortran MPI-1 constructors with INTEGER addresses
 * (MPI_TYPE_HVECTOR, MPI_TYPE_HINDEXED, MPI_TYPE_STRUCT); defined for the
 * programs that compare with them.  Here those constructors give types of
 * the MPI-2 combiners (HVECTOR, HINDEXED, STRUCT), whose contents hold
 * addresses. */
#define MPI_COMBINER_HVECTOR_INTEGER 17
#define MPI_COMBINER_HINDEXED_INTEGER 18
#define MPI_COMBINER_STRUCT_INTEGER 19

/* Subarray and distributed-array constructors. */
#define MPI_ORDER_C 1
#define MPI_ORDER_FORTRAN 2
#define MPI_DISTRIBUTE_BLOCK 1
#define MPI_DISTRIBUTE_CYCLIC 2
#define MPI_DISTRIBUTE_NONE 3
#define MPI_DISTRIBUTE_DFLT_DARG (-1)

/* MPI_Type_match_size. */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* MPI_Comm_split_type. */
#define MPI_COMM_TYPE_SHARED 1

/* Topologies: results of MPI_Topo_test, and the special weight arguments
 * of the distributed graph constructors.  Those two are addresses of
 * objects in the library, told apart by address: not NULL, which a program
 * may pass for an empty array, and not small integers cast to pointers,
 * which GCC reports (-Wstringop-overread) at every call passing them. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
AMPI_API extern const int AMPI_Weight_marks[2];
#define MPI_UNWEIGHTED ((int *)&AMPI_Weight_marks[0])
#define MPI_WEIGHTS_EMPTY ((int *)&AMPI_Weight_marks[1])

/* Dynamic processes. */
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)

/* One-sided communication: lock types, assertions (bits above the file
 * access modes, so a mix-up is caught), window attributes, flavors and
 * memory models. */
#define MPI_LOCK_EXCLUSIVE 1
#define MPI_LOCK_SHARED 2
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

/* I/O: access modes, seek origins, views. */
#define MPI_MODE_RDONLY 1
#define MPI_MODE_WRONLY 2
#define MPI_MODE_RDWR 4
#define MPI_MODE_CREATE 8
#define MPI_MODE_EXCL 16
#define MPI_MODE_DELETE_ON_CLOSE 32
#define MPI_MODE_UNIQUE_OPEN 64
#define MPI_MODE_SEQUENTIAL 128
#define MPI_MODE_APPEND 256
#define MPI_SEEK_SET 0
#define MPI_SEEK_CUR 1
#define MPI_SEEK_END 2
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1)
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)

/* Predefined attribute callbacks.  A null callback is a null pointer; the
 * duplicating one copies the attribute value, and serves communicators,
 * datatypes and windows alike since their handles are all ints. */
static inline int AMPI_Attr_dup_fn(int oldobj, int keyval, void *extra_state,
                                   void *attribute_val_in,
                                   void *attribute_val_out, int *flag)
{
    (void)oldobj;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN (&AMPI_Attr_dup_fn)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN (&AMPI_Attr_dup_fn)
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN (&AMPI_Attr_dup_fn)
/* Deprecated forms, for MPI_Keyval_create. */
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_DUP_FN (&AMPI_Attr_dup_fn)

/* ---- Functions ---- */

/* mpi.h undefines its declaration macro before including this file. */
#define AMPI_DECLARE(ret, name, params)                                        \
    AMPI_API ret MPI_##name params;                                            \
    AMPI_API ret PMPI_##name params;

/* Point-to-point, from MPI-4.0 (chapter 3).  The large-count _c forms
 * are not provided. */
AMPI_DECLARE(int, Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Isendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request))

/* Datatypes (chapter 4). */
AMPI_DECLARE(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
AMPI_DECLARE(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
AMPI_DECLARE(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner))
AMPI_DECLARE(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
AMPI_DECLARE(int, Get_address, (const void *location, MPI_Aint *address))
AMPI_DECLARE(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
AMPI_DECLARE(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
AMPI_DECLARE(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
AMPI_DECLARE(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))
AMPI_DECLARE(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
AMPI_DECLARE(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position))
AMPI_DECLARE(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype))
AMPI_DECLARE(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size))

/* Collectives (chapter 5). */
AMPI_DECLARE(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
AMPI_DECLARE(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
AMPI_DECLARE(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
AMPI_DECLARE(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
AMPI_DECLARE(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
AMPI_DECLARE(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
AMPI_DECLARE(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
AMPI_DECLARE(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
AMPI_DECLARE(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
AMPI_DECLARE(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
AMPI_DECLARE(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))

/* Groups (chapter 6). */
AMPI_DECLARE(int, Group_size, (MPI_Group group, int *size))
AMPI_DECLARE(int, Group_rank, (MPI_Group group, int *rank))
AMPI_DECLARE(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
AMPI_DECLARE(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
AMPI_DECLARE(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
AMPI_DECLARE(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
AMPI_DECLARE(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
AMPI_DECLARE(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
AMPI_DECLARE(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
AMPI_DECLARE(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
AMPI_DECLARE(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
AMPI_DECLARE(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
AMPI_DECLARE(int, Group_free, (MPI_Group *group))

/* Communicator construction, intercommunicators (chapter 6). */
AMPI_DECLARE(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
AMPI_DECLARE(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
AMPI_DECLARE(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
AMPI_DECLARE(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
AMPI_DECLARE(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
AMPI_DECLARE(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))
AMPI_DECLARE(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
AMPI_DECLARE(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
AMPI_DECLARE(int, Comm_test_inter, (MPI_Comm comm, int *flag))
AMPI_DECLARE(int, Comm_remote_size, (MPI_Comm comm, int *size))
AMPI_DECLARE(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
AMPI_DECLARE(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm))
AMPI_DECLARE(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))

/* Caching (chapter 6). */
AMPI_DECLARE(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state))
AMPI_DECLARE(int, Comm_free_keyval, (int *comm_keyval))
AMPI_DECLARE(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
AMPI_DECLARE(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
AMPI_DECLARE(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state))
AMPI_DECLARE(int, Win_free_keyval, (int *win_keyval))
AMPI_DECLARE(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
AMPI_DECLARE(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
AMPI_DECLARE(int, Win_delete_attr, (MPI_Win win, int win_keyval))
AMPI_DECLARE(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state))
AMPI_DECLARE(int, Type_free_keyval, (int *type_keyval))
AMPI_DECLARE(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
AMPI_DECLARE(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
AMPI_DECLARE(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
/* Deprecated since MPI-2.0, still in MPI-3.1. */
AMPI_DECLARE(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state))
AMPI_DECLARE(int, Keyval_free, (int *keyval))
AMPI_DECLARE(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
AMPI_DECLARE(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
AMPI_DECLARE(int, Attr_delete, (MPI_Comm comm, int keyval))

/* Naming objects (chapter 6). */
AMPI_DECLARE(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
AMPI_DECLARE(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
AMPI_DECLARE(int, Win_set_name, (MPI_Win win, const char *win_name))
AMPI_DECLARE(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))

/* Process topologies, neighborhood collectives (chapter 7). */
AMPI_DECLARE(int, Dims_create, (int nnodes, int ndims, int dims[]))
AMPI_DECLARE(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart))
AMPI_DECLARE(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph))
AMPI_DECLARE(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
AMPI_DECLARE(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
AMPI_DECLARE(int, Topo_test, (MPI_Comm comm, int *status))
AMPI_DECLARE(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
AMPI_DECLARE(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
AMPI_DECLARE(int, Cartdim_get, (MPI_Comm comm, int *ndims))
AMPI_DECLARE(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
AMPI_DECLARE(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
AMPI_DECLARE(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
AMPI_DECLARE(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
AMPI_DECLARE(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
AMPI_DECLARE(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
AMPI_DECLARE(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]))
AMPI_DECLARE(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
AMPI_DECLARE(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
AMPI_DECLARE(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
AMPI_DECLARE(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))
AMPI_DECLARE(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
AMPI_DECLARE(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
AMPI_DECLARE(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))

/* Environment: memory, error handlers and classes (chapter 8). */
AMPI_DECLARE(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
AMPI_DECLARE(int, Free_mem, (void *base))
AMPI_DECLARE(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler))
AMPI_DECLARE(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
AMPI_DECLARE(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
AMPI_DECLARE(int, Win_call_errhandler, (MPI_Win win, int errorcode))
AMPI_DECLARE(int, File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler))
AMPI_DECLARE(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
AMPI_DECLARE(int, File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler))
AMPI_DECLARE(int, File_call_errhandler, (MPI_File fh, int errorcode))
AMPI_DECLARE(int, Add_error_class, (int *errorclass))
AMPI_DECLARE(int, Add_error_code, (int errorclass, int *errorcode))
AMPI_DECLARE(int, Add_error_string, (int errorcode, const char *string))

/* Info objects (chapter 9). */
AMPI_DECLARE(int, Info_create, (MPI_Info *info))
AMPI_DECLARE(int, Info_set, (MPI_Info info, const char *key, const char *value))
AMPI_DECLARE(int, Info_delete, (MPI_Info info, const char *key))
AMPI_DECLARE(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
AMPI_DECLARE(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
AMPI_DECLARE(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
AMPI_DECLARE(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
AMPI_DECLARE(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
AMPI_DECLARE(int, Info_free, (MPI_Info *info))
/* From MPI-4.0. */
AMPI_DECLARE(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
AMPI_DECLARE(int, Info_create_env, (int argc, char *argv[], MPI_Info *info))

/* Process creation and management (chapter 10). */
AMPI_DECLARE(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
AMPI_DECLARE(int, Comm_get_parent, (MPI_Comm *parent))
AMPI_DECLARE(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
AMPI_DECLARE(int, Open_port, (MPI_Info info, char *port_name))
AMPI_DECLARE(int, Close_port, (const char *port_name))
AMPI_DECLARE(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
AMPI_DECLARE(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
AMPI_DECLARE(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
AMPI_DECLARE(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))
AMPI_DECLARE(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))
AMPI_DECLARE(int, Comm_disconnect, (MPI_Comm *comm))
AMPI_DECLARE(int, Comm_join, (int fd, MPI_Comm *intercomm))

/* One-sided communication (chapter 11). */
AMPI_DECLARE(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
AMPI_DECLARE(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
AMPI_DECLARE(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
AMPI_DECLARE(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
AMPI_DECLARE(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
AMPI_DECLARE(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
AMPI_DECLARE(int, Win_detach, (MPI_Win win, const void *base))
AMPI_DECLARE(int, Win_free, (MPI_Win *win))
AMPI_DECLARE(int, Win_get_group, (MPI_Win win, MPI_Group *group))
AMPI_DECLARE(int, Win_set_info, (MPI_Win win, MPI_Info info))
AMPI_DECLARE(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
AMPI_DECLARE(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
AMPI_DECLARE(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
AMPI_DECLARE(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
AMPI_DECLARE(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
AMPI_DECLARE(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
AMPI_DECLARE(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
AMPI_DECLARE(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
AMPI_DECLARE(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
AMPI_DECLARE(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
AMPI_DECLARE(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
AMPI_DECLARE(int, Win_fence, (int assert, MPI_Win win))
AMPI_DECLARE(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
AMPI_DECLARE(int, Win_complete, (MPI_Win win))
AMPI_DECLARE(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
AMPI_DECLARE(int, Win_wait, (MPI_Win win))
AMPI_DECLARE(int, Win_test, (MPI_Win win, int *flag))
AMPI_DECLARE(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
AMPI_DECLARE(int, Win_lock_all, (int assert, MPI_Win win))
AMPI_DECLARE(int, Win_unlock, (int rank, MPI_Win win))
AMPI_DECLARE(int, Win_unlock_all, (MPI_Win win))
AMPI_DECLARE(int, Win_flush, (int rank, MPI_Win win))
AMPI_DECLARE(int, Win_flush_all, (MPI_Win win))
AMPI_DECLARE(int, Win_flush_local, (int rank, MPI_Win win))
AMPI_DECLARE(int, Win_flush_local_all, (MPI_Win win))
AMPI_DECLARE(int, Win_sync, (MPI_Win win))

/* External interfaces: generalized requests, status (chapter 12). */
AMPI_DECLARE(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request))
AMPI_DECLARE(int, Grequest_complete, (MPI_Request request))
AMPI_DECLARE(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
AMPI_DECLARE(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
AMPI_DECLARE(int, Status_set_cancelled, (MPI_Status *status, int flag))

/* I/O (chapter 13). */
AMPI_DECLARE(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
AMPI_DECLARE(int, File_close, (MPI_File *fh))
AMPI_DECLARE(int, File_delete, (const char *filename, MPI_Info info))
AMPI_DECLARE(int, File_set_size, (MPI_File fh, MPI_Offset size))
AMPI_DECLARE(int, File_preallocate, (MPI_File fh, MPI_Offset size))
AMPI_DECLARE(int, File_get_size, (MPI_File fh, MPI_Offset *size))
AMPI_DECLARE(int, File_get_group, (MPI_File fh, MPI_Group *group))
AMPI_DECLARE(int, File_get_amode, (MPI_File fh, int *amode))
AMPI_DECLARE(int, File_set_info, (MPI_File fh, MPI_Info info))
AMPI_DECLARE(int, File_get_info, (MPI_File fh, MPI_Info *info_used))
AMPI_DECLARE(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info))
AMPI_DECLARE(int, File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep))
AMPI_DECLARE(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
AMPI_DECLARE(int, File_get_position, (MPI_File fh, MPI_Offset *offset))
AMPI_DECLARE(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
AMPI_DECLARE(int, File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
AMPI_DECLARE(int, File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
AMPI_DECLARE(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
AMPI_DECLARE(int, File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
AMPI_DECLARE(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype))
AMPI_DECLARE(int, File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
AMPI_DECLARE(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype))
AMPI_DECLARE(int, File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
AMPI_DECLARE(int, File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
AMPI_DECLARE(int, File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
AMPI_DECLARE(int, File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
AMPI_DECLARE(int, File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
AMPI_DECLARE(int, File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
AMPI_DECLARE(int, File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
AMPI_DECLARE(int, File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
AMPI_DECLARE(int, File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status))
AMPI_DECLARE(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
AMPI_DECLARE(int, Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
AMPI_DECLARE(int, File_set_atomicity, (MPI_File fh, int flag))
AMPI_DECLARE(int, File_get_atomicity, (MPI_File fh, int *flag))
AMPI_DECLARE(int, File_sync, (MPI_File fh))

/* Profiling control (chapter 14). */
AMPI_DECLARE(int, Pcontrol, (const int level, ...))

/* Language interoperability (chapter 17).  Handles are ints in both
 * languages, so the conversions give back the same value. */
AMPI_DECLARE(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
AMPI_DECLARE(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
AMPI_DECLARE(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
AMPI_DECLARE(MPI_Fint, Comm_c2f, (MPI_Comm comm))
AMPI_DECLARE(MPI_Comm, Comm_f2c, (MPI_Fint comm))
AMPI_DECLARE(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
AMPI_DECLARE(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
AMPI_DECLARE(MPI_Fint, File_c2f, (MPI_File file))
AMPI_DECLARE(MPI_File, File_f2c, (MPI_Fint file))
AMPI_DECLARE(MPI_Fint, Group_c2f, (MPI_Group group))
AMPI_DECLARE(MPI_Group, Group_f2c, (MPI_Fint group))
AMPI_DECLARE(MPI_Fint, Info_c2f, (MPI_Info info))
AMPI_DECLARE(MPI_Info, Info_f2c, (MPI_Fint info))
AMPI_DECLARE(MPI_Fint, Message_c2f, (MPI_Message message))
AMPI_DECLARE(MPI_Message, Message_f2c, (MPI_Fint message))
AMPI_DECLARE(MPI_Fint, Op_c2f, (MPI_Op op))
AMPI_DECLARE(MPI_Op, Op_f2c, (MPI_Fint op))
AMPI_DECLARE(MPI_Fint, Request_c2f, (MPI_Request request))
AMPI_DECLARE(MPI_Request, Request_f2c, (MPI_Fint request))
AMPI_DECLARE(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
AMPI_DECLARE(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
AMPI_DECLARE(MPI_Fint, Win_c2f, (MPI_Win win))
AMPI_DECLARE(MPI_Win, Win_f2c, (MPI_Fint win))

/* Removed in MPI-3.0, declared for legacy programs.  New code uses the
 * replacements named in docs/mpi-support.md. */
AMPI_DECLARE(int, Address, (void *location, MPI_Aint *address))
AMPI_DECLARE(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
AMPI_DECLARE(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
AMPI_DECLARE(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
AMPI_DECLARE(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_hindexed, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_struct, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype))
AMPI_DECLARE(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
AMPI_DECLARE(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
AMPI_DECLARE(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))

#undef AMPI_DECLARE

#endif

/*
 * The calls of the MPI-3.1 C binding that this version of the runtime does
 * not implement yet.  Each fails with MPI_ERR_UNSUPPORTED_OPERATION through
 * MPI_COMM_WORLD's error handler, with a message that names the call, so a
 * program finds out at the first such call instead of from a missing symbol
 * at link time or a wrong answer later.  docs/mpi-support.md lists them;
 * implementing one means deleting its line here.
 *
 * At the end are the few calls from mpi_more.h that return no error code
 * (an address or a handle instead) or have nothing to do; those do their
 * whole job here.
 */
#include "mpi/impl.h"

#include <stdint.h>

int amp_mpi_unsupported(const char *call)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    return amp_mpi_error(rank, NULL, MPI_ERR_UNSUPPORTED_OPERATION, call,
                         "not implemented in this version of the runtime; "
                         "see docs/mpi-support.md");
}

/* Defines PMPI_name, failing as above, and its weak alias MPI_name.  The
 * parameter list repeats the prototype in mpi_more.h, so the compiler checks
 * that the two agree. */
#define UNSUPPORTED(name, params)                                              \
    int PMPI_##name params                                                     \
    {                                                                          \
        return amp_mpi_unsupported("MPI_" #name);                              \
    }                                                                          \
    AMP_WEAK_ALIAS(name)

/* Datatypes, packing (chapter 4). */

UNSUPPORTED(Type_create_darray,
            (int size, int rank, int ndims, const int array_of_gsizes[],
             const int array_of_distribs[], const int array_of_dargs[],
             const int array_of_psizes[], int order, MPI_Datatype oldtype,
             MPI_Datatype *newtype))
UNSUPPORTED(Pack_external, (const char datarep[], const void *inbuf,
                            int incount, MPI_Datatype datatype, void *outbuf,
                            MPI_Aint outsize, MPI_Aint *position))
UNSUPPORTED(Unpack_external, (const char datarep[], const void *inbuf,
                              MPI_Aint insize, MPI_Aint *position, void *outbuf,
                              int outcount, MPI_Datatype datatype))
UNSUPPORTED(Pack_external_size, (const char datarep[], int incount,
                                 MPI_Datatype datatype, MPI_Aint *size))

/* Collectives (chapter 5). */

UNSUPPORTED(Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm))
UNSUPPORTED(Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm))
UNSUPPORTED(Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm))
UNSUPPORTED(Scatterv,
            (const void *sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void *recvbuf, int recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm))
UNSUPPORTED(Allgather, (const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm))
UNSUPPORTED(Allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, const int recvcounts[], const int displs[],
             MPI_Datatype recvtype, MPI_Comm comm))
UNSUPPORTED(Alltoall, (const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm))
UNSUPPORTED(Alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
UNSUPPORTED(Alltoallw,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf,
             const int recvcounts[], const int rdispls[],
             const MPI_Datatype recvtypes[], MPI_Comm comm))
UNSUPPORTED(Reduce_local, (const void *inbuf, void *inoutbuf, int count,
                           MPI_Datatype datatype, MPI_Op op))
UNSUPPORTED(Reduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount,
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
UNSUPPORTED(Reduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[],
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
UNSUPPORTED(Scan, (const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
UNSUPPORTED(Exscan, (const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
UNSUPPORTED(Ibarrier, (MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Igatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, const int recvcounts[], const int displs[],
             MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Iscatter,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Iscatterv, (const void *sendbuf, const int sendcounts[],
                        const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Iallgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Iallgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, const int recvcounts[], const int displs[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Ialltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Ialltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Ialltoallw, (const void *sendbuf, const int sendcounts[],
                         const int sdispls[], const MPI_Datatype sendtypes[],
                         void *recvbuf, const int recvcounts[],
                         const int rdispls[], const MPI_Datatype recvtypes[],
                         MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Ireduce, (const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                      MPI_Request *request))
UNSUPPORTED(Iallreduce, (const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request *request))
UNSUPPORTED(Ireduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount,
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Ireduce_scatter, (const void *sendbuf, void *recvbuf,
                              const int recvcounts[], MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Iscan, (const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request))
UNSUPPORTED(Iexscan, (const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      MPI_Request *request))

/* Groups (chapter 6). */

UNSUPPORTED(Group_size, (MPI_Group group, int *size))
UNSUPPORTED(Group_rank, (MPI_Group group, int *rank))
UNSUPPORTED(Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[],
                                    MPI_Group group2, int ranks2[]))
UNSUPPORTED(Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
UNSUPPORTED(Comm_group, (MPI_Comm comm, MPI_Group *group))
UNSUPPORTED(Group_union,
            (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
UNSUPPORTED(Group_intersection,
            (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
UNSUPPORTED(Group_difference,
            (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
UNSUPPORTED(Group_incl,
            (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
UNSUPPORTED(Group_excl,
            (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
UNSUPPORTED(Group_range_incl,
            (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
UNSUPPORTED(Group_range_excl,
            (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
UNSUPPORTED(Group_free, (MPI_Group * group))

/* Communicator construction, intercommunicators (chapter 6). */

UNSUPPORTED(Comm_dup_with_info,
            (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
UNSUPPORTED(Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
UNSUPPORTED(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
UNSUPPORTED(Comm_create_group,
            (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
UNSUPPORTED(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
UNSUPPORTED(Comm_split_type, (MPI_Comm comm, int split_type, int key,
                              MPI_Info info, MPI_Comm *newcomm))
UNSUPPORTED(Comm_set_info, (MPI_Comm comm, MPI_Info info))
UNSUPPORTED(Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
UNSUPPORTED(Comm_test_inter, (MPI_Comm comm, int *flag))
UNSUPPORTED(Comm_remote_size, (MPI_Comm comm, int *size))
UNSUPPORTED(Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
UNSUPPORTED(Intercomm_create,
            (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
             int remote_leader, int tag, MPI_Comm *newintercomm))
UNSUPPORTED(Intercomm_merge,
            (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))

/* Caching (chapter 6). */

UNSUPPORTED(Comm_create_keyval,
            (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
             MPI_Comm_delete_attr_function *comm_delete_attr_fn,
             int *comm_keyval, void *extra_state))
UNSUPPORTED(Comm_free_keyval, (int *comm_keyval))
UNSUPPORTED(Comm_set_attr,
            (MPI_Comm comm, int comm_keyval, void *attribute_val))
UNSUPPORTED(Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
UNSUPPORTED(Win_create_keyval,
            (MPI_Win_copy_attr_function * win_copy_attr_fn,
             MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
             void *extra_state))
UNSUPPORTED(Win_free_keyval, (int *win_keyval))
UNSUPPORTED(Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
UNSUPPORTED(Win_get_attr,
            (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
UNSUPPORTED(Win_delete_attr, (MPI_Win win, int win_keyval))
UNSUPPORTED(Type_create_keyval,
            (MPI_Type_copy_attr_function * type_copy_attr_fn,
             MPI_Type_delete_attr_function *type_delete_attr_fn,
             int *type_keyval, void *extra_state))
UNSUPPORTED(Type_free_keyval, (int *type_keyval))
UNSUPPORTED(Type_set_attr,
            (MPI_Datatype datatype, int type_keyval, void *attribute_val))
UNSUPPORTED(Type_get_attr, (MPI_Datatype datatype, int type_keyval,
                            void *attribute_val, int *flag))
UNSUPPORTED(Type_delete_attr, (MPI_Datatype datatype, int type_keyval))

/* Caching: the forms deprecated since MPI-2.0. */

UNSUPPORTED(Keyval_create,
            (MPI_Copy_function * copy_fn, MPI_Delete_function *delete_fn,
             int *keyval, void *extra_state))
UNSUPPORTED(Keyval_free, (int *keyval))
UNSUPPORTED(Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
UNSUPPORTED(Attr_get,
            (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
UNSUPPORTED(Attr_delete, (MPI_Comm comm, int keyval))

/* Naming objects (chapter 6). */

UNSUPPORTED(Win_set_name, (MPI_Win win, const char *win_name))
UNSUPPORTED(Win_get_name, (MPI_Win win, char *win_name, int *resultlen))

/* Process topologies, neighborhood collectives (chapter 7). */

UNSUPPORTED(Dims_create, (int nnodes, int ndims, int dims[]))
UNSUPPORTED(Cart_create,
            (MPI_Comm comm_old, int ndims, const int dims[],
             const int periods[], int reorder, MPI_Comm *comm_cart))
UNSUPPORTED(Graph_create,
            (MPI_Comm comm_old, int nnodes, const int index[],
             const int edges[], int reorder, MPI_Comm *comm_graph))
UNSUPPORTED(Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[],
             const int sourceweights[], int outdegree, const int destinations[],
             const int destweights[], MPI_Info info, int reorder,
             MPI_Comm *comm_dist_graph))
UNSUPPORTED(Dist_graph_create,
            (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
             const int destinations[], const int weights[], MPI_Info info,
             int reorder, MPI_Comm *comm_dist_graph))
UNSUPPORTED(Topo_test, (MPI_Comm comm, int *status))
UNSUPPORTED(Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
UNSUPPORTED(Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[],
                        int edges[]))
UNSUPPORTED(Cartdim_get, (MPI_Comm comm, int *ndims))
UNSUPPORTED(Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[],
                       int coords[]))
UNSUPPORTED(Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
UNSUPPORTED(Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
UNSUPPORTED(Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
UNSUPPORTED(Graph_neighbors,
            (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
UNSUPPORTED(Dist_graph_neighbors_count,
            (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
UNSUPPORTED(Dist_graph_neighbors,
            (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
             int maxoutdegree, int destinations[], int destweights[]))
UNSUPPORTED(Cart_shift, (MPI_Comm comm, int direction, int disp,
                         int *rank_source, int *rank_dest))
UNSUPPORTED(Cart_sub,
            (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
UNSUPPORTED(Cart_map, (MPI_Comm comm, int ndims, const int dims[],
                       const int periods[], int *newrank))
UNSUPPORTED(Graph_map, (MPI_Comm comm, int nnodes, const int index[],
                        const int edges[], int *newrank))
UNSUPPORTED(Neighbor_allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype,
             MPI_Comm comm))
UNSUPPORTED(Neighbor_allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, const int recvcounts[], const int displs[],
             MPI_Datatype recvtype, MPI_Comm comm))
UNSUPPORTED(Neighbor_alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype,
             MPI_Comm comm))
UNSUPPORTED(Neighbor_alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
UNSUPPORTED(Neighbor_alltoallw,
            (const void *sendbuf, const int sendcounts[],
             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
             const MPI_Datatype recvtypes[], MPI_Comm comm))
UNSUPPORTED(Ineighbor_allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Ineighbor_allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, const int recvcounts[], const int displs[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
UNSUPPORTED(Ineighbor_alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Ineighbor_alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request))
UNSUPPORTED(Ineighbor_alltoallw,
            (const void *sendbuf, const int sendcounts[],
             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
             const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request *request))

/* Environment: memory, error handlers and classes (chapter 8). */

UNSUPPORTED(Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
UNSUPPORTED(Free_mem, (void *base))
UNSUPPORTED(Win_create_errhandler,
            (MPI_Win_errhandler_function * win_errhandler_fn,
             MPI_Errhandler *errhandler))
UNSUPPORTED(Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
UNSUPPORTED(Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
UNSUPPORTED(Win_call_errhandler, (MPI_Win win, int errorcode))
UNSUPPORTED(File_create_errhandler,
            (MPI_File_errhandler_function * file_errhandler_fn,
             MPI_Errhandler *errhandler))
UNSUPPORTED(File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
UNSUPPORTED(File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler))
UNSUPPORTED(File_call_errhandler, (MPI_File fh, int errorcode))
UNSUPPORTED(Add_error_class, (int *errorclass))
UNSUPPORTED(Add_error_code, (int errorclass, int *errorcode))
UNSUPPORTED(Add_error_string, (int errorcode, const char *string))

/* Info objects (chapter 9). */

UNSUPPORTED(Info_create, (MPI_Info * info))
UNSUPPORTED(Info_set, (MPI_Info info, const char *key, const char *value))
UNSUPPORTED(Info_delete, (MPI_Info info, const char *key))
UNSUPPORTED(Info_get, (MPI_Info info, const char *key, int valuelen,
                       char *value, int *flag))
UNSUPPORTED(Info_get_valuelen,
            (MPI_Info info, const char *key, int *valuelen, int *flag))
UNSUPPORTED(Info_get_nkeys, (MPI_Info info, int *nkeys))
UNSUPPORTED(Info_get_nthkey, (MPI_Info info, int n, char *key))
UNSUPPORTED(Info_dup, (MPI_Info info, MPI_Info *newinfo))
UNSUPPORTED(Info_free, (MPI_Info * info))

/* Process creation and management (chapter 10). */

UNSUPPORTED(Comm_spawn, (const char *command, char *argv[], int maxprocs,
                         MPI_Info info, int root, MPI_Comm comm,
                         MPI_Comm *intercomm, int array_of_errcodes[]))
UNSUPPORTED(Comm_get_parent, (MPI_Comm * parent))
UNSUPPORTED(Comm_spawn_multiple,
            (int count, char *array_of_commands[], char **array_of_argv[],
             const int array_of_maxprocs[], const MPI_Info array_of_info[],
             int root, MPI_Comm comm, MPI_Comm *intercomm,
             int array_of_errcodes[]))
UNSUPPORTED(Open_port, (MPI_Info info, char *port_name))
UNSUPPORTED(Close_port, (const char *port_name))
UNSUPPORTED(Comm_accept, (const char *port_name, MPI_Info info, int root,
                          MPI_Comm comm, MPI_Comm *newcomm))
UNSUPPORTED(Comm_connect, (const char *port_name, MPI_Info info, int root,
                           MPI_Comm comm, MPI_Comm *newcomm))
UNSUPPORTED(Publish_name,
            (const char *service_name, MPI_Info info, const char *port_name))
UNSUPPORTED(Unpublish_name,
            (const char *service_name, MPI_Info info, const char *port_name))
UNSUPPORTED(Lookup_name,
            (const char *service_name, MPI_Info info, char *port_name))
UNSUPPORTED(Comm_disconnect, (MPI_Comm * comm))
UNSUPPORTED(Comm_join, (int fd, MPI_Comm *intercomm))

/* One-sided communication (chapter 11). */

UNSUPPORTED(Win_create, (void *base, MPI_Aint size, int disp_unit,
                         MPI_Info info, MPI_Comm comm, MPI_Win *win))
UNSUPPORTED(Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info,
                           MPI_Comm comm, void *baseptr, MPI_Win *win))
UNSUPPORTED(Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info,
                                  MPI_Comm comm, void *baseptr, MPI_Win *win))
UNSUPPORTED(Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size,
                               int *disp_unit, void *baseptr))
UNSUPPORTED(Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
UNSUPPORTED(Win_attach, (MPI_Win win, void *base, MPI_Aint size))
UNSUPPORTED(Win_detach, (MPI_Win win, const void *base))
UNSUPPORTED(Win_free, (MPI_Win * win))
UNSUPPORTED(Win_get_group, (MPI_Win win, MPI_Group *group))
UNSUPPORTED(Win_set_info, (MPI_Win win, MPI_Info info))
UNSUPPORTED(Win_get_info, (MPI_Win win, MPI_Info *info_used))
UNSUPPORTED(Put, (const void *origin_addr, int origin_count,
                  MPI_Datatype origin_datatype, int target_rank,
                  MPI_Aint target_disp, int target_count,
                  MPI_Datatype target_datatype, MPI_Win win))
UNSUPPORTED(Get,
            (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win))
UNSUPPORTED(Accumulate, (const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
UNSUPPORTED(Get_accumulate,
            (const void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, void *result_addr, int result_count,
             MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
UNSUPPORTED(Fetch_and_op,
            (const void *origin_addr, void *result_addr, MPI_Datatype datatype,
             int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
UNSUPPORTED(Compare_and_swap,
            (const void *origin_addr, const void *compare_addr,
             void *result_addr, MPI_Datatype datatype, int target_rank,
             MPI_Aint target_disp, MPI_Win win))
UNSUPPORTED(Rput,
            (const void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
UNSUPPORTED(Rget,
            (void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
UNSUPPORTED(Raccumulate, (const void *origin_addr, int origin_count,
                          MPI_Datatype origin_datatype, int target_rank,
                          MPI_Aint target_disp, int target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                          MPI_Request *request))
UNSUPPORTED(Rget_accumulate, (const void *origin_addr, int origin_count,
                              MPI_Datatype origin_datatype, void *result_addr,
                              int result_count, MPI_Datatype result_datatype,
                              int target_rank, MPI_Aint target_disp,
                              int target_count, MPI_Datatype target_datatype,
                              MPI_Op op, MPI_Win win, MPI_Request *request))
UNSUPPORTED(Win_fence, (int assert, MPI_Win win))
UNSUPPORTED(Win_start, (MPI_Group group, int assert, MPI_Win win))
UNSUPPORTED(Win_complete, (MPI_Win win))
UNSUPPORTED(Win_post, (MPI_Group group, int assert, MPI_Win win))
UNSUPPORTED(Win_wait, (MPI_Win win))
UNSUPPORTED(Win_test, (MPI_Win win, int *flag))
UNSUPPORTED(Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
UNSUPPORTED(Win_lock_all, (int assert, MPI_Win win))
UNSUPPORTED(Win_unlock, (int rank, MPI_Win win))
UNSUPPORTED(Win_unlock_all, (MPI_Win win))
UNSUPPORTED(Win_flush, (int rank, MPI_Win win))
UNSUPPORTED(Win_flush_all, (MPI_Win win))
UNSUPPORTED(Win_flush_local, (int rank, MPI_Win win))
UNSUPPORTED(Win_flush_local_all, (MPI_Win win))
UNSUPPORTED(Win_sync, (MPI_Win win))

/* External interfaces: generalized requests, status (chapter 12). */

UNSUPPORTED(Grequest_start, (MPI_Grequest_query_function * query_fn,
                             MPI_Grequest_free_function *free_fn,
                             MPI_Grequest_cancel_function *cancel_fn,
                             void *extra_state, MPI_Request *request))
UNSUPPORTED(Grequest_complete, (MPI_Request request))
UNSUPPORTED(Status_set_elements,
            (MPI_Status * status, MPI_Datatype datatype, int count))
UNSUPPORTED(Status_set_elements_x,
            (MPI_Status * status, MPI_Datatype datatype, MPI_Count count))
UNSUPPORTED(Status_set_cancelled, (MPI_Status * status, int flag))

/* I/O (chapter 13). */

UNSUPPORTED(File_open, (MPI_Comm comm, const char *filename, int amode,
                        MPI_Info info, MPI_File *fh))
UNSUPPORTED(File_close, (MPI_File * fh))
UNSUPPORTED(File_delete, (const char *filename, MPI_Info info))
UNSUPPORTED(File_set_size, (MPI_File fh, MPI_Offset size))
UNSUPPORTED(File_preallocate, (MPI_File fh, MPI_Offset size))
UNSUPPORTED(File_get_size, (MPI_File fh, MPI_Offset *size))
UNSUPPORTED(File_get_group, (MPI_File fh, MPI_Group *group))
UNSUPPORTED(File_get_amode, (MPI_File fh, int *amode))
UNSUPPORTED(File_set_info, (MPI_File fh, MPI_Info info))
UNSUPPORTED(File_get_info, (MPI_File fh, MPI_Info *info_used))
UNSUPPORTED(File_set_view,
            (MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
             MPI_Datatype filetype, const char *datarep, MPI_Info info))
UNSUPPORTED(File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                            MPI_Datatype *filetype, char *datarep))
UNSUPPORTED(File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_read_at_all,
            (MPI_File fh, MPI_Offset offset, void *buf, int count,
             MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_write_at,
            (MPI_File fh, MPI_Offset offset, const void *buf, int count,
             MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_write_at_all,
            (MPI_File fh, MPI_Offset offset, const void *buf, int count,
             MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_iread_at,
            (MPI_File fh, MPI_Offset offset, void *buf, int count,
             MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_iwrite_at,
            (MPI_File fh, MPI_Offset offset, const void *buf, int count,
             MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_iread_at_all,
            (MPI_File fh, MPI_Offset offset, void *buf, int count,
             MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_iwrite_at_all,
            (MPI_File fh, MPI_Offset offset, const void *buf, int count,
             MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_read, (MPI_File fh, void *buf, int count,
                        MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_read_all, (MPI_File fh, void *buf, int count,
                            MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_write, (MPI_File fh, const void *buf, int count,
                         MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_write_all, (MPI_File fh, const void *buf, int count,
                             MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_iread, (MPI_File fh, void *buf, int count,
                         MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_iwrite, (MPI_File fh, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_iread_all, (MPI_File fh, void *buf, int count,
                             MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_iwrite_all, (MPI_File fh, const void *buf, int count,
                              MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_seek, (MPI_File fh, MPI_Offset offset, int whence))
UNSUPPORTED(File_get_position, (MPI_File fh, MPI_Offset *offset))
UNSUPPORTED(File_get_byte_offset,
            (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
UNSUPPORTED(File_read_shared, (MPI_File fh, void *buf, int count,
                               MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_write_shared, (MPI_File fh, const void *buf, int count,
                                MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_iread_shared, (MPI_File fh, void *buf, int count,
                                MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_iwrite_shared, (MPI_File fh, const void *buf, int count,
                                 MPI_Datatype datatype, MPI_Request *request))
UNSUPPORTED(File_read_ordered, (MPI_File fh, void *buf, int count,
                                MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_write_ordered, (MPI_File fh, const void *buf, int count,
                                 MPI_Datatype datatype, MPI_Status *status))
UNSUPPORTED(File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
UNSUPPORTED(File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
UNSUPPORTED(File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf,
                                     int count, MPI_Datatype datatype))
UNSUPPORTED(File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
UNSUPPORTED(File_write_at_all_begin,
            (MPI_File fh, MPI_Offset offset, const void *buf, int count,
             MPI_Datatype datatype))
UNSUPPORTED(File_write_at_all_end,
            (MPI_File fh, const void *buf, MPI_Status *status))
UNSUPPORTED(File_read_all_begin,
            (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
UNSUPPORTED(File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
UNSUPPORTED(File_write_all_begin,
            (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
UNSUPPORTED(File_write_all_end,
            (MPI_File fh, const void *buf, MPI_Status *status))
UNSUPPORTED(File_read_ordered_begin,
            (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
UNSUPPORTED(File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
UNSUPPORTED(File_write_ordered_begin,
            (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
UNSUPPORTED(File_write_ordered_end,
            (MPI_File fh, const void *buf, MPI_Status *status))
UNSUPPORTED(File_get_type_extent,
            (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
UNSUPPORTED(Register_datarep,
            (const char *datarep,
             MPI_Datarep_conversion_function *read_conversion_fn,
             MPI_Datarep_conversion_function *write_conversion_fn,
             MPI_Datarep_extent_function *dtype_file_extent_fn,
             void *extra_state))
UNSUPPORTED(File_set_atomicity, (MPI_File fh, int flag))
UNSUPPORTED(File_get_atomicity, (MPI_File fh, int *flag))
UNSUPPORTED(File_sync, (MPI_File fh))

/* Language interoperability (chapter 17). */

UNSUPPORTED(Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
UNSUPPORTED(Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
UNSUPPORTED(Type_create_f90_integer, (int r, MPI_Datatype *newtype))
UNSUPPORTED(Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
UNSUPPORTED(Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
UNSUPPORTED(Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))

/* Removed in MPI-3.0; legacy programs still call them. */

UNSUPPORTED(Errhandler_create,
            (MPI_Handler_function * function, MPI_Errhandler *errhandler))
UNSUPPORTED(Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
UNSUPPORTED(Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))

/* ---- Calls with no error code to return ---- */

/* Address arithmetic in a flat address space.  Unsigned, so that no sum
 * overflows. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
AMP_WEAK_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
AMP_WEAK_ALIAS(Aint_diff)

/* The runtime has no profiling levels of its own; MPI_Pcontrol is there for
 * a profiling library that intercepts it, and otherwise has no effect. */
int PMPI_Pcontrol(const int level, ...)
{
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Pcontrol)

/* What MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY point to (see mpi_more.h). */
const int AMPI_Weight_marks[2] = {0, 0};

/* Handles are ints in C and Fortran alike, so each converts to itself. */
#define SAME_HANDLE(name, type)                                                \
    MPI_Fint PMPI_##name##_c2f(type handle)                                    \
    {                                                                          \
        return (MPI_Fint)handle;                                               \
    }                                                                          \
    AMP_WEAK_ALIAS(name##_c2f)                                                 \
    type PMPI_##name##_f2c(MPI_Fint handle)                                    \
    {                                                                          \
        return (type)handle;                                                   \
    }                                                                          \
    AMP_WEAK_ALIAS(name##_f2c)

SAME_HANDLE(Comm, MPI_Comm)
SAME_HANDLE(Errhandler, MPI_Errhandler)
SAME_HANDLE(File, MPI_File)
SAME_HANDLE(Group, MPI_Group)
SAME_HANDLE(Info, MPI_Info)
SAME_HANDLE(Message, MPI_Message)
SAME_HANDLE(Op, MPI_Op)
SAME_HANDLE(Request, MPI_Request)
SAME_HANDLE(Type, MPI_Datatype)
SAME_HANDLE(Win, MPI_Win)

/* MPI_Pack, MPI_Unpack, MPI_Pack_size and addresses.  The packed format
 * is the data bytes in type-map order, with no header. */
#include "mpi/handles.h"
#include "mpi/datatype/datarep.h"
#include "mpi/stage.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* The bytes count elements of dt pack into, or -1 past INT_MAX. */
static long long packed_bytes(const amp_dt_t *dt, int count)
{
    unsigned long long b = (unsigned long long)dt->size * (unsigned)count;
    return b > INT_MAX ? -1 : (long long)b;
}

/* One pack or unpack request (MPI_Pack, MPI_Unpack and their external
 * forms): count elements of dtype at typed, to (packing) or from the
 * packed buffer packed; its size and the position in it are the call's
 * (int, or MPI_Aint for the external forms), passed beside. */
typedef struct pack_req {
    void *typed;
    int count;
    MPI_Datatype dtype;
    void *packed;
    int packing;
    const char *call;
} pack_req_t;

/* Checks what Pack and Unpack share; *bytes is the data size. */
static int check_pack(amp_rank_t *rank, MPI_Comm comm_h, const pack_req_t *r,
                      int size, const int *position, amp_comm_t **comm,
                      const amp_dt_t **dt, long long *bytes)
{
    const char *call = r->call;
    int count = r->count;
    int rc = amp_check_comm(rank, comm_h, call, comm);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, *comm, count, call,
                             r->packing ? "incount" : "outcount");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, *comm, r->dtype, call, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, *comm, r->typed, count, *dt, call,
                           r->packing ? "inbuf" : "outbuf");
    if (rc == MPI_SUCCESS && !position)
        rc = amp_mpi_error(rank, *comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument position)");
    if (rc == MPI_SUCCESS && (size < 0 || *position < 0 || *position > size))
        rc = amp_mpi_error(rank, *comm, MPI_ERR_ARG, call,
                           "position %d outside a buffer of %d bytes "
                           "(arguments position, %s)",
                           *position, size, r->packing ? "outsize" : "insize");
    if (rc != MPI_SUCCESS)
        return rc;
    *bytes = packed_bytes(*dt, count);
    if (*bytes < 0)
        return amp_mpi_error(rank, *comm, MPI_ERR_COUNT, call,
                             "%d elements of the type are more than INT_MAX "
                             "bytes packed",
                             count);
    if (*bytes > (long long)size - *position)
        return amp_mpi_error(rank, *comm, MPI_ERR_TRUNCATE, call,
                             "%lld bytes do not fit at position %d of a "
                             "%d-byte packed buffer",
                             *bytes, *position, size);
    return MPI_SUCCESS;
}

/* Device memory (../stage.h): the typed buffer (td: its elements, read when
 * packing, else written) and the packed bytes at the position (span sp,
 * the reverse), each replaced by a host copy in *g. */
static int pack_stage(amp_rank_t *rank, amp_comm_t *comm,
                      amp_gpu_stage_desc_t td, void **typed, void **packed,
                      const amp_gpu_span_t *sp, amp_gpu_op_t **g,
                      const char *call)
{
    int rc = amp_gpu_op_stage(rank, comm, g, td, typed, call);
    if (rc == MPI_SUCCESS)
        rc = amp_gpu_op_stage(rank, comm, g,
                              amp_gpu_stage_span(*packed, sp,
                                                 td.role == AMP_GPU_SEND
                                                     ? AMP_GPU_RECV
                                                     : AMP_GPU_SEND),
                              packed, call);
    return rc;
}

/* MPI_Pack or MPI_Unpack: r between the typed buffer and size bytes of
 * packed data, at *position in it. */
static int pack_common(const pack_req_t *r, int size, int *position,
                       MPI_Comm comm_h)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    long long bytes;
    const char *call = r->call;
    void *typed = r->typed, *packed = r->packed;
    int count = r->count, packing = r->packing;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_pack(rank, comm_h, r, size, position, &comm, &dt, &bytes);
    if (rc == MPI_SUCCESS && bytes && !packed)
        rc = amp_mpi_error(rank, comm, MPI_ERR_BUFFER, call,
                           "NULL buffer (argument %s)",
                           packing ? "outbuf" : "inbuf");
    amp_gpu_op_t *g = NULL;
    if (rc == MPI_SUCCESS && bytes && amp_proc.gpu) /* device memory */
        rc = pack_stage(rank, comm,
                        amp_gpu_stage_dt(typed, count, dt,
                                         packing ? AMP_GPU_SEND : AMP_GPU_RECV),
                        &typed, &packed,
                        &(amp_gpu_span_t){*position, (size_t)bytes, 1}, &g,
                        call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (bytes && packing)
        amp_dt_pack(dt, count, typed, (char *)packed + *position);
    else if (bytes)
        amp_dt_unpack(dt, count, typed, (char *)packed + *position,
                      (size_t)bytes);
    *position += (int)bytes;
    return g ? amp_gpu_op_finish(rank, comm, g, NULL, call) : MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    return pack_common(&(pack_req_t){.typed = (void *)inbuf,
                                     .count = incount,
                                     .dtype = datatype,
                                     .packed = outbuf,
                                     .packing = 1,
                                     .call = "MPI_Pack"},
                       outsize, position, comm);
}
AMP_WEAK_ALIAS(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return pack_common(&(pack_req_t){.typed = outbuf,
                                     .count = outcount,
                                     .dtype = datatype,
                                     .packed = (void *)inbuf,
                                     .call = "MPI_Unpack"},
                       insize, position, comm);
}
AMP_WEAK_ALIAS(Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm_h,
                   int *size)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const amp_dt_t *dt;
    const char *call = "MPI_Pack_size";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, call, &comm);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, comm, incount, call, "incount");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, comm, datatype, call, "datatype", &dt);
    if (rc == MPI_SUCCESS && !size)
        rc = amp_mpi_error(rank, comm, MPI_ERR_ARG, call,
                           "NULL pointer (argument size)");
    if (rc != MPI_SUCCESS)
        return rc;
    long long bytes = packed_bytes(dt, incount);
    if (bytes < 0)
        return amp_mpi_error(rank, comm, MPI_ERR_COUNT, call,
                             "%d elements of the type are more than INT_MAX "
                             "bytes packed",
                             incount);
    *size = (int)bytes;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Pack_size)

static int address_common(const void *location, MPI_Aint *address,
                          const char *call)
{
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && !address)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument address)");
    if (rc == MPI_SUCCESS)
        *address = (MPI_Aint)(uintptr_t)location;
    return rc;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    return address_common(location, address, "MPI_Get_address");
}
AMP_WEAK_ALIAS(Get_address)

int PMPI_Address(void *location, MPI_Aint *address)
{
    return address_common(location, address, "MPI_Address");
}
AMP_WEAK_ALIAS(Address)

/* ---- external32 (MPI_Pack_external and friends) ---- */

/* The bytes count elements of dt take in the registered representation
 * d: the file extent of dt's one basic type for each basic element. */
static int user_size(amp_rank_t *rank, const amp_datarep_t *d,
                     const amp_dt_t *dt, int count, const char *call,
                     long long *bytes)
{
    if (!dt->base_id && dt->size)
        return amp_mpi_error(rank, NULL, MPI_ERR_UNSUPPORTED_DATAREP, call,
                             "a user data representation packs types of "
                             "one basic type only here (argument datatype)");
    MPI_Aint extent = 0;
    int rc = dt->size
                 ? amp_datarep_extent(
                       rank, d, AMPI_PREDEFINED_DATATYPE(dt->base_id), &extent)
                 : MPI_SUCCESS;
    if (rc != MPI_SUCCESS || extent < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_CONVERSION, call,
                             "the extent function of data representation "
                             "\"%s\" failed (error %d)",
                             d->name, rc);
    *bytes = amp_dt_elements(dt, dt->size * (size_t)count) * (long long)extent;
    return MPI_SUCCESS;
}

/* Checks datarep ("external32" or one the rank registered: *user) and that
 * dt has a form in it; *bytes is the size of count elements in it. */
static int check_external(amp_rank_t *rank, const char *datarep,
                          const amp_dt_t *dt, int count, const char *call,
                          const amp_datarep_t **user, long long *bytes)
{
    *user = NULL;
    if (!datarep)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument datarep)");
    if (strcmp(datarep, "external32") != 0) {
        *user = amp_datarep_lookup(rank, datarep);
        if (*user)
            return user_size(rank, *user, dt, count, call, bytes);
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "unknown data representation \"%.64s\" "
                             "(argument datarep): \"external32\" or one "
                             "registered with MPI_Register_datarep",
                             datarep);
    }
    *bytes = amp_dt_x32_size(dt, count);
    if (*bytes < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_TYPE, call,
                             "the datatype holds long double values, which "
                             "have no external32 conversion on this "
                             "platform (argument datatype)");
    return MPI_SUCCESS;
}

/* The checks Pack_external and Unpack_external share. */
static int check_pack_external(amp_rank_t *rank, const char *datarep,
                               const pack_req_t *r, MPI_Aint size,
                               const MPI_Aint *position, const amp_dt_t **dt,
                               const amp_datarep_t **user, long long *bytes)
{
    const char *call = r->call;
    int count = r->count, packing = r->packing;
    int rc = amp_check_count(rank, NULL, count, call,
                             packing ? "incount" : "outcount");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, NULL, r->dtype, call, "datatype", dt);
    if (rc == MPI_SUCCESS)
        rc = amp_check_buf(rank, NULL, r->typed, count, *dt, call,
                           packing ? "inbuf" : "outbuf");
    if (rc == MPI_SUCCESS)
        rc = check_external(rank, datarep, *dt, count, call, user, bytes);
    if (rc == MPI_SUCCESS && !position)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument position)");
    if (rc == MPI_SUCCESS && (size < 0 || *position < 0 || *position > size))
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "position %ld outside a buffer of %ld bytes "
                           "(arguments position, %s)",
                           (long)*position, (long)size,
                           packing ? "outsize" : "insize");
    if (rc == MPI_SUCCESS && *bytes > size - *position)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_TRUNCATE, call,
                           "%lld bytes do not fit at position %ld of a "
                           "%ld-byte external32 buffer",
                           *bytes, (long)*position, (long)size);
    return rc;
}

/* External32 of a type with values of another size there (long, wchar_t):
 * through a packed copy with the native sizes. */
static int pack_resized(amp_rank_t *rank, const amp_dt_t *dt, int count,
                        void *typed, char *ext, int packing, const char *call)
{
    size_t native = dt->size * (size_t)count;
    char *tmp = malloc(native ? native : 1);
    if (!tmp)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for a %zu-byte copy", native);
    amp_status_t st = AMP_OK;
    if (packing) {
        amp_dt_pack(dt, count, typed, tmp);
        st = amp_dt_x32_narrow(dt, count, tmp, ext);
    } else {
        amp_dt_x32_widen(dt, count, ext, tmp);
        amp_dt_unpack(dt, count, typed, tmp, native);
    }
    free(tmp);
    if (st == AMP_OK)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                         "a value of the data does not fit its external32 "
                         "size (MPI_LONG and MPI_UNSIGNED_LONG: 4 bytes, "
                         "MPI_WCHAR: 2) (argument inbuf)");
}

/* r at ext through the conversion callbacks of the registered
 * representation d (none: the native bytes, packed); dt: r's type, typed
 * its buffer (a host copy where r's is on a device). */
static int pack_user(amp_rank_t *rank, const amp_datarep_t *d,
                     const pack_req_t *r, const amp_dt_t *dt, void *typed,
                     char *ext)
{
    int count = r->count, packing = r->packing;
    if (!(packing ? d->write_fn : d->read_fn)) {
        if (packing)
            amp_dt_pack(dt, count, typed, ext);
        else
            amp_dt_unpack(dt, count, typed, ext, dt->size * (size_t)count);
        return MPI_SUCCESS;
    }
    int rc =
        amp_datarep_convert(rank, d, packing, typed, r->dtype, count, ext, 0);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_CONVERSION, r->call,
                         "the %s conversion function of data "
                         "representation \"%s\" returned error %d",
                         packing ? "write" : "read", d->name, rc);
}

/* MPI_Pack_external (packing) or MPI_Unpack_external: the external32
 * counterpart of pack_common. */
static int pack_external_common(const char *datarep, const pack_req_t *r,
                                MPI_Aint size, MPI_Aint *position)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    const amp_datarep_t *user;
    long long bytes;
    const char *call = r->call;
    void *typed = r->typed, *packed = r->packed;
    int count = r->count, packing = r->packing;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = check_pack_external(rank, datarep, r, size, position, &dt, &user,
                                 &bytes);
    if (rc == MPI_SUCCESS && bytes && !packed)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_BUFFER, call,
                           "NULL buffer (argument %s)",
                           packing ? "outbuf" : "inbuf");
    amp_gpu_op_t *g = NULL;
    if (rc == MPI_SUCCESS && bytes && amp_proc.gpu) /* device memory */
        rc = pack_stage(
            rank, NULL,
            amp_gpu_stage_dt(typed, count, dt,
                             packing ? AMP_GPU_SEND : AMP_GPU_RECV),
            &typed, &packed,
            &(amp_gpu_span_t){(ptrdiff_t)*position, (size_t)bytes, 1}, &g,
            call);
    if (rc != MPI_SUCCESS || !bytes)
        return rc;
    char *at = (char *)packed + *position;
    if (user) {
        rc = pack_user(rank, user, r, dt, typed, at);
    } else if (amp_dt_x32_resizes(dt)) {
        rc = pack_resized(rank, dt, count, typed, at, packing, call);
    } else if (packing) {
        amp_dt_pack(dt, count, typed, at);
        amp_dt_x32_convert(dt, count, at, 1, 1);
    } else {
        amp_dt_unpack(dt, count, typed, at, (size_t)bytes);
        amp_dt_x32_convert(dt, count, typed, 0, 0);
    }
    if (rc == MPI_SUCCESS)
        *position += (MPI_Aint)bytes;
    if (g && rc == MPI_SUCCESS)
        return amp_gpu_op_finish(rank, NULL, g, NULL, call);
    if (g)
        amp_gpu_op_drop(g);
    return rc;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    return pack_external_common(datarep,
                                &(pack_req_t){.typed = (void *)inbuf,
                                              .count = incount,
                                              .dtype = datatype,
                                              .packed = outbuf,
                                              .packing = 1,
                                              .call = "MPI_Pack_external"},
                                outsize, position);
}
AMP_WEAK_ALIAS(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf,
                         MPI_Aint insize, MPI_Aint *position, void *outbuf,
                         int outcount, MPI_Datatype datatype)
{
    return pack_external_common(datarep,
                                &(pack_req_t){.typed = outbuf,
                                              .count = outcount,
                                              .dtype = datatype,
                                              .packed = (void *)inbuf,
                                              .call = "MPI_Unpack_external"},
                                insize, position);
}
AMP_WEAK_ALIAS(Unpack_external)

int PMPI_Pack_external_size(const char datarep[], int incount,
                            MPI_Datatype datatype, MPI_Aint *size)
{
    amp_rank_t *rank;
    const amp_dt_t *dt;
    long long bytes;
    const char *call = "MPI_Pack_external_size";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_count(rank, NULL, incount, call, "incount");
    if (rc == MPI_SUCCESS)
        rc = amp_check_dt(rank, NULL, datatype, call, "datatype", &dt);
    const amp_datarep_t *user;
    if (rc == MPI_SUCCESS)
        rc = check_external(rank, datarep, dt, incount, call, &user, &bytes);
    if (rc == MPI_SUCCESS && !size)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument size)");
    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)bytes;
    return rc;
}
AMP_WEAK_ALIAS(Pack_external_size)

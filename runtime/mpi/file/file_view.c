/*
 * File views, data representations and file pointers' positions (file.h).
 *
 * A view's types are kept as the file's own duplicates (MPI_File_get_view
 * hands out duplicates of those, as the standard asks, and the program may
 * free its own handles at once).  The view's data stream is in the file's
 * representation; the etype and filetype must keep their memory layout in
 * it (each basic value as large in the file as in memory: true of every
 * type in "native" and "internal", of every type but those external32
 * resizes in "external32", and, in a representation of the program, of the
 * types whose extent function says so).
 */
#include "mpi/file/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_derived(MPI_Datatype h)
{
    return AMP_HANDLE_KIND(h) == AMPI_HANDLE_DATATYPE_DERIVED;
}

/* The representation named name, or -1 (*user: the registered one). */
static int rep_of(amp_rank_t *rank, const char *name, amp_datarep_t **user)
{
    *user = NULL;
    if (strcmp(name, "native") == 0)
        return AMP_REP_NATIVE;
    if (strcmp(name, "internal") == 0)
        return AMP_REP_INTERNAL;
    if (strcmp(name, "external32") == 0)
        return AMP_REP_EXTERNAL32;
    *user = amp_datarep_lookup(rank, name);
    return *user ? AMP_REP_USER : -1;
}

/* The bytes count elements of dt take in representation rep, or -1 with
 * *why. */
static long long rep_bytes(amp_rank_t *rank, int rep, amp_datarep_t *user,
                           const amp_dt_t *dt, int count, const char **why)
{
    MPI_Aint ext;
    if (rep == AMP_REP_NATIVE || rep == AMP_REP_INTERNAL)
        return (long long)dt->size * count;
    if (rep == AMP_REP_EXTERNAL32) {
        long long n = amp_dt_x32_size(dt, count);
        if (n < 0)
            *why = "has values without an external32 form on this platform";
        return n;
    }
    if (!dt->base_id) {
        *why = "mixes basic types, which a representation of the program's "
               "is not applied to here (use one basic type)";
        return -1;
    }
    if (amp_datarep_extent(rank, user, AMPI_PREDEFINED_DATATYPE(dt->base_id),
                           &ext) != MPI_SUCCESS) {
        *why = "has no file extent: the representation's extent function "
               "failed";
        return -1;
    }
    return (long long)ext * dt->base_count * count;
}

long long amp_file_stream_bytes(amp_rank_t *rank, amp_file_t *f,
                                const amp_dt_t *dt, int count, const char **why)
{
    return rep_bytes(rank, f->rep, f->user_rep, dt, count, why);
}

/* What keeps dt (an etype or filetype) from being laid out in the file
 * as in memory under rep, or NULL. */
static const char *layout_problem(amp_rank_t *rank, int rep,
                                  amp_datarep_t *user, const amp_dt_t *dt)
{
    const char *why = NULL;
    long long n = rep_bytes(rank, rep, user, dt, 1, &why);
    if (n < 0)
        return why;
    if (n != (long long)dt->size)
        return "changes size in this representation, which views do not "
               "support here (memory types may)";
    return NULL;
}

void amp_file_view_release(amp_rank_t *rank, amp_file_t *f)
{
    (void)rank; /* the types' handles are the calling rank's */
    amp_io_view_cleanup(&f->view);
    if (is_derived(f->etype_h))
        PMPI_Type_free(&f->etype_h);
    if (is_derived(f->filetype_h))
        PMPI_Type_free(&f->filetype_h);
    f->etype_h = f->filetype_h = MPI_DATATYPE_NULL;
    f->etype = f->filetype = NULL;
}

/* Makes disp/etype/filetype in representation rep f's view: the file's
 * own copies of the types, the map, pointers at 0. */
static amp_status_t view_set(amp_rank_t *rank, amp_file_t *f, int64_t disp,
                             MPI_Datatype etype, MPI_Datatype filetype, int rep,
                             amp_datarep_t *user, const char *datarep)
{
    MPI_Datatype e = etype, ft = filetype;
    if ((is_derived(e) && PMPI_Type_dup(etype, &e) != MPI_SUCCESS) ||
        (is_derived(ft) && PMPI_Type_dup(filetype, &ft) != MPI_SUCCESS)) {
        if (e != etype)
            PMPI_Type_free(&e);
        return AMP_ERR_NOMEM;
    }
    amp_io_view_t v;
    const amp_dt_t *edt = amp_dt_lookup(rank, e),
                   *fdt = amp_dt_lookup(rank, ft);
    if (amp_io_view_init(&v, disp, edt, fdt) != AMP_OK) {
        if (e != etype)
            PMPI_Type_free(&e);
        if (ft != filetype)
            PMPI_Type_free(&ft);
        return AMP_ERR_NOMEM;
    }
    amp_file_view_release(rank, f);
    f->view = v;
    f->etype_h = e;
    f->filetype_h = ft;
    f->etype = edt;
    f->filetype = fdt;
    f->rep = rep;
    f->user_rep = user;
    snprintf(f->datarep, sizeof(f->datarep), "%s", datarep);
    f->fp = 0;
    return AMP_OK;
}

int amp_file_view_default(amp_rank_t *rank, amp_file_t *f)
{
    amp_status_t st = view_set(rank, f, 0, MPI_BYTE, MPI_BYTE, AMP_REP_NATIVE,
                               NULL, "native");
    return st == AMP_OK ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int check_type(amp_rank_t *rank, amp_file_t *f, MPI_Datatype h,
                      const amp_dt_t *dt, const char *arg, const char *call)
{
    if (dt && dt->committed)
        return MPI_SUCCESS;
    return amp_file_error(rank, f, MPI_ERR_TYPE, call,
                          "%s datatype %#x (argument %s)",
                          dt ? "uncommitted" : "invalid", (unsigned)h, arg);
}

/* A view as MPI_File_set_view gives it: from byte disp of the file, the
 * data of filetype in etypes, in data representation datarep, with hints
 * info. */
typedef struct view_args {
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    const char *datarep;
    MPI_Info info;
} view_args_t;

/* One member's checks of MPI_File_set_view's arguments v, resolving the
 * representation into *rep and *user: MPI_SUCCESS, or the error (reported
 * through f's handler). */
static int view_check(amp_rank_t *rank, amp_file_t *f, const view_args_t *v,
                      int *rep, amp_datarep_t **user, const char *call)
{
    MPI_Offset disp = v->disp;
    MPI_Datatype etype = v->etype, filetype = v->filetype;
    const char *datarep = v->datarep;
    MPI_Info info = v->info;
    const amp_dt_t *e = amp_dt_lookup(rank, etype),
                   *ft = amp_dt_lookup(rank, filetype);
    int writable = !(f->amode & MPI_MODE_RDONLY);
    const char *why;
    if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "negative displacement %lld (argument disp)",
                              disp);
    if (disp == MPI_DISPLACEMENT_CURRENT && !(f->amode & MPI_MODE_SEQUENTIAL))
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "MPI_DISPLACEMENT_CURRENT is only for files "
                              "opened MPI_MODE_SEQUENTIAL (argument disp)");
    int rc = check_type(rank, f, etype, e, "etype", call);
    if (rc == MPI_SUCCESS)
        rc = check_type(rank, f, filetype, ft, "filetype", call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (e->size == 0 || ft->size % e->size != 0)
        return amp_file_error(rank, f, MPI_ERR_TYPE, call,
                              "the filetype's %zu data bytes are not a whole "
                              "number of the etype's %zu (arguments etype, "
                              "filetype)",
                              ft->size, e->size);
    const char *which = "etype";
    if (!(why = amp_io_view_problem(e, writable))) {
        which = "filetype";
        why = amp_io_view_problem(ft, writable);
    }
    if (why)
        return amp_file_error(rank, f, MPI_ERR_IO, call,
                              "the %s %s (argument %s)", which, why, which);
    if (!datarep)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "NULL pointer (argument datarep)");
    if ((*rep = rep_of(rank, datarep, user)) < 0)
        return amp_file_error(rank, f, MPI_ERR_UNSUPPORTED_DATAREP, call,
                              "unknown data representation \"%s\": use "
                              "\"native\", \"internal\", \"external32\" or "
                              "one registered with MPI_Register_datarep "
                              "(argument datarep)",
                              datarep);
    if ((why = layout_problem(rank, *rep, *user, e)) ||
        (why = layout_problem(rank, *rep, *user, ft)))
        return amp_file_error(rank, f, MPI_ERR_UNSUPPORTED_DATAREP, call,
                              "in \"%s\" the etype or filetype %s", datarep,
                              why);
    if (info != MPI_INFO_NULL && !amp_info_lookup(rank, info))
        return amp_file_error(rank, f, MPI_ERR_INFO, call,
                              "invalid info handle %#x (argument info)",
                              (unsigned)info);
    return MPI_SUCCESS;
}

/* A name's checksum, so that members can compare representations. */
static int name_sum(const char *s)
{
    unsigned h = 5381;
    while (s && *s)
        h = h * 33 + (unsigned char)*s++;
    return (int)(h & 0x3fffffff);
}

/* The members agree: every one's error class (0: none), and the etype
 * size and representation the same everywhere. */
static int view_agree(amp_rank_t *rank, amp_file_t *f, int mine, size_t esize,
                      const char *datarep, const char *call)
{
    int v[5] = {(int)esize, -(int)esize, name_sum(datarep), -name_sum(datarep),
                mine < 0 ? MPI_ERR_OTHER : mine};
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 5, MPI_INT, MPI_MAX, f->comm) !=
        MPI_SUCCESS)
        return amp_file_error(rank, f, MPI_ERR_INTERN, call,
                              "the members could not agree on the view");
    if (mine != MPI_SUCCESS)
        return mine; /* already reported */
    if (v[4] != 0)
        return amp_file_error(rank, f, v[4], call,
                              "another member gave invalid arguments");
    if (v[0] != -v[1] || v[2] != -v[3])
        return amp_file_error(rank, f, MPI_ERR_NOT_SAME, call,
                              "the members gave different etype sizes or "
                              "data representations (arguments etype, "
                              "datarep)");
    return MPI_SUCCESS;
}

/* MPI_DISPLACEMENT_CURRENT: the shared file pointer's byte offset, as
 * member 0 finds it. */
static int current_disp(amp_rank_t *rank, amp_file_t *f, MPI_Offset *disp,
                        const char *call)
{
    int64_t at = 0;
    int rc = MPI_SUCCESS;
    if (f->rank == 0) {
        rc = amp_file_shared_add(rank, f, 0, &at, call);
        at = amp_io_view_offset(&f->view, at * (int64_t)f->etype->size);
    }
    if (PMPI_Bcast(&at, 1, MPI_INT64_T, 0, f->comm) != MPI_SUCCESS)
        rc = MPI_ERR_INTERN;
    *disp = at;
    return rc;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                       MPI_Datatype filetype, const char *datarep,
                       MPI_Info info)
{
    const char *call = "MPI_File_set_view";
    amp_rank_t *rank;
    amp_file_t *f;
    amp_datarep_t *user = NULL;
    int rep = 0;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = view_check(rank, f,
                    &(view_args_t){.disp = disp,
                                   .etype = etype,
                                   .filetype = filetype,
                                   .datarep = datarep,
                                   .info = info},
                    &rep, &user, call);
    const amp_dt_t *e = amp_dt_lookup(rank, etype);
    if (rc == MPI_SUCCESS && disp == MPI_DISPLACEMENT_CURRENT)
        rc = current_disp(rank, f, &disp, call);
    rc = view_agree(rank, f, rc, rc == MPI_SUCCESS ? e->size : 0,
                    rc == MPI_SUCCESS ? datarep : "", call);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Every member is in the call: the shared file pointer goes back to 0,
     * and nobody uses it again before that. */
    if (f->rank == 0)
        amp_file_shared_set(rank, f, 0, call);
    if (PMPI_Barrier(f->comm) != MPI_SUCCESS)
        return amp_file_error(rank, f, MPI_ERR_INTERN, call,
                              "the members could not meet");
    /* Hints may come with the view too (collective: before anything that
     * may fail on one member only). */
    if (amp_file_hints_apply(f, info) != MPI_SUCCESS)
        return amp_file_error(rank, f, MPI_ERR_INTERN, call,
                              "the members could not agree on the hints");
    if (view_set(rank, f, disp, etype, filetype, rep, user, datarep) != AMP_OK)
        return amp_file_error(rank, f, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_set_view)

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep)
{
    const char *call = "MPI_File_get_view";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!disp || !etype || !filetype || !datarep)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "NULL pointer (argument %s)",
                              !disp       ? "disp"
                              : !etype    ? "etype"
                              : !filetype ? "filetype"
                                          : "datarep");
    MPI_Datatype e = f->etype_h, ft = f->filetype_h;
    if ((is_derived(e) && PMPI_Type_dup(f->etype_h, &e) != MPI_SUCCESS) ||
        (is_derived(ft) && PMPI_Type_dup(f->filetype_h, &ft) != MPI_SUCCESS))
        return amp_file_error(rank, f, MPI_ERR_NO_MEM, call, "out of memory");
    *disp = f->view.disp;
    *etype = e;
    *filetype = ft;
    snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->datarep);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_get_view)

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype,
                              MPI_Aint *extent)
{
    const char *call = "MPI_File_get_type_extent";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    const amp_dt_t *dt = amp_dt_lookup(rank, datatype);
    if (!dt)
        return amp_file_error(rank, f, MPI_ERR_TYPE, call,
                              "invalid datatype %#x (argument datatype)",
                              (unsigned)datatype);
    if (!extent)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "NULL pointer (argument extent)");
    if (f->rep == AMP_REP_USER && dt->predefined) {
        MPI_Aint ext;
        rc = amp_datarep_extent(rank, f->user_rep, datatype, &ext);
        if (rc != MPI_SUCCESS)
            return amp_file_error(rank, f, MPI_ERR_CONVERSION, call,
                                  "the extent function of \"%s\" failed",
                                  f->datarep);
        *extent = ext;
        return MPI_SUCCESS;
    }
    const char *why = layout_problem(rank, f->rep, f->user_rep, dt);
    if (why)
        return amp_file_error(rank, f, MPI_ERR_UNSUPPORTED_DATAREP, call,
                              "in \"%s\" the datatype %s (argument "
                              "datatype)",
                              f->datarep, why);
    *extent = dt->extent;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_get_type_extent)

/* ---- positions ---- */

int64_t amp_file_stream_pos(const amp_file_t *f, int64_t off)
{
    return off * (int64_t)f->etype->size;
}

/* Enters a call on the individual file pointer of f, which a file
 * opened MPI_MODE_SEQUENTIAL does not have. */
static int enter_pointer(MPI_File fh, const char *call, amp_rank_t **rank,
                         amp_file_t **f)
{
    int rc = amp_file_enter(fh, call, rank, f);
    if (rc == MPI_SUCCESS && ((*f)->amode & MPI_MODE_SEQUENTIAL))
        rc = amp_file_error(*rank, *f, MPI_ERR_UNSUPPORTED_OPERATION, call,
                            "the file was opened MPI_MODE_SEQUENTIAL, which "
                            "allows only the shared file pointer");
    return rc;
}

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    const char *call = "MPI_File_get_byte_offset";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = enter_pointer(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (offset < 0)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "negative offset %lld (argument offset)", offset);
    if (!disp)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "NULL pointer (argument disp)");
    *disp = amp_io_view_offset(&f->view, amp_file_stream_pos(f, offset));
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(File_get_byte_offset)

/* The view's end of the file in etypes: the etypes below its size. */
int amp_file_view_end(amp_rank_t *rank, amp_file_t *f, int64_t *end,
                      const char *call)
{
    int err;
    int64_t size = 0;
    amp_status_t st =
        amp_io_file_op(amp_proc.io, f->io, AMP_IO_SIZE, &size, &err);
    if (st != AMP_OK)
        return amp_file_io_error(rank, f, st, err, call, "cannot stat");
    int64_t bytes = amp_io_view_stream_below(&f->view, size);
    *end = bytes / (int64_t)f->etype->size;
    return MPI_SUCCESS;
}

/* The position whence + offset, in etypes; an error when negative. */
int amp_file_seek_target(amp_rank_t *rank, amp_file_t *f, int64_t current,
                         MPI_Offset offset, int whence, int64_t *to,
                         const char *call)
{
    int64_t base = 0;
    int rc = MPI_SUCCESS;
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = current; break;
    case MPI_SEEK_END: rc = amp_file_view_end(rank, f, &base, call); break;
    default:
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "whence %d is none of MPI_SEEK_SET, "
                              "MPI_SEEK_CUR, MPI_SEEK_END (argument whence)",
                              whence);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (base + offset < 0)
        return amp_file_error(rank, f, MPI_ERR_ARG, call,
                              "the position would be negative (%lld etypes) "
                              "(argument offset)",
                              (long long)(base + offset));
    *to = base + offset;
    return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *call = "MPI_File_seek";
    amp_rank_t *rank;
    amp_file_t *f;
    int64_t to;
    int rc = enter_pointer(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS)
        rc = amp_file_seek_target(rank, f, f->fp, offset, whence, &to, call);
    if (rc == MPI_SUCCESS)
        f->fp = to;
    return rc;
}
AMP_WEAK_ALIAS(File_seek)

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    const char *call = "MPI_File_get_position";
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = enter_pointer(fh, call, &rank, &f);
    if (rc == MPI_SUCCESS && !offset)
        rc = amp_file_error(rank, f, MPI_ERR_ARG, call,
                            "NULL pointer (argument offset)");
    if (rc == MPI_SUCCESS)
        *offset = f->fp;
    return rc;
}
AMP_WEAK_ALIAS(File_get_position)

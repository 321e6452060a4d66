/*
 * Info objects: ordered (key, value) string pairs, MPI_INFO_ENV, and the
 * hints set on communicators (MPI_Comm_set_info / MPI_Comm_get_info).
 *
 * Keys keep the order in which they were first set (MPI_Info_get_nthkey);
 * setting a key again replaces its value in place.  A key has 1 to
 * MPI_MAX_INFO_KEY - 1 characters and a value 1 to MPI_MAX_INFO_VAL - 1,
 * so each fits a buffer of the maximum size with its terminating NUL.
 * MPI_INFO_ENV (index 0 of the rank's info table) is filled the first time
 * it is used and cannot be changed or freed.
 */
#include "mpi/attr/attr.h"
#include "mpi/memkinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

typedef struct info_entry {
    char *key, *value;
} info_entry_t;

struct amp_info {
    int n, cap;
    info_entry_t *e;
};

typedef struct info_obj {
    amp_obj_t obj;
    struct amp_info set;
    int filled; /* MPI_INFO_ENV: its keys are in */
} info_obj_t;

/* The communicator hints the runtime acts on, and their bits in
 * amp_comm_t.asserts. */
static const struct {
    const char *key;
    unsigned bit;
} comm_hints[] = {
    {"mpi_assert_no_any_tag", AMP_ASSERT_NO_ANY_TAG},
    {"mpi_assert_no_any_source", AMP_ASSERT_NO_ANY_SOURCE},
    {"mpi_assert_exact_length", AMP_ASSERT_EXACT_LENGTH},
    {"mpi_assert_allow_overtaking", AMP_ASSERT_ALLOW_OVERTAKING},
};

#define NHINTS ((int)(sizeof(comm_hints) / sizeof(comm_hints[0])))

/* MPI_INFO_ENV and the AMPI_INFO_* objects of ampi.h, read-only. */
#define NPREDEFINED 4

size_t amp_info_rank_space(void)
{
    return amp_table_space(sizeof(info_obj_t));
}

amp_status_t amp_info_rank_init(amp_rank_t *rank, void *space)
{
    amp_table_init_in(&rank->infos, sizeof(info_obj_t), NPREDEFINED, space);
    for (int i = 0; i < NPREDEFINED; i++)
        if (!amp_table_put(&rank->infos, i))
            return AMP_ERR_NOMEM;
    return AMP_OK;
}

/* ---- the key/value set ---- */

static int set_find(const struct amp_info *s, const char *key)
{
    for (int i = 0; s && i < s->n; i++)
        if (strcmp(s->e[i].key, key) == 0)
            return i;
    return -1;
}

static amp_status_t set_put(struct amp_info *s, const char *key,
                            const char *value)
{
    char *v = strdup(value);
    if (!v)
        return AMP_ERR_NOMEM;
    int i = set_find(s, key);
    if (i >= 0) {
        free(s->e[i].value);
        s->e[i].value = v;
        return AMP_OK;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        info_entry_t *e = realloc(s->e, (size_t)cap * sizeof(*e));
        if (!e) {
            free(v);
            return AMP_ERR_NOMEM;
        }
        s->e = e;
        s->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return AMP_ERR_NOMEM;
    }
    s->e[s->n].key = k;
    s->e[s->n].value = v;
    s->n++;
    return AMP_OK;
}

static void set_remove(struct amp_info *s, int i)
{
    free(s->e[i].key);
    free(s->e[i].value);
    memmove(&s->e[i], &s->e[i + 1], (size_t)(s->n - i - 1) * sizeof(*s->e));
    s->n--;
}

static void set_clear(struct amp_info *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->e[i].key);
        free(s->e[i].value);
    }
    free(s->e);
    memset(s, 0, sizeof(*s));
}

/* Adds every pair of from to to (replacing values of keys already there). */
static amp_status_t set_merge(struct amp_info *to, const struct amp_info *from)
{
    for (int i = 0; from && i < from->n; i++) {
        amp_status_t st = set_put(to, from->e[i].key, from->e[i].value);
        if (st != AMP_OK)
            return st;
    }
    return AMP_OK;
}

void amp_info_destroy(struct amp_info *info)
{
    if (!info)
        return;
    set_clear(info);
    free(info);
}

/* ---- MPI_INFO_ENV and MPI_Info_create_env ---- */

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

/* command and argv from the arguments after argv[0], space separated. */
static amp_status_t env_command(struct amp_info *s, int argc, char **argv)
{
    if (argc < 1 || !argv || !argv[0])
        return AMP_OK;
    amp_status_t st = set_put(s, "command", argv[0]);
    size_t len = 1;
    for (int i = 1; i < argc && argv[i]; i++)
        len += strlen(argv[i]) + 1;
    if (st != AMP_OK || len == 1)
        return st;
    char *args = malloc(len), *p = args;
    if (!args)
        return AMP_ERR_NOMEM;
    for (int i = 1; i < argc && argv[i]; i++)
        p += sprintf(p, "%s%s", i > 1 ? " " : "", argv[i]);
    /* A command line too long for one value is cut to MPI_MAX_INFO_VAL. */
    if (strlen(args) >= MPI_MAX_INFO_VAL)
        args[MPI_MAX_INFO_VAL - 1] = '\0';
    st = set_put(s, "argv", args);
    free(args);
    return st;
}

/* The keys MPI_INFO_ENV holds: how the job was started and where. */
static amp_status_t env_fill(amp_rank_t *rank, struct amp_info *s, int argc,
                             char **argv)
{
    char buf[MPI_MAX_INFO_VAL];
    struct utsname u;
    amp_status_t st = env_command(s, argc, argv);
    snprintf(buf, sizeof(buf), "%d", amp_proc.nranks);
    if (st == AMP_OK)
        st = set_put(s, "maxprocs", buf);
    if (st == AMP_OK && gethostname(buf, sizeof(buf)) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        st = set_put(s, "host", buf);
    }
    if (st == AMP_OK && uname(&u) == 0)
        st = set_put(s, "arch", u.machine);
    if (st == AMP_OK && getcwd(buf, sizeof(buf)))
        st = set_put(s, "wdir", buf);
    if (st == AMP_OK)
        st = set_put(s, "thread_level", thread_level_name(rank->thread_level));
    return st;
}

/* ---- handles ---- */

static info_obj_t *info_obj_lookup(amp_rank_t *rank, MPI_Info h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_INFO)
        return NULL;
    info_obj_t *o = amp_table_lookup(&rank->infos, AMP_HANDLE_INDEX(h));
    if (o && o->obj.idx == 0 && !o->filled) {
        if (env_fill(rank, &o->set, amp_proc.argc, rank->argv) != AMP_OK)
            amp_log_error("out of memory filling MPI_INFO_ENV; some of "
                          "its keys are missing");
        o->filled = 1;
    }
    if (o && o->obj.idx > 0 && o->obj.idx < NPREDEFINED && !o->filled) {
        static const char *const kv[][2] = {{"ampi_load_balance", "sync"},
                                            {"ampi_load_balance", "async"},
                                            {"ampi_checkpoint", "in_memory"}};
        const char *const *p = kv[o->obj.idx - 1];
        if (set_put(&o->set, p[0], p[1]) != AMP_OK)
            amp_log_error("out of memory filling a predefined AMPI_INFO_* "
                          "object");
        o->filled = 1;
    }
    return o;
}

struct amp_info *amp_info_lookup(amp_rank_t *rank, MPI_Info h)
{
    info_obj_t *o = info_obj_lookup(rank, h);
    return o ? &o->set : NULL;
}

int amp_info_put(amp_rank_t *rank, MPI_Info h, const char *key,
                 const char *value)
{
    struct amp_info *s = amp_info_lookup(rank, h);
    return s && set_put(s, key, value) == AMP_OK ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int amp_check_info(amp_rank_t *rank, amp_comm_t *comm, MPI_Info h,
                   const char *call)
{
    if (h == MPI_INFO_NULL || info_obj_lookup(rank, h))
        return MPI_SUCCESS;
    return amp_mpi_error(rank, comm, MPI_ERR_INFO, call,
                         "invalid info handle %#x (argument info)",
                         (unsigned)h);
}

/* Enters call and finds info h (not MPI_INFO_NULL). */
static int enter_info(MPI_Info h, const char *call, amp_rank_t **rank,
                      info_obj_t **o)
{
    int rc = amp_mpi_enter_any(rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    *o = info_obj_lookup(*rank, h);
    if (*o)
        return MPI_SUCCESS;
    return amp_mpi_error(*rank, NULL, MPI_ERR_INFO, call,
                         "%s is not a valid info object (argument info)",
                         h == MPI_INFO_NULL ? "MPI_INFO_NULL" : "the handle");
}

static int check_key(amp_rank_t *rank, const char *key, const char *call)
{
    if (!key)
        return amp_mpi_error(rank, NULL, MPI_ERR_INFO_KEY, call,
                             "NULL pointer (argument key)");
    size_t len = strlen(key);
    if (len > 0 && len < MPI_MAX_INFO_KEY)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_INFO_KEY, call,
                         "key of %zu characters; a key has 1 to %d "
                         "(MPI_MAX_INFO_KEY - 1) (argument key)",
                         len, MPI_MAX_INFO_KEY - 1);
}

static int new_handle(amp_rank_t *rank, info_obj_t **o, MPI_Info *h,
                      const char *call)
{
    *o = amp_table_alloc(&rank->infos);
    if (!*o)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for an info object");
    *h = AMPI_HANDLE(AMPI_HANDLE_INFO, (*o)->obj.idx);
    return MPI_SUCCESS;
}

void amp_info_forget_all(amp_rank_t *rank)
{
    amp_table_t *t = &rank->infos;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        info_obj_t *o = amp_table_lookup(t, i);
        if (o)
            set_clear(&o->set);
    }
}

static void free_handle(amp_rank_t *rank, info_obj_t *o)
{
    set_clear(&o->set);
    amp_table_free(&rank->infos, o);
}

static int nomem(amp_rank_t *rank, const char *call)
{
    return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
}

static int read_only(amp_rank_t *rank, const info_obj_t *o, const char *call)
{
    if (o->obj.idx >= NPREDEFINED)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_INFO, call,
                         "%s cannot be changed or freed (argument info)",
                         o->obj.idx == 0 ? "MPI_INFO_ENV"
                                         : "a predefined AMPI_INFO_* object");
}

/* ---- the calls ---- */

/* Enters call with info h and a valid key; writing: not MPI_INFO_ENV. */
static int enter_key(MPI_Info h, const char *key, int writing, const char *call,
                     amp_rank_t **rank, info_obj_t **o)
{
    int rc = enter_info(h, call, rank, o);
    if (rc == MPI_SUCCESS && writing)
        rc = read_only(*rank, *o, call);
    if (rc == MPI_SUCCESS)
        rc = check_key(*rank, key, call);
    return rc;
}

/* Two output pointers, named a and b: the error for the first NULL one. */
static int check_outs(amp_rank_t *rank, const void *pa, const char *a,
                      const void *pb, const char *b, const char *call)
{
    if (pa && pb)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                         "NULL pointer (argument %s)", pa ? b : a);
}

int PMPI_Info_create(MPI_Info *info)
{
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = amp_mpi_enter_any(&rank, "MPI_Info_create");
    if (rc == MPI_SUCCESS && !info)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Info_create",
                           "NULL pointer (argument info)");
    if (rc == MPI_SUCCESS)
        rc = new_handle(rank, &o, info, "MPI_Info_create");
    return rc;
}
AMP_WEAK_ALIAS(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    const char *call = "MPI_Info_set";
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = enter_key(info, key, 1, call, &rank, &o);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t len = value ? strlen(value) : 0;
    if (len == 0 || len >= MPI_MAX_INFO_VAL)
        return amp_mpi_error(rank, NULL, MPI_ERR_INFO_VALUE, call,
                             "%s value; a value has 1 to %d "
                             "(MPI_MAX_INFO_VAL - 1) characters (argument "
                             "value)",
                             value ? (len ? "too long a" : "empty") : "NULL",
                             MPI_MAX_INFO_VAL - 1);
    if (set_put(&o->set, key, value) != AMP_OK)
        return nomem(rank, call);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_set)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    const char *call = "MPI_Info_delete";
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = enter_key(info, key, 1, call, &rank, &o);
    if (rc != MPI_SUCCESS)
        return rc;
    int i = set_find(&o->set, key);
    if (i < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_INFO_NOKEY, call,
                             "key \"%s\" is not set (argument key)", key);
    set_remove(&o->set, i);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_delete)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
                  int *flag)
{
    const char *call = "MPI_Info_get";
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = enter_key(info, key, 0, call, &rank, &o);
    if (rc == MPI_SUCCESS && valuelen < 0)
        rc =
            amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                          "negative valuelen %d (argument valuelen)", valuelen);
    if (rc == MPI_SUCCESS)
        rc = check_outs(rank, value, "value", flag, "flag", call);
    if (rc != MPI_SUCCESS)
        return rc;
    int i = set_find(&o->set, key);
    *flag = i >= 0;
    if (i >= 0) {
        /* valuelen leaves out the NUL; a longer value is cut. */
        size_t n = strlen(o->set.e[i].value);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, o->set.e[i].value, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_get)

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen,
                         char *value, int *flag)
{
    const char *call = "MPI_Info_get_string";
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = enter_key(info, key, 0, call, &rank, &o);
    if (rc == MPI_SUCCESS)
        rc = check_outs(rank, buflen, "buflen", flag, "flag", call);
    if (rc == MPI_SUCCESS && (*buflen < 0 || (*buflen > 0 && !value)))
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call, "%s (argument %s)",
                           *buflen < 0 ? "negative buffer length"
                                       : "NULL pointer",
                           *buflen < 0 ? "buflen" : "value");
    if (rc != MPI_SUCCESS)
        return rc;
    int i = set_find(&o->set, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    /* buflen counts the NUL, in and out; a short buffer gets a cut value. */
    size_t n = strlen(o->set.e[i].value);
    if (*buflen > 0) {
        size_t room = (size_t)*buflen - 1, copy = n < room ? n : room;
        memcpy(value, o->set.e[i].value, copy);
        value[copy] = '\0';
    }
    *buflen = (int)n + 1;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_get_string)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
                           int *flag)
{
    const char *call = "MPI_Info_get_valuelen";
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = enter_key(info, key, 0, call, &rank, &o);
    if (rc == MPI_SUCCESS)
        rc = check_outs(rank, valuelen, "valuelen", flag, "flag", call);
    if (rc != MPI_SUCCESS)
        return rc;
    int i = set_find(&o->set, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(o->set.e[i].value);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = enter_info(info, "MPI_Info_get_nkeys", &rank, &o);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!nkeys)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys",
                             "NULL pointer (argument nkeys)");
    *nkeys = o->set.n;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    const char *call = "MPI_Info_get_nthkey";
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = enter_info(info, call, &rank, &o);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!key)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument key)");
    if (n < 0 || n >= o->set.n)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "key number %d is not in 0..%d, the info "
                             "object's keys (argument n)",
                             n, o->set.n - 1);
    snprintf(key, MPI_MAX_INFO_KEY, "%s", o->set.e[n].key);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_get_nthkey)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    const char *call = "MPI_Info_dup";
    amp_rank_t *rank;
    info_obj_t *o, *n;
    int rc = enter_info(info, call, &rank, &o);
    if (rc == MPI_SUCCESS && !newinfo)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument newinfo)");
    if (rc == MPI_SUCCESS)
        rc = new_handle(rank, &n, newinfo, call);
    if (rc != MPI_SUCCESS)
        return rc;
    /* n is a new table entry: o is still valid (objects never move). */
    if (set_merge(&n->set, &o->set) != AMP_OK) {
        free_handle(rank, n);
        *newinfo = MPI_INFO_NULL;
        return nomem(rank, call);
    }
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    const char *call = "MPI_Info_free";
    amp_rank_t *rank;
    info_obj_t *o;
    int rc = amp_mpi_enter_any(&rank, call);
    if (rc == MPI_SUCCESS && !info)
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument info)");
    if (rc == MPI_SUCCESS)
        rc = enter_info(*info, call, &rank, &o);
    if (rc == MPI_SUCCESS)
        rc = read_only(rank, o, call);
    if (rc != MPI_SUCCESS)
        return rc;
    free_handle(rank, o);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_free)

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    const char *call = "MPI_Info_create_env";
    amp_rank_t *rank;
    info_obj_t *o;
    amp_mpi_enter_any(&rank, call);
    if (!info)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument info)");
    int rc = new_handle(rank, &o, info, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (env_fill(rank, &o->set, argv ? argc : 0, argv) != AMP_OK) {
        free_handle(rank, o);
        *info = MPI_INFO_NULL;
        return nomem(rank, call);
    }
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Info_create_env)

/* ---- communicator hints ---- */

amp_status_t amp_comm_info_apply(amp_rank_t *rank, amp_comm_t *comm,
                                 const struct amp_info *hints)
{
    (void)rank;
    if (!hints || hints->n == 0)
        return AMP_OK;
    if (!comm->info) {
        comm->info = calloc(1, sizeof(*comm->info));
        if (!comm->info)
            return AMP_ERR_NOMEM;
    }
    amp_status_t st = set_merge(comm->info, hints);
    /* A hint set to anything but "true" or "false" is ignored. */
    for (int h = 0; h < NHINTS; h++) {
        int i = set_find(comm->info, comm_hints[h].key);
        if (i < 0)
            continue;
        if (strcasecmp(comm->info->e[i].value, "true") == 0)
            comm->asserts |= comm_hints[h].bit;
        else if (strcasecmp(comm->info->e[i].value, "false") == 0)
            comm->asserts &= ~comm_hints[h].bit;
    }
    return st;
}

/* The window hints of the standard (MPI-3.1 11.2.1, 11.2.3), each with the
 * value it has until it is set.  The runtime needs none of them to be
 * correct and takes no shortcut from them; they are kept as given. */
static const struct {
    const char *key, *value;
} win_hints[] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    {"alloc_shared_noncontig", "false"},
};
#define NWIN_HINTS ((int)(sizeof(win_hints) / sizeof(win_hints[0])))

amp_status_t amp_win_info_apply(struct amp_info **set,
                                const struct amp_info *hints)
{
    for (int h = 0; h < NWIN_HINTS; h++) {
        int i = set_find(hints, win_hints[h].key);
        if (i < 0)
            continue;
        if (!*set && !(*set = calloc(1, sizeof(**set))))
            return AMP_ERR_NOMEM;
        amp_status_t st = set_put(*set, win_hints[h].key, hints->e[i].value);
        if (st != AMP_OK)
            return st;
    }
    return AMP_OK;
}

int amp_win_info_get(amp_rank_t *rank, const struct amp_info *set,
                     MPI_Info *info_used, const char *call)
{
    info_obj_t *o;
    int rc = new_handle(rank, &o, info_used, call);
    amp_status_t st = AMP_OK;
    for (int h = 0; rc == MPI_SUCCESS && h < NWIN_HINTS && st == AMP_OK; h++) {
        int i = set_find(set, win_hints[h].key);
        st = set_put(&o->set, win_hints[h].key,
                     i >= 0 ? set->e[i].value : win_hints[h].value);
    }
    if (rc == MPI_SUCCESS && st != AMP_OK) {
        free_handle(rank, o);
        *info_used = MPI_INFO_NULL;
        return nomem(rank, call);
    }
    return rc;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    const char *call = "MPI_Comm_set_info";
    amp_rank_t *rank;
    amp_comm_t *c;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm, call, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    struct amp_info *hints = amp_info_lookup(rank, info);
    if (!hints)
        return amp_mpi_error(rank, c, MPI_ERR_INFO, call,
                             "invalid info handle %#x (argument info)",
                             (unsigned)info);
    if (amp_comm_info_apply(rank, c, hints) != AMP_OK)
        return amp_mpi_error(rank, c, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    const char *call = "MPI_Comm_get_info";
    amp_rank_t *rank;
    amp_comm_t *c;
    info_obj_t *o;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm, call, &c);
    if (rc == MPI_SUCCESS && !info_used)
        rc = amp_mpi_error(rank, c, MPI_ERR_ARG, call,
                           "NULL pointer (argument info_used)");
    if (rc == MPI_SUCCESS)
        rc = new_handle(rank, &o, info_used, call);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The hints in effect: every one the runtime knows, true or false, and
     * the hardware level of MPI_COMM_TYPE_HW_UNGUIDED's communicators. */
    amp_status_t st = AMP_OK;
    for (int h = 0; h < NHINTS && st == AMP_OK; h++)
        st = set_put(&o->set, comm_hints[h].key,
                     c->asserts & comm_hints[h].bit ? "true" : "false");
    if (st == AMP_OK && c->hw_resource) /* comm_create.c */
        st = set_put(&o->set, "mpi_hw_resource_type", c->hw_resource);
    if (st == AMP_OK) /* MPI-4.1, init/memkinds.c */
        st = set_put(&o->set, "mpi_memory_alloc_kinds", amp_memkinds_of(c));
    if (st != AMP_OK) {
        free_handle(rank, o);
        *info_used = MPI_INFO_NULL;
        return amp_mpi_error(rank, c, MPI_ERR_NO_MEM, call, "out of memory");
    }
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Comm_get_info)

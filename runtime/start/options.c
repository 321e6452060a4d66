/* Runtime options: +vp, +p, +stacksize, +isomalloc_slot, +mapping, +eager,
 * +nopin, +stats, +showmap, +trace, the load balancing's and their environment
 * variables; the placement report. */
#include "start/start.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_STACK (64u << 10)

static const char usage[] =
    "runtime options: +vp N, +p N, +stacksize BYTES, +isomalloc_slot BYTES, "
    "+mapping KIND, "
    "+eager BYTES, +nopin, +stats, +showmap, +balancer NAME, +lbdebug, "
    "+lbperiod SECONDS, +lbearly FRACTION, +lbpredict, +lbmingain FRACTION, "
    "+nosteal, +pinmap, "
    "+gpumap MAP, +restart DIR, +ckptgather DIR, "
    "+ckptperiod SECONDS, +ckptdir DIR, +trace DIR, +iothreads N (see "
    "docs/runtime-options.md)";

_Noreturn static void bad_value(const char *name, const char *what,
                                const char *value)
{
    amp_fatal("%s: expected %s, got '%s'", name, what, value ? value : "");
}

/* A directory to write into (made later if missing): not empty. */
static const char *parse_dir(const char *name, const char *value)
{
    if (!*value)
        bad_value(name, "a directory", value);
    return value;
}

static int parse_count(const char *name, const char *value)
{
    char *end;
    errno = 0;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || !*value || *end || errno || v <= 0 || v > 10000000)
        bad_value(name, "a positive integer", value);
    return (int)v;
}

/* A positive number of seconds (fractions allowed), in nanoseconds. */
static long parse_seconds(const char *name, const char *value)
{
    char *end;
    errno = 0;
    double v = value ? strtod(value, &end) : 0;
    if (!value || !*value || *end || errno || !(v > 0) || v > 1e6)
        bad_value(name, "a positive number of seconds", value);
    return (long)(v * 1e9);
}

/* A fraction from 0 (inclusive) to 1 (exclusive). */
static double parse_fraction(const char *name, const char *value)
{
    char *end;
    errno = 0;
    double v = value ? strtod(value, &end) : -1;
    if (!value || !*value || *end || errno || !(v >= 0 && v < 1))
        bad_value(name, "a fraction from 0 to below 1", value);
    return v;
}

/* Bytes with an optional K, M or G suffix (powers of 1024). */
static size_t parse_bytes(const char *name, const char *value, size_t min)
{
    char *end;
    errno = 0;
    unsigned long long v = value ? strtoull(value, &end, 10) : 0;
    if (!value || !*value || errno || end == value)
        bad_value(name, "a size in bytes (K, M or G suffix allowed)", value);
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        shift = 10;
        end++;
        break;
    case 'M':
        shift = 20;
        end++;
        break;
    case 'G':
        shift = 30;
        end++;
        break;
    }
    if (*end && strcasecmp(end, "B") != 0 && strcasecmp(end, "iB") != 0)
        bad_value(name, "a size in bytes (K, M or G suffix allowed)", value);
    v <<= shift;
    if (v < min)
        amp_fatal("%s: %s is too small; the minimum is %zu bytes", name, value,
                  min);
    return (size_t)v;
}

#define MAPPING_FORMS "block, rr, random[:SEED] or list:PE,PE,..."

/* list:PE,PE,... into o (the PEs are checked against +p in amp_opts_map). */
static void parse_map_list(amp_opts_t *o, const char *name, const char *value)
{
    const char *p = value + strlen("list:");
    int n = 1;
    for (const char *q = p; *q; q++)
        n += *q == ',';
    int *list = malloc((size_t)n * sizeof(int));
    if (!list)
        amp_fatal("out of memory reading %s", name);
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > 1000000 ||
            (*end != ',' && *end != '\0') || !isdigit((unsigned char)*p))
            bad_value(name, MAPPING_FORMS, value);
        list[i] = (int)v;
        p = end + 1;
    }
    free(o->map_list);
    o->map_list = list;
    o->map_nlist = n;
}

static void parse_mapping(amp_opts_t *o, const char *name, const char *value)
{
    o->map_flag = name;
    o->mapped = 1;
    if (value && strcmp(value, "block") == 0) {
        o->mapping = AMP_MAP_BLOCK;
    } else if (value && (strcmp(value, "rr") == 0 ||
                         strcmp(value, "round-robin") == 0)) {
        o->mapping = AMP_MAP_RR;
    } else if (value && strncmp(value, "random", 6) == 0 &&
               (value[6] == '\0' || value[6] == ':')) {
        char *end = NULL;
        errno = 0;
        o->map_seed = value[6] ? strtoul(value + 7, &end, 10) : 1;
        if (value[6] && (!isdigit((unsigned char)value[7]) || *end || errno))
            bad_value(name, MAPPING_FORMS, value);
        o->mapping = AMP_MAP_RANDOM;
    } else if (value && strncmp(value, "list:", 5) == 0) {
        parse_map_list(o, name, value);
        o->mapping = AMP_MAP_LIST;
    } else {
        bad_value(name, MAPPING_FORMS, value);
    }
}

/* splitmix64: a small, well-mixed generator for the seeded permutation. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void amp_opts_map(const amp_opts_t *o, int npes, int *rank_pe)
{
    for (int r = 0; r < o->vp; r++) {
        if (o->mapping == AMP_MAP_RR)
            rank_pe[r] = r % npes;
        else if (o->mapping == AMP_MAP_LIST)
            rank_pe[r] = o->map_list[r % o->map_nlist];
        else
            rank_pe[r] = (int)((long long)r * npes / o->vp);
        if (rank_pe[r] >= npes)
            amp_fatal("%s: PE %d (for rank %d) does not exist; there are %d "
                      "PEs (+p)",
                      o->map_flag, rank_pe[r], r, npes);
    }
    if (o->mapping != AMP_MAP_RANDOM)
        return;
    /* A seeded shuffle of the block placement: as many ranks per PE. */
    uint64_t state = o->map_seed;
    for (int r = o->vp - 1; r > 0; r--) {
        int k = (int)(next_random(&state) % (uint64_t)(r + 1));
        int t = rank_pe[r];
        rank_pe[r] = rank_pe[k];
        rank_pe[k] = t;
    }
}

/* The ranks (ascending) as runs: "ranks 0-3,8", "rank 5" or "no ranks". */
static void put_ranks(FILE *f, const int *ranks, int n)
{
    fputs(n == 0 ? "no ranks" : n == 1 ? "rank " : "ranks ", f);
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        fprintf(f, "%s%d", i ? "," : "", ranks[i]);
        if (j > i)
            fprintf(f, "-%d", ranks[j]);
        i = j + 1;
    }
}

static void put_mapping(FILE *f, const amp_opts_t *o)
{
    switch (o->mapping) {
    case AMP_MAP_RR: fputs("rr", f); break;
    case AMP_MAP_RANDOM: fprintf(f, "random:%lu", o->map_seed); break;
    case AMP_MAP_LIST: fputs("list", f); break;
    default: fputs("block", f); break;
    }
}

/* +showmap: a header, then one line per PE with its core and its ranks. */
static void show_map(FILE *f, const amp_opts_t *o, const amp_topo_t *topo,
                     int npes, const amp_placement_t *where_ranks)
{
    const int *rank_pe = where_ranks->local_pe;
    int nranks = where_ranks->nlocal;
    /* The ranks sorted by PE (a counting sort keeps each PE's ascending). */
    int *first = calloc((size_t)npes + 1, sizeof(int));
    int *order = malloc((size_t)nranks * sizeof(int));
    if (!first || !order)
        amp_fatal("out of memory printing the placement (+showmap)");
    for (int r = 0; r < nranks; r++)
        first[rank_pe[r] + 1]++;
    for (int pe = 0; pe < npes; pe++)
        first[pe + 1] += first[pe];
    for (int r = 0; r < nranks; r++)
        order[first[rank_pe[r]]++] = where_ranks->first + r;
    for (int pe = npes; pe > 0; pe--)
        first[pe] = first[pe - 1];
    first[0] = 0;

    char where[512];
    amp_topo_allowed_str(topo, where, sizeof(where));
    if (where_ranks->nprocs > 1)
        fprintf(f, "ampi: process %d of %d on %s: ", where_ranks->proc,
                where_ranks->nprocs, where_ranks->host);
    else
        fputs("ampi: ", f);
    fprintf(f, "placement of %d rank%s on %d PE%s (mapping ", nranks,
            nranks == 1 ? "" : "s", npes, npes == 1 ? "" : "s");
    put_mapping(f, o);
    fprintf(f, "); this process may use %s%s\n", where,
            where_ranks->crowded ? "; idle PEs yield their cores" : "");
    for (int pe = 0; pe < npes; pe++) {
        if (o->pin)
            amp_topo_pe_str(topo, where_ranks->pin_base + pe, where,
                            sizeof(where));
        else
            snprintf(where, sizeof(where), "not bound");
        fprintf(f, "ampi: PE %d: %s: ", pe, where);
        put_ranks(f, order + first[pe], first[pe + 1] - first[pe]);
        fputc('\n', f);
    }
    free(order);
    free(first);
}

void amp_opts_report_placement(const amp_opts_t *o, const amp_topo_t *topo,
                               int npes, const amp_placement_t *placement)
{
    int shared = o->pin && npes > placement->cores;
    if (!shared && !o->showmap)
        return;
    /* Built in memory and written at once, so that it stays together. */
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        amp_fatal("out of memory printing the placement");
    if (shared) {
        char where[512];
        amp_topo_allowed_str(topo, where, sizeof(where));
        if (placement->cores < topo->ncores)
            fprintf(f,
                    "ampi: warning: %d PEs (+p) but this process's share of "
                    "the node's cores is %d (of %s); PEs share cores\n",
                    npes, placement->cores, where);
        else
            fprintf(f,
                    "ampi: warning: %d PEs (+p) but this process may use %s; "
                    "PEs share cores\n",
                    npes, where);
    }
    if (o->showmap)
        show_map(f, o, topo, npes, placement);
    if (fclose(f) != 0)
        amp_fatal("out of memory printing the placement");
    fwrite(text, 1, size, stderr);
    free(text);
}

static int parse_flag(const char *name, const char *value)
{
    if (value && (!strcmp(value, "1") || !strcasecmp(value, "yes") ||
                  !strcasecmp(value, "on") || !strcasecmp(value, "true")))
        return 1;
    if (value && (!strcmp(value, "0") || !strcasecmp(value, "no") ||
                  !strcasecmp(value, "off") || !strcasecmp(value, "false")))
        return 0;
    bad_value(name, "0 or 1", value);
    return 0;
}

/* +balancer NAME: one of the strategies of lb/lb.h. */
static int parse_balancer(const char *name, const char *value)
{
    const char *mapped;
    int kind = amp_lb_kind_mapped(value, &mapped);
    if (kind < 0)
        amp_fatal("%s: unknown load balancer '%s'; use GreedyLB, RefineLB, "
                  "DistributedLB, GreedyCommLB, HybridLB, GreedyRefineLB, "
                  "RotateLB, RandCentLB or none",
                  name, value);
    const char *proc = getenv("PMIX_RANK");
    if (mapped && (!proc || strcmp(proc, "0") == 0))
        fprintf(stderr, "ampi: %s %s: %s is used here (%s)\n", name, value,
                amp_lb_kind_name(kind), mapped);
    return kind;
}

static void from_env(amp_opts_t *o)
{
    const char *v;
    if ((v = getenv("AMPI_VP")))
        o->vp = parse_count("AMPI_VP", v);
    if ((v = getenv("AMPI_P")))
        o->p = parse_count("AMPI_P", v);
    if ((v = getenv("AMPI_STACKSIZE")))
        o->stacksize = parse_bytes("AMPI_STACKSIZE", v, MIN_STACK);
    if ((v = getenv("AMPI_ISOMALLOC_SLOT")))
        o->isomalloc_slot = parse_bytes("AMPI_ISOMALLOC_SLOT", v, 1);
    if ((v = getenv("AMPI_MAPPING")))
        parse_mapping(o, "AMPI_MAPPING", v);
    if ((v = getenv("AMPI_EAGER_LIMIT")))
        o->eager = parse_bytes("AMPI_EAGER_LIMIT", v, 0);
    if ((v = getenv("AMPI_PIN")))
        o->pin = parse_flag("AMPI_PIN", v);
    if ((v = getenv("AMPI_STATS")))
        o->stats = parse_flag("AMPI_STATS", v);
    if ((v = getenv("AMPI_ISOMALLOC_GUARD")))
        o->isomalloc_guard = parse_flag("AMPI_ISOMALLOC_GUARD", v);
    if ((v = getenv("AMPI_POLL_DEADLOCK")))
        o->poll_deadlock_ns = parse_seconds("AMPI_POLL_DEADLOCK", v);
    if ((v = getenv("AMPI_SHOWMAP")))
        o->showmap = parse_flag("AMPI_SHOWMAP", v);
    if ((v = getenv("AMPI_BALANCER")))
        o->balancer = parse_balancer("AMPI_BALANCER", v);
    if ((v = getenv("AMPI_LBDEBUG")))
        o->lbdebug = parse_flag("AMPI_LBDEBUG", v);
    if ((v = getenv("AMPI_GPUMAP")))
        o->gpumap = v; /* checked by gpu/gpu.c */
    if ((v = getenv("AMPI_TRACE")))
        o->trace = parse_dir("AMPI_TRACE", v);
    if ((v = getenv("AMPI_RESTART")) && *v)
        o->restart = v; /* checked by start/restart.c */
    if ((v = getenv("AMPI_IO_THREADS")))
        o->iothreads = parse_count("AMPI_IO_THREADS", v);
    if ((v = getenv("AMPI_NODE_SHM")))
        o->node_shm = parse_flag("AMPI_NODE_SHM", v);
    if ((v = getenv("AMPI_TERM_REPORT")))
        o->term_report = parse_flag("AMPI_TERM_REPORT", v);
    if ((v = getenv("AMPI_NODE_SPLIT_COPY")))
        o->node_split = parse_bytes("AMPI_NODE_SPLIT_COPY", v, 0);
    if ((v = getenv("AMPI_NET_EAGER")))
        o->net_eager = parse_bytes("AMPI_NET_EAGER", v, 0);
    if ((v = getenv("AMPI_NODE_MEMBARRIER")))
        o->node_membarrier = parse_flag("AMPI_NODE_MEMBARRIER", v);
    if ((v = getenv("AMPI_LBPERIOD")))
        o->lbperiod_ns = parse_seconds("AMPI_LBPERIOD", v);
    if ((v = getenv("AMPI_CKPTPERIOD")))
        o->ckptperiod_ns = parse_seconds("AMPI_CKPTPERIOD", v);
    if ((v = getenv("AMPI_CKPTDIR")) && *v)
        o->ckptdir = v;
    if ((v = getenv("AMPI_LBMINGAIN")))
        o->lbmingain = parse_fraction("AMPI_LBMINGAIN", v);
    if ((v = getenv("AMPI_LBEARLY")))
        o->lbearly = parse_fraction("AMPI_LBEARLY", v);
    if ((v = getenv("AMPI_LBPREDICT")))
        o->lbpredict = parse_flag("AMPI_LBPREDICT", v);
    if ((v = getenv("AMPI_STEAL")))
        o->steal = parse_flag("AMPI_STEAL", v);
    if ((v = getenv("AMPI_STEAL_IDLE")))
        o->steal_idle_ns = parse_seconds("AMPI_STEAL_IDLE", v);
    if ((v = getenv("AMPI_PINMAP")))
        o->pinmap = parse_flag("AMPI_PINMAP", v);
    if ((v = getenv("AMPI_YIELD_WHEN_IDLE")))
        o->yield_idle = parse_flag("AMPI_YIELD_WHEN_IDLE", v);
}

/* Runtime options of Charm++'s AMPI, for jobs written for it: each is
 * honoured (kept quiet, or mapped to ours) or accepted with one line saying
 * it has no effect here. */
typedef struct charm_option {
    const char *name;
    int has_value;
    const char *same_as; /* our option, given the same value */
    const char *why;     /* no effect: why (printed once), or NULL */
} charm_option_t;

static const charm_option_t charm_options[] = {
    {"+isomalloc_sync", 0, NULL, NULL}, /* the range is the same everywhere */
    {"+setcpuaffinity", 0, NULL, NULL}, /* PEs are pinned (+nopin: not) */
    {"+tcharm_stacksize", 1, "+stacksize", NULL},
    {"+LBDebug", 1, "+lbdebug", NULL},
    {"+LBPeriod", 1, "+lbperiod", NULL},
    {"+LBPredictor", 0, "+lbpredict", NULL},
    {"+LBOff", 0, NULL,
     "ranks are balanced only by AMPI_Migrate and +lbperiod"},
    {"+LBCommOff", 0, NULL, "the balancers do not weigh communication"},
    {"+LBTestPESpeed", 0, NULL, "the PEs are taken to be equally fast"},
    {"+LBPrintSummary", 0, NULL, "+lbdebug reports the moves"},
    {"+ppn", 1, NULL, "+p sets the PEs of each process"},
    {"+pemap", 1, NULL, "the PEs are pinned to cores in order (+nopin: not)"},
    {"+commap", 1, NULL, "there is no communication thread"},
    {"+tcharm_nomig", 0, NULL,
     "ranks change PE for good only in AMPI_Migrate and +lbperiod"},
    {"+ampiEnableMigrateToPe", 0, NULL, "AMPI_Migrate_to_pe is always allowed"},
};

/* Only the job's first process speaks, so a note comes once. */
static void charm_note(const charm_option_t *c)
{
    const char *proc = getenv("PMIX_RANK");
    if (!proc || strcmp(proc, "0") == 0)
        fprintf(stderr, "ampi: %s has no effect here: %s\n", c->name, c->why);
}

/* Handles argv[*i] if it is one of Charm++'s AMPI options; 0 if not. */
static int take_charm_option(amp_opts_t *o, int argc, char **argv, int *i)
{
    for (size_t k = 0; k < sizeof(charm_options) / sizeof(*charm_options);
         k++) {
        const charm_option_t *c = &charm_options[k];
        if (strcmp(argv[*i], c->name) != 0)
            continue;
        const char *value = NULL;
        if (c->has_value) {
            if (*i + 1 >= argc)
                amp_fatal("%s: missing value", c->name);
            value = argv[++*i];
        }
        if (c->why)
            charm_note(c);
        else if (c->same_as && strcmp(c->same_as, "+stacksize") == 0)
            o->stacksize = parse_bytes(c->name, value, MIN_STACK);
        else if (c->same_as && strcmp(c->same_as, "+lbperiod") == 0)
            o->lbperiod_ns = parse_seconds(c->name, value);
        else if (c->same_as && strcmp(c->same_as, "+lbpredict") == 0)
            o->lbpredict = 1;
        else if (c->same_as && strcmp(c->same_as, "+lbdebug") == 0)
            o->lbdebug =
                strcmp(value, "0") != 0 && parse_count(c->name, value) > 0;
        return 1;
    }
    return 0;
}

/* Charm++'s runtime has many more options (its own, its balancers',
 * tracing's): an unknown one is taken out of argv with one line on stderr,
 * and the job goes on.  Its value, if it takes one, stays the program's. */
static void unknown_note(const char *arg)
{
    const char *proc = getenv("PMIX_RANK");
    if (!proc || strcmp(proc, "0") == 0)
        fprintf(stderr,
                "ampi: warning: unknown runtime option '%s' ignored; %s\n", arg,
                usage);
}

/* Handles argv[*i] if it is a runtime option (advancing *i past its value);
 * returns 0 if it is the program's. */
static int take_option(amp_opts_t *o, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    if (arg[0] != '+' || !isalpha((unsigned char)arg[1]))
        return 0;
    static const char *const with_value[] = {
        "+vp",      "+p",         "+stacksize", "+mapping",
        "+eager",   "+balancer",  "+gpumap",    "+isomalloc_slot",
        "+restart", "+iothreads", "+lbperiod",  "+ckptperiod",
        "+ckptdir", "+trace",     "+lbmingain", "+ckptgather",
        "+lbearly"};
    static const char *const flags[] = {"+nopin",   "+stats",    "+showmap",
                                        "+lbdebug", "+nosteal",  "+steal",
                                        "+pinmap",  "+lbpredict"};
    for (size_t k = 0; k < sizeof(flags) / sizeof(*flags); k++) {
        size_t n = strlen(flags[k]);
        if (strncmp(arg, flags[k], n) != 0 || (arg[n] && arg[n] != '='))
            continue;
        if (arg[n] == '=')
            amp_fatal("%s: takes no value, got '%s'", flags[k], arg);
        if (k == 0)
            o->pin = 0;
        else if (k == 1)
            o->stats = 1;
        else if (k == 2)
            o->showmap = 1;
        else if (k == 3)
            o->lbdebug = 1;
        else if (k == 6)
            o->pinmap = 1;
        else if (k == 7)
            o->lbpredict = 1;
        else
            o->steal = k == 5;
        return 1;
    }
    for (size_t k = 0; k < sizeof(with_value) / sizeof(*with_value); k++) {
        size_t n = strlen(with_value[k]);
        if (strncmp(arg, with_value[k], n) != 0)
            continue;
        const char *value;
        if (arg[n] == '\0') {
            if (*i + 1 >= argc)
                amp_fatal("%s: missing value", with_value[k]);
            value = argv[++*i];
        } else if (isdigit((unsigned char)arg[n])) {
            value = arg + n; /* +vp8 */
        } else {
            continue;
        }
        switch (k) {
        case 0: o->vp = parse_count("+vp", value); break;
        case 1: o->p = parse_count("+p", value); break;
        case 2:
            o->stacksize = parse_bytes("+stacksize", value, MIN_STACK);
            break;
        case 3: parse_mapping(o, "+mapping", value); break;
        case 4: o->eager = parse_bytes("+eager", value, 0); break;
        case 5: o->balancer = parse_balancer("+balancer", value); break;
        case 6: o->gpumap = value; break; /* checked by gpu/gpu.c */
        case 7:
            o->isomalloc_slot = parse_bytes("+isomalloc_slot", value, 1);
            break;
        case 8: o->restart = value; break; /* checked by start/restart.c */
        case 9: o->iothreads = parse_count("+iothreads", value); break;
        case 10: o->lbperiod_ns = parse_seconds("+lbperiod", value); break;
        case 11: o->ckptperiod_ns = parse_seconds("+ckptperiod", value); break;
        case 12: o->ckptdir = value; break; /* checked at the checkpoint */
        case 13: o->trace = parse_dir("+trace", value); break;
        case 14: o->lbmingain = parse_fraction("+lbmingain", value); break;
        case 15: o->gather = value; break; /* rank/ckpt_gather.c */
        case 16: o->lbearly = parse_fraction("+lbearly", value); break;
        }
        return 1;
    }
    if (take_charm_option(o, argc, argv, i))
        return 1;
    unknown_note(arg);
    return 1;
}

void amp_opts_parse(amp_opts_t *o, int *argc, char **argv)
{
    o->vp = 0; /* one rank per process of the job */
    o->p = 0;
    o->stacksize = 1u << 20;
    o->isomalloc_slot = 0; /* amp_mem_init's default */
    o->mapping = AMP_MAP_BLOCK;
    o->map_flag = "+mapping";
    o->eager = 4096;
    o->pin = 1;
    o->node_shm = 1;
    o->term_report = 1;
    o->node_membarrier = 1;
    o->node_split = 256u << 10;
    o->net_eager = 64u << 10;
    o->yield_idle = -1;
    o->steal = 1;
    o->lbmingain = 0.05;
    o->lbearly = 0.125;
    from_env(o);
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "++") == 0) {
            /* Everything after "++" belongs to the program. */
            for (i++; i < *argc; i++)
                argv[out++] = argv[i];
            break;
        }
        if (!take_option(o, *argc, argv, &i))
            argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    if (o->lbperiod_ns > 0 && o->balancer == AMP_LB_NONE)
        amp_fatal("+lbperiod: periodic balancing needs a strategy; add "
                  "+balancer GreedyLB (or another strategy)");
    if (o->eager > (64u << 20))
        amp_fatal("+eager: %zu bytes is above the 64 MiB limit", o->eager);
    if (o->gather) { /* the ranks only move checkpoint files */
        if (o->restart)
            amp_fatal("+ckptgather: not with +restart (or AMPI_RESTART)");
        o->lbperiod_ns = o->ckptperiod_ns = 0;
        o->trace = NULL;
        o->stats = 0;
    }
}

/* Runtime options: +vp, +p, +stacksize, +mapping, +eager, +nopin and their
 * environment variables. */
#include "start/start.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MIN_STACK (64u << 10)

static const char usage[] =
    "runtime options: +vp N, +p N, +stacksize BYTES, +mapping KIND, "
    "+eager BYTES, +nopin, +stats (see docs/runtime-options.md)";

static void bad_value(const char *name, const char *what, const char *value)
{
    amp_fatal("%s: expected %s, got '%s'", name, what, value ? value : "");
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

static void from_env(amp_opts_t *o)
{
    const char *v;
    if ((v = getenv("AMPI_VP")))
        o->vp = parse_count("AMPI_VP", v);
    if ((v = getenv("AMPI_P")))
        o->p = parse_count("AMPI_P", v);
    if ((v = getenv("AMPI_STACKSIZE")))
        o->stacksize = parse_bytes("AMPI_STACKSIZE", v, MIN_STACK);
    if ((v = getenv("AMPI_MAPPING")))
        parse_mapping(o, "AMPI_MAPPING", v);
    if ((v = getenv("AMPI_EAGER_LIMIT")))
        o->eager = parse_bytes("AMPI_EAGER_LIMIT", v, 0);
    if ((v = getenv("AMPI_PIN")))
        o->pin = parse_flag("AMPI_PIN", v);
    if ((v = getenv("AMPI_STATS")))
        o->stats = parse_flag("AMPI_STATS", v);
}

/* Handles argv[*i] if it is a runtime option (advancing *i past its value);
 * returns 0 if it is the program's. */
static int take_option(amp_opts_t *o, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    if (arg[0] != '+' || !isalpha((unsigned char)arg[1]))
        return 0;
    static const char *const with_value[] = {"+vp", "+p", "+stacksize",
                                             "+mapping", "+eager"};
    if (strcmp(arg, "+nopin") == 0) {
        o->pin = 0;
        return 1;
    }
    if (strcmp(arg, "+stats") == 0) {
        o->stats = 1;
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
        }
        return 1;
    }
    amp_fatal("unknown runtime option '%s'; %s", arg, usage);
}

void amp_opts_parse(amp_opts_t *o, int *argc, char **argv)
{
    o->vp = 1;
    o->p = 0;
    o->stacksize = 1u << 20;
    o->mapping = AMP_MAP_BLOCK;
    o->map_flag = "+mapping";
    o->eager = 4096;
    o->pin = 1;
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
    if (o->eager > (64u << 20))
        amp_fatal("+eager: %zu bytes is above the 64 MiB limit", o->eager);
}

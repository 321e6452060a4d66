/* Runtime options: +vp, +p, +stacksize, +mapping, +eager, +nopin and their
 * environment variables. */
#include "start/start.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIN_STACK (64u << 10)

static const char usage[] =
    "runtime options: +vp N, +p N, +stacksize BYTES, +mapping block|rr, "
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

static int parse_mapping(const char *name, const char *value)
{
    if (value && strcmp(value, "block") == 0)
        return AMP_MAP_BLOCK;
    if (value &&
        (strcmp(value, "rr") == 0 || strcmp(value, "round-robin") == 0))
        return AMP_MAP_RR;
    bad_value(name, "block or rr", value);
    return AMP_MAP_BLOCK;
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
        o->mapping = parse_mapping("AMPI_MAPPING", v);
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
        case 3: o->mapping = parse_mapping("+mapping", value); break;
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

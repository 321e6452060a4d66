/*
 * The C library's functions that keep state between calls or answer in a
 * static buffer, with the state and the buffer per rank: strtok's position,
 * the struct tm of gmtime and localtime, the strings of asctime, ctime,
 * strerror, strsignal, ttyname, getlogin and inet_ntoa, the records of
 * getpwnam, getpwuid, getgrnam and getgrgid.  A rank switch between two
 * calls (another rank of the PE running while this one waits in MPI) can
 * no longer change what a rank holds, and ranks on other PEs never share a
 * buffer.  Each answer is the one glibc gives: its reentrant functions
 * fill the rank's buffer, or its own answer is copied there.
 */
#include "libc/state.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef char *(*strtok_fn_t)(char *, const char *);
typedef struct tm *(*time_fn_t)(const time_t *);
typedef char *(*ctime_fn_t)(const time_t *);
typedef char *(*asctime_fn_t)(const struct tm *);
typedef char *(*int_str_fn_t)(int);
typedef char *(*void_str_fn_t)(void);
typedef char *(*inet_fn_t)(struct in_addr);
typedef struct passwd *(*pwnam_fn_t)(const char *);
typedef struct passwd *(*pwuid_fn_t)(uid_t);
typedef struct group *(*grnam_fn_t)(const char *);
typedef struct group *(*grgid_fn_t)(gid_t);

AMP_LIBC_REAL_FN(strtok_fn_t, strtok)
AMP_LIBC_REAL_FN(time_fn_t, gmtime)
AMP_LIBC_REAL_FN(time_fn_t, localtime)
AMP_LIBC_REAL_FN(ctime_fn_t, ctime)
AMP_LIBC_REAL_FN(asctime_fn_t, asctime)
AMP_LIBC_REAL_FN(int_str_fn_t, strerror)
AMP_LIBC_REAL_FN(int_str_fn_t, strsignal)
AMP_LIBC_REAL_FN(int_str_fn_t, ttyname)
AMP_LIBC_REAL_FN(void_str_fn_t, getlogin)
AMP_LIBC_REAL_FN(inet_fn_t, inet_ntoa)
AMP_LIBC_REAL_FN(pwnam_fn_t, getpwnam)
AMP_LIBC_REAL_FN(pwuid_fn_t, getpwuid)
AMP_LIBC_REAL_FN(grnam_fn_t, getgrnam)
AMP_LIBC_REAL_FN(grgid_fn_t, getgrgid)

AMP_LIBC_EXPORT char *strtok(char *s, const char *delim);
AMP_LIBC_EXPORT struct tm *gmtime(const time_t *t);
AMP_LIBC_EXPORT struct tm *localtime(const time_t *t);
AMP_LIBC_EXPORT char *asctime(const struct tm *tm);
AMP_LIBC_EXPORT char *ctime(const time_t *t);
AMP_LIBC_EXPORT char *strerror(int errnum);
AMP_LIBC_EXPORT char *strsignal(int sig);
AMP_LIBC_EXPORT char *ttyname(int fd);
AMP_LIBC_EXPORT char *getlogin(void);
AMP_LIBC_EXPORT char *inet_ntoa(struct in_addr in);
AMP_LIBC_EXPORT struct passwd *getpwnam(const char *name);
AMP_LIBC_EXPORT struct passwd *getpwuid(uid_t uid);
AMP_LIBC_EXPORT struct group *getgrnam(const char *name);
AMP_LIBC_EXPORT struct group *getgrgid(gid_t gid);

char *strtok(char *s, const char *delim)
{
    amp_libc_rank_t *l = amp_libc_self();
    return l ? strtok_r(s, delim, &l->strtok_save) : real_strtok()(s, delim);
}

struct tm *gmtime(const time_t *t)
{
    amp_libc_rank_t *l = amp_libc_self();
    return l ? gmtime_r(t, &l->tm) : real_gmtime()(t);
}

/* localtime() reads TZ again at every call (localtime_r need not). */
struct tm *localtime(const time_t *t)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (!l)
        return real_localtime()(t);
    tzset();
    return localtime_r(t, &l->tm);
}

/* asctime's format with the C locale's names, into the rank's buffer, which
 * is as large as glibc's static one (any int year fits). */
static char *format_asctime(const struct tm *tm, char *buf, size_t size)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed",
                                    "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr",
                                       "May", "Jun", "Jul", "Aug",
                                       "Sep", "Oct", "Nov", "Dec"};
    if (!tm) {
        errno = EINVAL;
        return NULL;
    }
    if (tm->tm_year > INT_MAX - 1900) {
        errno = EOVERFLOW;
        return NULL;
    }
    int wday = tm->tm_wday, mon = tm->tm_mon;
    int n = snprintf(buf, size, "%.3s %.3s%3d %.2d:%.2d:%.2d %d\n",
                     wday >= 0 && wday < 7 ? days[wday] : "???",
                     mon >= 0 && mon < 12 ? months[mon] : "???", tm->tm_mday,
                     tm->tm_hour, tm->tm_min, tm->tm_sec, 1900 + tm->tm_year);
    if (n < 0 || (size_t)n >= size) {
        errno = EOVERFLOW;
        return NULL;
    }
    return buf;
}

char *asctime(const struct tm *tm)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (!l)
        return real_asctime()(tm);
    return format_asctime(tm, l->asctime, sizeof(l->asctime));
}

/* asctime(localtime(t)), both in the rank's buffers, as glibc's uses its
 * static ones. */
char *ctime(const time_t *t)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (!l)
        return real_ctime()(t);
    return asctime(localtime(t));
}

/* The C library's string, kept in the rank's buffer (glibc answers in a
 * buffer of the kernel thread's, or a constant). */
static char *keep(const char *s, char *buf, size_t size)
{
    if (!s)
        return NULL;
    size_t n = strnlen(s, size - 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

char *strerror(int errnum)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    char *s = real_strerror()(errnum);
    return b ? keep(s, b->strerror, sizeof(b->strerror)) : s;
}

char *strsignal(int sig)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    char *s = real_strsignal()(sig);
    return b ? keep(s, b->strsignal, sizeof(b->strsignal)) : s;
}

/* The _r function's error number is the non-reentrant one's errno. */
static char *failed(int err)
{
    errno = err;
    return NULL;
}

char *ttyname(int fd)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    if (!b)
        return real_ttyname()(fd);
    int err = ttyname_r(fd, b->ttyname, sizeof(b->ttyname));
    return err ? failed(err) : b->ttyname;
}

char *getlogin(void)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    if (!b)
        return real_getlogin()();
    int err = getlogin_r(b->login, sizeof(b->login));
    return err ? failed(err) : b->login;
}

char *inet_ntoa(struct in_addr in)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    if (!b)
        return real_inet_ntoa()(in);
    return (char *)inet_ntop(AF_INET, &in, b->inet, sizeof(b->inet));
}

/* Grows *buf (in the rank's heap) for an _r lookup that said ERANGE; false
 * when out of memory. */
static int grow(char **buf, size_t *len)
{
    size_t want = *len ? 2 * *len : 1024;
    char *p = amp_libc_realloc(*buf, want);
    if (!p)
        return 0;
    *buf = p;
    *len = want;
    return 1;
}

/* One lookup of the passwd (is_group 0) or group database: by name, or by
 * id when name is NULL, into the rank's record and buffer. */
static void *lookup(amp_libc_buffers_t *b, int is_group, const char *name,
                    unsigned id)
{
    char **buf = is_group ? &b->gr_buf : &b->pw_buf;
    size_t *len = is_group ? &b->gr_len : &b->pw_len;
    void *result = NULL;
    int err = ERANGE;
    while (err == ERANGE) {
        if (*len == 0 && !grow(buf, len))
            return failed(ENOMEM);
        if (is_group)
            err = name ? getgrnam_r(name, &b->gr, *buf, *len,
                                    (struct group **)&result)
                       : getgrgid_r(id, &b->gr, *buf, *len,
                                    (struct group **)&result);
        else
            err = name ? getpwnam_r(name, &b->pw, *buf, *len,
                                    (struct passwd **)&result)
                       : getpwuid_r(id, &b->pw, *buf, *len,
                                    (struct passwd **)&result);
        if (err == ERANGE && !grow(buf, len))
            return failed(ENOMEM);
    }
    return err ? failed(err) : result;
}

struct passwd *getpwnam(const char *name)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    return b ? lookup(b, 0, name, 0) : real_getpwnam()(name);
}

struct passwd *getpwuid(uid_t uid)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    return b ? lookup(b, 0, NULL, uid) : real_getpwuid()(uid);
}

struct group *getgrnam(const char *name)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    return b ? lookup(b, 1, name, 0) : real_getgrnam()(name);
}

struct group *getgrgid(gid_t gid)
{
    amp_libc_buffers_t *b = amp_libc_buffers();
    return b ? lookup(b, 1, NULL, gid) : real_getgrgid()(gid);
}

/* db.c: libpq helpers. Every connection is bounded: lg adds connect_timeout, TCP keepalives,
 * tcp_user_timeout and application_name unless the connection string (or libpq's environment)
 * gives them, and every statement lg_db_exec runs has a deadline of its own on this side (the
 * server's statement_timeout too, but a frozen or cut-off server enforces nothing): past it the
 * server is asked to cancel the statement (off the caller's thread) and the connection is shut,
 * so the caller's next use fails at once and it connects again. */
#include "db.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"

static const char *s_app = "lg";
static uint32_t s_deadline_ms = LG_DB_DEADLINE_MS;
static _Thread_local uint32_t s_thread_deadline_ms; /* 0: the process's */
static volatile int *s_interrupt;

void lg_db_set_app(const char *name)
{
    s_app = name;
}
void lg_db_set_deadline_ms(uint32_t ms)
{
    s_deadline_ms = ms ? ms : LG_DB_DEADLINE_MS;
}
uint32_t lg_db_deadline_ms(void)
{
    return s_thread_deadline_ms ? s_thread_deadline_ms : s_deadline_ms;
}
void lg_db_set_thread_deadline_ms(uint32_t ms)
{
    s_thread_deadline_ms = ms;
}
void lg_db_set_interrupt(volatile int *flag)
{
    s_interrupt = flag;
}

static int64_t s_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "host H port P" or "socket folder S" of db, for messages */
static void s_where(PGconn *db, const char *conninfo, char *buf, size_t len)
{
    const char *h = db ? PQhost(db) : NULL;
    const char *p = db ? PQport(db) : NULL;
    if (h && h[0] == '/')
        snprintf(buf, len, "the database at socket folder %s (port %s)", h, p ? p : "5432");
    else if (h && h[0])
        snprintf(buf, len, "the database at %s port %s", h, p ? p : "5432");
    else
        snprintf(buf, len, "the database (%s)",
                 conninfo && conninfo[0] ? "its connection string" : "libpq's defaults");
}

/* One line for the log: libpq's messages come with newlines and tabs. */
static void s_one_line(char *err)
{
    for (char *c = err; *c; c++)
        if (*c == '\n' || *c == '\t')
            *c = ' ';
    size_t l = strlen(err);
    while (l && err[l - 1] == ' ')
        err[--l] = 0;
}

/* The head of statement sql for a message, into buf: its white space folded to single spaces (a
 * query file's statement spans lines, its header's blank). Returns 1 when sql goes on past it. */
static int s_sql_head(const char *sql, char *buf, size_t len)
{
    size_t o = 0;
    const char *p = sql;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    for (; *p && o + 1 < len; p++) {
        int ws = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
        if (ws && o > 0 && buf[o - 1] == ' ')
            continue;
        buf[o++] = ws ? ' ' : *p;
    }
    buf[o] = '\0';
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return *p != '\0';
}

/* key='value' at the end of pub (used bytes *o), quoted as libpq reads it. 0 or LG_ETOOBIG. */
static int s_put_setting(char *pub, size_t publen, size_t *o, const char *key, const char *val)
{
    size_t need = strlen(key) + 4 + (*o ? 1 : 0);
    for (const char *v = val; *v; v++)
        need += (*v == '\\' || *v == '\'') ? 2 : 1;
    if (*o + need >= publen)
        return LG_ETOOBIG;
    *o += (size_t)snprintf(pub + *o, publen - *o, "%s%s='", *o ? " " : "", key);
    for (const char *v = val; *v; v++) {
        if (*v == '\\' || *v == '\'')
            pub[(*o)++] = '\\';
        pub[(*o)++] = *v;
    }
    pub[(*o)++] = '\'';
    pub[*o] = 0;
    return 0;
}

int lg_db_conninfo_split(const char *conninfo, char *pub, size_t publen, char *pass, size_t passlen,
                         char *err, size_t errlen)
{
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo ? conninfo : "", &perr);
    if (!opts) {
        snprintf(err, errlen, "the database connection string: %s", perr ? perr : "out of memory");
        s_one_line(err);
        PQfreemem(perr);
        return LG_EPARSE;
    }
    size_t o = 0;
    int rc = publen && passlen ? 0 : LG_ETOOBIG;
    if (!rc)
        pub[0] = pass[0] = 0;
    for (PQconninfoOption *p = opts; !rc && p->keyword; p++) {
        if (!p->val)
            continue;
        if (!strcmp(p->keyword, "password")) {
            rc = strlen(p->val) < passlen ? 0 : LG_ETOOBIG;
            if (!rc)
                lg_strlcpy(pass, p->val, passlen);
        } else if (p->dispchar && p->dispchar[0] == '*') { /* a secret: sslpassword */
            snprintf(err, errlen,
                     "the database connection string's \"%s\" can only be given on a command "
                     "line",
                     p->keyword);
            rc = LG_EPARSE;
        } else {
            rc = s_put_setting(pub, publen, &o, p->keyword, p->val);
        }
        if (rc == LG_ETOOBIG)
            snprintf(err, errlen, "the database connection string is too long");
    }
    PQconninfoFree(opts);
    return rc;
}

PGconn *lg_db_connect(const char *conninfo, char *err, size_t errlen)
{
    char *perr = NULL;
    PQconninfoOption *given = PQconninfoParse(conninfo ? conninfo : "", &perr);
    if (!given) {
        snprintf(err, errlen, "the database connection string: %s", perr ? perr : "out of memory");
        s_one_line(err);
        PQfreemem(perr);
        return NULL;
    }
    /* what the user gave, then the bounds they did not give */
    const char *keys[64], *vals[64];
    size_t n = 0;
    int have_ct = getenv("PGCONNECT_TIMEOUT") != NULL, have_ka = 0, have_tut = 0,
        have_app = getenv("PGAPPNAME") != NULL;
    for (PQconninfoOption *o = given; o->keyword && n < 50; o++) {
        if (!o->val)
            continue;
        keys[n] = o->keyword;
        vals[n++] = o->val;
        have_ct |= !strcmp(o->keyword, "connect_timeout");
        have_ka |= !strncmp(o->keyword, "keepalives", 10);
        have_tut |= !strcmp(o->keyword, "tcp_user_timeout");
        have_app |= !strcmp(o->keyword, "application_name");
    }
    char ct[16];
    snprintf(ct, sizeof ct, "%u", LG_DB_CONNECT_TIMEOUT_S);
    if (!have_ct)
        keys[n] = "connect_timeout", vals[n++] = ct;
    if (!have_ka) {
        /* a peer gone silent is found in 10 + 3 x 5 = 25 s */
        keys[n] = "keepalives", vals[n++] = "1";
        keys[n] = "keepalives_idle", vals[n++] = "10";
        keys[n] = "keepalives_interval", vals[n++] = "5";
        keys[n] = "keepalives_count", vals[n++] = "3";
    }
    if (!have_tut)
        keys[n] = "tcp_user_timeout", vals[n++] = "25000"; /* unacknowledged data: 25 s */
    if (!have_app)
        keys[n] = "application_name", vals[n++] = s_app;
    keys[n] = NULL;
    vals[n] = NULL;
    /* connect on our own clock: a server that accepts and then never answers (frozen) is given
     * up after connect_timeout, and an interrupt (Ctrl-C) ends the wait within 100 ms */
    PGconn *db = PQconnectStartParams(keys, vals, 0);
    /* ours, the connection string's, or PGCONNECT_TIMEOUT's (libpq's own floor is 2 s) */
    uint32_t limit_s = LG_DB_CONNECT_TIMEOUT_S;
    const char *given_ct = getenv("PGCONNECT_TIMEOUT");
    for (size_t i = 0; i < n; i++)
        if (!strcmp(keys[i], "connect_timeout"))
            given_ct = vals[i];
    uint64_t ctv;
    if (given_ct && lg_parse_u64(given_ct, 1, 86400, &ctv) == 0)
        limit_s = ctv < 2 ? 2 : (uint32_t)ctv;
    /* libpq's connect_timeout is per host: a primary and a standby ("host=a,b", tried in turn
     * for target_session_attrs) each get theirs */
    uint32_t hosts = 1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(keys[i], "host") || !strcmp(keys[i], "hostaddr")) {
            uint32_t h = 1;
            for (const char *p = vals[i]; *p; p++)
                h += *p == ',';
            hosts = h > hosts ? h : hosts;
        }
    limit_s *= hosts > 8 ? 8 : hosts;
    PQconninfoFree(given);
    if (!db) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int64_t end = s_now_ms() + (int64_t)limit_s * 1000;
    PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
    while (PQstatus(db) != CONNECTION_BAD && ps != PGRES_POLLING_OK && ps != PGRES_POLLING_FAILED) {
        int64_t left = end - s_now_ms();
        if (left <= 0 || (s_interrupt && *s_interrupt)) {
            char where[512];
            s_where(db, conninfo, where, sizeof where);
            snprintf(err, errlen, "%s: %s", where,
                     left <= 0 ? "no answer to the connection within its connect_timeout"
                               : "interrupted while connecting");
            PQfinish(db);
            return NULL;
        }
        struct pollfd p = {.fd = PQsocket(db),
                           .events = ps == PGRES_POLLING_READING ? POLLIN : POLLOUT};
        int r = p.fd >= 0 ? poll(&p, 1, left > 100 ? 100 : (int)left) : 1;
        if (r > 0 || p.fd < 0)
            ps = PQconnectPoll(db);
        else if (r < 0 && errno != EINTR)
            break;
    }
    if (PQstatus(db) != CONNECTION_OK) {
        snprintf(err, errlen, "%s", PQerrorMessage(db));
        s_one_line(err);
        PQfinish(db);
        return NULL;
    }
    /* the server's own limit, a little past ours: a live but slow server stops by itself. To
     * our deadline too: a server that froze just after it took the connection would hold a
     * plain PQexec for ever. */
    char set[128];
    snprintf(set, sizeof set, "SET client_min_messages = warning; SET statement_timeout = %u",
             lg_db_deadline_ms() + 1000);
    int rc = lg_db_script(db, set, err, errlen);
    if (rc == LG_ETIMEOUT) {
        PQfinish(db);
        return NULL;
    }
    if (rc)
        err[0] = 0; /* as before: a server that refuses the SETs is still used */
    /* No JIT: lg's queries are small, but the comparison functions' estimates (1,000 rows a
     * function) pass jit_above_cost, and compiling them took 2.2 of compare's 2.4 s on a
     * 100-run campaign (tests/bench/report_speed.sh). Apart: a server without it is still used. */
    if (lg_db_script(db, "SET jit = off", err, errlen) == LG_ETIMEOUT) {
        PQfinish(db);
        return NULL;
    }
    err[0] = 0;
    return db;
}

void lg_db_close(PGconn **db_p)
{
    if (db_p && *db_p) {
        PQfinish(*db_p);
        *db_p = NULL;
    }
}

int lg_db_connected(const PGconn *db)
{
    return db && PQstatus(db) == CONNECTION_OK;
}

/* A cancel request, sent on a thread of its own. libpq 15's PQcancel connects to the server and
 * waits for it to close that connection: against a cut-off server until tcp_user_timeout (which
 * PQcancel applies), against a frozen one until it thaws. So the thread is detached (nobody ever
 * joins or waits on it: a signal still ends the process at once), and at most CANCELS_MAX run
 * at a time: past that a statement is only abandoned (its connection shut), never queued. */
#define CANCELS_MAX 2
static atomic_int s_cancels;

static void *s_cancel_main(void *arg)
{
    PGcancel *cancel = arg;
    char err[256];
    if (PQcancel(cancel, err, sizeof err))
        lg_debug("asked the database to cancel a statement past its deadline");
    else
        lg_debug("could not ask the database to cancel a statement: %s", err);
    PQfreeCancel(cancel);
    atomic_fetch_sub(&s_cancels, 1);
    return NULL;
}

/* Start a cancel of what db runs now, never waiting for it; nothing when CANCELS_MAX are under
 * way or the thread cannot be made. */
static void s_cancel_async(PGconn *db)
{
    if (atomic_fetch_add(&s_cancels, 1) >= CANCELS_MAX) {
        atomic_fetch_sub(&s_cancels, 1);
        return;
    }
    PGcancel *cancel = PQgetCancel(db); /* a copy of the address and key: no I/O */
    pthread_attr_t attr;
    pthread_t t;
    sigset_t all, old;
    int rc = -1;
    if (cancel && pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        sigfillset(&all); /* signals stay with the threads that handle them */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        rc = pthread_create(&t, &attr, s_cancel_main, cancel);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        PQfreeCancel(cancel);
        atomic_fetch_sub(&s_cancels, 1);
    }
}

/* The statement did not end in time, or the wait was interrupted: the server is asked to cancel
 * it (a backend waiting on a lock does not notice its client going, so it would hold its place
 * in the lock's queue and run the statement when the lock came), and the connection is shut (a
 * server that is alive sees it go and rolls back), so every later use fails at once. */
static void s_abandon(PGconn *db)
{
    s_cancel_async(db);
    int fd = PQsocket(db);
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
    PQconsumeInput(db); /* lets libpq see the connection is gone: CONNECTION_BAD */
    PGresult *r;
    while ((r = PQgetResult(db)) != NULL) {
        PQclear(r);
        if (PQstatus(db) == CONNECTION_BAD)
            break;
    }
}

/* Wait for the answer to what was sent, to the deadline. 0, or LG_ETIMEOUT / LG_EDB in err. */
static int s_wait(PGconn *db, const char *sql, char *err, size_t errlen)
{
    uint32_t ms = lg_db_deadline_ms();
    int64_t end = s_now_ms() + ms;
    for (;;) {
        int f = PQflush(db);
        if (f < 0)
            break;
        if (f == 0 && !PQisBusy(db))
            return 0;
        int64_t left = end - s_now_ms();
        int intr = s_interrupt && *s_interrupt;
        if (left <= 0 || intr) {
            char where[512], what[96];
            s_where(db, NULL, where, sizeof where);
            int more = s_sql_head(sql, what, sizeof what);
            if (intr)
                snprintf(err, errlen, "interrupted while waiting for %s", where);
            else
                snprintf(err, errlen, "%s did not answer within %u s (%s%s)", where,
                         (ms + 999) / 1000, what, more ? "..." : "");
            s_abandon(db);
            return LG_ETIMEOUT;
        }
        struct pollfd p = {.fd = PQsocket(db), .events = POLLIN | (f ? POLLOUT : 0)};
        if (p.fd < 0)
            break;
        int r = poll(&p, 1, left > 100 ? 100 : (int)left);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && PQconsumeInput(db) == 0)
            break;
    }
    snprintf(err, errlen, "%s", PQerrorMessage(db));
    s_one_line(err);
    return LG_EDB;
}

/* The answer to what was sent: the last result (a script's: its last statement's), or its
 * first error. */
static PGresult *s_collect(PGconn *db)
{
    PGresult *r = NULL, *next;
    while ((next = PQgetResult(db)) != NULL) {
        ExecStatusType st = PQresultStatus(next);
        if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH) {
            PQclear(r); /* the COPY is under way: its data comes next (lg_db_copy_put) */
            return next;
        }
        if (r && PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
            PQclear(next); /* keep the first error */
            continue;
        }
        PQclear(r);
        r = next;
    }
    return r;
}

int lg_db_query(PGconn *db, const char *sql, int n, const char *const *params, PGresult **res,
                char *err, size_t errlen)
{
    *res = NULL;
    int sent =
        n < 0 ? PQsendQuery(db, sql) : PQsendQueryParams(db, sql, n, NULL, params, NULL, NULL, 0);
    if (!sent) {
        snprintf(err, errlen, "%s", PQerrorMessage(db));
        s_one_line(err);
        return LG_EDB;
    }
    int wrc = s_wait(db, sql, err, errlen);
    if (wrc)
        return wrc;
    *res = s_collect(db);
    if (!*res) {
        snprintf(err, errlen, "%s", PQerrorMessage(db));
        s_one_line(err);
        return LG_EDB;
    }
    return 0;
}

/* Wait until the socket can take more (POLLOUT) to the deadline end; 0, or LG_ETIMEOUT (the
 * connection shut) / LG_EDB. */
static int s_wait_out(PGconn *db, int64_t end, const char *what, char *err, size_t errlen)
{
    for (;;) {
        int64_t left = end - s_now_ms();
        int intr = s_interrupt && *s_interrupt;
        if (left <= 0 || intr) {
            char where[512];
            s_where(db, NULL, where, sizeof where);
            snprintf(err, errlen, "%s did not take %s within %u s", where, what,
                     (lg_db_deadline_ms() + 999) / 1000);
            s_abandon(db);
            return LG_ETIMEOUT;
        }
        struct pollfd p = {.fd = PQsocket(db), .events = POLLOUT | POLLIN};
        if (p.fd < 0)
            break;
        int r = poll(&p, 1, left > 100 ? 100 : (int)left);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0) {
            if ((p.revents & POLLIN) && PQconsumeInput(db) == 0)
                break;
            if (p.revents & (POLLOUT | POLLERR | POLLHUP))
                return 0;
        }
    }
    snprintf(err, errlen, "%s", PQerrorMessage(db));
    s_one_line(err);
    return LG_EDB;
}

int lg_db_copy_put(PGconn *db, const char *data, size_t len, char *err, size_t errlen)
{
    int64_t end = s_now_ms() + lg_db_deadline_ms();
    int was = PQisnonblocking(db);
    PQsetnonblocking(db, 1);
    int rc = 0;
    size_t off = 0;
    while (rc == 0 && off < len) {
        size_t n = len - off > (64u << 20) ? (64u << 20) : len - off;
        int put = PQputCopyData(db, data + off, (int)n);
        if (put == 1) {
            off += n;
            continue;
        }
        if (put < 0) {
            snprintf(err, errlen, "%s", PQerrorMessage(db));
            s_one_line(err);
            rc = LG_EDB;
            break;
        }
        rc = s_wait_out(db, end, "the COPY's rows", err, errlen); /* 0: it would block */
    }
    /* what libpq still holds goes out too, to the same deadline */
    while (rc == 0) {
        int f = PQflush(db);
        if (f == 0)
            break;
        if (f < 0) {
            snprintf(err, errlen, "%s", PQerrorMessage(db));
            s_one_line(err);
            rc = LG_EDB;
            break;
        }
        rc = s_wait_out(db, end, "the COPY's rows", err, errlen);
    }
    if (PQstatus(db) == CONNECTION_OK)
        PQsetnonblocking(db, was);
    return rc;
}

int lg_db_copy_end(PGconn *db, PGresult **res, char *err, size_t errlen)
{
    *res = NULL;
    int64_t end = s_now_ms() + lg_db_deadline_ms();
    int was = PQisnonblocking(db);
    PQsetnonblocking(db, 1);
    int rc = 0;
    for (;;) {
        int e = PQputCopyEnd(db, NULL);
        if (e == 1)
            break;
        if (e < 0) {
            snprintf(err, errlen, "%s", PQerrorMessage(db));
            s_one_line(err);
            rc = LG_EDB;
            break;
        }
        if ((rc = s_wait_out(db, end, "the COPY's end", err, errlen)) != 0)
            break;
    }
    if (PQstatus(db) == CONNECTION_OK)
        PQsetnonblocking(db, was);
    if (rc == 0)
        rc = s_wait(db, "COPY", err, errlen);
    if (rc == 0)
        *res = s_collect(db);
    return rc;
}

int lg_db_script(PGconn *db, const char *sql, char *err, size_t errlen)
{
    PGresult *r = NULL;
    int rc = lg_db_query(db, sql, -1, NULL, &r, err, errlen);
    if (rc)
        return rc;
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        snprintf(err, errlen, "%s", PQresultErrorMessage(r));
        s_one_line(err);
        rc = LG_EDB;
    }
    PQclear(r);
    return rc;
}

int lg_db_copy_started(const PGresult *res, char *err, size_t errlen)
{
    if (res && PQresultStatus(res) == PGRES_COPY_IN)
        return 1;
    snprintf(err, errlen, "%s",
             !res                                       ? "no answer"
             : PQresultStatus(res) == PGRES_FATAL_ERROR ? PQresultErrorMessage(res)
                                                        : "the statement is not a COPY FROM STDIN");
    s_one_line(err);
    return 0;
}

int lg_db_copy_finish(PGconn *db, char *err, size_t errlen)
{
    char own[512];
    if (!err) {
        err = own;
        errlen = sizeof own;
    }
    PGresult *r = NULL;
    int rc = lg_db_copy_end(db, &r, err, errlen);
    if (rc == 0 && PQresultStatus(r) != PGRES_COMMAND_OK) {
        snprintf(err, errlen, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(db));
        s_one_line(err);
        rc = LG_EDB;
    }
    PQclear(r);
    return rc;
}

/* The rest of a COPY TO STDOUT: rows to sink, to a deadline renewed with each. */
static int s_copy_rows(PGconn *db, int (*sink)(void *, const char *, size_t), void *arg, char *err,
                       size_t errlen)
{
    int64_t end = s_now_ms() + lg_db_deadline_ms();
    for (;;) {
        char *buf = NULL;
        int n = PQgetCopyData(db, &buf, 1);
        if (n > 0) {
            int rc = sink(arg, buf, (size_t)n);
            PQfreemem(buf);
            if (rc) { /* the rest is not wanted: the connection goes, the server rolls back */
                s_abandon(db);
                return rc;
            }
            end = s_now_ms() + lg_db_deadline_ms();
            continue;
        }
        if (n == -1)
            return 0;
        if (n < -1)
            break;
        int64_t left = end - s_now_ms();
        if (left <= 0 || (s_interrupt && *s_interrupt)) {
            char where[512];
            s_where(db, NULL, where, sizeof where);
            snprintf(err, errlen, "%s: %s while copying rows out", where,
                     left <= 0 ? "no data within the deadline" : "interrupted");
            s_abandon(db);
            return LG_ETIMEOUT;
        }
        struct pollfd p = {.fd = PQsocket(db), .events = POLLIN};
        if (p.fd < 0)
            break;
        int r = poll(&p, 1, left > 100 ? 100 : (int)left);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && PQconsumeInput(db) == 0)
            break;
    }
    snprintf(err, errlen, "%s", PQerrorMessage(db));
    s_one_line(err);
    return LG_EDB;
}

int lg_db_copy_out(PGconn *db, const char *sql, int (*sink)(void *arg, const char *buf, size_t n),
                   void *arg, char *err, size_t errlen)
{
    PGresult *r = NULL;
    int rc = lg_db_query(db, sql, 0, NULL, &r, err, errlen);
    if (rc)
        return rc;
    if (PQresultStatus(r) != PGRES_COPY_OUT) {
        snprintf(err, errlen, "%s",
                 PQresultStatus(r) == PGRES_FATAL_ERROR ? PQresultErrorMessage(r)
                                                        : "the statement is not a COPY TO STDOUT");
        s_one_line(err);
        PQclear(r);
        return LG_EDB;
    }
    PQclear(r);
    rc = s_copy_rows(db, sink, arg, err, errlen);
    if (rc)
        return rc;
    /* the COPY's own result */
    while ((r = PQgetResult(db)) != NULL) {
        if (rc == 0 && PQresultStatus(r) != PGRES_COMMAND_OK) {
            snprintf(err, errlen, "%s", PQresultErrorMessage(r));
            s_one_line(err);
            rc = LG_EDB;
        }
        PQclear(r);
    }
    return rc;
}

int lg_db_exec(PGconn *db, const char *sql, int n, const char *const *params, PGresult **out,
               char *err, size_t errlen)
{
    PGresult *r = NULL;
    int wrc = lg_db_query(db, sql, n, params, &r, err, errlen);
    if (wrc)
        return wrc;
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        snprintf(err, errlen, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(db));
        s_one_line(err);
        PQclear(r);
        return LG_EDB;
    }
    if (out)
        *out = r;
    else
        PQclear(r);
    return 0;
}

int lg_db_end(PGconn *db, int rc, char *err, size_t errlen)
{
    if (rc == 0)
        rc = lg_db_exec(db, "COMMIT", 0, NULL, NULL, err, errlen);
    if (rc) {
        char ignore[64];
        lg_db_exec(db, "ROLLBACK", 0, NULL, NULL, ignore, sizeof ignore);
    }
    return rc;
}

/* Append with growth; returns 0 or -1 on allocation failure. */
static int s_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap : 256);
        while (nc < *len + n + 1)
            nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

char *lg_db_hist_json(const lg_hist_t *h)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (s_append(&buf, &len, &cap, "{", 1))
        return NULL;
    int first = 1;
    for (unsigned i = 0; i < LG_HIST_NR; i++) {
        if (!h->bins[i])
            continue;
        char item[64];
        int n = snprintf(item, sizeof item, "%s\"%u\":%llu", first ? "" : ",", i,
                         (unsigned long long)h->bins[i]);
        first = 0;
        if (s_append(&buf, &len, &cap, item, (size_t)n)) {
            free(buf);
            return NULL;
        }
    }
    if (s_append(&buf, &len, &cap, "}", 1)) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *lg_db_pct_json(const lg_hist_t *h)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (s_append(&buf, &len, &cap, "{", 1))
        return NULL;
    for (int i = 0; i < LG_NPCT; i++) {
        char item[80];
        int n = snprintf(item, sizeof item, "%s\"%f\":%llu", i ? "," : "", lg_pct_list[i],
                         (unsigned long long)lg_hist_percentile(h, lg_pct_list[i]));
        if (s_append(&buf, &len, &cap, item, (size_t)n)) {
            free(buf);
            return NULL;
        }
    }
    if (s_append(&buf, &len, &cap, "}", 1)) {
        free(buf);
        return NULL;
    }
    return buf;
}

void lg_db_campaign_names(PGconn *db, char *buf, size_t len)
{
    PGresult *r = NULL;
    char err[256];
    buf[0] = 0;
    if (lg_db_exec(db,
                   "SELECT string_agg(name, ', ' ORDER BY newest DESC) AS names FROM"
                   " (SELECT name, max(campaign_id) AS newest FROM lg.v_campaign GROUP BY name"
                   "  ORDER BY newest DESC LIMIT 20) n",
                   0, NULL, &r, err, sizeof err) == 0 &&
        PQntuples(r) == 1)
        lg_strlcpy(buf, lg_db_get(r, 0, lg_db_col(r, "names")), len);
    PQclear(r);
}

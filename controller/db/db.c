/* db.c: libpq helpers. */
#include "db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_util.h"

PGconn *lg_db_connect(const char *conninfo, char *err, size_t errlen)
{
    PGconn *db = PQconnectdb(conninfo);
    if (!db) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (PQstatus(db) != CONNECTION_OK) {
        snprintf(err, errlen, "%s", PQerrorMessage(db));
        err[strcspn(err, "\n")] = 0;
        PQfinish(db);
        return NULL;
    }
    PGresult *r = PQexec(db, "SET client_min_messages = warning");
    PQclear(r);
    return db;
}

int lg_db_exec(PGconn *db, const char *sql, int n, const char *const *params, PGresult **out,
               char *err, size_t errlen)
{
    PGresult *r = PQexecParams(db, sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        snprintf(err, errlen, "%s", PQresultErrorMessage(r));
        /* One line for the log: libpq's messages come with newlines and tabs. */
        for (char *c = err; *c; c++)
            if (*c == '\n' || *c == '\t')
                *c = ' ';
        size_t l = strlen(err);
        while (l && err[l - 1] == ' ')
            err[--l] = 0;
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
                   "SELECT string_agg(name, ', ' ORDER BY newest DESC) FROM"
                   " (SELECT name, max(campaign_id) AS newest FROM lg.v_campaign GROUP BY name"
                   "  ORDER BY newest DESC LIMIT 20) n",
                   0, NULL, &r, err, sizeof err) == 0 &&
        PQntuples(r) == 1)
        lg_strlcpy(buf, PQgetvalue(r, 0, 0), len);
    PQclear(r);
}


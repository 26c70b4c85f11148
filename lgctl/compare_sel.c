/* compare_sel.c: what lgctl compare, compare --sweep and rank share: the selection (--where,
 * --metric, --campaign, --ignore, --threshold) as the queries' parameters, the queries and their
 * usage errors, the cells (a figure with its 95% interval, a change's CI and p-value, a load),
 * the notes on the noise, and what is said when nothing matches. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "db.h"
#include "lg_error.h"
#include "lg_util.h"

void lg__cmp_sel_clear(lg__cmp_sel_t *s)
{
    free(s->where);
    free(s->campaigns);
    free(s->metrics);
    free(s->ignore);
    memset(s, 0, sizeof *s);
}

/* "a,b,c" as a JSON array of strings; empty items are refused. */
static int s_list(const char *opt, const char *text, char **out, char *err, size_t errlen)
{
    json_t *a = json_array();
    char buf[4096];
    lg_strlcpy(buf, text, sizeof buf);
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        if (!*item) {
            snprintf(err, errlen, "%s: an empty item in \"%s\"", opt, text);
            json_decref(a);
            return LG_EPARSE;
        }
        json_array_append_new(a, json_string(item));
    }
    *out = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return *out ? 0 : -ENOMEM;
}

/* "tps,lat_p99_ms" -> "tps,p99_ms": lat_pNN_ms is another name of pNN_ms. */
static void s_metric_aliases(const char *text, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = text; *p && o + 1 < len;) {
        if ((p == text || p[-1] == ',') && !strncmp(p, "lat_p", 5) && p[5] >= '0' && p[5] <= '9')
            p += 4; /* "lat_p99_ms": from "p99_ms" */
        out[o++] = *p++;
    }
    out[o] = 0;
}

/* --threshold PCT: a percentage from 0 to 100, "5" or "5%". */
static int s_threshold(const char *text, lg__cmp_sel_t *s, char *err, size_t errlen)
{
    s->threshold = 0;
    if (text) {
        char *end = NULL;
        errno = 0;
        double v = strtod(text, &end);
        if (end && *end == '%')
            end++;
        if (end == text || !end || *end || errno || !isfinite(v) || v < 0 || v > 100) {
            snprintf(err, errlen, "--threshold: \"%s\" is not a percentage from 0 to 100", text);
            return LG_EPARSE;
        }
        s->threshold = v;
    }
    snprintf(s->threshold_sql, sizeof s->threshold_sql, "%.17g", s->threshold);
    return 0;
}

int lg__cmp_sel(const lg_compare_opts_t *o, lg__cmp_sel_t *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (s_threshold(o->threshold, s, err, errlen) != 0)
        return LG_EPARSE;
    json_t *w = json_object();
    char buf[4096];
    lg_strlcpy(buf, o->where ? o->where : "", sizeof buf);
    for (char *item = buf, *next; *item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        else
            next = item + strlen(item);
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) {
            snprintf(err, errlen, "--where: \"%s\" is not KEY=VALUE", item);
            json_decref(w);
            return LG_EPARSE;
        }
        *eq = 0;
        json_object_set_new(w, item, json_string(eq + 1));
    }
    s->where = json_dumps(w, JSON_COMPACT);
    json_decref(w);
    /* Reviews write a transaction workload's latency percentiles as lat_p99_ms: the same
     * figures as p99_ms. */
    char metrics[4096];
    s_metric_aliases(o->metrics ? o->metrics : "iops", metrics, sizeof metrics);
    int rc = s_list("--metric", metrics, &s->metrics, err, errlen);
    if (rc == 0 && o->campaigns)
        rc = s_list("--campaign", o->campaigns, &s->campaigns, err, errlen);
    if (rc == 0 && o->ignore)
        rc = s_list("--ignore", o->ignore, &s->ignore, err, errlen);
    if (rc == 0 && !s->where)
        rc = -ENOMEM;
    if (rc)
        lg__cmp_sel_clear(s);
    return rc;
}

/* Like lg_db_exec (db/'s deadline and Ctrl-C: lg_db_query), but an invalid_parameter_value
 * raised by lg.check_args / lg.compare (unknown dimension, metric, baseline) is the caller's usage
 * error: LG_EPARSE, message and hint. */
int lg__cmp_query(PGconn *db, const char *sql, int n, const char *const *params, PGresult **out,
                  char *err, size_t errlen)
{
    PGresult *r = NULL;
    int wrc = lg_db_query(db, sql, n, params, &r, err, errlen);
    if (wrc)
        return wrc;
    if (lg_db_result_tuples(r)) {
        *out = r;
        return 0;
    }
    lg_db_error_t e;
    lg_db_result_error(r, &e);
    int usage = strcmp(e.sqlstate, "22023") == 0; /* invalid_parameter_value */
    if (usage)
        snprintf(err, errlen, "%s%s%s", e.message[0] ? e.message : "bad selection",
                 e.hint[0] ? "; " : "", e.hint);
    else
        snprintf(err, errlen, "%s", lg_db_result_message(r));
    err[strcspn(err, "\n")] = 0;
    lg_db_result_destroy(&r);
    return usage ? LG_EPARSE : LG_EDB;
}

/* Every name in the selection exists (lg.check_args): errors before any figure is read. */
int lg__cmp_check(PGconn *db, const char *dimension, const lg__cmp_sel_t *s, char *err,
                  size_t errlen)
{
    const char *p[3] = {dimension, s->metrics, s->where};
    PGresult *r = NULL;
    int rc = lg__cmp_query(db,
                           "SELECT lg.check_args($1, m, $3::jsonb)"
                           " FROM jsonb_array_elements_text($2::jsonb) m",
                           3, p, &r, err, errlen);
    if (rc == 0)
        lg_db_result_destroy(&r);
    return rc;
}

/* A non-negative integer column (n, threads, qd, rank): strictly parsed; 0 if not one. */
int lg__cmp_int(PGresult *r, int row, int col)
{
    uint64_t v;
    return lg_parse_u64(lg_db_get(r, row, col), 0, INT32_MAX, &v) == 0 ? (int)v : 0;
}

/* The value, NULL for SQL's NULL (col from lg_db_col: -1 reads as NULL). */
const char *lg__cmp_null(PGresult *r, int row, int col)
{
    return lg_db_isnull(r, row, col) ? NULL : lg_db_get(r, row, col);
}

/* A figure for people: IOPS to 0.1, MB/s to 0.01, ms to 0.001. */
void lg__cmp_fig(char *buf, size_t len, const char *unit, const char *v)
{
    if (!v) {
        snprintf(buf, len, "missing");
        return;
    }
    double d = strtod(v, NULL);
    snprintf(buf, len, !strcmp(unit, "ms") ? "%.3f" : !strcmp(unit, "MB/s") ? "%.2f" : "%.1f", d);
}

/* A select list from an X-macro table of (column id, name, SQL expression): each expression
 * "AS" its name, and a row is read by name: the ids index the columns lg_db_cols finds once per
 * result (never a position). Returns buf. */
const char *lg__cmp_select_list(const char *const *exprs, size_t n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", exprs[i]);
    return buf;
}

/* The half-width of a row's 95% interval as a figure ("210.3", the figure's own precision), or
 * NULL when it has none. */
const char *lg__cmp_half(char *buf, size_t len, const char *unit, const char *lo, const char *hi)
{
    if (!lo || !hi)
        return NULL;
    char v[64];
    snprintf(v, sizeof v, "%.17g", (strtod(hi, NULL) - strtod(lo, NULL)) / 2);
    lg__cmp_fig(buf, len, unit, v);
    return buf;
}

/* A p-value as people read it: two significant digits, "<0.0001" below that. */
void lg__cmp_p(char *buf, size_t len, const char *p)
{
    double v = strtod(p, NULL);
    if (v < 1e-4)
        snprintf(buf, len, "p<0.0001");
    else
        snprintf(buf, len, "p=%.2g", v);
}

/* The load of a row: "16T8Q" (threads x queue depth per agent), for an application benchmark's
 * transactions (direction txn, qd 1) "16 clients"; "-" when the figures do not say. */
void lg__cmp_load_cell(lg_tbl_t *t, const char *dir, const char *threads, const char *qd)
{
    if (threads && dir && strcmp(dir, "txn") == 0)
        lg_tbl_add(t, 0, "%s clients", threads);
    else if (threads && qd)
        lg_tbl_add(t, 0, "%sT%sQ", threads, qd);
    else
        lg_tbl_add(t, 0, "-");
}

/* After a change written into buf (o bytes): in markdown the difference's CI and p-value; an
 * untested difference (no CI on one side) gets " *". Returns 1 for that mark. */
int lg__cmp_ci_suffix(char *buf, size_t len, size_t o, int md, const char *p, const char *lo,
                      const char *hi, const char *status)
{
    if (md && p && lo && hi && o < len) {
        char pv[32];
        lg__cmp_p(pv, sizeof pv, p);
        snprintf(buf + o, len - o, " [95%% CI %+.1f%% to %+.1f%%, %s]", strtod(lo, NULL),
                 strtod(hi, NULL), pv);
    } else if (!p && strcmp(status, "same") != 0 && o < len) {
        snprintf(buf + o, len - o, " *");
        return 1;
    }
    return 0;
}

/* A value cell: the figure, "±" the half-width of its 95% interval when it has one, and n when
 * it is a mean: "10000.0 ±745.2 (n=3)". */
void lg__cmp_value_cell(lg_tbl_t *t, int tone, const char *unit, PGresult *r, int row, int ccol,
                        int lcol, int hcol, int ncol, int qd_short)
{
    char fig[64], half[64];
    lg__cmp_fig(fig, sizeof fig, unit, lg__cmp_null(r, row, ccol));
    const char *h = lg__cmp_half(half, sizeof half, unit, lg__cmp_null(r, row, lcol),
                                 lg__cmp_null(r, row, hcol));
    int n = lg__cmp_int(r, row, ncol);
    char ns[32] = "";
    if (n > 1)
        snprintf(ns, sizeof ns, " (n=%d)", n);
    lg_tbl_add(t, tone, "%s%s%s%s%s", fig, h ? " \u00b1" : "", h ? h : "", ns,
               qd_short ? " !" : "");
}

/* The heading's account of the noise. */
void lg__cmp_noise_note(char *buf, size_t len, double threshold, int rank)
{
    char thr[64] = "";
    if (threshold > 0)
        snprintf(thr, sizeof thr, ", or under %g%%", threshold);
    snprintf(buf, len,
             "\u00b1: 95%% CI of the mean (of n figures where n > 1; of one run: from batch means "
             "of its seconds); ~: %s%s",
             rank ? "behind the leader by no more than the noise (the gap's 95% CI includes 0)"
                  : "a difference within the noise (its 95% CI includes 0)",
             thr);
}

int lg__cmp_short(PGresult *r, int row, int col)
{
    return lg_db_get(r, row, col)[0] == 't';
}

const char lg__cmp_untested_note[] =
    "* not tested against noise: one side has no CI (an imported figure, a run shorter than "
    "10 s, or a metric other than IOPS, MB/s, average latency, TPS and QPS of a single run)\n";

/* Nothing matched: say which filter matched nothing and what there is instead. Always returns
 * LG_ENOTFOUND (exit 1) with err set. */
int lg__cmp_no_match(PGconn *db, const lg__cmp_sel_t *s, const char *metric, char *err,
                     size_t errlen)
{
    PGresult *r = NULL;
    char e2[256];
    /* a campaign that is not there */
    json_t *cs = s->campaigns ? json_loads(s->campaigns, 0, NULL) : NULL;
    size_t i;
    json_t *c;
    json_array_foreach(cs, i, c)
    {
        const char *p[1] = {json_string_value(c)};
        int found = 0, qrc = 0;
        if (p[0] &&
            (qrc = lg_db_exec(
                 db, "SELECT 1 FROM lg.v_campaign WHERE name = $1 OR campaign_id::text = $1", 1, p,
                 &r, e2, sizeof e2)) == 0)
            found = lg_db_nrows(r) > 0;
        lg_db_result_destroy(&r);
        if (qrc) { /* the question failed: said as such, not as a campaign that is not there */
            snprintf(err, errlen, "%s", e2);
            json_decref(cs);
            return qrc;
        }
        if (p[0] && !found) {
            char names[1024];
            lg_db_campaign_names(db, names, sizeof names);
            snprintf(err, errlen, "--campaign: no campaign named \"%s\"; campaigns: %s", p[0],
                     names[0] ? names : "(none yet)");
            json_decref(cs);
            return LG_ENOTFOUND;
        }
    }
    json_decref(cs);
    /* a --where value that is not among the figures (of these campaigns, this metric) */
    json_t *w = json_loads(s->where, 0, NULL);
    const char *k;
    json_t *v;
    json_object_foreach(w, k, v)
    {
        const char *p[4] = {k, json_string_value(v), metric, s->campaigns};
        int qrc;
        if ((qrc = lg_db_exec(
                 db,
                 "WITH f AS (SELECT CASE WHEN $1 = 'campaign' THEN m.campaign"
                 "   ELSE (m.labels || jsonb_build_object('protocol', m.protocol, 'profile',"
                 "   m.profile, 'direction', m.direction, 'threads', m.threads, 'qd', m.qd))"
                 "   ->> $1 END AS val FROM lg.v_metric m WHERE m.metric = $3"
                 "   AND ($4::jsonb IS NULL OR m.campaign IN"
                 "     (SELECT jsonb_array_elements_text($4::jsonb))"
                 "   OR m.campaign_id::text IN (SELECT jsonb_array_elements_text($4::jsonb))))"
                 " SELECT bool_or(val = $2) AS matched,"
                 " string_agg(DISTINCT val, ', ') AS vals FROM f",
                 4, p, &r, e2, sizeof e2)) == 0 &&
            lg_db_nrows(r) == 1 && lg_db_get(r, 0, lg_db_col(r, "matched"))[0] != 't') {
            const char *vals = lg_db_get(r, 0, lg_db_col(r, "vals"));
            snprintf(err, errlen, "--where %s=%s matches nothing: %s has %s%s", k,
                     json_string_value(v), k, vals[0] ? "the values " : "no values here", vals);
            lg_db_result_destroy(&r);
            json_decref(w);
            return LG_ENOTFOUND;
        }
        lg_db_result_destroy(&r);
        if (qrc) {
            snprintf(err, errlen, "%s", e2);
            json_decref(w);
            return qrc;
        }
    }
    json_decref(w);
    snprintf(err, errlen,
             "no figures of %s match the selection together (each filter alone "
             "matches some)",
             metric);
    return LG_ENOTFOUND;
}

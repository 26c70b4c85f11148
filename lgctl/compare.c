/* compare.c: lgctl compare / compare --sweep / rank. The figures, the pairing with the
 * baseline, the mean of repeats, the confidence intervals, the tests and the verdicts all come
 * from SQL (schema/007_compare.sql, 017_compare_noise.sql), so what lgctl prints and what a
 * reviewer SELECTs are the same numbers; this file only pivots the rows (one line per
 * combination, one column per value) and formats them. */
#include "compare.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "hostcpu.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_util.h"
#include "report.h"
#include "table.h"

/* ---- the selection, and the queries ---- */

typedef struct {
    char *where;            /* {"k": "v"} */
    char *campaigns;        /* ["a", "b"] or NULL */
    char *metrics;          /* ["iops"] */
    char *ignore;           /* ["build"] or NULL */
    double threshold;       /* percent */
    char threshold_sql[32]; /* the same, as the query's parameter */
} sel_t;

static int s_no_match(PGconn *db, const sel_t *s, const char *metric, char *err, size_t errlen);

static void s_sel_free(sel_t *s)
{
    free(s->where);
    free(s->campaigns);
    free(s->metrics);
    free(s->ignore);
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
static int s_threshold(const char *text, sel_t *s, char *err, size_t errlen)
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

static int s_sel(const lg_compare_opts_t *o, sel_t *s, char *err, size_t errlen)
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
        s_sel_free(s);
    return rc;
}

/* Like lg_db_exec, but an invalid_parameter_value raised by lg.check_args / lg.compare (unknown
 * dimension, metric, baseline) is the caller's usage error: LG_EPARSE, message and hint. */
static int s_query(PGconn *db, const char *sql, int n, const char *const *params, PGresult **out,
                   char *err, size_t errlen)
{
    PGresult *r = PQexecParams(db, sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_TUPLES_OK) {
        *out = r;
        return 0;
    }
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    const char *hint = PQresultErrorField(r, PG_DIAG_MESSAGE_HINT);
    int usage = state && strcmp(state, "22023") == 0;
    if (usage)
        snprintf(err, errlen, "%s%s%s", msg ? msg : "bad selection", hint ? "; " : "",
                 hint ? hint : "");
    else
        snprintf(err, errlen, "%s", PQresultErrorMessage(r));
    err[strcspn(err, "\n")] = 0;
    PQclear(r);
    return usage ? LG_EPARSE : LG_EDB;
}

/* Every name in the selection exists (lg.check_args): errors before any figure is read. */
static int s_check(PGconn *db, const char *dimension, const sel_t *s, char *err, size_t errlen)
{
    const char *p[3] = {dimension, s->metrics, s->where};
    PGresult *r = NULL;
    int rc = s_query(db,
                     "SELECT lg.check_args($1, m, $3::jsonb)"
                     " FROM jsonb_array_elements_text($2::jsonb) m",
                     3, p, &r, err, errlen);
    if (rc == 0)
        PQclear(r);
    return rc;
}

/* A non-negative integer column (n, threads, qd, rank): strictly parsed; 0 if not one. */
static int s_int(PGresult *r, int row, int col)
{
    uint64_t v;
    return lg_parse_u64(lg_db_get(r, row, col), 0, INT32_MAX, &v) == 0 ? (int)v : 0;
}

/* The value, NULL for SQL's NULL (col from lg_db_col: -1 reads as NULL). */
static const char *s_null(PGresult *r, int row, int col)
{
    return lg_db_isnull(r, row, col) ? NULL : lg_db_get(r, row, col);
}

/* A figure for people: IOPS to 0.1, MB/s to 0.01, ms to 0.001. */
static void s_fig(char *buf, size_t len, const char *unit, const char *v)
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
static const char *s_select_list(const char *const *exprs, size_t n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", exprs[i]);
    return buf;
}
#define COL_ENUM(id, name, expr) id,
#define COL_NAME(id, name, expr) name,
#define COL_EXPR(id, name, expr) expr " AS " name,

/* The half-width of a row's 95% interval as a figure ("210.3", the figure's own precision), or
 * NULL when it has none. */
static const char *s_half(char *buf, size_t len, const char *unit, const char *lo, const char *hi)
{
    if (!lo || !hi)
        return NULL;
    char v[64];
    snprintf(v, sizeof v, "%.17g", (strtod(hi, NULL) - strtod(lo, NULL)) / 2);
    s_fig(buf, len, unit, v);
    return buf;
}

/* A p-value as people read it: two significant digits, "<0.0001" below that. */
static void s_p(char *buf, size_t len, const char *p)
{
    double v = strtod(p, NULL);
    if (v < 1e-4)
        snprintf(buf, len, "p<0.0001");
    else
        snprintf(buf, len, "p=%.2g", v);
}

/* The load of a row: "16T8Q" (threads x queue depth per agent), for an application benchmark's
 * transactions (direction txn, qd 1) "16 clients"; "-" when the figures do not say. */
static void s_load_cell(lg_tbl_t *t, const char *dir, const char *threads, const char *qd)
{
    if (threads && dir && strcmp(dir, "txn") == 0)
        lg_tbl_add(t, 0, "%s clients", threads);
    else if (threads && qd)
        lg_tbl_add(t, 0, "%sT%sQ", threads, qd);
    else
        lg_tbl_add(t, 0, "-");
}

/* ---- lgctl compare --by ---- */

#define CMP_COLS(X)                                                                                \
    X(C_METRIC, "metric", "u.metric")                                                              \
    X(C_UNIT, "unit", "m.unit")                                                                    \
    X(C_HIB, "higher_is_better", "m.higher_is_better")                                             \
    X(C_PROFILE, "profile", "c.profile")                                                           \
    X(C_DIR, "direction", "c.direction")                                                           \
    X(C_PROTO, "protocol", "c.protocol")                                                           \
    X(C_THREADS, "threads", "c.threads")                                                           \
    X(C_QD, "qd", "c.qd")                                                                          \
    X(C_LABELS, "labels", "c.labels::text")                                                        \
    X(C_DV, "dim_value", "c.dim_value")                                                            \
    X(C_VALUE, "value", "c.value")                                                                 \
    X(C_N, "n", "c.n")                                                                             \
    X(C_BASE, "baseline_value", "c.baseline_value")                                                \
    X(C_PCT, "pct", "c.pct")                                                                       \
    X(C_RATIO, "ratio", "c.ratio")                                                                 \
    X(C_STATUS, "status", "c.status")                                                              \
    X(C_KEY, "key", "c.key::text")                                                                 \
    X(C_CI_LOW, "ci_low", "c.ci_low")                                                              \
    X(C_CI_HIGH, "ci_high", "c.ci_high")                                                           \
    X(C_CI_METHOD, "ci_method", "c.ci_method")                                                     \
    X(C_P, "p_value", "c.p_value")                                                                 \
    X(C_DIFF_LOW, "diff_ci_low_pct", "c.diff_ci_low_pct")                                          \
    X(C_DIFF_HIGH, "diff_ci_high_pct", "c.diff_ci_high_pct")                                       \
    X(C_CHANGE, "change", "c.change")                                                              \
    X(C_SHORT, "qd_short", "coalesce(sh.short, false)")                                            \
    X(C_BSHORT, "baseline_qd_short",                                                               \
      "coalesce(bool_or(sh.short) FILTER (WHERE c.status = 'baseline')"                            \
      " OVER (PARTITION BY u.metric, c.key), false)")

enum { CMP_COLS(COL_ENUM) C_NCOLS };
static const char *const s_cmp_names[C_NCOLS] = {CMP_COLS(COL_NAME)};
static const char *const s_cmp_exprs[C_NCOLS] = {CMP_COLS(COL_EXPR)};

static const char *const s_std_labels[] = {"build", "media", "pool", "compression", "dedup", "nic"};

static int s_label_rank(const char *k)
{
    for (int i = 0; i < 6; i++)
        if (strcmp(k, s_std_labels[i]) == 0)
            return i;
    return 6;
}

static int s_label_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int rx = s_label_rank(x), ry = s_label_rank(y);
    return rx != ry ? rx - ry : strcmp(x, y);
}

/* The label keys of rows [from, to) (NULL-terminated, ordered build, media, ... then by name).
 * Caller frees the array (not the strings, which live in keys). */
static const char **s_label_keys(PGresult *r, const int *col, int from, int to, json_t *keys)
{
    for (int i = from; i < to; i++) {
        json_t *l = json_loads(lg_db_get(r, i, col[C_LABELS]), 0, NULL);
        const char *k;
        json_t *v;
        json_object_foreach(l, k, v) json_object_set_new(keys, k, json_true());
        json_decref(l);
    }
    size_t n = json_object_size(keys), i = 0;
    const char **out = calloc(n + 1, sizeof *out);
    if (!out)
        return NULL;
    const char *k;
    json_t *v;
    json_object_foreach(keys, k, v) out[i++] = k;
    qsort(out, n, sizeof *out, s_label_cmp);
    return out;
}

/* Rows of one combination: [i, end) share metric and key. */
static int s_group_end(PGresult *r, const int *col, int i)
{
    int e = i + 1;
    while (e < PQntuples(r) &&
           !strcmp(lg_db_get(r, e, col[C_METRIC]), lg_db_get(r, i, col[C_METRIC])) &&
           !strcmp(lg_db_get(r, e, col[C_KEY]), lg_db_get(r, i, col[C_KEY])))
        e++;
    return e;
}

/* The change of a row against the baseline, as the table and markdown show it: "~ (+1.2%)" when
 * SQL found no difference beyond the noise or the threshold, "+10.2% 1.10x better" (latency:
 * "10.0% lower latency 0.90x better") when it did, with " *" when it could not test (no interval
 * on one side). Markdown adds the difference's 95% interval and the p-value. Returns 1 for an
 * untested difference. */

/* After a change written into buf (o bytes): in markdown the difference's CI and p-value; an
 * untested difference (no CI on one side) gets " *". Returns 1 for that mark. */
static int s_ci_suffix(char *buf, size_t len, size_t o, int md, const char *p, const char *lo,
                       const char *hi, const char *status)
{
    if (md && p && lo && hi && o < len) {
        char pv[32];
        s_p(pv, sizeof pv, p);
        snprintf(buf + o, len - o, " [95%% CI %+.1f%% to %+.1f%%, %s]", strtod(lo, NULL),
                 strtod(hi, NULL), pv);
    } else if (!p && strcmp(status, "same") != 0 && o < len) {
        snprintf(buf + o, len - o, " *");
        return 1;
    }
    return 0;
}

static int s_change(char *buf, size_t len, int hib, PGresult *r, const int *col, int row,
                    int md)
{
    const char *status = lg_db_get(r, row, col[C_STATUS]), *pct = s_null(r, row, col[C_PCT]);
    const char *ratio = s_null(r, row, col[C_RATIO]), *p = s_null(r, row, col[C_P]);
    if (!strcmp(status, "missing") || !strcmp(status, "no baseline") || !pct || !ratio) {
        snprintf(buf, len, "%s", !strcmp(status, "missing") ? "missing" : "no baseline");
        return 0;
    }
    double d = strtod(pct, NULL), x = strtod(ratio, NULL);
    size_t o;
    if (!strcmp(status, "same"))
        o = (size_t)snprintf(buf, len, "~ (%+.1f%%)", d);
    else if (hib)
        o = (size_t)snprintf(buf, len, "%+.1f%% %.2fx %s", d, x, status);
    else
        o = (size_t)snprintf(buf, len, "%.1f%% %s latency %.2fx %s", d < 0 ? -d : d,
                             d <= 0 ? "lower" : "higher", x, status);
    const char *lo = s_null(r, row, col[C_DIFF_LOW]), *hi = s_null(r, row, col[C_DIFF_HIGH]);
    return s_ci_suffix(buf, len, o, md, p, lo, hi, status);
}

static int s_tone(const char *status)
{
    return !strcmp(status, "better")    ? 1
           : !strcmp(status, "worse")   ? -1
           : !strcmp(status, "missing") ? 2
                                        : 0;
}

/* A value cell: the figure, "±" the half-width of its 95% interval when it has one, and n when
 * it is a mean: "10000.0 ±745.2 (n=3)". */
static void s_value_cell(lg_tbl_t *t, int tone, const char *unit, PGresult *r, int row, int ccol,
                         int lcol, int hcol, int ncol, int qd_short)
{
    char fig[64], half[64];
    s_fig(fig, sizeof fig, unit, s_null(r, row, ccol));
    const char *h = s_half(half, sizeof half, unit, s_null(r, row, lcol), s_null(r, row, hcol));
    int n = s_int(r, row, ncol);
    char ns[32] = "";
    if (n > 1)
        snprintf(ns, sizeof ns, " (n=%d)", n);
    lg_tbl_add(t, tone, "%s%s%s%s%s", fig, h ? " \u00b1" : "", h ? h : "", ns,
               qd_short ? " !" : "");
}

/* The heading's account of the noise. */
static void s_noise_note(char *buf, size_t len, double threshold, int rank)
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

/* A figure of a run that kept under half its queue depth in flight (lg.run.qd_short, from
 * fio's iodepth_level: 021_qd_achieved), and any change measured against one. */
static const char s_short_note[] =
    "! ran far below its queue depth: a run behind this figure kept under half the requested "
    "I/Os in flight per job (fio's iodepth_level), so the two sides were not the same load\n";

static const char s_rank_short_note[] =
    "! ran far below its queue depth: a run this figure rests on kept under half the requested "
    "I/Os in flight per job (fio's iodepth_level), so it was not the same load as the figures "
    "ranked with it\n";

static int s_short(PGresult *r, int row, int col)
{
    return lg_db_get(r, row, col)[0] == 't';
}

static const char s_untested_note[] =
    "* not tested against noise: one side has no CI (an imported figure, a run shorter than "
    "10 s, or a metric other than IOPS, MB/s, average latency, TPS and QPS of a single run)\n";

/* Rows [from, to) of one metric as the people's table (table and markdown formats). */
static void s_compare_section(PGresult *r, const int *col, int from, int to,
                              const lg_compare_opts_t *o, double threshold, FILE *out)
{
    const char *unit = lg_db_get(r, from, col[C_UNIT]);
    int hib = lg_db_get(r, from, col[C_HIB])[0] == 't', md = o->format == LG_FMT_MARKDOWN;
    int nvals = s_group_end(r, col, from) - from, untested = 0, shorts = 0;
    json_t *kobj = json_object();
    const char **labels = s_label_keys(r, col, from, to, kobj);
    size_t nl = 0;
    while (labels && labels[nl])
        nl++;
    char note[512];
    s_noise_note(note, sizeof note, threshold, 0);
    char dim[256], base[1024]; /* a label's name and value: maybe older than the spec's checks */
    fprintf(out, "%s%s (%s, %s is better) by %s, baseline %s%s\n%s\n%s", md ? "**" : "",
            lg_db_get(r, from, col[C_METRIC]), unit, hib ? "higher" : "lower",
            lg_esc_ctrl(o->dimension, dim, sizeof dim),
            lg_esc_ctrl(lg_db_get(r, from, col[C_DV]), base, sizeof base), md ? "**\n" : "", note,
            md ? "\n" : "");
    lg_tbl_t t = {.ncols = 4 + nl + (size_t)(2 * nvals - 1)};
    lg_tbl_add(&t, 0, "profile");
    lg_tbl_add(&t, 0, "dir");
    lg_tbl_add(&t, 0, "protocol");
    lg_tbl_add(&t, 0, "load");
    for (size_t k = 0; k < nl; k++)
        lg_tbl_add(&t, 0, "%s", labels[k]);
    for (int v = 0; v < nvals; v++) {
        lg_tbl_add(&t, 0, "%s=%s", o->dimension, lg_db_get(r, from + v, col[C_DV]));
        if (v)
            lg_tbl_add(&t, 0, "vs %s", lg_db_get(r, from, col[C_DV]));
    }
    for (int i = from; i < to; i = s_group_end(r, col, i)) {
        const char *th = s_null(r, i, col[C_THREADS]), *qd = s_null(r, i, col[C_QD]);
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_PROFILE]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_DIR]));
        lg_tbl_add(&t, 0, "%s", s_null(r, i, col[C_PROTO]) ? lg_db_get(r, i, col[C_PROTO]) : "-");
        s_load_cell(&t, s_null(r, i, col[C_DIR]), th, qd);
        json_t *l = json_loads(lg_db_get(r, i, col[C_LABELS]), 0, NULL);
        for (size_t k = 0; k < nl; k++) {
            const char *s = json_string_value(json_object_get(l, labels[k]));
            lg_tbl_add(&t, 0, "%s", s ? s : "-");
        }
        json_decref(l);
        for (int v = 0; v < nvals && i + v < to; v++) {
            int row = i + v;
            char chg[192];
            const char *status = lg_db_get(r, row, col[C_STATUS]);
            s_value_cell(&t, s_tone(status) == 2 ? 2 : 0, unit, r, row, col[C_VALUE],
                         col[C_CI_LOW], col[C_CI_HIGH], col[C_N], s_short(r, row, col[C_SHORT]));
            if (v) {
                untested |= s_change(chg, sizeof chg, hib, r, col, row, md);
                int pair_short = s_short(r, row, col[C_SHORT]) || s_short(r, row, col[C_BSHORT]);
                shorts |= pair_short || s_short(r, row, col[C_SHORT]);
                lg_tbl_add(&t, s_tone(status), "%s%s", chg, pair_short ? " !" : "");
            } else {
                shorts |= s_short(r, row, col[C_SHORT]);
            }
        }
    }
    lg_tbl_print(&t, o->format, o->colour, 4 + nl, out);
    if (untested)
        fprintf(out, md ? "\n\\%s" : "%s", s_untested_note);
    if (shorts)
        fprintf(out, md ? "\n\\%s" : "%s", s_short_note);
    fputc('\n', out);
    lg_tbl_free(&t);
    free(labels);
    json_decref(kobj);
}

static json_t *s_num(PGresult *r, int row, int col)
{
    return lg_db_isnull(r, row, col) ? json_null()
                                     : json_real(strtod(lg_db_get(r, row, col), NULL));
}

static json_t *s_str(PGresult *r, int row, int col)
{
    return lg_db_isnull(r, row, col) ? json_null() : json_string(lg_db_get(r, row, col));
}

static void s_compare_json(PGresult *r, const int *col, const lg_compare_opts_t *o,
                           double threshold, FILE *out)
{
    json_t *root = json_object(), *rows = json_array(), *vals = json_array();
    json_object_set_new(root, "dimension", json_string(o->dimension));
    json_object_set_new(root, "baseline",
                        PQntuples(r) ? json_string(lg_db_get(r, 0, col[C_DV])) : json_null());
    json_object_set_new(root, "combine",
                        json_string("mean of repeats and of campaigns with the "
                                    "same labels; n = figures combined"));
    json_object_set_new(root, "threshold_pct", json_real(threshold));
    json_object_set_new(root, "noise",
                        json_string("ci_low..ci_high: 95% CI of the mean (ci_method repeats: "
                                    "t on the n figures; batch means: of one run's seconds); "
                                    "p_value, diff_ci_*_pct: Welch's t-test against the baseline; "
                                    "status same (change ~): the difference's CI includes 0 or "
                                    "it is under threshold_pct"));
    for (int i = 0; i < PQntuples(r); i = s_group_end(r, col, i)) {
        json_t *row = json_object(), *cells = json_object();
        json_object_set_new(row, "metric", json_string(lg_db_get(r, i, col[C_METRIC])));
        json_object_set_new(row, "unit", json_string(lg_db_get(r, i, col[C_UNIT])));
        json_object_set_new(row, "higher_is_better",
                            json_boolean(lg_db_get(r, i, col[C_HIB])[0] == 't'));
        static const int txt[] = {C_PROFILE, C_DIR, C_PROTO};
        static const char *const tn[] = {"profile", "direction", "protocol"};
        for (int k = 0; k < 3; k++)
            json_object_set_new(row, tn[k],
                                s_null(r, i, col[txt[k]])
                                    ? json_string(lg_db_get(r, i, col[txt[k]]))
                                    : json_null());
        json_object_set_new(row, "threads",
                            s_null(r, i, col[C_THREADS])
                                ? json_integer(s_int(r, i, col[C_THREADS]))
                                : json_null());
        json_object_set_new(row, "qd",
                            s_null(r, i, col[C_QD]) ? json_integer(s_int(r, i, col[C_QD]))
                                               : json_null());
        json_t *l = json_loads(lg_db_get(r, i, col[C_LABELS]), 0, NULL);
        json_object_set_new(row, "labels", l ? l : json_object());
        for (int j = i; j < s_group_end(r, col, i); j++) {
            const char *dv = lg_db_get(r, j, col[C_DV]);
            size_t k;
            json_t *x;
            int seen = 0;
            json_array_foreach(vals, k, x) seen |= !strcmp(json_string_value(x), dv);
            if (!seen)
                json_array_append_new(vals, json_string(dv));
            json_t *c = json_object();
            json_object_set_new(c, "value", s_num(r, j, col[C_VALUE]));
            json_object_set_new(c, "n", json_integer(s_int(r, j, col[C_N])));
            json_object_set_new(c, "ci_low", s_num(r, j, col[C_CI_LOW]));
            json_object_set_new(c, "ci_high", s_num(r, j, col[C_CI_HIGH]));
            json_object_set_new(c, "ci_method", s_str(r, j, col[C_CI_METHOD]));
            json_object_set_new(c, "baseline_value", s_num(r, j, col[C_BASE]));
            json_object_set_new(c, "pct", s_num(r, j, col[C_PCT]));
            json_object_set_new(c, "ratio", s_num(r, j, col[C_RATIO]));
            json_object_set_new(c, "p_value", s_num(r, j, col[C_P]));
            json_object_set_new(c, "diff_ci_low_pct", s_num(r, j, col[C_DIFF_LOW]));
            json_object_set_new(c, "diff_ci_high_pct", s_num(r, j, col[C_DIFF_HIGH]));
            json_object_set_new(c, "status", json_string(lg_db_get(r, j, col[C_STATUS])));
            json_object_set_new(c, "change", s_str(r, j, col[C_CHANGE]));
            json_object_set_new(c, "qd_short", json_boolean(s_short(r, j, col[C_SHORT])));
            json_object_set_new(cells, dv, c);
        }
        json_object_set_new(row, "cells", cells);
        json_array_append_new(rows, row);
    }
    json_object_set_new(root, "values", vals);
    json_object_set_new(root, "rows", rows);
    /* ENSURE_ASCII: C1 controls (U+0080..U+009F, which some terminals obey) as \u escapes too */
    json_dumpf(root, out,
               JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) | JSON_ENSURE_ASCII);
    fputc('\n', out);
    json_decref(root);
}

static void s_compare_csv(PGresult *r, const int *col, FILE *out)
{
    int n = PQntuples(r);
    if (n == 0)
        return;
    json_t *kobj = json_object();
    const char **labels = s_label_keys(r, col, 0, n, kobj);
    size_t nl = 0;
    while (labels && labels[nl])
        nl++;
    /* The values, in the order of the first combination (every combination has all of them). */
    int nvals = s_group_end(r, col, 0);
    static const char *const more[] = {"change",          "ci_low",           "ci_high",
                                       "ci_method",       "p_value",          "diff_ci_low_pct",
                                       "diff_ci_high_pct", "qd_short"};
    static const int more_col[] = {C_CHANGE, C_CI_LOW,   C_CI_HIGH,   C_CI_METHOD,
                                   C_P,      C_DIFF_LOW, C_DIFF_HIGH, C_SHORT};
    const size_t nmore = sizeof more / sizeof more[0];
    lg_tbl_t t = {.ncols = 6 + nl + (size_t)nvals * (5 + nmore)};
    static const char *const head[] = {"metric",   "profile", "direction",
                                       "protocol", "threads", "qd"};
    for (int k = 0; k < 6; k++)
        lg_tbl_add(&t, 0, "%s", head[k]);
    for (size_t k = 0; k < nl; k++)
        lg_tbl_add(&t, 0, "%s", labels[k]);
    for (int v = 0; v < nvals; v++) {
        const char *dv = lg_db_get(r, v, col[C_DV]);
        lg_tbl_add(&t, 0, "%s", dv);
        lg_tbl_add(&t, 0, "%s_n", dv);
        lg_tbl_add(&t, 0, "%s_pct", dv);
        lg_tbl_add(&t, 0, "%s_ratio", dv);
        lg_tbl_add(&t, 0, "%s_status", dv);
        for (size_t k = 0; k < nmore; k++)
            lg_tbl_add(&t, 0, "%s_%s", dv, more[k]);
    }
    for (int i = 0; i < n; i = s_group_end(r, col, i)) {
        static const int cols[] = {C_METRIC, C_PROFILE, C_DIR, C_PROTO, C_THREADS, C_QD};
        for (int k = 0; k < 6; k++)
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[cols[k]]));
        json_t *l = json_loads(lg_db_get(r, i, col[C_LABELS]), 0, NULL);
        for (size_t k = 0; k < nl; k++) {
            const char *s = json_string_value(json_object_get(l, labels[k]));
            lg_tbl_add(&t, 0, "%s", s ? s : "");
        }
        json_decref(l);
        int e = s_group_end(r, col, i);
        for (int v = 0; v < nvals; v++) {
            /* Match by value: another metric may have another set of values. */
            int j = i;
            while (j < e && strcmp(lg_db_get(r, j, col[C_DV]), lg_db_get(r, v, col[C_DV])) != 0)
                j++;
            if (j == e) {
                for (int k = 0; k < 4; k++)
                    lg_tbl_add(&t, 0, "%s", "");
                lg_tbl_add(&t, 0, "missing");
                for (size_t k = 0; k < nmore; k++)
                    lg_tbl_add(&t, 0, "%s", "");
                continue;
            }
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, j, col[C_VALUE]));
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, j, col[C_N]));
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, j, col[C_PCT]));
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, j, col[C_RATIO]));
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, j, col[C_STATUS]));
            for (size_t k = 0; k < nmore; k++)
                lg_tbl_add(&t, 0, "%s", lg_db_get(r, j, col[more_col[k]]));
        }
    }
    lg_tbl_print(&t, LG_FMT_CSV, 0, 6 + nl, out); /* metric .. qd and the labels are text */
    lg_tbl_free(&t);
    free(labels);
    json_decref(kobj);
}

/* Did --by pair anything? When no combination of the other dimensions has figures for two of
 * its values, the labels that change together with it are named, with --ignore as the way out.
 * Returns 0 (something pairs) or LG_ENOTFOUND with err set. */
static int s_check_pairs(PGresult *r, const int *col, const char *dimension, char *err,
                         size_t errlen)
{
    int n = PQntuples(r);
    const char *m0 = n ? lg_db_get(r, 0, col[C_METRIC]) : "";
    for (int i = 0; i < n && !strcmp(lg_db_get(r, i, col[C_METRIC]), m0); i++) {
        int with = 0;
        for (int j = 0; j < n && !strcmp(lg_db_get(r, j, col[C_METRIC]), m0); j++)
            with += !strcmp(lg_db_get(r, j, col[C_KEY]), lg_db_get(r, i, col[C_KEY])) &&
                    strcmp(lg_db_get(r, j, col[C_STATUS]), "missing") != 0;
        if (with >= 2)
            return 0;
    }
    /* Labels whose value differs between the figures: they moved with the dimension. */
    json_t *seen = json_object(); /* label -> {dim_value: label value} */
    for (int i = 0; i < n && !strcmp(lg_db_get(r, i, col[C_METRIC]), m0); i++) {
        if (!strcmp(lg_db_get(r, i, col[C_STATUS]), "missing"))
            continue;
        json_t *labels = json_loads(lg_db_get(r, i, col[C_LABELS]), 0, NULL);
        const char *k;
        json_t *v;
        json_object_foreach(labels, k, v)
        {
            json_t *m = json_object_get(seen, k);
            if (!m)
                json_object_set_new(seen, k, m = json_object());
            json_object_set(m, lg_db_get(r, i, col[C_DV]), v);
        }
        json_decref(labels);
    }
    char names[256] = "", how[768] = "";
    size_t o = 0, h = 0;
    const char *k;
    json_t *m;
    json_object_foreach(seen, k, m)
    {
        /* more than one value of the label among the figures */
        const char *first = NULL;
        int differs = 0;
        const char *dv;
        json_t *lv;
        json_object_foreach(m, dv, lv)
        {
            if (!first)
                first = json_string_value(lv);
            else if (json_string_value(lv) && strcmp(first, json_string_value(lv)))
                differs = 1;
        }
        if (!differs)
            continue;
        o += (size_t)snprintf(names + o, o < sizeof names ? sizeof names - o : 0, "%s%s",
                              o ? "," : "", k);
        json_object_foreach(m, dv, lv)
        h += (size_t)snprintf(how + h, h < sizeof how ? sizeof how - h : 0, "%s%s=%s with %s=%s",
                              h ? ", " : "", dimension, dv, k, json_string_value(lv));
    }
    json_decref(seen);
    if (names[0])
        snprintf(err, errlen,
                 "--by %s pairs no two figures: %s changes together with %s (%s); add --ignore %s "
                 "to compare across it",
                 dimension, names, dimension, how, names);
    else
        snprintf(err, errlen,
                 "--by %s pairs no two figures: no combination of the other dimensions was "
                 "measured with two values of %s",
                 dimension, dimension);
    return LG_ENOTFOUND;
}

int lg_compare_print(PGconn *db, const lg_compare_opts_t *o, FILE *out, char *err, size_t errlen)
{
    sel_t s;
    int rc = s_sel(o, &s, err, errlen);
    if (rc)
        return rc;
    const char *p[7] = {o->dimension, o->baseline, s.metrics,      s.where,
                        s.campaigns,  s.ignore,    s.threshold_sql};
    PGresult *r = NULL;
    char cols[1536], sql[3072];
    /* sh: which values of each combination rest on a run that ran far below its queue depth
     * (the figures lg.compare averages: lg.metric_figures, and their runs' qd_short). */
    snprintf(sql, sizeof sql,
             "WITH sh AS (SELECT u.metric, f.key, f.dim_value, bool_or(v.qd_short) AS short"
             " FROM jsonb_array_elements_text($3::jsonb) u(metric)"
             " CROSS JOIN LATERAL lg.metric_figures($1, u.metric, $4::jsonb,"
             "   CASE WHEN $5::jsonb IS NOT NULL"
             "   THEN ARRAY(SELECT jsonb_array_elements_text($5::jsonb)) END,"
             "   CASE WHEN $6::jsonb IS NOT NULL"
             "   THEN ARRAY(SELECT jsonb_array_elements_text($6::jsonb)) END) f"
             " JOIN lg.v_run v ON v.run_id = f.run_id"
             " GROUP BY u.metric, f.key, f.dim_value)"
             " SELECT %s"
             " FROM jsonb_array_elements_text($3::jsonb) WITH ORDINALITY u(metric, i)"
             " CROSS JOIN LATERAL lg.compare($1, $2, u.metric, $4::jsonb,"
             "   CASE WHEN $5::jsonb IS NOT NULL"
             "   THEN ARRAY(SELECT jsonb_array_elements_text($5::jsonb)) END,"
             "   CASE WHEN $6::jsonb IS NOT NULL"
             "   THEN ARRAY(SELECT jsonb_array_elements_text($6::jsonb)) END, $7::float8)"
             "   WITH ORDINALITY c"
             " JOIN lg.v_metric_def m ON m.metric = u.metric"
             " LEFT JOIN sh ON sh.metric = u.metric AND sh.key = c.key"
             "   AND sh.dim_value = c.dim_value"
             " ORDER BY u.i, c.ordinality",
             s_select_list(s_cmp_exprs, C_NCOLS, cols, sizeof cols));
    rc = s_check(db, o->dimension, &s, err, errlen);
    if (rc == 0)
        rc = s_query(db, sql, 7, p, &r, err, errlen);
    if (rc) {
        s_sel_free(&s);
        return rc;
    }
    int col[C_NCOLS]; /* the columns by name, once (CMP_COLS) */
    lg_db_cols(r, s_cmp_names, col, C_NCOLS);
    if (PQntuples(r) > 0 && (rc = s_check_pairs(r, col, o->dimension, err, errlen)) != 0) {
        PQclear(r);
        s_sel_free(&s);
        return rc;
    }
    if (PQntuples(r) == 0) {
        PQclear(r);
        json_t *ms = json_loads(s.metrics, 0, NULL);
        char m[64];
        lg_strlcpy(m, ms ? json_string_value(json_array_get(ms, 0)) : "iops", sizeof m);
        json_decref(ms);
        rc = s_no_match(db, &s, m, err, errlen);
        s_sel_free(&s);
        return rc;
    } else if (o->format == LG_FMT_JSON) {
        s_compare_json(r, col, o, s.threshold, out);
    } else if (o->format == LG_FMT_CSV) {
        s_compare_csv(r, col, out);
    } else {
        for (int i = 0; i < PQntuples(r);) {
            int e = i;
            while (e < PQntuples(r) &&
                   !strcmp(lg_db_get(r, e, col[C_METRIC]), lg_db_get(r, i, col[C_METRIC])))
                e++;
            s_compare_section(r, col, i, e, o, s.threshold, out);
            i = e;
        }
        lg_hostcpu_compare_note(db, o->dimension, s.metrics, s.where, s.campaigns, s.ignore,
                                o->format == LG_FMT_MARKDOWN, out);
    }
    PQclear(r);
    s_sel_free(&s);
    return 0;
}

/* The campaigns parameter $N (a JSON array or NULL) as text[]. */
#define CAMPAIGNS_SQL(n)                                                                           \
    "CASE WHEN $" n "::jsonb IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text($" n          \
    "::jsonb)) END"


/* Nothing matched: say which filter matched nothing and what there is instead. Always returns
 * LG_ENOTFOUND (exit 1) with err set. */
static int s_no_match(PGconn *db, const sel_t *s, const char *metric, char *err, size_t errlen)
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
        int found = 0;
        if (p[0] && lg_db_exec(db,
                               "SELECT 1 FROM lg.v_campaign WHERE name = $1 OR campaign_id::text = $1",
                               1, p, &r, e2, sizeof e2) == 0)
            found = PQntuples(r) > 0;
        PQclear(r);
        r = NULL;
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
        if (lg_db_exec(db,
                       "WITH f AS (SELECT CASE WHEN $1 = 'campaign' THEN m.campaign"
                       "   ELSE (m.labels || jsonb_build_object('protocol', m.protocol, 'profile',"
                       "   m.profile, 'direction', m.direction, 'threads', m.threads, 'qd', m.qd))"
                       "   ->> $1 END AS val FROM lg.v_metric m WHERE m.metric = $3"
                       "   AND ($4::jsonb IS NULL OR m.campaign IN"
                       "     (SELECT jsonb_array_elements_text($4::jsonb))"
                       "   OR m.campaign_id::text IN (SELECT jsonb_array_elements_text($4::jsonb))))"
                       " SELECT bool_or(val = $2) AS matched,"
                       " string_agg(DISTINCT val, ', ') AS vals FROM f",
                       4, p, &r, e2, sizeof e2) == 0 &&
            PQntuples(r) == 1 && lg_db_get(r, 0, lg_db_col(r, "matched"))[0] != 't') {
            const char *vals = lg_db_get(r, 0, lg_db_col(r, "vals"));
            snprintf(err, errlen, "--where %s=%s matches nothing: %s has %s%s", k,
                     json_string_value(v), k, vals[0] ? "the values " : "no values here", vals);
            PQclear(r);
            json_decref(w);
            return LG_ENOTFOUND;
        }
        PQclear(r);
        r = NULL;
    }
    json_decref(w);
    snprintf(err, errlen, "no figures of %s match the selection together (each filter alone "
                          "matches some)",
             metric);
    return LG_ENOTFOUND;
}

/* ---- lgctl rank ---- */

/* lg.rank's columns, then the metric's unit and direction, and whether a run the figure rests on
 * ran far below its queue depth; csv and json print them all, named as lg.rank names them. */
#define RANK_COLS(X)                                                                               \
    X(R_PROFILE, "profile", "r.profile")                                                           \
    X(R_DIR, "direction", "r.direction")                                                           \
    X(R_PROTO, "protocol", "r.protocol")                                                           \
    X(R_THREADS, "threads", "r.threads")                                                           \
    X(R_QD, "qd", "r.qd")                                                                          \
    X(R_RANK, "rank", "r.rank")                                                                    \
    X(R_CONFIG, "config", "r.config")                                                              \
    X(R_VALUE, "value", "r.value")                                                                 \
    X(R_N, "n", "r.n")                                                                             \
    X(R_LEADER, "leader_value", "r.leader_value")                                                  \
    X(R_GAP, "gap_pct", "r.gap_pct")                                                               \
    X(R_RATIO, "ratio", "r.ratio")                                                                 \
    X(R_CI_LOW, "ci_low", "r.ci_low")                                                              \
    X(R_CI_HIGH, "ci_high", "r.ci_high")                                                           \
    X(R_CI_METHOD, "ci_method", "r.ci_method")                                                     \
    X(R_P, "p_value", "r.p_value")                                                                 \
    X(R_GAP_LOW, "gap_ci_low_pct", "r.gap_ci_low_pct")                                             \
    X(R_GAP_HIGH, "gap_ci_high_pct", "r.gap_ci_high_pct")                                          \
    X(R_STATUS, "status", "r.status")                                                              \
    X(R_CHANGE, "change", "r.change")                                                              \
    X(R_UNIT, "unit", "m.unit")                                                                    \
    X(R_HIB, "higher_is_better", "m.higher_is_better")                                             \
    X(R_SHORT, "qd_short", "coalesce(sh.short, false)")

enum { RANK_COLS(COL_ENUM) R_NCOLS };
static const char *const s_rank_names[R_NCOLS] = {RANK_COLS(COL_NAME)};
static const char *const s_rank_exprs[R_NCOLS] = {RANK_COLS(COL_EXPR)};

/* The gap cell: "leader", "~ (4.8% behind)", "25.0% behind (0.75x)" (" *": not tested against
 * noise); markdown adds the gap's 95% interval and the p-value. Returns 1 when untested. */
static int s_gap(char *buf, size_t len, PGresult *r, const int *col, int row, int md)
{
    const char *status = lg_db_get(r, row, col[R_STATUS]), *gap = s_null(r, row, col[R_GAP]);
    const char *p = s_null(r, row, col[R_P]), *lo = s_null(r, row, col[R_GAP_LOW]);
    const char *hi = s_null(r, row, col[R_GAP_HIGH]);
    if (!strcmp(status, "leader")) {
        snprintf(buf, len, "leader");
        return 0;
    }
    if (!gap) {
        snprintf(buf, len, "-");
        return 0;
    }
    double g = strtod(gap, NULL);
    size_t o;
    if (!strcmp(status, "same"))
        o = (size_t)snprintf(buf, len, "~ (%.1f%% behind)", -g);
    else
        o = (size_t)snprintf(buf, len, "%.1f%% behind (%.2fx)", -g,
                             strtod(lg_db_get(r, row, col[R_RATIO]), NULL));
    return s_ci_suffix(buf, len, o, md, p, lo, hi, status);
}

/* Rows a and b are in one group of run fields (lg.rank ranks within it). */
static int s_same_group(PGresult *r, const int *col, int a, int b)
{
    static const int cols[] = {R_PROFILE, R_DIR, R_PROTO, R_THREADS, R_QD};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        if (lg_db_isnull(r, a, col[cols[k]]) != lg_db_isnull(r, b, col[cols[k]]) ||
            strcmp(lg_db_get(r, a, col[cols[k]]), lg_db_get(r, b, col[cols[k]])) != 0)
            return 0;
    return 1;
}

int lg_rank_print(PGconn *db, const lg_compare_opts_t *o, FILE *out, char *err, size_t errlen)
{
    sel_t s;
    int rc = s_sel(o, &s, err, errlen);
    if (rc)
        return rc;
    json_t *ms = json_loads(s.metrics, 0, NULL);
    if (json_array_size(ms) != 1) {
        snprintf(err, errlen, "rank: --metric takes one metric");
        json_decref(ms);
        s_sel_free(&s);
        return LG_EPARSE;
    }
    char metric[64];
    lg_strlcpy(metric, json_string_value(json_array_get(ms, 0)), sizeof metric);
    json_decref(ms);
    const char *p[5] = {metric, s.where, s.campaigns, o->dimension, s.threshold_sql};
    PGresult *r = NULL;
    char cols[1024], sql[3072];
    /* sh: which rows rest on a run that ran far below its queue depth: lg.rank's figures
     * (lg.metric_figures) grouped as lg.rank groups them (017_compare_noise.sql: its run fields
     * and its config), and their runs' qd_short. */
    snprintf(sql, sizeof sql,
             "WITH sh AS (SELECT x.key ->> 'profile' AS pr, x.key ->> 'direction' AS di,"
             "   x.key ->> 'protocol' AS po, (x.key ->> 'threads')::integer AS th,"
             "   (x.key ->> 'qd')::integer AS q,"
             "   CASE WHEN $4::text IS NULL"
             "   THEN (SELECT coalesce(string_agg(e.key || '=' || e.value, ',' ORDER BY e.key),"
             "     '(no labels)') FROM jsonb_each_text(x.key - 'profile' - 'direction'"
             "     - 'protocol' - 'threads' - 'qd') e)"
             "   ELSE x.dim_value END AS cfg, bool_or(v.qd_short) AS short"
             " FROM lg.metric_figures(coalesce($4::text, 'campaign'), $1, $2::jsonb, %s, NULL) x"
             " JOIN lg.v_run v ON v.run_id = x.run_id"
             " GROUP BY 1, 2, 3, 4, 5, 6)"
             " SELECT %s"
             " FROM lg.rank($1, $2::jsonb, %s, $4, $5::float8) WITH ORDINALITY r"
             " JOIN lg.v_metric_def m ON m.metric = $1"
             " LEFT JOIN sh ON sh.pr IS NOT DISTINCT FROM r.profile"
             "   AND sh.di IS NOT DISTINCT FROM r.direction"
             "   AND sh.po IS NOT DISTINCT FROM r.protocol"
             "   AND sh.th IS NOT DISTINCT FROM r.threads AND sh.q IS NOT DISTINCT FROM r.qd"
             "   AND sh.cfg = r.config"
             " ORDER BY r.ordinality",
             CAMPAIGNS_SQL("3"), s_select_list(s_rank_exprs, R_NCOLS, cols, sizeof cols),
             CAMPAIGNS_SQL("3"));
    rc = s_check(db, o->dimension, &s, err, errlen);
    if (rc == 0)
        rc = s_query(db, sql, 5, p, &r, err, errlen);
    if (rc == 0 && PQntuples(r) == 0) {
        PQclear(r);
        rc = s_no_match(db, &s, metric, err, errlen);
    }
    double threshold = s.threshold;
    s_sel_free(&s);
    if (rc)
        return rc;
    if (o->format == LG_FMT_CSV || o->format == LG_FMT_JSON) {
        lg_tbl_print_result(r, o->format, out);
        PQclear(r);
        return 0;
    }
    int md = o->format == LG_FMT_MARKDOWN, untested = 0, shorts = 0, leader_short = 0;
    char note[512];
    s_noise_note(note, sizeof note, threshold, 1);
    fprintf(out, "%s\n%s", note, md ? "\n" : "");
    lg_tbl_t t = {.ncols = 8};
    const char *head[] = {"profile", "dir",          "protocol",
                          "load",    "rank",         o->dimension ? o->dimension : "config",
                          p[0],      "gap to leader"};
    for (int k = 0; k < 8; k++)
        lg_tbl_add(&t, 0, "%s", head[k]);
    int col[R_NCOLS]; /* the columns by name, once (RANK_COLS) */
    lg_db_cols(r, s_rank_names, col, R_NCOLS);
    for (int i = 0; i < PQntuples(r); i++) {
        /* A gap to a leader that ran short compares two loads as well. A group's leaders (rank
         * 1, ties included) come first in it. */
        int is_short = s_short(r, i, col[R_SHORT]), lead = s_int(r, i, col[R_RANK]) == 1;
        if (lead && (i == 0 || !s_same_group(r, col, i - 1, i)))
            leader_short = 0;
        if (lead)
            leader_short |= is_short;
        shorts |= is_short;
        static const int txt[] = {R_PROFILE, R_DIR, R_PROTO};
        for (int k = 0; k < 3; k++)
            lg_tbl_add(&t, 0, "%s", s_null(r, i, col[txt[k]]) ? lg_db_get(r, i, col[txt[k]]) : "-");
        s_load_cell(&t, s_null(r, i, col[R_DIR]), s_null(r, i, col[R_THREADS]),
                    s_null(r, i, col[R_QD]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[R_RANK]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[R_CONFIG]));
        s_value_cell(&t, 0, lg_db_get(r, i, col[R_UNIT]), r, i, col[R_VALUE], col[R_CI_LOW],
                     col[R_CI_HIGH], col[R_N], is_short);
        char gap[192];
        untested |= s_gap(gap, sizeof gap, r, col, i, md);
        const char *status = lg_db_get(r, i, col[R_STATUS]);
        int tone = !strcmp(status, "leader") ? 1 : !strcmp(status, "behind") ? -1 : 0;
        lg_tbl_add(&t, tone, "%s%s", gap, !lead && (is_short || leader_short) ? " !" : "");
    }
    lg_tbl_print(&t, o->format, o->colour, 6, out);
    if (untested)
        fprintf(out, md ? "\n\\%s" : "%s", s_untested_note);
    if (shorts)
        fprintf(out, md ? "\n\\%s" : "%s", s_rank_short_note);
    lg_tbl_free(&t);
    PQclear(r);
    return 0;
}

/* ---- lgctl compare --sweep ---- */

int lg_sweep_print(PGconn *db, const lg_compare_opts_t *o, FILE *out, char *err, size_t errlen)
{
    sel_t s;
    int rc = s_sel(o, &s, err, errlen);
    if (rc)
        return rc;
    const char *p[2] = {s.where, s.campaigns};
    PGresult *r = NULL;
    rc = s_check(db, NULL, &s, err, errlen);
    if (rc == 0) {
        rc = s_query(db, "SELECT * FROM lg.sweep($1::jsonb, " CAMPAIGNS_SQL("2") ")", 2, p, &r, err,
                     errlen);
    }
    if (rc == 0 && PQntuples(r) == 0) {
        PQclear(r);
        rc = s_no_match(db, &s, "iops", err, errlen);
        /* every filter matches: nothing was swept */
        if (strstr(err, "match the selection together"))
            snprintf(err, errlen, "no profile was measured at more than one load point in the "
                                  "selection");
    }
    s_sel_free(&s);
    if (rc)
        return rc;
    if (o->format == LG_FMT_CSV || o->format == LG_FMT_JSON) {
        lg_tbl_print_result(r, o->format, out);
        PQclear(r);
        return 0;
    }
    /* lg.sweep's columns, by name */
    int n = PQntuples(r), c_prof = lg_db_col(r, "profile"), c_dir = lg_db_col(r, "direction"),
        c_cfg = lg_db_col(r, "config"), c_th = lg_db_col(r, "threads"), c_qd = lg_db_col(r, "qd"),
        c_iops = lg_db_col(r, "iops"), c_lat = lg_db_col(r, "lat_avg_ms");
    for (int i = 0; i < n;) {
        int e = i;
        while (e < n && !strcmp(lg_db_get(r, e, c_prof), lg_db_get(r, i, c_prof)) &&
               !strcmp(lg_db_get(r, e, c_dir), lg_db_get(r, i, c_dir)))
            e++;
        /* The configurations of this profile and direction, lettered A, B, ... */
        const char *cfg[26];
        int ncfg = 0;
        for (int j = i; j < e; j++) {
            int k = 0;
            while (k < ncfg && strcmp(cfg[k], lg_db_get(r, j, c_cfg)) != 0)
                k++;
            if (k == ncfg && ncfg < 26)
                cfg[ncfg++] = lg_db_get(r, j, c_cfg);
        }
        char prof[256], sut[1024];
        fprintf(out, "%s%s %s: IOPS and average latency (ms) per load point%s\n",
                o->format == LG_FMT_MARKDOWN ? "**" : "",
                lg_esc_ctrl(lg_db_get(r, i, c_prof), prof, sizeof prof), lg_db_get(r, i, c_dir),
                o->format == LG_FMT_MARKDOWN ? "**\n" : "");
        for (int k = 0; k < ncfg; k++)
            fprintf(out, "  %c: %s\n", 'A' + k, lg_esc_ctrl(cfg[k], sut, sizeof sut));
        if (o->format == LG_FMT_MARKDOWN)
            fputc('\n', out);
        lg_tbl_t t = {.ncols = 1 + 2 * (size_t)ncfg};
        lg_tbl_add(&t, 0, "load");
        for (int k = 0; k < ncfg; k++) {
            lg_tbl_add(&t, 0, "%c IOPS", 'A' + k);
            lg_tbl_add(&t, 0, "%c lat ms", 'A' + k);
        }
        for (int j = i; j < e;) {
            int pe = j;
            while (pe < e && !strcmp(lg_db_get(r, pe, c_th), lg_db_get(r, j, c_th)) &&
                   !strcmp(lg_db_get(r, pe, c_qd), lg_db_get(r, j, c_qd)))
                pe++;
            lg_tbl_add(&t, 0, "%sT%sQ", lg_db_get(r, j, c_th), lg_db_get(r, j, c_qd));
            for (int k = 0; k < ncfg; k++) {
                int x = j;
                while (x < pe && strcmp(lg_db_get(r, x, c_cfg), cfg[k]) != 0)
                    x++;
                char a[64], b[64];
                s_fig(a, sizeof a, "IOPS", x < pe ? s_null(r, x, c_iops) : NULL);
                s_fig(b, sizeof b, "ms", x < pe ? s_null(r, x, c_lat) : NULL);
                lg_tbl_add(&t, x < pe ? 0 : 2, "%s", a);
                lg_tbl_add(&t, x < pe ? 0 : 2, "%s", b);
            }
            j = pe;
        }
        lg_tbl_print(&t, o->format, o->colour, 1, out);
        fputc('\n', out);
        lg_tbl_free(&t);
        i = e;
    }
    PQclear(r);
    return 0;
}

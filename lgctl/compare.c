/* compare.c: lgctl compare --by (its siblings: sweep.c, rank.c; what they share: compare_sel.c).
 * The figures, the pairing with the baseline, the mean of repeats, the confidence intervals, the
 * tests and the verdicts all come from SQL (schema/007_compare.sql, 017_compare_noise.sql), so what
 * lgctl prints and what a reviewer SELECTs are the same numbers; these files only pivot the rows
 * (one line per combination, one column per value) and format them. */
#include "compare.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "db.h"
#include "hostcpu.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_util.h"

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
    while (e < lg_db_nrows(r) &&
           !strcmp(lg_db_get(r, e, col[C_METRIC]), lg_db_get(r, i, col[C_METRIC])) &&
           !strcmp(lg_db_get(r, e, col[C_KEY]), lg_db_get(r, i, col[C_KEY])))
        e++;
    return e;
}

/* The change of a row against the baseline, as the table and markdown show it: "~ (+1.2%)" when
 * SQL found no difference beyond the noise or the threshold, "+10.2% 1.10x better" (latency:
 * "10.0% lower latency 0.90x better"; another metric where less is better by its name: "10.0%
 * lower cpu_busy_pct 0.90x better") when it did, and "+10.2% 1.10x untested *" when it could not
 * test (no interval on one side): never better or worse. Markdown adds the difference's 95%
 * interval and the p-value. Returns 1 for an untested difference. */

static int s_change(char *buf, size_t len, int hib, PGresult *r, const int *col, int row, int md)
{
    const char *status = lg_db_get(r, row, col[C_STATUS]), *pct = lg__cmp_null(r, row, col[C_PCT]);
    const char *ratio = lg__cmp_null(r, row, col[C_RATIO]), *p = lg__cmp_null(r, row, col[C_P]);
    if (!strcmp(status, "missing") || !strcmp(status, "no baseline") || !pct || !ratio) {
        snprintf(buf, len, "%s",
                 !strcmp(status, "missing") ? "missing" : "no baseline: it is missing here");
        return 0;
    }
    double d = strtod(pct, NULL), x = strtod(ratio, NULL);
    size_t o;
    if (!strcmp(status, "same"))
        o = (size_t)snprintf(buf, len, "~ (%+.1f%%)", d);
    else if (hib)
        o = (size_t)snprintf(buf, len, "%+.1f%% %.2fx %s", d, x, status);
    else /* a time is a latency; another metric where less is better is named */
        o = (size_t)snprintf(
            buf, len, "%.1f%% %s %s %.2fx %s", d < 0 ? -d : d, d <= 0 ? "lower" : "higher",
            !strcmp(lg_db_get(r, row, col[C_UNIT]), "ms") ? "latency"
                                                          : lg_db_get(r, row, col[C_METRIC]),
            x, status);
    const char *lo = lg__cmp_null(r, row, col[C_DIFF_LOW]),
               *hi = lg__cmp_null(r, row, col[C_DIFF_HIGH]);
    return lg__cmp_ci_suffix(buf, len, o, md, p, lo, hi, status);
}

static int s_tone(const char *status)
{
    return !strcmp(status, "better")    ? 1
           : !strcmp(status, "worse")   ? -1
           : !strcmp(status, "missing") ? 2
                                        : 0;
}

static const char s_short_note[] =
    "! ran far below its queue depth: a run behind this figure kept under half the requested "
    "I/Os in flight per job (fio's iodepth_level), so the two sides were not the same load\n";

static const char s_missing_note[] =
    "missing: no figures for this value at this point while it has some at others (a point that "
    "failed: lgctl report names it, lgctl rerun NAME --failed runs it again)\n";

/* Rows [from, to) of one metric as the people's table (table and markdown formats). */
static void s_compare_section(PGresult *r, const int *col, int from, int to,
                              const lg_compare_opts_t *o, double threshold, FILE *out)
{
    const char *unit = lg_db_get(r, from, col[C_UNIT]);
    int hib = lg_db_get(r, from, col[C_HIB])[0] == 't', md = o->format == LG_FMT_MARKDOWN;
    int nvals = s_group_end(r, col, from) - from, untested = 0, shorts = 0, missing = 0;
    json_t *kobj = json_object();
    const char **labels = s_label_keys(r, col, from, to, kobj);
    size_t nl = 0;
    while (labels && labels[nl])
        nl++;
    char note[512];
    lg__cmp_noise_note(note, sizeof note, threshold, 0);
    char dim[256], base[1024]; /* a label's name and value: maybe older than the spec's checks */
    fprintf(out, "%s%s (%s, %s is better) by %s, baseline %s%s\n%s\n%s", md ? "**" : "",
            lg_db_get(r, from, col[C_METRIC]), unit, hib ? "higher" : "lower",
            lg_esc_text(o->dimension, md, dim, sizeof dim),
            lg_esc_text(lg_db_get(r, from, col[C_DV]), md, base, sizeof base), md ? "**\n" : "",
            note, md ? "\n" : "");
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
        const char *th = lg__cmp_null(r, i, col[C_THREADS]), *qd = lg__cmp_null(r, i, col[C_QD]);
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_PROFILE]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_DIR]));
        lg_tbl_add(&t, 0, "%s",
                   lg__cmp_null(r, i, col[C_PROTO]) ? lg_db_get(r, i, col[C_PROTO]) : "-");
        lg__cmp_load_cell(&t, lg__cmp_null(r, i, col[C_DIR]), th, qd);
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
            missing |= !strcmp(status, "missing");
            if (!strcmp(status, "missing")) /* which side, where */
                lg_tbl_add(&t, 2, "missing");
            else
                lg__cmp_value_cell(&t, 0, unit, r, row, col[C_VALUE], col[C_CI_LOW], col[C_CI_HIGH],
                                   col[C_N], lg__cmp_short(r, row, col[C_SHORT]));
            if (v) {
                untested |= s_change(chg, sizeof chg, hib, r, col, row, md);
                int pair_short =
                    lg__cmp_short(r, row, col[C_SHORT]) || lg__cmp_short(r, row, col[C_BSHORT]);
                shorts |= pair_short || lg__cmp_short(r, row, col[C_SHORT]);
                lg_tbl_add(&t, s_tone(status), "%s%s", chg, pair_short ? " !" : "");
            } else {
                shorts |= lg__cmp_short(r, row, col[C_SHORT]);
            }
        }
    }
    lg_tbl_print(&t, o->format, o->colour, 4 + nl, out);
    if (untested)
        fprintf(out, md ? "\n\\%s" : "%s", lg__cmp_untested_note);
    if (shorts)
        fprintf(out, md ? "\n\\%s" : "%s", s_short_note);
    if (missing)
        fprintf(out, md ? "\n\\%s" : "%s", s_missing_note);
    fputc('\n', out);
    lg_tbl_clear(&t);
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
                        lg_db_nrows(r) ? json_string(lg_db_get(r, 0, col[C_DV])) : json_null());
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
    for (int i = 0; i < lg_db_nrows(r); i = s_group_end(r, col, i)) {
        json_t *row = json_object(), *cells = json_object();
        json_object_set_new(row, "metric", json_string(lg_db_get(r, i, col[C_METRIC])));
        json_object_set_new(row, "unit", json_string(lg_db_get(r, i, col[C_UNIT])));
        json_object_set_new(row, "higher_is_better",
                            json_boolean(lg_db_get(r, i, col[C_HIB])[0] == 't'));
        static const int txt[] = {C_PROFILE, C_DIR, C_PROTO};
        static const char *const tn[] = {"profile", "direction", "protocol"};
        for (int k = 0; k < 3; k++)
            json_object_set_new(row, tn[k],
                                lg__cmp_null(r, i, col[txt[k]])
                                    ? json_string(lg_db_get(r, i, col[txt[k]]))
                                    : json_null());
        json_object_set_new(row, "threads",
                            lg__cmp_null(r, i, col[C_THREADS])
                                ? json_integer(lg__cmp_int(r, i, col[C_THREADS]))
                                : json_null());
        json_object_set_new(row, "qd",
                            lg__cmp_null(r, i, col[C_QD])
                                ? json_integer(lg__cmp_int(r, i, col[C_QD]))
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
            json_object_set_new(c, "n", json_integer(lg__cmp_int(r, j, col[C_N])));
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
            json_object_set_new(c, "qd_short", json_boolean(lg__cmp_short(r, j, col[C_SHORT])));
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
    int n = lg_db_nrows(r);
    if (n == 0)
        return;
    json_t *kobj = json_object();
    const char **labels = s_label_keys(r, col, 0, n, kobj);
    size_t nl = 0;
    while (labels && labels[nl])
        nl++;
    /* The values, in the order of the first combination (every combination has all of them). */
    int nvals = s_group_end(r, col, 0);
    static const char *const more[] = {"change",           "ci_low",  "ci_high",
                                       "ci_method",        "p_value", "diff_ci_low_pct",
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
    lg_tbl_clear(&t);
    free(labels);
    json_decref(kobj);
}

/* Did --by pair anything? When no combination of the other dimensions has figures for two of
 * its values, the labels that change together with it are named, with --ignore as the way out.
 * Returns 0 (something pairs) or LG_ENOTFOUND with err set. */
static int s_check_pairs(PGresult *r, const int *col, const char *dimension, char *err,
                         size_t errlen)
{
    int n = lg_db_nrows(r);
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
        json_object_foreach(m, dv, lv) h +=
            (size_t)snprintf(how + h, h < sizeof how ? sizeof how - h : 0, "%s%s=%s with %s=%s",
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
    lg__cmp_sel_t s;
    int rc = lg__cmp_sel(o, &s, err, errlen);
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
             lg__cmp_select_list(s_cmp_exprs, C_NCOLS, cols, sizeof cols));
    rc = lg__cmp_check(db, o->dimension, &s, err, errlen);
    if (rc == 0)
        rc = lg__cmp_query(db, sql, 7, p, &r, err, errlen);
    if (rc) {
        lg__cmp_sel_clear(&s);
        return rc;
    }
    int col[C_NCOLS]; /* the columns by name, once (CMP_COLS) */
    lg_db_cols(r, s_cmp_names, col, C_NCOLS);
    if (lg_db_nrows(r) > 0 && (rc = s_check_pairs(r, col, o->dimension, err, errlen)) != 0) {
        lg_db_result_destroy(&r);
        lg__cmp_sel_clear(&s);
        return rc;
    }
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        json_t *ms = json_loads(s.metrics, 0, NULL);
        char m[64];
        lg_strlcpy(m, ms ? json_string_value(json_array_get(ms, 0)) : "iops", sizeof m);
        json_decref(ms);
        rc = lg__cmp_no_match(db, &s, m, err, errlen);
        lg__cmp_sel_clear(&s);
        return rc;
    } else if (o->format == LG_FMT_JSON) {
        s_compare_json(r, col, o, s.threshold, out);
    } else if (o->format == LG_FMT_CSV) {
        s_compare_csv(r, col, out);
    } else {
        for (int i = 0; i < lg_db_nrows(r);) {
            int e = i;
            while (e < lg_db_nrows(r) &&
                   !strcmp(lg_db_get(r, e, col[C_METRIC]), lg_db_get(r, i, col[C_METRIC])))
                e++;
            s_compare_section(r, col, i, e, o, s.threshold, out);
            i = e;
        }
        /* the notes' query failing is the command's error, not a note that goes missing */
        rc = lg_hostcpu_compare_note(db, o->dimension, s.metrics, s.where, s.campaigns, s.ignore,
                                     o->format == LG_FMT_MARKDOWN, out, err, errlen);
    }
    lg_db_result_destroy(&r);
    lg__cmp_sel_clear(&s);
    return rc;
}

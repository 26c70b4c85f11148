/* rank.c: lgctl rank: configurations (or the values of --by) ordered by one metric within each
 * group of run fields, with the gap to the leader and whether it is beyond the noise; lg.rank
 * (017_compare_noise.sql) computes it, this file formats it. */
#include "compare.h"

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

/* lg.rank's columns (qd_short: a run the figure rests on ran far below its queue depth) and the
 * metric's unit and direction; csv and json print them all, named as lg.rank names them. */
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
    X(R_SHORT, "qd_short", "r.qd_short")

enum { RANK_COLS(COL_ENUM) R_NCOLS };
static const char *const s_rank_names[R_NCOLS] = {RANK_COLS(COL_NAME)};
static const char *const s_rank_exprs[R_NCOLS] = {RANK_COLS(COL_EXPR)};

static const char s_rank_short_note[] =
    "! ran far below its queue depth: a run this figure rests on kept under half the requested "
    "I/Os in flight per job (fio's iodepth_level), so it was not the same load as the figures "
    "ranked with it\n";

static const char s_rank_missing_note[] =
    "missing: this configuration has figures for the profile at other loads but none at this "
    "one (a point that failed: lgctl report names it, lgctl rerun NAME --failed runs it again); "
    "the ranks at this load are without it\n";

/* The gap cell: "leader", "~ (4.8% behind)", "25.0% behind (0.75x)", or "untested: 25.0% from the
 * leader (0.75x) *" when a side had no interval to test it; markdown adds the gap's 95% interval
 * and the p-value. Returns 1 when untested. */
static int s_gap(char *buf, size_t len, PGresult *r, const int *col, int row, int md)
{
    const char *status = lg_db_get(r, row, col[R_STATUS]), *gap = lg__cmp_null(r, row, col[R_GAP]);
    const char *p = lg__cmp_null(r, row, col[R_P]), *lo = lg__cmp_null(r, row, col[R_GAP_LOW]);
    const char *hi = lg__cmp_null(r, row, col[R_GAP_HIGH]);
    if (!strcmp(status, "leader")) {
        snprintf(buf, len, "leader");
        return 0;
    }
    if (!strcmp(status, "missing")) { /* ranked without it: see s_rank_missing_note */
        snprintf(buf, len, "missing: no figures here");
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
    else if (!strcmp(status, "untested")) /* a gap no test showed: not called behind */
        o = (size_t)snprintf(buf, len, "untested: %.1f%% from the leader (%.2fx)", -g,
                             strtod(lg_db_get(r, row, col[R_RATIO]), NULL));
    else
        o = (size_t)snprintf(buf, len, "%.1f%% behind (%.2fx)", -g,
                             strtod(lg_db_get(r, row, col[R_RATIO]), NULL));
    return lg__cmp_ci_suffix(buf, len, o, md, p, lo, hi, status);
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
    lg__cmp_sel_t s;
    int rc = lg__cmp_sel(o, &s, err, errlen);
    if (rc)
        return rc;
    json_t *ms = json_loads(s.metrics, 0, NULL);
    if (json_array_size(ms) != 1) {
        snprintf(err, errlen, "rank: --metric takes one metric");
        json_decref(ms);
        lg__cmp_sel_clear(&s);
        return LG_EPARSE;
    }
    char metric[64];
    lg_strlcpy(metric, json_string_value(json_array_get(ms, 0)), sizeof metric);
    json_decref(ms);
    const char *p[5] = {metric, s.where, s.campaigns, o->dimension, s.threshold_sql};
    PGresult *r = NULL;
    char cols[1024], sql[3072];
    snprintf(sql, sizeof sql,
             "SELECT %s"
             " FROM lg.rank($1, $2::jsonb, %s, $4, $5::float8) WITH ORDINALITY r"
             " JOIN lg.v_metric_def m ON m.metric = $1"
             " ORDER BY r.ordinality",
             lg__cmp_select_list(s_rank_exprs, R_NCOLS, cols, sizeof cols), CAMPAIGNS_SQL("3"));
    rc = lg__cmp_check(db, o->dimension, &s, err, errlen);
    if (rc == 0)
        rc = lg__cmp_query(db, sql, 5, p, &r, err, errlen);
    if (rc == 0 && lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        rc = lg__cmp_no_match(db, &s, metric, err, errlen);
    }
    double threshold = s.threshold;
    lg__cmp_sel_clear(&s);
    if (rc)
        return rc;
    if (o->format == LG_FMT_CSV || o->format == LG_FMT_JSON) {
        lg_tbl_print_result(r, o->format, out);
        lg_db_result_destroy(&r);
        return 0;
    }
    int md = o->format == LG_FMT_MARKDOWN, untested = 0, shorts = 0, leader_short = 0, missing = 0;
    char note[512];
    lg__cmp_noise_note(note, sizeof note, threshold, 1);
    fprintf(out, "%s\n%s", note, md ? "\n" : "");
    lg_tbl_t t = {.ncols = 8};
    const char *head[] = {"profile", "dir",          "protocol",
                          "load",    "rank",         o->dimension ? o->dimension : "config",
                          p[0],      "gap to leader"};
    for (int k = 0; k < 8; k++)
        lg_tbl_add(&t, 0, "%s", head[k]);
    int col[R_NCOLS]; /* the columns by name, once (RANK_COLS) */
    lg_db_cols(r, s_rank_names, col, R_NCOLS);
    for (int i = 0; i < lg_db_nrows(r); i++) {
        /* A gap to a leader that ran short compares two loads as well. A group's leaders (rank
         * 1, ties included) come first in it. */
        int is_short = lg__cmp_short(r, i, col[R_SHORT]),
            lead = lg__cmp_int(r, i, col[R_RANK]) == 1;
        if (lead && (i == 0 || !s_same_group(r, col, i - 1, i)))
            leader_short = 0;
        if (lead)
            leader_short |= is_short;
        shorts |= is_short;
        static const int txt[] = {R_PROFILE, R_DIR, R_PROTO};
        for (int k = 0; k < 3; k++)
            lg_tbl_add(&t, 0, "%s",
                       lg__cmp_null(r, i, col[txt[k]]) ? lg_db_get(r, i, col[txt[k]]) : "-");
        lg__cmp_load_cell(&t, lg__cmp_null(r, i, col[R_DIR]), lg__cmp_null(r, i, col[R_THREADS]),
                          lg__cmp_null(r, i, col[R_QD]));
        int miss = !strcmp(lg_db_get(r, i, col[R_STATUS]), "missing");
        missing |= miss;
        lg_tbl_add(&t, 0, "%s", miss ? "-" : lg_db_get(r, i, col[R_RANK]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[R_CONFIG]));
        if (miss)
            lg_tbl_add(&t, -1, "no figures");
        else
            lg__cmp_value_cell(&t, 0, lg_db_get(r, i, col[R_UNIT]), r, i, col[R_VALUE],
                               col[R_CI_LOW], col[R_CI_HIGH], col[R_N], is_short);
        char gap[192];
        untested |= s_gap(gap, sizeof gap, r, col, i, md);
        const char *status = lg_db_get(r, i, col[R_STATUS]);
        int tone = !strcmp(status, "leader")                                 ? 1
                   : !strcmp(status, "behind") || !strcmp(status, "missing") ? -1
                                                                             : 0;
        lg_tbl_add(&t, tone, "%s%s", gap, !lead && (is_short || leader_short) ? " !" : "");
    }
    lg_tbl_print(&t, o->format, o->colour, 6, out);
    if (untested)
        fprintf(out, md ? "\n\\%s" : "%s", lg__cmp_untested_note);
    if (shorts)
        fprintf(out, md ? "\n\\%s" : "%s", s_rank_short_note);
    if (missing)
        fprintf(out, md ? "\n\\%s" : "%s", s_rank_missing_note);
    lg_tbl_clear(&t);
    lg_db_result_destroy(&r);
    return 0;
}

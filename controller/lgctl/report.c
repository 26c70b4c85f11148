/* report.c: the report lgctl prints. Every figure comes from lg.result (merged rows). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_util.h"

/* A figure with thousands separators and `decimals` digits after the point; "" for NULL. */
static const char *s_fig(char *buf, size_t len, PGresult *r, int row, int col, int decimals)
{
    if (PQgetisnull(r, row, col)) {
        buf[0] = 0;
        return buf;
    }
    return lg_fmt_thousands(buf, len, strtod(PQgetvalue(r, row, col), NULL), decimals);
}

enum { C_CAMPAIGN_ID, C_CAMPAIGN, C_RUN, C_SUT, C_PROTOCOL, C_TARGET, C_PHASE, C_PROFILE, C_DIR,
       C_THREADS, C_QD, C_REPEAT, C_STATE, C_IOPS, C_MBS, C_AVG, C_MAX, C_STDEV, C_P99, C_SS_REACHED,
       C_SS_ROUNDS, C_ERROR, C_RATE, C_CURVE, C_PROBE, C_SVALUE };

/* The campaign's searches: what each found (lg.v_search), after the runs. */
static int s_searches(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT s.sut, s.protocol, s.profile, s.direction,"
                        " s.metric || ' <= ' || s.limit_ms || ' ms', s.vary, s.state,"
                        " s.good_load, s.iops_at_limit, s.bad_load, s.probes, s.message,"
                        " (SELECT count(*) FROM lg.v_run r WHERE r.search_id = s.search_id"
                        "   AND r.probe IS NOT NULL AND r.state = 'skipped')"
                        " FROM lg.v_search s WHERE s.campaign_id = $1::bigint ORDER BY s.search_id",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return 0;
    }
    fprintf(out, "\n%ssearches%s (the most load under a latency limit):\n", md ? "**" : "",
            md ? "**" : "");
    lg_tbl_t t = {.ncols = 12, .last_left = 1};
    static const char *const head[] = {"SUT config", "protocol", "profile", "dir", "limit",
                                       "by", "outcome", "best load", "IOPS at limit",
                                       "first over", "probes", "what it found"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    for (int i = 0; i < PQntuples(r); i++) {
        char f[64];
        for (int col = 0; col < 7; col++)
            lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, col));
        lg_tbl_add(&t, 0, "%s", PQgetisnull(r, i, 7) ? "-" : PQgetvalue(r, i, 7));
        lg_tbl_add(&t, 0, "%s", PQgetisnull(r, i, 8) ? "-" : s_fig(f, sizeof f, r, i, 8, 0));
        lg_tbl_add(&t, 0, "%s", PQgetisnull(r, i, 9) ? "-" : PQgetvalue(r, i, 9));
        lg_tbl_add(&t, 0, "%s (%s not needed)", PQgetvalue(r, i, 10), PQgetvalue(r, i, 12));
        lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, 11));
    }
    lg_tbl_print(&t, md ? LG_FMT_MARKDOWN : LG_FMT_TABLE, 0, 7, out);
    lg_tbl_free(&t);
    PQclear(r);
    return 0;
}

int lg_report_print(PGconn *db, uint64_t campaign_id, const char *name, lg_format_t fmt,
                    FILE *out, char *err, size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)campaign_id);
    const char *p[2] = {id, name};
    PGresult *c = NULL;
    int rc = lg_db_exec(db,
                        "SELECT c.campaign_id, c.name, c.state,"
                        " to_char(c.created_at, 'YYYY-MM-DD HH24:MI:SS TZ'),"
                        " coalesce(to_char(c.finished_at, 'YYYY-MM-DD HH24:MI:SS TZ'), ''),"
                        " (SELECT count(DISTINCT sut_config_id) FROM lg.v_run r"
                        "   WHERE r.campaign_id = c.campaign_id)"
                        " FROM lg.v_campaign c"
                        " WHERE ($1::bigint = 0 OR c.campaign_id = $1::bigint)"
                        " AND ($2::text IS NULL OR c.name = $2)"
                        " ORDER BY c.campaign_id DESC LIMIT 1",
                        2, p, &c, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(c) == 0) {
        PQclear(c);
        char names[1024];
        lg_db_campaign_names(db, names, sizeof names);
        if (!names[0])
            snprintf(err, errlen, "no campaigns in the database yet");
        else if (name)
            snprintf(err, errlen, "no campaign named \"%s\"; campaigns: %s", name, names);
        else
            snprintf(err, errlen, "no campaign %s; campaigns: %s", id, names);
        return LG_ENOTFOUND;
    }
    char cid[24];
    lg_strlcpy(cid, PQgetvalue(c, 0, 0), sizeof cid);
    const char *p2[1] = {cid};
    PGresult *r = NULL;
    rc = lg_db_exec(db,
                    "SELECT r.campaign_id, c.name AS campaign, r.run_id AS run,"
                    " lg.sut_short(s.labels) AS sut, r.protocol, r.target, r.phase, r.profile,"
                    " coalesce(x.direction, r.direction) AS direction, r.threads, r.qd, r.repeat,"
                    " r.state, x.iops, x.bw_bytes::float8 / 1e6 AS mb_s, x.lat_mean::float8 / 1e6 AS lat_avg_ms,"
                    " x.lat_max::float8 / 1e6 AS lat_max_ms, x.lat_stddev::float8 / 1e6 AS lat_stddev_ms,"
                    " (x.percentiles->>'99.000000')::float8 / 1e6 AS p99_ms,"
                    " r.ss_reached AS steady_state_reached, r.ss_rounds AS steady_state_rounds,"
                    " r.error, r.rate_total AS rate_iops, r.curve_pct, r.probe,"
                    " r.search_value AS probe_value_ms"
                    " FROM lg.v_run r JOIN lg.v_campaign c USING (campaign_id)"
                    " JOIN lg.v_sut_config s USING (sut_config_id)"
                    " LEFT JOIN lg.v_result_all x ON x.run_id = r.run_id AND x.agent_id IS NULL"
                    " WHERE r.campaign_id = $1::bigint AND r.state <> 'skipped'"
                    " ORDER BY r.ordinal, x.direction",
                    1, p2, &r, err, errlen);
    if (rc) {
        PQclear(c);
        return rc;
    }
    if (fmt == LG_FMT_CSV || fmt == LG_FMT_JSON) {
        lg_tbl_print_result(r, fmt, out);
        PQclear(r);
        PQclear(c);
        return 0;
    }

    int md = fmt == LG_FMT_MARKDOWN;
    fprintf(out, "%scampaign %s \"%s\"%s: %s, created %s%s%s\n", md ? "**" : "",
            PQgetvalue(c, 0, 0), PQgetvalue(c, 0, 1), md ? "**" : "", PQgetvalue(c, 0, 2),
            PQgetvalue(c, 0, 3), PQgetvalue(c, 0, 4)[0] ? ", finished " : "", PQgetvalue(c, 0, 4));
    /* The SUT configs in the order they ran, once each. */
    fprintf(out, "%sSUT config%s:", md ? "\n" : "", strcmp(PQgetvalue(c, 0, 5), "1") == 0 ? "" : "s");
    for (int i = 0, k = 0; i < PQntuples(r); i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(PQgetvalue(r, j, C_SUT), PQgetvalue(r, i, C_SUT)) == 0;
        if (!seen)
            fprintf(out, "%s %s", k++ ? ";" : "", PQgetvalue(r, i, C_SUT));
    }
    fputs(PQntuples(r) ? "\n\n" : " none: the campaign has no runs\n", out);
    PQclear(c);

    lg_tbl_t t = {.ncols = 15, .last_left = 1};
    static const char *const head[] = {"run", "SUT config", "protocol", "phase", "profile", "dir",
                                       "load", "state", "IOPS", "MB/s", "avg ms", "max ms",
                                       "stdev ms", "p99 ms", "note"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    for (int i = 0; i < PQntuples(r); i++) {
        char f[64];
        const char *phase = PQgetvalue(r, i, C_PHASE);
        int precond = strcmp(phase, "measure") != 0 && strcmp(phase, "search") != 0;
        lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, C_RUN));
        lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, C_SUT));
        lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, C_PROTOCOL));
        lg_tbl_add(&t, 0, "%s", precond ? "precond" : phase);
        lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, C_PROFILE));
        lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, C_DIR));
        if (strcmp(PQgetvalue(r, i, C_RATE), "0") != 0)
            lg_tbl_add(&t, 0, "%sT%sQ@%s", PQgetvalue(r, i, C_THREADS), PQgetvalue(r, i, C_QD),
                       PQgetvalue(r, i, C_RATE));
        else
            lg_tbl_add(&t, 0, "%sT%sQ", PQgetvalue(r, i, C_THREADS), PQgetvalue(r, i, C_QD));
        lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, C_STATE));
        lg_tbl_add(&t, 0, "%s", s_fig(f, sizeof f, r, i, C_IOPS, 1));
        lg_tbl_add(&t, 0, "%s", s_fig(f, sizeof f, r, i, C_MBS, 2));
        for (int col = C_AVG; col <= C_P99; col++)
            lg_tbl_add(&t, 0, "%s", s_fig(f, sizeof f, r, i, col, 3));
        /* what a reader must know about the row: a preconditioning's outcome, an error */
        char note[1024] = "";
        if (!PQgetisnull(r, i, C_SS_REACHED))
            snprintf(note, sizeof note, "%s: steady state %s after %s rounds", phase,
                     PQgetvalue(r, i, C_SS_REACHED)[0] == 't' ? "reached" : "NOT REACHED",
                     PQgetvalue(r, i, C_SS_ROUNDS));
        else if (precond)
            snprintf(note, sizeof note, "%s", phase);
        else if (!PQgetisnull(r, i, C_PROBE))
            snprintf(note, sizeof note, "probe %s%s%.3f ms all I/O", PQgetvalue(r, i, C_PROBE),
                     PQgetisnull(r, i, C_SVALUE) ? "" : ": ",
                     strtod(PQgetvalue(r, i, C_SVALUE), NULL));
        else if (!PQgetisnull(r, i, C_CURVE))
            snprintf(note, sizeof note, "curve: %s%% of the maximum", PQgetvalue(r, i, C_CURVE));
        if (!PQgetisnull(r, i, C_PROBE) && PQgetisnull(r, i, C_SVALUE))
            snprintf(note, sizeof note, "probe %s", PQgetvalue(r, i, C_PROBE));
        const char *e = PQgetvalue(r, i, C_ERROR);
        if (e[0])
            snprintf(note + strlen(note), sizeof note - strlen(note), "%s%s", note[0] ? "; " : "",
                     e);
        lg_tbl_add(&t, 0, "%s", note);
    }
    /* Columns up to state are text; the figures align right; the note is text again, but last. */
    lg_tbl_print(&t, fmt, 0, 8, out);
    lg_tbl_free(&t);
    PQclear(r);
    return s_searches(db, cid, md, out, err, errlen);
}

int lg_report_status(PGconn *db, const char *name, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {name};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT c.campaign_id, c.name, c.state,"
                        " count(*) FILTER (WHERE r.state = 'done'),"
                        " count(*) FILTER (WHERE r.state IN ('failed', 'aborted')), count(r.*),"
                        " coalesce(to_char(c.finished_at, 'YYYY-MM-DD HH24:MI:SS TZ'), ''),"
                        " coalesce(c.message, '')"
                        " FROM lg.v_campaign c LEFT JOIN lg.v_run r USING (campaign_id)"
                        " WHERE c.campaign_id = (SELECT max(campaign_id) FROM lg.v_campaign"
                        "   WHERE name = $1)"
                        " GROUP BY c.campaign_id, c.name, c.state, c.finished_at, c.message",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        char names[1024];
        lg_db_campaign_names(db, names, sizeof names);
        if (names[0])
            snprintf(err, errlen, "no campaign named \"%s\"; campaigns: %s", name, names);
        else
            snprintf(err, errlen, "no campaign named \"%s\": no campaigns in the database yet",
                     name);
        return LG_ENOTFOUND;
    }
    fprintf(out, "campaign %s \"%s\": %s, %s of %s runs done, %s failed or aborted%s%s\n",
            PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2), PQgetvalue(r, 0, 3),
            PQgetvalue(r, 0, 5), PQgetvalue(r, 0, 4), PQgetvalue(r, 0, 6)[0] ? "; finished " : "",
            PQgetvalue(r, 0, 6));
    if (PQgetvalue(r, 0, 7)[0])
        fprintf(out, "message: %s\n", PQgetvalue(r, 0, 7));
    fprintf(out, "(from the database: no controller runs it now)\n");
    PQclear(r);
    return 0;
}

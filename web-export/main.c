/* main.c: lg-export: run report queries (SQL files with a header of chart directives) against
 * the publishing views as the read-only role, and write a static site (site.c): an SVG chart,
 * CSV and JSON per query (per value of its each column) and an index.html that shows them all
 * without any script. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart.h"
#include "db.h"
#include "dbcli.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_opt.h"
#include "lg_owndir.h"
#include "lg_util.h"
#include "site.h"

#ifndef LG_QUERY_DIR
#define LG_QUERY_DIR "/usr/share/lg/queries"
#endif

static int s_run_query(PGconn *db, lg_site_chart_t *c, const char *campaign)
{
    char qerr[600];
    PGresult *r = NULL;
    if (lg_db_query(db, "BEGIN READ ONLY", 0, NULL, &r, qerr, sizeof qerr) != 0)
        goto timeout;
    if (!lg_db_result_ok(r))
        goto dberr;
    lg_db_result_destroy(&r);
    /* JIT compiling costs seconds on a busy host and wins nothing on a chart's few hundred rows
     * (lg.v_point's estimate of its per-run parts made PostgreSQL compile for every chart) */
    if (lg_db_query(db, "SET LOCAL ROLE lg_reader", 0, NULL, &r, qerr, sizeof qerr) != 0)
        goto timeout;
    if (!lg_db_result_ok(r))
        goto dberr;
    lg_db_result_destroy(&r);
    if (lg_db_query(db, "SET LOCAL jit = off", 0, NULL, &r, qerr, sizeof qerr) != 0)
        goto timeout;
    if (!lg_db_result_ok(r))
        goto dberr;
    lg_db_result_destroy(&r);
    const char *params[1] = {campaign};
    if (lg_db_query(db, c->spec.sql, c->spec.uses_campaign ? 1 : 0, params, &r, qerr,
                    sizeof qerr) != 0)
        goto timeout;
    if (!lg_db_result_tuples(r))
        goto dberr;
    if (lg_table_from_result(r, &c->table) != 0) {
        lg_db_result_destroy(&r);
        snprintf(c->err, sizeof c->err, "out of memory");
        lg_db_exec(db, "ROLLBACK", 0, NULL, NULL, qerr, sizeof qerr);
        return -1;
    }
    lg_db_result_destroy(&r);
    lg_db_exec(db, "COMMIT", 0, NULL, NULL, qerr, sizeof qerr);
    return 0;
timeout:
    snprintf(c->err, sizeof c->err, "%s.sql: %s", c->spec.name, qerr);
    return -1;
dberr:;
    /* The server's position is a character offset into the SQL; make it a line of the file
     * (the directive header was kept as blank lines, so lines match). */
    lg_db_error_t e;
    lg_db_result_error(r, &e);
    int line = 1;
    for (int i = 0; i < e.position - 1 && c->spec.sql[i]; i++)
        line += c->spec.sql[i] == '\n';
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", lg_db_result_message(r));
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    char *nl = strchr(msg, '\n'); /* keep the primary line; LINE/caret detail is ours to give */
    if (nl)
        *nl = '\0';
    snprintf(c->err, sizeof c->err, "%s.sql:%d: query failed: %s", c->spec.name, line, msg);
    lg_db_result_destroy(&r);
    lg_db_exec(db, "ROLLBACK", 0, NULL, NULL, qerr, sizeof qerr);
    return -1;
}

/* One query file: parse, run, check; no figures: no chart; else its files, or with each those
 * of each of its parts. Returns how many charts failed (0 or 1), logging why. */
static int s_make_chart(PGconn *db, lg_site_chart_t *c, const char *path, const char *campaign,
                        const char *out, lg_palette_t *pal)
{
    if (lg_chart_parse(path, &c->spec, c->err, sizeof c->err) != 0) {
        lg_error("%s", c->err);
        return 1;
    }
    c->parsed = true;
    if (s_run_query(db, c, campaign) != 0 ||
        lg_chart_check(&c->spec, &c->table, c->err, sizeof c->err) != 0) {
        char tmp[2048];
        if (!strstr(c->err, ".sql:")) /* a column check: name the file */
            snprintf(tmp, sizeof tmp, "%s: %s", path, c->err);
        else if (strchr(path, '/'))
            snprintf(tmp, sizeof tmp, "%.*s%s", (int)(strrchr(path, '/') - path + 1), path, c->err);
        else
            snprintf(tmp, sizeof tmp, "%s", c->err);
        snprintf(c->err, sizeof c->err, "%s", tmp);
        lg_error("%s", c->err);
        return 1;
    }
    if (c->table.nrows == 0) { /* e.g. a profile this campaign did not run: no empty chart */
        c->empty = true;
        lg_info("%s: no figures%s%s: no chart", c->spec.name, campaign ? " in campaign " : "",
                campaign ? campaign : "");
        return 0;
    }
    if (c->spec.each[0] && lg_site_split(c) != 0) {
        lg_error("%s: %s", path, c->err);
        return 1;
    }
    int failed = 0;
    for (int j = 0; j < (c->parts ? c->nparts : 1); j++) {
        lg_site_chart_t *w = c->parts ? &c->parts[j] : c;
        if (lg_site_write(out, w, pal) != 0) {
            lg_error("%s", w->err);
            failed = 1;
            continue;
        }
        fprintf(stdout, "%s/%s.svg\n", out, w->spec.name);
    }
    c->ok = !failed;
    return failed;
}

static int s_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The default set: every *.sql in dir, sorted by name. Caller frees each and the array. */
static int s_default_queries(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".sql") != 0)
            continue;
        char **nv = realloc(v, sizeof *v * (size_t)(n + 1));
        if (!nv)
            break;
        v = nv;
        size_t pl = strlen(dir) + l + 2;
        v[n] = malloc(pl);
        if (!v[n])
            break;
        snprintf(v[n], pl, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, s_cmp_str);
    *out = v;
    return n;
}

/* BIN/../share/lg/queries next to an installed binary, else the source tree's set. */
static void s_find_query_dir(char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        snprintf(buf, len, "%s/../share/lg/queries", dirname(exe));
        struct stat st;
        if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
            return;
    }
    snprintf(buf, len, "%s", LG_QUERY_DIR);
}

/* lg-export's command line. */
typedef struct {
    lg_dbcli_t db; /* --db (default $LG_DATABASE_URL), --data-dir, --timeout */
    const char *out, *campaign, *qdir;
    char **files; /* the query files given (argv's), nfiles of them */
    int nfiles;
} opts_t;

/* A query file given (argv's). */
static int s_file(void *ctx, const char *word, char *err, size_t errlen)
{
    opts_t *o = ctx;
    (void)err, (void)errlen;
    o->files[o->nfiles++] = (char *)word;
    return 0;
}

#define O(field) offsetof(opts_t, field)

/* lg-export's options, each written once: its command line, --help and lg-export(1)'s OPTIONS
 * come from this table. */
static const lg_opt_t s_opts[] = {
    LG_DBCLI_OPT_DB(opts_t, db),
    LG_DBCLI_OPT_DATA_DIR(opts_t, db,
                          "the database of lgctl's local mode in DIR (its private cluster,\n"
                          "started for the while when down, as lgctl does)"),
    {"out", 0, "DIR", LG_OPT_STR, 0, O(out), 0, 0, NULL,
     "where the site is written (created if missing)", NULL},
    {"campaign", 0, "NAME", LG_OPT_STR, 0, O(campaign), 0, 0, NULL,
     "value of the :campaign placeholder in the queries", NULL},
    {"queries", 0, "DIR", LG_OPT_STR, 0, O(qdir), 0, 0, NULL,
     "the default query set (used when no QUERY.sql is given)", NULL},
    LG_DBCLI_OPT_TIMEOUT(opts_t, db),
    {"version", 0, NULL, LG_OPT_VERSION, LG_OPT_CLI, 0, 0, 0, NULL, "print the version and exit",
     NULL},
    {"help", 'h', NULL, LG_OPT_HELP, LG_OPT_CLI | LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    /* the build's, for lg-export(1) (doc/man-page.sh) */
    {"man-options", 0, NULL, LG_OPT_MAN, LG_OPT_CLI | LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    {NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL},
};

static const lg_optset_t s_set = {
    "lg-export",
    "usage: lg-export [--db URL | --data-dir DIR] --out DIR [--campaign NAME] [--queries DIR]\n"
    "                 [--timeout S] [QUERY.sql ...]\n",
    "Each query is plain SQL after a header of directives:\n"
    "  -- chart: hbar|bar|line|scatter|timeseries|curve   -- title: ...   -- subtitle: ...\n"
    "  -- x: COL   -- y: COL   -- series: COL   -- unit: IOPS   -- sort: asc|desc|none\n"
    "  -- limit: COL (dashed line at its values)   -- mark: COL [LABEL] (ring true rows)\n"
    "  -- ci: LOW HIGH (error bars)   -- y2: COL  -- y2-title: ...  -- y2-unit: % (right axis)\n"
    "  -- each: COL (a chart per value)   -- group: COL [COL] (index.html's headings)\n"
    "  -- caveat: COL (lines under the chart)   -- label: COL (a label per point)\n"
    "  -- window: LO HI (a shaded span of x)   -- lower-is-better   -- log\n",
    15,
    s_opts,
    s_file,
    NULL};

/* Returns -1 to go on, else the exit status (0 after --help or --version). */
static int s_parse_args(int argc, char **argv, opts_t *o)
{
    char err[1024];
    int rc = lg_opt_parse(&s_set, argc, argv, o, err, sizeof err);
    if (rc == LG_OPT_DONE)
        return 0;
    if (rc) {
        lg_error("%s", err);
        if (rc == LG_ENOTFOUND)
            lg_opt_help(&s_set, stderr);
        return 2;
    }
    if (lg_dbcli_start(&o->db, NULL) != 0) /* --data-dir's check; Ctrl-C ends any wait */
        return 2;
    if (o->db.data_dir_given)
        o->db.url = NULL; /* --data-dir names the database outright */
    if (!o->out || (!o->db.url && !o->db.data_dir)) {
        lg_error("%s is required", !o->out ? "--out" : "--db, --data-dir or LG_DATABASE_URL");
        lg_opt_help(&s_set, stderr);
        return 2;
    }
    return -1;
}

/* Measured points without figures (of --campaign, else of the newest campaign) are named, and the
 * site, written all the same, is not the whole campaign: 1 when there is one, else 0. */
static int s_failed_points(PGconn *db, const char *campaign)
{
    char err[1024];
    int n = campaign ? lg_db_failed_points(db, campaign, NULL, stderr, err, sizeof err)
                     : lg_db_failed_points(db, NULL, NULL, stderr, err, sizeof err);
    if (n < 0)
        lg_error("could not read the failed points: %s", err);
    else if (n > 0)
        lg_error("%d measured point%s without figures (the lines above): the charts mark them "
                 "missing; lgctl rerun NAME --failed runs them again",
                 n, n == 1 ? "" : "s");
    return n != 0;
}

/* --campaign names one that is there (else an error, not a site of empty charts). 0 or 1. */
static int s_check_campaign(PGconn *db, const char *campaign)
{
    char err[4096];
    const char *p[1] = {campaign};
    PGresult *r = NULL;
    int qrc =
        lg_db_exec(db, "SELECT 1 FROM lg.v_campaign WHERE name = $1", 1, p, &r, err, sizeof err);
    int found = qrc == 0 && lg_db_nrows(r) > 0;
    lg_db_result_destroy(&r);
    if (qrc) {
        lg_error("--campaign: %s", err);
        return 1;
    }
    if (!found) {
        char names[1024];
        lg_db_campaign_names(db, names, sizeof names);
        lg_error("--campaign: no campaign named \"%s\"; campaigns: %s", campaign,
                 names[0] ? names : "(none yet)");
        return 1;
    }
    return 0;
}

/* What index.html says besides the charts, of campaign $1: the caveat lines of its points
 * (lg.v_point, in the order of their runs), the agents that ran it, the NAS's facts from its
 * telemetry (the CPUs, memory and system its exporter reported: cpu.count, mem.total and the
 * os.* keys of lg_telem.c) and the spec as stored. */
static const char *const s_fact_sql[4] = {
    "SELECT x.line AS caveat FROM lg.v_point p,"
    " unnest(string_to_array(p.caveat, E'\\n')) AS x(line)"
    " WHERE p.campaign = $1 GROUP BY x.line ORDER BY min(p.ordinal), x.line",
    "SELECT a.name AS agent, a.cpu_model, a.cpu_count, a.mem_bytes, a.os, a.fio_version,"
    " a.lg_version FROM lg.v_agent a WHERE a.agent_id IN (SELECT ra.agent_id"
    " FROM lg.v_run_agent ra JOIN lg.v_run r USING (run_id) JOIN lg.v_campaign c"
    " USING (campaign_id) WHERE c.name = $1) ORDER BY a.name",
    "SELECT d.source, max(d.val) FILTER (WHERE d.key = 'cpu.count')::bigint AS cpus,"
    " max(d.val) FILTER (WHERE d.key = 'mem.total')::bigint AS mem_total_bytes,"
    " nullif(concat_ws(', ',"
    "   string_agg(DISTINCT substr(d.key, 9), ' / ') FILTER (WHERE d.key LIKE 'os.name.%'),"
    "   string_agg(DISTINCT substr(d.key, 12), ' / ') FILTER (WHERE d.key LIKE 'os.sysname.%')"
    "   || coalesce(' ' || string_agg(DISTINCT substr(d.key, 12), ' / ')"
    "   FILTER (WHERE d.key LIKE 'os.release.%'), '')), '') AS os"
    " FROM lg.v_sut_delta d JOIN lg.v_run r USING (run_id)"
    " JOIN lg.v_campaign c USING (campaign_id) WHERE c.name = $1"
    " GROUP BY d.source ORDER BY d.source",
    "SELECT spec, spec_path FROM lg.v_campaign WHERE name = $1"};

/* Reads the facts of campaign into f, as lg_reader in a read-only transaction. 0, or -1 logged
 * (the page is then written without them). */
static int s_read_facts(PGconn *db, const char *campaign, lg_site_facts_t *f)
{
    char err[600];
    lg_table_t *dst[4] = {&f->caveats, &f->agents, &f->nas, &f->spec};
    const char *p[1] = {campaign};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, "BEGIN READ ONLY", 0, NULL, NULL, err, sizeof err);
    if (rc == 0)
        rc = lg_db_exec(db, "SET LOCAL ROLE lg_reader", 0, NULL, NULL, err, sizeof err);
    if (rc == 0)
        rc = lg_db_exec(db, "SET LOCAL jit = off", 0, NULL, NULL, err, sizeof err);
    for (int i = 0; rc == 0 && i < 4; i++) {
        rc = lg_db_exec(db, s_fact_sql[i], 1, p, &r, err, sizeof err);
        if (rc == 0 && lg_table_from_result(r, dst[i]) != 0) {
            snprintf(err, sizeof err, "out of memory");
            rc = -1;
        }
        lg_db_result_destroy(&r);
    }
    char e2[256];
    lg_db_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", 0, NULL, NULL, e2, sizeof e2);
    if (rc != 0)
        lg_error("index.html: the caveats and the test bed: %s", err);
    return rc;
}

/* Every chart of the queries, then the index. Returns the exit status. */
static int s_write_site(PGconn *db, char **queries, int n, const char *campaign, const char *out)
{
    lg_site_chart_t *cs = calloc((size_t)n, sizeof *cs);
    lg_palette_t pal = {0};
    int failed = 0, nempty = 0;
    for (int i = 0; cs && i < n; i++)
        failed += s_make_chart(db, &cs[i], queries[i], campaign, out, &pal);
    for (int i = 0; cs && i < n; i++)
        nempty += cs[i].empty;
    lg_site_facts_t facts;
    memset(&facts, 0, sizeof facts);
    int frc = campaign ? s_read_facts(db, campaign, &facts) : 0;
    int rc = cs ? lg_site_write_index(out, cs, n, campaign, &facts, &pal) : -1;
    lg_site_facts_clear(&facts);
    rc = rc ? rc : frc;
    if (rc == 0)
        fprintf(stdout, "%s/index.html\n", out);
    for (int i = 0; cs && i < n; i++)
        lg_site_chart_clear(&cs[i]);
    free(cs);
    lg_palette_clear(&pal);
    if (failed)
        lg_error("%d of %d charts failed", failed, n);
    if (!failed && nempty == n) {
        lg_error("none of the %d queries found any figures%s%s", n, campaign ? " of campaign " : "",
                 campaign ? campaign : "");
        return 1;
    }
    return failed || rc ? 1 : 0;
}

/* The site's folder, out of other users' hands (lg-export often runs as root), the database
 * (--data-dir's own cluster or a connection string) and the site. */
static int s_run(opts_t *o, char **queries, int n)
{
    char err[4096];
    static char out_real[4096];
    if (lg_owndir(o->out, 0755, LG_OWNDIR_ROOT_OK, out_real, sizeof out_real, err, sizeof err) !=
        0) {
        lg_error("--out: %s", err);
        return 1;
    }
    lg_db_open_t d; /* --data-dir's own cluster, else the connection string */
    if (lg_db_open(o->db.url, o->db.data_dir, &d, err, sizeof err) != 0) {
        if (o->db.data_dir)
            lg_error("--data-dir %s: %s", o->db.data_dir, err);
        else
            lg_error("%s", err);
        return 1;
    }
    int rc = 1;
    if (!o->campaign || s_check_campaign(d.db, o->campaign) == 0)
        rc = s_write_site(d.db, queries, n, o->campaign, out_real);
    if (rc == 0 && s_failed_points(d.db, o->campaign) != 0)
        rc = 1;
    lg_db_open_clear(&d);
    return rc;
}

int main(int argc, char **argv)
{
    opts_t o;
    memset(&o, 0, sizeof o);
    /* as lgctl starts: named lg-export, 10 s a statement (--timeout), Ctrl-C ends any wait */
    lg_dbcli_init(&o.db, "lg-export", 0);
    o.files = calloc((size_t)argc + 1, sizeof *o.files);
    if (!o.files)
        return 2;
    int rc = s_parse_args(argc, argv, &o);
    char **deflt = NULL;
    int ndef = 0;
    if (rc < 0 && o.nfiles == 0) {
        char dirbuf[PATH_MAX];
        if (!o.qdir) {
            s_find_query_dir(dirbuf, sizeof dirbuf);
            o.qdir = dirbuf;
        }
        ndef = s_default_queries(o.qdir, &deflt);
        if (ndef <= 0) {
            lg_error("no queries in \"%s\"", o.qdir);
            rc = 2;
        }
    }
    if (rc < 0)
        rc = o.nfiles ? s_run(&o, o.files, o.nfiles) : s_run(&o, deflt, ndef);
    for (int i = 0; i < ndef; i++)
        free(deflt[i]);
    free(deflt);
    free(o.files);
    return rc;
}

/* import.c: bare fio JSON results into the database as a campaign. Each file is one run; with
 * fio's client mode, each fio server (hostname) is one agent of that run. Figures are merged
 * exactly as for runs lg made itself, so one job's figures stay fio's own. */
#include "import.h"
#include "import_common.h"
#include "import_int.h"

#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_fio.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "resultrow.h"

#define MAX_FILE (512u << 20)
#define MAX_HOSTS 64

/* The j-th job object of the report as lg_fio_report_parse counts them ("jobs", or the
 * "client_stats" of client mode without its "All clients" aggregate); NULL if there is none. */
static json_t *s_job_obj(json_t *root, size_t j)
{
    json_t *jobs = json_object_get(root, "jobs");
    if (!json_is_array(jobs))
        jobs = json_object_get(root, "client_stats");
    size_t i, k = 0;
    json_t *o;
    json_array_foreach(jobs, i, o)
    {
        json_t *name = json_object_get(o, "jobname");
        if (json_is_string(name) && !strcmp(json_string_value(name), "All clients"))
            continue;
        if (k++ == j)
            return o;
    }
    return NULL;
}

/* The total-latency percentiles fio printed for job j, direction d (lat_ns.percentile, there
 * with lat_percentiles=1), as JSON text; NULL when fio printed none. Caller frees. */
/* A job option of job j ("job options"), else the file's "global options". */
static const char *s_job_option(json_t *root, size_t j, const char *key)
{
    json_t *v = json_object_get(json_object_get(s_job_obj(root, j), "job options"), key);
    if (!json_is_string(v))
        v = json_object_get(json_object_get(root, "global options"), key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The total-latency percentiles fio printed for job j, direction d (lat_ns.percentile, there
 * with lat_percentiles=1; fio 3.0 to 3.6 printed them under clat_ns, the option turning
 * completion-latency percentiles off), as JSON text; NULL when fio printed none. Caller frees. */
static char *s_printed_pct(json_t *root, size_t j, lg_dir_t d)
{
    json_t *dir = json_object_get(s_job_obj(root, j), lg_dir_name(d));
    json_t *pct = json_object_get(json_object_get(dir, "lat_ns"), "percentile");
    const char *lp = s_job_option(root, j, "lat_percentiles");
    if (!pct && json_object_get(dir, "lat_ns") && lp && !strcmp(lp, "1"))
        pct = json_object_get(json_object_get(dir, "clat_ns"), "percentile");
    if (json_is_object(pct))
        json_object_del(pct, "0.00"); /* fio 3.0 to 3.6 fill their list with "0.00": 0 */
    return json_is_object(pct) && json_object_size(pct) ? json_dumps(pct, JSON_COMPACT) : NULL;
}

/* The completion-latency percentiles fio printed for job j, direction d: clat_ns.percentile
 * (fio-3; fio-2's clat.percentile is in us, made ns), unless lat_percentiles=1 made them total
 * latency's (s_printed_pct). JSON text, or NULL when fio printed none. Caller frees. */
static char *s_printed_clat(json_t *root, size_t j, lg_dir_t d)
{
    const char *lp = s_job_option(root, j, "lat_percentiles");
    if (lp && !strcmp(lp, "1"))
        return NULL;
    json_t *dir = json_object_get(s_job_obj(root, j), lg_dir_name(d));
    json_t *pct = json_object_get(json_object_get(dir, "clat_ns"), "percentile");
    double scale = 1;
    if (!pct && json_object_get(dir, "clat")) {
        pct = json_object_get(json_object_get(dir, "clat"), "percentile");
        scale = 1000;
    }
    if (!json_is_object(pct))
        return NULL;
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(pct, k, v)
    {
        if (strcmp(k, "0.00") != 0 && json_is_number(v)) /* fio 3.0 to 3.6 pad with "0.00" */
            json_object_set_new(out, k, json_integer((json_int_t)(json_number_value(v) * scale)));
    }
    char *text = json_object_size(out) ? json_dumps(out, JSON_COMPACT) : NULL;
    json_decref(out);
    return text;
}

static uint64_t s_agent(PGconn *db, const char *name, const char *fio_version, char *err,
                        size_t errlen)
{
    const char *p[2] = {name, fio_version};
    PGresult *r = NULL;
    if (lg_db_exec(db,
                   "INSERT INTO lg.agent (name, fio_version) VALUES ($1, $2) ON CONFLICT (name)"
                   " DO UPDATE SET last_seen = now() RETURNING agent_id",
                   2, p, &r, err, errlen))
        return 0;
    uint64_t id = strtoull(lg_db_get(r, 0, lg_db_col(r, "agent_id")), NULL, 10);
    lg_db_result_destroy(&r);
    return id;
}

/* One fio reporting group on its way to being one run: where it comes from, what it ran, and
 * its figures per host as they are merged and stored. */
typedef struct {
    PGconn *db;
    const char *path, *text; /* the file and its final report, verbatim */
    json_t *root;            /* the report parsed (NULL: no job options known) */
    lg_fio_report_t *rep;    /* this group's jobs only */
    const size_t *map;       /* map[j]: job j's index in the file's own list */
    const char *tag;         /* " report N" (several runs in the file), " group N" (several
                              * groups in its report), both, or "" */
    char *err;
    size_t errlen;
    /* what it ran */
    const char *rw, *file, *direct;
    uint64_t bs, qd, rate;
    char bssplit[256];
    int has[LG_DIR_NR]; /* directions that did workload I/O */
    const char *direction;
    int read_pct;
    char profile[64];
    char failed[512]; /* a job ended with fio's error: the run failed, with no figures */
    const char *hosts[MAX_HOSTS]; /* fio's client mode reports jobs per server */
    size_t nhosts, per_host_jobs;
    uint64_t runtime_ms;
    /* what is stored */
    uint64_t run_id;
    lg_dirstats_t *per[MAX_HOSTS][LG_DIR_NR]; /* each host's jobs merged */
    char *one_pct[LG_DIR_NR];                 /* one host of one job: fio's own percentiles */
    char *one_clat[LG_DIR_NR];                /* and its completion-latency ones */
    int warned, warned_lat;
} group_t;

static const char *s_opt(const group_t *g, size_t j, const char *key)
{
    return g->root ? s_job_option(g->root, j, key) : NULL;
}

/* The queue depth of each job (they may differ): the deepest, said when they differ. */
static void s_group_qd(group_t *g)
{
    int qd_differs = 0;
    for (size_t j = 0; j < g->rep->njobs; j++) {
        const char *q = s_opt(g, g->map[j], "iodepth");
        uint64_t v = 1;
        if (q)
            lg_parse_u64(q, 1, 65536, &v);
        if (g->qd && v != g->qd)
            qd_differs = 1;
        if (v > g->qd)
            g->qd = v;
    }
    if (!g->qd)
        g->qd = 1;
    if (qd_differs)
        lg_warn("\"%s\"%s: its jobs ran at different iodepths; the run records the deepest, "
                "%llu",
                g->path, g->tag, (unsigned long long)g->qd);
}

/* bssplit as lg stores it: "4096/50:65536/50" (fio's own form, read the way a spec's is; only
 * the first direction's list when fio's has one per direction) */
static void s_group_bssplit(group_t *g, const char *bssplit_s)
{
    char first[256];
    lg_strlcpy(first, bssplit_s, sizeof first);
    first[strcspn(first, ",")] = 0;
    lg_bssplit_t bsp[LG_MAX_BSSPLIT];
    size_t nb = 0, o = 0;
    uint32_t total = 0;
    if (lg_parse_bssplit(first, bsp, LG_MAX_BSSPLIT, &nb, &total) != 0 || total != 100)
        lg_warn("\"%s\"%s: bssplit \"%s\" is not BS/PERCENT pairs adding up to 100: not "
                "recorded",
                g->path, g->tag, bssplit_s);
    else
        for (size_t k = 0; k < nb && o < sizeof g->bssplit; k++)
            o += (size_t)snprintf(g->bssplit + o, sizeof g->bssplit - o, "%s%u/%u", k ? ":" : "",
                                  bsp[k].bs, bsp[k].pct);
}

/* The directions fio's rw= asks for (read, write or both); unknown values leave has alone. */
static void s_rw_dirs(const char *rw, int has[LG_DIR_NR])
{
    static const struct {
        const char *rw;
        int r, w;
    } m[] = {{"read", 1, 0},      {"randread", 1, 0}, {"write", 0, 1},     {"randwrite", 0, 1},
             {"trimwrite", 0, 1}, {"rw", 1, 1},       {"readwrite", 1, 1}, {"randrw", 1, 1}};
    for (size_t i = 0; i < sizeof m / sizeof *m; i++)
        if (!strcmp(rw, m[i].rw)) {
            has[0] = m[i].r;
            has[1] = m[i].w;
        }
}

/* The directions that did I/O, summed over all jobs, and what the run is: read, write or mixed,
 * with its read percentage. */
static void s_group_direction(group_t *g, const char *verify, const char *mix)
{
    lg_dirstats_t *tot = malloc(sizeof *tot);
    for (int d = 0; tot && d < LG_DIR_NR; d++) {
        lg_fio_report_total(g->rep, (lg_dir_t)d, tot);
        g->has[d] = tot->ios > 0;
    }
    free(tot);
    /* A write job with verify= reads back what it wrote: those reads are not the workload's. */
    const char *rw = g->rw;
    int writes_only =
        rw && (!strcmp(rw, "write") || !strcmp(rw, "randwrite") || !strcmp(rw, "trimwrite"));
    if (writes_only && verify && strcmp(verify, "0") != 0 && strcmp(verify, "none") != 0 &&
        g->has[0]) {
        g->has[0] = 0;
        lg_warn("\"%s\"%s: the reads of its verify=%s are not counted as workload reads", g->path,
                g->tag, verify);
    }
    if (!g->has[0] && !g->has[1] && !g->has[2] && rw) /* no I/O (a failed job): what it ran */
        s_rw_dirs(rw, g->has);
    g->direction = g->has[0] && g->has[1] ? "mixed" : g->has[1] ? "write" : "read";
    if (!g->has[0] && !g->has[1] && !g->has[2] && !rw) /* fio-2.2 printed no job options */
        g->direction = "unknown";
    uint64_t mixv = 50;
    if (mix)
        lg_parse_u64(mix, 0, 100, &mixv);
    g->read_pct = g->has[0] && g->has[1] ? (int)mixv : g->has[1] ? 0 : 100;
}

/* The profile's name: the file's, without its extension; "name.g1", "name.g2" for several
 * groups in one file, "name.r2" (and "name.r2.g1") for the second of several runs appended to
 * it (tag " report 2 group 1"). */
static void s_group_profile(group_t *g)
{
    char tmp[1100];
    lg_strlcpy(tmp, g->path, sizeof tmp);
    lg_strlcpy(g->profile, basename(tmp), sizeof g->profile);
    char *dot = strrchr(g->profile, '.');
    if (dot && dot != g->profile)
        *dot = 0;
    static const struct {
        const char *word, *suffix;
    } parts[] = {{" report ", ".r"}, {" group ", ".g"}};
    for (size_t i = 0; i < 2; i++) {
        const char *p = strstr(g->tag, parts[i].word);
        if (!p)
            continue;
        long v = strtol(p + strlen(parts[i].word), NULL, 10);
        size_t o = strlen(g->profile);
        snprintf(g->profile + o, sizeof g->profile - o, "%s%ld", parts[i].suffix, v);
    }
}

/* The hosts (agents), the threads per host and the longest runtime. */
static void s_group_hosts(group_t *g)
{
    const lg_fio_report_t *rep = g->rep;
    for (size_t j = 0; j < rep->njobs; j++) {
        const char *h = rep->jobs[j].host;
        size_t k = 0;
        while (k < g->nhosts && strcmp(g->hosts[k], h) != 0)
            k++;
        if (k == g->nhosts && g->nhosts < MAX_HOSTS)
            g->hosts[g->nhosts++] = h;
    }
    /* Threads per host: a job entry stands for numjobs jobs when group_reporting merged them. */
    size_t threads_total = 0;
    for (size_t j = 0; j < rep->njobs; j++) {
        uint64_t nj = 1;
        const char *gr = s_opt(g, g->map[j], "group_reporting");
        const char *njs = s_opt(g, g->map[j], "numjobs");
        if (gr && njs)
            lg_parse_u64(njs, 1, 1u << 20, &nj);
        threads_total += nj;
    }
    g->per_host_jobs = g->nhosts ? (threads_total + g->nhosts - 1) / g->nhosts : threads_total;
    for (size_t j = 0; j < rep->njobs; j++)
        for (int d = 0; d < LG_DIR_NR; d++)
            if (rep->jobs[j].dir[d].runtime_ms > g->runtime_ms)
                g->runtime_ms = rep->jobs[j].dir[d].runtime_ms;
}

/* What the group ran, from its job options (job j0's for the run's), the report and the file's
 * name. */
static void s_group_read(group_t *g)
{
    size_t j0 = g->map[0];
    g->rw = s_opt(g, j0, "rw");
    const char *bs_s = s_opt(g, j0, "bs");
    const char *mix = s_opt(g, j0, "rwmixread");
    g->file = s_opt(g, j0, "filename");
    g->direct = s_opt(g, j0, "direct");
    const char *verify = s_opt(g, j0, "verify");
    const char *bssplit_s = s_opt(g, j0, "bssplit");
    const char *rate_s = s_opt(g, j0, "rate_iops");
    g->bs = 4096;
    if (bs_s)
        lg_parse_size(bs_s, &g->bs);
    if (rate_s)
        lg_parse_u64(rate_s, 0, UINT32_MAX, &g->rate);
    s_group_qd(g);
    if (bssplit_s)
        s_group_bssplit(g, bssplit_s);
    s_group_direction(g, verify, mix);
    s_group_profile(g);
    s_group_hosts(g);
}

/* A job that ended with an error did not run what was asked, whatever it measured: its run is
 * kept as a failed point (its error said), out of every figure, as lg keeps its own failed
 * runs, rather than dropped or refused, so that a review shows the point and why it is empty. */
static void s_group_failed(group_t *g)
{
    size_t nfailed = 0, first = 0;
    for (size_t j = 0; j < g->rep->njobs; j++)
        if (g->rep->jobs[j].error != 0 && nfailed++ == 0)
            first = j;
    if (!nfailed)
        return;
    const lg_fio_job_t *job = &g->rep->jobs[first];
    char more[64] = "";
    if (nfailed > 1)
        snprintf(more, sizeof more, " (and %zu more of its %zu jobs)", nfailed - 1, g->rep->njobs);
    snprintf(g->failed, sizeof g->failed, "fio job \"%s\"%s%s failed with error %d (%s)%s",
             job->name, job->host[0] ? " on " : "", job->host, job->error,
             job->error > 0 ? strerror(job->error) : "fio's own", more);
    lg_warn("\"%s\"%s: %s: stored as a failed run, without figures", g->path, g->tag, g->failed);
}

/* The run's row (state done, or failed with its error; protocol import); sets g->run_id. */
static int s_insert_run(group_t *g, size_t ordinal, const char *cid, const char *sut)
{
    char ord[16], bsv[16], rp[16], th[16], qdv[16], rt[16];
    snprintf(ord, sizeof ord, "%zu", ordinal);
    snprintf(bsv, sizeof bsv, "%llu", (unsigned long long)g->bs);
    snprintf(rp, sizeof rp, "%d", g->read_pct);
    snprintf(th, sizeof th, "%zu", g->per_host_jobs);
    snprintf(qdv, sizeof qdv, "%llu", (unsigned long long)g->qd);
    snprintf(rt, sizeof rt, "%llu", (unsigned long long)((g->runtime_ms + 999) / 1000));
    char ratev[24];
    snprintf(ratev, sizeof ratev, "%llu", (unsigned long long)g->rate);
    const char *p[17] = {cid,
                         ord,
                         sut,
                         g->profile,
                         g->direction,
                         g->rw ? g->rw : "unknown",
                         bsv,
                         rp,
                         th,
                         qdv,
                         rt,
                         g->file ? g->file : "",
                         g->direct && !strcmp(g->direct, "1") ? "t" : "f",
                         g->bssplit,
                         ratev,
                         g->failed[0] ? "failed" : "done",
                         g->failed[0] ? g->failed : NULL};
    PGresult *r = NULL;
    int rc =
        lg_db_exec(g->db,
                   "INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile, direction,"
                   " rw, bs, read_pct, threads, qd, ramp_s, runtime_s, target_kind, target,"
                   " size_bytes, direct, protocol, state, started_at, finished_at, error, bssplit,"
                   " rate_iops)"
                   " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $11, 'file', $12, 0,"
                   " $13, 'import', $16, now(), now(), $17, $14, $15) RETURNING run_id",
                   17, p, &r, g->err, g->errlen);
    if (rc == 0) {
        g->run_id = strtoull(lg_db_get(r, 0, lg_db_col(r, "run_id")), NULL, 10);
        lg_db_result_destroy(&r);
    }
    return rc;
}

/* Host k as an agent of the run: its row with the whole file and its job count, and the depth
 * that ran (021_qd_achieved): of this group's jobs on this server only. Sets *aid. */
static int s_insert_run_agent(group_t *g, size_t k, uint64_t *aid)
{
    char aname[192];
    snprintf(aname, sizeof aname, g->hosts[k][0] ? "import:%s" : "import", g->hosts[k]);
    *aid = s_agent(g->db, aname, g->rep->fio_version, g->err, g->errlen);
    if (!*aid)
        return LG_EDB;
    char rid[24], aids[24], nj[16];
    snprintf(rid, sizeof rid, "%llu", (unsigned long long)g->run_id);
    snprintf(aids, sizeof aids, "%llu", (unsigned long long)*aid);
    size_t njobs = 0;
    for (size_t j = 0; j < g->rep->njobs; j++)
        njobs += strcmp(g->rep->jobs[j].host, g->hosts[k]) == 0;
    snprintf(nj, sizeof nj, "%zu", njobs);
    const char *pa[6] = {
        rid, aids, nj, g->text, g->failed[0] ? "failed" : "done", g->failed[0] ? g->failed : NULL};
    int rc = lg_db_exec(g->db,
                        "INSERT INTO lg.run_agent (run_id, agent_id, state, fio_exit, njobs,"
                        " fio_json, error) VALUES ($1, $2, $5, 0, $3, $4, $6)",
                        6, pa, NULL, g->err, g->errlen);
    /* The depth that ran (021_qd_achieved): of this group's jobs on this server only, the
     * row holding the whole file. */
    char gid[16];
    snprintf(gid, sizeof gid, "%d", g->rep->jobs[0].groupid);
    const char *pq[4] = {rid, aids, gid, g->hosts[k]};
    if (rc == 0)
        rc = lg_db_exec(g->db,
                        "UPDATE lg.run_agent ra SET (qd_achieved, qd_inflight, qd_jobs) ="
                        " (SELECT q.qd_achieved, q.qd_inflight, q.qd_jobs"
                        " FROM lg.fio_qd(ra.fio_json, $3::integer, $4) q)"
                        " WHERE ra.run_id = $1 AND ra.agent_id = $2",
                        4, pq, NULL, g->err, g->errlen);
    return rc;
}

/* Several jobs that ran for clearly different lengths (a size-bound job ending early): IOPS and
 * bandwidth as fio computes a group's, the total I/O over the longest runtime, since a sum of
 * per-job rates would count the short job's rate for the whole run. Jobs of one length keep
 * lg's merge (the sum of fio's own rates). */
static void s_fix_rates(lg_dirstats_t *m, const lg_dirstats_t *const *list, size_t n)
{
    uint64_t rt_min = UINT64_MAX;
    for (size_t q = 0; q < n; q++)
        if (list[q]->runtime_ms < rt_min)
            rt_min = list[q]->runtime_ms;
    if (n > 1 && m->runtime_ms > 0 && (m->runtime_ms - rt_min) * 100 > m->runtime_ms) {
        m->iops = (double)m->ios * 1000.0 / (double)m->runtime_ms;
        m->bw_bytes = (double)m->bytes * 1000.0 / (double)m->runtime_ms;
    }
}

/* Host k's jobs in direction d merged and stored as agent aid's figures (the percentiles fio
 * printed when they are exact); what cannot be stored exactly is said once per file. */
static int s_store_host_dir(group_t *g, size_t k, int d, uint64_t aid)
{
    const lg_fio_report_t *rep = g->rep;
    const lg_dirstats_t *list[4096];
    size_t n = 0;
    for (size_t j = 0; j < rep->njobs && n < 4096; j++)
        if (strcmp(rep->jobs[j].host, g->hosts[k]) == 0)
            list[n++] = &rep->jobs[j].dir[d];
    lg_dirstats_t *m = g->per[k][d] = malloc(sizeof(lg_dirstats_t));
    if (!m)
        return -ENOMEM;
    lg_dirstats_merge(m, list, n);
    s_fix_rates(m, list, n);
    /* Without a histogram (plain json), the percentiles fio printed are exact for one
     * job only: several jobs' percentiles cannot be merged, and stay NULL. */
    char *printed = NULL;
    if (!m->has_hist && n == 1)
        for (size_t j = 0; j < rep->njobs && !printed; j++)
            if (strcmp(rep->jobs[j].host, g->hosts[k]) == 0)
                printed = s_printed_pct(g->root, g->map[j], (lg_dir_t)d);
    if (printed && g->nhosts == 1)
        g->one_pct[d] = strdup(printed);
    /* fio's default: completion-latency percentiles, kept as clat_p99_ms and the like */
    char *clat = NULL;
    for (size_t j = 0; n == 1 && j < rep->njobs && !clat; j++)
        if (strcmp(rep->jobs[j].host, g->hosts[k]) == 0)
            clat = s_printed_clat(g->root, g->map[j], (lg_dir_t)d);
    if (clat && g->nhosts == 1)
        g->one_clat[d] = strdup(clat);
    if (!m->has_hist && !printed && m->lat_n > 0 && !g->warned) {
        g->warned = 1;
        lg_warn("\"%s\": %s; its total-latency percentiles (p99_ms ...) are stored as NULL (run "
                "fio with lat_percentiles=1, or --output-format=json+ for exact merges)",
                g->path,
                n > 1  ? "several jobs without histograms, whose percentiles cannot be "
                         "merged exactly"
                : clat ? "fio printed completion-latency percentiles only, its default: they "
                         "are stored as such (clat_p50_ms ... clat_p99_99_ms)"
                       : "fio printed no latency percentiles");
    }
    if (m->lat_n == 0 && !g->warned_lat) {
        g->warned_lat = 1;
        lg_warn("\"%s\": no latency was measured (gtod_reduce=1?): latency is stored as "
                "NULL, not 0 ms",
                g->path);
    }
    int rc =
        lg_results_store_pct(g->db, g->run_id, aid, (lg_dir_t)d, m, printed, g->err, g->errlen);
    if (rc == 0 && clat && m->lat_n > 0)
        rc = lg_results_store_clat(g->db, g->run_id, aid, (lg_dir_t)d, clat, g->err, g->errlen);
    free(printed);
    free(clat);
    return rc;
}

/* Per agent (host): its jobs merged; then all agents merged; then the run's achieved depth. */
static int s_store_figures(group_t *g)
{
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < g->nhosts; k++) {
        uint64_t aid = 0;
        rc = s_insert_run_agent(g, k, &aid);
        for (int d = 0; rc == 0 && !g->failed[0] && d < LG_DIR_NR; d++)
            if (g->has[d] || (d == 0 && !g->has[0] && !g->has[1]))
                rc = s_store_host_dir(g, k, d, aid);
    }
    for (int d = 0; rc == 0 && d < LG_DIR_NR; d++) {
        const lg_dirstats_t *list[MAX_HOSTS];
        size_t n = 0;
        for (size_t k = 0; k < g->nhosts; k++)
            if (g->per[k][d])
                list[n++] = g->per[k][d];
        if (n == 0)
            continue;
        lg_dirstats_t *m = malloc(sizeof *m);
        if (!m) {
            rc = -ENOMEM;
            break;
        }
        lg_dirstats_merge(m, list, n);
        rc = lg_results_store_pct(g->db, g->run_id, 0, (lg_dir_t)d, m, g->one_pct[d], g->err,
                                  g->errlen);
        if (rc == 0 && g->one_clat[d] && m->lat_n > 0)
            rc = lg_results_store_clat(g->db, g->run_id, 0, (lg_dir_t)d, g->one_clat[d], g->err,
                                       g->errlen);
        free(m);
    }
    if (rc == 0) {
        char rid[24];
        snprintf(rid, sizeof rid, "%llu", (unsigned long long)g->run_id);
        const char *pr[1] = {rid};
        rc = lg_db_exec(g->db,
                        "UPDATE lg.run r SET (qd_achieved, qd_inflight) ="
                        " (SELECT q.qd_achieved, q.qd_inflight FROM lg.run_qd(r.run_id) q)"
                        " WHERE r.run_id = $1",
                        1, pr, NULL, g->err, g->errlen);
    }
    return rc;
}

/* One fio reporting group as one run. rep holds that group's jobs only; map[j] is job j's index
 * in the file's own list (for its options and printed percentiles); tag names the group when a
 * file has several. */
static int s_one_group(PGconn *db, const char *path, const char *text, json_t *root,
                       lg_fio_report_t *rep, const size_t *map, const char *tag, size_t ordinal,
                       const char *cid, const char *sut, char *err, size_t errlen)
{
    group_t *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    g->db = db;
    g->path = path;
    g->text = text;
    g->root = root;
    g->rep = rep;
    g->map = map;
    g->tag = tag;
    g->err = err;
    g->errlen = errlen;
    s_group_read(g);
    s_group_failed(g);
    int rc = s_insert_run(g, ordinal, cid, sut);
    if (rc == 0)
        rc = s_store_figures(g);
    for (size_t k = 0; k < g->nhosts; k++)
        for (int d = 0; d < LG_DIR_NR; d++)
            free(g->per[k][d]);
    for (int d = 0; d < LG_DIR_NR; d++) {
        free(g->one_pct[d]);
        free(g->one_clat[d]);
    }
    free(g);
    if (rc && !strstr(err, path)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "\"%s\": %s", path, err);
        lg_strlcpy(err, msg, errlen);
    }
    return rc;
}

/* What was said about older fio versions' conversions: once per version, not once per file. */
typedef struct {
    char version[16][64];
    unsigned conv[16];
    size_t n;
} said_t;

static void s_say_conv(said_t *said, const char *path, const lg_fio_report_t *rep)
{
    for (size_t i = 0; i < said->n; i++)
        if (said->conv[i] == rep->conv && !strcmp(said->version[i], rep->fio_version))
            return;
    char words[512];
    lg_fio_conv_describe(rep->conv, words, sizeof words);
    lg_info("\"%s\" is %s output: %s%s", path, rep->fio_version[0] ? rep->fio_version : "fio",
            words, said->n < 16 ? " (said once for the files of this version)" : "");
    if (said->n < 16) {
        lg_strlcpy(said->version[said->n], rep->fio_version, sizeof said->version[0]);
        said->conv[said->n++] = rep->conv;
    }
}

/* One final report of a file: a run per fio reporting group (a stonewall starts a new group: the
 * groups ran one after another, so their figures are never summed as if they had run together).
 * rtag: " report N" when the file holds several runs' reports, else "". */
static int s_one_report(PGconn *db, const char *path, fio_final_t *f, const char *rtag,
                        size_t *ordinal, const char *cid, const char *sut, char *err, size_t errlen)
{
    const lg_fio_report_t *rep = f->rep;
    json_error_t je;
    json_t *root = json_loads(f->text, 0, &je);
    int groups[256];
    size_t ng = 0;
    int rc = 0;
    for (size_t j = 0; j < rep->njobs; j++) {
        size_t g = 0;
        while (g < ng && groups[g] != rep->jobs[j].groupid)
            g++;
        if (g == ng && ng < 256)
            groups[ng++] = rep->jobs[j].groupid;
    }
    lg_fio_report_t sub = *rep;
    sub.jobs = calloc(rep->njobs ? rep->njobs : 1, sizeof *sub.jobs);
    size_t *map = calloc(rep->njobs ? rep->njobs : 1, sizeof *map);
    if (!sub.jobs || !map)
        rc = -ENOMEM;
    for (size_t g = 0; rc == 0 && g < ng; g++) {
        sub.njobs = 0;
        for (size_t j = 0; j < rep->njobs; j++)
            if (rep->jobs[j].groupid == groups[g]) {
                sub.jobs[sub.njobs] = rep->jobs[j];
                map[sub.njobs++] = j;
            }
        char tag[64];
        snprintf(tag, sizeof tag, "%s", rtag);
        if (ng > 1)
            snprintf(tag + strlen(tag), sizeof tag - strlen(tag), " group %d", groups[g]);
        rc = s_one_group(db, path, f->text, root, &sub, map, tag, (*ordinal)++, cid, sut, err,
                         errlen);
    }
    free(sub.jobs);
    free(map);
    json_decref(root);
    return rc;
}

/* One file: each final report in it (one, or one per run appended to it). */
static int s_one(PGconn *db, const char *path, size_t *ordinal, const char *cid, const char *sut,
                 said_t *said, char *err, size_t errlen)
{
    fio_finals_t f;
    int rc = lg__import_read(path, &f, err, errlen);
    if (rc)
        return rc;
    if (f.n > 1)
        lg_info("\"%s\" holds the reports of %zu fio runs, one after another: each is a run of "
                "its own (profile \"NAME.rN\")",
                path, f.n);
    for (size_t i = 0; rc == 0 && i < f.n; i++) {
        if (f.v[i].rep->conv) /* an older fio: what lg derived, and from what */
            s_say_conv(said, path, f.v[i].rep);
        char rtag[32] = "";
        if (f.n > 1)
            snprintf(rtag, sizeof rtag, " report %zu", i + 1);
        rc = s_one_report(db, path, &f.v[i], rtag, ordinal, cid, sut, err, errlen);
    }
    lg__import_finals_clear(&f);
    return rc;
}

int lg_import_fio_json(PGconn *db, const char *const *files, size_t n, const char *labels,
                       const char *name, uint64_t *campaign_id, char *err, size_t errlen)
{
    char sut[24] = "", cid[24] = "";
    int rc = lg__import_begin(db, "fio-json", files, n, labels, name, cid, sut, err, errlen);
    size_t ordinal = 1;
    said_t *said = calloc(1, sizeof *said);
    if (!said)
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = s_one(db, files[i], &ordinal, cid, sut, said, err, errlen);
    free(said);
    if (rc == 0)
        rc = lg_db_exec(db, "SELECT lg.refresh_views()", 0, NULL, NULL, err, errlen);
    rc = lg_db_end(db, rc, err, errlen);
    if (rc == 0)
        *campaign_id = strtoull(cid, NULL, 10);
    return rc;
}

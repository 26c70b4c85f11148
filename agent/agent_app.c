/* agent_app.c: application workloads in the agent (pgbench or sysbench against a private
 * database server, apprun.h): the run prepared, its start, its per-second reports as samples and
 * its summary as the result. Linux agents only. */
#include "agent_int.h"

#include <stdio.h>
#include <string.h>

#include "lg_error.h"
#include "lg_log.h"

#ifndef _WIN32
static void s_app_prepared(void *arg, uint64_t prepare_ms)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    r->state = RUN_READY;
    lg__agent_send_prepared(a, r->spec->run_id);
    lg_info("run %llu prepared (server and data set ready in %llu ms)",
            (unsigned long long)r->spec->run_id, (unsigned long long)prepare_ms);
}

/* An error is reported by s_app_done, which follows. */
static void s_app_started(void *arg, int64_t t_us, int err)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    if (err || r->state != RUN_WAITING)
        return;
    r->state = RUN_RUNNING;
    r->started_us = t_us + a->clock_offset_us;
    lg_info("run %llu started %lld us after the agreed instant (clock offset %lld us)",
            (unsigned long long)r->spec->run_id, (long long)(t_us - r->start_at_local_us),
            (long long)a->clock_offset_us);
}

static void s_app_sample(void *arg, uint64_t seq, int64_t t_ms, uint64_t interval_ms,
                         const lg_app_sample_t *s)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    Lg__AppStats st = LG__APP_STATS__INIT;
    st.tps = s->tps;
    st.qps = s->qps;
    st.read_qps = s->read_qps;
    st.write_qps = s->write_qps;
    st.other_qps = s->other_qps;
    st.lat_avg_ms = s->lat_avg_ms;
    st.lat_stddev_ms = s->lat_stddev_ms;
    st.lat_pct_ms = s->lat_pct_ms;
    st.pct = s->pct;
    st.err_ps = s->err_ps;
    st.reconn_ps = s->reconn_ps;
    st.failed = s->failed;
    st.threads = s->threads;
    Lg__Sample smp = LG__SAMPLE__INIT;
    smp.run_id = r->spec->run_id;
    smp.seq = seq;
    smp.t_ms = t_ms;
    smp.interval_ms = interval_ms;
    smp.app = &st;
    r->seq = seq;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    lg__agent_send_spooled(a, &env, smp.run_id, smp.seq, 0);
}

static void s_app_done(void *arg, const lg_apprun_result_t *res)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    if (res->err || !res->tot) {
        lg__agent_run_fail(a, res->err ? res->err : LG_ECHILD,
                           res->error ? res->error : "the tool printed no summary");
        return;
    }
    const lg_app_total_t *t = res->tot;
    int pg = t->kind == LG_APP_PGBENCH;
    Lg__AppTotals at = LG__APP_TOTALS__INIT;
    at.kind = r->spec->app->kind;
    at.transactions = t->transactions;
    at.tps = t->tps;
    at.qps = t->qps;
    at.queries = t->queries;
    at.lat_avg_ms = t->lat_avg_ms;
    at.lat_stddev_ms = t->lat_stddev_ms;
    at.lat_min_ms = t->lat_min_ms;
    at.lat_max_ms = t->lat_max_ms;
    at.lat_pct_ms = t->lat_pct_ms;
    at.pct = t->pct;
    at.failed = pg ? t->failed : t->errors;
    at.duration_s = t->duration_s;
    at.threads = pg ? t->clients : t->threads;
    if (at.threads == 0)
        at.threads = r->spec->threads;
    at.prepare_ms = res->prepare_ms;
    at.output = (char *)res->output; /* NUL-terminated by lg_apprun */
    at.reads = t->reads;
    at.writes = t->writes;
    at.others = t->others;
    at.reconnects = t->reconnects;
    at.scale = t->scale;
    Lg__RunResult out = LG__RUN_RESULT__INIT;
    out.run_id = r->spec->run_id;
    out.samples = res->samples;
    out.fio_exit = (int32_t)res->exit_status;
    out.fio_json = "";
    out.started_us = r->started_us;
    out.app = &at;
    out.stop_note = (char *)(res->stop_note ? res->stop_note : ""); /* into the run's error */
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    env.run_result = &out;
    lg__agent_send_spooled(a, &env, out.run_id, 0, 1);
    lg_info("run %llu finished: %llu samples, %.1f tps", (unsigned long long)out.run_id,
            (unsigned long long)res->samples, t->tps);
    lg__agent_run_clear(a);
}
#endif

void lg__agent_prepare_app(agent_t *a)
{
    run_t *r = &a->run;
#ifdef _WIN32
    (void)r;
    lg__agent_run_fail(a, LG_EDENIED,
                       "application workloads (pgbench, sysbench) run on Linux agents only");
#else
    static const lg_apprun_cbs_t cbs = {s_app_prepared, s_app_started, s_app_sample, s_app_done};
    char err[1024];
    r->state = RUN_PREPARING;
    int rc = lg_apprun_prepare(a->loop, a->cfg, r->spec, a->cfg->name, a->work_dir, &cbs, a,
                               &r->app, err, sizeof err);
    if (rc)
        lg__agent_run_fail(a, rc, err);
#endif
}

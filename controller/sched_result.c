/* sched_result.c: what agents report at a run's end: RunResults (checked, stored off the loop,
 * acknowledged once committed, then counted in the run) and RunErrors. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "sched_int.h"
#include "sched_jobs.h"
#include "text.h"

static void s_ack_result(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    Lg__Ack ack = LG__ACK__INIT;
    ack.run_id = run_id;
    ack.result = 1;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
    env.ack_msg = &ack;
    c->io->send(c, conn, &env);
}

static void s_result_job_destroy(result_job_t **self_p)
{
    result_job_t *j = self_p ? *self_p : NULL;
    if (!j)
        return;
    *self_p = NULL;
    for (int d = 0; d < LG_DIR_NR; d++)
        free(j->dirs[d]);
    free(j->fio_json);
    free(j->dc);
    free(j->app_output);
    free(j);
}

/* A result the database did not take: said the first time; the agent sends it again every few
 * seconds for as long as an outage lasts, and those tries are counted, not logged each. */
static void s_result_refused(lg_ctrl_t *c, uint64_t run_id, const char *err)
{
    if (c->result_fails++ == 0) {
        c->result_fail_ms = c->io->now_ms(c);
        lg_error("could not store a result of run %llu: %s (the agent keeps it and sends it "
                 "again; said once until one is stored)",
                 (unsigned long long)run_id, err);
    }
    c->result_fail_run = run_id;
}

/* A result stored: after refusals, one line for them all. */
static void s_result_stored(lg_ctrl_t *c, uint64_t run_id)
{
    if (!c->result_fails)
        return;
    lg_info("results are stored again (run %llu's now): %u tries to store one failed over %.1f s "
            "(the last of run %llu); none was lost, the agents kept them",
            (unsigned long long)run_id, c->result_fails,
            (double)(c->io->now_ms(c) - c->result_fail_ms) / 1000.0,
            (unsigned long long)c->result_fail_run);
    c->result_fails = 0;
}

static void s_result_done(void *arg, void *job, int rc, const char *err)
{
    lg_ctrl_t *c = arg;
    result_job_t *j = job;
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra = NULL;
    for (size_t i = 0; cur->phase != PH_IDLE && cur->run_id == j->run_id && i < cur->nra; i++)
        if (cur->ra[i].agent_id == j->agent_id)
            ra = &cur->ra[i];
    if (ra)
        ra->storing = 0;
    if (rc) { /* not acknowledged: the agent keeps it and sends it again */
        if (rc != LG_ESTATE)
            s_result_refused(c, j->run_id, err);
        s_result_job_destroy(&j);
        return;
    }
    s_result_stored(c, j->run_id);
    for (size_t k = 0; k < c->nagents; k++) /* its connection now, which may be a new one */
        if (c->agents[k].agent_id == j->agent_id && !c->agents[k].registering) {
            s_ack_result(c, k, j->run_id);
            break;
        }
    if (!j->current || !ra || ra->lost || ra->state == RA_DONE || ra->state == RA_FAILED) {
        s_result_job_destroy(&j);
        return;
    }
    ra->state = RA_DONE;
    ra->want_samples = j->samples;
    for (int d = 0; d < LG_DIR_NR; d++) {
        ra->dir[d] = j->dirs[d];
        j->dirs[d] = NULL;
    }
    s_result_job_destroy(&j);
    if (lg__sched_all(c, RA_DONE, RA_FAILED)) {
        /* "done" promises the whole time series: the run ends once every sample each agent
         * says it sent is stored (see lg__sched_check_stored), not merely the last result. */
        cur->finish_when_stored = 1;
        cur->stored_since_ms = c->io->now_ms(c);
        cur->count_next_ms = 0;
        lg__sched_check_stored(c);
    }
}

/* Add what an agent said after the run's error ("...; agent "a": note"), as far as it fits. */
static void s_error_add(lg_ctrl_t *c, size_t conn, const char *note)
{
    char *e = c->cur.error;
    size_t len = strlen(e), cap = sizeof c->cur.error;
    if (len + 1 < cap)
        snprintf(e + len, cap - len, "; agent \"%s\": %s", c->agents[conn].name, note);
    lg_utf8_cut(e, cap); /* never half a character */
}

/* The result's figures per direction into dirs (owned by the caller). Returns 0, or -1 when
 * one is malformed or comes twice (then dirs holds nothing). */
static int s_result_dirs(const Lg__RunResult *res, lg_dirstats_t *dirs[LG_DIR_NR])
{
    for (size_t i = 0; i < res->n_dirs; i++) {
        lg_dirstats_t *s = malloc(sizeof *s);
        lg_dir_t d;
        if (!s || lg_wire_dirstats_get(res->dirs[i], s, &d) != 0 || dirs[d]) {
            free(s);
            for (int k = 0; k < LG_DIR_NR; k++) {
                free(dirs[k]);
                dirs[k] = NULL;
            }
            return -1;
        }
        dirs[d] = s;
    }
    return 0;
}

/* What the agent's data check read back, as lg.result's datacheck JSON (caller frees; NULL on
 * ENOMEM). */
static char *s_datacheck_json(const Lg__DataCheck *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_integer(k->unit));
    if (k->error && k->error[0]) {
        char e[1024]; /* jansson takes only UTF-8 */
        lg_utf8_clean(k->error, strlen(k->error), e, sizeof e, NULL, NULL);
        json_object_set_new(o, "error", json_string(e));
    } else {
        json_object_set_new(o, "records", json_integer((json_int_t)k->records));
        json_object_set_new(o, "unique", json_integer((json_int_t)k->unique));
        json_object_set_new(o, "zero", json_integer((json_int_t)k->zero));
        json_object_set_new(o, "zstd", json_real(k->zstd_ratio));
        json_object_set_new(o, "lz4", json_real(k->lz4_ratio));
        json_object_set_new(o, "dedup", json_real(k->dedup_ratio));
    }
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

void lg__sched_on_result(lg_ctrl_t *c, size_t conn, const Lg__RunResult *res)
{
    uint64_t agent_id = c->agents[conn].agent_id;
    lg_run_agent_t *ra =
        lg__sched_agent_in_run(c, conn, res->run_id) ? lg__sched_find_ra(c, conn) : NULL;
    /* A lost agent that came back before the run ended: the run went on without it, so its
     * result is stored as its own and stays out of the merge, as when it comes after the end. */
    if (ra && ra->lost)
        ra = NULL;
    if (ra && (ra->state == RA_DONE || ra->state == RA_FAILED)) {
        s_ack_result(c, conn, res->run_id); /* a resend: stored already */
        return;
    }
    int known = ra ? 1 : lg__sched_sample_ok(c, conn, res->run_id);
    if (known < 0)
        return; /* cannot tell now: not acknowledged, so the agent sends it again */
    if (!known) {
        lg_warn("dropped a result of unknown run %llu from \"%s\"", (unsigned long long)res->run_id,
                c->agents[conn].name);
        s_ack_result(c, conn, res->run_id);
        return;
    }
    lg_dirstats_t *dirs[LG_DIR_NR] = {NULL, NULL, NULL};
    if (s_result_dirs(res, dirs) != 0) {
        lg__wire_count_malformed();
        lg_warn("dropped a malformed result from \"%s\"", c->agents[conn].name);
        return;
    }
    if (ra && ra->storing) { /* a resend while the first is being stored: that one is acked */
        for (int d = 0; d < LG_DIR_NR; d++)
            free(dirs[d]);
        return;
    }
    result_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        for (int d = 0; d < LG_DIR_NR; d++)
            free(dirs[d]);
        return; /* not acknowledged: the agent sends it again */
    }
    j->run_id = res->run_id;
    j->agent_id = agent_id;
    j->current = ra != NULL;
    j->samples = res->samples;
    snprintf(j->ex, sizeof j->ex, "%d", res->fio_exit);
    snprintf(j->nj, sizeof j->nj, "%u", res->njobs);
    snprintf(j->started, sizeof j->started, "%lld", (long long)res->started_us);
    j->has_started = res->started_us != 0;
    if (res->io_start_us && res->io_end_us >= res->io_start_us) {
        snprintf(j->io_start, sizeof j->io_start, "%lld", (long long)res->io_start_us);
        snprintf(j->io_end, sizeof j->io_end, "%lld", (long long)res->io_end_us);
    }
    /* fio's and the tool's text as the database takes it (text.h) */
    const char *fj = res->fio_json ? res->fio_json : "", *name = c->agents[conn].name;
    unsigned long long rid = (unsigned long long)res->run_id;
    j->fio_json =
        lg_text_in(fj, strlen(fj), 0, 0, NULL, 0, "run %llu: agent \"%s\"'s fio report", rid, name);
    if (res->app) {
        /* An application run: the tool's totals and its whole output */
        j->has_app = 1;
        lg__app_totals_row(res->app, &j->app);
        j->app.p[LG_APP_RESULT_COLS - 1] = j->ex;
        const char *ao = res->app->output ? res->app->output : "";
        j->app_output = lg_text_in(ao, strlen(ao), 0, 0, NULL, 0,
                                   "run %llu: agent \"%s\"'s application output", rid, name);
        if (!j->app_output) {
            s_result_job_destroy(&j);
            return;
        }
    }
    if (res->datacheck)
        j->dc = s_datacheck_json(res->datacheck);
    for (int d = 0; d < LG_DIR_NR; d++)
        j->dirs[d] = dirs[d];
    /* How a Stop ended fio on that agent (a Windows agent's trigger file), in the run's error. */
    if (ra && res->stop_note && res->stop_note[0] && c->cur.error[0]) {
        char *sn = lg_text_in(res->stop_note, strlen(res->stop_note), 0, 0, NULL, 0,
                              "run %llu: agent \"%s\"'s stop note", rid, name);
        s_error_add(c, conn, sn ? sn : "");
        free(sn);
    }
    /* Stored off the loop, in one transaction; acknowledged (and counted) once committed. */
    if (!j->fio_json || c->io->submit(c, lg__sched_result_work, s_result_done, j) != 0) {
        s_result_job_destroy(&j);
        return;
    }
    if (ra)
        ra->storing = 1;
}

/* An agent's error in the run it is in: its row, then the run's error (msg as stored). */
static void s_on_error_in_run(lg_ctrl_t *c, size_t conn, uint64_t run_id, lg_run_agent_t *ra,
                              const char *msg, int transient)
{
    lg_current_t *cur = &c->cur;
    char id[24], aid[24];
    lg__sched_u64(id, sizeof id, run_id);
    lg__sched_u64(aid, sizeof aid, ra->agent_id);
    const char *p[3] = {id, aid, msg};
    lg__sched_q(
        c, "record an agent's error",
        "UPDATE lg.run_agent SET state = 'failed', error = $3 WHERE run_id = $1 AND agent_id = $2",
        3, p);
    ra->state = RA_FAILED;
    char detail[1200];
    snprintf(detail, sizeof detail, "agent \"%s\": %s", c->agents[conn].name, msg);
    if (cur->phase == PH_STOPPING) {
        /* Why it has no result after the Stop (fio ended without its report) */
        s_error_add(c, conn, msg);
        if (lg__sched_all(c, RA_DONE, RA_FAILED))
            lg__sched_finish_run(c, cur->error);
        return;
    }
    /* a target the agent could not connect or log in to (LG_ECONNECT) may answer later */
    if (transient)
        lg__sched_fail_transient(c, "%s", detail);
    else
        lg__sched_fail_run(c, "%s", detail);
}

void lg__sched_on_error(lg_ctrl_t *c, size_t conn, const Lg__RunError *e)
{
    const char *raw = e->message ? e->message : "";
    /* fio's stderr is in it: text as the database takes it, and the row says what changed */
    char note[160];
    char *clean = lg_text_noted(lg_text_in(raw, strlen(raw), 0, 0, note, sizeof note,
                                           "run %llu: agent \"%s\"'s error",
                                           (unsigned long long)e->run_id, c->agents[conn].name),
                                note);
    const char *msg = clean ? clean : "(not stored: out of memory)";
    lg_error("agent \"%s\" reports an error in run %llu: %s", c->agents[conn].name,
             (unsigned long long)e->run_id, msg);
    lg_run_agent_t *ra =
        lg__sched_agent_in_run(c, conn, e->run_id) ? lg__sched_find_ra(c, conn) : NULL;
    if (ra)
        s_on_error_in_run(c, conn, e->run_id, ra, msg, e->code == LG_ECONNECT);
    free(clean);
}

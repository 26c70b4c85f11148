/* agent_run.c: the measured run: fio held and released at the instant, its reports turned into
 * samples (a short tail folded into the interval before it, the host's CPU beside them), a Stop,
 * the data written measured when the spec asks, and the result sent; and a run's end, failed
 * or not. */
#include "agent_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_datacheck.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "lg_wire.h"
#ifndef _WIN32
#include "readback.h"
#endif

void lg__agent_run_clear(agent_t *a)
{
    run_t *r = &a->run;
    free(r->pend_from);
    free(r->pend_to);
#ifndef _WIN32
    lg__agent_gate_clear(a); /* its jobs told the run is off, before fio is ended */
#endif
    lg__agent_fio_end(a);
#ifndef _WIN32
    /* Its server is stopped and its folders removed as the loop runs on. */
    lg_apprun_destroy(&r->app);
#endif
    if (r->has_tgt)
        lg_plat_target_close(&r->tgt);
    lg_wire_envelope_destroy(&r->prepare);
    free(r->last);
    lg_iowin_clear(&r->iowin);
    memset(r, 0, sizeof *r);
}

static void s_flush_sample(agent_t *a);
#ifndef _WIN32
static int s_record_fio(agent_t *a, const char *job);
#endif

void lg__agent_run_fail(agent_t *a, int code, const char *msg)
{
    uint64_t id = a->run.spec ? a->run.spec->run_id : 0;
    if (a->run.spec)
        s_flush_sample(a); /* what was measured is kept, even of a run that fails */
    lg__agent_send_run_error(a, id, code, msg);
    lg__agent_run_clear(a);
}

/* The file whose appearance ends fio's jobs (--trigger-file): how a Stop reaches fio on Windows. */
static void s_trigger_path(const agent_t *a, char *buf, size_t len)
{
    snprintf(buf, len, "%s%cstop", a->run.dir, LG_PLAT_SEP);
}

/* With on_start, fio is held until lg_fiorun_release (lg_fiorun_start_held). */
int lg__agent_spawn_fio(agent_t *a, const char *job, int stream, lg_fiorun_object_cb on_obj,
                        lg_fiorun_start_cb on_start, lg_fiorun_exit_cb on_exit)
{
    char *argv[8];
    int n = 0;
    argv[n++] = (char *)a->cfg->fio;
#ifdef _WIN32
    /* Jobs as threads: fio for Windows has no process-shared mutexes and would say so on stdout,
     * ahead of its JSON. */
    argv[n++] = "--thread";
    char trig[1200] = "--trigger-file=";
    s_trigger_path(a, trig + strlen(trig), sizeof trig - strlen(trig));
    if (stream)
        argv[n++] = trig;
#endif
    if (stream) {
        argv[n++] = "--output-format=json+";
        argv[n++] = "--status-interval=1";
    } else {
        argv[n++] = "--output-format=json"; /* one object, dropped: not fio's text in our log */
    }
    argv[n++] = (char *)job;
    argv[n] = NULL;
    int fd = a->run.has_tgt ? (int)a->run.tgt.fd : -1;
    int rc = 0, gated_env = 0;
#ifndef _WIN32
    /* A gated fio (agent_gate.c): the gate in its environment (an engine's target holds no fd). */
    if (on_start && a->run.fio_env && fd < 0) {
        gated_env = 1;
        rc = lg_fiorun_start_held_env(a->loop, argv, a->run.dir, NULL, NULL, a->run.fio_env, on_obj,
                                      on_start, on_exit, a, &a->run.fio);
    }
#endif
    if (!gated_env)
        rc = on_start
                 ? lg_fiorun_start_held(a->loop, argv, a->run.dir, fd, on_obj, on_start, on_exit, a,
                                        &a->run.fio)
                 : lg_fiorun_start(a->loop, argv, a->run.dir, fd, on_obj, on_exit, a, &a->run.fio);
#ifndef _WIN32
    if (rc == 0)
        rc = s_record_fio(a, job);
#endif
    return rc;
}

#ifndef _WIN32
/* fio's process group (it leads it: setsid) recorded in the work folder, which outlives this
 * agent: the hold stage dies with the agent, fio's job processes do not, and the next agent ends
 * them (lg_fiorec_clean). A run whose fio cannot be recorded does not run. */
static int s_record_fio(agent_t *a, const char *job)
{
    run_t *r = &a->run;
    char err[1200];
    int rc = lg_fiorec_create(a->work_dir, r->spec->run_id, (int)lg_fiorun_pid(r->fio), job,
                              &r->fiorec, err, sizeof err);
    if (rc == -ESRCH) /* ended already: nothing of it can outlive us */
        return 0;
    if (rc) {
        lg_error("run %llu: %s", (unsigned long long)r->spec->run_id, err);
        lg_fiorun_destroy(&r->fio);
        return UV_EIO;
    }
    r->has_fiorec = 1;
    return 0;
}
#endif

void lg__agent_fio_end(agent_t *a)
{
    run_t *r = &a->run;
#ifndef _WIN32
    int running = lg_fiorun_pid(r->fio) != 0;
#endif
    /* A running fio gets SIGKILL, to its whole group, at once. */
    lg_fiorun_destroy(&r->fio);
#ifndef _WIN32
    /* Its job processes are not in that group (each makes a session of its own) and, their fio
     * gone, would write on to the end of the runtime: they are found as the next agent would. */
    if (r->has_fiorec && running)
        lg_fiorec_kill(&r->fiorec);
    if (r->has_fiorec) {
        int rc = lg_fiorec_remove(a->work_dir, r->spec->run_id);
        if (rc)
            lg_warn("could not remove fio's record of run %llu in \"%s\": %s",
                    (unsigned long long)r->spec->run_id, a->work_dir, lg_strerror(rc));
    }
#endif
    r->has_fiorec = 0;
}

/* A report still inside ramp_time counts I/O but no latency: fio resets its stats at the end of
 * the ramp, so such reports must not become samples. */
static int s_in_ramp(const lg_fio_report_t *rep)
{
    uint64_t ios = 0, lat = 0;
    for (size_t j = 0; j < rep->njobs; j++)
        for (int d = 0; d < LG_DIR_NR; d++) {
            ios += rep->jobs[j].dir[d].ios;
            lat += rep->jobs[j].dir[d].lat_n;
        }
    return ios > 0 && lat == 0;
}

/* The held interval now ends at reading b: its host figure extends to b; so does fio's, unless
 * fio was gone by then (its final report can arrive after it exited), when it keeps the end it
 * had. */
static void s_cpu_extend(lg_cpu_snap_t *to, const lg_cpu_snap_t *b)
{
    lg_cpu_snap_t keep = *to;
    *to = *b;
    if (!b->fio_ok && keep.fio_ok) {
        to->fio = keep.fio;
        to->fio_hz = keep.fio_hz;
        to->fio_ok = 1;
        to->fio_wall_us = keep.fio_wall_us;
    }
}

/* Send the held interval as a sample (see run_t.has_pend). */
static void s_flush_sample(agent_t *a)
{
    run_t *r = &a->run;
    if (!r->has_pend)
        return;
    r->has_pend = 0;
    lg_dirstats_t *delta = malloc(sizeof(lg_dirstats_t));
    if (!delta)
        return;
    Lg__Sample smp = LG__SAMPLE__INIT;
    Lg__DirStats *dirs[LG_DIR_NR];
    size_t nd = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        if (!(r->dirs_mask & (1 << d)))
            continue;
        lg_dirstats_delta(delta, &r->pend_to[d], &r->pend_from[d]);
        dirs[nd] = lg_wire_dirstats_new(delta, (lg_dir_t)d);
        if (dirs[nd])
            nd++;
    }
    smp.run_id = r->spec->run_id;
    smp.seq = ++r->seq;
    smp.t_ms = r->pend_t1_ms;
    /* Wall-clock length of the interval: fio's runtime stops while a job thinks (thinktime),
     * so it would squeeze bursty intervals. The first sample after a ramp starts where fio
     * reset its figures, which only fio's runtime knows. (A run behind the start gate, whose
     * jobs logged in at Prepare, counts from the instant: agent_gate.c drops the reports before
     * it.) */
    if (r->seq == 1 && r->spec->ramp_s > 0)
        smp.interval_ms = r->pend_rt_ms;
    else
        smp.interval_ms =
            r->pend_t1_ms > r->pend_t0_ms ? (uint64_t)(r->pend_t1_ms - r->pend_t0_ms) : 0;
    smp.n_dirs = nd;
    smp.dirs = dirs;
    lg_cpu_use_t cpu;
    lg_cpu_use(&r->cpu_from, &r->cpu_to, &cpu);
    if (cpu.cpus) {
        smp.host_cpus = cpu.cpus;
        smp.host_cpu_pct = cpu.busy_pct;
        smp.fio_cpu_pct = cpu.fio_pct;
    }
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    lg__agent_send_spooled(a, &env, smp.run_id, smp.seq, 0);
    for (size_t i = 0; i < nd; i++)
        lg_wire_dirstats_destroy(&dirs[i]);
    free(delta);
}

static void s_on_fio_object(void *arg, const char *text, size_t len)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    lg_fio_report_t *rep = NULL;
    char err[256];
    if (lg_fio_report_parse(text, len, &rep, err, sizeof err) != 0) {
        lg_warn("run %llu: skipped an unreadable fio report: %s",
                (unsigned long long)r->spec->run_id, err);
        return;
    }
#ifndef _WIN32
    /* A gated fio reports while its jobs log in and wait: nothing of that is the run. */
    if (r->gated && !lg__agent_gate_report(a, rep->timestamp_ms)) {
        lg_fio_report_destroy(&rep);
        return;
    }
#endif
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = 0;
        free(r->last);
        r->last = copy;
        r->last_len = len;
    }
    r->njobs = (uint32_t)rep->njobs;
    lg_cpu_snap_t now;
    lg_plat_cpu_snap(lg_fiorun_pid(r->fio), &now);
    if (r->spec->ramp_s > 0 && s_in_ramp(rep)) {
        r->prev_t_ms = rep->timestamp_ms;
        r->cpu_prev = now;
        r->has_cpu_prev = 1;
        lg_fio_report_destroy(&rep);
        return;
    }
    if (lg_iowin_note(&r->iowin, rep))
        lg_warn("run %llu: out of memory: its measured window will not be reported",
                (unsigned long long)r->spec->run_id);
    lg_dirstats_t *cur = malloc(sizeof(lg_dirstats_t) * LG_DIR_NR);
    if (!r->pend_from)
        r->pend_from = malloc(sizeof(lg_dirstats_t) * LG_DIR_NR);
    if (!r->pend_to)
        r->pend_to = malloc(sizeof(lg_dirstats_t) * LG_DIR_NR);
    if (!cur || !r->pend_from || !r->pend_to) {
        free(cur);
        lg_fio_report_destroy(&rep);
        return;
    }
    uint64_t rt_cur = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        /* After a ramp, a job still in its own (fio ends each job's on its own) counts from its
         * reset on: what it did before is left out here, as fio leaves it out of the result. */
        if (r->spec->ramp_s > 0)
            lg_fio_report_total_measured(rep, (lg_dir_t)d, &cur[d]);
        else
            lg_fio_report_total(rep, (lg_dir_t)d, &cur[d]);
        /* A sample's I/Os are those completed in it, as its bytes and latencies are (and fio's
         * own iops log): fio's total_ios counts I/Os issued, ahead by those in flight (up to
         * threads x QD), which put that many in a run's first sample and took them from its
         * last. Every completion has a latency sample (lg's job files record them all), so
         * lat_n counts them. The run's result keeps fio's own total_ios: its I/Os have all
         * completed by then. */
        cur[d].ios = cur[d].lat_n;
        if (cur[d].runtime_ms > rt_cur)
            rt_cur = cur[d].runtime_ms;
    }
    int64_t t = rep->timestamp_ms;
    if (r->has_pend && t - r->pend_t1_ms < FOLD_MS) {
        /* a short tail: the held interval now ends here */
        memcpy(r->pend_to, cur, sizeof(lg_dirstats_t) * LG_DIR_NR);
        r->pend_t1_ms = t;
        r->pend_rt_ms = rt_cur;
        s_cpu_extend(&r->cpu_to, &now);
    } else {
        s_flush_sample(a);
        memcpy(r->pend_from, r->prev, sizeof(lg_dirstats_t) * LG_DIR_NR);
        memcpy(r->pend_to, cur, sizeof(lg_dirstats_t) * LG_DIR_NR);
        r->pend_t0_ms = r->prev_t_ms;
        r->pend_t1_ms = t;
        r->pend_rt_ms = rt_cur;
        r->has_pend = 1;
        r->cpu_from = r->has_cpu_prev ? r->cpu_prev : now;
        r->cpu_to = now;
    }
    r->cpu_prev = now;
    r->has_cpu_prev = 1;
    memcpy(r->prev, cur, sizeof(lg_dirstats_t) * LG_DIR_NR);
    r->prev_t_ms = t;
    free(cur);
    lg_fio_report_destroy(&rep);
}

/* Send the run's RunResult (kept in the spool until acknowledged) and end the run. */
static void s_send_result(agent_t *a, Lg__DataCheck *dc)
{
    run_t *r = &a->run;
    uint64_t run_id = r->spec->run_id;
    s_flush_sample(a); /* the last interval, with any short tail folded in */
    lg_fio_report_t *rep = NULL;
    char err[512];
    if (lg_fio_report_parse(r->last, r->last_len, &rep, err, sizeof err) != 0) {
        lg__agent_run_fail(a, LG_EFIO, err); /* parsed once already: cannot happen */
        return;
    }
    Lg__RunResult res = LG__RUN_RESULT__INIT;
    Lg__DirStats *dirs[LG_DIR_NR];
    size_t nd = 0;
    lg_dirstats_t *tot = malloc(sizeof *tot);
    for (int d = 0; tot && d < LG_DIR_NR; d++) {
        if (!(r->dirs_mask & (1 << d)))
            continue;
        lg_fio_report_total(rep, (lg_dir_t)d, tot);
        dirs[nd] = lg_wire_dirstats_new(tot, (lg_dir_t)d);
        if (dirs[nd])
            nd++;
    }
    free(tot);
    res.run_id = run_id;
    res.n_dirs = nd;
    res.dirs = dirs;
    res.fio_json = r->last;
    res.fio_exit = r->fio_exit;
    res.samples = r->seq;
    res.njobs = (uint32_t)rep->njobs;
    res.started_us = lg__agent_gate_started_us(a, r->started_us);
    int64_t io0_ms, io1_ms;
    if (lg_iowin_get(&r->iowin, &io0_ms, &io1_ms) == 0) {
        lg__agent_gate_window(a, &io0_ms, &io1_ms);
        res.io_start_us = io0_ms * 1000 + a->clock_offset_us;
        res.io_end_us = io1_ms * 1000 + a->clock_offset_us;
    }
    res.datacheck = dc;
    res.stop_note = (char *)(r->stop_note ? r->stop_note : "");
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    env.run_result = &res;
    lg__agent_send_spooled(a, &env, run_id, 0, 1);
    for (size_t i = 0; i < nd; i++)
        lg_wire_dirstats_destroy(&dirs[i]);
    lg_fio_report_destroy(&rep);
    lg_info("run %llu finished: %llu samples", (unsigned long long)run_id,
            (unsigned long long)r->seq);
    lg__agent_run_clear(a);
}

/* Measuring what a run with a data pattern wrote reads the whole target: a worker thread does
 * it so that heartbeats and acknowledgements go on. An smb:// or iscsi:// target is read back
 * through libsmbclient or libiscsi: this agent's region, offset .. offset + limit. */
typedef struct {
    uv_work_t req;
    agent_t *agent;
    char path[1100];
    int remote;              /* path is an smb:// or iscsi:// URL */
    const char *credentials; /* the agent's --smb-credentials or --iscsi-chap file, or NULL */
    uint64_t offset;
    uint64_t limit;
    uint32_t unit;
    lg_datacheck_t out;
    int rc;
    char err[256];
} datacheck_job_t;

static void s_datacheck_work(uv_work_t *req)
{
    datacheck_job_t *j = req->data;
    if (j->remote) {
#ifdef _WIN32
        /* No lgsmb or lgiscsi engine on Windows, so no run of this agent writes to a URL. */
        j->rc = LG_EDENIED;
        snprintf(j->err, sizeof j->err, "the Windows agent cannot read back \"%s\"", j->path);
#else
        j->rc = lg_readback_datacheck(j->path, j->credentials, j->offset, j->limit, j->unit,
                                      &j->out, j->err, sizeof j->err);
#endif
    } else {
        j->rc = lg_datacheck_file(j->path, j->unit, j->limit, &j->out, j->err, sizeof j->err);
    }
}

static void s_datacheck_done(uv_work_t *req, int status)
{
    datacheck_job_t *j = req->data;
    agent_t *a = j->agent;
    if (!a->stopping && a->run.state == RUN_CHECKING) {
        Lg__DataCheck dc = LG__DATA_CHECK__INIT;
        dc.unit = j->unit;
        if (status == 0 && j->rc == 0) {
            dc.records = j->out.records;
            dc.unique = j->out.unique;
            dc.zero = j->out.zero;
            dc.zstd_ratio = j->out.zstd_ratio;
            dc.lz4_ratio = j->out.lz4_ratio;
            dc.dedup_ratio = j->out.dedup_ratio;
            lg_info("run %llu wrote data that compresses %.2f:1 (zstd), %.2f:1 (lz4) and dedups "
                    "%.2f:1 in %u-byte records",
                    (unsigned long long)a->run.spec->run_id, dc.zstd_ratio, dc.lz4_ratio,
                    dc.dedup_ratio, dc.unit);
        } else {
            dc.error = j->err[0] ? j->err : (char *)"the check was cancelled";
        }
        s_send_result(a, &dc);
    }
    free(j);
}

static void s_start_datacheck(agent_t *a)
{
    run_t *r = &a->run;
    datacheck_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        s_send_result(a, NULL);
        return;
    }
    j->req.data = j;
    j->agent = a;
    if (lg_jobfile_engine(r->spec->target_kind)) {
        j->remote = 1;
        lg_strlcpy(j->path, r->spec->target, sizeof j->path);
        j->credentials = r->spec->target_kind == LG__TARGET_KIND__TARGET_SMB
                             ? a->cfg->smb_credentials
                             : a->cfg->iscsi_chap;
        j->offset = r->spec->offset;
    } else {
        lg_plat_target_self_path(&r->tgt, j->path, sizeof j->path);
    }
    j->limit = r->spec->size;
    j->unit = r->spec->dedup_unit ? r->spec->dedup_unit : 131072;
    r->state = RUN_CHECKING;
    if (uv_queue_work(a->loop, &j->req, s_datacheck_work, s_datacheck_done) != 0) {
        free(j);
        s_send_result(a, NULL);
    }
}

static void s_on_fio_exit(void *arg, int64_t status, int sig, const char *tail)
{
    agent_t *a = arg;
    run_t *r = &a->run;
#ifndef _WIN32
    if (r->gated && r->state < RUN_RUNNING) {
        lg__agent_gate_fio_exit(a, status, sig, tail); /* the prepare fails with why */
        return;
    }
#endif
    lg_fio_report_t *rep = NULL;
    char err[512];
    int rc = LG_EFIO;
    if (r->last)
        rc = lg_fio_report_parse(r->last, r->last_len, &rep, err, sizeof err);
    int how = lg_fiorun_stop_how(r->fio);
    if (how == LG_FIORUN_STOP_TERMINATED) {
        /* Its last output is an interval report, not the final one: do not pass it off as that. */
        char msg[512];
        snprintf(msg, sizeof msg,
                 "stopped: fio did not end within %d s of its trigger file and was ended with "
                 "TerminateProcess, so it wrote no final report (the %llu interval samples sent "
                 "are kept)",
                 LG_FIORUN_STOP_GRACE_MS / 1000, (unsigned long long)r->seq);
        lg_fio_report_destroy(&rep);
        lg__agent_run_fail(a, LG_EFIO, msg);
        return;
    }
    /* Said with the result, so that the run's error tells how the Stop ended fio here. */
    r->stop_note = how == LG_FIORUN_STOP_TRIGGER
                       ? "fio ended on its trigger file (the Windows agent's Stop) and wrote its "
                         "final report"
                       : NULL;
    if ((status != 0 || sig != 0) && !r->stop_requested) {
        char msg[2048];
        snprintf(msg, sizeof msg, "fio exited with status %lld (signal %d): %s", (long long)status,
                 sig, tail[0] ? tail : "no message");
        lg_fio_report_destroy(&rep);
        lg__agent_run_fail(a, LG_EFIO, msg);
        return;
    }
    if (rc != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "fio gave no final report: %s",
                 r->last ? err : (tail[0] ? tail : "empty output"));
        lg__agent_run_fail(a, LG_EFIO, msg);
        return;
    }
    r->fio_exit = (int32_t)status;
    lg_fio_report_destroy(&rep);
    lg__agent_fio_end(a);
    /* fio wrote through the held descriptor; a path that now leads elsewhere means someone
     * swapped it during the run: say so rather than report a run on a moving target. */
    if (r->has_tgt && lg_plat_target_recheck(&r->tgt, r->spec->target, err, sizeof err) != 0) {
        lg__agent_run_fail(a, LG_EDENIED, err);
        return;
    }
    if (r->spec->target_kind != LG__TARGET_KIND__TARGET_NULL && lg_jobfile_writes(r->spec) &&
        (r->spec->compress_ratio > 0 || r->spec->dedup_ratio > 0)) {
        s_start_datacheck(a);
        return;
    }
    s_send_result(a, NULL);
}

/* The held fio woke at the instant (t_us, our clock) and has replaced its hold stage, or could
 * not be executed. */
static void s_on_fio_started(void *arg, int64_t t_us, int err)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    if (err) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not start fio \"%s\": %s", a->cfg->fio, uv_strerror(err));
        lg__agent_run_fail(a, LG_EFIO, msg);
        return;
    }
    if (r->state != RUN_WAITING)
        return;
    r->state = RUN_RUNNING;
    r->started_us = t_us + a->clock_offset_us;
    r->prev_t_ms = t_us / 1000;
    lg_plat_cpu_snap(lg_fiorun_pid(r->fio), &r->cpu_prev);
    r->has_cpu_prev = 1;
    /* The lag and the offset are what a start skew is made of: say them. */
    lg_info("run %llu started %lld us after the agreed instant (clock offset %lld us)",
            (unsigned long long)r->spec->run_id, (long long)(t_us - r->start_at_local_us),
            (long long)a->clock_offset_us);
}

/* End a running fio so that it still writes its final report (lg_fiorun_stop): SIGTERM, or on
 * Windows the trigger file named on its command line (s_spawn_fio). */
void lg__agent_stop_fio(agent_t *a)
{
    char trig[1100];
    s_trigger_path(a, trig, sizeof trig);
    lg_fiorun_stop(a->run.fio, trig);
}

int lg__agent_hold_fio(agent_t *a)
{
    return lg__agent_spawn_fio(a, a->run.job, 1, s_on_fio_object, s_on_fio_started, s_on_fio_exit);
}

void lg__agent_handle_start(agent_t *a, const Lg__Start *st)
{
    run_t *r = &a->run;
    if (r->state != RUN_READY || r->spec->run_id != st->run_id) {
        if (r->spec && r->spec->run_id == st->run_id && r->state >= RUN_WAITING)
            return; /* a repeated Start */
        lg__agent_send_run_error(a, st->run_id, LG_ESTATE, "Start for a run that is not prepared");
        return;
    }
#ifndef _WIN32
    if (r->app) {
        r->start_at_local_us = st->start_at_us - a->clock_offset_us;
        int arc = lg_apprun_release(r->app, r->start_at_local_us);
        if (arc) {
            char msg[256];
            snprintf(msg, sizeof msg, "could not start the application benchmark: %s",
                     uv_strerror(arc));
            lg__agent_run_fail(a, LG_ECHILD, msg);
            return;
        }
        r->state = RUN_WAITING;
        return;
    }
#endif
    /* The instant is in the controller's clock: ours is offset behind it. The held fio sleeps
     * until it on its own (an absolute clock_nanosleep), away from this loop's latency, and
     * tells when it woke (s_on_fio_started). */
    char err[1024];
    if (r->has_tgt && lg_plat_target_recheck(&r->tgt, r->spec->target, err, sizeof err) != 0) {
        lg__agent_run_fail(a, LG_EDENIED, err);
        return;
    }
    r->start_at_local_us = st->start_at_us - a->clock_offset_us;
#ifndef _WIN32
    if (r->gated) { /* its jobs logged in at Prepare: the gate opens with the instant */
        if (lg__agent_gate_release(a, r->start_at_local_us, err, sizeof err) != 0) {
            lg__agent_run_fail(a, LG_EFIO, err);
            return;
        }
        r->state = RUN_WAITING;
        return;
    }
#endif
    int rc = lg_fiorun_release(r->fio, r->start_at_local_us);
    if (rc) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not start fio \"%s\": %s", a->cfg->fio, uv_strerror(rc));
        lg__agent_run_fail(a, LG_EFIO, msg);
        return;
    }
    r->state = RUN_WAITING;
}

void lg__agent_handle_stop(agent_t *a, const Lg__Stop *st)
{
    run_t *r = &a->run;
    if (!r->spec || r->spec->run_id != st->run_id || r->state == RUN_CHECKING)
        return; /* measuring what was written: the result follows */
#ifndef _WIN32
    if (r->state == RUN_RUNNING && r->app) {
        /* pgbench and sysbench print no summary when interrupted: the result is an error
         * saying so, after the samples measured until then. */
        r->stop_requested = 1;
        lg_apprun_stop(r->app);
        return;
    }
#endif
    if (r->state == RUN_RUNNING) {
        r->stop_requested = 1;
        lg__agent_stop_fio(a);
        return;
    }
    lg_info("run %llu stopped before it started", (unsigned long long)st->run_id);
    lg__agent_run_clear(a);
}

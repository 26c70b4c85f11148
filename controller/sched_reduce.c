/* sched_reduce.c: a config's reduction probe, run by the controller before the config's first
 * run and after its last (the schedule read says when: sched_sql.c, NX_REDUCE; sched.c starts it
 * and is woken when it ended). A spec comes from whoever may submit campaigns and a row from
 * whoever may write one, so neither names the program: the config's reduction: names a probe of
 * the operator's file (--operator, lg_operator.h) and fills in its checked parameters, and the
 * row that says so must carry this controller's seal. The argv is run without a shell, with the
 * config's LG_* environment, for at most REDUCE_TIMEOUT_MS; what it prints (logical and physical
 * bytes, lg_reduction.h) is stored in lg.reduction, or why there are no figures. It runs once per
 * config edge. Nothing here stops the campaign: a probe that fails leaves an error row and the
 * runs go on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "lg_log.h"
#include "lg_operator.h"
#include "lg_reduction.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "sched_int.h"
#include "sched_jobs.h"
#include "store.h"
#include "text.h"

#define REDUCE_TIMEOUT_MS 120000
#define REDUCE_OUT_MAX (256u << 10)

typedef struct {
    lg_ctrl_t *c;
    uint64_t campaign_id;
    char cfgord[16];
    int after;
    char prog[512];
    lg_sched_wake_fn wake;
} reduce_ctx_t;

static void s_store(lg_ctrl_t *c, uint64_t cid, const char *cfgord, int after, const char *logical,
                    const char *physical, const char *output, const char *error)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)cid);
    const char *p[7] = {id, cfgord, after ? "after" : "before", logical, physical, output, error};
    lg_tx_t *t = lg_tx_new("store a reduction probe");
    if (!t) {
        lg_error("could not store a reduction probe: out of memory");
        return;
    }
    lg_tx_sql(t,
              "INSERT INTO lg.reduction (campaign_id, config_ordinal, phase, logical_bytes,"
              " physical_bytes, output, error) VALUES ($1, $2, $3, $4, $5, $6, $7)"
              " ON CONFLICT (campaign_id, config_ordinal, phase) DO UPDATE SET at = now(),"
              " logical_bytes = EXCLUDED.logical_bytes, physical_bytes = EXCLUDED.physical_bytes,"
              " output = EXCLUDED.output, error = EXCLUDED.error",
              7, p);
    c->io->tx(c, t, NULL, NULL);
}

/* Config edges (campaign, config, before/after) whose probe this process ran: a read that
 * offers one again (its outcome was not stored) stores that instead of running it again. */
#define REDUCE_RAN_MAX 64
static struct {
    uint64_t cid;
    char cfgord[16];
    int after;
} s_ran[REDUCE_RAN_MAX];
static size_t s_nran;

static int s_ran_before(uint64_t cid, const char *cfgord, int after, int mark)
{
    for (size_t i = 0; i < s_nran && i < REDUCE_RAN_MAX; i++)
        if (s_ran[i].cid == cid && s_ran[i].after == after && !strcmp(s_ran[i].cfgord, cfgord))
            return 1;
    if (mark) {
        size_t k = s_nran++ % REDUCE_RAN_MAX;
        s_ran[k].cid = cid;
        s_ran[k].after = after;
        lg_strlcpy(s_ran[k].cfgord, cfgord, sizeof s_ran[k].cfgord);
    }
    return 0;
}

static void s_done(void *arg, int64_t status, int sig, int timed_out, const char *out,
                   size_t outlen, int truncated, const char *err_tail)
{
    reduce_ctx_t *x = arg;
    lg_ctrl_t *c = x->c;
    if (status == UV_ECANCELED) { /* the controller is stopping: the probe runs again later */
        free(x);
        return;
    }
    char err[1500] = "", lb[32] = "", pb[32] = "";
    /* what it printed, kept (its end, when long), and its stderr: valid UTF-8 (text.h) */
    size_t keep = outlen > 4000 ? 4000 : outlen;
    char *kept = lg_text_in(out + (outlen - keep), keep, keep < outlen, 0, NULL, 0,
                            "config %s: the reduction probe's output", x->cfgord);
    char *tail = lg_text_in(err_tail, err_tail ? strlen(err_tail) : 0, 0, 899, NULL, 0,
                            "config %s: the reduction probe's stderr", x->cfgord);
    err_tail = tail ? tail : "";
    if (timed_out) {
        snprintf(err, sizeof err, "%s did not end within %u s: stopped", x->prog,
                 REDUCE_TIMEOUT_MS / 1000);
    } else if (sig || status != 0) {
        snprintf(err, sizeof err, "%s %s %lld%s%s", x->prog,
                 sig ? "was killed by signal" : "exited with status",
                 sig ? (long long)sig : (long long)status, err_tail && err_tail[0] ? ": " : "",
                 err_tail ? err_tail : "");
    } else {
        uint64_t lg = 0, ph = 0;
        char perr[600];
        if (lg_reduction_parse(out, outlen, &lg, &ph, perr, sizeof perr) != 0) {
            snprintf(err, sizeof err, "%s printed no reduction figures%s: %s", x->prog,
                     truncated ? " (its output was cut)" : "", perr);
        } else {
            snprintf(lb, sizeof lb, "%llu", (unsigned long long)lg);
            snprintf(pb, sizeof pb, "%llu", (unsigned long long)ph);
            lg_info("config %s: the NAS holds %llu logical bytes in %llu physical (%.2fx) %s its "
                    "runs",
                    x->cfgord, (unsigned long long)lg, (unsigned long long)ph,
                    ph ? (double)lg / (double)ph : 0.0, x->after ? "after" : "before");
        }
    }
    if (err[0])
        lg_warn("config %s: the reduction probe %s its runs failed: %s; the campaign goes on",
                x->cfgord, x->after ? "after" : "before", err);
    s_store(c, x->campaign_id, x->cfgord, x->after, lb[0] ? lb : NULL, pb[0] ? pb : NULL, kept,
            err[0] ? err : NULL);
    free(kept);
    free(tail);
    lg_sched_wake_fn wake = x->wake;
    free(x);
    c->cur.phase = PH_IDLE;
    if (!c->stopping)
        wake(c);
}

/* The argv of job j's probe from the operator's file, or why not into err. */
static char **s_argv(lg_ctrl_t *c, const next_job_t *j, char *err, size_t errlen)
{
    char *probe = NULL, **keys = NULL, **vals = NULL;
    size_t n = 0;
    char **argv = NULL;
    if (!j->sealed)
        snprintf(err, errlen,
                 "refused: the row that names it was not written by this controller (its seal "
                 "does not match); nothing was run");
    else if (lg_reduction_from_json(j->reduction, &probe, &keys, &vals, &n) != 0)
        snprintf(err, errlen, "its reduction: is not a probe name with parameters");
    else if (lg_operator_probe_argv(c->op, probe, keys, vals, n, &argv, err, errlen) != 0)
        argv = NULL;
    lg_reduction_ref_free(probe, keys, vals, n);
    return argv;
}

void lg__sched_reduce(lg_ctrl_t *c, const void *job, char *const *env, lg_sched_wake_fn wake)
{
    const next_job_t *j = job;
    const char *when = j->after ? "after" : "before";
    char err[1200] = "";
    if (s_ran_before(j->cid, j->cfgord, j->after, 1)) {
        snprintf(err, sizeof err,
                 "the probe ran, but its outcome could not be stored; it is not "
                 "run again");
        lg_warn("config %s: the reduction probe %s its runs: %s", j->cfgord, when, err);
        s_store(c, j->cid, j->cfgord, j->after, NULL, NULL, NULL, err);
        return;
    }
    char **argv = s_argv(c, j, err, sizeof err);
    if (!argv) {
        lg_warn("config %s: the reduction probe %s its runs: %s", j->cfgord, when, err);
        s_store(c, j->cid, j->cfgord, j->after, NULL, NULL, NULL, err);
        return; /* the next read goes on */
    }
    reduce_ctx_t *x = calloc(1, sizeof *x);
    if (!x) {
        lg_operator_argv_free(argv);
        return;
    }
    x->c = c;
    x->campaign_id = j->cid;
    x->after = j->after;
    x->wake = wake;
    lg_strlcpy(x->cfgord, j->cfgord, sizeof x->cfgord);
    lg_strlcpy(x->prog, argv[0], sizeof x->prog);
    lg_info("config %s: running its reduction probe %s its runs: %s", j->cfgord, when, argv[0]);
    int rc =
        c->io->proc ? c->io->proc(c, argv, env, REDUCE_TIMEOUT_MS, REDUCE_OUT_MAX, s_done, x) : -1;
    lg_operator_argv_free(argv);
    if (rc) {
        snprintf(err, sizeof err, "could not run %s: %s", x->prog,
                 rc == -1 ? "no way to run programs here" : uv_strerror(rc));
        lg_warn("config %s: the reduction probe %s its runs: %s", j->cfgord, when, err);
        s_store(c, j->cid, j->cfgord, j->after, NULL, NULL, NULL, err);
        free(x);
        return;
    }
    c->cur.phase = PH_HOOK; /* nothing starts until it ended */
}

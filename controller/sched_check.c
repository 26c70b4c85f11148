/* sched_check.c: the operator's read-back check of a SUT config. The between-configs hook sets
 * the NAS up for a config; the controller's --readback command (the operator's, as the hook is: a
 * spec names no program) then reads the settings back, with the same environment, and prints
 * them (lg_setcheck.h). What it read is stored in lg.config_check and shown by lgctl report
 * beside the config's labels. A label it read otherwise, a check that fails, reads no label or
 * cannot run stops the campaign before the config is measured: a review must not publish an
 * "lz4" config measured uncompressed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_setcheck.h"
#include "lg_util.h"
#include "sched_int.h"
#include "store.h"
#include "text.h"

#define CHECK_OUT_MAX (64u << 10)

typedef struct {
    lg_ctrl_t *c;
    uint64_t campaign_id;
    uint32_t ordinal;
    char cfgord[16];
    char *labels;
    char desc[1400];
    lg_sched_wake_fn wake;
} check_ctx_t;

static void s_store(lg_ctrl_t *c, uint64_t cid, const char *cfgord, const char *read,
                    const char *output, const char *error)
{
    char id[24];
    lg__sched_u64(id, sizeof id, cid);
    const char *p[5] = {id, cfgord, read, output, error};
    lg_tx_t *t = lg_tx_new("store a config's check");
    if (!t) {
        lg_error("could not store a config's check: out of memory");
        return;
    }
    lg_tx_sql(t,
              "INSERT INTO lg.config_check (campaign_id, config_ordinal, read, output, error)"
              " VALUES ($1, $2, $3::jsonb, $4, $5)"
              " ON CONFLICT (campaign_id, config_ordinal) DO UPDATE SET at = now(),"
              " read = EXCLUDED.read, output = EXCLUDED.output, error = EXCLUDED.error",
              5, p);
    c->io->tx(c, t, NULL, NULL);
}

static void s_check_ctx_destroy(check_ctx_t **self_p)
{
    check_ctx_t *x = self_p ? *self_p : NULL;
    if (!x)
        return;
    *self_p = NULL;
    free(x->labels);
    free(x);
}

/* Why the check failed as a program (timed out, killed, exit status with its stderr), or "". */
static void s_failed(const check_ctx_t *x, int64_t status, int sig, int timed_out,
                     const char *err_tail, char *err, size_t errlen)
{
    err[0] = 0;
    if (timed_out)
        snprintf(err, errlen, "it timed out after %u s (--hook-timeout) and was stopped",
                 (unsigned)lg_hook_timeout_s(x->c->cfg->hook_timeout_s));
    else if (sig || status != 0)
        snprintf(err, errlen, "it %s %lld: %s", sig ? "was killed by signal" : "exited with status",
                 sig ? (long long)sig : (long long)status,
                 err_tail && err_tail[0] ? err_tail : "(no stderr)");
}

static void s_done(void *arg, int64_t status, int sig, int timed_out, const char *out,
                   size_t outlen, int truncated, const char *err_tail)
{
    check_ctx_t *x = arg;
    lg_ctrl_t *c = x->c;
    (void)truncated; /* over CHECK_OUT_MAX: what it printed first is what is compared */
    c->cur.phase = PH_IDLE;
    if (status == UV_ECANCELED) { /* the controller stops; a restart runs the gate again */
        s_check_ctx_destroy(&x);
        return;
    }
    /* what it printed and its stderr, as valid UTF-8 (text.h) */
    char *kept =
        lg_text_in(out, outlen, 0, 4000, NULL, 0, "config %s: the check's output", x->cfgord);
    char *tail = lg_text_in(err_tail, err_tail ? strlen(err_tail) : 0, 0, 899, NULL, 0,
                            "config %s: the check's stderr", x->cfgord);
    char err[1500], *read = NULL;
    s_failed(x, status, sig, timed_out, tail, err, sizeof err);
    if (!err[0]) {
        char why[700];
        int rc = lg_setcheck_compare(kept ? kept : "", kept ? strlen(kept) : 0, x->labels, &read,
                                     why, sizeof why);
        if (rc != 0)
            snprintf(err, sizeof err, "%s", why);
    }
    s_store(c, x->campaign_id, x->cfgord, read, kept, err[0] ? err : NULL);
    if (err[0]) {
        char msg[3000];
        snprintf(msg, sizeof msg, "the readback check \"%s\" %s: %s; campaign stopped",
                 c->cfg->readback, x->desc, err);
        lg_utf8_cut(msg, sizeof msg);
        lg__sched_gate_fail(c, x->campaign_id, "check", msg);
    } else {
        lg_info("the check read back %s %s", read, x->desc);
        lg__sched_gate_pass(c, x->campaign_id, x->ordinal);
    }
    free(read);
    free(kept);
    free(tail);
    lg_sched_wake_fn wake = x->wake;
    s_check_ctx_destroy(&x);
    if (!c->stopping)
        wake(c);
}

void lg__sched_check(lg_ctrl_t *c, uint64_t cid, uint32_t ordinal, const char *config_ordinal,
                     const char *labels, const char *desc, char *const *env, lg_sched_wake_fn wake)
{
    check_ctx_t *x = calloc(1, sizeof *x);
    if (x)
        x->labels = strdup(labels ? labels : "{}");
    if (!x || !x->labels) {
        free(x);
        lg__sched_gate_fail(c, cid, "check",
                            "could not run the check: out of memory; campaign stopped");
        if (!c->stopping)
            wake(c);
        return;
    }
    x->c = c;
    x->campaign_id = cid;
    x->ordinal = ordinal;
    x->wake = wake;
    lg_strlcpy(x->cfgord, config_ordinal, sizeof x->cfgord);
    lg_strlcpy(x->desc, desc, sizeof x->desc);
    char *argv[] = {"/bin/sh", "-c", (char *)c->cfg->readback, NULL};
    lg_info("running the check %s", desc);
    int rc = c->io->proc
                 ? c->io->proc(c, argv, env, lg_hook_timeout_s(c->cfg->hook_timeout_s) * 1000u,
                               CHECK_OUT_MAX, s_done, x)
                 : -1;
    if (rc) {
        char msg[1800];
        snprintf(
            msg, sizeof msg, "could not run the readback check \"%s\" %s: %s; campaign stopped",
            c->cfg->readback, desc, rc == -1 ? "no way to run programs here" : uv_strerror(rc));
        s_store(c, cid, config_ordinal, NULL, NULL, msg);
        lg__sched_gate_fail(c, cid, "check", msg);
        s_check_ctx_destroy(&x);
        if (!c->stopping)
            wake(c);
        return;
    }
    c->cur.phase = PH_HOOK; /* nothing starts until it ended */
}

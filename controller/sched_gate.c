/* sched_gate.c: the gate before a SUT config's first run: a pause for "lgctl resume", or the
 * controller's hook (hook.h), whose end wakes the scheduler; and the config's LG_* environment for
 * the programs run for it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#include "sched_int.h"
#include "text.h"

static void s_campaign_msg(lg_ctrl_t *c, uint64_t cid, const char *state, const char *msg)
{
    char id[24];
    lg__sched_u64(id, sizeof id, cid);
    const char *p[3] = {id, state, msg};
    lg__sched_q(c, "update the campaign",
                "UPDATE lg.campaign SET state = $2, message = $3,"
                " finished_at = CASE WHEN $2 IN ('done', 'failed', 'aborted') THEN now() END"
                " WHERE campaign_id = $1 AND state IN ('pending', 'running', 'paused')",
                3, p);
}

typedef struct {
    lg_ctrl_t *c;
    uint64_t campaign_id;
    uint32_t ordinal;
    int after;
    char name[256], cfgord[16];
    char *labels;
    char desc[1400]; /* "before config 2 {...}" */
    lg_sched_wake_fn wake;
} hook_ctx_t;

void lg__sched_gate_pass(lg_ctrl_t *c, uint64_t cid, uint32_t ordinal)
{
    char id[24], ord[16];
    lg__sched_u64(id, sizeof id, cid);
    snprintf(ord, sizeof ord, "%u", ordinal);
    const char *p[2] = {id, ord};
    lg__sched_q(c, "pass the gate",
                "UPDATE lg.campaign SET gate_passed = $2, message = NULL WHERE campaign_id = $1", 2,
                p);
}

void lg__sched_gate_fail(lg_ctrl_t *c, uint64_t cid, const char *what, const char *msg)
{
    char id[24];
    lg__sched_u64(id, sizeof id, cid);
    lg_error("%s", msg);
    lg__sched_begin(c,
                    strcmp(what, "check") ? "stop campaign %llu after its hook failed"
                                          : "stop campaign %llu after its check failed",
                    (unsigned long long)cid);
    s_campaign_msg(c, cid, "failed", msg);
    const char *p[1] = {id};
    lg__sched_q(c, "abort the remaining runs",
                "UPDATE lg.run SET state = 'aborted' WHERE campaign_id = $1 AND state = 'pending'",
                1, p);
    lg__sched_commit(c);
}

/* The hook before a config succeeded: the operator's check reads the settings back, if there is
 * one; else the gate is passed. Takes h (1) when the check runs. */
static int s_after_hook(hook_ctx_t *h)
{
    lg_ctrl_t *c = h->c;
    if (h->after || !c->cfg->readback || !c->cfg->readback[0]) {
        lg__sched_gate_pass(c, h->campaign_id, h->ordinal);
        return 0;
    }
    if (c->stopping) /* a restart runs the hook and the check again */
        return 0;
    char *env[80];
    char buf[80][320];
    lg__sched_config_env(h->name, h->cfgord, h->labels, 0, env, buf);
    lg__sched_check(c, h->campaign_id, h->ordinal, h->cfgord, h->labels, h->desc, env, h->wake);
    return 1;
}

void lg__sched_gate_resumed(lg_ctrl_t *c, uint64_t cid, const char *name, uint32_t ordinal,
                            const char *config_ordinal, const char *labels, lg_sched_wake_fn wake)
{
    if (!c->cfg->readback || !c->cfg->readback[0]) {
        lg__sched_gate_pass(c, cid, ordinal);
        wake(c);
        return;
    }
    char desc[1200];
    snprintf(desc, sizeof desc, "before config %s %s (resumed)", config_ordinal, labels);
    char *env[80];
    char buf[80][320];
    lg__sched_config_env(name, config_ordinal, labels, 0, env, buf);
    lg__sched_check(c, cid, ordinal, config_ordinal, labels, desc, env, wake);
}

static void s_hook_destroy(hook_ctx_t **self_p)
{
    hook_ctx_t *h = self_p ? *self_p : NULL;
    if (!h)
        return;
    *self_p = NULL;
    free(h->labels);
    free(h);
}

static void s_on_hook(void *arg, int64_t status, int sig, int timed_out, const char *tail)
{
    hook_ctx_t *h = arg;
    lg_ctrl_t *c = h->c;
    c->cur.phase = PH_IDLE;
    if (status == UV_ECANCELED) { /* the controller stops; a restart runs the gate again */
        s_hook_destroy(&h);
        return;
    }
    if (status == 0 && sig == 0 && !timed_out) {
        lg_info("hook succeeded %s", h->desc);
        if (s_after_hook(h)) {
            s_hook_destroy(&h); /* the check wakes the scheduler when it ends */
            return;
        }
    } else {
        char msg[3000], how[96];
        if (timed_out)
            snprintf(how, sizeof how, "timed out after %u s (--hook-timeout) and was stopped",
                     (unsigned)lg_hook_timeout_s(c->cfg->hook_timeout_s));
        else
            snprintf(how, sizeof how, "%s %lld",
                     sig ? "was killed by signal" : "exited with status",
                     sig ? (long long)sig : (long long)status);
        /* its stderr as text takes it (text.h), and the message cut on a character boundary */
        char note[160];
        char *err = lg_text_noted(lg_text_in(tail, strlen(tail), 0, 2047, note, sizeof note,
                                             "the hook \"%s\"'s stderr", c->cfg->hook),
                                  note);
        snprintf(msg, sizeof msg, "the hook \"%s\" %s %s; campaign stopped: %s", c->cfg->hook, how,
                 h->desc, err && err[0] ? err : "(no stderr)");
        lg_utf8_cut(msg, sizeof msg);
        free(err);
        lg__sched_gate_fail(c, h->campaign_id, "hook", msg);
    }
    lg_sched_wake_fn wake = h->wake;
    s_hook_destroy(&h);
    if (!c->stopping)
        wake(c);
}

void lg__sched_config_env(const char *name, const char *config_ordinal, const char *labels,
                          int after, char *env[80], char buf[80][320])
{
    json_error_t je;
    json_t *o = json_loads(labels, 0, &je);
    size_t ne = 0;
    snprintf(buf[ne], sizeof buf[ne], "LG_CAMPAIGN=%s", name);
    env[ne] = buf[ne];
    ne++;
    snprintf(buf[ne], sizeof buf[ne], "LG_CONFIG=%s", config_ordinal);
    env[ne] = buf[ne];
    ne++;
    snprintf(buf[ne], sizeof buf[ne], "LG_LABELS=%s", labels);
    env[ne] = buf[ne];
    ne++;
    snprintf(buf[ne], sizeof buf[ne], "LG_PHASE=%s", after ? "after" : "before");
    env[ne] = buf[ne];
    ne++;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        if (ne >= 79 || !json_is_string(v))
            continue;
        char key[80];
        size_t j = 0;
        for (; k[j] && j < sizeof key - 1; j++)
            key[j] = (k[j] >= 'a' && k[j] <= 'z') ? (char)(k[j] - 32)
                     : ((k[j] >= 'A' && k[j] <= 'Z') || (k[j] >= '0' && k[j] <= '9')) ? k[j]
                                                                                      : '_';
        key[j] = 0;
        snprintf(buf[ne], sizeof buf[ne], "LG_LABEL_%s=%s", key, json_string_value(v));
        env[ne] = buf[ne];
        ne++;
    }
    env[ne] = NULL;
    json_decref(o);
}

int lg__sched_gate(lg_ctrl_t *c, uint64_t cid, const char *name, const char *between,
                   uint32_t ordinal, const char *config_ordinal, const char *labels, int after,
                   lg_sched_wake_fn wake)
{
    char desc[1200];
    snprintf(desc, sizeof desc, "config %s %s", config_ordinal, labels);
    char when[1300];
    snprintf(when, sizeof when, "%s %s", after ? "after" : "before", desc);
    if (!strcmp(between, "pause")) {
        char msg[1600];
        snprintf(msg, sizeof msg,
                 "waiting before %s: set the NAS up for it, then run \"lgctl resume %s\"", desc,
                 name);
        lg_info("campaign %llu \"%s\" is %s", (unsigned long long)cid, name, msg);
        s_campaign_msg(c, cid, "paused", msg);
        return 0;
    }
    if (!c->cfg->hook || !c->cfg->hook[0]) {
        char msg[1600];
        snprintf(msg, sizeof msg,
                 "between_configs is hook but lg-controller has no --hook command; campaign "
                 "stopped %s",
                 when);
        lg_error("%s", msg);
        s_campaign_msg(c, cid, "failed", msg);
        return 0;
    }
    char *env[80];
    char buf[80][320];
    lg__sched_config_env(name, config_ordinal, labels, after, env, buf);
    hook_ctx_t *h = calloc(1, sizeof *h);
    if (!h)
        return 0;
    h->c = c;
    h->campaign_id = cid;
    h->ordinal = ordinal;
    h->after = after;
    h->wake = wake;
    lg_strlcpy(h->name, name, sizeof h->name);
    lg_strlcpy(h->cfgord, config_ordinal, sizeof h->cfgord);
    h->labels = strdup(labels ? labels : "{}");
    if (!h->labels) {
        free(h);
        return 0;
    }
    snprintf(h->desc, sizeof h->desc, "%s", when);
    lg_info("running the hook %s", when);
    int rc = c->io->hook(c, env, s_on_hook, h);
    if (rc) {
        char msg[1600];
        snprintf(msg, sizeof msg, "could not run the hook \"%s\": %s", c->cfg->hook,
                 uv_strerror(rc));
        s_campaign_msg(c, cid, "failed", msg);
        s_hook_destroy(&h);
        return 0;
    }
    c->cur.phase = PH_HOOK;
    return 0;
}

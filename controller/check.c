/* check.c: lgctl plan --check at the controller. Each target of a spec is looked at from every
 * agent its runs would pick (pick.c, as at a run's start): a Check with the run's target and size
 * to each, answered by a CheckResult (agent_check.c: logged in, nothing written but a file made
 * and removed in an SMB folder). The answers, or the deadline, make one CtlReply with a CheckItem
 * per target and agent. One check at a time; its deadline is kept by the loop's tick. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "lg_wire.h"

/* What a login may take (lgiscsi's and the read-back's 30 s), and a margin. */
#define S_CHECK_TIMEOUT_MS 40000
#define S_CHECK_MAX 128

typedef struct {
    uint64_t id; /* 0: no Check went out (msg says why) */
    char agent[64];
    char target[1100];
    int code;
    int answered;
    char msg[768];
} check_item_t;

struct lg_check {
    uint8_t id[256]; /* lgctl's routing id */
    size_t idlen;
    check_item_t items[S_CHECK_MAX];
    size_t n, pending;
    int sending; /* the Checks are going out: a send drains the sockets, so an answer may come
                  * in before the next one is sent; the reply waits for them all to be out */
    uint64_t deadline_ms;
};

static uint64_t s_next_id = 1;

static void s_reply(lg_ctrl_t *c, int code, const char *msg)
{
    struct lg_check *k = c->check;
    Lg__CheckItem *it = calloc(k->n ? k->n : 1, sizeof *it);
    Lg__CheckItem **itp = calloc(k->n ? k->n : 1, sizeof *itp);
    Lg__CtlReply rep = LG__CTL_REPLY__INIT;
    rep.code = code;
    for (size_t i = 0; it && itp && i < k->n; i++) {
        Lg__CheckItem x = LG__CHECK_ITEM__INIT;
        x.agent = k->items[i].agent;
        x.target = k->items[i].target;
        x.code = k->items[i].answered ? k->items[i].code : -ETIMEDOUT;
        x.message = k->items[i].msg;
        if (!k->items[i].answered) {
            char who[64];
            lg_strlcpy(who, k->items[i].agent, sizeof who);
            snprintf(k->items[i].msg, sizeof k->items[i].msg,
                     "no answer from agent \"%s\" within %d s", who, S_CHECK_TIMEOUT_MS / 1000);
        }
        it[i] = x;
        itp[i] = &it[i];
        rep.code = rep.code ? rep.code : x.code;
    }
    rep.n_checks = it && itp ? k->n : 0;
    rep.checks = itp;
    rep.message = (char *)msg;
    for (size_t i = 0; i < c->nagents; i++)
        rep.agents += !c->agents[i].lost;
    Lg__Envelope out = LG__ENVELOPE__INIT;
    out.body_case = LG__ENVELOPE__BODY_CTL_REPLY;
    out.ctl_reply = &rep;
    if (c->zs_ctl)
        lg_zsock_send(c->zs_ctl, k->id, k->idlen, &out);
    free(it);
    free(itp);
    free(c->check);
    c->check = NULL;
}

/* An item for target t of config cfg from agent conn (SIZE_MAX: none, why in msg), its Check
 * sent. */
static void s_item(lg_ctrl_t *c, const lg_spec_t *spec, const lg_target_t *t, size_t conn,
                   const char *why)
{
    struct lg_check *k = c->check;
    if (k->n == S_CHECK_MAX)
        return;
    check_item_t *x = &k->items[k->n++];
    lg_strlcpy(x->target, t->path, sizeof x->target);
    if (conn == SIZE_MAX) {
        x->answered = 1;
        x->code = LG_EDENIED;
        snprintf(x->msg, sizeof x->msg, "no agent to check it from: %s", why);
        return;
    }
    lg_strlcpy(x->agent, c->agents[conn].name, sizeof x->agent);
    x->id = s_next_id++;
    Lg__RunSpec rs = LG__RUN_SPEC__INIT;
    rs.target_kind = (Lg__TargetKind)t->kind;
    rs.target = t->path;
    rs.size = spec->size;
    rs.protocol = (char *)t->protocol;
    /* A spec that writes (a profile, or the preconditioning fill) is checked as a writer: an
     * agent refuses a LUN or device it may not write to, as its Prepare would. */
    int writes = spec->precondition != LG_PRECOND_NONE;
    for (size_t i = 0; i < spec->nprofiles; i++)
        writes |= spec->profiles[i].read_pct != 100;
    rs.rw = (char *)(writes ? "randrw" : "randread");
    rs.read_pct = writes ? 50 : 100;
    Lg__Check ck = LG__CHECK__INIT;
    ck.check_id = x->id;
    ck.spec = &rs;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_CHECK;
    env.check = &ck;
    k->pending++; /* before the send: its answer may come in during it */
    if (lg__ctrl_send_agent(c, conn, &env) != 0) {
        k->pending--;
        x->answered = 1;
        x->code = -EIO;
        snprintf(x->msg, sizeof x->msg, "could not send the check to agent \"%s\"",
                 c->agents[conn].name);
    }
}

/* Every target of every config, from every agent its runs would pick. */
static void s_send_all(lg_ctrl_t *c, const lg_spec_t *spec)
{
    for (size_t ci = 0; ci < spec->nconfigs; ci++)
        for (size_t ti = 0; ti < spec->configs[ci].ntargets; ti++) {
            const lg_target_t *t = &spec->configs[ci].targets[ti];
            int seen = 0;
            for (size_t i = 0; i < c->check->n && !seen; i++)
                seen = !strcmp(c->check->items[i].target, t->path);
            if (seen || t->kind == LG_TARGET_NULL)
                continue;
            lg_agents_t ag = lg_spec_agents(spec, t);
            char *sel = lg_agents_json(&ag), why[512] = "";
            size_t conns[S_CHECK_MAX];
            uint32_t th[S_CHECK_MAX], qd[S_CHECK_MAX];
            size_t n =
                sel ? lg__pick_agents(c, sel, conns, th, qd, S_CHECK_MAX, why, sizeof why) : 0;
            free(sel);
            if (n == 0)
                s_item(c, spec, t, SIZE_MAX, why[0] ? why : "out of memory");
            for (size_t i = 0; i < n; i++)
                s_item(c, spec, t, conns[i], NULL);
        }
}

int lg__check_start(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const char *text,
                    const char *path, char *msg, size_t len)
{
    if (c->check) {
        snprintf(msg, len, "another check is under way: try again when it ended");
        return -EBUSY;
    }
    if (idlen > sizeof c->check->id) {
        snprintf(msg, len, "a routing id of %zu bytes", idlen);
        return LG_EPROTO;
    }
    lg_spec_t *spec = NULL;
    lg_spec_diag_t d;
    memset(&d, 0, sizeof d);
    if (lg_spec_parse_text(text ? text : "", text ? strlen(text) : 0,
                           path && path[0] ? path : "<checked>", &spec, &d) != 0) {
        lg_spec_diag_format(&d, msg, len);
        return LG_ESPEC;
    }
    c->check = calloc(1, sizeof *c->check);
    if (!c->check) {
        lg_spec_destroy(&spec);
        snprintf(msg, len, "out of memory");
        return -ENOMEM;
    }
    memcpy(c->check->id, id, idlen);
    c->check->idlen = idlen;
    c->check->deadline_ms = lg_mono_ms() + S_CHECK_TIMEOUT_MS;
    c->check->sending = 1;
    s_send_all(c, spec);
    c->check->sending = 0;
    lg_info("check of \"%s\": %zu targets and agents, %zu asked", spec->name, c->check->n,
            c->check->pending);
    lg_spec_destroy(&spec);
    if (c->check->pending == 0)
        s_reply(c, 0, "");
    return 0;
}

void lg__check_on_result(lg_ctrl_t *c, size_t conn, const Lg__CheckResult *r)
{
    struct lg_check *k = c->check;
    for (size_t i = 0; k && i < k->n; i++) {
        check_item_t *x = &k->items[i];
        if (x->id != r->check_id || x->answered || strcmp(x->agent, c->agents[conn].name) != 0)
            continue;
        x->answered = 1;
        x->code = r->code;
        lg_strlcpy(x->msg, r->message ? r->message : "", sizeof x->msg);
        if (--k->pending == 0 && !k->sending)
            s_reply(c, 0, "");
        return;
    }
    lg_debug("a check result %llu from agent \"%s\" that no check waits for",
             (unsigned long long)r->check_id, c->agents[conn].name);
}

void lg__check_tick(lg_ctrl_t *c, uint64_t now_ms)
{
    if (!c->check || c->check->sending)
        return;
    if (c->stopping)
        s_reply(c, LG_ESTATE, "the controller is stopping");
    else if (now_ms >= c->check->deadline_ms)
        s_reply(c, 0, "");
}

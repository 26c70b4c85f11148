/* cmd_campaign.c: lgctl run, submit, pause, resume and abort: a campaign started (in local mode
 * or through a controller) and steered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "cli.h"
#include "ctl.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#include "lg_wire.h"

static int s_run(const lgctl_opts_t *o, const char *path)
{
    /* Validate before touching anything: a broken spec writes nothing anywhere. */
    lg_spec_t *spec = NULL;
    int rc = lg__cli_spec_load(path, &spec);
    if (rc)
        return rc;
    lg__cli_spec_warn(spec);
    char *text = strdup(spec->text);
    lg_spec_destroy(&spec);
    if (!text)
        return LGCTL_FAIL;
    if (!o->controller) {
        /* Local mode: the controller runs here, so a source this host cannot reach is one
         * the runs will miss: said now, before anything runs. */
        lg_spec_t *sp = NULL;
        lg_operator_t *op = lg__cli_operator(o);
        if (!op) {
            free(text);
            return LGCTL_USAGE;
        }
        if (lg_spec_parse_text(text, strlen(text), path, &sp, &(lg_spec_diag_t){0}) == 0)
            lg__cli_telemetry_check(sp, 0, op);
        lg_spec_destroy(&sp);
        lg_operator_destroy(&op);
        rc = lgctl_local_run(o, path, text);
        free(text);
        return rc;
    }
    void *zctx = zmq_ctx_new();
    void *sock = lgctl_connect(zctx, o->controller, o, 0);
    uint64_t cid = 0;
    rc = sock ? lgctl_submit_and_wait(o, sock, path, text, &cid, NULL, NULL) : LGCTL_FAIL;
    free(text);
    lgctl_close(sock);
    zmq_ctx_term(zctx);
    if (cid && o->db.url) {
        int r2 = lg__cli_print_report(o, cid, NULL);
        if (rc == LGCTL_OK)
            rc = r2;
    } else if (cid) {
        lg_info("campaign %llu finished", (unsigned long long)cid);
        lg_log_hint("set LG_DATABASE_URL to print its report here");
    }
    return rc;
}

static int s_submit(const lgctl_opts_t *o, const char *path)
{
    lg_spec_t *spec = NULL;
    int rc = lg__cli_spec_load(path, &spec);
    if (rc)
        return rc;
    lg__cli_spec_warn(spec);
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_SUBMIT;
    q.spec_text = spec->text;
    q.spec_path = (char *)path;
    if (o->submit_id)
        q.submit_id = (char *)o->submit_id;
    Lg__Envelope *e = NULL;
    rc = lgctl_ctl_request(o, &q, 30000, &e);
    if (rc != 0)
        lgctl_submit_unanswered(path);
    if (rc == 0) {
        Lg__CtlReply *p = e->ctl_reply;
        if (p->code) {
            lg_error("%s", p->message);
            rc = p->code == LG_ESPEC ? LGCTL_USAGE : LGCTL_FAIL;
        } else {
            printf("campaign %llu \"%s\" submitted\n", (unsigned long long)p->campaign_id,
                   spec->name);
            if (p->message && p->message[0]) /* e.g. submitted before with this submit id */
                lg_error("%s", p->message);
        }
        lg_wire_envelope_destroy(&e);
    }
    lg_spec_destroy(&spec);
    return rc;
}

int lg__cli_campaign_request(const lgctl_opts_t *o, const char *cmd, const char *name)
{
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = !strcmp(cmd, "pause")    ? LG__CTL_REQUEST__OP__OP_PAUSE
           : !strcmp(cmd, "resume") ? LG__CTL_REQUEST__OP__OP_RESUME
           : !strcmp(cmd, "abort")  ? LG__CTL_REQUEST__OP__OP_ABORT
                                    : LG__CTL_REQUEST__OP__OP_STATUS;
    q.name = (char *)name;
    Lg__Envelope *e = NULL;
    if (lgctl_ctl_request(o, &q, 10000, &e) != 0)
        return LGCTL_FAIL;
    Lg__CtlReply *p = e->ctl_reply;
    int rc = LGCTL_OK;
    if (p->code) {
        lg_error("%s", p->message);
        rc = LGCTL_FAIL;
    } else if (q.op == LG__CTL_REQUEST__OP__OP_STATUS) {
        char cname[1024], state[256], text[4096], with[64] = ""; /* escaped: from the database */
        int ended = !strcmp(p->state, "done") || !strcmp(p->state, "failed") ||
                    !strcmp(p->state, "aborted");
        if (p->points_failed) /* measured points without figures: named in the message */
            snprintf(with, sizeof with, " with %u failed", p->points_failed);
        printf("campaign %llu \"%s\": %s%s, %u of %u runs done, %u failed or aborted\n",
               (unsigned long long)p->campaign_id, lg_esc_ctrl(p->name, cname, sizeof cname),
               lg_esc_ctrl(p->state, state, sizeof state), with, p->runs_done, p->runs_total,
               p->runs_failed);
        if (ended && p->points_failed)
            rc = LGCTL_FAIL;
        if (p->current[0])
            printf("current: %s\n", lg_esc_ctrl(p->current, text, sizeof text));
        if (p->message[0])
            printf("message: %s\n", lg_esc_ctrl(p->message, text, sizeof text));
    } else {
        printf("campaign %llu: %s\n", (unsigned long long)p->campaign_id,
               !strcmp(cmd, "pause")    ? "pause requested (after the current run)"
               : !strcmp(cmd, "resume") ? "resumed"
                                        : "aborted");
    }
    lg_wire_envelope_destroy(&e);
    return rc;
}

int lg__cli_run(void *ctx)
{
    cli_t *c = ctx;
    return s_run(&c->o, c->pos[0]);
}

int lg__cli_submit(void *ctx)
{
    cli_t *c = ctx;
    return s_submit(&c->o, c->pos[0]);
}
int lg__cli_pause(void *ctx)
{
    cli_t *c = ctx;
    return lg__cli_campaign_request(&c->o, "pause", c->pos[0]);
}

int lg__cli_resume(void *ctx)
{
    cli_t *c = ctx;
    return lg__cli_campaign_request(&c->o, "resume", c->pos[0]);
}

int lg__cli_abort(void *ctx)
{
    cli_t *c = ctx;
    return lg__cli_campaign_request(&c->o, "abort", c->pos[0]);
}

/* --runs N,...: run ids into q (runs owned by the caller). 0 or LGCTL_USAGE. */
static int s_parse_runs(const char *s, uint64_t *runs, size_t cap, size_t *n)
{
    *n = 0;
    char buf[4096];
    lg_strlcpy(buf, s, sizeof buf);
    for (char *p = buf, *next; p && *p; p = next) {
        next = strchr(p, ',');
        if (next)
            *next++ = 0;
        uint64_t v;
        if (*n == cap || lg_parse_u64(p, 1, INT64_MAX, &v) != 0) {
            lg_error("rerun: --runs: \"%s\" is not a run id (at most %zu, comma-separated)", p,
                     cap);
            return LGCTL_USAGE;
        }
        runs[(*n)++] = v;
    }
    if (*n == 0) {
        lg_error("rerun: --runs: no run id given");
        return LGCTL_USAGE;
    }
    return 0;
}

int lg__cli_rerun(void *ctx)
{
    cli_t *c = ctx;
    const lgctl_opts_t *o = &c->o;
    uint64_t runs[256];
    size_t nruns = 0;
    if (c->failed && c->runs) {
        lg_error("rerun: --failed and --runs: give one of them");
        return LGCTL_USAGE;
    }
    if (c->runs && s_parse_runs(c->runs, runs, 256, &nruns) != 0)
        return LGCTL_USAGE;
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_RERUN;
    q.name = (char *)c->pos[0];
    q.failed_only = nruns == 0;
    q.runs = runs;
    q.n_runs = nruns;
    Lg__Envelope *e = NULL;
    if (lgctl_ctl_request(o, &q, 30000, &e) != 0)
        return LGCTL_FAIL;
    uint64_t cid = 0;
    int rc = LGCTL_OK;
    if (e->ctl_reply->code) {
        lg_error("%s", e->ctl_reply->message);
        rc = e->ctl_reply->code == LG_ENOTFOUND || e->ctl_reply->code == LG_ESTATE ? LGCTL_USAGE
                                                                                   : LGCTL_FAIL;
    } else {
        char text[2048];
        cid = e->ctl_reply->campaign_id;
        printf("campaign %llu: %s\n", (unsigned long long)cid,
               lg_esc_ctrl(e->ctl_reply->message, text, sizeof text));
        fflush(stdout);
    }
    lg_wire_envelope_destroy(&e);
    if (!cid || !o->controller)
        return rc;
    void *zctx = zmq_ctx_new();
    void *sock = lgctl_connect(zctx, o->controller, o, 0);
    rc = sock ? lgctl_wait_campaign(o, sock, cid, NULL, NULL) : LGCTL_FAIL;
    lgctl_close(sock);
    zmq_ctx_term(zctx);
    return rc;
}

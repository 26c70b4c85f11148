/* agent_check.c: lgctl plan --check from this agent's side. The controller sends a Check with a
 * run's spec; the agent refuses it as it would the run's Prepare (allow-list, engine,
 * credentials, consent), then logs in to an smb:// or iscsi:// target on a worker thread and
 * looks without I/O (readback.h: the folder takes a new file, the LUN is there and as large as
 * size), and answers with a CheckResult. */
#include "agent_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#ifndef _WIN32
#include "readback.h"
#endif

typedef struct {
    uv_work_t req;
    agent_t *agent;
    uint64_t check_id;
    char url[1100];
    const char *credentials;
    uint64_t size;
    uint64_t bytes;
    int rc;
    char msg[768];
} check_job_t;

static void s_answer(agent_t *a, uint64_t id, int code, const char *msg, uint64_t bytes)
{
    char *m = strdup(msg);
    if (m)
        lg_utf8_cut(m, strlen(m));
    lg_info("check %llu: %s", (unsigned long long)id, m ? m : msg);
    Lg__CheckResult cr = LG__CHECK_RESULT__INIT;
    cr.check_id = id;
    cr.code = code;
    cr.message = m ? m : (char *)"out of memory";
    cr.size = bytes;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_CHECK_RESULT;
    env.check_result = &cr;
    lg__agent_send(a, &env);
    free(m);
}

static void s_check_work(uv_work_t *req)
{
    check_job_t *j = req->data;
#ifdef _WIN32
    j->rc = LG_EDENIED;
    snprintf(j->msg, sizeof j->msg, "the Windows agent has no smb:// or iscsi:// engine");
#else
    j->rc = lg_readback_look(j->url, j->credentials, j->size, &j->bytes, j->msg, sizeof j->msg);
#endif
}

static void s_check_done(uv_work_t *req, int status)
{
    check_job_t *j = req->data;
    if (!j->agent->stopping)
        s_answer(j->agent, j->check_id, status ? -EIO : j->rc,
                 status ? "the check was cancelled" : j->msg, j->bytes);
    free(j);
}

/* A block device: in the allow-list, and as large as size (opened, nothing read). */
static void s_check_block(agent_t *a, uint64_t id, const Lg__RunSpec *spec)
{
    char err[768];
    uint64_t bytes = 0;
    int rc = 0;
    if (!lg_agent_path_allowed(a->cfg, spec->target)) {
        rc = LG_EDENIED;
        snprintf(err, sizeof err,
                 "target \"%s\" is outside this agent's allowed targets (see --allow)",
                 spec->target);
    } else if (lg_jobfile_writes(spec) && !a->cfg->allow_destructive) {
        rc = LG_EDENIED;
        snprintf(err, sizeof err,
                 "the spec writes to block device \"%s\": this agent was not started with "
                 "--allow-destructive",
                 spec->target);
    } else if ((rc = lg_plat_block_bytes(spec->target, &bytes, err, sizeof err)) == 0) {
        rc = bytes < spec->size ? -ENOSPC : 0;
        snprintf(err, sizeof err, "block device \"%s\" holds %llu bytes%s%llu%s", spec->target,
                 (unsigned long long)bytes,
                 rc ? ", less than size: " : " (size: ", (unsigned long long)spec->size,
                 rc ? "" : ")");
    }
    s_answer(a, id, rc, err, bytes);
}

void lg__agent_handle_check(agent_t *a, const Lg__Check *ck)
{
    const Lg__RunSpec *spec = ck->spec;
    char err[768];
    if (!spec || !spec->target) {
        s_answer(a, ck->check_id, LG_EPROTO, "a check without a target", 0);
        return;
    }
    const char *engine = lg_jobfile_engine(spec->target_kind);
    if (spec->target_kind == LG__TARGET_KIND__TARGET_BLOCK) {
        s_check_block(a, ck->check_id, spec);
        return;
    }
    if (!engine) {
        snprintf(err, sizeof err,
                 "\"%s\": a local file is checked when its run is prepared (smb:// and "
                 "iscsi:// targets are logged in to, block devices opened)",
                 spec->target);
        s_answer(a, ck->check_id, 0, err, 0);
        return;
    }
    if (!lg_agent_path_allowed(a->cfg, spec->target)) {
        snprintf(err, sizeof err,
                 "target \"%s\" is outside this agent's allowed targets (see --allow)",
                 spec->target);
        s_answer(a, ck->check_id, LG_EDENIED, err, 0);
        return;
    }
    int rc = lg__agent_check_engine_target(a, spec, engine, err, sizeof err);
    if (rc) {
        s_answer(a, ck->check_id, rc, err, 0);
        return;
    }
    check_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        s_answer(a, ck->check_id, -ENOMEM, "out of memory", 0);
        return;
    }
    j->req.data = j;
    j->agent = a;
    j->check_id = ck->check_id;
    lg_strlcpy(j->url, spec->target, sizeof j->url);
    j->credentials = spec->target_kind == LG__TARGET_KIND__TARGET_SMB ? a->cfg->smb_credentials
                                                                      : a->cfg->iscsi_chap;
    j->size = spec->size;
    if (uv_queue_work(a->loop, &j->req, s_check_work, s_check_done) != 0) {
        free(j);
        s_answer(a, ck->check_id, -EIO, "could not start the check", 0);
    }
}

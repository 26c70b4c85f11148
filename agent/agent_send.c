/* agent_send.c: the agent's messages to the controller: one sent as it is, one kept in the
 * spool until acknowledged, Prepared and RunError. It calls nothing of the agent's above it, so
 * the run's files (agent_prepare.c, agent_run.c, agent_app.c) and the loop (agent.c) all use it. */
#include "agent_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#include "lg_wire.h"

int lg__agent_send(agent_t *a, Lg__Envelope *env)
{
    env->seq = ++a->msg_seq;
    int rc = lg_zsock_send(a->zs, NULL, 0, env);
    if (rc && rc != -EAGAIN)
        lg_warn("could not send to the controller: %s", lg_strerror(rc));
    return rc;
}

/* Pack env, keep it in the spool until acknowledged, and send it. */
int lg__agent_send_spooled(agent_t *a, Lg__Envelope *env, uint64_t run_id, uint64_t seq,
                           int is_result)
{
    env->seq = ++a->msg_seq;
    uint8_t *buf;
    size_t len;
    int rc = lg_wire_pack(env, &buf, &len);
    if (rc)
        return rc;
    int sent = lg_zsock_send_raw(a->zs, NULL, 0, buf, len);
    if (sent && sent != -EAGAIN)
        lg_warn("could not send to the controller: %s (kept for resending)", lg_strerror(sent));
    rc = lg_spool_put(a->spool, run_id, seq, is_result, buf, len, lg_mono_ms());
    if (rc)
        lg_error("spool full (%zu bytes): a message of run %llu is lost", lg_spool_bytes(a->spool),
                 (unsigned long long)run_id);
    return rc;
}

void lg__agent_send_prepared(agent_t *a, uint64_t run_id)
{
    Lg__Prepared p = LG__PREPARED__INIT;
    p.run_id = run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PREPARED;
    env.prepared = &p;
    lg__agent_send(a, &env);
}

void lg__agent_send_run_error(agent_t *a, uint64_t run_id, int code, const char *msg)
{
    /* msgs are made with snprintf, which cuts by bytes: never send half a character (the
     * controller replaces what is not UTF-8 and says so; a cut of ours is not that) */
    char *m = strdup(msg ? msg : "");
    if (m) {
        lg_utf8_cut(m, strlen(m));
        msg = m;
    }
    lg_error("run %llu: %s", (unsigned long long)run_id, msg);
    Lg__RunError re = LG__RUN_ERROR__INIT;
    re.run_id = run_id;
    re.code = code;
    re.message = (char *)msg;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_ERROR;
    env.run_error = &re;
    lg__agent_send(a, &env);
    free(m);
}

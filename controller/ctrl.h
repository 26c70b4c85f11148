/* ctrl.h: the controller's internal state, shared by controller.c (sockets, agents), sched.c
 * (campaign runs) and submit.c (new campaigns). Not a public API. */
#ifndef LG_CTRL_H
#define LG_CTRL_H

#include <libpq-fe.h>
#include <stdint.h>
#include <uv.h>

#include "controller.h"
#include "lg_stats.h"
#include "lg_wire.h"
#include "lg_zsock.h"
#include "writer.h"

#define LG_MAX_AGENTS 4096
#define LG_RUN_MAX_AGENTS 256

typedef struct {
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    uint64_t agent_id;
    char name[64];
    uint64_t last_seen_ms;
    int lost;
} lg_agent_conn_t;

typedef enum { RA_PREPARING, RA_READY, RA_RUNNING, RA_DONE, RA_FAILED } lg_ra_state_t;

typedef struct {
    size_t conn;             /* index into ctrl->agents */
    uint64_t agent_id;
    lg_ra_state_t state;
    int dirs_mask;
    lg_dirstats_t *dir[LG_DIR_NR]; /* the agent's final figures, once reported */
} lg_run_agent_t;

typedef enum { PH_IDLE, PH_PREPARING, PH_RUNNING, PH_STOPPING } lg_phase_t;

typedef struct {
    lg_phase_t phase;
    uint64_t run_id;
    uint64_t campaign_id;
    Lg__RunSpec spec;
    char rw[16];
    char target[1100];
    lg_run_agent_t ra[LG_RUN_MAX_AGENTS];
    size_t nra;
    uint64_t deadline_ms;
    char error[1024];
    int waiting_logged;
} lg_current_t;

typedef struct lg_ctrl {
    const lg_controller_config_t *cfg;
    uv_loop_t *loop;
    void *zctx;
    void *agents_sock;
    void *ctl_sock;
    lg_zsock_t *zs_agents;
    lg_zsock_t *zs_ctl;
    PGconn *db;
    lg_writer_t *writer;
    uv_timer_t tick;
    uv_signal_t sigint, sigterm;
    lg_agent_conn_t *agents;
    size_t nagents;
    lg_current_t cur;
    uint64_t last_sample_run; /* run last confirmed to exist (sample validation cache) */
    int stopping;
} lg_ctrl_t;

/* controller.c */
int lg__ctrl_send_agent(lg_ctrl_t *c, size_t conn, Lg__Envelope *env);
int lg__ctrl_db_ok(lg_ctrl_t *c);

/* sched.c: called from the tick and from message handlers. */
void lg__sched_tick(lg_ctrl_t *c);
void lg__sched_on_prepared(lg_ctrl_t *c, size_t conn, const Lg__Prepared *p);
void lg__sched_on_result(lg_ctrl_t *c, size_t conn, const Lg__RunResult *r);
void lg__sched_on_error(lg_ctrl_t *c, size_t conn, const Lg__RunError *e);
/* May this agent send samples for run_id (the current run, or one it took part in)?
 * 1 yes, 0 no, -1 cannot tell now (database unreachable). */
int lg__sched_sample_ok(lg_ctrl_t *c, size_t conn, uint64_t run_id);
/* Reset runs left 'running' by a controller that stopped mid-run (their partial data goes). */
int lg__sched_recover(lg_ctrl_t *c);
void lg__sched_cleanup(lg_ctrl_t *c);

/* submit.c: validate a spec and store the campaign with its run matrix. */
int lg__submit(lg_ctrl_t *c, const char *text, size_t len, const char *path, uint64_t *campaign_id,
               char *err, size_t errlen);
/* Campaign status for lgctl. */
int lg__campaign_status(lg_ctrl_t *c, uint64_t campaign_id, Lg__CtlReply *reply, char *state,
                        size_t statelen, char *err, size_t errlen);

#endif

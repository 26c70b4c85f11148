/* agent_int.h: inside the agent daemon: its state (agent_t, with the one run_t) and the
 * functions its files share: agent.c (the loop, the connection, messages), agent_prepare.c (a
 * run's preparation), agent_run.c (the measured run, its samples and result), agent_app.c
 * (application workloads). Not for use outside agent/. */
#ifndef LG_AGENT_INT_H
#define LG_AGENT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "agent.h"
#include "apprun.h"
#include "fiorec.h"
#include "fiorun.h"
#include "jobfile.h"
#include "lg_auth.h"
#include "lg_cpu.h"
#include "lg_fio.h"
#include "lg_iowin.h"
#include "lg_zsock.h"
#include "platform.h"
#include "spool.h"

typedef enum {
    RUN_NONE,
    RUN_PREPARING,
    RUN_LOGIN, /* a gated fio (agent_gate.c) runs: its jobs log in before Prepared is sent */
    RUN_READY,
    RUN_WAITING,
    RUN_RUNNING,
    RUN_CHECKING
} run_state_t;

typedef struct {
    run_state_t state;
    Lg__Envelope *prepare; /* owns the RunSpec */
    const Lg__RunSpec *spec;
    char dir[1024];
    char job[1100];
    lg_fiorun_t *fio;
    lg_fiorec_t fiorec; /* fio's record (fiorec.h), in the work folder while has_fiorec */
    int has_fiorec;
    lg_apprun_t *app; /* an application workload (pgbench, sysbench) instead of fio */
    /* The start gate (agent_gate.c, POSIX): fio of an lgsmb or lgiscsi run started at Prepare,
     * its jobs logged in and waiting for gate, which Start opens with the instant. */
    int gated;
    char gate[1100];
    char gate_env[1200]; /* LG_FIO_GATE=gate, in fio_env */
    char **fio_env;      /* fio's environment: the agent's and gate_env */
    uint64_t login_t0_ms;
    uint64_t seq;
    int dirs_mask; /* bit per lg_dir_t reported in samples */
    lg_dirstats_t prev[LG_DIR_NR];
    char *last; /* last fio JSON object, verbatim */
    size_t last_len;
    uint32_t njobs;
    int64_t prev_t_ms; /* fio's timestamp of the previous report (at first: when fio started) */
    int32_t fio_exit;
    int64_t started_us;        /* the held fio woke at the instant, controller clock */
    int64_t start_at_local_us; /* the agreed start instant in our clock */
    int stop_requested;
    const char *stop_note; /* how a Stop ended fio, when that is worth saying (a literal) */
    lg_plat_target_t tgt;  /* file and block targets: resolved, checked and held */
    int has_tgt;
    /* The newest interval is held back until the next report: a report less than FOLD_MS
     * after it (fio's final one, a few ms past the last status report) is folded into it
     * rather than sent as a sample of a few ms with 0 I/Os and some bytes. */
    int has_pend;
    lg_dirstats_t *pend_from, *pend_to; /* cumulative figures at its start and end (LG_DIR_NR) */
    int64_t pend_t0_ms, pend_t1_ms;
    uint64_t pend_rt_ms; /* fio's runtime at its end (the first interval after a ramp) */
    /* The load host's own CPU (lg_cpu.h), read as each fio report arrives: the reading at the
     * previous report (at first: when fio started), and those at the held interval's ends. */
    lg_cpu_snap_t cpu_prev, cpu_from, cpu_to;
    int has_cpu_prev;
    lg_iowin_t iowin; /* when the measured I/O began and ended, from the reports after the ramp */
} run_t;

#define FOLD_MS 500 /* half of fio's 1 s status interval */

typedef struct {
    const lg_agent_config_t *cfg;
    uv_loop_t *loop;
    void *zctx;
    void *dealer;
    lg_zsock_t *zs;
    lg_authmon_t *authmon; /* CURVE handshake verdicts: say why the controller is silent */
    uint64_t auth_said_ms;
    uv_timer_t hb_timer;
    uv_timer_t gate_timer; /* a gated run: its jobs' logins polled, then the instant */
    uv_signal_t sigint, sigterm;
    uv_async_t stop_async; /* lg_agent_stop from another thread (the Windows service) */
    uint64_t agent_id;
    uint64_t last_hello_ms;
    uint64_t last_heard_ms; /* anything from the controller (it beats too) */
    uint64_t beat_ms;       /* our last heartbeat (s_on_heartbeat) */
    char engine_dir[1024];  /* where lgsmb.so and lgiscsi.so are looked for */
    char work_dir[4096];    /* --work-dir as checked and resolved: ours alone (lg_owndir) */
    int has_lgsmb, has_lgiscsi;
    int controller_lost;
    uint64_t msg_seq;
    char fio_version[64];
    lg_spool_t *spool;
    lg_jobhost_t jobhost;
    /* clock exchanges: the offset of the one with the shortest round trip among the last 8 */
    int64_t ex_offset[8];
    uint64_t ex_rtt[8];
    size_t ex_n, ex_next;
    int64_t clock_offset_us;
    uint64_t rtt_us;
    run_t run;
    int stopping;
    /* SIGTERM during a run (systemctl stop): fio is ended as a Stop ends it, its result sent,
     * and the agent stops once the spool is acknowledged or at stop_deadline_ms. */
    int stop_after_run;
    uint64_t stop_deadline_ms;
    int replaced; /* the controller took a newer connection with our key instead */
    int fio_left; /* an fio a previous agent left could not be ended: no Prepare until it is */
    /* Where lgsmb parks the SMB sessions of a run for the next one (engines/smbpark.h), and what
     * fio's environment says of it (LG_SMB_PARK=...): "" when sessions are not kept. */
    char park_dir[4200];
    char park_env[4300];
} agent_t;

/* ---- agent_send.c: sending to the controller ---- */

/* Send env as it is (numbered); a failure other than EAGAIN is logged. */
int lg__agent_send(agent_t *a, Lg__Envelope *env);
/* Pack env, keep it in the spool until acknowledged, and send it. */
int lg__agent_send_spooled(agent_t *a, Lg__Envelope *env, uint64_t run_id, uint64_t seq,
                           int is_result);
void lg__agent_send_prepared(agent_t *a, uint64_t run_id);
/* Logs msg and sends it as the run's RunError. */
void lg__agent_send_run_error(agent_t *a, uint64_t run_id, int code, const char *msg);

/* ---- agent_prepare.c ---- */

/* A Prepare: takes ownership of env (kept by the run, or freed). */
void lg__agent_handle_prepare(agent_t *a, Lg__Envelope *env);
/* An smb:// or iscsi:// target: the engine here, credentials readable, a LUN's writes consented
 * to. 0 or an error with err set. */
int lg__agent_check_engine_target(agent_t *a, const Lg__RunSpec *spec, const char *engine,
                                  char *err, size_t errlen);

/* ---- agent_check.c ---- */

/* A Check (lgctl plan --check): the target looked at off the loop, a CheckResult sent back. */
void lg__agent_handle_check(agent_t *a, const Lg__Check *ck);

/* ---- agent_app.c ---- */

/* Prepare the run's application workload (a->run.spec), or fail the run. */
void lg__agent_prepare_app(agent_t *a);

/* ---- agent_run.c ---- */

/* Forget the run: fio or the application run ended (killed if running), its target released,
 * its Prepare freed. */
void lg__agent_run_clear(agent_t *a);
/* Send what was measured, then a RunError (code, msg), and clear the run. */
void lg__agent_run_fail(agent_t *a, int code, const char *msg);
/* Start fio on job in the run's folder (stream: JSON reports every second; else one object,
 * dropped), held until the instant when on_start is given. Returns 0 or a negative error. */
int lg__agent_spawn_fio(agent_t *a, const char *job, int stream, lg_fiorun_object_cb on_obj,
                        lg_fiorun_start_cb on_start, lg_fiorun_exit_cb on_exit);
/* End the run's fio (killed if it still runs) and remove its record. */
void lg__agent_fio_end(agent_t *a);
/* The measured run's fio, forked and held until the instant. */
int lg__agent_hold_fio(agent_t *a);
/* ---- agent_gate.c (POSIX): the start gate of runs whose engine logs in ---- */

#ifndef _WIN32
/* Does the run's fio log in to its target (an lgsmb or lgiscsi engine)? Then it goes through the
 * start gate: it starts at Prepare and its jobs log in before the run is Prepared. */
int lg__agent_gated(const agent_t *a);
/* After the layout: start the measured fio at once with the gate in its environment, and send
 * Prepared once every job is ready. Returns 0 or a negative libuv error (the run fails). */
int lg__agent_gate_start(agent_t *a);
/* At Start: open the gate with the instant (local clock); the run is RUNNING from the instant.
 * Returns 0, or a negative errno with err set. */
int lg__agent_gate_release(agent_t *a, int64_t at_local_us, char *err, size_t errlen);
/* A gated fio's report at t_ms (its own timestamp, our clock): 1 to use it (the instant has
 * come: the run is RUNNING), 0 to drop it (a report of jobs still logging in or waiting). */
int lg__agent_gate_report(agent_t *a, int64_t t_ms);
/* A gated fio exited before the instant: the run fails with why (the failing job's error, or
 * fio's stderr). */
void lg__agent_gate_fio_exit(agent_t *a, int64_t status, int sig, const char *tail);
/* At the agent's start: the park folder of lgsmb's sessions in the work folder, made (0700) and
 * emptied of what an earlier agent left, and park_env; both stay "" when --smb-keep-sessions is 0
 * or the folder cannot be had (said). */
void lg__agent_park_init(agent_t *a);
/* Where the agent is PID 1 (a container's init) or a subreaper, lgsmb's parked workers, whose
 * job has exited, are its children: those that have ended are reaped (by PID, found by their
 * names: libuv reaps only the children it started). Else nothing. */
void lg__agent_park_reap(agent_t *a);
/* The run ends: a gate not yet open opens with "called off" (jobs that are ready end on their
 * own too), the timer stops, fio's environment is freed. Before its fio is ended. */
void lg__agent_gate_clear(agent_t *a);
/* When the run started, controller clock, for its result: a gated run's earliest first I/O of
 * its jobs (the engines write it beside the gate), so that start skew is measured at the first
 * I/O; else (or when no job wrote one) started_us as it is. */
int64_t lg__agent_gate_started_us(const agent_t *a, int64_t started_us);
/* The measured window (local ms) of a gated run whose jobs wrote their first I/O, given the one
 * fio's reports tell (whose start is late by a report's delay, hundreds of ms on a busy host):
 * from the first I/O plus the ramp, the earliest the measured I/O can have begun, to the
 * reports' end; else *start_ms, *end_ms as they are. */
void lg__agent_gate_window(const agent_t *a, int64_t *start_ms, int64_t *end_ms);
#else
static inline int64_t lg__agent_gate_started_us(const agent_t *a, int64_t started_us)
{
    (void)a;
    return started_us;
}
static inline void lg__agent_gate_window(const agent_t *a, int64_t *start_ms, int64_t *end_ms)
{
    (void)a, (void)start_ms, (void)end_ms;
}
#endif

/* End a running fio so that it still writes its final report. */
void lg__agent_stop_fio(agent_t *a);
void lg__agent_handle_start(agent_t *a, const Lg__Start *st);
void lg__agent_handle_stop(agent_t *a, const Lg__Stop *st);

/* agent_prepare.c: does an engine's message (fio's stderr, a job's gate.failed file) say that it
 * could not reach its server, or that the server refused sessions for its load? Such a failure
 * may pass: the run fails with LG_ECONNECT, which the controller tries again. */
int lg__agent_connect_failure(const char *text);

#endif

/* ctrl.h: the controller's internal state, shared by controller.c (the loop, sockets), agents.c
 * (the agent registry), ctlops.c (lgctl's requests), the scheduler (sched*.c: campaign runs) and
 * submit.c (new campaigns), and what they call of each other. Not a public API. */
#ifndef LG_CTRL_H
#define LG_CTRL_H

#include <stdint.h>
#include <uv.h>

#include "agentmap.h"
#include "controller.h"
#include "db.h"
#include "lg_auth.h"
#include "lg_names.h"
#include "lg_operator.h"
#include "lg_seal.h"
#include "lg_stats.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "lg_zsock.h"
#include "writer.h"

/* Agents connected at once: a descriptor each, within the open-files limit (controller.c raises
 * it to this and 256 more where the hard limit allows). */
#define LG_MAX_AGENTS 16384
/* The controller's tick; a tick later than LG_CTRL_LATE_MS says its loop was held, and no agent is
 * called lost for LG_CTRL_GRACE_MS after (agents.c, controller.c). */
#define LG_CTRL_TICK_MS 100
#define LG_CTRL_LATE_MS 40
#define LG_CTRL_GRACE_MS 500
#define LG_RUN_MAX_AGENTS 256

typedef struct {
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    uint64_t agent_id;
    char name[64];
    char key[LG_KEY_Z85 + 1]; /* the CURVE key it connected with ("" in plaintext) */
    int registering;          /* its Hello is being stored; agent_id 0 until the first is */
    uint64_t last_seen_ms;
    uint64_t beat_due_ms; /* our next heartbeat to it (0: none sent yet) */
    uint64_t sent_ms;     /* when we last sent it something (a Pong, a beat, ...) */
    uint64_t welcomed_ms; /* when its last registration was welcomed */
    int lost;
    /* what it said of itself: Hello facts, last Heartbeat */
    char os[128];
    char cpu_model[128];
    uint32_t cpu_count;
    uint64_t mem_bytes;
    char fio_version[32];
    char lg_version[16];
    int state; /* Lg__AgentState */
    uint64_t run_id;
    uint64_t unacked;
    int64_t clock_offset_us; /* controller minus agent, as the agent measured it */
    uint64_t rtt_us;
    char labels[512]; /* "key=value\n..." from its Hello: what campaigns select by */
} lg_agent_conn_t;

typedef enum { RA_PREPARING, RA_READY, RA_RUNNING, RA_DONE, RA_FAILED } lg_ra_state_t;

typedef struct {
    ssize_t conn; /* index into ctrl->agents; -1 until the agent is connected */
    uint64_t agent_id;
    lg_ra_state_t state;
    /* what this agent is given: its share of the target and its load (lg.run_agent) */
    char *target; /* NULL: the run's target */
    uint64_t offset, size;
    uint32_t threads, qd;
    int lost;                      /* went silent mid-run: its late result is stored, not merged */
    int storing;                   /* its RunResult is being stored (store.c); resends wait */
    lg_dirstats_t *dir[LG_DIR_NR]; /* the agent's final figures, once reported */
    /* steady state: what this agent's samples add to each round */
    uint64_t seq_done;     /* highest sample seq counted */
    uint64_t want_samples; /* samples its RunResult says it sent (0: not known) */
    uint64_t elapsed_ms;   /* measured time covered by counted samples */
    double *round_ios;     /* I/Os per round */
    size_t nround;
    /* the last interval, for lgctl watch; and the bytes and measured time of all so far (how
     * long a fill will take) */
    uint64_t live_seq;
    double live_iops, live_mbps, live_lat_ms;
    uint64_t live_bytes, live_ms;
} lg_run_agent_t;

typedef enum { PH_IDLE, PH_PREPARING, PH_RUNNING, PH_STOPPING, PH_HOOK } lg_sched_phase_t;

typedef struct {
    lg_sched_phase_t phase;
    uint64_t run_id;
    uint64_t campaign_id;
    uint32_t ordinal;
    int run_phase;  /* lg_phase_t of the run: measure, steady-state, fill */
    char desc[512]; /* "run 3: 4k-rand read 16T16Q over smb, config 1 (a hdd raidz1) (measure)" */
    Lg__RunSpec spec;
    Lg__AppSpec app; /* spec.app of an application run */
    Lg__BsSplit bss[16];
    Lg__BsSplit *bssp[16];
    char rw[16];
    char target[1100];
    char protocol[32], target_fs[8], target_mount[1100]; /* what the target must sit on */
    lg_run_agent_t ra[LG_RUN_MAX_AGENTS];
    size_t nra;
    uint64_t started_ms; /* when the run was taken on (or adopted after a restart) */
    uint64_t deadline_ms;
    char error[1024];
    int transient; /* the run's first failure may pass (a target's connect or login, an agent
                    * lost, a prepare past its deadline): it is tried again (030_attempts) */
    uint32_t attempt, retries; /* this attempt at its point (1-based), and how many more a
                                * transient failure gets */
    int finish_when_stored;    /* every result is in: finish once every sample is stored */
    int counting;              /* a count of the run's stored samples is in the store */
    int reading;               /* the schedule (what runs next) is being read by the store */
    int start_committed;       /* the run's start is in the database: its agents were told */
    uint64_t next_read_ms;     /* no read of the schedule before this */
    uint64_t stored_since_ms;  /* when finish_when_stored was set */
    uint64_t count_next_ms;    /* no count before this */
    int aborting;
    char waiting_why[256];  /* why the next run waits, as last logged */
    uint64_t busy_since_ms; /* since when run busy_run_id waits for an agent still busy, or 0 */
    uint64_t busy_run_id;
    char lost[512]; /* agents lost during the run, and when */
    /* steady state */
    /* a search probe (search_id and probe), a paced run (rate_total over all agents, split by
     * threads: rate_per_thread), the base of a curve (curve runs take their rate from it) */
    uint64_t search_id;
    uint32_t probe;
    uint32_t rate_total, rate_per_thread;
    int curve_base_of;
    lg_share_t share; /* how its agents share the target (lg__share_assign) */
    uint32_t round_s;
    double *rounds; /* IOPS of each completed round */
    size_t nrounds;
    int ss_reached;
    char *telemetry; /* lg.run.telemetry: the NAS sources scraped (NULL: none) */
} lg_current_t;

/* What the controller last said of a telemetry source (sched_telem.c): said again only on a
 * change. */
typedef struct {
    uint64_t run_id;
    char source[64];
    int failing;
    uint32_t missed;
    int cleaned; /* its label values were made valid UTF-8 or cut: said once a run */
} lg_telem_said_t;

struct lg_ctrl;
struct lg_tx;
/* What the scheduler (sched*.c) does to the world, and all it asks of it: messages to agents,
 * jobs and state changes for the store, the sample writer's backlog, the clock, the hook. The
 * controller passes the real ones (sched_io.c); unit tests (tests/unit/test_sched.c) pass
 * fakes that record what was asked and answer as a store, agents and a clock would. */
typedef struct {
    int (*send)(struct lg_ctrl *c, size_t conn, Lg__Envelope *env);
    /* a read or other job the store runs (store.h); done is called on the loop */
    int (*submit)(struct lg_ctrl *c, int (*work)(PGconn *, void *, char *, size_t),
                  void (*done)(void *, void *, int, const char *), void *job);
    /* a state change in one transaction (store.h: lg_store_tx); takes t */
    int (*tx)(struct lg_ctrl *c, struct lg_tx *t, void (*done)(void *, void *, int, const char *),
              void *arg);
    uint64_t (*store_away_since)(struct lg_ctrl *c);
    size_t (*store_pending)(struct lg_ctrl *c);
    size_t (*writer_pending)(struct lg_ctrl *c);
    int (*writer_failing)(struct lg_ctrl *c);
    uint64_t (*now_ms)(struct lg_ctrl *c);
    /* done(arg, status, term_signal, timed_out, err_tail) as hook.h's lg_hook_done_cb (status
     * UV_ECANCELED: the controller stopped it) */
    int (*hook)(struct lg_ctrl *c, char *const *env,
                void (*done)(void *, int64_t, int, int, const char *), void *arg);
    /* NAS telemetry (lg_scrape.h): scrape a run's sources (lg.run.telemetry JSON) from now on, and
     * once more after it ended. NULL: none (unit tests). */
    void (*telem_start)(struct lg_ctrl *c, uint64_t run_id, const char *sources_json);
    void (*telem_stop)(struct lg_ctrl *c, uint64_t run_id);
    /* run argv (no shell) to a deadline, its stdout kept (hook.h: lg_hook_exec); NULL: none */
    int (*proc)(struct lg_ctrl *c, char *const *argv, char *const *env, uint32_t timeout_ms,
                size_t out_max,
                void (*done)(void *, int64_t, int, int, const char *, size_t, int, const char *),
                void *arg);
    /* rows in the writer's spool on disk, not stored yet; NULL: none (unit tests) */
    uint64_t (*writer_spooled)(struct lg_ctrl *c);
} lg_sched_io_t;

/* The real ones (sched_io.c). */
extern const lg_sched_io_t lg__sched_io;

/* Whose campaigns this controller runs (schema 028_claims): those it accepted (owner), while this
 * process holds their lease (instance), and only run rows that carry its seal. Set at start, read
 * by the store's thread too (never changed after). */
typedef struct {
    char owner[64];    /* "curve:<public key>", or "plain:<random>" without a key pair */
    char instance[96]; /* "HOST:PID:<random>": the lease holder */
    uint8_t seal_key[LG_SEAL_KEY];
} lg_claim_t;

/* The measured points without figures, as lg.v_failed_point (schema/views) defines them, from the
 * tables: the controller runs on a database whose views lgctl db migrate has not made yet.
 * Rows of lg.run r and lg.sut_config s; the caller adds "AND r.campaign_id = ...". */
#define LG_FAILED_POINTS_FROM                                                                      \
    " FROM lg.run r JOIN lg.sut_config s USING (sut_config_id)"                                    \
    " WHERE r.state = 'failed' AND r.phase IN ('measure', 'search')"                               \
    " AND NOT EXISTS (SELECT 1 FROM lg.run n"                                                      \
    "   WHERE coalesce(n.first_run, n.run_id) = coalesce(r.first_run, r.run_id)"                   \
    "   AND (n.attempt > r.attempt OR n.state IN ('done', 'partial', 'superseded')))"
/* A failed point as a reader reads it: "run 9 (zstd, 8k-7030 mixed 2T1Q)" */
#define LG_FAILED_POINT_TEXT                                                                       \
    "'run ' || r.run_id || ' (' || lg.sut_short(s.labels) || ', ' || r.profile || ' '"             \
    " || r.direction || ' ' || r.threads || 'T' || r.qd || 'Q'"                                    \
    " || CASE WHEN r.rate_total > 0 THEN '@' || r.rate_total ELSE '' END"                          \
    " || CASE WHEN r.repeat > 1 THEN ' repeat ' || r.repeat ELSE '' END || ')'"

/* How long a campaign's lease lasts unless renewed, and how often it is (controller.c). */
#define LG_LEASE_S 30
#define LG_LEASE_RENEW_MS 5000

typedef struct lg_ctrl {
    const lg_sched_io_t *io;
    const lg_controller_config_t *cfg;
    uv_loop_t *loop;
    void *zctx;
    void *agents_sock;
    void *ctl_sock;
    lg_zsock_t *zs_agents;
    lg_zsock_t *zs_ctl;
    lg_keypair_t key; /* CURVE: ours, and who may connect (unless plaintext) */
    lg_claim_t claim;
    lg_operator_t *op; /* the operator's probes and credentials (--operator); never NULL */
    uint64_t lease_renewed_ms;
    lg_allowlist_t agent_keys, ctl_keys;
    lg_zap_t *zap;
    PGconn *db; /* at startup only (taking up a run); NULL after */
    lg_writer_t *writer;
    struct lg_store *store;     /* agents' rows, off the loop (store.h) */
    struct lg_scraper *scraper; /* NAS telemetry, on a thread of its own (lg_scrape.h) */
    lg_telem_said_t telem_said[32];
    uv_timer_t tick;
    uv_signal_t sigint, sigterm;
    lg_agent_conn_t *agents; /* never shrinks: a connection keeps its position */
    size_t nagents, agents_cap;
    lg_agentmap_t by_id, by_name; /* agents by routing id and by name (agentmap.h) */
    lg_current_t cur;
    struct known_s *known; /* (run, agent) pairs of runs agents took part in (sched_known.c) */
    size_t known_next;
    uint64_t judge_from_ms; /* no agent is called lost before: the loop was busy (deaf) */
    uint64_t checked_ms;    /* the agents' last check (lg__ctrl_check_agents) */
    uint64_t store_away_ms; /* since when the database has been unreachable (0: it is not) */
    uint64_t probe_next_ms; /* while it is: when the store next tries it */
    /* results the database refused, said once (sched_result.c): how many more since, of how
     * many runs (the last), and since when; a summary follows once one is stored */
    unsigned result_fails;
    uint64_t result_fail_run, result_fail_ms;
    int stopping;
    uint64_t stop_started_ms; /* when stopping began */
    struct lg_check *check;   /* lgctl plan --check under way (check.c); NULL: none */
    struct lg_hellos *hellos; /* Hellos waiting to be stored (hello.c); NULL: none yet */
} lg_ctrl_t;

/* Stop the controller (a signal, lgctl shutdown): the tick writes what was received, for a while,
 * then closes everything and the loop ends (controller.c). */
static inline void lg__ctrl_begin_stop(lg_ctrl_t *c)
{
    if (c->stopping)
        return;
    c->stopping = 1;
    c->stop_started_ms = lg_mono_ms();
}

/* A scrape of a NAS telemetry source arrived (lg_scrape.h's lg_scrape_t): stored in lg.sut_scrape;
 * a source that stops answering (or answers again) is said once. */
void lg__sched_on_scrape(lg_ctrl_t *c, const void *scrape);

/* Renew the lease of this process's campaigns (sched.c): every LG_LEASE_RENEW_MS from the tick. */
void lg__sched_renew_lease(lg_ctrl_t *c);

/* check.c: lgctl plan --check. Start one for lgctl's routing id (its reply follows when every
 * agent answered or at the deadline): 0, or an error with msg set (reply at once). */
int lg__check_start(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const char *text,
                    const char *path, char *msg, size_t len);
/* An agent's CheckResult. */
void lg__check_on_result(lg_ctrl_t *c, size_t conn, const Lg__CheckResult *r);
/* From the loop's tick: the deadline, and a stopping controller's reply. */
void lg__check_tick(lg_ctrl_t *c, uint64_t now_ms);

/* agents.c: the agents' socket and registry. */
/* Send env to agent conn (said when it cannot be sent). Returns 0 or a negative error. */
int lg__ctrl_send_agent(lg_ctrl_t *c, size_t conn, Lg__Envelope *env);
/* A message on the agents' socket (lg_zsock_msg_cb; arg is the lg_ctrl_t): takes env. */
void lg__ctrl_on_agent_msg(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env);
/* The sample writer stored samples (writer.h's ack and done callbacks; arg is the lg_ctrl_t):
 * acknowledge them to their agent; read agents again once the backlog is small. */
void lg__ctrl_on_writer_ack(void *arg, const uint8_t *id, size_t idlen, uint64_t run_id,
                            uint64_t seq_from, uint64_t seq);
void lg__ctrl_on_writer_done(void *arg);
/* From the tick: our heartbeat to every agent, and agents silent too long marked lost. */
void lg__ctrl_check_agents(lg_ctrl_t *c);
/* Welcome routing id id as agent_id (0: "say Hello first"). */
void lg__ctrl_send_welcome(lg_ctrl_t *c, const uint8_t *id, size_t idlen, uint64_t agent_id);

/* hello.c: an agent's Hello (h, its labels as "key=value\n...") to lg.agent, off the loop and in
 * batches with the others that arrive meanwhile; once committed, the connection with routing id
 * id is welcomed (if it still has that name) and the scheduler hears of it. Returns 0 or
 * -ENOMEM (nothing queued). */
int lg__hello_store(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const Lg__Hello *h,
                    const char *labels);
/* Free the Hellos not yet given to the store (the loop has ended). */
void lg__hello_clear(lg_ctrl_t *c);

/* The scheduler (sched*.c; sched_int.h says which file holds what): called from the tick and
 * from message handlers. */
void lg__sched_tick(lg_ctrl_t *c);
/* An agent (re)registered: give it its part of the current run again if it has one. */
void lg__sched_on_agent(lg_ctrl_t *c, size_t conn);
/* A sample of the current run arrived (after it was queued for the database). */
void lg__sched_on_sample(lg_ctrl_t *c, size_t conn, const Lg__Sample *s);
/* A per-second report of an application run (s->app) arrived (after it was queued for the
 * database, by the writer as a sample is): the live figures only. */
void lg__sched_on_app_sample(lg_ctrl_t *c, size_t conn, const Lg__Sample *s);
/* The agent's connection was replaced by a new one (same key): what it ran sees a loss now. */
void lg__sched_on_replaced(lg_ctrl_t *c, size_t conn);
/* Is this agent part of the current run? */
int lg__sched_agent_in_run(lg_ctrl_t *c, size_t conn, uint64_t run_id);
/* lgctl paused, resumed or aborted a campaign (LG__CTL_REQUEST__OP__*; committed): what that
 * changes now (an abort stops the current run). */
void lg__sched_campaign_changed(lg_ctrl_t *c, int op, uint64_t campaign_id);
void lg__sched_on_prepared(lg_ctrl_t *c, size_t conn, const Lg__Prepared *p);
void lg__sched_on_result(lg_ctrl_t *c, size_t conn, const Lg__RunResult *r);
void lg__sched_on_error(lg_ctrl_t *c, size_t conn, const Lg__RunError *e);
/* May this agent send samples for run_id (the current run, or one it took part in)?
 * 1 yes, 0 no, -1 cannot tell now (database unreachable). */
int lg__sched_sample_ok(lg_ctrl_t *c, size_t conn, uint64_t run_id);

/* pick.c: the agents of a run. Chooses from the idle live agents those the run's selection
 * (lg.run.agents JSON) names or whose labels match, with per-agent threads x QD (0: the run's).
 * Returns the number chosen (into conns, threads, qd; sorted by agent name), or 0 with why the
 * run must wait. why starts empty; with agents chosen, it names an agent the selection takes
 * that sat out, still busy with an earlier run (else it stays empty). */
size_t lg__pick_agents(lg_ctrl_t *c, const char *selection, size_t *conns, uint32_t *threads,
                       uint32_t *qd, size_t max, char *why, size_t whylen);
/* Give each of cur->ra its share of the target (auto, files, range, whole): its own file or
 * slice, so that agents never overlap. Returns 0 or -ENOMEM. */
int lg__share_assign(lg_ctrl_t *c, lg_share_t share);
void lg__sched_cleanup(lg_ctrl_t *c);

/* submit.c: validate a spec and store the campaign with its run matrix, off the loop (the
 * store's thread); the reply goes to the lgctl with routing id id once it is committed (or
 * refused). A submit id seen before answers with that campaign. Returns 0 or -ENOMEM. */
int lg__submit_start(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const char *text,
                     const char *path, const char *submit_id);
/* The current run's live figures and progress into a STATUS reply (from memory only) (arrays owned
 * by the caller: free *infos and *ptrs after sending). */
void lg__sched_live(lg_ctrl_t *c, uint64_t campaign_id, Lg__CtlReply *rep, Lg__AgentLive **infos,
                    Lg__AgentLive ***ptrs);
/* ctlops.c: lgctl's status, find, pause, resume, abort and rerun (q->op) of campaign
 * q->campaign_id (or, when 0, of the newest one named q->name), answered off the loop: the reply
 * goes to routing id id once the store has read or changed the campaign; at once, saying so,
 * while the database is unreachable. Returns 0 or -ENOMEM (no reply sent). */
int lg__ctl_campaign_request(lg_ctrl_t *c, const uint8_t *id, size_t idlen,
                             const Lg__CtlRequest *q);
/* ctlops.c: a message on the control socket (lg_zsock_msg_cb; arg is the lg_ctrl_t): takes env.
 * A request answered at once is answered here; a shutdown begins the stop. */
void lg__ctl_on_msg(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env);

#endif

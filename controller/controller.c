/* controller.c: lg-controller's life: the database read at startup (a run to take up), the
 * agents' and lgctl's ROUTER sockets (CURVE or loopback plaintext), the loop and its tick that
 * drives the agents' heartbeats, the scheduler and the sample writer, and an orderly stop. What
 * arrives on the sockets is handled in agents.c and ctlops.c. */
#include "controller.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zmq.h>

#include "ctrl.h"
#include "db.h"
#include "hook.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_owndir.h"
#include "lg_scrape.h"
#include "lg_util.h"
#include "migrate.h"
#include "sched_jobs.h"
#include "store.h"

#define TICK_MS LG_CTRL_TICK_MS
#define AGENTS_RCVHWM 10000
/* what was received is written for at most this long after SIGTERM; then any database wait
 * is ended (lg_db_set_interrupt): what was not stored stays in the agents' spools, unacknowledged,
 * and is sent again to the next controller. 2 s leaves the closing (zmq, the store's last
 * statement interrupted within 100 ms, a sanitizer's exit) 3 s of "ends within 5 s" on a loaded
 * host. */
#define STOP_GRACE_MS 2000

static void s_close_all(lg_ctrl_t *c)
{
    lg_zsock_close(&c->zs_agents);
    lg_zsock_close(&c->zs_ctl);
    lg_scraper_destroy(&c->scraper);
    lg_writer_destroy(&c->writer);
    lg_store_destroy(&c->store);
    uv_timer_stop(&c->tick);
    uv_close((uv_handle_t *)&c->tick, NULL);
    uv_close((uv_handle_t *)&c->sigint, NULL);
    uv_close((uv_handle_t *)&c->sigterm, NULL);
    /* A hook still running would hold the loop open (and is in a process group of its own,
     * beyond a terminal's ^C): stop it. A restarted controller runs it again at the same gate. */
    lg_hook_cancel_all(c->loop);
}

static int s_stop_said;
static int s_spool_said;
static int s_store_was_away;
static volatile int s_db_interrupt;

/* How late the tick runs says how long the loop was busy with something else: said when it is
 * over LATE_SAY_MS (at most once a second), as a loop that keeps agents waiting. */
#define LATE_SAY_MS LG_CTRL_LATE_MS
#define AGENT_GRACE_MS LG_CTRL_GRACE_MS
static uint64_t s_tick_last, s_late_said, s_late_max;

static void s_on_tick(uv_timer_t *t)
{
    lg_ctrl_t *c = t->data;
    uint64_t now = lg_mono_ms();
    if (s_tick_last && now - s_tick_last > TICK_MS + LATE_SAY_MS && now - s_late_said >= 1000) {
        s_late_said = now;
        lg_warn("the event loop was busy for %llu ms (agents' heartbeats and Pings waited)",
                (unsigned long long)(now - s_tick_last - TICK_MS));
    }
    if (s_tick_last && now - s_tick_last > TICK_MS && now - s_tick_last - TICK_MS > s_late_max)
        s_late_max = now - s_tick_last - TICK_MS;
    /* A loop that was busy did not hear the agents: what they sent meanwhile is still on its way
     * in (sockets, zmq's I/O thread), so none is judged silent until it had time to arrive. */
    if (s_tick_last && now - s_tick_last > TICK_MS + LATE_SAY_MS)
        c->judge_from_ms = now + AGENT_GRACE_MS;
    s_tick_last = now;
    /* The store found the database back: the writer need not sit out its pause. */
    int away = lg_store_away_since(c->store) != 0;
    if (s_store_was_away && !away)
        lg_writer_retry_now(c->writer);
    s_store_was_away = away;
    if (!s_db_interrupt)
        lg_writer_flush(c->writer);
    lg__check_tick(c, now);
    if (c->stopping) {
        /* Finish writing what was received before closing: it is measured data. */
        if ((!lg_writer_busy(c->writer) && lg_writer_unsaved(c->writer) == 0) ||
            lg_mono_ms() - c->stop_started_ms > STOP_GRACE_MS) {
            if (lg_writer_unsaved(c->writer) && !s_stop_said) {
                s_stop_said = 1;
                lg_error("stopping with %zu samples not stored (the database did not take them "
                         "in time; the agents send them again to the next controller)",
                         lg_writer_unsaved(c->writer));
            }
            if (lg_writer_spooled(c->writer) && !s_spool_said) {
                s_spool_said = 1;
                lg_warn("%llu samples' rows wait in the spool; the next controller stores them",
                        (unsigned long long)lg_writer_spooled(c->writer));
            }
            s_db_interrupt = 1;      /* a statement still waiting ends within 100 ms */
            lg_store_hold(c->store); /* and nothing new starts */
            if (!lg_writer_busy(c->writer) && !lg_store_busy(c->store))
                s_close_all(c);
        }
        return;
    }
    lg__ctrl_check_agents(c);
    if (now - c->lease_renewed_ms >= LG_LEASE_RENEW_MS) {
        c->lease_renewed_ms = now;
        lg__sched_renew_lease(c);
    }
    lg__sched_tick(c);
}

static void s_on_signal(uv_signal_t *s, int signum)
{
    lg_ctrl_t *c = s->data;
    lg_info("caught signal %d: stopping", signum);
    lg__ctrl_begin_stop(c);
}

static int s_bind(void *sock, const char *ep, char *bound, size_t len)
{
    if (zmq_bind(sock, ep) != 0) {
        int e = zmq_errno();
        lg_error("could not bind \"%s\": %s", ep, zmq_strerror(e));
        return -e;
    }
    size_t l = len;
    if (zmq_getsockopt(sock, ZMQ_LAST_ENDPOINT, bound, &l) != 0)
        lg_strlcpy(bound, ep, len);
    return 0;
}

static int s_write_ready(const char *path, const char *agents_ep, const char *ctl_ep)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = lg_create_new_file(tmp, 0644); /* anew, then renamed: no link followed */
    if (!f)
        return -errno;
    fprintf(f, "agents=%s\nctl=%s\n", agents_ep, ctl_ep);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -errno;
    return 0;
}

/* CURVE on both endpoints with the ZAP handler checking each peer's key, or, when explicitly
 * asked for, plaintext on loopback or ipc only. */
static int s_secure(lg_ctrl_t *c)
{
    const lg_controller_config_t *cfg = c->cfg;
    char err[1024];
    if (cfg->plaintext) {
        const char *bad = !lg_auth_endpoint_local(cfg->agent_bind) ? cfg->agent_bind
                          : !lg_auth_endpoint_local(cfg->ctl_bind) ? cfg->ctl_bind
                                                                   : NULL;
        if (bad) {
            lg_error("--plaintext: \"%s\" is not a loopback or ipc endpoint; without CURVE "
                     "anyone who reaches it could run destructive I/O (give --key, "
                     "--agent-keys and --control-keys instead)",
                     bad);
            return LG_EDENIED;
        }
        lg_warn("plaintext: no authentication or encryption (loopback/ipc only)");
        return 0;
    }
    if (!cfg->key_file || !cfg->agent_keys || !cfg->ctl_keys) {
        lg_error("CURVE needs --key (this controller's key pair), --agent-keys and "
                 "--control-keys (allow-lists of public keys); make keys with lgctl keygen");
        return LG_EDENIED;
    }
    int rc = lg_auth_load_keypair(cfg->key_file, &c->key, err, sizeof err);
    if (!rc)
        rc = lg_auth_allowlist_load(cfg->agent_keys, &c->agent_keys, err, sizeof err);
    if (!rc)
        rc = lg_auth_allowlist_load(cfg->ctl_keys, &c->ctl_keys, err, sizeof err);
    if (rc) {
        lg_error("%s", err);
        return rc;
    }
    if (c->agent_keys.n == 0 || c->ctl_keys.n == 0)
        lg_warn("an allow-list is empty: no %s can connect",
                c->agent_keys.n == 0 ? "agent" : "lgctl");
    lg_zap_domain_t dom[] = {{"agents", &c->agent_keys, cfg->agent_keys},
                             {"control", &c->ctl_keys, cfg->ctl_keys}};
    rc = lg_zap_start(c->zctx, dom, 2, &c->zap);
    if (!rc)
        rc = lg_auth_server(c->agents_sock, &c->key, "agents");
    if (!rc)
        rc = lg_auth_server(c->ctl_sock, &c->key, "control");
    if (rc) {
        lg_error("could not set up CURVE: %s", lg_strerror(rc));
        return rc;
    }
    lg_info("CURVE: public key %s; %zu agent and %zu control keys allowed", c->key.pub,
            c->agent_keys.n, c->ctl_keys.n);
    return 0;
}

static void s_unsecure(lg_ctrl_t *c)
{
    lg_zap_stop(&c->zap);
    lg_auth_allowlist_clear(&c->agent_keys);
    lg_auth_allowlist_clear(&c->ctl_keys);
    memset(&c->key, 0, sizeof c->key);
}

static void s_close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

/* A socket per agent: up to LG_MAX_AGENTS of them, beyond the usual 1024 descriptors. */
static void s_raise_nofile(void)
{
    struct rlimit nof;
    if (getrlimit(RLIMIT_NOFILE, &nof) == 0 && nof.rlim_cur < LG_MAX_AGENTS + 256) {
        nof.rlim_cur = nof.rlim_max < LG_MAX_AGENTS + 256 ? nof.rlim_max : LG_MAX_AGENTS + 256;
        if (setrlimit(RLIMIT_NOFILE, &nof) != 0 || nof.rlim_cur < LG_MAX_AGENTS + 256)
            lg_warn("open files limited to %llu: fewer than %d agents can connect",
                    (unsigned long long)nof.rlim_cur, LG_MAX_AGENTS);
    }
}

/* The store started, and the run a stopped controller left running taken up: its samples stay,
 * agents resend the rest. Returns 0 or an error (said; the store is gone again). */
static int s_take_up(lg_ctrl_t *c)
{
    const lg_controller_config_t *cfg = c->cfg;
    char err[512];
    c->db = lg_db_connect(cfg->conninfo, err, sizeof err);
    if (!c->db) {
        lg_error("could not connect to the database: %s", err);
        return LG_EDB;
    }
    /* Not on a schema older than this binary's: what it reads and writes (tables, columns,
     * functions) is the newest migration's, and lgctl db migrate, not the daemon, brings a
     * database there. */
    char missing[128];
    int rc = lg_db_schema_check(c->db, missing, sizeof missing, err, sizeof err);
    if (rc) {
        if (rc == LG_ESTATE) {
            lg_error("the database's schema is older than this lg-controller: %s", err);
            lg_log_hint("Apply migration \"%s\" and those after it with this lg's lgctl (lgctl "
                        "db migrate, LG_DATABASE_URL naming this database and a role that owns "
                        "its schema), then start lg-controller again.",
                        missing);
        } else {
            lg_error("could not check the database's schema: %s", err);
        }
        lg_db_close(&c->db);
        return rc;
    }
    /* The store first: taking up a run queues state changes. */
    c->store = lg_store_new(c->loop, cfg->conninfo);
    lg_takeup_t up = {0};
    rc = c->store ? lg__sched_takeup_read(c->db, &c->claim, &up, err, sizeof err) : -ENOMEM;
    if (rc == LG_EDB) {
        lg_error("could not read the schedule: %s", err);
        lg_log_hint("Run \"lgctl db migrate\" if the schema is missing.");
    } else if (rc) {
        lg_error("could not read the schedule: %s", lg_strerror(rc));
    }
    if (rc == 0)
        rc = lg__sched_take_up(c, &up);
    lg__sched_takeup_clear(&up);
    /* That was the only database work on this thread: from here on the loop never calls libpq
     * (the store and the sample writer have connections of their own, on other threads). */
    lg_db_close(&c->db);
    if (rc) {
        lg_store_destroy(&c->store);
        uv_run(c->loop, UV_RUN_DEFAULT);
    }
    return rc;
}

/* The agents' and lgctl's sockets, secured and bound (their endpoints into agents_ep and ctl_ep,
 * 256 bytes each) and on the loop; the sample writer and its spool; the ready file. Returns 0 or
 * an error (said); then s_close_failed undoes it. */
static int s_open(lg_ctrl_t *c, char *agents_ep, char *ctl_ep)
{
    const lg_controller_config_t *cfg = c->cfg;
    c->zctx = zmq_ctx_new();
    /* More than one I/O thread: a burst of CURVE handshakes (agents reconnecting together) is
     * shared between them instead of queueing every established agent's Ping behind it. */
    if (c->zctx &&
        zmq_ctx_set(c->zctx, ZMQ_IO_THREADS, (int)(cfg->io_threads ? cfg->io_threads : 2)))
        lg_warn("could not set %u ZeroMQ I/O threads: %s", cfg->io_threads,
                zmq_strerror(zmq_errno()));
    c->agents_sock = zmq_socket(c->zctx, ZMQ_ROUTER);
    c->ctl_sock = zmq_socket(c->zctx, ZMQ_ROUTER);
    int mandatory = 1;
    int rc = lg_wire_sock_setup(c->agents_sock);
    if (rc == 0)
        rc = lg_wire_sock_setup(c->ctl_sock);
    int rcvhwm = AGENTS_RCVHWM;
    /* No ZMTP heartbeats of our own on the agents' socket (lg_wire_sock_keepalive): each agent
     * pings with a TTL (LG_WIRE_PING_TIMEOUT_MS), so a connection that falls silent is dropped
     * here as before. libzmq keeps every connection's heartbeat timers in one ordered map per
     * I/O thread and cancels one by walking the map from its start; our own pings added two such
     * timers per agent and one cancel per agent a second: the walk (std::_Rb_tree_increment)
     * was a sixth of the controller's CPU while 5,000 agents registered, in the I/O threads that
     * carry every Pong, and grows with the square of the agents. */
    if (rc == 0) {
        /* an agent back from a partition on a new connection takes its id (random per agent
         * process, never guessable) over from the old one, which may not have timed out yet */
        int handover = 1;
        zmq_setsockopt(c->agents_sock, ZMQ_ROUTER_HANDOVER, &handover, sizeof handover);
        zmq_setsockopt(c->agents_sock, ZMQ_ROUTER_MANDATORY, &mandatory, sizeof mandatory);
        zmq_setsockopt(c->agents_sock, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm);
    }
    if (rc == 0)
        rc = s_secure(c);
    if (rc == 0)
        rc = s_bind(c->agents_sock, cfg->agent_bind, agents_ep, 256);
    if (rc == 0)
        rc = s_bind(c->ctl_sock, cfg->ctl_bind, ctl_ep, 256);
    if (rc == 0)
        rc = lg_zsock_new(c->loop, c->agents_sock, 1, lg__ctrl_on_agent_msg, c, &c->zs_agents);
    if (rc == 0)
        rc = lg_zsock_new(c->loop, c->ctl_sock, 1, lg__ctl_on_msg, c, &c->zs_ctl);
    if (rc == 0) {
        c->writer = lg_writer_new(c->loop, cfg->conninfo, lg__ctrl_on_writer_ack, c);
        if (!c->writer || !c->store)
            rc = -ENOMEM;
        else
            lg_writer_on_done(c->writer, lg__ctrl_on_writer_done);
    }
    if (rc == 0 && cfg->spool_dir) {
        lg_spill_t *spill = NULL;
        char serr[1024];
        rc = lg_spill_open(cfg->spool_dir, cfg->spool_max ? cfg->spool_max : LG_SPOOL_MAX_DEFAULT,
                           &spill, serr, sizeof serr);
        if (rc)
            lg_error("%s", serr);
        else
            lg_writer_set_spool(c->writer, spill);
    }
    if (rc == 0 && cfg->ready_file && (rc = s_write_ready(cfg->ready_file, agents_ep, ctl_ep)))
        lg_error("could not write \"%s\": %s", cfg->ready_file, lg_strerror(rc));
    return rc;
}

/* What s_open made, and the store, closed after s_open failed. */
static void s_close_failed(lg_ctrl_t *c)
{
    lg_zsock_close(&c->zs_agents);
    lg_zsock_close(&c->zs_ctl);
    if (c->writer)
        lg_writer_destroy(&c->writer);
    lg_store_destroy(&c->store);
    uv_run(c->loop, UV_RUN_DEFAULT);
    zmq_close(c->agents_sock);
    zmq_close(c->ctl_sock);
    s_unsecure(c);
    zmq_ctx_term(c->zctx);
    lg_db_close(&c->db);
}

/* The tick and the signals on the loop, which runs until the stop closed everything. */
static void s_run(lg_ctrl_t *c, const char *agents_ep, const char *ctl_ep)
{
    uv_timer_init(c->loop, &c->tick);
    c->tick.data = c;
    uv_timer_start(&c->tick, s_on_tick, TICK_MS, TICK_MS);
    uv_signal_init(c->loop, &c->sigint);
    uv_signal_init(c->loop, &c->sigterm);
    c->sigint.data = c->sigterm.data = c;
    uv_signal_start(&c->sigint, s_on_signal, SIGINT);
    uv_signal_start(&c->sigterm, s_on_signal, SIGTERM);
    lg_info("listening: agents at %s, control at %s", agents_ep, ctl_ep);

    uv_run(c->loop, UV_RUN_DEFAULT);
    uv_walk(c->loop, s_close_walk, NULL);
    uv_run(c->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(c->loop))
        lg_warn("libuv loop did not close cleanly");
    lg_info("the event loop was busy for at most %llu ms at a time (a tick that late)",
            (unsigned long long)s_late_max);
}

/* After the loop: what lives outside it. */
static void s_free_all(lg_ctrl_t *c)
{
    lg__sched_cleanup(c);
    free(c->known);
    lg__hello_clear(c);
    lg__agents_index_clear(c);
    free(c->agents);
    free(c->check);
    zmq_close(c->agents_sock);
    zmq_close(c->ctl_sock);
    if (c->zap)
        lg_info("CURVE: %llu peers refused, %llu accepted",
                (unsigned long long)lg_zap_refused(c->zap),
                (unsigned long long)lg_zap_accepted(c->zap));
    s_unsecure(c);
    zmq_ctx_term(c->zctx);
    lg_db_close(&c->db);
}

/* Who this controller is (c->claim: its identity from its key pair, this process's lease
 * holder name, its seal key) and what its operator allows (c->op). 0 or an error (said). */
static int s_claim_init(lg_ctrl_t *c)
{
    const lg_controller_config_t *cfg = c->cfg;
    char err[1024], rnd[40], host[64] = "";
    int rc = 0;
    if (cfg->operator_file) {
        rc = lg_operator_load(cfg->operator_file, &c->op, err, sizeof err);
        if (rc) {
            lg_error("the operator's file: %s", err);
            return rc;
        }
    } else if (!(c->op = lg_operator_empty())) {
        return -ENOMEM;
    }
    gethostname(host, sizeof host - 1);
    for (char *h = host; *h; h++)
        if (*h == ':' || (unsigned char)*h < 0x21)
            *h = '_';
    if (lg_random_hex(rnd, 8) != 0)
        return LG_ESTATE;
    snprintf(c->claim.instance, sizeof c->claim.instance, "%s:%ld:%s", host, (long)getpid(), rnd);
    lg_keypair_t kp;
    if (!cfg->plaintext && cfg->key_file &&
        lg_auth_load_keypair(cfg->key_file, &kp, err, sizeof err) == 0) {
        /* the same key pair, the same controller: its campaigns survive a restart */
        snprintf(c->claim.owner, sizeof c->claim.owner, "curve:%s", kp.pub);
        rc = lg_seal_key((const uint8_t *)kp.sec, strlen(kp.sec), c->claim.seal_key);
        memset(&kp, 0, sizeof kp);
    } else {
        /* no key pair (local mode): a controller of its own campaigns only, for its lifetime */
        snprintf(c->claim.owner, sizeof c->claim.owner, "plain:%s", rnd);
        rc = lg_seal_key(NULL, 0, c->claim.seal_key);
    }
    if (rc)
        lg_error("could not make the seal key: %s", lg_strerror(rc));
    else
        lg_info("campaigns of \"%s\" are run here (lease holder %s); the operator allows %s",
                c->claim.owner, c->claim.instance,
                cfg->operator_file ? cfg->operator_file : "no probe and no credential");
    return rc;
}

int lg_controller_main(const lg_controller_config_t *cfg)
{
    lg_ctrl_t c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.loop = uv_default_loop();
    c.io = &lg__sched_io;
    s_raise_nofile();
    lg_db_set_interrupt(&s_db_interrupt);
    int rc = s_claim_init(&c);
    if (rc == 0)
        rc = s_take_up(&c);
    if (rc) {
        lg_operator_destroy(&c.op);
        return rc;
    }
    char agents_ep[256], ctl_ep[256];
    rc = s_open(&c, agents_ep, ctl_ep);
    if (rc) {
        s_close_failed(&c);
        lg_operator_destroy(&c.op);
        return rc;
    }
    s_run(&c, agents_ep, ctl_ep);
    s_free_all(&c);
    lg_operator_destroy(&c.op);
    lg_info("stopped");
    return 0;
}

/* ctl.c: lgctl's connection to a controller: a DEALER socket with CURVE, one request and its
 * reply, and a submitted campaign waited for with its progress on stderr. lgctl's commands and
 * local mode (local.c) both talk to their controller through it. */
#include "ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "lg_auth.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#include "lg_wire.h"

volatile int lgctl_interrupted;

/* lgctl holds one connection at a time: the handshake monitor of it. */
static lg_authmon_t *s_authmon;

void *lgctl_connect(void *zctx, const char *endpoint, const lgctl_opts_t *o, int local)
{
    void *s = zmq_socket(zctx, ZMQ_DEALER);
    if (!s)
        return NULL;
    char err[1024];
    if (lg_auth_client_setup(zctx, s, endpoint, o->key_file, o->controller_key,
                             local || o->plaintext, &s_authmon, err, sizeof err) != 0) {
        lg_error("%s", err);
        zmq_close(s);
        return NULL;
    }
    if (lg_wire_sock_setup(s) != 0 || zmq_connect(s, endpoint) != 0) {
        lg_error("could not connect to \"%s\": %s", endpoint, zmq_strerror(zmq_errno()));
        lgctl_close(s);
        return NULL;
    }
    return s;
}

void lgctl_close(void *sock)
{
    lg_authmon_destroy(&s_authmon);
    if (sock)
        zmq_close(sock);
}

static int s_call_once(void *sock, Lg__CtlRequest *req, Lg__Envelope **env_out, int timeout_ms);

/* The submit id of the last submission asked (lgctl_call): for "it may still be created" */
static char s_last_sid[128];

/* A submission that got no answer may still be made when the controller's database answers:
 * how to find out, by its submit id, without making a second. */
void lgctl_submit_unanswered(const char *spec_path)
{
    if (!s_last_sid[0])
        return;
    lg_log_hint("the campaign may still be created (the controller's database may be slow or "
                "away); to check without making a second one: lgctl submit --submit-id %s %s",
                s_last_sid, spec_path ? spec_path : "SPEC.yaml");
}

int lgctl_call(void *sock, Lg__CtlRequest *req, Lg__Envelope **env_out, int timeout_ms)
{
    if (req->op != LG__CTL_REQUEST__OP__OP_SUBMIT)
        return s_call_once(sock, req, env_out, timeout_ms);
    /* A submission carries an id of ours: asking again after a timeout (the controller busy, a
     * reply lost) finds the campaign the first request made instead of making a second. */
    char sid[40];
    char *given = req->submit_id;
    if (!req->submit_id || !req->submit_id[0]) {
        unsigned char rnd[16];
        FILE *f = fopen("/dev/urandom", "rb");
        size_t got = f ? fread(rnd, 1, sizeof rnd, f) : 0;
        if (f)
            fclose(f);
        for (size_t i = got; i < sizeof rnd; i++) /* no /dev/urandom: time and pid */
            rnd[i] =
                (unsigned char)((uint64_t)lg_now_us() >> (i % 8 * 8)) ^ (unsigned char)getpid();
        for (size_t i = 0; i < sizeof rnd; i++)
            snprintf(sid + 2 * i, 3, "%02x", rnd[i]);
        req->submit_id = sid;
    }
    lg_strlcpy(s_last_sid, req->submit_id, sizeof s_last_sid);
    int rc = LG_ETIMEOUT;
    for (int attempt = 0; attempt < 3 && rc == LG_ETIMEOUT; attempt++) {
        if (attempt)
            lg_warn("no answer to the submission yet: asking again (submit id %s: the same "
                    "campaign, never a second)",
                    req->submit_id);
        rc = s_call_once(sock, req, env_out, timeout_ms);
    }
    req->submit_id = given; /* sid is ours and goes out of scope */
    return rc;
}

static int s_call_once(void *sock, Lg__CtlRequest *req, Lg__Envelope **env_out, int timeout_ms)
{
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_CTL_REQUEST;
    env.ctl_request = req;
    uint8_t *buf;
    size_t len;
    int rc = lg_wire_pack(&env, &buf, &len);
    if (rc)
        return rc;
    int sent = zmq_send(sock, buf, len, 0);
    free(buf);
    if (sent < 0)
        return -zmq_errno();
    for (int waited = 0; waited < timeout_ms; waited += 100) {
        if (lgctl_interrupted)
            return -EINTR;
        char why[512];
        if (s_authmon && lg_authmon_poll(s_authmon, why, sizeof why) < 0) {
            lg_error("%s", why);
            return LG_EDENIED;
        }
        zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
        int n = zmq_poll(&it, 1, 100);
        if (n < 0 && zmq_errno() != EINTR)
            return -zmq_errno();
        if (n <= 0)
            continue;
        Lg__Envelope *e = NULL;
        rc = lg_wire_recv(sock, 0, NULL, NULL, NULL, &e);
        if (rc == LG_EPROTO)
            continue;
        if (rc)
            return rc;
        if (e->body_case != LG__ENVELOPE__BODY_CTL_REPLY) {
            lg_wire_envelope_destroy(&e);
            continue;
        }
        *env_out = e;
        return 0;
    }
    return LG_ETIMEOUT;
}

/* ---- progress of a campaign lgctl run waits for ---- */

/* The controller to talk to: --controller, or the local-mode one of a run in progress (*local
 * set). */
static const char *s_controller(const lgctl_opts_t *o, char *buf, size_t len, int *local)
{
    *local = 0;
    if (o->controller)
        return o->controller;
    char path[1100];
    snprintf(path, sizeof path, "%s/controller.endpoint", o->db.data_dir);
    char *text = NULL;
    if (lg_read_file(path, 1024, &text, NULL) != 0) {
        lg_error("no controller: give --controller or set LG_CONTROLLER (no local \"lgctl "
                 "run\" is in progress on %s)",
                 o->db.data_dir);
        return NULL;
    }
    text[strcspn(text, "\n")] = 0;
    lg_strlcpy(buf, text, len);
    free(text);
    *local = 1;
    return buf;
}

/* One request to the controller (--controller or the local one). Returns 0 with *reply (the
 * caller destroys it: lg_wire_envelope_destroy; its code may still be an error), or LGCTL_FAIL
 * after saying why. */
int lgctl_ctl_request(const lgctl_opts_t *o, Lg__CtlRequest *q, int timeout_ms,
                      Lg__Envelope **reply)
{
    char epbuf[512];
    int local;
    const char *ep = s_controller(o, epbuf, sizeof epbuf, &local);
    if (!ep)
        return LGCTL_FAIL;
    void *zctx = zmq_ctx_new();
    void *sock = lgctl_connect(zctx, ep, o, local);
    int rc = LGCTL_FAIL;
    if (sock) {
        int r = lgctl_call(sock, q, reply, timeout_ms);
        if (r)
            lg_error("the controller at %s did not answer: %s", ep, lg_strerror(r));
        else
            rc = 0;
        lgctl_close(sock);
    }
    zmq_ctx_term(zctx);
    return rc;
}

void lgctl_bar(char *buf, size_t width, double frac)
{
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    size_t full = (size_t)(frac * (double)width + 0.5);
    for (size_t i = 0; i < width; i++)
        buf[i] = i < full ? '#' : '.';
    buf[width] = 0;
}

static int s_term_cols(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* A line cut to the terminal's width, at a space when there is one near the end. */
static void s_fit(char *line, int cols)
{
    size_t max = (size_t)cols - 1;
    if (strlen(line) <= max)
        return;
    line[max] = 0;
    char *sp = strrchr(line, ' ');
    if (sp && (size_t)(sp - line) > max * 2 / 3)
        *sp = 0;
}

/* The two lines of live progress (what runs, the run's bar, live figures, the campaign's bar
 * and ETA) from a STATUS reply. */
static void s_progress_lines(const Lg__CtlReply *r, char *l1, size_t n1, char *l2, size_t n2)
{
    uint32_t done = r->runs_done + r->runs_failed;
    /* what the controller says names runs by their labels: escaped, as it goes to a terminal */
    lg_esc_ctrl(r->current[0] ? r->current : r->message[0] ? r->message : r->state, l1, n1);
    double iops = 0, lat = 0;
    for (size_t i = 0; i < r->n_live; i++) {
        iops += r->live[i]->iops;
        lat += r->live[i]->lat_avg_ms * r->live[i]->iops;
    }
    lat = iops > 0 ? lat / iops : 0;
    char rbar[24], cbar[24], fig[96], num[48];
    lgctl_bar(rbar, 20, r->run_total_s ? (double)r->run_elapsed_s / r->run_total_s : 0);
    lgctl_bar(cbar, 20, r->runs_total ? (double)done / r->runs_total : 0);
    if (!r->current[0])
        fig[0] = 0;
    else if (r->run_elapsed_s < r->run_ramp_s)
        snprintf(fig, sizeof fig, "  ramping up (%u s, no figures kept)", r->run_ramp_s);
    else if (r->n_live) {
        uint64_t seen = 0;
        for (size_t i = 0; i < r->n_live; i++)
            seen += r->live[i]->seq;
        if (seen)
            snprintf(fig, sizeof fig, "  %s IOPS  %.3f ms",
                     lg_fmt_thousands(num, sizeof num, iops, 0), lat);
        else /* measuring, the first interval not in yet */
            snprintf(fig, sizeof fig, "  measuring (figures after the first seconds)");
    } else
        fig[0] = 0;
    /* a fill of no known speed yet is left out, and said */
    uint64_t left = r->remaining_s + (r->run_length_unknown || r->run_total_s <= r->run_elapsed_s
                                          ? 0
                                          : r->run_total_s - r->run_elapsed_s);
    snprintf(l2, n2, "run [%s] %u/%u s%s   campaign [%s] %u/%u runs%s  ETA %lluh%02llum%02llus%s",
             rbar, r->run_elapsed_s, r->run_total_s, fig, cbar, done, r->runs_total,
             r->runs_failed ? " (some failed)" : "", (unsigned long long)(left / 3600),
             (unsigned long long)(left / 60 % 60), (unsigned long long)(left % 60),
             r->fills_unknown || r->run_length_unknown ? " + a fill of unknown speed" : "");
}

int lgctl_submit_and_wait(const lgctl_opts_t *o, void *sock, const char *spec_path,
                          const char *text, uint64_t *campaign_id, int (*alive)(void *),
                          void *alive_arg)
{
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_SUBMIT;
    q.spec_text = (char *)text;
    q.spec_path = (char *)spec_path;
    Lg__Envelope *e = NULL;
    int rc = lgctl_call(sock, &q, &e, 30000);
    if (rc) {
        lg_error("the controller did not answer the submission: %s", lg_strerror(rc));
        lgctl_submit_unanswered(spec_path);
        return LGCTL_FAIL;
    }
    if (e->ctl_reply->code != 0) {
        lg_error("%s", e->ctl_reply->message);
        int spec_err = e->ctl_reply->code == LG_ESPEC;
        lg_wire_envelope_destroy(&e);
        return spec_err ? LGCTL_USAGE : LGCTL_FAIL;
    }
    *campaign_id = e->ctl_reply->campaign_id;
    lg_wire_envelope_destroy(&e);
    return lgctl_wait_campaign(o, sock, *campaign_id, alive, alive_arg);
}

/* How long a wait goes on through a database that does not answer, the controller's runs going
 * on meanwhile; then it gives up, saying so. */
#define DB_AWAY_MAX_S 600

int lgctl_wait_campaign(const lgctl_opts_t *o, void *sock, uint64_t cid, int (*alive)(void *),
                        void *alive_arg)
{
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    Lg__Envelope *e = NULL;
    int rc;
    const uint64_t *campaign_id = &cid;
    /* On a terminal: two lines redrawn in place. Otherwise: a line per run that finishes and per
     * message. --quiet: nothing but errors. */
    const char *term = getenv("TERM");
    int tty = !o->quiet && isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
    int drawn = 0;
    uint32_t last_done = UINT32_MAX;
    char last_msg[2048] = "";
    int result = LGCTL_FAIL;
    time_t away_since = 0; /* the first of a row of "the database is unreachable" answers */
    for (;;) {
        struct timespec ts = {0, 300 * 1000000};
        nanosleep(&ts, NULL);
        if (lgctl_interrupted) {
            if (drawn)
                fputs("\n", stderr);
            lg_warn("interrupted");
            return LGCTL_FAIL;
        }
        if (alive && !alive(alive_arg))
            break;
        q.op = LG__CTL_REQUEST__OP__OP_STATUS;
        q.campaign_id = *campaign_id;
        q.spec_text = (char *)"";
        q.spec_path = (char *)"";
        rc = lgctl_call(sock, &q, &e, 30000);
        if (rc) {
            if (drawn)
                fputs("\n", stderr);
            lg_error("the controller stopped answering: %s", lg_strerror(rc));
            return LGCTL_FAIL;
        }
        Lg__CtlReply *r = e->ctl_reply;
        /* The database slow or away: the controller answers from memory and its runs go on (it
         * keeps what agents send). Said once, waited through, up to DB_AWAY_MAX_S in a row: CI
         * saw a statement take over 3 s on a loaded machine end lgctl rerun's wait. */
        if (r->code == LG_EDB && (away_since == 0 || time(NULL) - away_since < DB_AWAY_MAX_S)) {
            if (away_since == 0) {
                away_since = time(NULL);
                if (drawn)
                    fputs("\n", stderr);
                drawn = 0;
                lg_warn("%s; waiting for it (at most %d s)", r->message, DB_AWAY_MAX_S);
            }
            lg_wire_envelope_destroy(&e);
            continue;
        }
        if (r->code != 0) {
            if (drawn)
                fputs("\n", stderr);
            lg_error("%s", r->message);
            lg_wire_envelope_destroy(&e);
            return LGCTL_FAIL;
        }
        if (away_since) {
            lg_info("the database answers again");
            away_since = 0;
        }
        uint32_t done = r->runs_done + r->runs_failed;
        int finished = strcmp(r->state, "done") == 0 || strcmp(r->state, "failed") == 0 ||
                       strcmp(r->state, "aborted") == 0;
        if (tty && drawn) /* back to the start of the two lines, cleared */
            fputs("\r\033[K\033[1A\r\033[K", stderr);
        if (!o->quiet && strcmp(r->message, last_msg) != 0) {
            if (r->message[0])
                lg_info("campaign %llu is %s: %s", (unsigned long long)*campaign_id, r->state,
                        r->message);
            lg_strlcpy(last_msg, r->message, sizeof last_msg);
        }
        if (tty && !finished) {
            char l1[1024], l2[512];
            s_progress_lines(r, l1, sizeof l1, l2, sizeof l2);
            int cols = s_term_cols();
            s_fit(l1, cols);
            s_fit(l2, cols);
            fprintf(stderr, "%s\n%s", l1, l2);
            drawn = 1;
        } else if (tty) {
            drawn = 0;
        }
        if (!tty && !o->quiet && done != last_done) {
            lg_info("campaign %llu: %u of %u runs finished%s (%u agent%s)%s%s",
                    (unsigned long long)*campaign_id, done, r->runs_total,
                    r->runs_failed ? ", some failed" : "", r->agents, r->agents == 1 ? "" : "s",
                    r->current[0] ? "; now " : "", r->current);
        }
        last_done = done;
        fflush(stderr);
        uint32_t failed = r->runs_failed, total = r->runs_total, pfailed = r->points_failed;
        char state[32];
        lg_strlcpy(state, r->state, sizeof state);
        lg_wire_envelope_destroy(&e);
        if (finished) {
            if (!o->quiet)
                lg_info("campaign %llu %s: %u of %u runs done%s", (unsigned long long)*campaign_id,
                        state, done - failed, total, failed ? ", some failed" : "");
            if (pfailed)
                lg_error("campaign %llu: %u measured point%s failed; lgctl rerun NAME --failed "
                         "runs them again",
                         (unsigned long long)*campaign_id, pfailed, pfailed == 1 ? "" : "s");
            result = failed || pfailed ? LGCTL_FAIL : LGCTL_OK;
            break;
        }
    }
    if (drawn)
        fputs("\n", stderr);
    return result;
}

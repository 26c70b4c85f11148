/* evil.c: hostile peers for tests/integration/it_security.sh.
 *
 *   evil controller EP KEYFILE DATA_DIR CANARY BLOCKDEV
 *     A controller that holds the real controller key (the worst case: the key leaked) and sends
 *     the agent that connects Prepare messages built to escape its checks: targets outside its
 *     allow-list, a block device write without its consent, fio options smuggled into the text
 *     fields. One line per case: "case NAME: refused: MESSAGE", "case NAME: prepared" or
 *     "case NAME: no answer". The last case is a clean one, which must be prepared.
 *
 *   evil fscases EP KEYFILE CASEFILE
 *     A controller with the real key that tries the filesystem against the agent: one case per
 *     line of CASEFILE, "NAME KIND RW TARGET [SWAP_AT LINK NEWTARGET]" (KIND file or block; RW
 *     an fio rw; SWAP_AT "prepared" or "running": when to point LINK at NEWTARGET, atomically,
 *     as an attacker on the share would). Cases that are prepared are started. One line each:
 *     "case NAME: refused: MESSAGE" (at Prepare), "case NAME: ran" (a result came) or
 *     "case NAME: failed: MESSAGE" (a RunError after Start).
 *
 *   evil garbage EP NAME COUNT
 *     An agent with a listed key (LG_AGENT_KEY, LG_CONTROLLER_KEY) that sends COUNT malformed
 *     messages and then a valid Hello; prints "welcomed" or "ignored".
 *
 *   evil impostor EP NAME
 *     An agent with a listed key (LG_AGENT_KEY) that says Hello as NAME (another agent's name);
 *     prints "welcomed" or "ignored".
 *
 *   evil inject EP NAME RUN_ID COUNT
 *     An agent with a listed key that registers as NAME (its own) and sends COUNT samples of
 *     RUN_ID, a run of another agent, with a million I/Os each; prints "sent". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "lg_auth.h"
#include "lg_error.h"
#include "lg_util.h"
#include "lg_wire.h"

static void *s_ctx;

static int s_die(const char *what)
{
    fprintf(stderr, "evil: %s\n", what);
    return 2;
}

/* Next message from the peer within ms; NULL on timeout. */
static Lg__Envelope *s_recv(void *sock, int router, uint8_t *id, size_t *idlen, int ms)
{
    for (int waited = 0; waited <= ms; waited += 50) {
        zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 50) <= 0)
            continue;
        Lg__Envelope *e = NULL;
        if (lg_wire_recv(sock, router, id, idlen, NULL, &e) == 0)
            return e;
    }
    return NULL;
}

/* A ROUTER with the controller key in keyfile, bound to ep; waits for an agent's Hello and
 * welcomes it (id, *idlen: its routing id). NULL (said why) on failure. */
static void *s_accept_agent(const char *ep, const char *keyfile, uint8_t *id, size_t *idlen)
{
    char err[1024];
    lg_keypair_t kp;
    if (lg_auth_load_keypair(keyfile, &kp, err, sizeof err) != 0) {
        s_die(err);
        return NULL;
    }
    void *sock = zmq_socket(s_ctx, ZMQ_ROUTER);
    if (lg_wire_sock_setup(sock) != 0 || lg_auth_server(sock, &kp, "agents") != 0 ||
        zmq_bind(sock, ep) != 0) {
        s_die("could not bind");
        zmq_close(sock);
        return NULL;
    }
    for (;;) { /* the agent's Hello */
        Lg__Envelope *e = s_recv(sock, 1, id, idlen, 30000);
        if (!e) {
            s_die("no agent said Hello within 30 s");
            zmq_close(sock);
            return NULL;
        }
        int hello = e->body_case == LG__ENVELOPE__BODY_HELLO;
        lg_wire_envelope_destroy(&e);
        if (hello)
            break;
    }
    Lg__Welcome w = LG__WELCOME__INIT;
    w.agent_id = 7;
    w.heartbeat_ms = 1000;
    Lg__Envelope out = LG__ENVELOPE__INIT;
    out.body_case = LG__ENVELOPE__BODY_WELCOME;
    out.welcome = &w;
    lg_wire_send(sock, id, *idlen, &out);
    return sock;
}

typedef struct {
    const char *name;
    Lg__TargetKind kind;
    char target[1024];
    const char *rw;
} evil_case_t;

static int s_controller(int argc, char **argv)
{
    if (argc != 7)
        return s_die("usage: evil controller EP KEYFILE DATA_DIR CANARY BLOCKDEV");
    const char *ep = argv[2], *keyfile = argv[3], *data = argv[4], *canary = argv[5],
               *dev = argv[6];
    uint8_t id[LG_ID_MAX];
    size_t idlen = 0;
    void *sock = s_accept_agent(ep, keyfile, id, &idlen);
    if (!sock)
        return 2;
    Lg__Envelope *e;
    Lg__Envelope out;

    evil_case_t cases[] = {
        {"outside-allow-list", LG__TARGET_KIND__TARGET_FILE, "/etc/lg-evil.bin", "randread"},
        {"block-without-consent", LG__TARGET_KIND__TARGET_BLOCK, "", "randwrite"},
        {"option-in-rw", LG__TARGET_KIND__TARGET_FILE, "", NULL},
        {"option-in-target", LG__TARGET_KIND__TARGET_FILE, "", "randread"},
        {"section-in-target", LG__TARGET_KIND__TARGET_FILE, "", "randread"},
        {"variable-in-target", LG__TARGET_KIND__TARGET_FILE, "", "randread"},
        {"dotdot-in-target", LG__TARGET_KIND__TARGET_FILE, "", "randread"},
        {"option-in-smb-url", LG__TARGET_KIND__TARGET_SMB, "", "randread"},
        {"clean", LG__TARGET_KIND__TARGET_FILE, "", "randread"},
    };
    char rw_inject[1200];
    snprintf(rw_inject, sizeof rw_inject, "randread\nexec_prerun=touch %s", canary);
    cases[1].rw = "randwrite";
    lg_strlcpy(cases[1].target, dev, sizeof cases[1].target);
    snprintf(cases[2].target, sizeof cases[2].target, "%s/f.bin", data);
    cases[2].rw = rw_inject;
    snprintf(cases[3].target, sizeof cases[3].target, "%s/f.bin\nexec_prerun=touch %s", data,
             canary);
    snprintf(cases[4].target, sizeof cases[4].target,
             "%s/f.bin\n[evil]\nioengine=exec\nprogram=/usr/bin/touch\narguments=%s", data, canary);
    snprintf(cases[5].target, sizeof cases[5].target, "%s/${LG_EVIL}", data);
    snprintf(cases[6].target, sizeof cases[6].target, "%s/../../../etc/lg-evil.bin", data);
    snprintf(cases[7].target, sizeof cases[7].target,
             "smb://127.0.0.1/share/f.bin\nexec_prerun=touch %s", canary);
    snprintf(cases[8].target, sizeof cases[8].target, "%s/clean.bin", data);

    int status = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        evil_case_t *c = &cases[i];
        Lg__RunSpec s = LG__RUN_SPEC__INIT;
        s.run_id = 100 + i;
        s.target_kind = c->kind;
        s.target = c->target;
        s.rw = (char *)c->rw;
        s.bs = 4096;
        s.threads = 1;
        s.qd = 1;
        s.runtime_s = 1;
        s.size = 1u << 20;
        s.direct = 0;
        Lg__Prepare p = LG__PREPARE__INIT;
        p.spec = &s;
        out = (Lg__Envelope)LG__ENVELOPE__INIT;
        out.body_case = LG__ENVELOPE__BODY_PREPARE;
        out.prepare = &p;
        lg_wire_send(sock, id, idlen, &out);
        const char *verdict = NULL;
        char msg[1024] = "";
        while (!verdict && (e = s_recv(sock, 1, id, &idlen, 15000)) != NULL) {
            if (e->body_case == LG__ENVELOPE__BODY_RUN_ERROR && e->run_error->run_id == s.run_id) {
                verdict = "refused";
                lg_strlcpy(msg, e->run_error->message ? e->run_error->message : "", sizeof msg);
                for (char *m = msg; *m; m++)
                    if (*m == '\n')
                        *m = ' ';
            } else if (e->body_case == LG__ENVELOPE__BODY_PREPARED &&
                       e->prepared->run_id == s.run_id) {
                verdict = "prepared";
            }
            lg_wire_envelope_destroy(&e);
        }
        if (!verdict) {
            printf("case %s: no answer\n", c->name);
            status = 1;
            break;
        }
        printf("case %s: %s%s%s\n", c->name, verdict, msg[0] ? ": " : "", msg);
        fflush(stdout);
        if (strcmp(verdict, "prepared") == 0) { /* let the held fio go without running it */
            Lg__Stop st = LG__STOP__INIT;
            st.run_id = s.run_id;
            out = (Lg__Envelope)LG__ENVELOPE__INIT;
            out.body_case = LG__ENVELOPE__BODY_STOP;
            out.stop = &st;
            lg_wire_send(sock, id, idlen, &out);
            usleep(500000);
        }
    }
    zmq_close(sock);
    return status;
}

/* An agent socket with the key in LG_AGENT_KEY, connected to ep. */
static void *s_agent_sock(const char *ep, char *err, size_t errlen)
{
    void *sock = zmq_socket(s_ctx, ZMQ_DEALER);
    err[0] = 0;
    if (lg_wire_sock_setup(sock) != 0 ||
        lg_auth_client_setup(s_ctx, sock, ep, getenv("LG_AGENT_KEY"), getenv("LG_CONTROLLER_KEY"),
                             0, NULL, err, errlen) != 0 ||
        zmq_connect(sock, ep) != 0) {
        zmq_close(sock);
        return NULL;
    }
    return sock;
}

/* Say Hello as name; 1 when welcomed with an agent id. */
static int s_hello(void *sock, const char *name)
{
    Lg__Hello h = LG__HELLO__INIT;
    h.name = (char *)name;
    h.lg_version = (char *)"evil";
    Lg__Envelope out = LG__ENVELOPE__INIT;
    out.body_case = LG__ENVELOPE__BODY_HELLO;
    out.hello = &h;
    int welcomed = 0;
    for (int tries = 0; tries < 3 && !welcomed; tries++) {
        lg_wire_send(sock, NULL, 0, &out);
        Lg__Envelope *e;
        while (!welcomed && (e = s_recv(sock, 0, NULL, NULL, 1000)) != NULL) {
            welcomed = e->body_case == LG__ENVELOPE__BODY_WELCOME && e->welcome->agent_id != 0;
            lg_wire_envelope_destroy(&e);
        }
    }
    return welcomed;
}

static int s_garbage(int argc, char **argv)
{
    uint64_t count;
    if (argc != 5 || lg_parse_u64(argv[4], 0, 100000, &count) != 0)
        return s_die("usage: evil garbage EP NAME COUNT");
    const char *ep = argv[2], *name = argv[3];
    char err[1024];
    void *sock = zmq_socket(s_ctx, ZMQ_DEALER);
    if (lg_wire_sock_setup(sock) != 0 ||
        zmq_setsockopt(sock, ZMQ_ROUTING_ID, name, strlen(name)) != 0 ||
        lg_auth_client_setup(s_ctx, sock, ep, getenv("LG_AGENT_KEY"), getenv("LG_CONTROLLER_KEY"),
                             0, NULL, err, sizeof err) != 0 ||
        zmq_connect(sock, ep) != 0)
        return s_die(err[0] ? err : "could not connect");
    srand((unsigned)getpid());
    for (uint64_t i = 0; i < count; i++) {
        uint8_t junk[64];
        size_t n = 1 + (size_t)rand() % sizeof junk;
        for (size_t k = 0; k < n; k++)
            junk[k] = (uint8_t)rand();
        if (i % 2 == 0) {
            junk[0] = 0xff; /* never a valid protobuf tag start with this length */
            zmq_send(sock, junk, n, 0);
        } else { /* well-formed protobuf, but an Envelope with no body */
            uint8_t noversion[] = {0x08, 0x63}; /* version = 99 */
            zmq_send(sock, noversion, sizeof noversion, 0);
        }
    }
    printf("%s\n", s_hello(sock, name) ? "welcomed" : "ignored");
    zmq_close(sock);
    return 0;
}

/* ---- the filesystem, from a controller that holds the real key ---- */

static int s_swap_link(const char *link, const char *to)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.evil-swap", link);
    unlink(tmp);
    if (symlink(to, tmp) != 0 || rename(tmp, link) != 0) {
        fprintf(stderr, "evil: could not point \"%s\" at \"%s\": %s\n", link, to, strerror(errno));
        return -1;
    }
    return 0;
}

static int s_fscases(int argc, char **argv)
{
    if (argc != 5)
        return s_die("usage: evil fscases EP KEYFILE CASEFILE");
    const char *ep = argv[2], *keyfile = argv[3];
    FILE *cf = fopen(argv[4], "r");
    if (!cf)
        return s_die("cannot read the case file");
    uint8_t id[LG_ID_MAX];
    size_t idlen = 0;
    void *sock = s_accept_agent(ep, keyfile, id, &idlen);
    if (!sock)
        return 2;
    Lg__Envelope *e;
    Lg__Envelope out;

    char line[4096];
    uint64_t run_id = 200;
    int status = 0;
    while (fgets(line, sizeof line, cf)) {
        line[strcspn(line, "\n")] = 0;
        char name[128], kind[16], rw[16], target[1100], when[16] = "", link[1100] = "",
                                                        to[1100] = "";
        int n = sscanf(line, "%127s %15s %15s %1099s %15s %1099s %1099s", name, kind, rw, target,
                       when, link, to);
        if (n < 4)
            continue;
        Lg__RunSpec s = LG__RUN_SPEC__INIT;
        s.run_id = ++run_id;
        s.target_kind = strcmp(kind, "block") == 0 ? LG__TARGET_KIND__TARGET_BLOCK
                                                   : LG__TARGET_KIND__TARGET_FILE;
        s.target = target;
        s.rw = rw;
        s.bs = 4096;
        s.threads = 1;
        s.qd = 1;
        s.runtime_s = 2;
        s.size = 4u << 20;
        Lg__Prepare p = LG__PREPARE__INIT;
        p.spec = &s;
        out = (Lg__Envelope)LG__ENVELOPE__INIT;
        out.body_case = LG__ENVELOPE__BODY_PREPARE;
        out.prepare = &p;
        lg_wire_send(sock, id, idlen, &out);
        /* verdict: 0 none yet, 1 refused/failed (msg), 2 prepared, 3 ran */
        int verdict = 0, started = 0;
        char msg[1024] = "";
        int64_t swap_at_us = 0;
        for (int waited = 0; waited < 30000 && verdict != 1 && verdict != 3;) {
            e = s_recv(sock, 1, id, &idlen, 100);
            waited += 100;
            if (swap_at_us && lg_now_us() >= swap_at_us) {
                swap_at_us = 0;
                s_swap_link(link, to);
            }
            if (!e)
                continue;
            if (e->body_case == LG__ENVELOPE__BODY_RUN_ERROR && e->run_error->run_id == s.run_id &&
                !started && e->run_error->message &&
                strncmp(e->run_error->message, "busy with run", 13) == 0 && waited < 10000) {
                /* The agent sends a failed run's RunError before fio has exited and the run is
                 * cleared: on a loaded machine the next Prepare can come first. Asked again. */
                lg_wire_envelope_destroy(&e);
                usleep(200000);
                waited += 200;
                lg_wire_send(sock, id, idlen, &out);
                continue;
            }
            if (e->body_case == LG__ENVELOPE__BODY_RUN_ERROR && e->run_error->run_id == s.run_id) {
                verdict = 1;
                lg_strlcpy(msg, e->run_error->message ? e->run_error->message : "", sizeof msg);
            } else if (e->body_case == LG__ENVELOPE__BODY_PREPARED &&
                       e->prepared->run_id == s.run_id && !started) {
                verdict = 2;
                started = 1;
                if (strcmp(when, "prepared") == 0)
                    s_swap_link(link, to);
                Lg__Start st = LG__START__INIT;
                st.run_id = s.run_id;
                st.start_at_us = lg_now_us() + 200000;
                Lg__Envelope so = LG__ENVELOPE__INIT;
                so.body_case = LG__ENVELOPE__BODY_START;
                so.start = &st;
                lg_wire_send(sock, id, idlen, &so);
                if (strcmp(when, "running") == 0)
                    swap_at_us = st.start_at_us + 700000;
            } else if (e->body_case == LG__ENVELOPE__BODY_RUN_RESULT &&
                       e->run_result->run_id == s.run_id) {
                verdict = 3;
            }
            lg_wire_envelope_destroy(&e);
        }
        for (char *m = msg; *m; m++)
            if (*m == '\n')
                *m = ' ';
        if (verdict == 1)
            printf("case %s: %s: %s\n", name, started ? "failed" : "refused", msg);
        else if (verdict == 3)
            printf("case %s: ran\n", name);
        else {
            printf("case %s: no answer\n", name);
            status = 1;
        }
        fflush(stdout);
    }
    fclose(cf);
    zmq_close(sock);
    return status;
}

static int s_impostor(int argc, char **argv)
{
    if (argc != 4)
        return s_die("usage: evil impostor EP NAME");
    char err[1024];
    void *sock = s_agent_sock(argv[2], err, sizeof err);
    if (!sock)
        return s_die(err[0] ? err : "could not connect");
    printf("%s\n", s_hello(sock, argv[3]) ? "welcomed" : "ignored");
    zmq_close(sock);
    return 0;
}

static int s_inject(int argc, char **argv)
{
    uint64_t run_id, count;
    if (argc != 6 || lg_parse_u64(argv[4], 1, UINT64_MAX, &run_id) != 0 ||
        lg_parse_u64(argv[5], 1, 1000, &count) != 0)
        return s_die("usage: evil inject EP NAME RUN_ID COUNT");
    char err[1024];
    void *sock = s_agent_sock(argv[2], err, sizeof err);
    if (!sock)
        return s_die(err[0] ? err : "could not connect");
    if (!s_hello(sock, argv[3]))
        return s_die("not welcomed under its own name");
    for (uint64_t i = 0; i < count; i++) {
        lg_dirstats_t d;
        memset(&d, 0, sizeof d);
        d.ios = 1000000;
        d.bytes = 4096000000ull;
        d.runtime_ms = 1000;
        Lg__DirStats *ds = lg_wire_dirstats_new(&d, LG_DIR_READ);
        Lg__Sample smp = LG__SAMPLE__INIT;
        smp.run_id = run_id;
        smp.seq = 1000 + i;
        smp.t_ms = (int64_t)(i + 1) * 1000;
        smp.interval_ms = 1000;
        smp.n_dirs = ds ? 1 : 0;
        smp.dirs = &ds;
        Lg__Envelope out = LG__ENVELOPE__INIT;
        out.body_case = LG__ENVELOPE__BODY_SAMPLE;
        out.sample = &smp;
        lg_wire_send(sock, NULL, 0, &out);
        lg_wire_dirstats_destroy(&ds);
    }
    usleep(1000000); /* let them arrive before the socket goes */
    printf("sent\n");
    zmq_close(sock);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return s_die("usage: evil controller|fscases|garbage|impostor|inject ...");
    s_ctx = zmq_ctx_new();
    int rc = strcmp(argv[1], "controller") == 0 ? s_controller(argc, argv)
             : strcmp(argv[1], "fscases") == 0  ? s_fscases(argc, argv)
             : strcmp(argv[1], "garbage") == 0  ? s_garbage(argc, argv)
             : strcmp(argv[1], "impostor") == 0 ? s_impostor(argc, argv)
             : strcmp(argv[1], "inject") == 0   ? s_inject(argc, argv)
                                                : s_die("unknown mode");
    zmq_ctx_term(s_ctx);
    return rc;
}

/* lgctl.c: the operator's command line: run campaigns (local mode or through a controller),
 * print reports, migrate the database. */
#include "lgctl.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "db.h"
#include "lg_auth.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "localpg.h"
#include "migrate.h"
#include "report.h"
#include "export_run.h"
#include "import.h"
#include "import_results.h"
#include "compare.h"

volatile int lgctl_interrupted;

static void s_on_signal(int sig)
{
    (void)sig;
    lgctl_interrupted = 1;
}

static void s_usage(FILE *f)
{
    fputs("usage: lgctl [options] COMMAND ...\n"
          "commands:\n"
          "  plan SPEC.yaml         check a spec and print its run matrix, run count and\n"
          "                         longest duration, without running anything\n"
          "  run SPEC.yaml          run a campaign and print its report; with no controller\n"
          "                         configured, everything runs on this machine (local mode)\n"
          "  submit SPEC.yaml       hand a campaign to the controller and return\n"
          "  status NAME            state and progress of the newest campaign NAME\n"
          "  pause NAME             no new run of NAME starts until resume\n"
          "  resume NAME            go on (also past a pause between SUT configs)\n"
          "  abort NAME             stop the current run and end the campaign\n"
          "  agents                 the agents the controller knows: state, last heard, host\n"
          "  watch NAME             live IOPS, MB/s and latency per agent, progress and ETA\n"
          "  report [--campaign NAME | --id N]\n"
          "                         print the report of a campaign (default: the newest)\n"
          "  db migrate             apply pending schema migrations\n"
          "  keygen NAME [--dir DIR] write a CURVE key pair: DIR/NAME.key (secret, mode 0600)\n"
          "                         and DIR/NAME.pub (one allow-list line)\n"
          "  import fio-json FILE... [--labels k=v,...] [--name NAME]\n"
          "                         store results of bare fio runs (json or json+, also fio's\n"
          "                         client mode) as a campaign, one run per file\n"
          "  import results FILE.csv [--name NAME]\n"
          "                         store published or hand-collected figures (long form:\n"
          "                         profile,direction,metric,value,unit[,protocol,threads,qd]\n"
          "                         and a column per SUT label) as an imported campaign\n"
          "  compare --by DIMENSION [--baseline VALUE] [--metric M,...] [--where k=v,...]\n"
          "          [--campaign C,...] [--format table|csv|json|markdown]\n"
          "                         one row per combination of the other dimensions, the\n"
          "                         metric for each value of DIMENSION (a SUT label or\n"
          "                         protocol, profile, direction, threads, qd, campaign) and\n"
          "                         its change against the baseline; repeats are averaged (n)\n"
          "  compare --sweep [--where ...] [--campaign ...] [--format ...]\n"
          "                         IOPS and latency per load point of swept profiles, one\n"
          "                         column pair per configuration\n"
          "  rank --metric M [--by DIMENSION] [--where ...] [--campaign ...] [--format ...]\n"
          "                         configurations ordered by a metric, with the gap to the\n"
          "                         leader\n"
          "                         metrics: iops, mbps, lat_avg_ms, lat_min_ms, lat_max_ms,\n"
          "                         lat_stddev_ms, p50_ms, p90_ms, p95_ms, p99_ms, p99_9_ms,\n"
          "                         p99_99_ms\n"
          "  export-run RUN --format csv|json\n"
          "                         one run's interval samples and final results\n"
          "options:\n"
          "  --version              print the version and exit (also: lgctl version)\n"
          "  --submit-id ID         submit: the submission's id; submitting again with the same\n"
          "                         id returns the same campaign (default: a random one, kept\n"
          "                         across lgctl's own retries)\n"
          "  --data-dir DIR         local mode data (default $XDG_DATA_HOME/lg; as root\n"
          "                         without XDG_DATA_HOME: /var/lib/lg)\n"
          "  --controller EP        controller control endpoint (default $LG_CONTROLLER)\n"
          "  --key FILE             our CURVE key pair (default $LG_KEY); its public key must\n"
          "                         be in the controller's --control-keys\n"
          "  --controller-key KEY   the controller's public key, a .pub file or 40 Z85\n"
          "                         characters (default $LG_CONTROLLER_KEY)\n"
          "  --plaintext            no CURVE, for a --plaintext controller on loopback\n"
          "  --quiet                less progress output\n"
          "  --allow-destructive    local mode: let the agent overwrite block: targets\n"
          "  --smb-credentials FILE local mode: the agent's SMB user and password (smbclient -A\n"
          "                         format: username = ..., password = ...)\n"
          "  --iscsi-chap FILE      local mode: the agent's CHAP user and password (same format)\n"
          "environment: LG_DATABASE_URL uses that database instead of the private cluster;\n"
          "LG_HOOK is the between-configs hook of the local controller.\n"
          "status, pause, resume and abort talk to --controller, or else to the local-mode\n"
          "controller of a \"lgctl run\" in progress on the same data folder.\n",
          f);
}

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
        fprintf(stderr, "lgctl: %s\n", err);
        zmq_close(s);
        return NULL;
    }
    if (lg_wire_sock_setup(s) != 0 || zmq_connect(s, endpoint) != 0) {
        fprintf(stderr, "lgctl: could not connect to \"%s\": %s\n", endpoint,
                zmq_strerror(zmq_errno()));
        lgctl_close(s);
        return NULL;
    }
    return s;
}

void lgctl_close(void *sock)
{
    lg_authmon_free(&s_authmon);
    if (sock)
        zmq_close(sock);
}

static int s_call_once(void *sock, Lg__CtlRequest *req, Lg__Envelope **env_out, int timeout_ms);

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
            rnd[i] = (unsigned char)((uint64_t)lg_now_us() >> (i % 8 * 8)) ^ (unsigned char)getpid();
        for (size_t i = 0; i < sizeof rnd; i++)
            snprintf(sid + 2 * i, 3, "%02x", rnd[i]);
        req->submit_id = sid;
    }
    int rc = LG_ETIMEOUT;
    for (int attempt = 0; attempt < 3 && rc == LG_ETIMEOUT; attempt++) {
        if (attempt)
            fprintf(stderr, "lgctl: no answer to the submission yet: asking again (submit id %s: "
                    "the same campaign, never a second)\n", req->submit_id);
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
            fprintf(stderr, "lgctl: %s\n", why);
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
            lg_wire_free(e);
            continue;
        }
        *env_out = e;
        return 0;
    }
    return LG_ETIMEOUT;
}

int lgctl_submit_and_wait(void *sock, const char *spec_path, const char *text,
                          uint64_t *campaign_id, int (*alive)(void *), void *alive_arg)
{
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_SUBMIT;
    q.spec_text = (char *)text;
    q.spec_path = (char *)spec_path;
    Lg__Envelope *e = NULL;
    int rc = lgctl_call(sock, &q, &e, 30000);
    if (rc) {
        fprintf(stderr, "lgctl: the controller did not answer the submission: %s\n",
                lg_strerror(rc));
        return LGCTL_FAIL;
    }
    if (e->ctl_reply->code != 0) {
        fprintf(stderr, "lgctl: %s\n", e->ctl_reply->message);
        int spec_err = e->ctl_reply->code == LG_ESPEC;
        lg_wire_free(e);
        return spec_err ? LGCTL_USAGE : LGCTL_FAIL;
    }
    *campaign_id = e->ctl_reply->campaign_id;
    lg_wire_free(e);
    uint32_t last_done = UINT32_MAX;
    char last_msg[2048] = "";
    for (;;) {
        struct timespec ts = {0, 300 * 1000000};
        nanosleep(&ts, NULL);
        if (lgctl_interrupted) {
            fprintf(stderr, "lgctl: interrupted\n");
            return LGCTL_FAIL;
        }
        if (alive && !alive(alive_arg))
            return LGCTL_FAIL;
        q.op = LG__CTL_REQUEST__OP__OP_STATUS;
        q.campaign_id = *campaign_id;
        q.spec_text = (char *)"";
        q.spec_path = (char *)"";
        rc = lgctl_call(sock, &q, &e, 30000);
        if (rc) {
            fprintf(stderr, "lgctl: the controller stopped answering: %s\n", lg_strerror(rc));
            return LGCTL_FAIL;
        }
        Lg__CtlReply *r = e->ctl_reply;
        if (r->code != 0) {
            fprintf(stderr, "lgctl: %s\n", r->message);
            lg_wire_free(e);
            return LGCTL_FAIL;
        }
        uint32_t done = r->runs_done + r->runs_failed;
        if (strcmp(r->message, last_msg) != 0) {
            if (r->message[0])
                fprintf(stderr, "lgctl: campaign %llu is %s: %s\n",
                        (unsigned long long)*campaign_id, r->state, r->message);
            lg_strlcpy(last_msg, r->message, sizeof last_msg);
        }
        if (done != last_done) {
            fprintf(stderr, "lgctl: campaign %llu: %u of %u runs finished%s (%u agent%s)\n",
                    (unsigned long long)*campaign_id, done, r->runs_total,
                    r->runs_failed ? ", some failed" : "", r->agents, r->agents == 1 ? "" : "s");
            last_done = done;
        }
        int finished = strcmp(r->state, "done") == 0 || strcmp(r->state, "failed") == 0 ||
                       strcmp(r->state, "aborted") == 0;
        uint32_t failed = r->runs_failed;
        lg_wire_free(e);
        if (finished)
            return failed ? LGCTL_FAIL : LGCTL_OK;
    }
}

static int s_open_db(const lgctl_opts_t *o, lg_localpg_t *pg, PGconn **db)
{
    char err[4096];
    const char *conninfo = o->database;
    if (!conninfo) {
        if (lg_localpg_open(o->data_dir, pg, err, sizeof err) != 0) {
            fprintf(stderr, "lgctl: %s\n", err);
            return LGCTL_FAIL;
        }
        conninfo = pg->conninfo;
    }
    *db = lg_db_connect(conninfo, err, sizeof err);
    if (!*db) {
        fprintf(stderr, "lgctl: could not connect to the database: %s\n", err);
        lg_localpg_close(pg);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

/* Open the database (LG_DATABASE_URL or the private cluster), run fn, close what was opened.
 * fn returns an LGCTL_* code. */
static int s_with_db(const lgctl_opts_t *o, int (*fn)(PGconn *db, void *arg), void *arg)
{
    lg_localpg_t pg;
    memset(&pg, 0, sizeof pg);
    PGconn *db = NULL;
    int rc = s_open_db(o, &pg, &db);
    if (rc)
        return rc;
    rc = fn(db, arg);
    PQfinish(db);
    lg_localpg_close(&pg);
    return rc;
}

typedef struct {
    uint64_t campaign_id;
    const char *name;
} report_args_t;

static int s_report_fn(PGconn *db, void *arg)
{
    report_args_t *a = arg;
    char err[1024];
    if (lg_report_print(db, a->campaign_id, a->name, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "lgctl: %s\n", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

int lgctl_report(const lgctl_opts_t *o, uint64_t campaign_id, const char *name)
{
    report_args_t a = {campaign_id, name};
    return s_with_db(o, s_report_fn, &a);
}

static int s_migrate_fn(PGconn *db, void *arg)
{
    (void)arg;
    char err[1024];
    int applied = 0;
    if (lg_db_migrate(db, &applied, err, sizeof err) != 0) {
        fprintf(stderr, "lgctl: %s\n", err);
        return LGCTL_FAIL;
    }
    printf("%d migration%s applied\n", applied, applied == 1 ? "" : "s");
    return LGCTL_OK;
}

typedef struct {
    const char *const *files;
    size_t n;
    const char *labels, *name;
} import_args_t;

static int s_import_fn(PGconn *db, void *arg)
{
    import_args_t *a = arg;
    char err[2048];
    int applied;
    uint64_t cid = 0;
    int r = lg_db_migrate(db, &applied, err, sizeof err);
    if (r == 0)
        r = lg_import_fio_json(db, a->files, a->n, a->labels, a->name, &cid, err, sizeof err);
    if (r) {
        fprintf(stderr, "lgctl: import failed, nothing stored: %s\n", err);
        return r == LG_EPARSE && strstr(err, "--labels") ? LGCTL_USAGE : LGCTL_FAIL;
    }
    printf("imported %zu file%s as campaign %llu\n", a->n, a->n == 1 ? "" : "s",
           (unsigned long long)cid);
    if (lg_report_print(db, cid, NULL, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "lgctl: %s\n", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_import(const lgctl_opts_t *o, const char *const *files, size_t n,
                    const char *labels, const char *name)
{
    if (name && (strlen(name) == 0 || strlen(name) > 63)) {
        fprintf(stderr, "lgctl: --name must have 1 to 63 characters\n");
        return LGCTL_USAGE;
    }
    import_args_t a = {files, n, labels, name};
    return s_with_db(o, s_import_fn, &a);
}

typedef struct {
    uint64_t run_id;
    const char *format;
} export_args_t;

static int s_export_fn(PGconn *db, void *arg)
{
    export_args_t *a = arg;
    char err[1024];
    if (lg_export_run(db, a->run_id, a->format, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "lgctl: %s\n", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_export(const lgctl_opts_t *o, const char *run, const char *format)
{
    export_args_t a = {0, format};
    if (lg_parse_u64(run, 1, INT64_MAX, &a.run_id) != 0) {
        fprintf(stderr, "lgctl: export-run: \"%s\" is not a run id\n", run);
        return LGCTL_USAGE;
    }
    if (strcmp(format, "csv") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "lgctl: --format must be csv or json, got \"%s\"\n", format);
        return LGCTL_USAGE;
    }
    return s_with_db(o, s_export_fn, &a);
}

typedef struct {
    const char *path, *name;
} import_results_args_t;

static int s_import_results_fn(PGconn *db, void *arg)
{
    import_results_args_t *a = arg;
    char err[16384];
    int applied;
    uint64_t cid = 0;
    size_t n = 0;
    int r = lg_db_migrate(db, &applied, err, sizeof err);
    if (r == 0)
        r = lg_import_results_csv(db, a->path, a->name, &cid, &n, err, sizeof err);
    if (r) {
        fprintf(stderr, "lgctl: import failed, nothing stored: %s\n", err);
        return r == LG_EPARSE ? LGCTL_USAGE : LGCTL_FAIL;
    }
    printf("imported %zu figure%s from \"%s\" as campaign %llu\n", n, n == 1 ? "" : "s", a->path,
           (unsigned long long)cid);
    return LGCTL_OK;
}

typedef struct {
    lg_compare_opts_t c;
    int mode; /* 0 compare, 1 sweep, 2 rank */
} compare_args_t;

static int s_compare_fn(PGconn *db, void *arg)
{
    compare_args_t *a = arg;
    char err[4096];
    int applied;
    int r = lg_db_migrate(db, &applied, err, sizeof err);
    if (r == 0)
        r = a->mode == 0   ? lg_compare_print(db, &a->c, stdout, err, sizeof err)
            : a->mode == 1 ? lg_sweep_print(db, &a->c, stdout, err, sizeof err)
                           : lg_rank_print(db, &a->c, stdout, err, sizeof err);
    if (r) {
        fprintf(stderr, "lgctl: %s: %s\n", a->mode == 2 ? "rank" : "compare", err);
        return r == LG_EPARSE ? LGCTL_USAGE : LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_compare(const lgctl_opts_t *o, compare_args_t *a, const char *format)
{
    if (format && lg_format_parse(format, &a->c.format) != 0) {
        fprintf(stderr, "lgctl: --format must be table, csv, json or markdown, got \"%s\"\n",
                format);
        return LGCTL_USAGE;
    }
    if (a->mode == 0 && !a->c.dimension) {
        fprintf(stderr, "lgctl: compare needs --by DIMENSION (or --sweep)\n");
        return LGCTL_USAGE;
    }
    if (a->mode == 2 && !a->c.metrics) {
        fprintf(stderr, "lgctl: rank needs --metric M\n");
        return LGCTL_USAGE;
    }
    const char *nc = getenv("NO_COLOR");
    a->c.colour = isatty(STDOUT_FILENO) && !(nc && nc[0]);
    return s_with_db(o, s_compare_fn, a);
}

static int s_run(const lgctl_opts_t *o, const char *path)
{
    /* Validate before touching anything: a broken spec writes nothing anywhere. */
    lg_spec_t *spec = NULL;
    lg_spec_diag_t diag;
    int rc = lg_spec_parse_file(path, &spec, &diag);
    if (rc) {
        char msg[1024];
        lg_spec_diag_format(&diag, msg, sizeof msg);
        fprintf(stderr, "lgctl: %s\n", msg);
        return rc == LG_ESPEC ? LGCTL_USAGE : LGCTL_FAIL;
    }
    char *text = strdup(spec->text);
    lg_spec_destroy(&spec);
    if (!text)
        return LGCTL_FAIL;
    if (!o->controller) {
        rc = lgctl_local_run(o, path, text);
        free(text);
        return rc;
    }
    void *zctx = zmq_ctx_new();
    void *sock = lgctl_connect(zctx, o->controller, o, 0);
    uint64_t cid = 0;
    rc = sock ? lgctl_submit_and_wait(sock, path, text, &cid, NULL, NULL) : LGCTL_FAIL;
    free(text);
    lgctl_close(sock);
    zmq_ctx_term(zctx);
    if (cid && o->database) {
        int r2 = lgctl_report(o, cid, NULL);
        if (rc == LGCTL_OK)
            rc = r2;
    } else if (cid) {
        fprintf(stderr, "lgctl: campaign %llu finished; set LG_DATABASE_URL to print its "
                        "report here\n", (unsigned long long)cid);
    }
    return rc;
}

static const char *s_labels_text(const lg_sutconfig_t *cfg, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < cfg->nlabels && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", i ? "," : "", cfg->labels[i].key,
                              cfg->labels[i].value);
    if (!cfg->nlabels)
        snprintf(buf, len, "(no labels)");
    return buf;
}

static int s_plan(const char *path)
{
    lg_spec_t *spec = NULL;
    lg_spec_diag_t diag;
    int rc = lg_spec_parse_file(path, &spec, &diag);
    if (rc) {
        char msg[1024];
        lg_spec_diag_format(&diag, msg, sizeof msg);
        fprintf(stderr, "lgctl: %s\n", msg);
        return rc == LG_ESPEC ? LGCTL_USAGE : LGCTL_FAIL;
    }
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    if (lg_spec_plan(spec, &runs, &n) != 0) {
        lg_spec_destroy(&spec);
        return LGCTL_FAIL;
    }
    static const char *const between[] = {"pause for lgctl resume", "run the controller's hook",
                                          "go straight on"};
    printf("campaign \"%s\": %zu SUT config%s; between configs: %s\n", spec->name,
           spec->nconfigs, spec->nconfigs == 1 ? "" : "s", between[spec->between]);
    printf("%-5s %-6s %-8s %-12s %-12s %-6s %-7s %-4s %9s\n", "run", "config", "protocol",
           "phase", "profile", "dir", "load", "rep", "seconds");
    size_t measured = 0, precond = 0;
    for (size_t i = 0; i < n; i++) {
        const lg_run_plan_t *r = &runs[i];
        char labels[512], load[24];
        if (r->gate)
            printf("  -- gate: %s before config %u (%s)\n", between[spec->between],
                   r->config + 1, s_labels_text(&spec->configs[r->config], labels, sizeof labels));
        snprintf(load, sizeof load, "%uT%uQ", r->threads, r->qd);
        printf("%-5zu %-6u %-8s %-12s %-12s %-6s %-7s %-4u %9u%s\n", i + 1, r->config + 1,
               spec->configs[r->config].targets[r->target].protocol, lg_phase_name(r->phase),
               r->profile, r->direction, load, r->repeat, r->ramp_s + r->runtime_s,
               r->phase == LG_PHASE_MEASURE ? "" : " (at most)");
        if (r->phase == LG_PHASE_MEASURE)
            measured++;
        else
            precond++;
    }
    uint64_t secs = lg_plan_seconds(runs, n);
    printf("%zu runs (%zu measured, %zu preconditioning); at most %lluh%02llum%02llus of I/O\n", n,
           measured, precond, (unsigned long long)(secs / 3600),
           (unsigned long long)(secs / 60 % 60), (unsigned long long)(secs % 60));
    free(runs);
    lg_spec_destroy(&spec);
    return LGCTL_OK;
}

/* The controller to talk to: --controller, or the local-mode one of a run in progress (*local
 * set). */
static const char *s_controller(const lgctl_opts_t *o, char *buf, size_t len, int *local)
{
    *local = 0;
    if (o->controller)
        return o->controller;
    char path[1100];
    snprintf(path, sizeof path, "%s/controller.endpoint", o->data_dir);
    char *text = NULL;
    if (lg_read_file(path, 1024, &text, NULL) != 0) {
        fprintf(stderr, "lgctl: no controller: give --controller or set LG_CONTROLLER (no "
                        "local \"lgctl run\" is in progress on %s)\n",
                o->data_dir);
        return NULL;
    }
    text[strcspn(text, "\n")] = 0;
    lg_strlcpy(buf, text, len);
    free(text);
    *local = 1;
    return buf;
}

/* One request to the controller (--controller or the local one). Returns 0 with *reply (the
 * caller lg_wire_frees it; its code may still be an error), or LGCTL_FAIL after saying why. */
static int s_ctl_request(const lgctl_opts_t *o, Lg__CtlRequest *q, int timeout_ms,
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
            fprintf(stderr, "lgctl: the controller at %s did not answer: %s\n", ep,
                    lg_strerror(r));
        else
            rc = 0;
        lgctl_close(sock);
    }
    zmq_ctx_term(zctx);
    return rc;
}

static int s_campaign_cmd(const lgctl_opts_t *o, const char *cmd, const char *name)
{
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = !strcmp(cmd, "pause")    ? LG__CTL_REQUEST__OP__OP_PAUSE
           : !strcmp(cmd, "resume") ? LG__CTL_REQUEST__OP__OP_RESUME
           : !strcmp(cmd, "abort")  ? LG__CTL_REQUEST__OP__OP_ABORT
                                    : LG__CTL_REQUEST__OP__OP_STATUS;
    q.name = (char *)name;
    Lg__Envelope *e = NULL;
    if (s_ctl_request(o, &q, 10000, &e) != 0)
        return LGCTL_FAIL;
    Lg__CtlReply *p = e->ctl_reply;
    int rc = LGCTL_OK;
    if (p->code) {
        fprintf(stderr, "lgctl: %s\n", p->message);
        rc = LGCTL_FAIL;
    } else if (q.op == LG__CTL_REQUEST__OP__OP_STATUS) {
        printf("campaign %llu \"%s\": %s, %u of %u runs done, %u failed or aborted\n",
               (unsigned long long)p->campaign_id, p->name, p->state, p->runs_done, p->runs_total,
               p->runs_failed);
        if (p->current[0])
            printf("current: %s\n", p->current);
        if (p->message[0])
            printf("message: %s\n", p->message);
    } else {
        printf("campaign %llu: %s\n", (unsigned long long)p->campaign_id,
               !strcmp(cmd, "pause")    ? "pause requested (after the current run)"
               : !strcmp(cmd, "resume") ? "resumed"
                                        : "aborted");
    }
    lg_wire_free(e);
    return rc;
}

static void s_bar(char *buf, size_t width, double frac)
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

/* A live view of a campaign: per-agent and total IOPS, MB/s and latency of the current run's
 * last interval, progress of the run and of the campaign, and an ETA. On a terminal the screen
 * is redrawn each second; otherwise one line per second. Ends when the campaign does. */
static int s_watch(const lgctl_opts_t *o, const char *name)
{
    int tty = isatty(STDOUT_FILENO);
    for (;;) {
        if (lgctl_interrupted)
            return LGCTL_OK;
        Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
        q.op = LG__CTL_REQUEST__OP__OP_STATUS;
        q.name = (char *)name;
        Lg__Envelope *e = NULL;
        if (s_ctl_request(o, &q, 10000, &e) != 0)
            return LGCTL_FAIL;
        const Lg__CtlReply *p = e->ctl_reply;
        if (p->code) {
            fprintf(stderr, "lgctl: %s\n", p->message);
            lg_wire_free(e);
            return LGCTL_FAIL;
        }
        double tiops = 0, tmbps = 0, tlat = 0;
        for (size_t i = 0; i < p->n_live; i++) {
            tiops += p->live[i]->iops;
            tmbps += p->live[i]->mbps;
            tlat += p->live[i]->lat_avg_ms * p->live[i]->iops; /* I/O-weighted mean */
        }
        tlat = tiops > 0 ? tlat / tiops : 0;
        uint32_t done = p->runs_done + p->runs_failed;
        double run_frac = p->run_total_s ? (double)p->run_elapsed_s / p->run_total_s : 0;
        uint64_t left = p->remaining_s +
                        (p->run_total_s > p->run_elapsed_s ? p->run_total_s - p->run_elapsed_s : 0);
        char rbar[41], cbar[41];
        s_bar(rbar, 30, run_frac);
        s_bar(cbar, 30, p->runs_total ? (double)done / p->runs_total : 0);
        int finished = !strcmp(p->state, "done") || !strcmp(p->state, "failed") ||
                       !strcmp(p->state, "aborted");
        if (tty) {
            printf("\033[H\033[2J");
            printf("campaign %llu \"%s\": %s   (Ctrl-C leaves the campaign running)\n",
                   (unsigned long long)p->campaign_id, p->name, p->state);
            printf("%s\n\n", p->current[0] ? p->current : p->message[0] ? p->message : "idle");
            printf("%-20s %14s %12s %12s\n", "agent", "IOPS", "MB/s", "avg lat ms");
            for (size_t i = 0; i < p->n_live; i++)
                printf("%-20s %14.1f %12.2f %12.3f\n", p->live[i]->name, p->live[i]->iops,
                       p->live[i]->mbps, p->live[i]->lat_avg_ms);
            printf("%-20s %14.1f %12.2f %12.3f\n\n", "total", tiops, tmbps, tlat);
            printf("run      [%s] %3u/%us\n", rbar, p->run_elapsed_s, p->run_total_s);
            printf("campaign [%s] %u/%u runs   ETA %lluh%02llum%02llus\n", cbar, done,
                   p->runs_total, (unsigned long long)(left / 3600),
                   (unsigned long long)(left / 60 % 60), (unsigned long long)(left % 60));
        } else {
            printf("%s run %u/%u [%s] %u/%us IOPS %.1f MB/s %.2f lat %.3f ms agents %zu ETA %llus\n",
                   p->state, done, p->runs_total, rbar, p->run_elapsed_s, p->run_total_s, tiops,
                   tmbps, tlat, p->n_live, (unsigned long long)left);
        }
        fflush(stdout);
        lg_wire_free(e);
        if (finished)
            return LGCTL_OK;
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}

static int s_agents(const lgctl_opts_t *o)
{
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_AGENTS;
    Lg__Envelope *e = NULL;
    if (s_ctl_request(o, &q, 10000, &e) != 0)
        return LGCTL_FAIL;
    const Lg__CtlReply *p = e->ctl_reply;
    printf("%-20s %-5s %-9s %6s %10s %8s %11s %9s %-10s %-20s %s\n", "agent", "id", "state",
           "run", "heard (s)", "unacked", "offset (ms)", "rtt (ms)", "fio", "labels", "host");
    for (size_t i = 0; i < p->n_agent_list; i++) {
        const Lg__AgentInfo *a = p->agent_list[i];
        char run[24] = "-";
        if (a->run_id)
            snprintf(run, sizeof run, "%llu", (unsigned long long)a->run_id);
        char labels[512] = "-";
        if (a->labels && a->labels[0]) {
            lg_strlcpy(labels, a->labels, sizeof labels);
            size_t l = strlen(labels);
            if (l && labels[l - 1] == '\n')
                labels[l - 1] = 0;
            for (char *q2 = labels; *q2; q2++)
                if (*q2 == '\n')
                    *q2 = ',';
        }
        printf("%-20s %-5llu %-9s %6s %10.1f %8llu %11.3f %9.3f %-10s %-20s %s, %u CPUs, %.1f GiB,"
               " %s\n",
               a->name, (unsigned long long)a->agent_id, a->state, run, a->last_seen_ms / 1000.0,
               (unsigned long long)a->unacked, a->clock_offset_us / 1000.0, a->rtt_us / 1000.0,
               a->fio_version, labels, a->os, a->cpu_count, a->mem_bytes / 1073741824.0,
               a->cpu_model);
    }
    lg_wire_free(e);
    return LGCTL_OK;
}

static int s_submit(const lgctl_opts_t *o, const char *path)
{
    lg_spec_t *spec = NULL;
    lg_spec_diag_t diag;
    int rc = lg_spec_parse_file(path, &spec, &diag);
    if (rc) {
        char msg[1024];
        lg_spec_diag_format(&diag, msg, sizeof msg);
        fprintf(stderr, "lgctl: %s\n", msg);
        return rc == LG_ESPEC ? LGCTL_USAGE : LGCTL_FAIL;
    }
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_SUBMIT;
    q.spec_text = spec->text;
    q.spec_path = (char *)path;
    if (o->submit_id)
        q.submit_id = (char *)o->submit_id;
    Lg__Envelope *e = NULL;
    rc = s_ctl_request(o, &q, 30000, &e);
    if (rc == 0) {
        Lg__CtlReply *p = e->ctl_reply;
        if (p->code) {
            fprintf(stderr, "lgctl: %s\n", p->message);
            rc = p->code == LG_ESPEC ? LGCTL_USAGE : LGCTL_FAIL;
        } else {
            printf("campaign %llu \"%s\" submitted\n", (unsigned long long)p->campaign_id,
                   spec->name);
            if (p->message && p->message[0]) /* e.g. submitted before with this submit id */
                fprintf(stderr, "lgctl: %s\n", p->message);
        }
        lg_wire_free(e);
    }
    lg_spec_destroy(&spec);
    return rc;
}

int main(int argc, char **argv)
{
    lg_log_init("lgctl");
    lgctl_opts_t o;
    memset(&o, 0, sizeof o);
    char ddir[1024];
    lg_localpg_default_dir(ddir, sizeof ddir);
    o.data_dir = ddir;
    o.controller = getenv("LG_CONTROLLER");
    if (o.controller && !o.controller[0])
        o.controller = NULL;
    o.database = getenv("LG_DATABASE_URL");
    if (o.database && !o.database[0])
        o.database = NULL;
    o.key_file = getenv("LG_KEY");
    o.controller_key = getenv("LG_CONTROLLER_KEY");
    if (o.key_file && !o.key_file[0])
        o.key_file = NULL;
    if (o.controller_key && !o.controller_key[0])
        o.controller_key = NULL;
    const char *keydir = ".";
    const char *pos[256];
    int npos = 0;
    const char *campaign = NULL, *labels = NULL, *cname = NULL, *format = NULL;
    compare_args_t cmp;
    memset(&cmp, 0, sizeof cmp);
    uint64_t campaign_id = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            s_usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("lgctl %s\n", LG_VERSION);
            return 0;
        } else if (strcmp(a, "--quiet") == 0) {
            o.quiet = 1;
        } else if (strcmp(a, "--sweep") == 0) {
            cmp.mode = 1;
        } else if (strcmp(a, "--by") == 0 || strcmp(a, "--baseline") == 0 ||
                   strcmp(a, "--metric") == 0 || strcmp(a, "--where") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lgctl: option \"%s\" needs a value\n", a);
                return LGCTL_USAGE;
            }
            const char *v = argv[++i];
            if (strcmp(a, "--by") == 0)
                cmp.c.dimension = v;
            else if (strcmp(a, "--baseline") == 0)
                cmp.c.baseline = v;
            else if (strcmp(a, "--metric") == 0)
                cmp.c.metrics = v;
            else
                cmp.c.where = v;
        } else if (strcmp(a, "--allow-destructive") == 0) {
            o.allow_destructive = 1;
        } else if (strcmp(a, "--plaintext") == 0) {
            o.plaintext = 1;
        } else if (strcmp(a, "--data-dir") == 0 || strcmp(a, "--controller") == 0 ||
                   strcmp(a, "--campaign") == 0 || strcmp(a, "--id") == 0 ||
                   strcmp(a, "--labels") == 0 || strcmp(a, "--name") == 0 ||
                   strcmp(a, "--format") == 0 || strcmp(a, "--smb-credentials") == 0 ||
                   strcmp(a, "--iscsi-chap") == 0 || strcmp(a, "--key") == 0 ||
                   strcmp(a, "--controller-key") == 0 || strcmp(a, "--dir") == 0 ||
                   strcmp(a, "--submit-id") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lgctl: option \"%s\" needs a value\n", a);
                return LGCTL_USAGE;
            }
            const char *v = argv[++i];
            if (strcmp(a, "--data-dir") == 0)
                o.data_dir = v;
            else if (strcmp(a, "--submit-id") == 0)
                o.submit_id = v;
            else if (strcmp(a, "--smb-credentials") == 0)
                o.smb_credentials = v;
            else if (strcmp(a, "--iscsi-chap") == 0)
                o.iscsi_chap = v;
            else if (strcmp(a, "--controller") == 0)
                o.controller = v;
            else if (strcmp(a, "--key") == 0)
                o.key_file = v;
            else if (strcmp(a, "--controller-key") == 0)
                o.controller_key = v;
            else if (strcmp(a, "--dir") == 0)
                keydir = v;
            else if (strcmp(a, "--campaign") == 0)
                campaign = v;
            else if (strcmp(a, "--labels") == 0)
                labels = v;
            else if (strcmp(a, "--name") == 0)
                cname = v;
            else if (strcmp(a, "--format") == 0)
                format = v;
            else if (lg_parse_u64(v, 1, INT64_MAX, &campaign_id) != 0) {
                fprintf(stderr, "lgctl: --id: \"%s\" is not a campaign id\n", v);
                return LGCTL_USAGE;
            }
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "lgctl: unknown option \"%s\"\n", a);
            return LGCTL_USAGE;
        } else if (npos < 256) {
            pos[npos++] = a;
        } else {
            fprintf(stderr, "lgctl: too many arguments\n");
            return LGCTL_USAGE;
        }
    }
    if (o.data_dir[0] != '/') {
        fprintf(stderr, "lgctl: --data-dir must be an absolute path\n");
        return LGCTL_USAGE;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (npos == 2 && strcmp(pos[0], "run") == 0)
        return s_run(&o, pos[1]);
    if (npos == 2 && strcmp(pos[0], "plan") == 0)
        return s_plan(pos[1]);
    if (npos == 2 && strcmp(pos[0], "keygen") == 0) {
        char err[1024];
        /* a missing key folder is made, private (0700), with any missing parents */
        char dir[4096];
        lg_strlcpy(dir, keydir, sizeof dir);
        for (char *p = dir + 1;; p++) {
            int end = *p == 0;
            if (*p == '/' || end) {
                *p = 0;
                if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
                    fprintf(stderr, "lgctl: keygen: could not create the folder \"%s\": %s\n", dir,
                            strerror(errno));
                    return LGCTL_FAIL;
                }
                if (end)
                    break;
                *p = '/';
            }
        }
        if (lg_auth_keygen(keydir, pos[1], err, sizeof err) != 0) {
            fprintf(stderr, "lgctl: keygen: %s\n", err);
            return LGCTL_FAIL;
        }
        printf("%s/%s.key: the key pair (secret: keep it on this host, mode 0600)\n"
               "%s/%s.pub: the public key, for the other side's allow-list or "
               "--controller-key\n",
               keydir, pos[1], keydir, pos[1]);
        return LGCTL_OK;
    }
    if (npos == 1 && strcmp(pos[0], "agents") == 0)
        return s_agents(&o);
    if (npos == 2 && strcmp(pos[0], "watch") == 0)
        return s_watch(&o, pos[1]);
    if (npos == 2 && strcmp(pos[0], "submit") == 0)
        return s_submit(&o, pos[1]);
    if (npos == 2 && (!strcmp(pos[0], "status") || !strcmp(pos[0], "pause") ||
                      !strcmp(pos[0], "resume") || !strcmp(pos[0], "abort")))
        return s_campaign_cmd(&o, pos[0], pos[1]);
    if (npos == 1 && strcmp(pos[0], "report") == 0)
        return lgctl_report(&o, campaign_id, campaign);
    if (npos == 2 && strcmp(pos[0], "db") == 0 && strcmp(pos[1], "migrate") == 0)
        return s_with_db(&o, s_migrate_fn, NULL);
    if (npos >= 3 && strcmp(pos[0], "import") == 0 && strcmp(pos[1], "fio-json") == 0)
        return s_import(&o, pos + 2, (size_t)npos - 2, labels, cname);
    if (npos == 3 && strcmp(pos[0], "import") == 0 && strcmp(pos[1], "results") == 0) {
        if (cname && (strlen(cname) == 0 || strlen(cname) > 63)) {
            fprintf(stderr, "lgctl: --name must have 1 to 63 characters\n");
            return LGCTL_USAGE;
        }
        import_results_args_t ia = {pos[2], cname};
        return s_with_db(&o, s_import_results_fn, &ia);
    }
    if (npos == 1 && (strcmp(pos[0], "compare") == 0 || strcmp(pos[0], "rank") == 0)) {
        if (strcmp(pos[0], "rank") == 0)
            cmp.mode = 2;
        cmp.c.campaigns = campaign;
        return s_compare(&o, &cmp, format);
    }
    if (npos == 2 && strcmp(pos[0], "export-run") == 0)
        return s_export(&o, pos[1], format ? format : "csv");
    if (npos == 1 && strcmp(pos[0], "version") == 0) {
        printf("lgctl %s\n", LG_VERSION);
        return 0;
    }
    s_usage(stderr);
    return LGCTL_USAGE;
}

/* lgctl.c: the operator's command line: run campaigns (local mode or through a controller),
 * print reports, migrate the database. */
#include "lgctl.h"
#include "lg_scrape.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "compare.h"
#include "db.h"
#include "export_run.h"
#include "import.h"
#include "import_results.h"
#include "lg_auth.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_noise.h"
#include "lg_app.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "localpg.h"
#include "migrate.h"
#include "report.h"

volatile int lgctl_interrupted;

static int s_spec_load(const char *path, lg_spec_t **spec);
static void s_warn_cb(void *arg, const char *msg);
static void s_spec_warn(const lg_spec_t *spec);

static void s_on_signal(int sig)
{
    (void)sig;
    lgctl_interrupted = 1;
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
    lg_authmon_free(&s_authmon);
    if (sock)
        zmq_close(sock);
}

static int s_call_once(void *sock, Lg__CtlRequest *req, Lg__Envelope **env_out, int timeout_ms);

/* The submit id of the last submission asked (lgctl_call): for "it may still be created" */
static char s_last_sid[128];

/* A submission that got no answer may still be made when the controller's database answers:
 * how to find out, by its submit id, without making a second. */
static void s_submit_unanswered(const char *spec_path)
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
            lg_wire_free(e);
            continue;
        }
        *env_out = e;
        return 0;
    }
    return LG_ETIMEOUT;
}

/* ---- progress of a campaign lgctl run waits for ---- */

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
    s_bar(rbar, 20, r->run_total_s ? (double)r->run_elapsed_s / r->run_total_s : 0);
    s_bar(cbar, 20, r->runs_total ? (double)done / r->runs_total : 0);
    if (!r->current[0])
        fig[0] = 0;
    else if (r->run_elapsed_s < r->run_ramp_s)
        snprintf(fig, sizeof fig, "  ramping up (%u s, no figures kept)", r->run_ramp_s);
    else if (r->n_live) {
        uint64_t seen = 0;
        for (size_t i = 0; i < r->n_live; i++)
            seen += r->live[i]->seq;
        if (seen)
            snprintf(fig, sizeof fig, "  %s IOPS  %.3f ms", lg_fmt_thousands(num, sizeof num, iops, 0),
                     lat);
        else /* measuring, the first interval not in yet */
            snprintf(fig, sizeof fig, "  measuring (figures after the first seconds)");
    } else
        fig[0] = 0;
    uint64_t left = r->remaining_s +
                    (r->run_total_s > r->run_elapsed_s ? r->run_total_s - r->run_elapsed_s : 0);
    snprintf(l2, n2, "run [%s] %u/%u s%s   campaign [%s] %u/%u runs%s  ETA %lluh%02llum%02llus",
             rbar, r->run_elapsed_s, r->run_total_s, fig, cbar, done, r->runs_total,
             r->runs_failed ? " (some failed)" : "", (unsigned long long)(left / 3600),
             (unsigned long long)(left / 60 % 60), (unsigned long long)(left % 60));
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
        s_submit_unanswered(spec_path);
        return LGCTL_FAIL;
    }
    if (e->ctl_reply->code != 0) {
        lg_error("%s", e->ctl_reply->message);
        int spec_err = e->ctl_reply->code == LG_ESPEC;
        lg_wire_free(e);
        return spec_err ? LGCTL_USAGE : LGCTL_FAIL;
    }
    *campaign_id = e->ctl_reply->campaign_id;
    lg_wire_free(e);
    /* On a terminal: two lines redrawn in place. Otherwise: a line per run that finishes and per
     * message. --quiet: nothing but errors. */
    const char *term = getenv("TERM");
    int tty = !o->quiet && isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
    int drawn = 0;
    uint32_t last_done = UINT32_MAX;
    char last_msg[2048] = "";
    int result = LGCTL_FAIL;
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
        if (r->code != 0) {
            if (drawn)
                fputs("\n", stderr);
            lg_error("%s", r->message);
            lg_wire_free(e);
            return LGCTL_FAIL;
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
        uint32_t failed = r->runs_failed, total = r->runs_total;
        char state[32];
        lg_strlcpy(state, r->state, sizeof state);
        lg_wire_free(e);
        if (finished) {
            if (!o->quiet)
                lg_info("campaign %llu %s: %u of %u runs done%s", (unsigned long long)*campaign_id,
                        state, done - failed, total, failed ? ", some failed" : "");
            result = failed ? LGCTL_FAIL : LGCTL_OK;
            break;
        }
    }
    if (drawn)
        fputs("\n", stderr);
    return result;
}

static int s_open_db(const lgctl_opts_t *o, lg_localpg_t *pg, PGconn **db)
{
    char err[4096];
    const char *conninfo = o->database;
    if (!conninfo) {
        if (lg_localpg_open(o->data_dir, pg, err, sizeof err) != 0) {
            lg_error("%s", err);
            return LGCTL_FAIL;
        }
        conninfo = pg->conninfo;
    }
    *db = lg_db_connect(conninfo, err, sizeof err);
    if (!*db) {
        lg_error("could not connect to the database: %s", err);
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
    lg_format_t format;
} report_args_t;

static int s_report_fn(PGconn *db, void *arg)
{
    report_args_t *a = arg;
    char err[1024];
    if (lg_report_print(db, a->campaign_id, a->name, a->format, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

int lgctl_report(const lgctl_opts_t *o, uint64_t campaign_id, const char *name)
{
    report_args_t a = {campaign_id, name, o->format};
    return s_with_db(o, s_report_fn, &a);
}

static int s_migrate_fn(PGconn *db, void *arg)
{
    (void)arg;
    char err[1024];
    int applied = 0;
    if (lg_db_migrate(db, &applied, err, sizeof err) != 0) {
        lg_error("%s", err);
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
        lg_error("import failed, nothing stored: %s", err);
        return r == LG_EPARSE && strstr(err, "--labels") ? LGCTL_USAGE : LGCTL_FAIL;
    }
    printf("imported %zu file%s as campaign %llu\n", a->n, a->n == 1 ? "" : "s",
           (unsigned long long)cid);
    if (lg_report_print(db, cid, NULL, LG_FMT_TABLE, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_import(const lgctl_opts_t *o, const char *const *files, size_t n, const char *labels,
                    const char *name)
{
    if (name && (strlen(name) == 0 || strlen(name) > 63)) {
        lg_error("--name must have 1 to 63 characters");
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
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_export(const lgctl_opts_t *o, const char *run, const char *format)
{
    export_args_t a = {0, format};
    if (lg_parse_u64(run, 1, INT64_MAX, &a.run_id) != 0) {
        lg_error("export-run: \"%s\" is not a run id", run);
        return LGCTL_USAGE;
    }
    if (strcmp(format, "csv") != 0 && strcmp(format, "json") != 0) {
        lg_error("--format must be csv or json, got \"%s\"", format);
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
        lg_error("import failed, nothing stored: %s", err);
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
        lg_error("%s: %s", a->mode == 2 ? "rank" : "compare", err);
        return r == LG_EPARSE ? LGCTL_USAGE : LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_compare(const lgctl_opts_t *o, compare_args_t *a, const char *format)
{
    if (format && lg_format_parse(format, &a->c.format) != 0) {
        lg_error("--format must be table, csv, json or markdown, got \"%s\"", format);
        return LGCTL_USAGE;
    }
    if (a->mode == 0 && !a->c.dimension) {
        lg_error("compare needs --by DIMENSION (or --sweep)");
        return LGCTL_USAGE;
    }
    if (a->mode == 2 && !a->c.metrics) {
        lg_error("rank needs --metric M");
        return LGCTL_USAGE;
    }
    const char *nc = getenv("NO_COLOR");
    a->c.colour = isatty(STDOUT_FILENO) && !(nc && nc[0]);
    return s_with_db(o, s_compare_fn, a);
}

/* Try each telemetry source of the spec once (each distinct name and URL, whichever config
 * names it): what answers and how much it gives, or a warning naming the source and why. Returns
 * how many did not answer. */
static size_t s_telemetry_check(const lg_spec_t *spec, int print)
{
    const lg_telemetry_t *seen[LG_MAX_TELEMETRY * 8];
    size_t nseen = 0, bad = 0;
    for (size_t k = 0; k <= spec->nconfigs; k++) {
        size_t n = 0;
        const lg_telemetry_t *t = k < spec->nconfigs ? lg_spec_telemetry(spec, k, &n)
                                                     : spec->telemetry;
        if (k == spec->nconfigs)
            n = spec->ntelemetry;
        for (size_t i = 0; i < n; i++) {
            int dup = 0;
            for (size_t j = 0; j < nseen && !dup; j++)
                dup = !strcmp(seen[j]->name, t[i].name) && !strcmp(seen[j]->url, t[i].url);
            if (dup || nseen == sizeof seen / sizeof seen[0])
                continue;
            seen[nseen++] = &t[i];
            size_t keys = 0, bytes = 0;
            char err[600];
            if (lg_scrape_once(&t[i], &keys, &bytes, err, sizeof err) != 0) {
                bad++;
                lg_warn("telemetry source \"%s\" (%s): %s; its runs go on without it", t[i].name,
                        t[i].url, err);
            } else if (print) {
                printf("telemetry source \"%s\" (%s): answered, %zu bytes, %zu series kept\n",
                       t[i].name, t[i].url, bytes, keys);
            }
        }
    }
    return bad;
}

static int s_run(const lgctl_opts_t *o, const char *path)
{
    /* Validate before touching anything: a broken spec writes nothing anywhere. */
    lg_spec_t *spec = NULL;
    int rc = s_spec_load(path, &spec);
    if (rc)
        return rc;
    s_spec_warn(spec);
    char *text = strdup(spec->text);
    lg_spec_destroy(&spec);
    if (!text)
        return LGCTL_FAIL;
    if (!o->controller) {
        /* Local mode: the controller runs here, so a source this host cannot reach is one
         * the runs will miss: said now, before anything runs. */
        lg_spec_t *sp = NULL;
        if (lg_spec_parse_text(text, strlen(text), path, &sp, &(lg_spec_diag_t){0}) == 0)
            s_telemetry_check(sp, 0);
        lg_spec_destroy(&sp);
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
    if (cid && o->database) {
        int r2 = lgctl_report(o, cid, NULL);
        if (rc == LGCTL_OK)
            rc = r2;
    } else if (cid) {
        lg_info("campaign %llu finished", (unsigned long long)cid);
        lg_log_hint("set LG_DATABASE_URL to print its report here");
    }
    return rc;
}

/* ", 20 search probes at most (1m20s of it)": a search's worst case is every probe it may take */
static const char *s_probes_text(size_t probes, uint64_t secs)
{
    static char buf[96];
    snprintf(buf, sizeof buf, ", %zu search probes at most (%llum%02llus of it)", probes,
             (unsigned long long)(secs / 60), (unsigned long long)(secs % 60));
    return buf;
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

static int s_plan(const char *path, lg_format_t fmt, int check)
{
    lg_spec_t *spec = NULL;
    int rc = s_spec_load(path, &spec);
    if (rc)
        return rc;
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    if (lg_spec_plan(spec, &runs, &n) != 0) {
        lg_spec_destroy(&spec);
        return LGCTL_FAIL;
    }
    lg_plan_unwritten_reads(spec, runs, n, s_warn_cb, NULL);
    static const char *const between[] = {"pause for lgctl resume", "run the controller's hook",
                                          "go straight on"};
    int md = fmt == LG_FMT_MARKDOWN, text = fmt == LG_FMT_TABLE || md;
    if (text)
        printf("%scampaign \"%s\"%s: %zu SUT config%s; between configs: %s\n%s", md ? "**" : "",
               spec->name, md ? "**" : "", spec->nconfigs, spec->nconfigs == 1 ? "" : "s",
               between[spec->between], md ? "\n" : "");
    lg_tbl_t t = {.ncols = 11, .last_left = 1};
    static const char *const head[] = {"run",    "config",  "SUT config", "protocol",
                                       "phase",  "profile", "dir",        "load",
                                       "repeat", "seconds", "note"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    json_t *rows = fmt == LG_FMT_JSON ? json_array() : NULL;
    size_t measured = 0, precond = 0, probes = 0;
    uint64_t probe_s = 0;
    for (size_t i = 0; i < n; i++) {
        const lg_run_plan_t *r = &runs[i];
        const lg_sutconfig_t *cfg = &spec->configs[r->config];
        char labels[512], note[160] = "";
        s_labels_text(cfg, labels, sizeof labels);
        int meas = r->phase == LG_PHASE_MEASURE, probe = r->phase == LG_PHASE_SEARCH;
        const lg_search_t *se = &spec->profiles[r->profile_index].search;
        const lg_appwl_t *app = &spec->profiles[r->profile_index].app;
        char loadtxt[48];
        if (app->kind && r->phase != LG_PHASE_FILL)
            snprintf(loadtxt, sizeof loadtxt, "%u %s", r->threads,
                     app->kind == LG_APP_PGBENCH ? "clients" : "threads");
        else if (probe && r->probe > 1 && se->vary == LG_VARY_QD) /* set by the probes before it */
            snprintf(loadtxt, sizeof loadtxt, "%uT?Q", r->threads);
        else if (probe && r->probe > 1 && se->vary == LG_VARY_THREADS)
            snprintf(loadtxt, sizeof loadtxt, "?T%uQ", r->qd);
        else if (probe && r->probe > 1)
            snprintf(loadtxt, sizeof loadtxt, "%uT%uQ@?", r->threads, r->qd);
        else if (r->curve_pct && r->search && se->vary != LG_VARY_RATE)
            snprintf(loadtxt, sizeof loadtxt, "knee@%u%%", r->curve_pct);
        else if (r->curve_pct)
            snprintf(loadtxt, sizeof loadtxt, "%uT%uQ@%u%%", r->threads, r->qd, r->curve_pct);
        else if (r->rate)
            snprintf(loadtxt, sizeof loadtxt, "%uT%uQ@%u", r->threads, r->qd, r->rate);
        else
            snprintf(loadtxt, sizeof loadtxt, "%uT%uQ", r->threads, r->qd);
        if (r->gate)
            snprintf(note, sizeof note, "gate before it: %s", between[spec->between]);
        if (probe)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     "%ssearch probe %u of at most %u: %s <= %g ms by %s", note[0] ? "; " : "",
                     r->probe, se->steps, lg_smetric_name(se->metric), se->limit_ms,
                     lg_vary_name(se->vary));
        else if (r->curve_pct)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     "%scurve: %u%% of %s", note[0] ? "; " : "", r->curve_pct,
                     r->search ? "the search's best" : "its first load point's IOPS");
        else if (!meas)
            snprintf(note + strlen(note), sizeof note - strlen(note), "%sat most %u s",
                     note[0] ? "; " : "", r->ramp_s + r->runtime_s);
        else if (app->kind == LG_APP_PGBENCH && r->phase != LG_PHASE_FILL)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     "%spgbench on a private PostgreSQL; loads scale %u (%llu rows) first%s",
                     note[0] ? "; " : "", app->scale, (unsigned long long)app->scale * 100000,
                     app->keep ? "; keeps its data" : "");
        else if (app->kind && r->phase != LG_PHASE_FILL)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     "%ssysbench oltp_read_write on a private MariaDB; loads %u tables x %llu "
                     "rows first%s",
                     note[0] ? "; " : "", app->tables, (unsigned long long)app->table_size,
                     app->keep ? "; keeps its data" : "");
        lg_tbl_add(&t, 0, "%zu", i + 1);
        lg_tbl_add(&t, 0, "%u", r->config + 1);
        lg_tbl_add(&t, 0, "%s", labels);
        lg_tbl_add(&t, 0, "%s", cfg->targets[r->target].protocol);
        lg_tbl_add(&t, 0, "%s", lg_phase_name(r->phase));
        lg_tbl_add(&t, 0, "%s", r->profile);
        lg_tbl_add(&t, 0, "%s", r->direction);
        lg_tbl_add(&t, 0, "%s", loadtxt);
        lg_tbl_add(&t, 0, "%u", r->repeat);
        lg_tbl_add(&t, 0, "%u", r->ramp_s + r->runtime_s);
        lg_tbl_add(&t, 0, "%s", note);
        if (rows)
            json_array_append_new(
                rows,
                json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b, s:b,"
                          " s:I, s:I, s:I}",
                          "run", (json_int_t)(i + 1), "config", (json_int_t)r->config + 1, "sut",
                          labels, "protocol", cfg->targets[r->target].protocol, "phase",
                          lg_phase_name(r->phase), "profile", r->profile, "direction", r->direction,
                          "threads", (json_int_t)r->threads, "qd", (json_int_t)r->qd, "repeat",
                          (json_int_t)r->repeat, "seconds", (json_int_t)(r->ramp_s + r->runtime_s),
                          "at_most", !meas, "gate_before", r->gate != 0, "rate",
                          (json_int_t)r->rate, "probe", (json_int_t)r->probe, "curve_pct",
                          (json_int_t)r->curve_pct));
        if (probe) {
            probes++;
            probe_s += r->ramp_s + r->runtime_s;
        } else if (meas)
            measured++;
        else
            precond++;
    }
    if (rows) {
        json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
        fputc('\n', stdout);
        json_decref(rows);
    } else
        lg_tbl_print(&t, fmt, 0, 9, stdout);
    lg_tbl_free(&t);
    if (text && measured) {
        /* What the repeats buy; for one repeat the shortest measured run sets the batch means. */
        uint32_t rt = UINT32_MAX;
        for (size_t i = 0; i < n; i++)
            if (runs[i].phase == LG_PHASE_MEASURE && runs[i].runtime_s < rt)
                rt = runs[i].runtime_s;
        char prec[512];
        lg_noise_plan_text(spec->repeats, rt, prec, sizeof prec);
        printf("%s%s\n", md ? "\n" : "", prec);
    }
    uint64_t secs = lg_plan_seconds(runs, n);
    if (text)
        printf("%s%zu runs (%zu measured, %zu preconditioning%s); at most %lluh%02llum%02llus of "
               "I/O\n",
               md ? "\n" : "", n, measured, precond, probes ? s_probes_text(probes, probe_s) : "",
               (unsigned long long)(secs / 3600),
               (unsigned long long)(secs / 60 % 60), (unsigned long long)(secs % 60));
    free(runs);
    size_t bad = check ? s_telemetry_check(spec, text) : 0;
    if (check && text && spec->ntelemetry == 0) {
        int any = 0;
        for (size_t k = 0; k < spec->nconfigs; k++)
            any |= spec->configs[k].ntelemetry > 0;
        if (!any)
            printf("no telemetry sources: the runs will measure the load hosts only\n");
    }
    lg_spec_destroy(&spec);
    return bad ? LGCTL_FAIL : LGCTL_OK;
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
        lg_error("no controller: give --controller or set LG_CONTROLLER (no local \"lgctl "
                 "run\" is in progress on %s)",
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
            lg_error("the controller at %s did not answer: %s", ep, lg_strerror(r));
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
        lg_error("%s", p->message);
        rc = LGCTL_FAIL;
    } else if (q.op == LG__CTL_REQUEST__OP__OP_STATUS) {
        char cname[1024], state[256], text[4096]; /* from the database: escaped */
        printf("campaign %llu \"%s\": %s, %u of %u runs done, %u failed or aborted\n",
               (unsigned long long)p->campaign_id, lg_esc_ctrl(p->name, cname, sizeof cname),
               lg_esc_ctrl(p->state, state, sizeof state), p->runs_done, p->runs_total,
               p->runs_failed);
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
    lg_wire_free(e);
    return rc;
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
            lg_error("%s", p->message);
            lg_wire_free(e);
            return LGCTL_FAIL;
        }
        /* An application run counts transactions, and moves no bytes that it reports. */
        int tps = !strcmp(p->rate_unit, "TPS");
        const char *unit = tps ? "TPS" : "IOPS";
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
        char rbar[41], cbar[41], phase[96] = "";
        s_bar(rbar, 30, run_frac);
        int ramping = p->run_total_s && p->run_elapsed_s < p->run_ramp_s;
        if (ramping) /* fio reports nothing kept during the ramp: say so rather than 0 IOPS */
            snprintf(phase, sizeof phase, "ramping up: %u of %u s, figures start after it",
                     p->run_elapsed_s, p->run_ramp_s);
        s_bar(cbar, 30, p->runs_total ? (double)done / p->runs_total : 0);
        int finished = !strcmp(p->state, "done") || !strcmp(p->state, "failed") ||
                       !strcmp(p->state, "aborted");
        char cname[1024], state[256], text[4096], who_shown[256]; /* escaped: see s_agents */
        lg_esc_ctrl(p->state, state, sizeof state);
        if (tty) {
            printf("\033[H\033[2J");
            printf("campaign %llu \"%s\": %s   (Ctrl-C leaves the campaign running)\n",
                   (unsigned long long)p->campaign_id, lg_esc_ctrl(p->name, cname, sizeof cname),
                   state);
            printf("%s\n%s%s\n",
                   lg_esc_ctrl(p->current[0]   ? p->current
                               : p->message[0] ? p->message
                                               : "idle",
                               text, sizeof text),
                   phase, phase[0] ? "\n" : "");
            printf("%-20s %14s %12s %12s\n", "agent", unit, tps ? "" : "MB/s", "avg lat ms");
            for (size_t i = 0; i <= p->n_live; i++) {
                const char *who = lg_esc_ctrl(i < p->n_live ? p->live[i]->name : "total", who_shown,
                                              sizeof who_shown);
                double r = i < p->n_live ? p->live[i]->iops : tiops;
                double mb = i < p->n_live ? p->live[i]->mbps : tmbps;
                double lat = i < p->n_live ? p->live[i]->lat_avg_ms : tlat;
                char mbs[32] = "";
                if (!tps)
                    snprintf(mbs, sizeof mbs, "%.2f", mb);
                if (ramping)
                    printf("%-20s %14s %12s %12s\n", who, "-", "-", "-");
                else
                    printf("%-20s %14.1f %12s %12.3f\n", who, r, mbs, lat);
            }
            printf("\n");
            printf("run      [%s] %3u/%us\n", rbar, p->run_elapsed_s, p->run_total_s);
            printf("campaign [%s] %u/%u runs   ETA %lluh%02llum%02llus\n", cbar, done,
                   p->runs_total, (unsigned long long)(left / 3600),
                   (unsigned long long)(left / 60 % 60), (unsigned long long)(left % 60));
        } else {
            if (ramping)
                printf("%s run %u/%u [%s] %u/%us ramping up (%u s) agents %zu ETA %llus\n", state,
                       done, p->runs_total, rbar, p->run_elapsed_s, p->run_total_s, p->run_ramp_s,
                       p->n_live, (unsigned long long)left);
            else if (p->n_live == 0) /* between runs: nothing measures, no figures to give */
                printf("%s run %u/%u [%s] %u/%us no run measuring ETA %llus\n", state, done,
                       p->runs_total, rbar, p->run_elapsed_s, p->run_total_s,
                       (unsigned long long)left);
            else if (tps)
                printf("%s run %u/%u [%s] %u/%us TPS %.1f lat %.3f ms agents %zu ETA %llus\n",
                       state, done, p->runs_total, rbar, p->run_elapsed_s, p->run_total_s, tiops,
                       tlat, p->n_live, (unsigned long long)left);
            else
                printf("%s run %u/%u [%s] %u/%us IOPS %.1f MB/s %.2f lat %.3f ms agents %zu ETA "
                       "%llus\n",
                       state, done, p->runs_total, rbar, p->run_elapsed_s, p->run_total_s, tiops,
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
    printf("%-20s %-5s %-9s %6s %10s %8s %11s %9s %-10s %-20s %s\n", "agent", "id", "state", "run",
           "heard (s)", "unacked", "offset (ms)", "rtt (ms)", "fio", "labels", "host");
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
        /* What an agent says of itself (without CURVE its name too) reaches a terminal here:
         * control characters escaped. */
        char name[256], state[64], fio[256], lab[2048], os[512], cpu[512];
        printf("%-20s %-5llu %-9s %6s %10.1f %8llu %11.3f %9.3f %-10s %-20s %s, %u CPUs, %.1f GiB,"
               " %s\n",
               lg_esc_ctrl(a->name, name, sizeof name), (unsigned long long)a->agent_id,
               lg_esc_ctrl(a->state, state, sizeof state), run, a->last_seen_ms / 1000.0,
               (unsigned long long)a->unacked, a->clock_offset_us / 1000.0, a->rtt_us / 1000.0,
               lg_esc_ctrl(a->fio_version, fio, sizeof fio), lg_esc_ctrl(labels, lab, sizeof lab),
               lg_esc_ctrl(a->os, os, sizeof os), a->cpu_count, a->mem_bytes / 1073741824.0,
               lg_esc_ctrl(a->cpu_model, cpu, sizeof cpu));
    }
    lg_wire_free(e);
    return LGCTL_OK;
}

static int s_submit(const lgctl_opts_t *o, const char *path)
{
    lg_spec_t *spec = NULL;
    int rc = s_spec_load(path, &spec);
    if (rc)
        return rc;
    s_spec_warn(spec);
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_SUBMIT;
    q.spec_text = spec->text;
    q.spec_path = (char *)path;
    if (o->submit_id)
        q.submit_id = (char *)o->submit_id;
    Lg__Envelope *e = NULL;
    rc = s_ctl_request(o, &q, 30000, &e);
    if (rc != 0)
        s_submit_unanswered(path);
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
        lg_wire_free(e);
    }
    lg_spec_destroy(&spec);
    return rc;
}

/* ---- the command line: one table of options, one of commands and the options each takes ---- */

typedef enum {
    OPT_HELP,
    OPT_VERSION,
    OPT_QUIET,
    OPT_DATA_DIR,
    OPT_CONTROLLER,
    OPT_KEY,
    OPT_CONTROLLER_KEY,
    OPT_PLAINTEXT,
    OPT_ALLOW_DESTRUCTIVE,
    OPT_SMB_CREDENTIALS,
    OPT_ISCSI_CHAP,
    OPT_APP_USER,
    OPT_SUBMIT_ID,
    OPT_CAMPAIGN,
    OPT_ID,
    OPT_FORMAT,
    OPT_BY,
    OPT_BASELINE,
    OPT_METRIC,
    OPT_WHERE,
    OPT_SWEEP,
    OPT_IGNORE,
    OPT_THRESHOLD,
    OPT_LABELS,
    OPT_NAME,
    OPT_DIR,
    OPT_CHECK,
    OPT_TIMEOUT,
    OPT_N
} opt_id_t;

typedef struct {
    const char *name; /* without its leading "--" */
    const char *arg;  /* the name of its value; NULL: a flag */
    const char *help; /* what it does, where a command gives no text of its own */
} opt_def_t;

static const opt_def_t s_opts[OPT_N] = {
    [OPT_HELP] = {"help", NULL, "print this help and exit (also: lgctl help COMMAND)"},
    [OPT_VERSION] = {"version", NULL, "print the version and exit"},
    [OPT_QUIET] = {"quiet", NULL, "no progress lines: only errors and the report"},
    [OPT_DATA_DIR] = {"data-dir", "DIR",
                      "local mode's data (default $XDG_DATA_HOME/lg; as root without\n"
                      "XDG_DATA_HOME: /var/lib/lg-local); one that another user\n"
                      "owns or can write is refused"},
    [OPT_CONTROLLER] = {"controller", "EP",
                        "the controller's control endpoint (default\n"
                        "$LG_CONTROLLER)"},
    [OPT_KEY] = {"key", "FILE",
                 "our CURVE key pair (default $LG_KEY); its public key must be\n"
                 "in the controller's --control-keys"},
    [OPT_CONTROLLER_KEY] = {"controller-key", "KEY",
                            "the controller's public key, a .pub file or 40 Z85 characters\n"
                            "(default $LG_CONTROLLER_KEY)"},
    [OPT_PLAINTEXT] = {"plaintext", NULL, "no CURVE, for a --plaintext controller on loopback"},
    [OPT_ALLOW_DESTRUCTIVE] = {"allow-destructive", NULL,
                               "local mode: let the agent overwrite block: targets"},
    [OPT_SMB_CREDENTIALS] = {"smb-credentials", "FILE",
                             "local mode: the agent's SMB user and password (smbclient -A\n"
                             "format: username = ..., password = ...)"},
    [OPT_ISCSI_CHAP] = {"iscsi-chap", "FILE",
                        "local mode: the agent's CHAP user and password (same format)"},
    [OPT_APP_USER] = {"app-user", "USER",
                      "local mode: the account the database servers of app: profiles\n"
                      "run as (they refuse root; needed when lgctl runs as root)"},
    [OPT_SUBMIT_ID] = {"submit-id", "ID",
                       "the submission's id: submitting again with the same id returns the\n"
                       "same campaign (default: a random one, kept across lgctl's retries)"},
    [OPT_CAMPAIGN] = {"campaign", "NAME", "the newest campaign of this name"},
    [OPT_ID] = {"id", "N", "the campaign with this id"},
    [OPT_FORMAT] = {"format", "FMT", "table, csv, json or markdown (default table)"},
    [OPT_BY] = {"by", "DIMENSION",
                "a SUT label, or protocol, profile, direction, threads, qd,\n"
                "campaign"},
    [OPT_BASELINE] = {"baseline", "VALUE", "the value of --by the others are measured against"},
    [OPT_METRIC] = {"metric", "M,...",
                    "default iops; any of iops, mbps, lat_avg_ms, lat_min_ms, lat_max_ms,\n"
                    "lat_stddev_ms, p50_ms, p90_ms, p95_ms, p99_ms, p99_9_ms, p99_99_ms\n"
                    "(also lat_p99_ms, ...), iops_at_limit (a latency-bounded search's best\n"
                    "IOPS under its limit), tps and qps (application runs: transactions and\n"
                    "queries per second)"},
    [OPT_WHERE] = {"where", "k=v,...", "only results whose labels or dimensions have these values"},
    [OPT_SWEEP] = {"sweep", NULL,
                   "IOPS and latency per load point of swept profiles, a column\n"
                   "pair per configuration"},
    [OPT_IGNORE] = {"ignore", "LABEL,...",
                    "labels left out of what pairs two figures: for a --by dimension that\n"
                    "they change together with (compare says which)"},
    [OPT_THRESHOLD] = {"threshold", "PCT",
                       "differences under PCT percent show as ~ (same), like those\n"
                       "within the noise (default 0)"},
    [OPT_LABELS] = {"labels", "k=v,...", "the SUT labels of what was measured"},
    [OPT_NAME] = {"name", "NAME", "the campaign's name (1 to 63 characters)"},
    [OPT_DIR] = {"dir", "DIR", "where the key files go (default .; made, mode 0700, if missing)"},
    [OPT_CHECK] = {"check", NULL, "try what the command would use"},
    [OPT_TIMEOUT] = {"timeout", "S",
                     "give up on a database that does not answer a statement within S\n"
                     "seconds (default 10; connecting: its connect_timeout, default 10)"},
};

typedef struct {
    opt_id_t id;
    const char *help; /* NULL: the option's own */
} cmd_opt_t;

#define CMD_OPTS_END                                                                               \
    {                                                                                              \
        OPT_N, NULL                                                                                \
    }
/* talking to a controller: --controller, or the local one of a run in progress */
#define CMD_OPTS_CTL                                                                               \
    {OPT_CONTROLLER, NULL}, {OPT_KEY, NULL}, {OPT_CONTROLLER_KEY, NULL}, {OPT_PLAINTEXT, NULL},    \
    {                                                                                              \
        OPT_DATA_DIR, "the data folder of a local \"lgctl run\" in progress, when no\n"            \
                      "controller is given"                                                        \
    }
/* reading the database: $LG_DATABASE_URL or local mode's private cluster */
#define CMD_OPTS_DB                                                                                \
    {OPT_DATA_DIR, "local mode's data, whose database is read unless\n"                            \
                   "$LG_DATABASE_URL is set"},                                                     \
    {                                                                                              \
        OPT_TIMEOUT, NULL                                                                          \
    }

typedef struct {
    lgctl_opts_t o;
    const char *pos[256]; /* the arguments after the command's words */
    int npos;
    const char *val[OPT_N]; /* each option's value ("" for a flag), NULL: not given */
} cli_t;

typedef struct {
    const char *name; /* one or two words */
    const char *args;
    int min, max;      /* how many arguments after the words */
    const char *brief; /* one line for the list of commands */
    const char *summary;
    const cmd_opt_t *opts;
    int (*fn)(cli_t *c);
} cmd_t;

/* A spec read and checked, or an exit code after saying what is wrong and where. A spec file
 * that is not there is a usage error (2), as a broken one is. */
static void s_warn_cb(void *arg, const char *msg)
{
    (void)arg;
    lg_warn("%s", msg);
}

/* s_spec_warn: what in spec's plan would make its figures wrong without being an error
 * (lg_plan_unwritten_reads), each said as a warning, for run and submit (plan has its runs). */
static void s_spec_warn(const lg_spec_t *spec)
{
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    if (lg_spec_plan(spec, &runs, &n) == 0)
        lg_plan_unwritten_reads(spec, runs, n, s_warn_cb, NULL);
    free(runs);
}

static int s_spec_load(const char *path, lg_spec_t **spec)
{
    lg_spec_diag_t diag;
    int rc = lg_spec_parse_file(path, spec, &diag);
    if (rc == 0)
        return LGCTL_OK;
    char msg[2048];
    lg_spec_diag_format(&diag, msg, sizeof msg);
    lg_error("%s", msg);
    return rc == LG_ESPEC || rc == -ENOENT || rc == -ENOTDIR || rc == -EISDIR ? LGCTL_USAGE
                                                                              : LGCTL_FAIL;
}

/* No controller to ask (a local run that has ended): the campaign's state from the database. */
static int s_no_controller(const lgctl_opts_t *o)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/controller.endpoint", o->data_dir);
    return !o->controller && access(path, F_OK) != 0;
}

static int s_status_db_fn(PGconn *db, void *arg)
{
    char err[2048];
    if (lg_report_status(db, arg, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}
static int c_plan(cli_t *c)
{
    return s_plan(c->pos[0], c->o.format, c->val[OPT_CHECK] != NULL);
}
static int c_run(cli_t *c)
{
    return s_run(&c->o, c->pos[0]);
}
static int c_submit(cli_t *c)
{
    return s_submit(&c->o, c->pos[0]);
}
static int c_agents(cli_t *c)
{
    return s_agents(&c->o);
}
static int c_watch(cli_t *c)
{
    if (s_no_controller(&c->o)) /* it has ended: its final state, once */
        return s_with_db(&c->o, s_status_db_fn, (void *)c->pos[0]);
    return s_watch(&c->o, c->pos[0]);
}
static int c_migrate(cli_t *c)
{
    return s_with_db(&c->o, s_migrate_fn, NULL);
}

/* lgctl db url: where the database is, for scripts and psql; nothing is started. */
static int c_db_url(cli_t *c)
{
    if (c->o.database) {
        printf("%s\n", c->o.database);
        return LGCTL_OK;
    }
    lg_localpg_t pg;
    char err[1024];
    if (lg_localpg_paths(c->o.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db url: %s", err);
        return LGCTL_FAIL;
    }
    printf("%s\n", pg.url);
    if (!lg_localpg_running(&pg))
        lg_warn("db url: the database of %s is not running now (lgctl db start keeps it "
                "up until lgctl db stop)",
                c->o.data_dir);
    return LGCTL_OK;
}

/* lgctl db start: the local cluster up (made if new, migrated) until lgctl db stop. */
static int c_db_start(cli_t *c)
{
    if (c->o.database) {
        lg_error("db start: LG_DATABASE_URL is set: that database is not lgctl's to start");
        return LGCTL_USAGE;
    }
    lg_localpg_t pg;
    char err[4096];
    if (lg_localpg_open(c->o.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db start: %s", err);
        return LGCTL_FAIL;
    }
    PGconn *db = lg_db_connect(pg.conninfo, err, sizeof err);
    int applied = 0, rc = db ? lg_db_migrate(db, &applied, err, sizeof err) : LG_EDB;
    PQfinish(db);
    if (rc) {
        lg_error("db start: %s", err);
        lg_localpg_close(&pg);
        return LGCTL_FAIL;
    }
    lg_info("db start: the database of %s is %s until lgctl db stop", c->o.data_dir,
            pg.started ? "up" : "already up, and stays up");
    printf("%s\n", pg.url);
    return LGCTL_OK;
}

static int c_db_stop(cli_t *c)
{
    lg_localpg_t pg;
    char err[1024];
    if (c->o.database || lg_localpg_paths(c->o.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db stop: %s", c->o.database
                                    ? "LG_DATABASE_URL is set: that database is not lgctl's to stop"
                                    : err);
        return c->o.database ? LGCTL_USAGE : LGCTL_FAIL;
    }
    if (!lg_localpg_running(&pg)) {
        lg_warn("db stop: the database of %s is not running", c->o.data_dir);
        return LGCTL_OK;
    }
    char ep[1100];
    snprintf(ep, sizeof ep, "%s/controller.endpoint", c->o.data_dir);
    if (access(ep, F_OK) == 0) {
        lg_error("db stop: a local \"lgctl run\" is in progress on %s; it stops the database "
                 "itself when it ends",
                 c->o.data_dir);
        return LGCTL_FAIL;
    }
    lg_localpg_stop(&pg);
    return lg_localpg_running(&pg) ? LGCTL_FAIL : LGCTL_OK;
}

/* lgctl db shell [-- PSQL ARGS]: psql on the database, started for the while if it was down. */
static int c_db_shell(cli_t *c)
{
    lg_localpg_t pg;
    memset(&pg, 0, sizeof pg);
    char err[4096];
    const char *ci = c->o.database;
    if (!ci) {
        if (lg_localpg_open(c->o.data_dir, &pg, err, sizeof err) != 0) {
            lg_error("db shell: %s", err);
            return LGCTL_FAIL;
        }
        ci = pg.conninfo;
    }
    char psql[600] = "psql";
    if (pg.bindir[0]) {
        snprintf(psql, sizeof psql, "%s/psql", pg.bindir);
        if (access(psql, X_OK) != 0)
            lg_strlcpy(psql, "psql", sizeof psql);
    }
    const char *args[270];
    int n = 0;
    args[n++] = psql;
    args[n++] = ci;
    for (int i = 0; i < c->npos && n < 268; i++)
        args[n++] = c->pos[i];
    args[n] = NULL;
    /* psql has the terminal; Ctrl-C is its own (it cancels a query), not ours. */
    struct sigaction ign, old_int;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        signal(SIGINT, SIG_DFL);
        execvp(psql, (char *const *)args);
        lg_error("db shell: could not run %s: %s", psql, strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0)
        lg_error("db shell: fork: %s", strerror(errno));
    else
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    sigaction(SIGINT, &old_int, NULL);
    lg_localpg_close(&pg);
    if (pid < 0)
        return LGCTL_FAIL;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? LGCTL_OK : LGCTL_FAIL;
}

static int c_campaign(cli_t *c, const char *cmd)
{
    return s_campaign_cmd(&c->o, cmd, c->pos[0]);
}

static int c_status(cli_t *c)
{
    if (s_no_controller(&c->o))
        return s_with_db(&c->o, s_status_db_fn, (void *)c->pos[0]);
    return c_campaign(c, "status");
}
static int c_pause(cli_t *c)
{
    return c_campaign(c, "pause");
}
static int c_resume(cli_t *c)
{
    return c_campaign(c, "resume");
}
static int c_abort(cli_t *c)
{
    return c_campaign(c, "abort");
}

static int c_report(cli_t *c)
{
    uint64_t id = 0;
    if (c->val[OPT_ID] && lg_parse_u64(c->val[OPT_ID], 1, INT64_MAX, &id) != 0) {
        lg_error("report: --id: \"%s\" is not a campaign id", c->val[OPT_ID]);
        return LGCTL_USAGE;
    }
    return lgctl_report(&c->o, id, c->val[OPT_CAMPAIGN]);
}

static int c_keygen(cli_t *c)
{
    const char *keydir = c->val[OPT_DIR] ? c->val[OPT_DIR] : ".";
    char err[1024];
    /* a missing key folder is made, private (0700), with any missing parents */
    char dir[4096];
    lg_strlcpy(dir, keydir, sizeof dir);
    for (char *p = dir + 1;; p++) {
        int end = *p == 0;
        if (*p == '/' || end) {
            *p = 0;
            if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
                lg_error("keygen: could not create the folder \"%s\": %s", dir, strerror(errno));
                return LGCTL_FAIL;
            }
            if (end)
                break;
            *p = '/';
        }
    }
    if (lg_auth_keygen(keydir, c->pos[0], err, sizeof err) != 0) {
        lg_error("keygen: %s", err);
        return LGCTL_FAIL;
    }
    printf("%s/%s.key: the key pair (secret: keep it on this host, mode 0600)\n"
           "%s/%s.pub: the public key, for the other side's allow-list or --controller-key\n",
           keydir, c->pos[0], keydir, c->pos[0]);
    return LGCTL_OK;
}

static int c_import_fio(cli_t *c)
{
    return s_import(&c->o, c->pos, (size_t)c->npos, c->val[OPT_LABELS], c->val[OPT_NAME]);
}

static int c_import_results(cli_t *c)
{
    const char *name = c->val[OPT_NAME];
    if (name && (strlen(name) == 0 || strlen(name) > 63)) {
        lg_error("--name must have 1 to 63 characters");
        return LGCTL_USAGE;
    }
    import_results_args_t ia = {c->pos[0], name};
    return s_with_db(&c->o, s_import_results_fn, &ia);
}

static int c_compare_rank(cli_t *c, int rank)
{
    compare_args_t a;
    memset(&a, 0, sizeof a);
    a.mode = rank ? 2 : c->val[OPT_SWEEP] ? 1 : 0;
    a.c.dimension = c->val[OPT_BY];
    a.c.baseline = c->val[OPT_BASELINE];
    a.c.metrics = c->val[OPT_METRIC];
    a.c.where = c->val[OPT_WHERE];
    a.c.campaigns = c->val[OPT_CAMPAIGN];
    a.c.ignore = c->val[OPT_IGNORE];
    a.c.threshold = c->val[OPT_THRESHOLD];
    return s_compare(&c->o, &a, c->val[OPT_FORMAT]);
}
static int c_compare(cli_t *c)
{
    return c_compare_rank(c, 0);
}
static int c_rank(cli_t *c)
{
    return c_compare_rank(c, 1);
}

static int c_export_run(cli_t *c)
{
    return s_export(&c->o, c->pos[0], c->val[OPT_FORMAT] ? c->val[OPT_FORMAT] : "csv");
}

static int c_version(cli_t *c)
{
    (void)c;
    printf("lgctl %s\n", LG_VERSION);
    return LGCTL_OK;
}

static int c_help(cli_t *c);

static const cmd_opt_t s_o_none[] = {CMD_OPTS_END};
static const cmd_opt_t s_o_plan[] = {{OPT_FORMAT, NULL},
                                     {OPT_CHECK, "also try each telemetry source once: what\n"
                                                 "answers, or a warning naming the source"},
                                     CMD_OPTS_END};
static const cmd_opt_t s_o_run[] = {
    {OPT_QUIET, NULL},
    {OPT_FORMAT, "the report's format: table, csv, json or markdown (default table)"},
    {OPT_ALLOW_DESTRUCTIVE, NULL},
    {OPT_SMB_CREDENTIALS, NULL},
    {OPT_ISCSI_CHAP, NULL},
    {OPT_APP_USER, NULL},
    {OPT_DATA_DIR, NULL},
    {OPT_CONTROLLER, "run through this controller instead of on this machine (default\n"
                     "$LG_CONTROLLER; with LG_DATABASE_URL set, the report follows)"},
    {OPT_KEY, NULL},
    {OPT_CONTROLLER_KEY, NULL},
    {OPT_PLAINTEXT, NULL},
    CMD_OPTS_END};
static const cmd_opt_t s_o_submit[] = {{OPT_SUBMIT_ID, NULL}, CMD_OPTS_CTL, CMD_OPTS_END};
static const cmd_opt_t s_o_ctl[] = {CMD_OPTS_CTL, CMD_OPTS_END};
static const cmd_opt_t s_o_report[] = {
    {OPT_CAMPAIGN, "the newest campaign of this name (default: the newest of all)"},
    {OPT_ID, NULL},
    {OPT_FORMAT, NULL},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_db[] = {CMD_OPTS_DB, CMD_OPTS_END};
static const cmd_opt_t s_o_keygen[] = {{OPT_DIR, NULL}, CMD_OPTS_END};
static const cmd_opt_t s_o_import_fio[] = {
    {OPT_LABELS, "the SUT labels of what was measured, e.g. build=x,media=ssd"},
    {OPT_NAME, "the campaign's name (default: fio-import)"},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_import_results[] = {
    {OPT_NAME, "the campaign's name (default: the file's name)"}, CMD_OPTS_DB, CMD_OPTS_END};
static const cmd_opt_t s_o_compare[] = {
    {OPT_BY, NULL},
    {OPT_BASELINE, NULL},
    {OPT_METRIC, NULL},
    {OPT_WHERE, NULL},
    {OPT_CAMPAIGN, "only these campaigns (names, comma-separated)"},
    {OPT_IGNORE, NULL},
    {OPT_THRESHOLD, NULL},
    {OPT_SWEEP, NULL},
    {OPT_FORMAT, NULL},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_rank[] = {
    {OPT_METRIC, "the metric to order by (one of those of compare)"},
    {OPT_BY, "rank the values of this dimension (default: whole configurations)"},
    {OPT_WHERE, NULL},
    {OPT_CAMPAIGN, "only these campaigns (names, comma-separated)"},
    {OPT_THRESHOLD, "gaps to the leader under PCT percent show as ~ (same), like\n"
                    "those within the noise (default 0)"},
    {OPT_FORMAT, NULL},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_export[] = {
    {OPT_FORMAT, "csv or json (default csv)"}, CMD_OPTS_DB, CMD_OPTS_END};

static const cmd_t s_cmds[] = {
    {"plan", "SPEC.yaml", 1, 1, "check a spec, print its runs and longest duration",
     "check a spec and print its run matrix, run count and longest duration, without running\n"
     "anything",
     s_o_plan, c_plan},
    {"run", "SPEC.yaml", 1, 1, "run a campaign (local mode without a controller)",
     "run a campaign and print its report; with no controller configured, everything runs on\n"
     "this machine (local mode: a private PostgreSQL, controller and agent under --data-dir).\n"
     "Ctrl-C aborts the campaign and keeps what was measured",
     s_o_run, c_run},
    {"submit", "SPEC.yaml", 1, 1, "hand a campaign to the controller and return",
     "hand a campaign to the controller and return", s_o_submit, c_submit},
    {"status", "NAME", 1, 1, "state and progress of the newest campaign NAME",
     "state and progress of the newest campaign NAME", s_o_ctl, c_status},
    {"pause", "NAME", 1, 1, "no new run of NAME starts until resume",
     "no new run of NAME starts until resume", s_o_ctl, c_pause},
    {"resume", "NAME", 1, 1, "go on (also past a pause between SUT configs)",
     "go on (also past a pause between SUT configs)", s_o_ctl, c_resume},
    {"abort", "NAME", 1, 1, "stop the current run and end the campaign",
     "stop the current run and end the campaign", s_o_ctl, c_abort},
    {"agents", "", 0, 0, "the agents the controller knows",
     "the agents the controller knows: state, last heard, clock, host", s_o_ctl, c_agents},
    {"watch", "NAME", 1, 1, "live IOPS and latency per agent, progress, ETA",
     "live IOPS, MB/s and latency per agent, progress and ETA", s_o_ctl, c_watch},
    {"report", "", 0, 0, "the report of a campaign (default: the newest)",
     "print the report of a campaign (default: the newest); a run whose load host was\n"
     "saturated (its CPUs 95% busy or more over the measured window) says so in its note,\n"
     "and a warning after the table names the host and its runs: those figures are the\n"
     "load host's limit, not the NAS's",
     s_o_report, c_report},
    {"db url", "", 0, 0, "print the database's URL (nothing is started)",
     "print the database's URL: LG_DATABASE_URL, or the postgresql:// URL of local mode's\n"
     "private cluster under --data-dir (up while lgctl db start keeps it so)",
     s_o_db, c_db_url},
    {"db start", "", 0, 0, "keep the local database up until db stop",
     "start local mode's private cluster (made if new, migrated) and keep it up until lgctl db\n"
     "stop; prints its URL, e.g. for psql \"$(lgctl db url)\" or a report tool",
     s_o_db, c_db_start},
    {"db stop", "", 0, 0, "stop the local database", "stop local mode's private cluster", s_o_db,
     c_db_stop},
    {"db shell", "[-- PSQL-ARGS]", 0, 64, "psql on the database",
     "psql on the database (LG_DATABASE_URL, or local mode's cluster, started for the while\n"
     "when down); arguments after -- go to psql, e.g. lgctl db shell -- -c 'TABLE lg.v_result'",
     s_o_db, c_db_shell},
    {"db migrate", "", 0, 0, "apply pending schema migrations",
     "apply pending schema migrations (idempotent)", s_o_db, c_migrate},
    {"keygen", "NAME", 1, 1, "write a CURVE key pair",
     "write a CURVE key pair: DIR/NAME.key (secret, mode 0600) and DIR/NAME.pub (one\n"
     "allow-list line); never overwrites a key",
     s_o_keygen, c_keygen},
    {"import fio-json", "FILE...", 1, 256, "store bare fio runs' JSON as a campaign",
     "store results of bare fio runs (json or json+, also fio's client mode) as a campaign,\n"
     "one run per file",
     s_o_import_fio, c_import_fio},
    {"import results", "FILE.csv", 1, 1, "store published figures as a campaign",
     "store published or hand-collected figures (long form: profile,direction,metric,value,\n"
     "unit[,protocol,threads,qd] and a column per SUT label) as an imported campaign",
     s_o_import_results, c_import_results},
    {"compare", "", 0, 0, "one value against another, metric by metric",
     "one row per combination of the other dimensions, the metric for each value of --by and\n"
     "its change against the baseline; repeats are averaged (n), each mean with its 95% CI,\n"
     "and a change within the noise (~) is no change; a note names each side, config and\n"
     "load host that was saturated in a run behind its figures. With --sweep: IOPS and\n"
     "latency per load point",
     s_o_compare, c_compare},
    {"rank", "", 0, 0, "configurations ordered by a metric",
     "configurations ordered by a metric, with the gap to the leader (~ when within the noise)",
     s_o_rank, c_rank},
    {"export-run", "RUN", 1, 1, "one run's samples and results as CSV or JSON",
     "one run's interval samples and final results", s_o_export, c_export_run},
    {"version", "", 0, 0, "print the version", "print the version", s_o_none, c_version},
    {"help", "[COMMAND]", 0, 2, "this list, or a command's usage and options",
     "this list, or a command's usage and options", s_o_none, c_help},
};
#define NCMDS (sizeof s_cmds / sizeof s_cmds[0])

/* Print text indented by `indent` after its first line (which the caller has placed). */
static void s_print_wrapped(FILE *f, const char *text, int indent)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", indent, "");
    }
    fputc('\n', f);
}

static void s_cmd_synopsis(FILE *f, const cmd_t *k)
{
    fprintf(f, "lgctl %s%s%s [options]\n", k->name, k->args[0] ? " " : "", k->args);
}

static void s_cmd_help(FILE *f, const cmd_t *k)
{
    fputs("usage: ", f);
    s_cmd_synopsis(f, k);
    fputs("  ", f);
    s_print_wrapped(f, k->summary, 2);
    fputs("options:\n", f);
    for (const cmd_opt_t *co = k->opts;; co++) {
        opt_id_t id = co->id == OPT_N ? OPT_HELP : co->id;
        const opt_def_t *d = &s_opts[id];
        char lhs[64];
        snprintf(lhs, sizeof lhs, "--%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
        fprintf(f, "  %-24s ", lhs);
        s_print_wrapped(f, co->id == OPT_N || !co->help ? d->help : co->help, 27);
        if (co->id == OPT_N)
            break;
    }
}

static void s_usage(FILE *f)
{
    fputs("usage: lgctl COMMAND [ARGS] [options]\ncommands:\n", f);
    for (size_t i = 0; i < NCMDS; i++) {
        char lhs[64];
        snprintf(lhs, sizeof lhs, "%s%s%s", s_cmds[i].name, s_cmds[i].args[0] ? " " : "",
                 s_cmds[i].args);
        fprintf(f, "  %-24s %s\n", lhs, s_cmds[i].brief);
    }
    fputs("Each command's options: lgctl help COMMAND, or lgctl COMMAND --help. --version prints\n"
          "the version. Exit codes: 0 success, 1 failure (a campaign with failed runs, a query\n"
          "that matches nothing), 2 bad usage or a broken spec.\n"
          "environment: LG_DATABASE_URL uses that database instead of the private cluster;\n"
          "LG_CONTROLLER, LG_KEY and LG_CONTROLLER_KEY give --controller, --key and\n"
          "--controller-key; LG_HOOK is the between-configs hook of the local controller and\n"
          "LG_HOOK_TIMEOUT how many seconds it may run (default 3600).\n",
          f);
}

/* ---- the man page's COMMANDS and OPTIONS sections (scdoc), from the same tables ---- */

/* What the man page says about a command beyond its summary: the longer explanations --help
 * leaves out. */
static const struct {
    const char *cmd, *text;
} s_man_more[] = {
    {"compare",
     "A value is shown as its mean ± the half-width of its 95% confidence interval: from the n "
     "figures when n > 1, and for a single run from 10 batch means of its per-second samples "
     "(IOPS, MB/s and average latency of runs of 10 s or more). A difference whose 95% interval "
     "(Welch's t-test) includes zero, or that is under *--threshold*, is shown as *~*; one that "
     "cannot be tested (no interval on a side: an import, a short run, a percentile of one run) "
     "keeps better or worse, marked *\\**. CSV and JSON carry the intervals, the p-value and the "
     "change; Markdown the difference's interval and p-value. *--metric iops_at_limit* compares "
     "latency-bounded searches: the IOPS of the most load each found under its limit."},
    {"plan",
     "A latency-bounded search is listed with every probe it may take (its worst case); the "
     "probes it does not need are skipped when it runs. With repeats, the plan says what "
     "precision they buy."},
};

/* text with each newline a space (the tables wrap for --help; scdoc wraps itself) */
static void s_man_text(FILE *f, const char *text)
{
    for (const char *p = text; *p; p++)
        fputc(*p == '\n' ? ' ' : *p, f);
}

static void s_man_opt(FILE *f, const opt_def_t *d)
{
    fprintf(f, "*--%s*", d->name);
    if (d->arg)
        fprintf(f, " _%s_", d->arg);
}

static int s_opt_cmp(const void *a, const void *b)
{
    return strcmp(s_opts[*(const opt_id_t *)a].name, s_opts[*(const opt_id_t *)b].name);
}

/* "lgctl --man-sections": for the build only (CMakeLists.txt puts it into lgctl(1) in place of
 * the line @LGCTL_COMMANDS_AND_OPTIONS@), so --help and the man page have one source. */
static void s_print_man(FILE *f)
{
    fputs("# COMMANDS\n\n", f);
    for (size_t i = 0; i < NCMDS; i++) {
        const cmd_t *k = &s_cmds[i];
        fprintf(f, "*%s*", k->name);
        if (k->args[0])
            fprintf(f, " _%s_", k->args);
        fputs("\n\t", f);
        s_man_text(f, k->summary);
        fputc('\n', f);
        for (size_t m = 0; m < sizeof s_man_more / sizeof s_man_more[0]; m++)
            if (!strcmp(s_man_more[m].cmd, k->name))
                fprintf(f, "\n\t%s\n", s_man_more[m].text);
        int n = 0;
        for (const cmd_opt_t *co = k->opts; co->id != OPT_N; co++) {
            fputs(n++ ? ", " : "\n\tOptions: ", f);
            s_man_opt(f, &s_opts[co->id]);
        }
        fputs(n ? ".\n\n" : "\n", f);
    }
    fputs("# OPTIONS\n\n", f);
    opt_id_t ids[OPT_N];
    for (int i = 0; i < OPT_N; i++)
        ids[i] = (opt_id_t)i;
    qsort(ids, OPT_N, sizeof ids[0], s_opt_cmp);
    for (int i = 0; i < OPT_N; i++) {
        s_man_opt(f, &s_opts[ids[i]]);
        fputs("\n\t", f);
        s_man_text(f, s_opts[ids[i]].help);
        fputc('\n', f);
        /* where a command says it its own way: "compare: ...", once per text */
        for (size_t k = 0; k < NCMDS; k++)
            for (const cmd_opt_t *co = s_cmds[k].opts; co->id != OPT_N; co++) {
                if (co->id != ids[i] || !co->help)
                    continue;
                int seen = 0;
                for (size_t j = 0; j < k && !seen; j++)
                    for (const cmd_opt_t *c2 = s_cmds[j].opts; c2->id != OPT_N; c2++)
                        seen |= c2->id == ids[i] && c2->help && !strcmp(c2->help, co->help);
                if (seen)
                    continue;
                fprintf(f, "\n\t%s: ", s_cmds[k].name);
                s_man_text(f, co->help);
                fputc('\n', f);
            }
        fputc('\n', f);
    }
}

/* The command named by words[0..n), longest match first; *used: how many words it took. */
static const cmd_t *s_find_cmd(const char *const *words, int n, int *used)
{
    for (int want = 2; want >= 1; want--) {
        if (n < want)
            continue;
        char name[128];
        if (want == 2)
            snprintf(name, sizeof name, "%s %s", words[0], words[1]);
        else
            lg_strlcpy(name, words[0], sizeof name);
        for (size_t i = 0; i < NCMDS; i++)
            if (strcmp(s_cmds[i].name, name) == 0) {
                *used = want;
                return &s_cmds[i];
            }
    }
    return NULL;
}

static int c_help(cli_t *c)
{
    if (c->npos == 0) {
        s_usage(stdout);
        return LGCTL_OK;
    }
    int used = 0;
    const cmd_t *k = s_find_cmd(c->pos, c->npos, &used);
    if (!k || used != c->npos) {
        lg_error("help: no command \"%s%s%s\"", c->pos[0], c->npos > 1 ? " " : "",
                 c->npos > 1 ? c->pos[1] : "");
        s_usage(stderr);
        return LGCTL_USAGE;
    }
    s_cmd_help(stdout, k);
    return LGCTL_OK;
}

static int s_takes(const cmd_t *k, opt_id_t id)
{
    if (id == OPT_HELP || id == OPT_VERSION)
        return 1;
    for (const cmd_opt_t *co = k->opts; co->id != OPT_N; co++)
        if (co->id == id)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    lg_log_init("lgctl");
    cli_t c;
    memset(&c, 0, sizeof c);
    lgctl_opts_t *o = &c.o;
    char ddir[1024];
    lg_localpg_default_dir(ddir, sizeof ddir);
    o->data_dir = ddir;
    o->controller = getenv("LG_CONTROLLER");
    if (o->controller && !o->controller[0])
        o->controller = NULL;
    o->database = getenv("LG_DATABASE_URL");
    if (o->database && !o->database[0])
        o->database = NULL;
    o->key_file = getenv("LG_KEY");
    o->controller_key = getenv("LG_CONTROLLER_KEY");
    if (o->key_file && !o->key_file[0])
        o->key_file = NULL;
    if (o->controller_key && !o->controller_key[0])
        o->controller_key = NULL;

    if (argc == 2 && !strcmp(argv[1], "--man-sections")) { /* the build's, for lgctl(1) */
        s_print_man(stdout);
        return 0;
    }
    /* Options anywhere (before or after the command), as --opt VALUE or --opt=VALUE. */
    const char *words[260];
    int nwords = 0, rest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!rest && strcmp(a, "--") == 0) { /* the rest are arguments (db shell: psql's) */
            rest = 1;
            continue;
        }
        if (!rest && strcmp(a, "-h") == 0)
            a = "--help";
        if (rest || a[0] != '-' || a[1] != '-' || a[2] == 0) {
            if (nwords == (int)(sizeof words / sizeof words[0])) {
                lg_error("too many arguments");
                return LGCTL_USAGE;
            }
            words[nwords++] = a;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        opt_id_t id = OPT_N;
        for (int k = 0; k < OPT_N; k++)
            if (strlen(s_opts[k].name) == nl && strncmp(s_opts[k].name, a + 2, nl) == 0)
                id = (opt_id_t)k;
        if (id == OPT_N) {
            lg_error("unknown option \"%.*s\" (lgctl help lists the commands, lgctl help COMMAND "
                     "a command's options)",
                     (int)(nl + 2), a);
            return LGCTL_USAGE;
        }
        const char *v = "";
        if (s_opts[id].arg) {
            if (eq)
                v = eq + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else {
                lg_error("option --%s needs a value (%s)", s_opts[id].name, s_opts[id].arg);
                return LGCTL_USAGE;
            }
        } else if (eq) {
            lg_error("option --%s takes no value", s_opts[id].name);
            return LGCTL_USAGE;
        }
        c.val[id] = v;
    }

    int used = 0;
    const cmd_t *k = nwords ? s_find_cmd(words, nwords, &used) : NULL;
    if (!k) {
        if (c.val[OPT_VERSION] && !nwords)
            return c_version(&c);
        if (c.val[OPT_HELP] && !nwords) {
            s_usage(stdout);
            return LGCTL_OK;
        }
        if (nwords) {
            char names[1024];
            size_t no = 0;
            for (size_t i = 0; i < NCMDS && no < sizeof names; i++)
                no += (size_t)snprintf(names + no, sizeof names - no, "%s%s", i ? ", " : "",
                                      s_cmds[i].name);
            lg_error("unknown command \"%s\"; commands: %s", words[0], names);
            lg_log_hint("lgctl help COMMAND prints a command's usage and options");
        } else
            s_usage(stderr);
        return LGCTL_USAGE;
    }
    if (c.val[OPT_HELP]) {
        s_cmd_help(stdout, k);
        return LGCTL_OK;
    }
    if (c.val[OPT_VERSION])
        return c_version(&c);
    for (int id = 0; id < OPT_N; id++)
        if (c.val[id] && !s_takes(k, (opt_id_t)id)) {
            lg_error("%s: option --%s does not apply to %s", k->name, s_opts[id].name, k->name);
            s_cmd_help(stderr, k);
            return LGCTL_USAGE;
        }
    c.npos = nwords - used;
    for (int i = 0; i < c.npos; i++)
        c.pos[i] = words[used + i];
    if (c.npos < k->min || c.npos > k->max) {
        if (c.npos < k->min)
            lg_error("%s: needs %s", k->name, k->args);
        else
            lg_error("%s: unexpected argument \"%s\"", k->name, c.pos[k->max]);
        fputs("usage: ", stderr);
        s_cmd_synopsis(stderr, k);
        fprintf(stderr, "(lgctl help %s: its options)\n", k->name);
        return LGCTL_USAGE;
    }

    if (c.val[OPT_DATA_DIR])
        o->data_dir = c.val[OPT_DATA_DIR];
    if (c.val[OPT_CONTROLLER])
        o->controller = c.val[OPT_CONTROLLER];
    if (c.val[OPT_KEY])
        o->key_file = c.val[OPT_KEY];
    if (c.val[OPT_CONTROLLER_KEY])
        o->controller_key = c.val[OPT_CONTROLLER_KEY];
    o->plaintext = c.val[OPT_PLAINTEXT] != NULL;
    o->quiet = c.val[OPT_QUIET] != NULL;
    if (o->quiet) /* progress is info: only warnings and errors are left */
        lg_log_set_level(LG_LOG_WARN);
    o->allow_destructive = c.val[OPT_ALLOW_DESTRUCTIVE] != NULL;
    o->submit_id = c.val[OPT_SUBMIT_ID];
    o->smb_credentials = c.val[OPT_SMB_CREDENTIALS];
    o->app_user = c.val[OPT_APP_USER];
    o->iscsi_chap = c.val[OPT_ISCSI_CHAP];
    /* export-run's formats are its own (csv, json); everywhere else the four of tables */
    if (c.val[OPT_FORMAT] && k->fn != c_export_run &&
        lg_format_parse(c.val[OPT_FORMAT], &o->format) != 0) {
        lg_error("%s: --format must be table, csv, json or markdown, got \"%s\"", k->name,
                 c.val[OPT_FORMAT]);
        return LGCTL_USAGE;
    }
    if (o->data_dir[0] != '/') {
        lg_error("--data-dir must be an absolute path");
        return LGCTL_USAGE;
    }
    /* The database: named as lgctl, every statement to a deadline, Ctrl-C ends any wait */
    lg_db_set_app("lgctl");
    lg_db_set_deadline_ms(10000);
    if (c.val[OPT_TIMEOUT]) {
        uint64_t t;
        if (lg_parse_u64(c.val[OPT_TIMEOUT], 1, 86400, &t) != 0) {
            lg_error("--timeout must be a number of seconds from 1 to 86400, got \"%s\"",
                     c.val[OPT_TIMEOUT]);
            return LGCTL_USAGE;
        }
        lg_db_set_deadline_ms((uint32_t)t * 1000);
    }
    lg_db_set_interrupt(&lgctl_interrupted);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return k->fn(&c);
}

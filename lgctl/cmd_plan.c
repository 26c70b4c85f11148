/* cmd_plan.c: lgctl plan: a spec checked and its run matrix printed, nothing run; and the
 * spec loading, warnings and telemetry check that run and submit share with it. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ctl.h"
#include "lg_app.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_noise.h"
#include "lg_scrape.h"
#include "lg_util.h"
#include "lg_wire.h"

static void s_warn_cb(void *arg, const char *msg)
{
    (void)arg;
    lg_warn("%s", msg);
}

void lg__cli_spec_warn(const lg_spec_t *spec)
{
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    if (lg_spec_plan(spec, &runs, &n) == 0)
        lg_plan_unwritten_reads(spec, runs, n, s_warn_cb, NULL);
    free(runs);
}

int lg__cli_spec_load(const char *path, lg_spec_t **spec)
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

/* Try each telemetry source of the spec once (each distinct name and URL, whichever config
 * names it): what answers and how much it gives, or a warning naming the source and why. Returns
 * how many did not answer. */
const char *lg__cli_operator_path(const lgctl_opts_t *o, char *buf, size_t len)
{
    if (o->operator_file)
        return o->operator_file;
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    buf[0] = 0;
    if (geteuid() == 0)
        snprintf(buf, len, "/etc/lg/operator.yaml");
    else if (xdg && xdg[0] == '/')
        snprintf(buf, len, "%s/lg/operator.yaml", xdg);
    else if (home && home[0] == '/')
        snprintf(buf, len, "%s/.config/lg/operator.yaml", home);
    return buf[0] && access(buf, F_OK) == 0 ? buf : NULL;
}

lg_operator_t *lg__cli_operator(const lgctl_opts_t *o)
{
    char def[1100], err[1200];
    const char *path = lg__cli_operator_path(o, def, sizeof def);
    lg_operator_t *op = NULL;
    if (!path)
        return lg_operator_empty();
    if (lg_operator_load(path, &op, err, sizeof err) != 0) {
        lg_error("the operator's file: %s", err);
        return NULL;
    }
    return op;
}

size_t lg__cli_telemetry_check(const lg_spec_t *spec, int print, const lg_operator_t *op)
{
    const lg_telemetry_t *seen[LG_MAX_TELEMETRY * 8];
    size_t nseen = 0, bad = 0;
    for (size_t k = 0; k <= spec->nconfigs; k++) {
        size_t n = 0;
        const lg_telemetry_t *t =
            k < spec->nconfigs ? lg_spec_telemetry(spec, k, &n) : spec->telemetry;
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
            char err[800];
            /* the credential's token and CA only, and only to its own origin */
            lg_telemetry_t one = t[i];
            const lg_op_cred_t *cr = NULL;
            one.token_file = one.ca_file = NULL;
            if (one.credential[0] &&
                lg_operator_cred_for(op, one.credential, one.url, &cr, err, sizeof err) != 0) {
                bad++;
                lg_warn("telemetry source \"%s\" (%s): %s", t[i].name, t[i].url, err);
                continue;
            }
            if (cr) {
                one.token_file = cr->token_file;
                one.ca_file = cr->ca_file;
            }
            if (lg_scrape_once(&one, &keys, &bytes, err, sizeof err) != 0) {
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

static const char *const s_between[] = {"pause for lgctl resume", "run the controller's hook",
                                        "go straight on"};

/* A run's load as the plan shows it: "16T16Q", "16T?Q" for a probe the probes before it set,
 * "knee@50%" for a curve point, "8 clients" for an application. */
static void s_load_text(const lg_run_plan_t *r, const lg_search_t *se, const lg_appwl_t *app,
                        char *loadtxt, size_t len)
{
    int probe = r->phase == LG_PHASE_SEARCH;
    if (app->kind && r->phase != LG_PHASE_FILL)
        snprintf(loadtxt, len, "%u %s", r->threads,
                 app->kind == LG_APP_PGBENCH ? "clients" : "threads");
    else if (probe && r->probe > 1 && se->vary == LG_VARY_QD) /* set by the probes before it */
        snprintf(loadtxt, len, "%uT?Q", r->threads);
    else if (probe && r->probe > 1 && se->vary == LG_VARY_THREADS)
        snprintf(loadtxt, len, "?T%uQ", r->qd);
    else if (probe && r->probe > 1)
        snprintf(loadtxt, len, "%uT%uQ@?", r->threads, r->qd);
    else if (r->curve_pct && r->search && se->vary != LG_VARY_RATE)
        snprintf(loadtxt, len, "knee@%u%%", r->curve_pct);
    else if (r->curve_pct)
        snprintf(loadtxt, len, "%uT%uQ@%u%%", r->threads, r->qd, r->curve_pct);
    else if (r->rate)
        snprintf(loadtxt, len, "%uT%uQ@%u", r->threads, r->qd, r->rate);
    else
        snprintf(loadtxt, len, "%uT%uQ", r->threads, r->qd);
}

/* A run's note: the gate before it, then what kind of run it is (a probe, a curve point, at most
 * so long, an application's private server). */
static void s_note_text(const lg_spec_t *spec, const lg_run_plan_t *r, const lg_search_t *se,
                        const lg_appwl_t *app, char *note, size_t len)
{
    int meas = r->phase == LG_PHASE_MEASURE, probe = r->phase == LG_PHASE_SEARCH;
    note[0] = 0;
    /* a pause's gate before the first config only runs the read-back check, if any: the NAS
     * was set up for it before the campaign was submitted */
    if (r->gate && spec->between == LG_BETWEEN_PAUSE && r->config == 0)
        snprintf(note, len, "gate before it: the controller's --readback check, no pause");
    else if (r->gate)
        snprintf(note, len, "gate before it: %s", s_between[spec->between]);
    if (probe)
        snprintf(note + strlen(note), len - strlen(note),
                 "%ssearch probe %u of at most %u (%u loads, up to %u trials each): "
                 "%s <= %g ms by %s",
                 note[0] ? "; " : "", r->probe, lg_search_probes_max(se), se->steps,
                 1 + se->confirm, lg_smetric_name(se->metric), se->limit_ms,
                 lg_vary_name(se->vary));
    else if (r->curve_pct)
        snprintf(note + strlen(note), len - strlen(note), "%scurve: %u%% of %s",
                 note[0] ? "; " : "", r->curve_pct,
                 r->search ? "the search's best" : "its first load point's IOPS");
    else if (!meas)
        snprintf(note + strlen(note), len - strlen(note), "%sat most %u s", note[0] ? "; " : "",
                 r->ramp_s + r->runtime_s);
    else if (app->kind == LG_APP_PGBENCH && r->phase != LG_PHASE_FILL)
        snprintf(note + strlen(note), len - strlen(note),
                 "%spgbench on a private PostgreSQL; loads scale %u (%llu rows) first%s",
                 note[0] ? "; " : "", app->scale, (unsigned long long)app->scale * 100000,
                 app->keep ? "; keeps its data" : "");
    else if (app->kind && r->phase != LG_PHASE_FILL)
        snprintf(note + strlen(note), len - strlen(note),
                 "%ssysbench oltp_read_write on a private MariaDB; loads %u tables x %llu "
                 "rows first%s",
                 note[0] ? "; " : "", app->tables, (unsigned long long)app->table_size,
                 app->keep ? "; keeps its data" : "");
}

/* Run i of the plan as a JSON row. */
static json_t *s_json_row(size_t i, const lg_run_plan_t *r, const lg_sutconfig_t *cfg,
                          const char *labels)
{
    return json_pack(
        "{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b, s:b,"
        " s:I, s:I, s:I}",
        "run", (json_int_t)(i + 1), "config", (json_int_t)r->config + 1, "sut", labels, "protocol",
        cfg->targets[r->target].protocol, "phase", lg_phase_name(r->phase), "profile", r->profile,
        "direction", r->direction, "threads", (json_int_t)r->threads, "qd", (json_int_t)r->qd,
        "repeat", (json_int_t)r->repeat, "seconds", (json_int_t)(r->ramp_s + r->runtime_s),
        "at_most", r->phase != LG_PHASE_MEASURE, "gate_before", r->gate != 0, "rate",
        (json_int_t)r->rate, "probe", (json_int_t)r->probe, "curve_pct", (json_int_t)r->curve_pct);
}

/* How many runs of each kind, for the summary line. */
typedef struct {
    size_t measured, precond, probes;
    uint64_t probe_s;
} plan_counts_t;

/* The run matrix: a table row (and a JSON row when rows is not NULL) per run; counts them. */
static void s_plan_rows(const lg_spec_t *spec, const lg_run_plan_t *runs, size_t n, lg_tbl_t *t,
                        json_t *rows, plan_counts_t *cnt)
{
    for (size_t i = 0; i < n; i++) {
        const lg_run_plan_t *r = &runs[i];
        const lg_sutconfig_t *cfg = &spec->configs[r->config];
        char labels[512], note[160];
        s_labels_text(cfg, labels, sizeof labels);
        const lg_search_t *se = &spec->profiles[r->profile_index].search;
        const lg_appwl_t *app = &spec->profiles[r->profile_index].app;
        char loadtxt[48];
        s_load_text(r, se, app, loadtxt, sizeof loadtxt);
        s_note_text(spec, r, se, app, note, sizeof note);
        lg_tbl_add(t, 0, "%zu", i + 1);
        lg_tbl_add(t, 0, "%u", r->config + 1);
        lg_tbl_add(t, 0, "%s", labels);
        lg_tbl_add(t, 0, "%s", cfg->targets[r->target].protocol);
        lg_tbl_add(t, 0, "%s", lg_phase_name(r->phase));
        lg_tbl_add(t, 0, "%s", r->profile);
        lg_tbl_add(t, 0, "%s", r->direction);
        lg_tbl_add(t, 0, "%s", loadtxt);
        lg_tbl_add(t, 0, "%u", r->repeat);
        lg_tbl_add(t, 0, "%u", r->ramp_s + r->runtime_s);
        lg_tbl_add(t, 0, "%s", note);
        if (rows)
            json_array_append_new(rows, s_json_row(i, r, cfg, labels));
        if (r->phase == LG_PHASE_SEARCH) {
            cnt->probes++;
            cnt->probe_s += r->ramp_s + r->runtime_s;
        } else if (r->phase == LG_PHASE_MEASURE)
            cnt->measured++;
        else
            cnt->precond++;
    }
}

/* After the table (text formats): what the repeats buy, then the run count and the longest
 * duration. */
static void s_plan_summary(const lg_spec_t *spec, const lg_run_plan_t *runs, size_t n, int md,
                           const plan_counts_t *cnt)
{
    if (cnt->measured) {
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
    printf("%s%zu runs (%zu measured, %zu preconditioning%s); at most %lluh%02llum%02llus of "
           "I/O\n",
           md ? "\n" : "", n, cnt->measured, cnt->precond,
           cnt->probes ? s_probes_text(cnt->probes, cnt->probe_s) : "",
           (unsigned long long)(secs / 3600), (unsigned long long)(secs / 60 % 60),
           (unsigned long long)(secs % 60));
}

/* lgsmb opens a TCP connection and an SMB session per outstanding I/O (iodepth worker processes
 * per job: threads x qd per agent), where a kernel or Windows client multiplexes every request
 * over one connection. Past this many sessions at once a NAS tends to refuse or stall logins
 * (smbd forks a process per session; 512 failed here, 128 stalled one agent, while they logged
 * on all at once; lgsmb now paces them and tries refused ones again, and 512 take seconds). */
#define S_SMB_SESSIONS_WARN 64

/* How many SMB sessions the spec's smb:// runs open at once: said, and warned past
 * S_SMB_SESSIONS_WARN, with the way to a client's multiplexing. */
static void s_smb_sessions(const lg_spec_t *spec, const lg_run_plan_t *runs, size_t n, int md)
{
    uint32_t per_agent = 0, total = 0, th = 0, qd = 0;
    for (size_t i = 0; i < n; i++) {
        const lg_target_t *t = &spec->configs[runs[i].config].targets[runs[i].target];
        if (t->kind != LG_TARGET_SMB)
            continue;
        lg_agents_t a = lg_spec_agents(spec, t);
        uint32_t s = 0, most = 0;
        for (size_t k = 0; k < (a.nsel ? a.nsel : 1); k++) {
            const lg_agentsel_t *sel = a.nsel ? &a.sel[k] : NULL;
            uint32_t j = sel && sel->threads ? sel->threads : runs[i].threads;
            uint32_t q = sel && sel->qd ? sel->qd : runs[i].qd;
            s += j * q;
            most = j * q > most ? j * q : most;
        }
        if (s > total || (s == total && most > per_agent)) {
            total = s;
            per_agent = most;
            th = runs[i].threads;
            qd = runs[i].qd;
        }
    }
    if (!total)
        return;
    printf("%sSMB sessions: lgsmb opens one per outstanding I/O, up to %u per agent at once "
           "(%uT%uQ) and %u over the agents the spec names\n",
           md ? "\n" : "", per_agent, th, qd, total);
    if (total > S_SMB_SESSIONS_WARN)
        lg_warn("%u SMB sessions at once are more than a NAS is likely to take (it logs each in "
                "and serves it apart; a Windows or kernel client multiplexes its I/O over one "
                "connection): expect slow logins (lgsmb paces them and tries refused ones again "
                "for smb_connect_timeout, 45 s), or mount the share on the load hosts and give "
                "the target's path with mount: (docs/design.md, Targets)",
                total);
}

/* --check with a controller: every target logged in to from every agent its runs would pick
 * (the controller asks them: check.c, agent_check.c). Each answer said; the refused ones
 * counted. */
static size_t s_target_check(const lgctl_opts_t *o, const char *path, int print)
{
    if (!o->controller) {
        if (print)
            printf("targets not checked: give --controller (or LG_CONTROLLER) to have each "
                   "agent log in to its targets\n");
        return 0;
    }
    char *text = NULL;
    if (lg_read_file(path, 1 << 20, &text, NULL) != 0) {
        lg_error("could not read \"%s\" to send it for the check", path);
        return 1;
    }
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_CHECK;
    q.spec_text = text;
    q.spec_path = (char *)path;
    Lg__Envelope *e = NULL;
    int rc = lgctl_ctl_request(o, &q, 60000, &e);
    free(text);
    if (rc)
        return 1;
    const Lg__CtlReply *r = e->ctl_reply;
    size_t bad = 0;
    if (r->n_checks == 0 && r->code) {
        lg_error("the controller could not check the targets: %s",
                 r->message && r->message[0] ? r->message : lg_strerror(r->code));
        bad++;
    }
    for (size_t i = 0; i < r->n_checks; i++) {
        const Lg__CheckItem *x = r->checks[i];
        char t[1200], a[160], m[1600];
        lg_esc_text(x->target, 0, t, sizeof t);
        lg_esc_text(x->agent, 0, a, sizeof a);
        lg_esc_text(x->message, 0, m, sizeof m);
        if (x->code) {
            bad++;
            printf("REFUSED: target \"%s\"%s%s%s: %s\n", t, a[0] ? " from agent \"" : "", a,
                   a[0] ? "\"" : "", m);
        } else if (print) {
            printf("target \"%s\" from agent \"%s\": %s\n", t, a, m);
        }
    }
    lg_wire_envelope_destroy(&e);
    return bad;
}

static int s_plan(const lgctl_opts_t *o, const char *path, lg_format_t fmt, int check)
{
    lg_spec_t *spec = NULL;
    int rc = lg__cli_spec_load(path, &spec);
    if (rc)
        return rc;
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    if (lg_spec_plan(spec, &runs, &n) != 0) {
        lg_spec_destroy(&spec);
        return LGCTL_FAIL;
    }
    lg_plan_unwritten_reads(spec, runs, n, s_warn_cb, NULL);
    int md = fmt == LG_FMT_MARKDOWN, text = fmt == LG_FMT_TABLE || md;
    char name[1024]; /* a spec's name holds no control character, but may hold markup */
    if (text)
        printf("%scampaign \"%s\"%s: %zu SUT config%s; between configs: %s\n%s", md ? "**" : "",
               lg_esc_text(spec->name, md, name, sizeof name), md ? "**" : "", spec->nconfigs,
               spec->nconfigs == 1 ? "" : "s", s_between[spec->between], md ? "\n" : "");
    lg_tbl_t t = {.ncols = 11, .last_left = 1};
    static const char *const head[] = {"run",    "config",  "SUT config", "protocol",
                                       "phase",  "profile", "dir",        "load",
                                       "repeat", "seconds", "note"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    json_t *rows = fmt == LG_FMT_JSON ? json_array() : NULL;
    plan_counts_t cnt = {0, 0, 0, 0};
    s_plan_rows(spec, runs, n, &t, rows, &cnt);
    if (rows) {
        json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
        fputc('\n', stdout);
        json_decref(rows);
    } else
        lg_tbl_print(&t, fmt, 0, 9, stdout);
    lg_tbl_clear(&t);
    if (text) {
        s_plan_summary(spec, runs, n, md, &cnt);
        s_smb_sessions(spec, runs, n, md);
    }
    free(runs);
    lg_operator_t *op = check ? lg__cli_operator(o) : NULL;
    if (check && !op) {
        lg_spec_destroy(&spec);
        return LGCTL_USAGE;
    }
    size_t bad = check ? lg__cli_telemetry_check(spec, text, op) : 0;
    if (check)
        bad += s_target_check(o, path, text);
    lg_operator_destroy(&op);
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

int lg__cli_plan(void *ctx)
{
    cli_t *c = ctx;
    return s_plan(&c->o, c->pos[0], c->o.format, c->check);
}

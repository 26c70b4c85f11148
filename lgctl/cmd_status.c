/* cmd_status.c: lgctl status, watch and agents: what a controller says of its campaign and its
 * agents, or, with no controller left to ask, the campaign's final state from the database. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ctl.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "report.h"

/* No controller to ask (a local run that has ended): the campaign's state from the database. */
static int s_no_controller(const lgctl_opts_t *o)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/controller.endpoint", o->db.data_dir);
    return !o->controller && access(path, F_OK) != 0;
}

static int s_status_db_fn(PGconn *db, void *arg)
{
    char err[2048];
    if (lg_report_status(db, arg, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return lg__cli_failed_points(db, 0, arg);
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
        if (lgctl_ctl_request(o, &q, 10000, &e) != 0)
            return LGCTL_FAIL;
        const Lg__CtlReply *p = e->ctl_reply;
        if (p->code) {
            lg_error("%s", p->message);
            lg_wire_envelope_destroy(&e);
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
        /* a fill of no known speed yet is left out, and said */
        uint64_t left =
            p->remaining_s + (p->run_length_unknown || p->run_total_s <= p->run_elapsed_s
                                  ? 0
                                  : p->run_total_s - p->run_elapsed_s);
        const char *more =
            p->fills_unknown || p->run_length_unknown ? " + a fill of unknown speed" : "";
        char rbar[41], cbar[41], phase[96] = "";
        lgctl_bar(rbar, 30, run_frac);
        int ramping = p->run_total_s && p->run_elapsed_s < p->run_ramp_s;
        if (ramping) /* fio reports nothing kept during the ramp: say so rather than 0 IOPS */
            snprintf(phase, sizeof phase, "ramping up: %u of %u s, figures start after it",
                     p->run_elapsed_s, p->run_ramp_s);
        lgctl_bar(cbar, 30, p->runs_total ? (double)done / p->runs_total : 0);
        int finished = !strcmp(p->state, "done") || !strcmp(p->state, "failed") ||
                       !strcmp(p->state, "aborted");
        char cname[1024], state[256], text[4096], who_shown[256]; /* escaped: see s_agents */
        lg_esc_ctrl(p->state, state, sizeof state);
        uint32_t pfailed = p->points_failed; /* measured points without figures */
        if (pfailed)
            snprintf(state + strlen(state), sizeof state - strlen(state), " with %u failed",
                     pfailed);
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
            printf("campaign [%s] %u/%u runs   ETA %lluh%02llum%02llus%s\n", cbar, done,
                   p->runs_total, (unsigned long long)(left / 3600),
                   (unsigned long long)(left / 60 % 60), (unsigned long long)(left % 60), more);
        } else {
            if (ramping)
                printf("%s run %u/%u [%s] %u/%us ramping up (%u s) agents %zu ETA %llus%s\n", state,
                       done, p->runs_total, rbar, p->run_elapsed_s, p->run_total_s, p->run_ramp_s,
                       p->n_live, (unsigned long long)left, more);
            else if (p->n_live == 0) /* between runs: nothing measures, no figures to give */
                printf("%s run %u/%u [%s] %u/%us no run measuring ETA %llus%s\n", state, done,
                       p->runs_total, rbar, p->run_elapsed_s, p->run_total_s,
                       (unsigned long long)left, more);
            else if (tps)
                printf("%s run %u/%u [%s] %u/%us TPS %.1f lat %.3f ms agents %zu ETA %llus%s\n",
                       state, done, p->runs_total, rbar, p->run_elapsed_s, p->run_total_s, tiops,
                       tlat, p->n_live, (unsigned long long)left, more);
            else
                printf("%s run %u/%u [%s] %u/%us IOPS %.1f MB/s %.2f lat %.3f ms agents %zu ETA "
                       "%llus%s\n",
                       state, done, p->runs_total, rbar, p->run_elapsed_s, p->run_total_s, tiops,
                       tmbps, tlat, p->n_live, (unsigned long long)left, more);
        }
        fflush(stdout);
        lg_wire_envelope_destroy(&e);
        if (finished)
            return pfailed ? LGCTL_FAIL : LGCTL_OK;
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}

/* A JSON string of what an agent said of itself: as it is when it is UTF-8, else with every byte
 * above 0x7f as '?' (jansson takes only UTF-8, and a reader of JSON expects it). */
static json_t *s_jstr(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    char buf[2048];
    lg_strlcpy(buf, s, sizeof buf);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c > 0x7f)
            *c = '?';
    return json_string(buf);
}

/* One agent as a JSON object; its labels ("k=v" lines) as an object. */
static json_t *s_agent_json(const Lg__AgentInfo *a)
{
    json_t *labels = json_object();
    char lab[1024];
    lg_strlcpy(lab, a->labels ? a->labels : "", sizeof lab);
    for (char *save = NULL, *kv = strtok_r(lab, "\n", &save); kv;
         kv = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = 0;
            for (char *c = kv; *c; c++) /* a key is a-z 0-9 _ - (the agent's --label) */
                if ((unsigned char)*c > 0x7f)
                    *c = '?';
            json_object_set_new(labels, kv, s_jstr(eq + 1));
        }
    }
    json_t *o = json_object();
    json_object_set_new(o, "name", s_jstr(a->name));
    json_object_set_new(o, "id", json_integer((json_int_t)a->agent_id));
    json_object_set_new(o, "state", s_jstr(a->state));
    json_object_set_new(o, "run_id", a->run_id ? json_integer((json_int_t)a->run_id) : json_null());
    json_object_set_new(o, "heard_s", json_real(a->last_seen_ms / 1000.0));
    json_object_set_new(o, "unacked", json_integer((json_int_t)a->unacked));
    json_object_set_new(o, "clock_offset_ms", json_real(a->clock_offset_us / 1000.0));
    json_object_set_new(o, "rtt_ms", json_real(a->rtt_us / 1000.0));
    json_object_set_new(o, "fio_version", s_jstr(a->fio_version));
    json_object_set_new(o, "labels", labels);
    json_object_set_new(o, "os", s_jstr(a->os));
    json_object_set_new(o, "cpus", json_integer(a->cpu_count));
    json_object_set_new(o, "mem_bytes", json_integer((json_int_t)a->mem_bytes));
    json_object_set_new(o, "cpu_model", s_jstr(a->cpu_model));
    return o;
}

static int s_agents(const lgctl_opts_t *o)
{
    if (o->format != LG_FMT_TABLE && o->format != LG_FMT_JSON) {
        lg_error("agents: --format must be table or json");
        return LGCTL_USAGE;
    }
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_AGENTS;
    Lg__Envelope *e = NULL;
    if (lgctl_ctl_request(o, &q, 10000, &e) != 0)
        return LGCTL_FAIL;
    const Lg__CtlReply *p = e->ctl_reply;
    if (o->format == LG_FMT_JSON) {
        json_t *all = json_array();
        for (size_t i = 0; i < p->n_agent_list; i++)
            json_array_append_new(all, s_agent_json(p->agent_list[i]));
        json_dumpf(all, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
        fputc('\n', stdout);
        json_decref(all);
        lg_wire_envelope_destroy(&e);
        return LGCTL_OK;
    }
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
    lg_wire_envelope_destroy(&e);
    return LGCTL_OK;
}

int lg__cli_agents(void *ctx)
{
    cli_t *c = ctx;
    return s_agents(&c->o);
}

int lg__cli_watch(void *ctx)
{
    cli_t *c = ctx;
    if (s_no_controller(&c->o)) /* it has ended: its final state, once */
        return lg__cli_with_db(&c->o, s_status_db_fn, (void *)c->pos[0]);
    return s_watch(&c->o, c->pos[0]);
}

int lg__cli_status(void *ctx)
{
    cli_t *c = ctx;
    if (s_no_controller(&c->o))
        return lg__cli_with_db(&c->o, s_status_db_fn, (void *)c->pos[0]);
    return lg__cli_campaign_request(&c->o, "status", c->pos[0]);
}

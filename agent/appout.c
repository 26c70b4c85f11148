/* appout.c: an application tool's output, kept, cut into lines and read into samples. See
 * appout.h. */
#include "appout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lg_log.h"

void lg_appout_init(lg_appout_t *o, lg_app_kind_t kind, const char *tool_name, uint64_t run_id,
                    lg_appout_sample_fn on_sample, void *arg)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->tool_name = tool_name;
    o->run_id = run_id;
    o->cap = LG_APPOUT_CAP;
    o->on_sample = on_sample;
    o->arg = arg;
}

static void s_line(lg_appout_t *o, const char *line)
{
    lg_app_sample_t s;
    char err[256];
    int rc = lg_app_parse_line(o->kind, line, &s, err, sizeof err);
    if (rc < 0) {
        lg_warn("%s run %llu: skipped a malformed report (%s): %.200s", o->tool_name,
                (unsigned long long)o->run_id, err, line);
        return;
    }
    if (rc != 1)
        return;
    /* pgbench counts from its start, --progress-timestamp and sysbench give Unix time */
    int64_t start_ms = o->start_us / 1000;
    int64_t t_ms =
        s.t_epoch ? (int64_t)llround(s.t_s * 1000.0) : start_ms + (int64_t)llround(s.t_s * 1000.0);
    double prev = o->has_prev ? o->prev_t_s : (s.t_epoch ? (double)start_ms / 1000.0 : 0.0);
    double iv = (s.t_s - prev) * 1000.0;
    o->prev_t_s = s.t_s;
    o->has_prev = 1;
    o->seq++;
    if (o->on_sample)
        o->on_sample(o->arg, o->seq, t_ms, iv > 0 ? (uint64_t)llround(iv) : 0, &s);
}

/* s_keep: append up to what the cap leaves of data to out. */
static void s_keep(lg_appout_t *o, const char *data, size_t len)
{
    size_t room = o->out_len < o->cap ? o->cap - o->out_len : 0;
    size_t take = len < room ? len : room;
    if (take < len)
        o->out_cut = 1;
    if (take && o->out_len + take + 1 > o->out_cap) {
        size_t cap = o->out_cap ? o->out_cap : 65536;
        while (cap < o->out_len + take + 1)
            cap *= 2;
        char *n = realloc(o->out, cap);
        if (!n) {
            o->out_cut = 1;
            return;
        }
        o->out = n;
        o->out_cap = cap;
    }
    if (take) {
        memcpy(o->out + o->out_len, data, take);
        o->out_len += take;
        o->out[o->out_len] = 0;
    }
}

void lg_appout_feed(lg_appout_t *o, const char *data, size_t len)
{
    s_keep(o, data, len);
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n' || data[i] == '\r') {
            o->line[o->line_len] = 0;
            if (o->line_len)
                s_line(o, o->line);
            o->line_len = 0;
        } else if (o->line_len < LG_APPOUT_LINE_CAP - 1) {
            o->line[o->line_len++] = data[i];
        }
    }
}

void lg_appout_finish(lg_appout_t *o)
{
    if (o->line_len) {
        o->line[o->line_len] = 0;
        s_line(o, o->line);
        o->line_len = 0;
    }
}

void lg_appout_clear(lg_appout_t *o)
{
    free(o->out);
    memset(o, 0, sizeof *o);
}

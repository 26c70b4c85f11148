/* sched_telem.c: the scheduler's side of NAS telemetry (sys/lg_scrape.c scrapes): each
 * scrape stored as it came, in lg.sut_scrape, with its keys as ids of lg.sut_series; a source
 * that stops answering, or answers again, said once per run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_esc.h"
#include "lg_log.h"
#include "lg_scrape.h"
#include "lg_util.h"
#include "sched_int.h"
#include "store.h"

/* '{"a","b"}': a text[] literal, every element quoted, " and \ escaped. NULL on ENOMEM. */
static char *s_text_array(char *const *keys, size_t n)
{
    size_t len = 3;
    for (size_t i = 0; i < n; i++)
        len += 2 * strlen(keys[i]) + 3;
    char *b = malloc(len), *o = b;
    if (!b)
        return NULL;
    *o++ = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            *o++ = ',';
        *o++ = '"';
        for (const char *k = keys[i]; *k; k++) {
            if (*k == '"' || *k == '\\')
                *o++ = '\\';
            *o++ = *k;
        }
        *o++ = '"';
    }
    *o++ = '}';
    *o = 0;
    return b;
}

static char *s_float_array(const double *v, size_t n)
{
    size_t cap = n * 26 + 3, o = 0;
    char *b = malloc(cap);
    if (!b)
        return NULL;
    b[o++] = '{';
    for (size_t i = 0; i < n && o < cap; i++) {
        const char *sep = i ? "," : "";
        if (isnan(v[i]))
            o += (size_t)snprintf(b + o, cap - o, "%sNaN", sep);
        else if (isinf(v[i]))
            o += (size_t)snprintf(b + o, cap - o, "%s%sInfinity", sep, v[i] < 0 ? "-" : "");
        else
            o += (size_t)snprintf(b + o, cap - o, "%s%.17g", sep, v[i]);
    }
    if (o + 2 > cap) { /* cannot happen: 26 bytes hold any %.17g and its comma */
        free(b);
        return NULL;
    }
    b[o++] = '}';
    b[o] = 0;
    return b;
}

static lg_telem_said_t *s_said(lg_ctrl_t *c, uint64_t run_id, const char *source)
{
    lg_telem_said_t *free_slot = NULL, *oldest = &c->telem_said[0];
    for (size_t i = 0; i < sizeof c->telem_said / sizeof c->telem_said[0]; i++) {
        lg_telem_said_t *t = &c->telem_said[i];
        if (t->run_id == run_id && !strcmp(t->source, source))
            return t;
        if (!t->run_id && !free_slot)
            free_slot = t;
        if (t->run_id < oldest->run_id)
            oldest = t;
    }
    lg_telem_said_t *t = free_slot ? free_slot : oldest;
    memset(t, 0, sizeof *t);
    t->run_id = run_id;
    lg_strlcpy(t->source, source, sizeof t->source);
    return t;
}

/* What the exporter's text lost on its way in (label values made valid UTF-8 or cut), said once
 * a run, into note for the scrape's row ("" when nothing). */
static void s_cleaned(lg_telem_said_t *said, const lg_scrape_t *sc, char *note, size_t len)
{
    const lg_telem_vals_t *v = &sc->vals;
    note[0] = 0;
    if (!v->replaced && !v->cut)
        return;
    char rep[96] = "", cut[96] = "";
    if (v->replaced)
        lg_utf8_note(rep, sizeof rep, v->replaced, 0, 0);
    if (v->cut)
        snprintf(cut, sizeof cut, "%zu cut on a character boundary at %d bytes", v->cut,
                 LG_TELEM_PART_MAX);
    snprintf(note, len, "label values changed to be stored: %s%s%s", rep,
             rep[0] && cut[0] ? "; " : "", cut);
    if (!said->cleaned)
        lg_warn("run %llu: telemetry source \"%s\" (scrape %u): label values: %s%s%s (said once a "
                "run; each such scrape's row says so in its error column)",
                (unsigned long long)sc->run_id, sc->source, sc->seq, rep,
                rep[0] && cut[0] ? "; " : "", cut);
    said->cleaned = 1;
}

void lg__sched_on_scrape(lg_ctrl_t *c, const void *arg)
{
    const lg_scrape_t *sc = arg;
    static const char *const kinds[] = {"before", "during", "after"};
    lg_telem_said_t *said = s_said(c, sc->run_id, sc->source);
    int missed = sc->t_recv_us == 0;
    char url[300], error[sizeof sc->error], note[300];
    lg_esc_ctrl(sc->url, url, sizeof url);
    /* libcurl's words may carry the server's bytes: valid UTF-8 as text takes it */
    lg_utf8_clean(sc->error, strlen(sc->error), error, sizeof error, NULL, NULL);
    s_cleaned(said, sc, note, sizeof note);
    if (missed) {
        said->missed++;
        if (!said->failing)
            lg_warn("run %llu: telemetry source \"%s\" (%s) %s: %s; the run goes on without it "
                    "(missed scrapes are stored as gaps)",
                    (unsigned long long)sc->run_id, sc->source, url,
                    sc->seq == 0 ? "did not answer at the run's start" : "stopped answering",
                    error);
        said->failing = 1;
    } else if (said->failing) {
        lg_info("run %llu: telemetry source \"%s\" answers again (%u scrape(s) missed)",
                (unsigned long long)sc->run_id, sc->source, said->missed);
        said->failing = 0;
    }
    if (sc->vals.dropped && sc->seq == 0)
        lg_warn("run %llu: telemetry source \"%s\": %zu series left out (over %d kept, or names "
                "too long)",
                (unsigned long long)sc->run_id, sc->source, sc->vals.dropped, LG_TELEM_MAX_KEYS);
    char rid[24], ts[32], tr[32];
    snprintf(rid, sizeof rid, "%llu", (unsigned long long)sc->run_id);
    snprintf(ts, sizeof ts, "%lld", (long long)sc->t_send_us);
    snprintf(tr, sizeof tr, "%lld", (long long)sc->t_recv_us);
    char *keys = missed ? NULL : s_text_array(sc->vals.keys, sc->vals.n);
    char *vals = missed ? NULL : s_float_array(sc->vals.vals, sc->vals.n);
    if (!missed && (!keys || !vals)) {
        lg_error("run %llu: could not store a scrape of \"%s\": out of memory",
                 (unsigned long long)sc->run_id, sc->source);
        free(keys);
        free(vals);
        return;
    }
    const char *p[8] = {rid,
                        sc->source,
                        kinds[sc->kind],
                        ts,
                        missed ? NULL : tr,
                        missed ? error : note[0] ? note : NULL,
                        keys,
                        vals};
    /* seq follows what is stored: a controller that took the run up goes on after it */
    lg__sched_q(
        c, "store a telemetry scrape",
        "INSERT INTO lg.sut_scrape (run_id, source, seq, kind, t_send, t_recv, error, series,"
        " vals) SELECT $1, $2, coalesce(max(s.seq) + 1, 0), $3, to_timestamp($4::float8 / 1e6),"
        " to_timestamp($5::float8 / 1e6), $6, lg.sut_series_ids($7::text[]), $8::float8[]"
        " FROM lg.sut_scrape s WHERE s.run_id = $1 AND s.source = $2",
        8, p);
    free(keys);
    free(vals);
}

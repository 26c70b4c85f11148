/* lg_scrape.c: the scraper thread (lg_scrape.h). The loop hands it runs to start and stop through a
 * locked command list and wakes it with curl_multi_wakeup; it hands back scrapes through a
 * locked result list and a uv_async. Scrapes of a source keep to a fixed grid (start + k x
 * interval), so a slow answer never shifts the ones after it; the timeout is shorter than the
 * interval, so at most one is in flight per source. */
#include "lg_scrape.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_operator.h"
#include "lg_util.h"

#define MAX_ANSWER (16u << 20) /* an exposition larger than this is refused */
#define TOKEN_MAX 4096

typedef struct {
    lg_telemetry_t cfg;
    char *token;         /* the bearer token, or NULL */
    char token_err[300]; /* why the token_file cannot be used ("" if it can) */
    CURL *easy;
    struct curl_slist *hdr;
    char *buf;
    size_t len, cap;
    int too_big;
    int inflight;
    lg_scrape_kind_t kind;
    uint32_t seq, next_seq;
    int64_t t_send_us;
    int64_t next_due_us; /* monotonic */
    int after_pending;
    char cerr[CURL_ERROR_SIZE];
} src_t;

typedef struct session {
    uint64_t run_id;
    src_t *src;
    size_t n;
    int stopping;
    struct session *next;
} session_t;

typedef struct cmd {
    int stop; /* 0: start, 1: stop */
    uint64_t run_id;
    lg_telemetry_t *src; /* start: a deep copy */
    size_t n;
    struct cmd *next;
} cmd_t;

typedef struct out {
    lg_scrape_t *scrape; /* NULL: the run's end */
    uint64_t run_id;
    struct out *next;
} out_t;

struct lg_scraper {
    uv_loop_t *loop;
    uv_async_t async;
    uv_thread_t thread;
    uv_mutex_t mu;
    CURLM *multi;
    lg_scrape_cb cb;
    lg_scrape_end_cb end;
    void *arg;
    cmd_t *cmds, **cmds_tail;
    out_t *outs, **outs_tail;
    int quit;
    session_t *sessions; /* the thread's own */
};

static int64_t s_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t s_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- copies of sources ---- */

static char *s_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int s_copy_src(lg_telemetry_t *d, const lg_telemetry_t *s)
{
    memset(d, 0, sizeof *d);
    memcpy(d->name, s->name, sizeof d->name);
    d->interval_ms = s->interval_ms ? s->interval_ms : 1000;
    d->timeout_ms = s->timeout_ms ? s->timeout_ms : 800;
    d->url = s_dup(s->url);
    d->ca_file = s_dup(s->ca_file);
    d->token_file = s_dup(s->token_file);
    if (s->nmetrics && !(d->metrics = calloc(s->nmetrics, sizeof *d->metrics)))
        return -ENOMEM;
    for (size_t i = 0; i < s->nmetrics; i++)
        if ((d->metrics[i] = s_dup(s->metrics[i])))
            d->nmetrics++;
    return d->url && d->nmetrics == s->nmetrics && (!s->ca_file || d->ca_file) &&
                   (!s->token_file || d->token_file)
               ? 0
               : -ENOMEM;
}

/* ---- the bearer token: a file only its owner (root or us) may read ---- */

static char *s_read_token(const char *path, char *err, size_t errlen)
{
    char *buf = calloc(1, TOKEN_MAX + 2);
    char why[600];
    long n = buf ? lg_read_secret_file(path, buf, TOKEN_MAX + 1, why, sizeof why) : -ENOMEM;
    if (n <= 0) {
        if (n == 0)
            snprintf(err, errlen, "token_file \"%s\": empty", path);
        else
            snprintf(err, errlen, "token_file %s", buf ? why : "out of memory");
        free(buf);
        return NULL;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        buf[--n] = 0;
    for (long i = 0; i < n; i++)
        if ((unsigned char)buf[i] < 0x21 || buf[i] == 0x7f) {
            snprintf(err, errlen, "token_file %s: the token holds spaces or control characters",
                     path);
            free(buf);
            return NULL;
        }
    return buf;
}

/* ---- one transfer ---- */

/* An answer's buffer is mapped memory of its own, kept between scrapes while it is small: a large
 * one (up to MAX_ANSWER) goes back to the system as soon as the scrape is read, where the heap
 * would keep it for the life of the process (issue 43 part 6: 16 MiB kept after the runs). */
#define BUF_KEEP (64u << 10)
static void s_buf_release(src_t *s, size_t keep)
{
    if (s->buf && s->cap > keep) {
        munmap(s->buf, s->cap);
        s->buf = NULL;
        s->cap = 0;
    }
}

static size_t s_write(char *p, size_t size, size_t nmemb, void *arg)
{
    src_t *s = arg;
    size_t n = size * nmemb;
    if (s->len + n > MAX_ANSWER) {
        s->too_big = 1;
        return 0; /* aborts the transfer */
    }
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : BUF_KEEP;
        while (cap < s->len + n + 1)
            cap *= 2;
        void *b = s->buf
                      ? mremap(s->buf, s->cap, cap, MREMAP_MAYMOVE)
                      : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
            return 0;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    return n;
}

static int s_setup(CURL *e, src_t *s)
{
    curl_easy_reset(e);
    curl_easy_setopt(e, CURLOPT_URL, s->cfg.url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)s->cfg.timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)s->cfg.timeout_ms);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_USERAGENT, "lg-controller/" LG_VERSION);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, s_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(e, CURLOPT_PRIVATE, s);
    s->cerr[0] = 0;
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->cerr);
    if (s->cfg.ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, s->cfg.ca_file);
    if (!s->hdr) {
        /* the text format, not protobuf or OpenMetrics */
        s->hdr = curl_slist_append(NULL, "Accept: text/plain;version=0.0.4;q=1,*/*;q=0.1");
        if (s->token) {
            size_t n = strlen(s->token) + 32;
            char *h = malloc(n);
            if (h) {
                snprintf(h, n, "Authorization: Bearer %s", s->token);
                s->hdr = curl_slist_append(s->hdr, h);
                free(h);
            }
        }
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, s->hdr);
    s->len = 0;
    s->too_big = 0;
    return 0;
}

/* The outcome of a finished transfer (code) into out. */
static void s_outcome(CURL *e, src_t *s, CURLcode code, const char *curl_err, lg_scrape_t *out)
{
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    out->bytes = s->len;
    char perr[300] = "";
    if (s->too_big) {
        snprintf(out->error, sizeof out->error, "the answer is larger than %u MiB",
                 MAX_ANSWER >> 20);
    } else if (code != CURLE_OK) {
        snprintf(out->error, sizeof out->error, "%s",
                 curl_err && curl_err[0] ? curl_err : curl_easy_strerror(code));
    } else if (status != 200) {
        snprintf(out->error, sizeof out->error, "HTTP status %ld", status);
    } else {
        const char *const *ex = (const char *const *)s->cfg.metrics;
        int rc = lg_telem_extract(s->buf ? s->buf : "", s->len, ex, s->cfg.nmetrics, &out->vals,
                                  perr, sizeof perr);
        if (rc)
            snprintf(out->error, sizeof out->error, "not a Prometheus text exposition: %s",
                     rc == LG_ETOOBIG ? "too many lines or samples" : perr);
        else
            out->t_recv_us = s_wall_us();
    }
}

/* ---- the thread ---- */

static void s_push(lg_scraper_t *sc, lg_scrape_t *scrape, uint64_t run_id)
{
    out_t *o = calloc(1, sizeof *o);
    if (!o) {
        if (scrape)
            lg_telem_vals_clear(&scrape->vals);
        free(scrape);
        return;
    }
    o->scrape = scrape;
    o->run_id = run_id;
    uv_mutex_lock(&sc->mu);
    *sc->outs_tail = o;
    sc->outs_tail = &o->next;
    uv_mutex_unlock(&sc->mu);
    uv_async_send(&sc->async);
}

static lg_scrape_t *s_new_scrape(session_t *ss, src_t *s)
{
    lg_scrape_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->run_id = ss->run_id;
    snprintf(r->source, sizeof r->source, "%s", s->cfg.name);
    snprintf(r->url, sizeof r->url, "%s", s->cfg.url);
    r->seq = s->seq;
    r->kind = s->kind;
    r->t_send_us = s->t_send_us;
    return r;
}

static void s_launch(lg_scraper_t *sc, session_t *ss, src_t *s, lg_scrape_kind_t kind)
{
    s->kind = kind;
    s->seq = s->next_seq++;
    s->t_send_us = s_wall_us();
    if (s->token_err[0] || !s->easy) {
        lg_scrape_t *r = s_new_scrape(ss, s);
        if (r) {
            snprintf(r->error, sizeof r->error, "%s",
                     s->token_err[0] ? s->token_err : "out of memory");
            s_push(sc, r, ss->run_id);
        }
        return;
    }
    s_setup(s->easy, s);
    if (curl_multi_add_handle(sc->multi, s->easy) != CURLM_OK) {
        lg_scrape_t *r = s_new_scrape(ss, s);
        if (r) {
            snprintf(r->error, sizeof r->error, "could not start the request");
            s_push(sc, r, ss->run_id);
        }
        return;
    }
    s->inflight = 1;
}

static void s_session_destroy(session_t **self_p, CURLM *multi)
{
    session_t *ss = self_p ? *self_p : NULL;
    if (!ss)
        return;
    *self_p = NULL;
    for (size_t i = 0; i < ss->n; i++) {
        src_t *s = &ss->src[i];
        if (s->easy) {
            if (s->inflight)
                curl_multi_remove_handle(multi, s->easy);
            curl_easy_cleanup(s->easy);
        }
        curl_slist_free_all(s->hdr);
        s_buf_release(s, 0);
        free(s->token);
        lg_telemetry_clear(&s->cfg);
    }
    free(ss->src);
    free(ss);
}

static session_t *s_find(lg_scraper_t *sc, uint64_t run_id)
{
    for (session_t *ss = sc->sessions; ss; ss = ss->next)
        if (ss->run_id == run_id)
            return ss;
    return NULL;
}

static void s_apply(lg_scraper_t *sc, cmd_t *c)
{
    if (c->stop) {
        session_t *ss = s_find(sc, c->run_id);
        if (ss && !ss->stopping) {
            ss->stopping = 1;
            for (size_t i = 0; i < ss->n; i++)
                ss->src[i].after_pending = 1;
        }
        return;
    }
    /* A new run: any other still scraping is stopped (its after scrapes still go out). */
    for (session_t *o = sc->sessions; o; o = o->next)
        if (!o->stopping && o->run_id != c->run_id) {
            o->stopping = 1;
            for (size_t i = 0; i < o->n; i++)
                o->src[i].after_pending = 1;
        }
    if (s_find(sc, c->run_id))
        return;
    session_t *ss = calloc(1, sizeof *ss);
    if (!ss)
        return;
    ss->run_id = c->run_id;
    ss->src = calloc(c->n, sizeof *ss->src);
    if (!ss->src) {
        free(ss);
        return;
    }
    ss->n = c->n;
    int64_t now = s_mono_us();
    for (size_t i = 0; i < c->n; i++) {
        src_t *s = &ss->src[i];
        s->cfg = c->src[i]; /* taken over */
        memset(&c->src[i], 0, sizeof c->src[i]);
        s->easy = curl_easy_init();
        s->next_due_us = now;
        if (s->cfg.token_file) {
            s->token = s_read_token(s->cfg.token_file, s->token_err, sizeof s->token_err);
        }
    }
    ss->next = sc->sessions;
    sc->sessions = ss;
}

static void s_done_transfers(lg_scraper_t *sc)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(sc->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        CURL *e = m->easy_handle;
        CURLcode code = m->data.result;
        src_t *s = NULL;
        curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&s);
        curl_multi_remove_handle(sc->multi, e);
        if (!s)
            continue;
        s->inflight = 0;
        session_t *ss = NULL;
        for (session_t *x = sc->sessions; x && !ss; x = x->next)
            if (s >= x->src && s < x->src + x->n)
                ss = x;
        if (!ss)
            continue;
        lg_scrape_t *r = s_new_scrape(ss, s);
        if (!r)
            continue;
        s_outcome(e, s, code, s->cerr, r);
        s_buf_release(s, BUF_KEEP);
        s_push(sc, r, ss->run_id);
    }
}

/* Launch what is due; returns the microseconds until the next one is (at most 1 s). */
static int64_t s_due(lg_scraper_t *sc)
{
    int64_t now = s_mono_us(), wait = 1000000;
    session_t **pp = &sc->sessions;
    while (*pp) {
        session_t *ss = *pp;
        int busy = 0;
        for (size_t i = 0; i < ss->n; i++) {
            src_t *s = &ss->src[i];
            if (s->inflight) {
                busy = 1;
                continue;
            }
            if (ss->stopping) {
                if (s->after_pending) {
                    s->after_pending = 0;
                    s_launch(sc, ss, s, LG_SCRAPE_AFTER);
                    busy |= s->inflight;
                }
                continue;
            }
            if (now >= s->next_due_us) {
                s_launch(sc, ss, s, s->next_seq == 0 ? LG_SCRAPE_BEFORE : LG_SCRAPE_DURING);
                int64_t iv = (int64_t)s->cfg.interval_ms * 1000;
                while (s->next_due_us <= now)
                    s->next_due_us += iv;
            }
            if (s->next_due_us - now < wait)
                wait = s->next_due_us - now;
        }
        if (ss->stopping && !busy) {
            int pending = 0;
            for (size_t i = 0; i < ss->n; i++)
                pending |= ss->src[i].after_pending || ss->src[i].inflight;
            if (!pending) {
                *pp = ss->next;
                uint64_t run_id = ss->run_id;
                s_session_destroy(&ss, sc->multi);
                s_push(sc, NULL, run_id);
                continue;
            }
        }
        pp = &ss->next;
    }
    return wait < 0 ? 0 : wait;
}

static void s_cmd_destroy(cmd_t **self_p)
{
    cmd_t *c = self_p ? *self_p : NULL;
    if (!c)
        return;
    *self_p = NULL;
    if (c->src) {
        for (size_t i = 0; i < c->n; i++)
            lg_telemetry_clear(&c->src[i]);
        free(c->src);
    }
    free(c);
}

static void s_thread(void *arg)
{
    lg_scraper_t *sc = arg;
    for (;;) {
        uv_mutex_lock(&sc->mu);
        cmd_t *cmds = sc->cmds;
        sc->cmds = NULL;
        sc->cmds_tail = &sc->cmds;
        int quit = sc->quit;
        uv_mutex_unlock(&sc->mu);
        while (cmds) {
            cmd_t *c = cmds;
            cmds = c->next;
            if (!quit)
                s_apply(sc, c);
            s_cmd_destroy(&c);
        }
        if (quit)
            break;
        int running = 0;
        curl_multi_perform(sc->multi, &running);
        s_done_transfers(sc);
        int64_t wait = s_due(sc);
        if (wait > 0) {
            curl_multi_perform(sc->multi, &running);
            s_done_transfers(sc);
        }
        int ms = (int)((wait + 999) / 1000);
        curl_multi_poll(sc->multi, NULL, 0, ms > 1000 ? 1000 : ms, NULL);
    }
    while (sc->sessions) {
        session_t *ss = sc->sessions;
        sc->sessions = ss->next;
        s_session_destroy(&ss, sc->multi);
    }
}

/* ---- the loop's side ---- */

static void s_on_async(uv_async_t *a)
{
    lg_scraper_t *sc = a->data;
    uv_mutex_lock(&sc->mu);
    out_t *outs = sc->outs;
    sc->outs = NULL;
    sc->outs_tail = &sc->outs;
    uv_mutex_unlock(&sc->mu);
    while (outs) {
        out_t *o = outs;
        outs = o->next;
        if (o->scrape) {
            sc->cb(sc->arg, o->scrape);
            lg_telem_vals_clear(&o->scrape->vals);
            free(o->scrape);
        } else if (sc->end) {
            sc->end(sc->arg, o->run_id);
        }
        free(o);
    }
}

static uv_once_t s_curl_once = UV_ONCE_INIT;
static int s_curl_ok;
static void s_curl_init(void)
{
    s_curl_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

lg_scraper_t *lg_scraper_new(uv_loop_t *loop, lg_scrape_cb cb, lg_scrape_end_cb end, void *arg)
{
    uv_once(&s_curl_once, s_curl_init);
    if (!s_curl_ok)
        return NULL;
    lg_scraper_t *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->loop = loop;
    sc->cb = cb;
    sc->end = end;
    sc->arg = arg;
    sc->cmds_tail = &sc->cmds;
    sc->outs_tail = &sc->outs;
    sc->multi = curl_multi_init();
    if (!sc->multi || uv_mutex_init(&sc->mu) != 0) {
        if (sc->multi)
            curl_multi_cleanup(sc->multi);
        free(sc);
        return NULL;
    }
    uv_async_init(loop, &sc->async, s_on_async);
    sc->async.data = sc;
    if (uv_thread_create(&sc->thread, s_thread, sc) != 0) {
        uv_close((uv_handle_t *)&sc->async, NULL);
        curl_multi_cleanup(sc->multi);
        uv_mutex_destroy(&sc->mu);
        free(sc);
        return NULL;
    }
    return sc;
}

static void s_cmd(lg_scraper_t *sc, cmd_t *c)
{
    uv_mutex_lock(&sc->mu);
    *sc->cmds_tail = c;
    sc->cmds_tail = &c->next;
    uv_mutex_unlock(&sc->mu);
    curl_multi_wakeup(sc->multi);
}

int lg_scraper_start(lg_scraper_t *sc, uint64_t run_id, const lg_telemetry_t *src, size_t n)
{
    if (!sc || n == 0)
        return 0;
    cmd_t *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->run_id = run_id;
    c->src = calloc(n, sizeof *c->src);
    if (!c->src) {
        free(c);
        return -ENOMEM;
    }
    c->n = n;
    for (size_t i = 0; i < n; i++)
        if (s_copy_src(&c->src[i], &src[i]) != 0) {
            s_cmd_destroy(&c);
            return -ENOMEM;
        }
    s_cmd(sc, c);
    return 0;
}

void lg_scraper_stop(lg_scraper_t *sc, uint64_t run_id)
{
    if (!sc)
        return;
    cmd_t *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->stop = 1;
    c->run_id = run_id;
    s_cmd(sc, c);
}

static void s_on_close(uv_handle_t *h)
{
    free(h->data);
}

void lg_scraper_destroy(lg_scraper_t **self_p)
{
    lg_scraper_t *sc = self_p ? *self_p : NULL;
    if (!sc)
        return;
    *self_p = NULL;
    uv_mutex_lock(&sc->mu);
    sc->quit = 1;
    uv_mutex_unlock(&sc->mu);
    curl_multi_wakeup(sc->multi);
    uv_thread_join(&sc->thread);
    /* scrapes not yet handed over are dropped: the controller is stopping */
    while (sc->outs) {
        out_t *o = sc->outs;
        sc->outs = o->next;
        if (o->scrape) {
            lg_telem_vals_clear(&o->scrape->vals);
            free(o->scrape);
        }
        free(o);
    }
    while (sc->cmds) {
        cmd_t *c = sc->cmds;
        sc->cmds = c->next;
        s_cmd_destroy(&c);
    }
    curl_multi_cleanup(sc->multi);
    uv_mutex_destroy(&sc->mu);
    sc->async.data = sc;
    uv_close((uv_handle_t *)&sc->async, s_on_close);
}

int lg_scrape_once(const lg_telemetry_t *src, size_t *nkeys, size_t *bytes, char *err,
                   size_t errlen)
{
    uv_once(&s_curl_once, s_curl_init);
    if (!s_curl_ok) {
        snprintf(err, errlen, "libcurl could not start");
        return LG_ESTATE;
    }
    src_t s;
    memset(&s, 0, sizeof s);
    if (s_copy_src(&s.cfg, src) != 0) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = 0;
    if (s.cfg.token_file)
        s.token = s_read_token(s.cfg.token_file, s.token_err, sizeof s.token_err);
    lg_scrape_t out;
    memset(&out, 0, sizeof out);
    CURL *e = curl_easy_init();
    if (s.token_err[0]) {
        snprintf(err, errlen, "%s", s.token_err);
        rc = LG_EDENIED;
    } else if (!e) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
    } else {
        s_setup(e, &s);
        CURLcode code = curl_easy_perform(e);
        s_outcome(e, &s, code, s.cerr, &out);
        if (out.error[0]) {
            snprintf(err, errlen, "%s", out.error);
            rc = LG_EPARSE;
        }
        *nkeys = out.vals.n;
        *bytes = out.bytes;
    }
    lg_telem_vals_clear(&out.vals);
    if (e)
        curl_easy_cleanup(e);
    curl_slist_free_all(s.hdr);
    s_buf_release(&s, 0);
    free(s.token);
    lg_telemetry_clear(&s.cfg);
    return rc;
}

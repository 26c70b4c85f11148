/* writer.c: batches of samples written with COPY into a temporary table, then moved into
 * lg.sample with ON CONFLICT DO NOTHING: a resent sample is absorbed by the (run, agent, seq,
 * direction) key instead of failing the batch. */
#include "writer.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_wire.h"

typedef struct {
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    uint64_t run_id;
    uint64_t seq;
} ack_t;

typedef struct {
    char *rows;
    size_t len, cap;
    size_t nrows;
    ack_t *acks;
    size_t nacks, capacks;
} batch_t;

struct lg_writer {
    uv_loop_t *loop;
    char *conninfo;
    lg_writer_ack_cb ack;
    lg_writer_done_cb done;
    void *arg;
    PGconn *db; /* used only by the worker thread */
    batch_t queued;
    batch_t flying;
    int busy;
    int failed;    /* the last batch failed: retry it before taking new rows */
    uv_work_t work;
    char err[512];
    uint64_t written;
    uv_timer_t retry;
    int destroyed;
};

static int s_grow(batch_t *b, size_t need)
{
    if (b->len + need + 1 <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap : 65536;
    while (nc < b->len + need + 1)
        nc *= 2;
    char *n = realloc(b->rows, nc);
    if (!n)
        return -ENOMEM;
    b->rows = n;
    b->cap = nc;
    return 0;
}

static int s_add_ack(batch_t *b, const uint8_t *id, size_t idlen, uint64_t run_id, uint64_t seq)
{
    for (size_t i = 0; i < b->nacks; i++) {
        ack_t *a = &b->acks[i];
        if (a->run_id == run_id && a->idlen == idlen && memcmp(a->id, id, idlen) == 0) {
            if (seq > a->seq)
                a->seq = seq;
            return 0;
        }
    }
    if (b->nacks == b->capacks) {
        size_t nc = b->capacks ? b->capacks * 2 : 16;
        ack_t *n = realloc(b->acks, nc * sizeof *n);
        if (!n)
            return -ENOMEM;
        b->acks = n;
        b->capacks = nc;
    }
    ack_t *a = &b->acks[b->nacks++];
    memcpy(a->id, id, idlen);
    a->idlen = idlen;
    a->run_id = run_id;
    a->seq = seq;
    return 0;
}

lg_writer_t *lg_writer_new(uv_loop_t *loop, const char *conninfo, lg_writer_ack_cb ack, void *arg)
{
    lg_writer_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->conninfo = strdup(conninfo);
    if (!w->conninfo) {
        free(w);
        return NULL;
    }
    w->loop = loop;
    w->ack = ack;
    w->arg = arg;
    w->work.data = w;
    uv_timer_init(loop, &w->retry);
    w->retry.data = w;
    return w;
}

int lg_writer_add(lg_writer_t *w, const uint8_t *id, size_t idlen, uint64_t agent_id,
                  const Lg__Sample *s)
{
    batch_t *b = &w->queued;
    for (size_t i = 0; i < s->n_dirs; i++) {
        lg_dirstats_t st;
        lg_dir_t d;
        if (lg_wire_dirstats_get(s->dirs[i], &st, &d) != 0)
            return LG_EPROTO;
        /* The histogram in its compact form (lg_hist_pack), as COPY text of a bytea. */
        char *hist = NULL;
        if (st.has_hist) {
            static uint8_t packed[LG_HIST_PACK_MAX]; /* the loop thread's */
            size_t pl = lg_hist_pack(&st.hist, packed);
            if (!(hist = malloc(3 + 2 * pl + 1)))
                return -ENOMEM;
            lg_hex_bytea(packed, pl, hist);
        }
        char head[512];
        /* %.17g: doubles go to PostgreSQL exactly as computed. */
        int n = snprintf(head, sizeof head,
                         "%llu\t%llu\t%llu\t%s\t%lld\t%llu\t%llu\t%llu\t%llu\t%.17g\t%.17g\t%llu\t%llu\t",
                         (unsigned long long)s->run_id, (unsigned long long)agent_id,
                         (unsigned long long)s->seq, lg_dir_name(d), (long long)s->t_ms,
                         (unsigned long long)s->interval_ms, (unsigned long long)st.ios,
                         (unsigned long long)st.bytes, (unsigned long long)st.lat_n, st.lat_sum,
                         st.lat_sumsq, (unsigned long long)st.lat_min,
                         (unsigned long long)st.lat_max);
        size_t hl = hist ? strlen(hist) : 2;
        if (s_grow(b, (size_t)n + hl + 2) != 0) {
            free(hist);
            return -ENOMEM;
        }
        memcpy(b->rows + b->len, head, (size_t)n);
        b->len += (size_t)n;
        memcpy(b->rows + b->len, hist ? hist : "\\N", hl);
        b->len += hl;
        b->rows[b->len++] = '\n';
        b->rows[b->len] = 0;
        b->nrows++;
        free(hist);
    }
    return s_add_ack(b, id, idlen, s->run_id, s->seq);
}

static int s_q(lg_writer_t *w, const char *sql)
{
    return lg_db_exec(w->db, sql, 0, NULL, NULL, w->err, sizeof w->err);
}

/* Worker thread: write the flying batch in one transaction. */
static void s_work(uv_work_t *req)
{
    lg_writer_t *w = req->data;
    batch_t *b = &w->flying;
    w->err[0] = 0;
    if (w->db && PQstatus(w->db) != CONNECTION_OK) {
        PQfinish(w->db);
        w->db = NULL;
    }
    if (!w->db) {
        w->db = lg_db_connect(w->conninfo, w->err, sizeof w->err);
        if (!w->db)
            return;
        if (s_q(w, "CREATE TEMP TABLE sample_in (LIKE lg.sample) ON COMMIT DELETE ROWS")) {
            PQfinish(w->db);
            w->db = NULL;
            return;
        }
    }
    if (s_q(w, "BEGIN"))
        return;
    PGresult *r = PQexec(w->db, "COPY sample_in (run_id, agent_id, seq, direction, t_ms, "
                                "interval_ms, ios, bytes, lat_n, lat_sum, lat_sumsq, lat_min, "
                                "lat_max, hist) FROM STDIN");
    int ok = PQresultStatus(r) == PGRES_COPY_IN;
    if (!ok)
        snprintf(w->err, sizeof w->err, "%s", PQresultErrorMessage(r));
    PQclear(r);
    if (ok) {
        /* In pieces: PQputCopyData takes an int length. */
        size_t off = 0;
        while (ok && off < b->len) {
            size_t n = b->len - off > (64u << 20) ? (64u << 20) : b->len - off;
            if (PQputCopyData(w->db, b->rows + off, (int)n) != 1)
                ok = 0;
            off += n;
        }
        if (!ok || PQputCopyEnd(w->db, NULL) != 1) {
            snprintf(w->err, sizeof w->err, "%s", PQerrorMessage(w->db));
            ok = 0;
        }
        while ((r = PQgetResult(w->db)) != NULL) {
            if (PQresultStatus(r) != PGRES_COMMAND_OK && ok) {
                snprintf(w->err, sizeof w->err, "%s", PQresultErrorMessage(r));
                ok = 0;
            }
            PQclear(r);
        }
    }
    if (ok && s_q(w, "INSERT INTO lg.sample SELECT * FROM sample_in ON CONFLICT DO NOTHING"))
        ok = 0;
    if (ok && s_q(w, "COMMIT"))
        ok = 0;
    if (!ok) {
        char keep[512];
        snprintf(keep, sizeof keep, "%s", w->err);
        s_q(w, "ROLLBACK");
        snprintf(w->err, sizeof w->err, "%s", keep[0] ? keep : "unknown error");
    }
}

static void s_batch_reset(batch_t *b)
{
    b->len = 0;
    b->nrows = 0;
    b->nacks = 0;
    if (b->rows)
        b->rows[0] = 0;
}

static void s_on_retry(uv_timer_t *t) { lg_writer_flush(t->data); }

static void s_after_work(uv_work_t *req, int status)
{
    lg_writer_t *w = req->data;
    w->busy = 0;
    batch_t *b = &w->flying;
    if (status == 0 && w->err[0] == 0) {
        w->written += b->nrows;
        w->failed = 0;
        if (!w->destroyed)
            for (size_t i = 0; i < b->nacks; i++)
                w->ack(w->arg, b->acks[i].id, b->acks[i].idlen, b->acks[i].run_id,
                       b->acks[i].seq);
        s_batch_reset(b);
        if (!w->destroyed && w->queued.nrows)
            lg_writer_flush(w);
        if (!w->destroyed && w->done)
            w->done(w->arg);
        return;
    }
    /* Keep the batch: nothing is acknowledged, so agents keep their copies too. */
    w->err[strcspn(w->err, "\n")] = 0;
    if (!w->failed)
        lg_error("could not store %zu samples: %s", b->nrows, w->err);
    w->failed = 1;
    if (!w->destroyed)
        uv_timer_start(&w->retry, s_on_retry, 1000, 0);
    if (!w->destroyed && w->done)
        w->done(w->arg);
}

int lg_writer_failing(const lg_writer_t *w) { return w->failed; }

void lg_writer_flush(lg_writer_t *w)
{
    if (w->busy || w->destroyed)
        return;
    if (!w->failed) {
        if (w->queued.nrows == 0)
            return;
        batch_t t = w->flying;
        w->flying = w->queued;
        w->queued = t;
        s_batch_reset(&w->queued);
    }
    w->busy = 1;
    int rc = uv_queue_work(w->loop, &w->work, s_work, s_after_work);
    if (rc) {
        w->busy = 0;
        lg_error("could not queue a database write: %s", uv_strerror(rc));
    }
}

void lg_writer_on_done(lg_writer_t *w, lg_writer_done_cb done) { w->done = done; }

size_t lg_writer_queued(const lg_writer_t *w) { return w->queued.nrows; }

size_t lg_writer_pending(const lg_writer_t *w)
{
    return w->queued.nrows + (w->busy || w->failed ? w->flying.nrows : 0);
}

uint64_t lg_writer_rows_written(const lg_writer_t *w) { return w->written; }
int lg_writer_busy(const lg_writer_t *w) { return w->busy; }

static void s_on_timer_close(uv_handle_t *h)
{
    lg_writer_t *w = h->data;
    free(w->queued.rows);
    free(w->queued.acks);
    free(w->flying.rows);
    free(w->flying.acks);
    if (w->db)
        PQfinish(w->db);
    free(w->conninfo);
    free(w);
}

void lg_writer_destroy(lg_writer_t **self_p)
{
    lg_writer_t *w = *self_p;
    if (!w)
        return;
    *self_p = NULL;
    w->destroyed = 1;
    uv_timer_stop(&w->retry);
    uv_close((uv_handle_t *)&w->retry, s_on_timer_close);
}

/* writer.c: batches of samples written with binary COPY straight into their tables (a fio
 * sample's directions into lg.sample, an application run's report into lg.app_sample), one
 * transaction a batch; a batch that holds a resent sample goes through temporary tables and ON
 * CONFLICT DO NOTHING instead, so the tables' keys absorb it rather than failing the batch. */
#include "writer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_lane.h"
#include "lg_log.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "spill.h"

typedef struct {
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    uint64_t run_id;
    uint64_t lo, hi; /* samples lo..hi of the run from this agent are in the batch */
} ack_t;

/* The tables a batch writes into, in this order. A spool record's kind is KIND(table, fields
 * per row); a record an older controller wrote has table 0 (lg.sample). */
enum { T_SAMPLE, T_APP, T_NR };
#define KIND(t, nf) ((t) << 16 | (nf))
static const char *const s_table[T_NR] = {"lg.sample", "lg.app_sample"};
static const char *const s_temp[T_NR] = {"sample_in", "app_sample_in"};

/* A batch's rows for one table. */
typedef struct {
    char *rows;
    size_t len, cap;
    size_t nrows;
    int nfields; /* per row: the table's (or 0: not set yet, the same), or NFIELDS_OLD in a
                  * spool record an older controller wrote for a database before 026 */
} part_t;

typedef struct {
    part_t t[T_NR];
    ack_t *acks;
    size_t nacks, capacks;
} batch_t;

struct lg_writer {
    uv_loop_t *loop;
    char *conninfo;
    lg_writer_ack_cb ack;
    lg_writer_done_cb done;
    void *arg;
    PGconn *db;    /* used only by the worker thread */
    int have_temp; /* sample_in exists on db */
    batch_t queued;
    batch_t flying;
    int busy;
    int failed; /* the last batch failed: retry it before taking new rows */
    uv_work_t work;
    lg_lane_t *lane;       /* the COPY's thread of its own (sys/lg_lane.h) */
    lg_lane_t *spool_lane; /* the spool's: a full disk waits apart from the database */
    char err[512];
    uint64_t written;
    uv_timer_t retry;
    uint64_t retry_at; /* lg_mono_ms: after a failed batch, the next try waits (0.5 s to 5 s) */
    unsigned fails;
    int destroyed;
    /* The spool on disk (spill.h), if any. While the database does not take samples, and until
     * what went to the spool is stored, new rows go there (spill mode): appended on a second
     * thread of their own (spool_lane), acknowledged once fsynced, and written to the database from
     * the spool, oldest first. Rows in the spool are counted here on the loop thread. */
    lg_spill_t *spill;
    int spill_mode;
    batch_t spilling; /* being appended, or held while the spool is full */
    int spill_busy;
    int spill_rc;
    int spill_full_said;
    int spill_err_said;
    uint64_t spill_retry_at;
    uint64_t spill_rows; /* rows in the spool, not yet stored */
    uint64_t spilled;    /* rows ever appended */
    int from_spill;      /* the flying batch is read from the spool on the worker */
    int spool_bad;       /* ... and the spool could not give it: its error (w->err says) */
    int spool_empty;     /* ... and nothing waited there (the batch was a probe) */
    uv_work_t spill_work;
    char spill_err[512];
};

static size_t s_nrows(const batch_t *b)
{
    size_t n = 0;
    for (int t = 0; t < T_NR; t++)
        n += b->t[t].nrows;
    return n;
}

static int s_grow(part_t *b, size_t need)
{
    if (b->len + need <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap : 65536;
    while (nc < b->len + need)
        nc *= 2;
    char *n = realloc(b->rows, nc);
    if (!n)
        return -ENOMEM;
    b->rows = n;
    b->cap = nc;
    return 0;
}

/* Add sample seq of (id, run) to the batch's ranges: extend a range it touches, else start one. */
static void s_batch_reset(batch_t *b);

static int s_add_ack(batch_t *b, const uint8_t *id, size_t idlen, uint64_t run_id, uint64_t seq)
{
    for (size_t i = b->nacks; i-- > 0;) { /* newest first: the usual case is the next seq */
        ack_t *a = &b->acks[i];
        if (a->run_id != run_id || a->idlen != idlen || memcmp(a->id, id, idlen) != 0)
            continue;
        if (seq >= a->lo && seq <= a->hi)
            return 0;
        if (seq == a->hi + 1) {
            a->hi = seq;
            return 0;
        }
        if (seq + 1 == a->lo) {
            a->lo = seq;
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
    a->lo = a->hi = seq;
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
    w->spill_work.data = w;
    w->lane = lg_lane_new(loop, "lg-writer");
    w->spool_lane = w->lane ? lg_lane_new(loop, "lg-spool") : NULL;
    if (!w->spool_lane) {
        lg_lane_destroy(&w->lane);
        free(w->conninfo);
        free(w);
        return NULL;
    }
    uv_timer_init(loop, &w->retry);
    w->retry.data = w;
    s_batch_reset(&w->queued);
    s_batch_reset(&w->flying);
    s_batch_reset(&w->spilling);
    return w;
}

/* Rows are kept in PostgreSQL's binary COPY format: per row a field count, then per field its
 * length and its bytes in network order (a bytea as it is, a double as its IEEE bits). Next to text
 * COPY the server parses no numbers and decodes no hex, and the histogram travels at half the
 * size. */
#define NFIELDS 17
/* Before 026_host_cpu: no cpu_busy_pct, fio_cpu_pct, host_cpus. The controller no longer writes
 * such rows (it refuses a database before 026: controller.c), but a spool an older one left may
 * hold them, and they are stored as they are. */
#define NFIELDS_OLD 14
/* lg.app_sample: run_id .. interval_ms, then the report's 13 figures (020_app). */
#define APP_NFIELDS 18

static void s_put16(part_t *b, uint16_t v)
{
    uint8_t *p = (uint8_t *)b->rows + b->len;
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    b->len += 2;
}

static void s_put32(part_t *b, uint32_t v)
{
    uint8_t *p = (uint8_t *)b->rows + b->len;
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
    b->len += 4;
}

static void s_put64(part_t *b, uint64_t v)
{
    uint8_t *p = (uint8_t *)b->rows + b->len;
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
    b->len += 8;
}

static void s_field_i64(part_t *b, uint64_t v)
{
    s_put32(b, 8);
    s_put64(b, v);
}

static void s_field_f64(part_t *b, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    s_field_i64(b, v);
}

/* A real (float4) column, NULL when v is NaN or outside [0, max] (a figure lg could not have
 * measured: stored as unknown rather than failing the batch). */
static void s_field_f32_or_null(part_t *b, double v, double max)
{
    if (!(v >= 0 && v <= max)) {
        s_put32(b, UINT32_MAX);
        return;
    }
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    s_put32(b, 4);
    s_put32(b, u);
}

/* The packed histogram of one direction: as it came (checked canonical, so it is what
 * lg_hist_pack would make), or packed here from an older agent's per-bucket form. Sets *p (valid
 * until the next call) and *len. */
static int s_hist_bytes(const Lg__DirStats *m, const uint8_t **p, size_t *len)
{
    static uint8_t packed[LG_HIST_PACK_MAX]; /* the loop thread's */
    *p = m->hist_packed.data;
    *len = m->hist_packed.len;
    if (*len)
        return lg_hist_packed_check(*p, *len) ? LG_EPROTO : 0;
    lg_dirstats_t *st = malloc(sizeof *st);
    lg_dir_t d;
    if (!st)
        return -ENOMEM;
    int rc = lg_wire_dirstats_get(m, st, &d);
    if (rc == 0)
        *len = lg_hist_pack(&st->hist, packed);
    free(st);
    *p = packed;
    return rc ? LG_EPROTO : 0;
}

/* A double precision column, NULL for NaN (the tool has no such figure). */
static void s_field_f64_or_null(part_t *b, double v)
{
    if (v != v)
        s_put32(b, UINT32_MAX);
    else
        s_field_f64(b, v);
}

/* An integer column, NULL for 0 (none). */
static void s_field_i32_or_null(part_t *b, uint32_t v)
{
    if (!v) {
        s_put32(b, UINT32_MAX);
        return;
    }
    s_put32(b, 4);
    s_put32(b, v > INT32_MAX ? INT32_MAX : v);
}

/* An application run's report (Sample.app): one row of lg.app_sample. */
static int s_add_app(part_t *b, uint64_t agent_id, const Lg__Sample *s)
{
    const Lg__AppStats *a = s->app;
    if (s_grow(b, 2 + APP_NFIELDS * 4 + APP_NFIELDS * 8) != 0)
        return -ENOMEM;
    s_put16(b, APP_NFIELDS);
    s_field_i64(b, s->run_id);
    s_field_i64(b, agent_id);
    s_put32(b, 4);
    s_put32(b, (uint32_t)s->seq);
    s_field_i64(b, (uint64_t)s->t_ms);
    s_field_i64(b, s->interval_ms);
    const double f[] = {a->tps,       a->qps,        a->read_qps,      a->write_qps,
                        a->other_qps, a->lat_avg_ms, a->lat_stddev_ms, a->lat_pct_ms};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        s_field_f64_or_null(b, f[i]);
    s_field_i32_or_null(b, a->pct);
    s_field_f64_or_null(b, a->err_ps);
    s_field_f64_or_null(b, a->reconn_ps);
    s_field_f64_or_null(b, a->failed);
    s_field_i32_or_null(b, a->threads);
    b->nrows++;
    return 0;
}

int lg_writer_add(lg_writer_t *w, const uint8_t *id, size_t idlen, uint64_t agent_id,
                  const Lg__Sample *s)
{
    part_t *b = &w->queued.t[s->app ? T_APP : T_SAMPLE];
    size_t len0 = b->len, nrows0 = b->nrows;
    int rc = LG_EPROTO;
    /* Columns that are bigint (integer for seq) in lg.sample and lg.app_sample: refuse what does
     * not fit instead of failing (and retrying for ever) the whole batch in PostgreSQL. An
     * application's report has no fio directions. */
    if (s->seq > INT32_MAX || s->interval_ms > INT64_MAX || s->run_id > INT64_MAX ||
        (s->app && s->n_dirs))
        goto undo;
    if (s->app && (rc = s_add_app(b, agent_id, s)) != 0)
        goto undo;
    for (size_t i = 0; i < s->n_dirs; i++) {
        const Lg__DirStats *m = s->dirs[i];
        if ((unsigned)m->dir >= LG_DIR_NR || m->ios > INT64_MAX || m->bytes > INT64_MAX ||
            m->lat_n > INT64_MAX || m->lat_min > INT64_MAX || m->lat_max > INT64_MAX)
            goto undo;
        const uint8_t *hist = NULL;
        size_t hl = 0;
        if (m->has_hist && (rc = s_hist_bytes(m, &hist, &hl)) != 0)
            goto undo;
        const char *dir = lg_dir_name((lg_dir_t)m->dir);
        size_t dl = strlen(dir);
        if (s_grow(b, 2 + NFIELDS * 4 + 12 * 8 + 3 * 4 + dl + hl) != 0) {
            rc = -ENOMEM;
            goto undo;
        }
        s_put16(b, NFIELDS);
        s_field_i64(b, s->run_id);
        s_field_i64(b, agent_id);
        s_put32(b, 4);
        s_put32(b, (uint32_t)s->seq);
        s_put32(b, (uint32_t)dl);
        memcpy(b->rows + b->len, dir, dl);
        b->len += dl;
        s_field_i64(b, (uint64_t)s->t_ms);
        s_field_i64(b, s->interval_ms);
        s_field_i64(b, m->ios);
        s_field_i64(b, m->bytes);
        s_field_i64(b, m->lat_n);
        s_field_f64(b, m->lat_sum);
        s_field_f64(b, m->lat_sumsq);
        s_field_i64(b, m->lat_min);
        s_field_i64(b, m->lat_max);
        if (m->has_hist) {
            s_put32(b, (uint32_t)hl);
            memcpy(b->rows + b->len, hist, hl);
            b->len += hl;
        } else {
            s_put32(b, UINT32_MAX); /* -1: NULL */
        }
        /* The load host's CPU (026_host_cpu), on each direction's row of the sample: no second
         * table, key and COPY per sample. host_cpus 0: none measured (an older agent). */
        if (s->host_cpus) {
            s_field_f32_or_null(b, s->host_cpu_pct, 100.0);
            s_field_f32_or_null(b, s->fio_cpu_pct, 1000.0);
            s_put32(b, 4);
            s_put32(b, s->host_cpus > INT32_MAX ? INT32_MAX : s->host_cpus);
        } else {
            for (int k = 0; k < 3; k++)
                s_put32(b, UINT32_MAX);
        }
        b->nrows++;
    }
    return s_add_ack(&w->queued, id, idlen, s->run_id, s->seq);
undo: /* nothing of a bad sample stays in the batch */
    b->len = len0;
    b->nrows = nrows0;
    return rc;
}

static int s_q(lg_writer_t *w, const char *sql)
{
    return lg_db_exec(w->db, sql, 0, NULL, NULL, w->err, sizeof w->err);
}

/* COPY the flying batch's rows for table t into table. Returns 0, or -1 with w->err set; *dup
 * tells a unique violation (a resent sample) apart from other failures. */
static int s_copy(lg_writer_t *w, int t, const char *table, int *dup)
{
    part_t *b = &w->flying.t[t];
    char sql[384];
    if (t == T_APP)
        snprintf(sql, sizeof sql,
                 "COPY %s (run_id, agent_id, seq, t_ms, interval_ms, tps, qps, read_qps, "
                 "write_qps, other_qps, lat_avg_ms, lat_stddev_ms, lat_pct_ms, pct, err_ps, "
                 "reconn_ps, failed, threads) FROM STDIN (FORMAT binary)",
                 table);
    else
        snprintf(sql, sizeof sql,
                 "COPY %s (run_id, agent_id, seq, direction, t_ms, interval_ms, ios, bytes, "
                 "lat_n, lat_sum, lat_sumsq, lat_min, lat_max, hist%s) FROM STDIN (FORMAT binary)",
                 table, b->nfields == NFIELDS_OLD ? "" : ", cpu_busy_pct, fio_cpu_pct, host_cpus");
    PGresult *r = NULL;
    if (lg_db_query(w->db, sql, 0, NULL, &r, w->err, sizeof w->err) != 0)
        return -1;
    int ok = lg_db_copy_started(r, w->err, sizeof w->err);
    lg_db_result_destroy(&r);
    if (!ok)
        return -1;
    /* signature, flags, header extension length; then the rows; then a field count of -1; each
     * to the deadline (db.h): a database that stops taking them fails the batch, which waits */
    static const char head[19] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";
    static const char tail[2] = {'\377', '\377'};
    if (lg_db_copy_put(w->db, head, sizeof head, w->err, sizeof w->err) != 0 ||
        lg_db_copy_put(w->db, (const char *)b->rows, b->len, w->err, sizeof w->err) != 0 ||
        lg_db_copy_put(w->db, tail, sizeof tail, w->err, sizeof w->err) != 0)
        return -1;
    r = NULL;
    if (lg_db_copy_end(w->db, &r, w->err, sizeof w->err) != 0)
        return -1;
    if (!lg_db_result_ok(r)) {
        lg_db_error_t e;
        lg_db_result_error(r, &e);
        *dup = strcmp(e.sqlstate, "23505") == 0; /* unique_violation */
        snprintf(w->err, sizeof w->err, "%s", lg_db_result_message(r));
        ok = 0;
    }
    lg_db_result_destroy(&r);
    return ok ? 0 : -1;
}

static void s_rollback(lg_writer_t *w)
{
    char keep[512];
    snprintf(keep, sizeof keep, "%s", w->err);
    s_q(w, "ROLLBACK");
    snprintf(w->err, sizeof w->err, "%s", keep[0] ? keep : "unknown error");
}

/* Worker thread: write the flying batch in one transaction. Straight into its tables, the way
 * psql \copy would; only a batch that holds a sample already stored (an agent resends what it
 * had no acknowledgement for) goes the slower way: COPY into temporary tables, then INSERT ... ON
 * CONFLICT DO NOTHING, so the resent sample is absorbed by its table's key ((run, agent, seq,
 * direction) or (run, agent, seq)) instead of failing the batch. */

/* On the worker: the next batch from the spool into flying (nothing to acknowledge: that was
 * done when it was written there). Returns 0 with rows, or -1 (w->err set, or nothing waits). */
static int s_read_spool(lg_writer_t *w)
{
    char *rows = NULL;
    size_t len = 0, nrows = 0;
    int kind = 0;
    w->spool_bad = w->spool_empty = 0;
    int rc = lg_spill_read(w->spill, 4u << 20, &rows, &len, &nrows, &kind, w->err, sizeof w->err);
    if (rc < 0) {
        w->spool_bad = rc;
        return -1;
    }
    s_batch_reset(&w->flying);
    if (rc == 0) { /* an empty transaction: it finds out whether the database is back */
        w->spool_empty = 1;
        return 0;
    }
    int t = kind >> 16, nf = kind & 0xffff;
    if (t >= T_NR || (t == T_APP ? nf != APP_NFIELDS : nf != NFIELDS && nf != NFIELDS_OLD)) {
        free(rows); /* not one this controller wrote: damaged, or from a newer one */
        snprintf(w->err, sizeof w->err,
                 "spool %s: a record of kind %#x, which this lg-controller does not know, holds "
                 "%zu rows: kept, and stored by the lg-controller that wrote it",
                 lg_spill_path(w->spill), (unsigned)kind, nrows);
        w->spool_bad = LG_EPROTO;
        return -1;
    }
    part_t *p = &w->flying.t[t];
    free(p->rows);
    p->rows = rows;
    p->len = p->cap = len;
    p->nrows = nrows;
    p->nfields = nf;
    return 0;
}

static void s_write_batch(lg_writer_t *w);
static void s_write_resent(lg_writer_t *w);

static void s_work(uv_work_t *req)
{
    lg_writer_t *w = req->data;
    w->err[0] = 0;
    if (w->from_spill && s_read_spool(w) != 0)
        return;
    s_write_batch(w);
    if (w->from_spill && w->err[0] == 0) {
        char e[512];
        if (lg_spill_commit(w->spill, e, sizeof e) != 0)
            lg_warn("%s", e); /* stored: the worst is writing them again, absorbed by the key */
    }
}

/* Write the flying batch (see s_work). */
static void s_write_batch(lg_writer_t *w)
{
    if (w->db && !lg_db_connected(w->db)) {
        lg_db_close(&w->db);
    }
    if (!w->db) {
        w->db = lg_db_connect(w->conninfo, w->err, sizeof w->err);
        if (!w->db)
            return;
        w->have_temp = 0;
    }
    int dup = 0, rc = s_q(w, "BEGIN");
    if (rc)
        return;
    for (int t = 0; t < T_NR && rc == 0; t++)
        if (w->flying.t[t].nrows)
            rc = s_copy(w, t, s_table[t], &dup);
    if (rc == 0) {
        if (s_q(w, "COMMIT"))
            s_rollback(w);
        return;
    }
    s_rollback(w);
    if (dup)
        s_write_resent(w);
}

/* The flying batch holds a row already stored: through the temporary tables, whose rows the
 * tables' keys absorb. */
static void s_write_resent(lg_writer_t *w)
{
    char sql[160];
    int dup = 0, rc = 0;
    w->err[0] = 0;
    for (int t = 0; t < T_NR && !w->have_temp && rc == 0; t++) {
        snprintf(sql, sizeof sql,
                 "CREATE TEMP TABLE IF NOT EXISTS %s (LIKE %s) ON COMMIT DELETE ROWS", s_temp[t],
                 s_table[t]);
        rc = s_q(w, sql);
    }
    if (rc)
        return;
    w->have_temp = 1;
    if (s_q(w, "BEGIN"))
        return;
    for (int t = 0; t < T_NR && rc == 0; t++) {
        if (!w->flying.t[t].nrows)
            continue;
        snprintf(sql, sizeof sql, "INSERT INTO %s SELECT * FROM %s ON CONFLICT DO NOTHING",
                 s_table[t], s_temp[t]);
        rc = s_copy(w, t, s_temp[t], &dup) || s_q(w, sql);
    }
    if (rc == 0 && s_q(w, "COMMIT") == 0)
        return;
    s_rollback(w);
}

static void s_batch_reset(batch_t *b)
{
    for (int t = 0; t < T_NR; t++) {
        b->t[t].len = 0;
        b->t[t].nrows = 0;
        b->t[t].nfields = t == T_APP ? APP_NFIELDS : NFIELDS;
    }
    b->nacks = 0;
}

static void s_batch_clear(batch_t *b)
{
    for (int t = 0; t < T_NR; t++)
        free(b->t[t].rows);
    free(b->acks);
}

static void s_swap(batch_t *a, batch_t *b)
{
    batch_t t = *a;
    *a = *b;
    *b = t;
}

static void s_ack_all(lg_writer_t *w, const batch_t *b)
{
    for (size_t i = 0; i < b->nacks; i++)
        w->ack(w->arg, b->acks[i].id, b->acks[i].idlen, b->acks[i].run_id, b->acks[i].lo,
               b->acks[i].hi);
}

static void s_on_retry(uv_timer_t *t)
{
    lg_writer_flush(t->data);
}

/* A batch failed: the next try waits 0.5, 1, 2, 4, then 5 s, so a database that refuses
 * connections is not asked ten times a second. With a spool, rows go there meanwhile. */
static void s_failed(lg_writer_t *w, size_t nrows)
{
    w->err[strcspn(w->err, "\n")] = 0;
    if (!w->failed)
        lg_error("could not store %zu samples: %s%s", nrows, w->err,
                 w->spill ? "; samples go to the spool until the database takes them" : "");
    w->failed = 1;
    w->fails++;
    uint64_t pause = w->fails >= 5 ? 5000 : 250u << w->fails;
    w->retry_at = lg_mono_ms() + pause;
    if (w->spill) {
        w->spill_mode = 1;
        /* The batch that failed is the oldest: first into the spool (acknowledged once there),
         * and the next try is an empty COPY that finds out whether the database is back. */
        if (s_nrows(&w->flying) && !s_nrows(&w->spilling) && !w->spill_busy) {
            s_swap(&w->spilling, &w->flying);
            s_batch_reset(&w->flying);
        }
    }
    if (!w->destroyed)
        uv_timer_start(&w->retry, s_on_retry, pause, 0);
}

static void s_after_work(uv_work_t *req, int status)
{
    lg_writer_t *w = req->data;
    w->busy = 0;
    batch_t *b = &w->flying;
    int from_spill = w->from_spill;
    w->from_spill = 0;
    if (status == 0 && w->err[0] == 0) {
        w->written += s_nrows(b);
        if (w->failed)
            lg_info("the database takes samples again%s",
                    w->spill_rows ? "; writing the spool's first" : "");
        w->failed = 0;
        w->fails = 0;
        if (from_spill && w->spool_empty)
            w->spill_rows = 0;
        else if (from_spill)
            w->spill_rows -= s_nrows(b) <= w->spill_rows ? s_nrows(b) : w->spill_rows;
        else if (!w->destroyed)
            s_ack_all(w, b);
        s_batch_reset(b);
        if (!w->destroyed && (s_nrows(&w->queued) || w->spill_rows))
            lg_writer_flush(w);
        if (!w->destroyed && w->done)
            w->done(w->arg);
        return;
    }
    /* Keep a batch from memory: nothing is acknowledged, so agents keep their copies too. One
     * read from the spool is read again from there. */
    size_t n = s_nrows(b);
    if (from_spill)
        s_batch_reset(b);
    if (from_spill && w->spool_bad == LG_EPARSE) { /* damaged: said, what follows skipped */
        lg_error("%s", w->err);
        w->spill_rows = 0;
    } else {
        s_failed(w, n);
    }
    if (!w->destroyed && w->done)
        w->done(w->arg);
}

int lg_writer_failing(const lg_writer_t *w)
{
    return w->failed;
}

/* On the spool worker: append the spilling batch. */
static void s_spill_work(uv_work_t *req)
{
    lg_writer_t *w = req->data;
    w->spill_err[0] = 0;
    batch_t *b = &w->spilling;
    lg_spill_part_t parts[T_NR];
    size_t n = 0;
    for (int t = 0; t < T_NR; t++)
        if (b->t[t].nrows)
            parts[n++] = (lg_spill_part_t){b->t[t].rows, b->t[t].len, b->t[t].nrows,
                                           KIND(t, b->t[t].nfields)};
    w->spill_rc = lg_spill_append_parts(w->spill, parts, n, w->spill_err, sizeof w->spill_err);
}

static void s_spill_after(uv_work_t *req, int status)
{
    lg_writer_t *w = req->data;
    w->spill_busy = 0;
    batch_t *b = &w->spilling;
    if (status == 0 && w->spill_rc == 0) {
        if (!w->destroyed)
            s_ack_all(w, b); /* fsynced: the agents may drop their copies */
        w->spill_rows += s_nrows(b);
        w->spilled += s_nrows(b);
        w->spill_full_said = w->spill_err_said = 0;
        s_batch_reset(b);
        if (!w->destroyed && w->done)
            w->done(w->arg);
        return;
    }
    w->spill_retry_at = lg_mono_ms() + 1000; /* held; tried again */
    if (w->spill_rc == LG_ETOOBIG && !w->spill_full_said) {
        w->spill_full_said = 1;
        lg_error("the spool %s is full (%llu bytes, --spool-max): samples now wait in the "
                 "agents' own spools until the database takes the spool's",
                 lg_spill_path(w->spill), (unsigned long long)lg_spill_max(w->spill));
    } else if (w->spill_rc != LG_ETOOBIG && !w->spill_err_said) {
        /* its filesystem full (ENOSPC) or failing: as past --spool-max, nothing is lost */
        w->spill_err_said = 1;
        lg_error("%s: samples now wait in the agents' own spools until the spool can be written "
                 "or the database takes them",
                 w->spill_err[0] ? w->spill_err : "could not write to the spool");
    }
    if (!w->destroyed && w->done)
        w->done(w->arg);
}

/* In spill mode: move what is queued to the spool (one append at a time). Spill mode ends
 * once the database takes samples and the spool is empty with nothing on its way there. */
static void s_spill_flush(lg_writer_t *w)
{
    if (!w->spill_mode || w->spill_busy)
        return;
    if (!w->failed && !w->spill_rows && !s_nrows(&w->spilling) && !(w->busy && w->from_spill)) {
        w->spill_mode = 0;
        return;
    }
    if (!s_nrows(&w->spilling)) {
        if (!s_nrows(&w->queued))
            return;
        s_swap(&w->spilling, &w->queued);
        s_batch_reset(&w->queued);
    } else if (!w->failed && !w->spill_rows && !w->busy) {
        /* held, and the spool is empty yet it did not fit (bigger than --spool-max): the
         * database takes samples again, so it goes there straight (acknowledged after) */
        s_swap(&w->flying, &w->spilling);
        s_batch_reset(&w->spilling);
        return;
    } else if (lg_mono_ms() < w->spill_retry_at) {
        return;
    }
    w->spill_busy = 1;
    int rc = lg_lane_queue(w->spool_lane, &w->spill_work, s_spill_work, s_spill_after);
    if (rc) {
        w->spill_busy = 0;
        lg_error("could not queue a write to the spool: %s", uv_strerror(rc));
    }
}

void lg_writer_flush(lg_writer_t *w)
{
    if (w->destroyed)
        return;
    s_spill_flush(w);
    if (w->busy || (w->failed && lg_mono_ms() < w->retry_at))
        return;
    if (s_nrows(&w->flying)) {
        /* a failed batch from memory: tried again as it was */
    } else if (w->spill_rows) {
        w->from_spill = 1; /* read on the worker */
    } else if (s_nrows(&w->queued) && !w->spill_mode) {
        s_swap(&w->flying, &w->queued);
        s_batch_reset(&w->queued);
    } else if (w->failed && w->spill_mode) {
        w->from_spill = 1; /* nothing to write: a probe that finds the database back */
    } else {
        return;
    }
    w->busy = 1;
    int rc = lg_lane_queue(w->lane, &w->work, s_work, s_after_work);
    if (rc) {
        w->busy = 0;
        w->from_spill = 0;
        lg_error("could not queue a database write: %s", uv_strerror(rc));
    }
}

void lg_writer_on_done(lg_writer_t *w, lg_writer_done_cb done)
{
    w->done = done;
}

void lg_writer_retry_now(lg_writer_t *w)
{
    if (!w->failed)
        return;
    w->retry_at = 0;
    w->fails = 0;
    lg_writer_flush(w);
}

void lg_writer_set_spool(lg_writer_t *w, lg_spill_t *spill)
{
    w->spill = spill;
    w->spill_rows = lg_spill_rows(spill);
    w->spill_mode = w->spill_rows > 0; /* a previous controller's first */
}

size_t lg_writer_queued(const lg_writer_t *w)
{
    return s_nrows(&w->queued);
}

size_t lg_writer_pending(const lg_writer_t *w)
{
    return lg_writer_unsaved(w) + (size_t)w->spill_rows;
}

size_t lg_writer_unsaved(const lg_writer_t *w)
{
    return s_nrows(&w->queued) + s_nrows(&w->spilling) +
           (w->busy || w->failed ? s_nrows(&w->flying) : 0);
}

uint64_t lg_writer_spooled(const lg_writer_t *w)
{
    return w->spill_rows;
}

uint64_t lg_writer_rows_written(const lg_writer_t *w)
{
    return w->written;
}
int lg_writer_busy(const lg_writer_t *w)
{
    return w->busy || w->spill_busy;
}

static void s_on_timer_close(uv_handle_t *h)
{
    lg_writer_t *w = h->data;
    s_batch_clear(&w->queued);
    s_batch_clear(&w->flying);
    s_batch_clear(&w->spilling);
    lg_spill_close(&w->spill);
    lg_lane_destroy(&w->lane); /* idle: the controller closes the writer when it is not busy */
    lg_lane_destroy(&w->spool_lane);
    lg_db_close(&w->db);
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

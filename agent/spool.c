/* spool.c: a FIFO of packed messages awaiting acknowledgement. */
#include "spool.h"

#include <errno.h>
#include <stdlib.h>

#include "lg_error.h"

typedef struct {
    uint64_t run_id;
    uint64_t seq;
    int is_result;
    uint8_t *buf;
    size_t len;
    uint64_t sent_ms;
} entry_t;

struct lg_spool {
    entry_t *e;
    size_t n, cap;
    size_t bytes, max_bytes;
};

lg_spool_t *lg_spool_new(size_t max_bytes)
{
    lg_spool_t *s = calloc(1, sizeof *s);
    if (s)
        s->max_bytes = max_bytes;
    return s;
}

int lg_spool_put(lg_spool_t *s, uint64_t run_id, uint64_t seq, int is_result, uint8_t *buf,
                 size_t len, uint64_t now_ms)
{
    if (s->bytes + len > s->max_bytes) {
        free(buf);
        return LG_ETOOBIG;
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        entry_t *ne = realloc(s->e, nc * sizeof *ne);
        if (!ne) {
            free(buf);
            return -ENOMEM;
        }
        s->e = ne;
        s->cap = nc;
    }
    s->e[s->n++] = (entry_t){run_id, seq, is_result, buf, len, now_ms};
    s->bytes += len;
    return 0;
}

size_t lg_spool_ack(lg_spool_t *s, uint64_t run_id, uint64_t seq_from, uint64_t seq, int result)
{
    size_t w = 0, dropped = 0;
    for (size_t i = 0; i < s->n; i++) {
        entry_t *x = &s->e[i];
        int drop = x->run_id == run_id &&
                   (x->is_result ? result != 0 : x->seq >= seq_from && x->seq <= seq);
        if (drop) {
            s->bytes -= x->len;
            free(x->buf);
            dropped++;
        } else {
            s->e[w++] = *x;
        }
    }
    s->n = w;
    return dropped;
}

size_t lg_spool_resend(lg_spool_t *s, uint64_t now_ms, uint64_t min_age_ms, lg_spool_send_fn fn,
                       void *arg)
{
    size_t sent = 0;
    for (size_t i = 0; i < s->n; i++) {
        entry_t *x = &s->e[i];
        if (min_age_ms && x->sent_ms + min_age_ms > now_ms)
            continue;
        if (fn(arg, x->buf, x->len) != 0)
            break;
        x->sent_ms = now_ms;
        sent++;
    }
    return sent;
}

size_t lg_spool_count(const lg_spool_t *s)
{
    return s->n;
}
size_t lg_spool_bytes(const lg_spool_t *s)
{
    return s->bytes;
}

void lg_spool_destroy(lg_spool_t **self_p)
{
    lg_spool_t *s = *self_p;
    if (!s)
        return;
    *self_p = NULL;
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].buf);
    free(s->e);
    free(s);
}

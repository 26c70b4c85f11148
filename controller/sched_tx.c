/* sched_tx.c: the scheduler's state changes on their way to the store (store.h): off the loop, in
 * order, retried while the database is away, one transaction each, or several statements as one
 * (lg__sched_begin .. lg__sched_commit). Nothing here calls the scheduler back. */
#include <stdio.h>
#include <stdlib.h>

#include "lg_log.h"
#include "sched_int.h"
#include "sched_jobs.h"
#include "store.h"

/* State changes go to the store (store.h): off the loop, in order, retried while the database
 * is away, one transaction each. Between lg__sched_begin and lg__sched_commit every lg__sched_q
 * and lg__sched_step joins one transaction (a run's end: merged results, its state, the
 * campaign's); outside, an lg__sched_q is a transaction of its own. The loop moves on at once:
 * what it holds in memory is the truth, and the database follows in the same order. */
static lg_tx_t *s_group;

void lg__sched_begin(lg_ctrl_t *c, const char *fmt, unsigned long long id)
{
    (void)c;
    char what[160];
    snprintf(what, sizeof what, fmt, id);
    s_group = lg_tx_new(what);
    if (!s_group)
        lg_error("could not %s: out of memory", what);
}

/* done, if given, runs once the transaction committed (or was refused: rc) */
int lg__sched_commit_then(lg_ctrl_t *c, lg_store_done_fn done, void *arg)
{
    lg_tx_t *t = s_group;
    s_group = NULL;
    return t ? c->io->tx(c, t, done, arg) : -ENOMEM;
}

void lg__sched_commit(lg_ctrl_t *c)
{
    lg__sched_commit_then(c, NULL, NULL);
}

int lg__sched_q(lg_ctrl_t *c, const char *what, const char *sql, int n, const char *const *p)
{
    if (s_group) {
        lg_tx_sql(s_group, sql, n, p);
        return 0;
    }
    lg_tx_t *t = lg_tx_new(what);
    if (!t) {
        lg_error("could not %s: out of memory", what);
        return -ENOMEM;
    }
    lg_tx_sql(t, sql, n, p);
    return c->io->tx(c, t, NULL, NULL);
}

int lg__sched_step(lg_ctrl_t *c, int (*fn)(PGconn *, void *, char *, size_t), void *data,
                   void (*free_data)(void *))
{
    (void)c;
    if (!s_group)
        return -ENOMEM;
    lg_tx_step(s_group, fn, data, free_data);
    return 0;
}

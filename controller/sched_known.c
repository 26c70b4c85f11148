/* sched_known.c: which agent took part in which run, so that late samples and results are
 * stored only for a run their agent was in (lg__sched_sample_ok): a ring of (run, agent) pairs,
 * filled as runs start and by checks the store makes off the loop. */
#include <stdlib.h>

#include "lg_log.h"
#include "sched_int.h"
#include "sched_jobs.h"

/* The ring's size: checks the store makes off the loop fill it too, for pairs it has not seen (a
 * sample resent long after its run). */
#define KNOWN_MAX 4096

typedef struct known_s {
    uint64_t run_id, agent_id;
    int ok; /* 1 took part, 0 did not, -1 being checked */
} known_t;

static known_t *s_known_find(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id)
{
    for (size_t i = 0; c->known && i < KNOWN_MAX; i++)
        if (c->known[i].run_id == run_id && c->known[i].agent_id == agent_id)
            return &c->known[i];
    return NULL;
}

static known_t *s_known_add(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id, int ok)
{
    known_t *k = s_known_find(c, run_id, agent_id);
    if (!k) {
        if (!c->known && !(c->known = calloc(KNOWN_MAX, sizeof *c->known)))
            return NULL;
        k = &c->known[c->known_next];
        c->known_next = (c->known_next + 1) % KNOWN_MAX;
    }
    *k = (known_t){run_id, agent_id, ok};
    return k;
}

void lg__sched_known_took_part(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id)
{
    s_known_add(c, run_id, agent_id, 1);
}

static void s_known_done(void *arg, void *job, int rc, const char *err)
{
    (void)arg, (void)err;
    known_job_t *j = job;
    known_t *k = s_known_find(j->c, j->run_id, j->agent_id);
    if (k && k->ok == -1) {
        if (rc)
            k->run_id = k->agent_id = 0; /* asked again by the next resend */
        else
            k->ok = j->found;
        if (!rc && !j->found) { /* said once here: its samples are not stored */
            const char *name = "?";
            for (size_t i = 0; i < j->c->nagents; i++)
                if (j->c->agents[i].agent_id == j->agent_id)
                    name = j->c->agents[i].name;
            lg_warn("dropped a sample of unknown run %llu from \"%s\": it took no part in it",
                    (unsigned long long)j->run_id, name);
        }
    }
    free(j);
}

int lg__sched_sample_ok(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    if (lg__sched_agent_in_run(c, conn, run_id))
        return 1;
    uint64_t aid = c->agents[conn].agent_id;
    if (run_id == 0 || aid == 0)
        return 0;
    known_t *k = s_known_find(c, run_id, aid);
    if (k)
        return k->ok;
    known_job_t *j = calloc(1, sizeof *j);
    if (!j || !s_known_add(c, run_id, aid, -1)) {
        free(j);
        return -1;
    }
    *j = (known_job_t){c, run_id, aid, 0};
    if (c->io->submit(c, lg__sched_known_work, s_known_done, j) != 0) {
        free(j);
        s_known_find(c, run_id, aid)->run_id = 0;
    }
    return -1; /* not acknowledged: the agent resends, and by then we know */
}

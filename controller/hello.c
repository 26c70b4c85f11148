/* hello.c: an agent's registration. The row its Hello makes in lg.agent is written off the loop
 * by the store, in batches: every Hello that arrived while the last batch was written goes in one
 * statement and one commit (10,000 agents registering together cost 10,000 commits otherwise,
 * each a WAL flush, in a row on the store's one thread). Once the row is committed the agent is
 * welcomed and the scheduler hears of it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "store.h"
#include "text.h"

/* Hellos in one statement at most: their Welcomes and log lines then hold the loop for a few ms. */
#define BATCH_MAX 256
#define NCOLS 8

/* A Hello on its way to lg.agent. */
typedef struct hello_job {
    struct hello_job *next;
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    char *p[NCOLS]; /* name, lg_version, os, cpu_model, cpu_count, mem_bytes, fio_version, facts */
    uint64_t agent_id;
    int rc;      /* this row's, when the batch was refused and each row went alone */
    char *err;   /* and why */
    int matched; /* the batch's statement returned its row */
} hello_job_t;

/* The Hellos waiting for the batch in the store to end. */
struct lg_hellos {
    hello_job_t *head, *tail;
    size_t n;
    int busy; /* a batch is in the store */
};

/* A batch: its jobs and the rows as one JSON array (NULL: each row goes alone). */
typedef struct {
    hello_job_t *jobs;
    size_t n;
    char *json;
} batch_t;

static void s_job_destroy(hello_job_t **self_p)
{
    hello_job_t *j = self_p ? *self_p : NULL;
    if (!j)
        return;
    *self_p = NULL;
    for (int i = 0; i < NCOLS; i++)
        free(j->p[i]);
    free(j->err);
    free(j);
}

static void s_batch_destroy(batch_t **self_p)
{
    batch_t *b = self_p ? *self_p : NULL;
    if (!b)
        return;
    *self_p = NULL;
    while (b->jobs) {
        hello_job_t *j = b->jobs;
        b->jobs = j->next;
        s_job_destroy(&j);
    }
    free(b->json);
    free(b);
}

/* What an agent says of itself beyond the columns: NICs (link speed, addresses), engines,
 * allowed targets and its labels, as lg.agent.facts. */
static char *s_facts_json(const Lg__Hello *h, const char *labels)
{
    json_t *o = json_object(), *nics = json_array(), *eng = json_array(), *allow = json_array();
    json_t *lab = json_object();
    for (size_t i = 0; i < h->n_nics; i++) {
        const Lg__Nic *n = h->nics[i];
        json_t *a = json_array();
        for (size_t k = 0; k < n->n_addrs; k++)
            json_array_append_new(a, json_string(n->addrs[k] ? n->addrs[k] : ""));
        json_array_append_new(
            nics, json_pack("{s:s, s:i, s:s, s:o}", "name", n->name ? n->name : "", "speed_mbps",
                            (json_int_t)n->speed_mbps, "mac", n->mac ? n->mac : "", "addrs", a));
    }
    for (size_t i = 0; i < h->n_engines; i++)
        json_array_append_new(eng, json_string(h->engines[i] ? h->engines[i] : ""));
    for (size_t i = 0; i < h->n_allowed_targets; i++)
        json_array_append_new(allow,
                              json_string(h->allowed_targets[i] ? h->allowed_targets[i] : ""));
    for (const char *p = labels; *p;) {
        size_t len = strcspn(p, "\n");
        const char *eq = memchr(p, '=', len);
        if (eq) {
            char key[64];
            size_t kl = (size_t)(eq - p) < sizeof key - 1 ? (size_t)(eq - p) : sizeof key - 1;
            memcpy(key, p, kl);
            key[kl] = 0;
            json_object_set_new(lab, key, json_stringn(eq + 1, len - (size_t)(eq - p) - 1));
        }
        p += len + (p[len] == '\n');
    }
    json_object_set_new(o, "nics", nics);
    json_object_set_new(o, "engines", eng);
    json_object_set_new(o, "allowed_targets", allow);
    json_object_set_new(o, "labels", lab);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

#define UPSERT_SET                                                                                 \
    " ON CONFLICT (name) DO UPDATE SET lg_version = EXCLUDED.lg_version,"                          \
    " os = EXCLUDED.os, cpu_model = EXCLUDED.cpu_model,"                                           \
    " cpu_count = EXCLUDED.cpu_count, mem_bytes = EXCLUDED.mem_bytes,"                             \
    " fio_version = EXCLUDED.fio_version, facts = EXCLUDED.facts,"                                 \
    " last_seen = now() RETURNING name, agent_id"

/* One row alone, as every Hello was written before batches. */
static int s_one(PGconn *db, hello_job_t *j, char *err, size_t errlen)
{
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "INSERT INTO lg.agent (name, lg_version, os, cpu_model, cpu_count,"
                        " mem_bytes, fio_version, facts) VALUES ($1, $2, $3, $4, $5, $6, $7,"
                        " $8::jsonb)" UPSERT_SET,
                        NCOLS, (const char *const *)j->p, &r, err, errlen);
    if (rc)
        return rc;
    j->agent_id = strtoull(lg_db_get(r, 0, lg_db_col(r, "agent_id")), NULL, 10);
    lg_db_result_destroy(&r);
    return 0;
}

/* The batch in one statement; 0 with each job's agent_id, or the statement's error. */
static int s_all(PGconn *db, batch_t *b, char *err, size_t errlen)
{
    PGresult *r = NULL;
    const char *param = b->json;
    int rc = lg_db_exec(db,
                        "INSERT INTO lg.agent (name, lg_version, os, cpu_model, cpu_count,"
                        " mem_bytes, fio_version, facts)"
                        " SELECT x.name, x.lg_version, x.os, x.cpu_model, x.cpu_count::integer,"
                        " x.mem_bytes::bigint, x.fio_version, x.facts::jsonb"
                        " FROM jsonb_to_recordset($1::jsonb) AS x(name text, lg_version text,"
                        " os text, cpu_model text, cpu_count text, mem_bytes text,"
                        " fio_version text, facts text)" UPSERT_SET,
                        1, &param, &r, err, errlen);
    if (rc)
        return rc;
    int cn = lg_db_col(r, "name"), ci = lg_db_col(r, "agent_id");
    for (int row = 0; row < lg_db_nrows(r); row++) {
        const char *name = lg_db_get(r, row, cn);
        for (hello_job_t *j = b->jobs; j; j = j->next)
            if (!j->matched && strcmp(j->p[0], name) == 0) {
                j->agent_id = strtoull(lg_db_get(r, row, ci), NULL, 10);
                j->matched = 1;
                break;
            }
    }
    lg_db_result_destroy(&r);
    return 0;
}

/* On the store's thread. A batch the database refuses (a row it will not take, or two Hellos of
 * one name in it) goes again row by row, so that only the rows at fault fail. */
static int s_batch_work(PGconn *db, void *arg, char *err, size_t errlen)
{
    batch_t *b = arg;
    for (hello_job_t *j = b->jobs; j; j = j->next) { /* the store may run it twice */
        j->rc = 0;
        j->matched = 0;
        free(j->err);
        j->err = NULL;
    }
    int rc = b->json ? s_all(db, b, err, errlen) : LG_EDB;
    if (rc == 0 || rc == LG_ETIMEOUT || (b->json && !lg_db_connected(db)))
        return rc;
    for (hello_job_t *j = b->jobs; j; j = j->next) {
        char e[1024] = "";
        j->rc = s_one(db, j, e, sizeof e);
        if (j->rc == 0) {
            j->matched = 1;
            continue;
        }
        j->err = strdup(e);
        if (j->rc == LG_ETIMEOUT || !lg_db_connected(db)) {
            snprintf(err, errlen, "%s", e);
            return j->rc; /* the database is away: every row of the batch is asked again */
        }
    }
    err[0] = 0;
    return 0;
}

/* The rows of the batch as one JSON array of objects; NULL when one cannot be made. */
static char *s_batch_json(const batch_t *b)
{
    static const char *const cols[NCOLS] = {"name",      "lg_version", "os",          "cpu_model",
                                            "cpu_count", "mem_bytes",  "fio_version", "facts"};
    json_t *rows = json_array();
    int bad = !rows;
    for (const hello_job_t *j = b->jobs; !bad && j; j = j->next) {
        json_t *o = json_object();
        bad = !o || json_array_append_new(rows, o) != 0;
        for (int i = 0; !bad && i < NCOLS; i++)
            bad = json_object_set_new(o, cols[i], json_string(j->p[i])) != 0;
    }
    char *text = bad ? NULL : json_dumps(rows, JSON_COMPACT);
    json_decref(rows);
    return text;
}

static void s_submit(lg_ctrl_t *c);

/* One Hello of the batch ended (rc, err): the agent welcomed and given to the scheduler, or
 * said not to be (it says Hello again in a while). */
static void s_registered(lg_ctrl_t *c, hello_job_t *j, int rc, const char *err)
{
    ssize_t k = c->stopping || !c->zs_agents ? -1 : lg__agents_by_id(c, j->id, j->idlen);
    lg_agent_conn_t *a = k >= 0 ? &c->agents[k] : NULL;
    if (a && strcmp(a->name, j->p[0]) != 0)
        a = NULL; /* the connection gave its name to another meanwhile */
    if (a)
        a->registering = 0;
    if (rc && rc != LG_ESTATE) /* it asks again in a while */
        lg_error("could not register agent \"%s\": %s", j->p[0], err);
    if (!a || rc)
        return;
    a->agent_id = j->agent_id;
    a->state = LG__AGENT_STATE__AGENT_IDLE;
    a->lost = 0;
    lg_info("agent \"%s\" registered (id %llu, %s, %s CPUs, %s)", a->name,
            (unsigned long long)a->agent_id, a->os, j->p[4], a->fio_version);
    a->welcomed_ms = lg_mono_ms();
    lg__ctrl_send_welcome(c, a->id, a->idlen, a->agent_id);
    lg__sched_on_agent(c, (size_t)k);
}

static void s_batch_done(void *arg, void *job, int rc, const char *err)
{
    lg_ctrl_t *c = arg;
    batch_t *b = job;
    if (c->hellos)
        c->hellos->busy = 0;
    lg_zsock_t *zs = c->zs_agents; /* the Welcomes as one burst: what arrived is read after it */
    if (zs)
        lg_zsock_hold(zs);
    for (hello_job_t *j = b->jobs; j; j = j->next) {
        if (rc)
            s_registered(c, j, rc, err);
        else if (j->rc)
            s_registered(c, j, j->rc, j->err ? j->err : lg_strerror(j->rc));
        else if (!j->matched)
            s_registered(c, j, LG_EDB, "its row was not returned");
        else
            s_registered(c, j, 0, "");
    }
    if (zs && zs == c->zs_agents)
        lg_zsock_release(zs);
    s_batch_destroy(&b);
    if (c->hellos && !c->stopping)
        s_submit(c); /* what arrived meanwhile */
}

/* The waiting Hellos (BATCH_MAX at most) to the store, unless a batch is there already. */
static void s_submit(lg_ctrl_t *c)
{
    struct lg_hellos *q = c->hellos;
    if (q->busy || !q->head || !c->store)
        return;
    batch_t *b = calloc(1, sizeof *b);
    if (!b)
        return; /* tried again with the next Hello */
    hello_job_t **tail = &b->jobs;
    while (q->head && b->n < BATCH_MAX) {
        hello_job_t *j = q->head;
        q->head = j->next;
        q->n--;
        j->next = NULL;
        *tail = j;
        tail = &j->next;
        b->n++;
    }
    if (!q->head)
        q->tail = NULL;
    b->json = s_batch_json(b); /* NULL: the rows go alone */
    if (lg_store_submit(c->store, s_batch_work, s_batch_done, c, b) != 0) {
        for (hello_job_t *j = b->jobs; j; j = j->next)
            s_registered(c, j, -ENOMEM, "out of memory");
        s_batch_destroy(&b);
        return;
    }
    q->busy = 1;
}

int lg__hello_store(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const Lg__Hello *h,
                    const char *labels)
{
    if (!c->hellos && !(c->hellos = calloc(1, sizeof *c->hellos)))
        return -ENOMEM;
    hello_job_t *j = calloc(1, sizeof *j);
    char cpus[16], mem[32];
    snprintf(cpus, sizeof cpus, "%u", h->cpu_count);
    snprintf(mem, sizeof mem, "%llu", (unsigned long long)h->mem_bytes);
    const char *v[NCOLS] = {h->name,
                            h->lg_version ? h->lg_version : "",
                            h->os ? h->os : "",
                            h->cpu_model ? h->cpu_model : "",
                            cpus,
                            mem,
                            h->fio_version ? h->fio_version : "",
                            NULL};
    static const char *const what[NCOLS] = {"name", "lg version", "OS",         "CPU model",
                                            "",     "",           "fio version"};
    int bad = !j;
    /* what the host and fio (--version) said, as text takes it (text.h) */
    for (int i = 0; !bad && i < NCOLS - 1; i++)
        bad = (j->p[i] = lg_text_in(v[i], strlen(v[i]), 0, 0, NULL, 0, "agent \"%s\"'s %s", h->name,
                                    what[i])) == NULL;
    if (!bad)
        bad = (j->p[NCOLS - 1] = s_facts_json(h, labels)) == NULL;
    if (bad) {
        s_job_destroy(&j);
        return -ENOMEM;
    }
    memcpy(j->id, id, idlen);
    j->idlen = idlen;
    struct lg_hellos *q = c->hellos;
    if (q->tail)
        q->tail->next = j;
    else
        q->head = j;
    q->tail = j;
    q->n++;
    s_submit(c);
    return 0;
}

void lg__hello_clear(lg_ctrl_t *c)
{
    struct lg_hellos *q = c->hellos;
    if (!q)
        return;
    c->hellos = NULL;
    while (q->head) {
        hello_job_t *j = q->head;
        q->head = j->next;
        s_job_destroy(&j);
    }
    free(q);
}

/* hook.c: the controller's one way to run a program, on lg_child (core): a process group of its
 * own, stdout read up to a cap, the tail of stderr kept, and a deadline after which the group
 * gets SIGTERM and then SIGKILL, so that nothing the controller runs can keep it waiting. */
#include "hook.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lg_child.h"

#define TAIL 2048
/* After the exit, how long its pipes may stay open (a child it left behind holding them)
 * before lg stops reading. */
#define DRAIN_MS 1000

extern char **environ;

typedef struct s_proc {
    struct s_proc *prev, *next; /* the programs still running (s_live) */
    lg_child_t *child;
    uv_loop_t *loop;
    int truncated;
    lg_hook_exec_done_cb done;
    void *arg;
    char *out;
    size_t outlen, outcap, out_max;
} s_proc_t;

/* The programs still running, for lg_hook_cancel_all. Touched on the loop's thread only. */
static s_proc_t *s_live;

static void s_link(s_proc_t *k)
{
    k->next = s_live;
    if (s_live)
        s_live->prev = k;
    s_live = k;
}

static void s_unlink(s_proc_t *k)
{
    if (k->prev)
        k->prev->next = k->next;
    else if (s_live == k)
        s_live = k->next;
    if (k->next)
        k->next->prev = k->prev;
    k->prev = k->next = NULL;
}

static void s_proc_destroy(s_proc_t **self_p)
{
    s_proc_t *k = self_p ? *self_p : NULL;
    if (!k)
        return;
    *self_p = NULL;
    free(k->out);
    free(k);
}

static void s_on_exit(void *arg, const lg_child_exit_t *e)
{
    s_proc_t *k = arg;
    s_unlink(k);
    if (k->out)
        k->out[k->outlen] = 0;
    k->done(k->arg, e->status, e->term_signal, e->timed_out, k->out ? k->out : "", k->outlen,
            k->truncated, e->tail);
    s_proc_destroy(&k);
}

static void s_keep_out(void *arg, const char *p, size_t n)
{
    s_proc_t *k = arg;
    size_t room = k->out_max - k->outlen;
    if (n > room) {
        k->truncated = 1;
        n = room;
    }
    if (n == 0)
        return;
    if (k->outlen + n + 1 > k->outcap) {
        size_t cap = k->outcap ? k->outcap : 4096;
        while (cap < k->outlen + n + 1)
            cap *= 2;
        if (cap > k->out_max + 1)
            cap = k->out_max + 1;
        char *o = realloc(k->out, cap);
        if (!o) { /* out of memory: what does not fit is dropped, and said to be */
            k->truncated = 1;
            return;
        }
        k->out = o;
        k->outcap = cap;
    }
    memcpy(k->out + k->outlen, p, n);
    k->outlen += n;
}

/* What a hook or probe must not inherit from the controller: its database URL and password,
 * its own configuration (LG_HOOK...) and libpq's settings. What lg means it to have (LG_CAMPAIGN,
 * LG_CONFIG, LG_LABELS, LG_LABEL_*) comes in env, which the scrub does not touch. */
static const char *const s_scrub[] = {"LG_*", "PG*", NULL};

int lg_hook_exec(uv_loop_t *loop, char *const *argv, char *const *env, uint32_t timeout_ms,
                 size_t out_max, lg_hook_exec_done_cb done, void *arg)
{
    if (!argv || !argv[0] || argv[0][0] != '/' || !done || timeout_ms == 0 ||
        out_max >= SIZE_MAX / 2)
        return UV_EINVAL;
    s_proc_t *k = calloc(1, sizeof *k);
    char **all = lg_child_env(environ, env, s_scrub);
    if (!k || !all) {
        free(k);
        free(all);
        return UV_ENOMEM;
    }
    k->done = done;
    k->arg = arg;
    k->loop = loop;
    k->out_max = out_max;
    lg_child_opts_t o;
    memset(&o, 0, sizeof o);
    o.argv = (char **)argv; /* run as it is: absolute, so no PATH search */
    o.env = all;
    o.group = 1;
    o.out = out_max ? LG_CHILD_PIPE : LG_CHILD_NULL;
    o.on_out = s_keep_out;
    o.tail_cap = TAIL;
    o.timeout_ms = timeout_ms;
    o.kill_after_ms = LG_HOOK_KILL_AFTER_MS;
    o.drain_ms = DRAIN_MS;
    o.on_exit = s_on_exit;
    o.arg = k;
    int rc = lg_child_start(loop, &o, &k->child);
    free(all);
    if (rc) {
        s_proc_destroy(&k);
        return rc;
    }
    s_link(k);
    return 0;
}

/* ---- the between-configs hook ---- */

static void s_on_hook(void *arg, int64_t status, int term_signal, int timed_out, const char *out,
                      size_t outlen, int truncated, const char *err_tail);

typedef struct {
    lg_hook_done_cb done;
    void *arg;
} s_hook_t;

static void s_on_hook(void *arg, int64_t status, int term_signal, int timed_out, const char *out,
                      size_t outlen, int truncated, const char *err_tail)
{
    s_hook_t *h = arg;
    (void)out, (void)outlen, (void)truncated;
    h->done(h->arg, status, term_signal, timed_out, err_tail);
    free(h);
}

int lg_hook_run(uv_loop_t *loop, const char *cmd, char *const *env, uint32_t timeout_ms,
                lg_hook_done_cb done, void *arg)
{
    if (!cmd || !done)
        return UV_EINVAL;
    s_hook_t *h = malloc(sizeof *h);
    if (!h)
        return UV_ENOMEM;
    h->done = done;
    h->arg = arg;
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    int rc = lg_hook_exec(loop, argv, env, timeout_ms, 0, s_on_hook, h);
    if (rc)
        free(h);
    return rc;
}

void lg_hook_cancel_all(uv_loop_t *loop)
{
    for (s_proc_t *k = s_live, *next; k; k = next) {
        next = k->next;
        if (k->loop != loop)
            continue;
        s_unlink(k);
        lg_child_forget(&k->child, SIGTERM);
        k->done(k->arg, UV_ECANCELED, 0, 0, "", 0, 0, "");
        s_proc_destroy(&k);
    }
}

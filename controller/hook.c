/* hook.c: the controller's one way to run a program: uv_spawn into a process group of its own,
 * stdout read up to a cap, the tail of stderr kept, and a deadline after which the group gets
 * SIGTERM and then SIGKILL, so that nothing the controller runs can keep it waiting. */
#include "hook.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define TAIL 2048
#define READ_BUF 16384
/* After SIGKILL, how long to wait for the exit before giving up on it (a process stuck in the
 * kernel); after the exit, how long its pipes may stay open (a child it left behind holding
 * them) before lg stops reading. */
#define GIVE_UP_MS 2000
#define DRAIN_MS 1000

extern char **environ;

typedef enum {
    ST_RUNNING, /* the timer is the deadline */
    ST_TERM,    /* SIGTERM sent; the timer is the SIGKILL */
    ST_KILL,    /* SIGKILL sent; the timer is giving up */
    ST_DRAIN,   /* it exited; the timer bounds the wait for its pipes' end */
    ST_DONE,
} s_stage_t;

typedef struct s_proc {
    struct s_proc *prev, *next; /* the programs still running (s_live) */
    uv_process_t proc;
    uv_pipe_t opipe, epipe; /* its stdout (when out_max), its stderr */
    uv_timer_t timer;
    int open;    /* handles not closed yet: the struct is freed when the last one is */
    int out_eof; /* stdout ended (or is not read) */
    int err_eof;
    int exited;
    int timed_out;
    int truncated;
    s_stage_t stage;
    int pid;
    int64_t status;
    int sig;
    lg_proc_done_cb done;
    void *arg;
    char *out;
    size_t outlen, outcap, out_max;
    char tail[TAIL];
    size_t taillen;
    char buf[READ_BUF];
} s_proc_t;

/* The programs still running, for lg_proc_cancel_all. Touched on the loop's thread only. */
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

static void s_on_close(uv_handle_t *h)
{
    s_proc_t *k = h->data;
    if (--k->open == 0) {
        free(k->out);
        free(k);
    }
}

static void s_close(s_proc_t *k)
{
    uv_close((uv_handle_t *)&k->proc, s_on_close);
    uv_close((uv_handle_t *)&k->epipe, s_on_close);
    uv_close((uv_handle_t *)&k->timer, s_on_close);
    if (k->out_max)
        uv_close((uv_handle_t *)&k->opipe, s_on_close);
}

static void s_finish(s_proc_t *k)
{
    if (k->stage == ST_DONE)
        return;
    /* Of a program that was told to stop, nothing stays behind (a child ignoring SIGTERM after
     * the leader went). */
    if (k->timed_out && k->stage == ST_TERM)
        uv_kill(-k->pid, SIGKILL);
    k->stage = ST_DONE;
    s_unlink(k);
    uv_timer_stop(&k->timer);
    while (k->taillen && (k->tail[k->taillen - 1] == '\n' || k->tail[k->taillen - 1] == '\r' ||
                          k->tail[k->taillen - 1] == ' '))
        k->taillen--;
    k->tail[k->taillen] = 0;
    if (k->out)
        k->out[k->outlen] = 0;
    k->done(k->arg, k->exited ? k->status : -1, k->exited ? k->sig : 0, k->timed_out,
            k->out ? k->out : "", k->outlen, k->truncated, k->tail);
    s_close(k);
}

/* Its whole process group: a shell's children, ssh's. When the group is gone, the process. */
static void s_kill(s_proc_t *k, int sig)
{
    if (uv_kill(-k->pid, sig) != 0 && !k->exited)
        uv_process_kill(&k->proc, sig);
}

static void s_on_timer(uv_timer_t *t)
{
    s_proc_t *k = t->data;
    switch (k->stage) {
    case ST_RUNNING:
        k->timed_out = 1;
        k->stage = ST_TERM;
        s_kill(k, SIGTERM);
        uv_timer_start(&k->timer, s_on_timer, LG_PROC_KILL_AFTER_MS, 0);
        break;
    case ST_TERM:
        k->stage = ST_KILL;
        s_kill(k, SIGKILL);
        uv_timer_start(&k->timer, s_on_timer, GIVE_UP_MS, 0);
        break;
    default: /* ST_KILL: it does not die; ST_DRAIN: its pipes outlive it */
        s_finish(k);
        break;
    }
}

static void s_maybe_finish(s_proc_t *k)
{
    if (!k->exited || k->stage == ST_DONE)
        return;
    if (k->out_eof && k->err_eof) {
        s_finish(k);
    } else if (k->stage == ST_RUNNING) { /* else the SIGKILL and giving up are timed already */
        k->stage = ST_DRAIN;
        uv_timer_start(&k->timer, s_on_timer, DRAIN_MS, 0);
    }
}

static void s_alloc(uv_handle_t *h, size_t n, uv_buf_t *b)
{
    s_proc_t *k = h->data;
    (void)n;
    b->base = k->buf;
    b->len = sizeof k->buf;
}

static void s_keep_out(s_proc_t *k, const char *p, size_t n)
{
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

static void s_keep_tail(s_proc_t *k, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (k->taillen == TAIL - 1) {
            memmove(k->tail, k->tail + TAIL / 2, TAIL - 1 - TAIL / 2);
            k->taillen = TAIL - 1 - TAIL / 2;
        }
        k->tail[k->taillen++] = p[i];
    }
}

static void s_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    s_proc_t *k = s->data;
    int is_out = k->out_max && s == (uv_stream_t *)&k->opipe;
    if (n > 0) {
        if (is_out)
            s_keep_out(k, b->base, (size_t)n);
        else
            s_keep_tail(k, b->base, (size_t)n);
        return;
    }
    if (n == 0)
        return;
    uv_read_stop(s);
    if (is_out)
        k->out_eof = 1;
    else
        k->err_eof = 1;
    s_maybe_finish(k);
}

static void s_on_exit(uv_process_t *p, int64_t status, int sig)
{
    s_proc_t *k = p->data;
    k->exited = 1;
    k->status = status;
    k->sig = sig;
    if (k->stage == ST_DONE)
        return;
    s_maybe_finish(k);
}

/* The length of the name of "NAME=value" (all of s when it has no '='). */
static size_t s_name_len(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq ? (size_t)(eq - s) : strlen(s);
}

/* env, then those of the controller's variables env does not name: a program may take either
 * of two entries of one name (getenv the first, dash the last), so there is one. Caller frees
 * the array (not the strings); NULL when out of memory. */
static char **s_env(char *const *env)
{
    size_t ne = 0, nx = 0, n = 0;
    while (environ[ne])
        ne++;
    while (env && env[nx])
        nx++;
    char **all = calloc(ne + nx + 1, sizeof *all);
    if (!all)
        return NULL;
    for (size_t i = 0; i < nx; i++)
        all[n++] = env[i];
    for (size_t i = 0; i < ne; i++) {
        size_t len = s_name_len(environ[i]), j = 0;
        for (; j < nx; j++)
            if (s_name_len(env[j]) == len && memcmp(env[j], environ[i], len) == 0)
                break;
        if (j == nx)
            all[n++] = environ[i];
    }
    return all;
}

int lg_proc_run(uv_loop_t *loop, char *const *argv, char *const *env, uint32_t timeout_ms,
                size_t out_max, lg_proc_done_cb done, void *arg)
{
    if (!argv || !argv[0] || argv[0][0] != '/' || !done || timeout_ms == 0 ||
        out_max >= SIZE_MAX / 2)
        return UV_EINVAL;
    s_proc_t *k = calloc(1, sizeof *k);
    char **all = s_env(env);
    if (!k || !all) {
        free(k);
        free(all);
        return UV_ENOMEM;
    }
    k->done = done;
    k->arg = arg;
    k->out_max = out_max;
    k->out_eof = out_max == 0;
    k->proc.data = k->opipe.data = k->epipe.data = k->timer.data = k;
    uv_pipe_init(loop, &k->epipe, 0);
    uv_timer_init(loop, &k->timer);
    k->open = 3;
    if (out_max) {
        uv_pipe_init(loop, &k->opipe, 0);
        k->open++;
    }
    uv_stdio_container_t io[3];
    io[0].flags = UV_IGNORE; /* /dev/null */
    io[1].flags = out_max ? UV_CREATE_PIPE | UV_WRITABLE_PIPE : UV_IGNORE;
    io[1].data.stream = (uv_stream_t *)&k->opipe;
    io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    io[2].data.stream = (uv_stream_t *)&k->epipe;
    uv_process_options_t o;
    memset(&o, 0, sizeof o);
    o.file = argv[0];
    o.args = (char **)argv;
    o.env = all;
    o.exit_cb = s_on_exit;
    o.stdio = io;
    o.stdio_count = 3;
    o.flags = UV_PROCESS_DETACHED; /* setsid: a group of its own, to signal as one */
    int rc = uv_spawn(loop, &k->proc, &o);
    free(all);
    if (rc) {
        k->stage = ST_DONE;
        s_close(k);
        return rc;
    }
    k->pid = k->proc.pid;
    s_link(k);
    uv_read_start((uv_stream_t *)&k->epipe, s_alloc, s_on_read);
    if (out_max)
        uv_read_start((uv_stream_t *)&k->opipe, s_alloc, s_on_read);
    uv_timer_start(&k->timer, s_on_timer, timeout_ms, 0);
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
    int rc = lg_proc_run(loop, argv, env, timeout_ms, 0, s_on_hook, h);
    if (rc)
        free(h);
    return rc;
}

void lg_proc_cancel_all(uv_loop_t *loop)
{
    for (s_proc_t *k = s_live, *next; k; k = next) {
        next = k->next;
        if (k->proc.loop != loop)
            continue;
        s_unlink(k);
        s_kill(k, SIGTERM);
        k->stage = ST_DONE;
        uv_timer_stop(&k->timer);
        k->done(k->arg, UV_ECANCELED, 0, 0, "", 0, 0, "");
        s_close(k);
    }
}

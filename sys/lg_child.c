/* lg_child.c: one child process on a libuv loop, from uv_spawn to its exit status: its pipes
 * read, the tail of its stderr kept, the deadline's SIGTERM, SIGKILL and giving up, and its
 * memory freed only once every handle closed, as libuv requires. */
#include "lg_child.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

#include "lg_esc.h"
#include "lg_util.h"

#define DEFAULT_TAIL 2048
#define READ_BUF 65536
#define MAX_EXTRA 8

typedef enum {
    ST_RUNNING, /* the timer, if started, is the deadline */
    ST_TERM,    /* SIGTERM sent at the deadline; the timer is the SIGKILL */
    ST_KILL,    /* SIGKILL sent; the timer is giving up */
    ST_DRAIN,   /* it exited; the timer bounds the wait for its pipes' end */
    ST_DONE,    /* on_exit called (or destroyed or forgotten): the handles are closing */
} s_stage_t;

struct lg_child {
    uv_process_t proc;
    uv_pipe_t opipe; /* its stdout (LG_CHILD_PIPE), or stdout and stderr (LG_CHILD_MERGE) */
    uv_pipe_t epipe; /* its stderr (LG_CHILD_NULL, LG_CHILD_PIPE) */
    uv_timer_t timer;
    int has_opipe, has_epipe;
    int own_opipe; /* stdout is the pipe s_init made (LG_CHILD_MERGE, out_pipe_bytes) */
    int open;      /* handles not closed yet: the struct is freed when the last one is */
    int out_eof, err_eof;
    int exited, timed_out, destroyed, group;
    s_stage_t stage;
    int pid;
    int64_t status;
    int sig;
    lg_child_out_t out;
    lg_child_data_cb on_out;
    lg_child_exit_cb on_exit;
    void *arg;
    uint32_t kill_after_ms, drain_ms;
    char buf[READ_BUF];
    size_t tail_cap, tail_len;
    char tail[]; /* tail_cap bytes */
};

static void s_on_close(uv_handle_t *h)
{
    lg_child_t *c = h->data;
    if (--c->open == 0)
        free(c);
}

static void s_close(lg_child_t *c)
{
    uv_close((uv_handle_t *)&c->proc, s_on_close);
    uv_close((uv_handle_t *)&c->timer, s_on_close);
    if (c->has_opipe)
        uv_close((uv_handle_t *)&c->opipe, s_on_close);
    if (c->has_epipe)
        uv_close((uv_handle_t *)&c->epipe, s_on_close);
}

void lg_child_kill(lg_child_t *c, int sig)
{
    if (!c)
        return;
#ifndef _WIN32
    /* The whole group: a shell's children, fio's jobs. When the group is gone, the process. */
    if (c->group) {
        if (uv_kill(-c->pid, sig) != 0 && !c->exited)
            uv_process_kill(&c->proc, sig);
        return;
    }
#endif
    if (!c->exited)
        uv_process_kill(&c->proc, sig);
}

void lg_child_kill_one(lg_child_t *c, int sig)
{
    if (c && !c->exited)
        uv_process_kill(&c->proc, sig);
}

int lg_child_pid(const lg_child_t *c)
{
    return c ? c->pid : 0;
}

const char *lg_child_tail(const lg_child_t *c, size_t *len)
{
    *len = c ? c->tail_len : 0;
    return c ? c->tail : "";
}

static void s_finish(lg_child_t *c)
{
    if (c->stage == ST_DONE)
        return;
    /* Of a program that was told to stop, nothing stays behind (a child ignoring SIGTERM after
     * the leader went). */
    if (c->timed_out && c->stage == ST_TERM)
        lg_child_kill(c, SIGKILL);
    c->stage = ST_DONE;
    uv_timer_stop(&c->timer);
    while (c->tail_len && (c->tail[c->tail_len - 1] == '\n' || c->tail[c->tail_len - 1] == '\r' ||
                           c->tail[c->tail_len - 1] == ' '))
        c->tail_len--;
    c->tail[c->tail_len] = 0;
    if (!c->destroyed) {
        lg_child_exit_t e = {
            c->exited,  c->exited ? c->status : -1, c->exited ? c->sig : 0, c->timed_out, c->tail,
            c->tail_len};
        c->on_exit(c->arg, &e);
    }
    s_close(c);
}

static void s_on_timer(uv_timer_t *t)
{
    lg_child_t *c = t->data;
    switch (c->stage) {
    case ST_RUNNING:
        c->timed_out = 1;
        c->stage = ST_TERM;
        lg_child_kill(c, SIGTERM);
        uv_timer_start(&c->timer, s_on_timer, c->kill_after_ms, 0);
        break;
    case ST_TERM:
        c->stage = ST_KILL;
        lg_child_kill(c, SIGKILL);
        uv_timer_start(&c->timer, s_on_timer, LG_CHILD_GIVE_UP_MS, 0);
        break;
    default: /* ST_KILL: it does not die; ST_DRAIN: its pipes outlive it */
        s_finish(c);
        break;
    }
}

static void s_maybe_finish(lg_child_t *c)
{
    if (!c->exited || c->stage == ST_DONE)
        return;
    if (c->out_eof && c->err_eof) {
        s_finish(c);
    } else if (c->drain_ms && c->stage == ST_RUNNING) {
        /* else the SIGKILL and giving up are timed already, or the pipes' end is waited for */
        c->stage = ST_DRAIN;
        uv_timer_start(&c->timer, s_on_timer, c->drain_ms, 0);
    }
}

static void s_on_exit(uv_process_t *p, int64_t status, int sig)
{
    lg_child_t *c = p->data;
    c->exited = 1;
    c->status = status;
    c->sig = sig;
    s_maybe_finish(c);
}

/* Keep the last tail_cap - 1 bytes, from a character's start: the bytes left of one whose start
 * was cut off go too (the tail ends up in messages and the database as text). */
static void s_keep_tail(lg_child_t *c, const char *p, size_t n)
{
    size_t cap = c->tail_cap - 1;
    int cut = 0;
    if (n >= cap) {
        p += n - cap;
        n = cap;
        c->tail_len = 0;
        cut = 1;
    } else if (c->tail_len + n > cap) {
        size_t drop = c->tail_len + n - cap;
        memmove(c->tail, c->tail + drop, c->tail_len - drop);
        c->tail_len -= drop;
        cut = 1;
    }
    memcpy(c->tail + c->tail_len, p, n);
    c->tail_len += n;
    size_t skip = cut ? lg_utf8_tail_skip(c->tail, c->tail_len) : 0;
    if (skip) {
        memmove(c->tail, c->tail + skip, c->tail_len - skip);
        c->tail_len -= skip;
    }
    c->tail[c->tail_len] = 0;
}

static void s_alloc(uv_handle_t *h, size_t n, uv_buf_t *b)
{
    lg_child_t *c = h->data;
    (void)n;
    b->base = c->buf;
    b->len = sizeof c->buf;
}

static void s_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    lg_child_t *c = s->data;
    int is_out = c->has_opipe && s == (uv_stream_t *)&c->opipe;
    if (n > 0) {
        if (!is_out || c->out == LG_CHILD_MERGE)
            s_keep_tail(c, b->base, (size_t)n);
        if (is_out && c->on_out && !c->destroyed)
            c->on_out(c->arg, b->base, (size_t)n);
        return;
    }
    if (n == 0)
        return;
    uv_read_stop(s);
    if (is_out)
        c->out_eof = 1;
    else
        c->err_eof = 1;
    s_maybe_finish(c);
}

/* stdin, stdout and stderr as o says, then o's extra fds; out_fd: the write end of the pipe
 * s_init made for stdout (LG_CHILD_MERGE, out_pipe_bytes). Returns how many. */
static int s_stdio(lg_child_t *c, const lg_child_opts_t *o, int out_fd, uv_stdio_container_t *io)
{
    io[0].flags = UV_IGNORE; /* /dev/null */
    if (o->in)
        io[0] = *o->in;
    if (o->out == LG_CHILD_MERGE) {
        io[1].flags = io[2].flags = UV_INHERIT_FD;
        io[1].data.fd = io[2].data.fd = out_fd;
    } else {
        io[1].flags = UV_IGNORE;
        if (c->own_opipe) {
            io[1].flags = UV_INHERIT_FD;
            io[1].data.fd = out_fd;
        } else if (o->out == LG_CHILD_PIPE) {
            io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
            io[1].data.stream = (uv_stream_t *)&c->opipe;
        }
        io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
        io[2].data.stream = (uv_stream_t *)&c->epipe;
    }
    for (int i = 0; i < o->nextra; i++)
        io[3 + i] = o->extra[i];
    return 3 + o->nextra;
}

#if defined(__linux__)
/* s_pipe_grow: make pipe fd hold bytes, or as much as may be: an ordinary user up to
 * /proc/sys/fs/pipe-max-size, root past it. Best effort: the pipe stays as it is otherwise. */
static void s_pipe_grow(int fd, size_t bytes)
{
    if (bytes > (64u << 20))
        bytes = 64u << 20;
    if (fcntl(fd, F_SETPIPE_SZ, (int)bytes) >= 0)
        return;
    char *text = NULL;
    size_t len = 0;
    if (lg_read_file("/proc/sys/fs/pipe-max-size", 64, &text, &len) == 0) {
        long max = strtol(text, NULL, 10);
        if (max > 0 && (size_t)max < bytes)
            (void)fcntl(fd, F_SETPIPE_SZ, (int)max);
        free(text);
    }
}
#endif

/* The pipe's handles and the timer, counted in c->open. With LG_CHILD_MERGE, or out_pipe_bytes,
 * the stdout pipe itself is made here (fds: its read and write ends). */
static int s_init(lg_child_t *c, uv_loop_t *loop, const lg_child_opts_t *o, uv_file *fds)
{
    c->own_opipe = o->out == LG_CHILD_MERGE || (o->out == LG_CHILD_PIPE && o->out_pipe_bytes);
    if (c->own_opipe) {
#ifdef _WIN32
        (void)fds;
        if (o->out == LG_CHILD_MERGE)
            return UV_ENOTSUP;
        c->own_opipe = 0; /* libuv's pipe, of the size it makes */
#else
        int rc = uv_pipe(fds, UV_NONBLOCK_PIPE, 0);
        if (rc)
            return rc;
#if defined(__linux__)
        if (o->out == LG_CHILD_PIPE)
            s_pipe_grow(fds[1], o->out_pipe_bytes);
#endif
#endif
    }
    uv_timer_init(loop, &c->timer);
    c->open = 2; /* the process and the timer */
    if (o->out != LG_CHILD_NULL) {
        uv_pipe_init(loop, &c->opipe, 0);
        c->has_opipe = 1;
        c->open++;
    }
    if (o->out != LG_CHILD_MERGE) {
        uv_pipe_init(loop, &c->epipe, 0);
        c->has_epipe = 1;
        c->open++;
    }
    return 0;
}

static void s_close_fd(uv_file fd)
{
#ifndef _WIN32
    if (fd >= 0)
        close(fd);
#else
    (void)fd;
#endif
}

/* Start reading what it writes; from the read end of the pipe s_init made, if it made one. */
static void s_read(lg_child_t *c, uv_file rfd)
{
    if (c->own_opipe && uv_pipe_open(&c->opipe, rfd) != 0) {
        s_close_fd(rfd);
        c->out_eof = 1; /* no output then; the exit still comes and ends it as usual */
    } else if (c->has_opipe) {
        uv_read_start((uv_stream_t *)&c->opipe, s_alloc, s_on_read);
    }
    if (c->has_epipe)
        uv_read_start((uv_stream_t *)&c->epipe, s_alloc, s_on_read);
}

int lg_child_start(uv_loop_t *loop, const lg_child_opts_t *o, lg_child_t **out)
{
    if (!o || !o->argv || !o->argv[0] || !o->on_exit || o->nextra < 0 || o->nextra > MAX_EXTRA ||
        (o->nextra && !o->extra) || o->tail_cap == 1 || o->tail_cap > (64u << 20))
        return UV_EINVAL;
    size_t tail_cap = o->tail_cap ? o->tail_cap : DEFAULT_TAIL;
    lg_child_t *c = calloc(1, sizeof *c + tail_cap);
    if (!c)
        return UV_ENOMEM;
    c->tail_cap = tail_cap;
    c->out = o->out;
    c->on_out = o->on_out;
    c->on_exit = o->on_exit;
    c->arg = o->arg;
    c->kill_after_ms = o->kill_after_ms;
    c->drain_ms = o->drain_ms;
    c->out_eof = o->out == LG_CHILD_NULL;
    c->err_eof = o->out == LG_CHILD_MERGE;
    c->proc.data = c->opipe.data = c->epipe.data = c->timer.data = c;
    uv_file fds[2] = {-1, -1};
    int rc = s_init(c, loop, o, fds);
    if (rc) {
        free(c);
        return rc;
    }
    uv_stdio_container_t io[3 + MAX_EXTRA];
    uv_process_options_t po;
    memset(&po, 0, sizeof po);
    po.file = o->file ? o->file : o->argv[0];
    po.args = o->argv;
    po.env = o->env;
    po.cwd = o->cwd;
    po.exit_cb = s_on_exit;
    po.stdio = io;
    po.stdio_count = s_stdio(c, o, fds[1], io);
#ifndef _WIN32
    c->group = o->group;
    if (o->group)
        po.flags |= UV_PROCESS_DETACHED; /* setsid: a group of its own, to signal as one */
    if (o->setid) {                      /* libuv drops the supplementary groups too */
        po.flags |= UV_PROCESS_SETUID | UV_PROCESS_SETGID;
        po.uid = (uv_uid_t)o->uid;
        po.gid = (uv_gid_t)o->gid;
    }
#endif
    rc = uv_spawn(loop, &c->proc, &po);
    s_close_fd(fds[1]);
    if (rc) {
        /* uv_spawn initialised the process handle even on failure: close them all. */
        s_close_fd(fds[0]);
        c->stage = ST_DONE;
        s_close(c);
        return rc;
    }
    c->pid = c->proc.pid;
    s_read(c, fds[0]);
    if (o->timeout_ms)
        uv_timer_start(&c->timer, s_on_timer, o->timeout_ms, 0);
    *out = c;
    return 0;
}

void lg_child_destroy(lg_child_t **self_p, int sig)
{
    lg_child_t *c = *self_p;
    if (!c)
        return;
    *self_p = NULL;
    c->destroyed = 1;
    if (c->stage == ST_DONE) /* inside its on_exit: it closes when that returns */
        return;
    if (sig && !c->exited)
        lg_child_kill(c, sig);
}

void lg_child_forget(lg_child_t **self_p, int sig)
{
    lg_child_t *c = *self_p;
    if (!c)
        return;
    *self_p = NULL;
    c->destroyed = 1;
    if (c->stage == ST_DONE)
        return;
    if (sig)
        lg_child_kill(c, sig);
    c->stage = ST_DONE;
    uv_timer_stop(&c->timer);
    s_close(c);
}

/* ---- lg_child_run: one program to its end on a loop of its own ---- */

typedef struct {
    char *out;
    size_t cap, len;
    lg_child_status_t *st;
} s_sync_t;

static void s_sync_out(void *arg, const char *data, size_t n)
{
    s_sync_t *y = arg;
    if (!y->out || y->cap == 0)
        return;
    size_t room = y->cap - 1 - y->len;
    if (n > room) {
        y->st->truncated = 1;
        n = room;
    }
    memcpy(y->out + y->len, data, n);
    y->len += n;
    y->out[y->len] = 0;
}

static void s_sync_exit(void *arg, const lg_child_exit_t *e)
{
    s_sync_t *y = arg;
    y->st->exited = e->exited;
    y->st->status = e->status;
    y->st->term_signal = e->term_signal;
    y->st->timed_out = e->timed_out;
}

int lg_child_run(const lg_child_opts_t *o, char *out, size_t outlen, lg_child_status_t *st)
{
    if (!o || !st)
        return UV_EINVAL;
    memset(st, 0, sizeof *st);
    st->status = -1;
    if (out && outlen)
        out[0] = 0;
    s_sync_t y = {out, outlen, 0, st};
    lg_child_opts_t so = *o;
    so.on_out = s_sync_out;
    so.on_exit = s_sync_exit;
    so.arg = &y;
    uv_loop_t loop;
    int rc = uv_loop_init(&loop);
    if (rc)
        return rc;
    lg_child_t *c = NULL;
    rc = lg_child_start(&loop, &so, &c);
    /* to the end, or (after a failed start) until its handles closed */
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return rc;
}

/* The length of the name of "NAME=value" (all of s when it has no '='). */
static size_t s_name_len(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq ? (size_t)(eq - s) : strlen(s);
}

/* Does the name of entry (len bytes) match one of drop: a whole name, or a prefix before '*'? */
static int s_dropped(const char *entry, size_t len, const char *const *drop)
{
    for (size_t i = 0; drop && drop[i]; i++) {
        size_t dl = strlen(drop[i]);
        if (dl && drop[i][dl - 1] == '*') {
            if (len >= dl - 1 && memcmp(entry, drop[i], dl - 1) == 0)
                return 1;
        } else if (len == dl && memcmp(entry, drop[i], dl) == 0) {
            return 1;
        }
    }
    return 0;
}

char **lg_child_env(char *const *base, char *const *add, const char *const *drop)
{
    size_t nb = 0, na = 0, n = 0;
    while (base && base[nb])
        nb++;
    while (add && add[na])
        na++;
    char **all = calloc(na + nb + 1, sizeof *all);
    if (!all)
        return NULL;
    for (size_t i = 0; i < na; i++)
        all[n++] = add[i];
    for (size_t i = 0; i < nb; i++) {
        size_t len = s_name_len(base[i]), j = 0;
        if (s_dropped(base[i], len, drop))
            continue;
        for (; j < n; j++) /* given by add, or already taken from base */
            if (s_name_len(all[j]) == len && memcmp(all[j], base[i], len) == 0)
                break;
        if (j == n)
            all[n++] = base[i];
    }
    return all;
}

/* hook.c: run the between-configs hook with uv_spawn and keep the tail of its stderr for the
 * campaign's message. */
#include "hook.h"

#include <stdlib.h>
#include <string.h>

#include "lg_util.h"

#define TAIL 2048

extern char **environ;

struct lg_hook {
    uv_process_t proc;
    uv_pipe_t err;
    lg_hook_done_cb done;
    void *arg;
    int open, exited, eof;
    int64_t status;
    int sig;
    char tail[TAIL];
    size_t len;
};

static void s_on_close(uv_handle_t *h)
{
    lg_hook_t *k = h->data;
    if (--k->open == 0)
        free(k);
}

static void s_finish(lg_hook_t *k)
{
    if (!k->exited || !k->eof)
        return;
    while (k->len && (k->tail[k->len - 1] == '\n' || k->tail[k->len - 1] == ' '))
        k->len--;
    k->tail[k->len] = 0;
    k->done(k->arg, k->status, k->sig, k->tail);
    uv_close((uv_handle_t *)&k->proc, s_on_close);
    uv_close((uv_handle_t *)&k->err, s_on_close);
}

static void s_alloc(uv_handle_t *h, size_t n, uv_buf_t *b)
{
    (void)h;
    (void)n;
    b->base = malloc(4096);
    b->len = b->base ? 4096 : 0;
}

static void s_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    lg_hook_t *k = s->data;
    for (ssize_t i = 0; i < n; i++) {
        if (k->len == TAIL - 1) {
            memmove(k->tail, k->tail + TAIL / 2, TAIL - 1 - TAIL / 2);
            k->len = TAIL - 1 - TAIL / 2;
        }
        k->tail[k->len++] = b->base[i];
    }
    free(b->base);
    if (n < 0) {
        uv_read_stop(s);
        k->eof = 1;
        s_finish(k);
    }
}

static void s_on_exit(uv_process_t *p, int64_t status, int sig)
{
    lg_hook_t *k = p->data;
    k->exited = 1;
    k->status = status;
    k->sig = sig;
    s_finish(k);
}

int lg_hook_run(uv_loop_t *loop, const char *cmd, char *const *env, lg_hook_done_cb done,
                void *arg)
{
    lg_hook_t *k = calloc(1, sizeof *k);
    if (!k)
        return UV_ENOMEM;
    size_t ne = 0, nx = 0;
    while (environ[ne])
        ne++;
    while (env && env[nx])
        nx++;
    char **all = calloc(ne + nx + 1, sizeof *all);
    if (!all) {
        free(k);
        return UV_ENOMEM;
    }
    /* Ours first: the environment is searched front to back. */
    for (size_t i = 0; i < nx; i++)
        all[i] = env[i];
    for (size_t i = 0; i < ne; i++)
        all[nx + i] = environ[i];
    k->done = done;
    k->arg = arg;
    uv_pipe_init(loop, &k->err, 0);
    k->err.data = k->proc.data = k;
    uv_stdio_container_t io[3];
    io[0].flags = UV_IGNORE;
    io[1].flags = UV_IGNORE;
    io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    io[2].data.stream = (uv_stream_t *)&k->err;
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    uv_process_options_t o;
    memset(&o, 0, sizeof o);
    o.file = argv[0];
    o.args = argv;
    o.env = all;
    o.exit_cb = s_on_exit;
    o.stdio = io;
    o.stdio_count = 3;
    int rc = uv_spawn(loop, &k->proc, &o);
    free(all);
    k->open = 2;
    if (rc) {
        uv_close((uv_handle_t *)&k->proc, s_on_close);
        uv_close((uv_handle_t *)&k->err, s_on_close);
        return rc;
    }
    uv_read_start((uv_stream_t *)&k->err, s_alloc, s_on_read);
    return 0;
}

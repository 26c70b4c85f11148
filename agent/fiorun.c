/* fiorun.c: spawn fio with uv_spawn and read its pipes. The run is freed only after all three
 * handles (process, stdout, stderr) have closed, as libuv requires. */
#include "fiorun.h"

#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_fio.h"
#include "lg_log.h"

#define ERR_TAIL 4096
#define MAX_OBJECT (64u << 20)

struct lg_fiorun {
    uv_process_t proc;
    uv_pipe_t out;
    uv_pipe_t err;
    lg_fio_splitter_t *split;
    lg_fiorun_object_cb on_object;
    lg_fiorun_exit_cb on_exit;
    void *arg;
    int open_handles;
    int out_eof, err_eof, exited, reported, destroyed;
    int64_t exit_status;
    int term_signal;
    char tail[ERR_TAIL];
    size_t tail_len;
};

static void s_maybe_free(lg_fiorun_t *r)
{
    if (r->open_handles == 0 && r->destroyed) {
        lg_fio_splitter_destroy(&r->split);
        free(r);
    }
}

static void s_on_close(uv_handle_t *h)
{
    lg_fiorun_t *r = h->data;
    r->open_handles--;
    s_maybe_free(r);
}

static void s_close_all(lg_fiorun_t *r)
{
    uv_close((uv_handle_t *)&r->proc, s_on_close);
    uv_close((uv_handle_t *)&r->out, s_on_close);
    uv_close((uv_handle_t *)&r->err, s_on_close);
}

static void s_maybe_report(lg_fiorun_t *r)
{
    if (r->reported || !r->exited || !r->out_eof || !r->err_eof)
        return;
    r->reported = 1;
    if (r->destroyed) { /* destroyed while running: it was killed; only reap and free */
        s_close_all(r);
        return;
    }
    while (r->tail_len && (r->tail[r->tail_len - 1] == '\n' || r->tail[r->tail_len - 1] == ' '))
        r->tail_len--;
    r->tail[r->tail_len] = 0;
    r->on_exit(r->arg, r->exit_status, r->term_signal, r->tail);
}

static void s_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    buf->base = malloc(65536);
    buf->len = buf->base ? 65536 : 0;
}

static void s_on_object(void *arg, const char *text, size_t len)
{
    lg_fiorun_t *r = arg;
    if (r->on_object && !r->destroyed)
        r->on_object(r->arg, text, len);
}

static void s_on_noise(void *arg, const char *line, size_t len)
{
    (void)arg;
    if (len)
        lg_info("fio: %.*s", (int)len, line);
}

static void s_on_out(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    lg_fiorun_t *r = s->data;
    if (n > 0 && r->split && lg_fio_splitter_feed(r->split, buf->base, (size_t)n) == LG_ETOOBIG)
        lg_warn("dropped a fio report larger than %u bytes", MAX_OBJECT);
    free(buf->base);
    if (n < 0) {
        uv_read_stop(s);
        r->out_eof = 1;
        s_maybe_report(r);
    }
}

static void s_on_err(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    lg_fiorun_t *r = s->data;
    if (n > 0) {
        /* Keep the last ERR_TAIL - 1 bytes. */
        size_t cap = ERR_TAIL - 1, add = (size_t)n;
        const char *src = buf->base;
        if (add >= cap) {
            src += add - cap;
            add = cap;
            r->tail_len = 0;
        } else if (r->tail_len + add > cap) {
            size_t drop = r->tail_len + add - cap;
            memmove(r->tail, r->tail + drop, r->tail_len - drop);
            r->tail_len -= drop;
        }
        memcpy(r->tail + r->tail_len, src, add);
        r->tail_len += add;
    }
    free(buf->base);
    if (n < 0) {
        uv_read_stop(s);
        r->err_eof = 1;
        s_maybe_report(r);
    }
}

static void s_on_exit(uv_process_t *p, int64_t status, int sig)
{
    lg_fiorun_t *r = p->data;
    r->exited = 1;
    r->exit_status = status;
    r->term_signal = sig;
    s_maybe_report(r);
}

int lg_fiorun_start(uv_loop_t *loop, char **argv, const char *cwd, lg_fiorun_object_cb on_object,
                    lg_fiorun_exit_cb on_exit, void *arg, lg_fiorun_t **out)
{
    lg_fiorun_t *r = calloc(1, sizeof *r);
    if (!r)
        return UV_ENOMEM;
    r->on_object = on_object;
    r->on_exit = on_exit;
    r->arg = arg;
    r->split = lg_fio_splitter_new(MAX_OBJECT, s_on_object, s_on_noise, r);
    if (!r->split) {
        free(r);
        return UV_ENOMEM;
    }
    uv_pipe_init(loop, &r->out, 0);
    uv_pipe_init(loop, &r->err, 0);
    r->out.data = r->err.data = r->proc.data = r;
    r->open_handles = 2;

    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_IGNORE;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)&r->out;
    stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[2].data.stream = (uv_stream_t *)&r->err;
    uv_process_options_t opt;
    memset(&opt, 0, sizeof opt);
    opt.file = argv[0];
    opt.args = argv;
    opt.cwd = cwd;
    opt.exit_cb = s_on_exit;
    opt.stdio = stdio;
    opt.stdio_count = 3;
    int rc = uv_spawn(loop, &r->proc, &opt);
    if (rc) {
        /* uv_spawn initialised the process handle even on failure: close all three. */
        r->open_handles = 3;
        r->destroyed = 1;
        r->reported = 1;
        s_close_all(r);
        return rc;
    }
    r->open_handles = 3;
    uv_read_start((uv_stream_t *)&r->out, s_alloc, s_on_out);
    uv_read_start((uv_stream_t *)&r->err, s_alloc, s_on_err);
    *out = r;
    return 0;
}

void lg_fiorun_kill(lg_fiorun_t *r, int sig)
{
    if (r && !r->exited)
        uv_process_kill(&r->proc, sig);
}

void lg_fiorun_destroy(lg_fiorun_t **self_p)
{
    lg_fiorun_t *r = *self_p;
    if (!r)
        return;
    *self_p = NULL;
    r->destroyed = 1;
    if (r->reported) {
        s_close_all(r);
        return;
    }
    /* Closing a running process handle would leave a zombie: kill, and close once it exited. */
    uv_process_kill(&r->proc, SIGKILL);
}

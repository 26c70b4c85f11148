/* lg_child.h: the one way lg runs a program from a libuv loop: spawn (in a process group of its
 * own, as another user, with a whole environment of its own), its stdout handed over as it is
 * read, the end of its stderr kept, an optional deadline after which the group gets SIGTERM and
 * then SIGKILL, and once it ended its exit status with that tail. fio runs, application runs,
 * the controller's hooks and reduction probes are made of it. */
#ifndef LG_CHILD_H
#define LG_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct lg_child lg_child_t;

/* After SIGKILL, how long lg waits for the exit before giving up on it (a process stuck in the
 * kernel): then it is done with exited 0. */
#define LG_CHILD_GIVE_UP_MS 2000

/* How a program ended; everything valid during the exit callback only. */
typedef struct {
    int exited;       /* 0: it could not be made to end (given up after SIGKILL) */
    int64_t status;   /* as libuv's exit callback gives it; -1 when not exited */
    int term_signal;  /* 0 when not exited */
    int timed_out;    /* the deadline passed and lg signalled its group */
    const char *tail; /* the end of its stderr (of stdout and stderr with LG_CHILD_MERGE),
                       * NUL-terminated, trailing newlines, returns and blanks cut */
    size_t tail_len;
} lg_child_exit_t;

/* data (len bytes) as read from its stdout; valid during the call only. */
typedef void (*lg_child_data_cb)(void *arg, const char *data, size_t len);
/* Called once, when it exited and its pipes ended (or see drain_ms and the deadline). The child
 * is freed after this returns: drop every pointer to it (lg_child_destroy on it from inside
 * this call is allowed and does nothing more). */
typedef void (*lg_child_exit_cb)(void *arg, const lg_child_exit_t *e);

/* Where its stdout goes. */
typedef enum {
    LG_CHILD_NULL,  /* /dev/null */
    LG_CHILD_PIPE,  /* a pipe read to on_out (or drained), stderr a pipe of its own */
    LG_CHILD_MERGE, /* stdout and stderr one pipe, in order: the tail is of both (and on_out
                     * gets both) */
} lg_child_out_t;

typedef struct {
    const char *file; /* the program; NULL: argv[0]. Without a '/', looked up in PATH */
    char **argv;      /* NULL-terminated */
    char **env;       /* its whole environment ("KEY=value", NULL-terminated); NULL: ours */
    const char *cwd;  /* NULL: ours */
    int group;        /* POSIX: a session and process group of its own (setsid), and every
                       * signal lg sends goes to that group; Windows: ignored */
    int setid;        /* POSIX: run as uid:gid, without supplementary groups */
    unsigned uid, gid;
    lg_child_out_t out;
    /* LG_CHILD_PIPE: 0, stdout is libuv's socket pair. Else (POSIX) a pipe made here, of as
     * many of these bytes as the system allows (Linux, F_SETPIPE_SZ; root past pipe-max-size):
     * a program whose output carries its own timestamps (fio's reports) then never waits for
     * a reader the CPUs' other work keeps from running. */
    size_t out_pipe_bytes;
    lg_child_data_cb on_out; /* may be NULL: the pipe is only drained */
    size_t tail_cap;         /* keep the last tail_cap - 1 bytes of stderr; 0: 2048 */
    /* 0: none. Past it, SIGTERM (its group); kill_after_ms later SIGKILL (0: at once) and, if
     * even that does not end it, done LG_CHILD_GIVE_UP_MS later. Whatever of a timed-out group
     * is left when it ends gets SIGKILL. */
    uint32_t timeout_ms;
    uint32_t kill_after_ms;
    /* 0: after the exit, wait for the pipes' end however long (a group killed as one closes
     * them). Else a program that exits leaving a child holding its pipes is done this long
     * after its exit; that child is left alone. */
    uint32_t drain_ms;
    /* NULL: stdin is /dev/null. Else its fd 0 (a pipe the caller owns and closes, say). */
    const uv_stdio_container_t *in;
    /* fds 3, 4, ... as the caller sets them up (its pipes stay the caller's to read and close) */
    const uv_stdio_container_t *extra;
    int nextra;
    lg_child_exit_cb on_exit; /* required */
    void *arg;
} lg_child_opts_t;

/* A child's whole environment (for lg_child_opts_t.env, lg_proc_spawn): add (NULL-terminated
 * "KEY=value", may be NULL), then those entries of base (NULL-terminated; environ, say) whose
 * names add does not give and drop does not match. One entry per name: a program may take either
 * of two (getenv the first, dash the last). drop (NULL-terminated, may be NULL) holds names, or
 * prefixes ending in '*' ("LG_*"); it applies to base only, so what add gives always goes in:
 * this is how lg keeps its own secrets (LG_DATABASE_URL, PGPASSWORD) from the programs it runs.
 * Caller frees the array (free), not the strings, which stay base's and add's; NULL when out of
 * memory. */
char **lg_child_env(char *const *base, char *const *add, const char *const *drop);

/* Start a program as o says (o and what it points to are used during the call only). Returns 0
 * with *out set: on_exit follows once, unless the child is destroyed or forgotten first. Or a
 * negative libuv error (UV_EINVAL: no argv, no on_exit; UV_ENOENT, UV_EACCES...: it could not
 * be started): then no callback runs and nothing is left to the caller, but the loop has handles
 * to close (uv_run until they are). */
int lg_child_start(uv_loop_t *loop, const lg_child_opts_t *o, lg_child_t **out);

/* Signal its whole group (o.group; its leader alone when the group is gone) or, without a group,
 * the program itself while it runs. Windows: only the program (SIGTERM, SIGKILL and SIGINT end
 * it). */
void lg_child_kill(lg_child_t *c, int sig);
/* Signal the program alone while it runs, never its group (a server that stops its own). */
void lg_child_kill_one(lg_child_t *c, int sig);

/* Its process id (kept after it exited). */
int lg_child_pid(const lg_child_t *c);
/* The tail of its stderr so far (NUL-terminated, *len bytes, nothing cut), for a message about a
 * program that still runs. Valid until the loop runs again. */
const char *lg_child_tail(const lg_child_t *c, size_t *len);

/* No more callbacks. sig (0: none, the caller ended it another way) goes to it as lg_child_kill
 * sends it, if it still runs; it is reaped (a process handle closed while it runs leaves a
 * zombie) and freed once it exited and its pipes ended, as the loop runs on. Sets *self_p NULL. */
void lg_child_destroy(lg_child_t **self_p, int sig);
/* For a program lg stops waiting for (its daemon stops): sig to it as lg_child_kill sends it,
 * its handles closed at once, no more callbacks. Sets *self_p NULL. */
void lg_child_forget(lg_child_t **self_p, int sig);

/* How a program run by lg_child_run ended. */
typedef struct {
    int exited;      /* 0: it could not be made to end (given up after SIGKILL) */
    int64_t status;  /* -1 when not exited */
    int term_signal; /* 0 when not exited */
    int timed_out;
    int truncated; /* it wrote more than out could hold: the rest was read and dropped */
} lg_child_status_t;

/* Run o to its end on a loop of its own, blocking the caller (a CLI, or a daemon before its loop
 * runs): what it writes to stdout (with o->out LG_CHILD_PIPE; stdout and stderr with
 * LG_CHILD_MERGE) goes into out (outlen bytes, NUL-terminated; NULL: dropped), the deadline and
 * everything else as o says (its on_out, on_exit and arg are not used). Returns 0 with *st set,
 * or a negative libuv error when it could not be started (or no loop could be made). */
int lg_child_run(const lg_child_opts_t *o, char *out, size_t outlen, lg_child_status_t *st);

#endif

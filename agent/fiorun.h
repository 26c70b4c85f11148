/* fiorun.h: one fio child process in the agent's libuv loop: its stdout cut into JSON objects,
 * the tail of its stderr kept for error messages. */
#ifndef LG_FIORUN_H
#define LG_FIORUN_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct lg_fiorun lg_fiorun_t;

/* text is valid only during the call. */
typedef void (*lg_fiorun_object_cb)(void *arg, const char *text, size_t len);
/* Called once, after the process exited and both pipes reached EOF. err_tail: the last part of
 * fio's stderr (may be ""); valid during the call. After this, lg_fiorun_destroy the run. */
typedef void (*lg_fiorun_exit_cb)(void *arg, int64_t exit_status, int term_signal,
                                  const char *err_tail);

/* Spawn argv[0] (looked up in PATH) with argv, in a process group of its own (POSIX). fio's job
 * processes make sessions of their own: a SIGTERM reaches them through fio, a SIGKILL does not
 * (the agent ends them through fio's record, fiorec.h). pass_fd, unless -1, becomes the child's fd
 * 4 (POSIX; the held target, LG_PLAT_TARGET_FD). on_object may be NULL (stdout is then only
 * drained). Caller owns *out. Returns 0 or a negative libuv error; on error no callback runs. */
int lg_fiorun_start(uv_loop_t *loop, char **argv, const char *cwd, int pass_fd,
                    lg_fiorun_object_cb on_object, lg_fiorun_exit_cb on_exit, void *arg,
                    lg_fiorun_t **out);

/* A held run: uv_spawn (fork, exec, loading) happens ahead of time, fio's exec at the instant.
 * Called once after lg_fiorun_release, when the outcome is known: t_us is when the hold stage woke
 * at the instant (local CLOCK_REALTIME, microseconds); err is 0 once fio replaced the hold stage,
 * or a negative errno when fio could not be executed (on_exit follows either way). Not called if
 * the hold stage went away before the instant. */
typedef void (*lg_fiorun_start_cb)(void *arg, int64_t t_us, int err);
/* Spawn the agent's own binary (/proc/self/exe) as "lg-agent --exec-at-fd 3 -- argv...", which
 * waits for lg_fiorun_release and then becomes fio with the same stdout and stderr, so on_object
 * and on_exit work as with lg_fiorun_start. Until released, lg_fiorun_destroy just ends the hold
 * stage (no callback). Caller owns *out. Returns 0 or a negative libuv error. */
int lg_fiorun_start_held(uv_loop_t *loop, char **argv, const char *cwd, int pass_fd,
                         lg_fiorun_object_cb on_object, lg_fiorun_start_cb on_start,
                         lg_fiorun_exit_cb on_exit, void *arg, lg_fiorun_t **out);
#ifndef _WIN32
#include <sys/types.h>
/* The same with the hold stage, and so the program it becomes, running as uid:gid without
 * supplementary groups (an application run's client as --app-user; user NULL: as the agent),
 * no fd 4, and env as its whole environment (NULL-terminated "KEY=value"; an application run's
 * measured tool gets the clean one its load step had, never the agent's PG*, MYSQL_* or LD_*).
 * env must stay valid until the run ends. */
int lg_fiorun_start_held_env(uv_loop_t *loop, char **argv, const char *cwd, const uid_t *uid,
                             const gid_t *gid, char **env, lg_fiorun_object_cb on_object,
                             lg_fiorun_start_cb on_start, lg_fiorun_exit_cb on_exit, void *arg,
                             lg_fiorun_t **out);
#endif
/* Let a held run become fio at at_us (local CLOCK_REALTIME, microseconds). Returns 0, or a
 * negative libuv error: UV_EINVAL (not held, or released already) or the write's error (the hold
 * stage is gone; on_exit tells). */
int lg_fiorun_release(lg_fiorun_t *r, int64_t at_us);
/* The hold stage, for lg-agent's main when started as "lg-agent --exec-at-fd FD -- argv...":
 * reads the instant (8 bytes) on fd, sleeps until it (SCHED_FIFO where permitted, back to its
 * own policy before exec), writes back when it woke (8 bytes) and executes argv; after a failed
 * exec it writes -errno (8 bytes). Returns only when it does not
 * run fio: 0 when the pipe closed before an instant came (the run was called off), 127 when exec
 * failed. */
#ifndef _WIN32
int lg_fiorun_hold_main(int fd, char **argv);
#else
/* The Windows hold stage, "lg-agent --hold -- argv..." (hold_win.c): creates fio suspended, takes
 * the instant on stdin, resumes fio then and writes back when (and 0, or -errno), stays fio's
 * parent and exits with its code. LG_HOLD_KILL on stdin, or the pipe's end, ends fio. */
int lg_fiorun_hold_main_win(char **argv);
#endif
#define LG_HOLD_KILL ((int64_t)-1)
/* Another program's output as it comes: stdout handed to on_raw in the chunks read (no JSON
 * splitting; data valid during the call), instead of on_object. Set it right after the start,
 * before the loop runs again. */
typedef void (*lg_fiorun_data_cb)(void *arg, const char *data, size_t len);
void lg_fiorun_set_raw(lg_fiorun_t *r, lg_fiorun_data_cb on_raw);
/* Send a signal to fio (its process group) if it is still running. */
void lg_fiorun_kill(lg_fiorun_t *r, int sig);
/* A Stop that keeps fio's final report. POSIX: SIGTERM to its process group. Windows (no
 * signals between processes, and a console break needs a console the agent may not have, as a
 * service): create trigger, the file fio was told to watch (--trigger-file), on which fio ends its
 * jobs as on a signal and writes its report; after LG_FIORUN_STOP_GRACE_MS without an exit, fio is
 * ended with TerminateProcess. Returns 0 or UV_EINVAL (not running). */
#define LG_FIORUN_STOP_GRACE_MS 10000
int lg_fiorun_stop(lg_fiorun_t *r, const char *trigger);
/* How a stopped run was ended: 0 not stopped, or one of these. */
#define LG_FIORUN_STOP_SIGNAL 1     /* SIGTERM (POSIX) */
#define LG_FIORUN_STOP_TRIGGER 2    /* the trigger file (Windows) */
#define LG_FIORUN_STOP_TERMINATED 3 /* TerminateProcess after the grace period (Windows) */
int lg_fiorun_stop_how(const lg_fiorun_t *r);
/* The process the run started (POSIX: fio itself once a hold stage became it; Windows: the hold
 * stage, fio's parent), for measuring its CPU; 0 when none runs. */
int64_t lg_fiorun_pid(const lg_fiorun_t *r);
/* Free the run (its handles close asynchronously). Safe from inside on_exit. Sets *self_p NULL. */
void lg_fiorun_destroy(lg_fiorun_t **self_p);

#endif

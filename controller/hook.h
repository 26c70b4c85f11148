/* hook.h: the programs the controller runs on its own host, each to a deadline: the command it
 * runs between SUT configs (e.g. one that runs "zfs set dedup=on" on the NAS), configured on the
 * controller host only, never taken from a spec; and an argv run directly (a config's
 * reduction: probe), whose output it reads. */
#ifndef LG_HOOK_H
#define LG_HOOK_H

#include <stdint.h>
#include <uv.h>

/* A hook runs for at most this long unless --hook-timeout says otherwise: nothing the
 * controller runs may keep a campaign waiting for ever. */
#define LG_HOOK_TIMEOUT_DEFAULT_S 3600
/* The hook's deadline in seconds: the configured one (lg_controller_config_t.hook_timeout_s), or
 * the default when that is 0. */
static inline uint32_t lg_hook_timeout_s(uint32_t configured_s)
{
    return configured_s ? configured_s : LG_HOOK_TIMEOUT_DEFAULT_S;
}

/* After the deadline: SIGTERM to the program's process group, then SIGKILL this much later. */
#define LG_HOOK_KILL_AFTER_MS 5000

/* Called exactly once, on the loop, when the program has ended (or could not be made to end:
 * then status is -1 and term_signal 0; or was cancelled: status UV_ECANCELED, see
 * lg_hook_cancel_all). status and term_signal as libuv's exit callback gives them; timed_out:
 * the deadline passed and lg signalled it. out (outlen bytes, NUL-terminated after them, may
 * hold NULs) is its stdout up to out_max bytes; truncated: it printed more, which was read and
 * dropped. err_tail is the end of its stderr (at most 2 KiB, trailing newlines cut). out and
 * err_tail are valid during the call only. */
typedef void (*lg_hook_exec_done_cb)(void *arg, int64_t status, int term_signal, int timed_out,
                                     const char *out, size_t outlen, int truncated,
                                     const char *err_tail);

/* Execute argv (NULL-terminated; argv[0] an absolute path, run as it is: no shell, no PATH
 * search; lg_hook_run below is the one that goes through /bin/sh) in a process group of its own,
 * with stdin /dev/null; its environment is env (NULL-terminated "KEY=value", may be NULL) and those
 * of the controller's variables env does not name, except every LG_* and PG* one (its database URL,
 * a PGPASSWORD: lg_child_env). stdout is read up to out_max bytes (0: it goes to /dev/null), the
 * end of stderr kept. After timeout_ms the group gets SIGTERM, and SIGKILL LG_HOOK_KILL_AFTER_MS
 * later if the program is still there (whatever is left of its group gets SIGKILL when it ends). A
 * program that exits leaving a child that holds its stdout or stderr is done a second after its
 * exit; that child is left alone. argv and env are used during the call only. Returns 0, then done
 * is called once; or a negative libuv error (UV_EINVAL: argv[0] not absolute, no done, timeout_ms
 * 0; UV_ENOENT, UV_EACCES...: it could not be started), then done is never called. Either way the
 * loop has handles to close (uv_run until they are). */
int lg_hook_exec(uv_loop_t *loop, char *const *argv, char *const *env, uint32_t timeout_ms,
                 size_t out_max, lg_hook_exec_done_cb done, void *arg);

/* For a controller that stops: every program still running on loop gets SIGTERM (its whole
 * group) and is forgotten: its done is called at once with status UV_ECANCELED (not an exit
 * status: record nothing, free what arg holds), as libuv cancels requests, and its handles are
 * closed (run the loop once more). */
void lg_hook_cancel_all(uv_loop_t *loop);

/* Called once when the hook ended; as lg_hook_exec_done_cb (status UV_ECANCELED: the controller
 * stopped it, see lg_hook_cancel_all), without stdout (a hook's goes to /dev/null). err_tail is
 * valid during the call only. */
typedef void (*lg_hook_done_cb)(void *arg, int64_t status, int term_signal, int timed_out,
                                const char *err_tail);

/* Run "/bin/sh -c cmd" as lg_hook_exec does, to the deadline timeout_ms, with the controller's
 * environment less its LG_* and PG* variables, plus env (NULL-terminated "KEY=value"). Returns
 * 0 or a negative libuv error (then done is never called). */
int lg_hook_run(uv_loop_t *loop, const char *cmd, char *const *env, uint32_t timeout_ms,
                lg_hook_done_cb done, void *arg);

#endif

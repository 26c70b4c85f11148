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

/* Spawn argv[0] (looked up in PATH) with argv. on_object may be NULL (stdout is then only
 * drained). Caller owns *out. Returns 0 or a negative libuv error; on error no callback runs. */
int lg_fiorun_start(uv_loop_t *loop, char **argv, const char *cwd, lg_fiorun_object_cb on_object,
                    lg_fiorun_exit_cb on_exit, void *arg, lg_fiorun_t **out);
/* Send a signal to fio if it is still running. */
void lg_fiorun_kill(lg_fiorun_t *r, int sig);
/* Free the run (its handles close asynchronously). Safe from inside on_exit. Sets *self_p NULL. */
void lg_fiorun_destroy(lg_fiorun_t **self_p);

#endif

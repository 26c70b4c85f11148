/* hook.h: the command the controller runs between SUT configs (e.g. one that runs
 * "zfs set dedup=on" on the NAS). It is configured on the controller host only, never taken
 * from a spec, and gets the next config's labels in its environment. */
#ifndef LG_HOOK_H
#define LG_HOOK_H

#include <stdint.h>
#include <uv.h>

typedef struct lg_hook lg_hook_t;

/* Called once when the command ended; err_tail is the end of its stderr (valid during the call).
 * The hook frees itself after the callback. */
typedef void (*lg_hook_done_cb)(void *arg, int64_t status, int term_signal, const char *err_tail);

/* Run "/bin/sh -c cmd" with the controller's environment plus env (NULL-terminated "KEY=value").
 * Returns 0 or a negative libuv error (then done is never called). */
int lg_hook_run(uv_loop_t *loop, const char *cmd, char *const *env, lg_hook_done_cb done,
                void *arg);

#endif

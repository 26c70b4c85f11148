/* apprun.h: one application benchmark run (pgbench against a private PostgreSQL, sysbench OLTP
 * against a private MariaDB) in the agent's libuv loop: the server made and loaded in a folder of
 * its own beside the target, the tool held until the instant, its reports read as they come, and
 * everything stopped and removed afterwards. POSIX only. */
#ifndef LG_APPRUN_H
#define LG_APPRUN_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "agentcfg.h"
#include "lg.pb-c.h"
#include "lg_app.h"

typedef struct lg_apprun lg_apprun_t;

/* How a run ended, for on_done. Everything is valid only during the call. */
typedef struct {
    const lg_app_total_t *tot; /* the tool's own summary; NULL when there is none */
    uint64_t prepare_ms;       /* folder made to data loaded; 0 when preparing failed */
    const char *output;        /* the tool's output, stdout and stderr in order (capped) */
    size_t output_len;
    int64_t exit_status; /* the tool's; -1 when it never ran */
    int term_signal;
    uint64_t samples;      /* reports handed to on_sample (the highest seq) */
    int err;               /* 0, or a negative LG_E* when error says what failed */
    const char *error;     /* NULL, or which step failed, its command and its output's tail */
    const char *stop_note; /* NULL, or how a Stop ended the tool when it still printed its
                            * summary (pgbench on SIGALRM) */
} lg_apprun_result_t;

typedef struct {
    /* The data set is loaded and the tool held: the run may be released. */
    void (*on_prepared)(void *arg, uint64_t prepare_ms);
    /* The held tool woke at t_us (local CLOCK_REALTIME, microseconds); err is 0 or a negative
     * libuv error when it could not be executed (on_done follows). */
    void (*on_started)(void *arg, int64_t t_us, int err);
    /* One per-second report: seq 1, 2, ...; t_ms: our wall clock at the report's end. */
    void (*on_sample)(void *arg, uint64_t seq, int64_t t_ms, uint64_t interval_ms,
                      const lg_app_sample_t *s);
    /* Once, after the tool exited (or preparing failed) and the server is stopped and its
     * folders removed (the data folder kept with spec.app.keep). After it, destroy the run. */
    void (*on_done)(void *arg, const lg_apprun_result_t *res);
} lg_apprun_cbs_t;

/* Check spec's application part, make the data folder "dirname(target)/lg-TOOL-RUNID-AGENT"
 * (its parent must exist inside cfg's allowed targets, links resolved; the folder must not
 * exist) and a socket folder under /tmp, and start preparing in loop: server, data set, held
 * tool, then on_prepared. The servers run as cfg->app_user (required when running as root).
 * With record_dir (the agent's work folder; NULL: none), the folders, the server's program and
 * every process the run starts are recorded there (apprec.h) before anything runs, and the
 * record removed once all is stopped and removed: an agent killed mid-run leaves what the next
 * one needs to clean up after it (appclean.h). Returns 0 with *out set (caller owns it;
 * callbacks follow), or a negative LG_E* / -errno with err saying why; then nothing was created
 * and no callback runs. spec must stay valid until lg_apprun_destroy (the teardown that
 * follows it does not use it). */
int lg_apprun_prepare(uv_loop_t *loop, const lg_agent_config_t *cfg, const Lg__RunSpec *spec,
                      const char *agent_name, const char *record_dir, const lg_apprun_cbs_t *cbs,
                      void *arg, lg_apprun_t **out, char *err, size_t errlen);

/* Let the held tool start at at_us (local CLOCK_REALTIME, microseconds). Returns 0 or a
 * negative libuv error (not prepared, released already, or the hold stage is gone). */
int lg_apprun_release(lg_apprun_t *r, int64_t at_us);

/* End the tool early (a Stop). pgbench gets SIGALRM, its own -T timer: it ends its clients and
 * prints its summary over the time it ran, so on_done has tot and a stop_note saying so (after
 * 10 s it is killed, as below). sysbench has no such signal: SIGINT, no summary, and on_done
 * reports the samples, tot NULL and an error saying the run was stopped. */
void lg_apprun_stop(lg_apprun_t *r);

/* The folder the server's data is in (for logs and tests). */
const char *lg_apprun_data_dir(const lg_apprun_t *r);
/* The server's PID (0 when none is running or none was started yet). */
int lg_apprun_server_pid(const lg_apprun_t *r);

/* Give the run up: no more callbacks; every process it started is killed (their process groups)
 * and its folders removed (the data folder kept with spec.app.keep) as the loop runs on, and the
 * memory freed once its handles closed. Safe from inside a callback. Sets *self_p NULL. */
void lg_apprun_destroy(lg_apprun_t **self_p);

#endif

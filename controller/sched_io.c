/* sched_io.c: what the scheduler asks of the world (ctrl.h: lg_sched_io_t), the real ones: the
 * store, the sample writer, the clock, the hook and other programs (hook.h), NAS telemetry
 * (lg_scrape.h), messages to agents. Unit tests pass fakes instead. */
#include <stdio.h>

#include "ctrl.h"
#include "hook.h"
#include "lg_log.h"
#include "lg_scrape.h"
#include "lg_util.h"
#include "store.h"

static int s_io_submit(lg_ctrl_t *c, lg_store_work_fn work, lg_store_done_fn done, void *job)
{
    return lg_store_submit(c->store, work, done, c, job);
}
static int s_io_tx(lg_ctrl_t *c, lg_tx_t *t, lg_store_done_fn done, void *arg)
{
    return lg_store_tx(c->store, t, done, arg);
}
static uint64_t s_io_away(lg_ctrl_t *c)
{
    return lg_store_away_since(c->store);
}
static size_t s_io_store_pending(lg_ctrl_t *c)
{
    return lg_store_pending(c->store);
}
static size_t s_io_writer_pending(lg_ctrl_t *c)
{
    return lg_writer_pending(c->writer);
}
static int s_io_writer_failing(lg_ctrl_t *c)
{
    return lg_writer_failing(c->writer);
}
static uint64_t s_io_writer_spooled(lg_ctrl_t *c)
{
    return lg_writer_spooled(c->writer);
}
static uint64_t s_io_now(lg_ctrl_t *c)
{
    (void)c;
    return lg_mono_ms();
}
static int s_io_hook(lg_ctrl_t *c, char *const *env, lg_hook_done_cb done, void *arg)
{
    return lg_hook_run(c->loop, c->cfg->hook, env,
                       lg_hook_timeout_s(c->cfg->hook_timeout_s) * 1000u, done, arg);
}

static void s_on_scrape(void *arg, const lg_scrape_t *sc)
{
    lg__sched_on_scrape(arg, sc);
}

static void s_io_telem_start(lg_ctrl_t *c, uint64_t run_id, const char *json)
{
    lg_telemetry_t *src = NULL;
    size_t n = 0;
    char err[256];
    if (lg_telemetry_from_json(json, &src, &n, err, sizeof err) != 0) {
        lg_warn("run %llu: its telemetry sources cannot be read: %s", (unsigned long long)run_id,
                err);
        return;
    }
    /* tokens and CAs only from the operator's credentials, each only to its own origin */
    char why[800];
    if (lg_telemetry_resolve(src, n, c->op, why, sizeof why) != 0) {
        lg_warn("run %llu: no telemetry: %s", (unsigned long long)run_id, why);
        lg_telemetry_destroy(&src, n);
        return;
    }
    if (n && !c->scraper)
        c->scraper = lg_scraper_new(c->loop, s_on_scrape, NULL, c);
    if (n && !c->scraper)
        lg_warn("run %llu: the telemetry scraper could not start: the run goes on without it",
                (unsigned long long)run_id);
    else if (n && lg_scraper_start(c->scraper, run_id, src, n) != 0)
        lg_warn("run %llu: could not start its telemetry: out of memory",
                (unsigned long long)run_id);
    else if (n)
        lg_info("run %llu: scraping %zu telemetry source(s) every %u ms",
                (unsigned long long)run_id, n, src[0].interval_ms);
    lg_telemetry_destroy(&src, n);
}

static void s_io_telem_stop(lg_ctrl_t *c, uint64_t run_id)
{
    lg_scraper_stop(c->scraper, run_id);
}

static int s_io_proc(lg_ctrl_t *c, char *const *argv, char *const *env, uint32_t timeout_ms,
                     size_t out_max, lg_hook_exec_done_cb done, void *arg)
{
    return lg_hook_exec(c->loop, argv, env, timeout_ms, out_max, done, arg);
}

const lg_sched_io_t lg__sched_io = {
    .telem_start = s_io_telem_start,
    .telem_stop = s_io_telem_stop,
    .proc = s_io_proc,
    .send = lg__ctrl_send_agent,
    .submit = s_io_submit,
    .tx = s_io_tx,
    .store_away_since = s_io_away,
    .store_pending = s_io_store_pending,
    .writer_pending = s_io_writer_pending,
    .writer_failing = s_io_writer_failing,
    .writer_spooled = s_io_writer_spooled,
    .now_ms = s_io_now,
    .hook = s_io_hook,
};

/* fuzz_wire.c: fuzz target for the wire codec: one frame from the network decoded into an
 * Envelope, then the pure checks and conversions that the agent's and controller's handlers run
 * on its body (DirStats to lg_dirstats_t, RunSpec validation and the allowed-target check, the
 * fio JSON of a RunResult, a submitted spec). No sockets, no database. Built with libFuzzer, or
 * with -DLG_FUZZ_STANDALONE and fuzz_driver.c for a plain main(). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jobfile.h"
#include "lg_error.h"
#include "lg_fio.h"
#include "lg_spec.h"
#include "lg_stats.h"
#include "lg_wire.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* As the writer and the controller's live view read Sample and RunResult bodies. */
static void s_dirs(Lg__DirStats **dirs, size_t n)
{
    lg_dirstats_t *st = malloc(sizeof *st);
    if (!st)
        return;
    for (size_t i = 0; i < n; i++) {
        lg_dir_t d;
        if (!dirs[i])
            abort(); /* protobuf-c never leaves a repeated message NULL */
        if (lg_wire_dirstats_get(dirs[i], st, &d) != 0)
            continue;
        if ((int)d < 0 || (int)d >= LG_DIR_NR)
            abort(); /* a direction that was accepted must index the per-direction arrays */
        (void)lg_dir_name(d);
        for (unsigned p = 0; p < LG_NPCT; p++)
            (void)lg_hist_percentile(&st->hist, lg_pct_list[p]);
        /* Back to the wire form, as the agent does before sending. */
        Lg__DirStats *m = lg_wire_dirstats_new(st, d);
        lg_wire_dirstats_destroy(&m);
    }
    free(st);
}

static void s_runspec(const Lg__RunSpec *spec)
{
    static const lg_agent_config_t cfg = {
        .allow = {"/srv/lg", "/dev/sdb", "smb://nas/share", "iscsi://san:3260/iqn.2026-01.lg"},
        .nallow = 4,
    };
    char err[512];

    if (!spec)
        return;
    if (lg_jobfile_validate(spec, err, sizeof err) != 0)
        return;
    (void)lg_jobfile_writes(spec);
    (void)lg_jobfile_engine(spec->target_kind);
    if (spec->target)
        (void)lg_agent_path_allowed(&cfg, spec->target);
}

static void s_text(const char *s, int what)
{
    if (!s)
        return;
    size_t len = strlen(s);
    if (what == 0) {
        lg_fio_report_t *r = NULL;
        char err[256];
        if (lg_fio_report_parse(s, len, &r, err, sizeof err) == 0)
            lg_fio_report_destroy(&r);
    } else {
        lg_spec_t *spec = NULL;
        lg_spec_diag_t diag;
        if (lg_spec_parse_text(s, len, "<submitted>", &spec, &diag) == 0) {
            lg_run_plan_t *runs = NULL;
            size_t nruns = 0;
            if (lg_spec_plan(spec, &runs, &nruns) == 0)
                free(runs);
            lg_spec_destroy(&spec);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    uint8_t *buf;
    size_t len;
    Lg__Envelope *env;

    if (size > LG_FUZZ_MAX_INPUT)
        return 0;
    env = lg_wire_unpack(data, size, err, sizeof err);
    if (!env)
        return 0;
    if (env->version != LG_WIRE_VERSION || env->body_case == LG__ENVELOPE__BODY__NOT_SET)
        abort(); /* unpack promised to reject these */
    switch (env->body_case) {
    case LG__ENVELOPE__BODY_SAMPLE:
        s_dirs(env->sample->dirs, env->sample->n_dirs);
        break;
    case LG__ENVELOPE__BODY_RUN_RESULT:
        s_dirs(env->run_result->dirs, env->run_result->n_dirs);
        s_text(env->run_result->fio_json, 0);
        break;
    case LG__ENVELOPE__BODY_PREPARE:
        s_runspec(env->prepare->spec);
        break;
    case LG__ENVELOPE__BODY_CTL_REQUEST:
        if (env->ctl_request->op == LG__CTL_REQUEST__OP__OP_SUBMIT)
            s_text(env->ctl_request->spec_text, 1);
        break;
    default:
        break;
    }
    /* What decodes must encode again. protobuf-c keeps unknown fields and accepts an overlong
     * tag of field 0 ("80 00") that it then writes as "00" and rejects, so the copy may not
     * decode; when it does, it must be a message of the same type. */
    if (lg_wire_pack(env, &buf, &len) == 0) {
        Lg__Envelope *again = lg_wire_unpack(buf, len, err, sizeof err);
        if (again && again->body_case != env->body_case)
            abort();
        lg_wire_envelope_destroy(&again);
        free(buf);
    }
    lg_wire_envelope_destroy(&env);
    return 0;
}

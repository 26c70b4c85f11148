/* agent_prepare.c: a run's preparation, on a Prepare: the spec validated, the target resolved,
 * checked and held (or the engine's target and credentials checked), the run's folder in the
 * work folder, the job files written, and the file laid out (or the remote target reached) by
 * a first fio before the measured one is held until the instant. */
#include "agent_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "lg_wire.h"

/* Did an engine's layout step fail to reach its server, or did the server refuse sessions for its
 * load (the engines' own words in fio's stderr)? Such a failure may pass (a server starting or
 * busy): LG_ECONNECT, which the controller tries again. A refused password, a missing share or
 * LUN, and any other failure of the layout are the target's (LG_EFIO). */
int lg__agent_connect_failure(const char *tail)
{
    static const char *const said[] = {"no SMB server reachable", "SMB sessions to",
                                       "Connection refused", "refused a further session",
                                       "dropped a further connection"};
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        if (strstr(tail, said[i]))
            return 1;
    return 0;
}

static void s_on_layout_exit(void *arg, int64_t status, int sig, const char *tail)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    lg__agent_fio_end(a);
    if (status != 0 || sig != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s \"%s\" failed (fio exit %lld, signal %d): %s",
                 r->spec->target_kind == LG__TARGET_KIND__TARGET_SMB ? "reaching or laying out"
                 : lg_jobfile_engine(r->spec->target_kind)           ? "reaching"
                                                                     : "laying out",
                 r->spec->target, (long long)status, sig, tail);
        lg__agent_run_fail(
            a,
            lg_jobfile_engine(r->spec->target_kind) && lg__agent_connect_failure(tail) ? LG_ECONNECT
                                                                                       : LG_EFIO,
            msg);
        return;
    }
#ifndef _WIN32
    /* An engine that logs in (lgsmb, lgiscsi) does so in its jobs' init, which takes seconds with
     * many sessions: its fio starts now, and Prepared goes once every job logged in and waits at
     * the start gate (agent_gate.c). */
    if (lg__agent_gated(a)) {
        int grc = lg__agent_gate_start(a);
        if (grc) {
            char msg[256];
            snprintf(msg, sizeof msg, "could not start fio \"%s\": %s", a->cfg->fio,
                     uv_strerror(grc));
            lg__agent_run_fail(a, LG_EFIO, msg);
        }
        return;
    }
#endif
    /* The measured run's fio is forked and loaded now, held until the instant (s_handle_start):
     * at Start nothing but a wake-up and an exec lies between the instant and fio. */
    int rc = lg__agent_hold_fio(a);
    if (rc) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not start fio \"%s\": %s", a->cfg->fio, uv_strerror(rc));
        lg__agent_run_fail(a, LG_EFIO, msg);
        return;
    }
    r->state = RUN_READY;
    lg__agent_send_prepared(a, r->spec->run_id);
    lg_info("run %llu prepared", (unsigned long long)r->spec->run_id);
}

/* An smb:// or iscsi:// target: the engine must be here, credentials readable, and writing to
 * a LUN needs the same consent as a block device. */
int lg__agent_check_engine_target(agent_t *a, const Lg__RunSpec *spec, const char *engine,
                                  char *err, size_t errlen)
{
    int have = (!strcmp(engine, "lgsmb") && a->has_lgsmb) ||
               (!strcmp(engine, "lgiscsi") && a->has_lgiscsi);
    if (!have) {
        snprintf(err, errlen,
                 "target \"%s\" needs the %s engine, which this agent does not have (no %s/%s.so;"
                 " see --engine-dir)",
                 spec->target, engine, a->engine_dir, engine);
        return LG_EDENIED;
    }
    if (spec->target_kind == LG__TARGET_KIND__TARGET_ISCSI &&
        (lg_jobfile_writes(spec) || spec->size_based) && !a->cfg->allow_destructive) {
        snprintf(err, errlen,
                 "run %llu would write to LUN \"%s\": this agent was not started with "
                 "--allow-destructive",
                 (unsigned long long)spec->run_id, spec->target);
        return LG_EDENIED;
    }
    const char *cred = spec->target_kind == LG__TARGET_KIND__TARGET_SMB ? a->cfg->smb_credentials
                                                                        : a->cfg->iscsi_chap;
    char user[128];
    if (spec->target_kind == LG__TARGET_KIND__TARGET_SMB && !cred &&
        lg_smb_url_user(spec->target, user, sizeof user)[0]) {
        /* A named user without a password would be a guest login, measuring another share. */
        snprintf(err, errlen,
                 "target \"%s\" names the user \"%s\", and this agent has no --smb-credentials "
                 "file with that user's password: start lg-agent with --smb-credentials FILE "
                 "(never a guest login instead)",
                 spec->target, user);
        return LG_EDENIED;
    }
    char why[512];
    int rc = cred ? lg_auth_secret_file_check(cred, "credentials file", why, sizeof why) : 0;
    if (rc == 0 && cred && access(cred, R_OK) != 0) {
        rc = -errno;
        snprintf(why, sizeof why, "credentials file \"%s\": %s", cred, strerror(-rc));
    }
    if (rc)
        snprintf(err, errlen, "target \"%s\": %s", spec->target, why);
    return rc;
}

/* Removes the folders of earlier runs from the work folder (each run's job files are kept until
 * the next run, to be read). The work folder is ours alone, so what is in it is what we made. */
static void s_prune_runs(const char *work_dir, const char *keep)
{
    DIR *d = opendir(work_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "run-", 4) != 0 || strcmp(e->d_name, keep) == 0)
            continue;
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%s", work_dir, e->d_name);
        DIR *s = opendir(sub);
        if (s) {
            struct dirent *f;
            while ((f = readdir(s)) != NULL) {
                if (strcmp(f->d_name, ".") == 0 || strcmp(f->d_name, "..") == 0)
                    continue;
                char file[4500];
                snprintf(file, sizeof file, "%s/%s", sub, f->d_name);
                remove(file);
            }
            closedir(s);
        }
        if (rmdir(sub) != 0)
            lg_debug("could not remove \"%s\": %s", sub, strerror(errno));
    }
    closedir(d);
}

/* The run's folder for its job files: run-ID, made 0700 in the work folder. */
static int s_run_dir(agent_t *a, uint64_t run_id, char *err, size_t errlen)
{
    run_t *r = &a->run;
    char name[64];
    snprintf(name, sizeof name, "run-%llu", (unsigned long long)run_id);
    s_prune_runs(a->work_dir, name);
    snprintf(r->dir, sizeof r->dir, "%s/%s", a->work_dir, name);
    int rc = lg_mkdirs(r->dir, 0700);
    if (rc)
        snprintf(err, errlen, "could not create \"%s\": %s", r->dir, lg_strerror(rc));
    return rc;
}

/* A file or block target: what the path leads to now, resolved, checked and held for fio.
 * Returns 0, or an error with err set (the run fails). */
static int s_hold_target(agent_t *a, const Lg__RunSpec *spec, char *err, size_t errlen)
{
    run_t *r = &a->run;
    int rc;
    /* What the path leads to now, links followed, must be inside the allow-list too; it is
     * held open and fio is given the held descriptor, so a link swapped in later cannot
     * redirect the run. */
    rc = lg_plat_target_open(spec->target, a->cfg->allow, a->cfg->nallow,
                             spec->target_kind == LG__TARGET_KIND__TARGET_FILE, &r->tgt, err,
                             errlen);
    if (rc)
        return rc;
    r->has_tgt = 1;
    /* Is it what the spec says it is (an SMB share, not the empty mount point of one)? */
    lg_fs_facts_t fsf;
    lg_plat_target_fs(&r->tgt, &fsf);
    rc = lg_fs_check(spec->target, spec->protocol, lg_fs_expect(spec->protocol, spec->fs),
                     spec->mount, &fsf, err, errlen);
    if (rc) {
        if (r->tgt.created) /* ours, just made: leave nothing behind on the wrong disk */
            remove(r->tgt.real);
        return rc;
    }
    lg_info("run %llu: target \"%s\" is %s\"%s\"%s on %s (%s), held for fio",
            (unsigned long long)spec->run_id, spec->target, r->tgt.is_dev ? "device " : "",
            r->tgt.real, r->tgt.created ? " (created)" : "", fsf.mount, fsf.type);
    if (r->tgt.is_dev || spec->target_kind == LG__TARGET_KIND__TARGET_BLOCK)
        return lg_agent_check_device(a->cfg, spec, r->tgt.real, err, errlen);
    return 0;
}

void lg__agent_handle_prepare(agent_t *a, Lg__Envelope *env)
{
    const Lg__RunSpec *spec = env->prepare->spec;
    if (!spec) {
        lg_warn("dropped a Prepare without a run spec");
        lg_wire_envelope_destroy(&env);
        return;
    }
    if (a->run.state != RUN_NONE) {
        char msg[128];
        snprintf(msg, sizeof msg, "busy with run %llu",
                 (unsigned long long)(a->run.spec ? a->run.spec->run_id : 0));
        if (a->run.spec && a->run.spec->run_id == spec->run_id) {
            /* A repeat (the controller restarted): already on it; say so again if ready. */
            if (a->run.state == RUN_READY)
                lg__agent_send_prepared(a, spec->run_id);
            lg_wire_envelope_destroy(&env);
            return;
        }
        lg__agent_send_run_error(a, spec->run_id, LG_ESTATE, msg);
        lg_wire_envelope_destroy(&env);
        return;
    }
#ifndef _WIN32
    if (a->fio_left && (a->fio_left = lg_fiorec_clean(a->work_dir, 200)) > 0) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "an fio that a previous lg-agent left running in \"%s\" is still alive and "
                 "could not be ended: no run starts beside it (see the agent's log)",
                 a->work_dir);
        lg__agent_send_run_error(a, spec->run_id, LG_ESTATE, msg);
        lg_wire_envelope_destroy(&env);
        return;
    }
#endif
    run_t *r = &a->run;
    r->prepare = env;
    r->spec = spec;
    if (spec->app && spec->app->kind != LG__APP_KIND__APP_NONE) {
        lg__agent_prepare_app(a);
        return;
    }
    char err[512];
    int rc = lg_jobfile_validate(spec, err, sizeof err);
    if (rc) {
        lg__agent_run_fail(a, rc, err);
        return;
    }
    if (spec->target_kind != LG__TARGET_KIND__TARGET_NULL &&
        !lg_agent_path_allowed(a->cfg, spec->target)) {
        snprintf(err, sizeof err,
                 "target \"%s\" is outside this agent's allowed targets (see --allow)",
                 spec->target);
        lg__agent_run_fail(a, LG_EDENIED, err);
        return;
    }
    if ((spec->target_kind == LG__TARGET_KIND__TARGET_FILE ||
         spec->target_kind == LG__TARGET_KIND__TARGET_BLOCK) &&
        (rc = s_hold_target(a, spec, err, sizeof err)) != 0) {
        lg__agent_run_fail(a, rc, err);
        return;
    }
    const char *engine = lg_jobfile_engine(spec->target_kind);
    if (engine && (rc = lg__agent_check_engine_target(a, spec, engine, err, sizeof err)) != 0) {
        lg__agent_run_fail(a, rc, err);
        return;
    }
    rc = s_run_dir(a, spec->run_id, err, sizeof err);
    if (rc) {
        lg__agent_run_fail(a, rc, err);
        return;
    }
    if (strcmp(spec->rw, "randread") == 0 || strcmp(spec->rw, "read") == 0)
        r->dirs_mask = 1 << LG_DIR_READ;
    else if (strcmp(spec->rw, "randwrite") == 0 || strcmp(spec->rw, "write") == 0)
        r->dirs_mask = 1 << LG_DIR_WRITE;
    else
        r->dirs_mask = (1 << LG_DIR_READ) | (1 << LG_DIR_WRITE);
    /* fio is given the held target, never the path again. */
    Lg__RunSpec held = *spec;
    if (r->has_tgt)
        held.target = r->tgt.fio_path;
    snprintf(r->job, sizeof r->job, "%s/job.fio", r->dir);
    rc = lg_jobfile_write(&held, r->job, 0, &a->jobhost, err, sizeof err);
    if (rc) {
        lg__agent_run_fail(a, rc, err);
        return;
    }
    r->state = RUN_PREPARING;
    uint64_t need = spec->offset + spec->size;
    int layout_file =
        spec->target_kind == LG__TARGET_KIND__TARGET_FILE && !r->tgt.is_dev && r->tgt.size < need;
    if (!layout_file && !engine) {
        s_on_layout_exit(a, 0, 0, "");
        return;
    }
    /* A file shorter than the run needs is laid out: extended here, then written by fio through
     * the held descriptor (fio's own layout would unlink and re-create it by name). An smb://
     * file missing or short is laid out by lgsmb the same way, else probed like an iscsi://
     * LUN (connect, log in, read a block): a wrong password or a missing share or LUN fails
     * here, naming the target. */
    if (layout_file && (rc = lg_plat_target_extend(&r->tgt, need, err, sizeof err)) != 0) {
        lg__agent_run_fail(a, rc, err);
        return;
    }
    char layout[1100];
    snprintf(layout, sizeof layout, "%s/layout.fio", r->dir);
    rc = lg_jobfile_write(&held, layout, 1, &a->jobhost, err, sizeof err);
    if (rc == 0)
        rc = lg__agent_spawn_fio(a, layout, 0, NULL, NULL, s_on_layout_exit);
    if (rc) {
        snprintf(err, sizeof err, "could not start fio \"%s\": %s", a->cfg->fio,
                 rc < -1000 ? lg_strerror(rc) : uv_strerror(rc));
        lg__agent_run_fail(a, LG_EFIO, err);
    }
}

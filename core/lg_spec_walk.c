/* lg_spec_walk.c: the walker of a campaign spec's top-level mapping: each key to its handler in
 * the table (lg_spec_keys.c), configs first, the required ones and the one-config shorthand, then
 * the checks that span keys (shares, block sizes against size, application targets, the run
 * count, the data pattern, the preconditioning window). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_datapattern.h"
#include "lg_error.h"
#include "lg_spec_int.h"

/* Each key of root to its handler, marking it in seen[]: configs first, so the shorthand keys can
 * be refused next to it. */
static int s_walk_keys(lg__spec_ctx_t *c, const yaml_node_t *root, bool *seen)
{
    const lg__spec_field_t *fields = lg__spec_fields;
    for (size_t i = 0; i < lg__spec_map_len(root); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, root, i, "", &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "configs")) {
            const lg__spec_field_t *f = &fields[LG__SPEC_K_CONFIGS];
            if ((rc = f->get(c, e.vn, f)) != 0)
                return rc;
            seen[LG__SPEC_K_CONFIGS] = true;
        }
    }
    for (size_t i = 0; i < lg__spec_map_len(root); i++) {
        lg__spec_entry_t e;
        size_t fi = 0;
        int rc = lg__spec_entry(c, root, i, "", &e);
        if (rc)
            return rc;
        while (fi < LG__SPEC_NKEYS && strcmp(fields[fi].key, e.key) != 0)
            fi++;
        if (fi == LG__SPEC_NKEYS)
            return lg__spec_unknown_key(c, e.kn, e.path);
        if (!strcmp(e.key, "profiles"))
            c->profiles_node = e.kn;
        if (fi == LG__SPEC_K_CONFIGS)
            continue;
        if (seen[LG__SPEC_K_CONFIGS] &&
            (fi == LG__SPEC_K_SUT || fi == LG__SPEC_K_TARGET || fi == LG__SPEC_K_PROTOCOL))
            return lg__spec_fail(c, e.kn, e.path,
                                 "with configs, give labels and targets inside each config");
        if ((rc = fields[fi].get(c, e.vn, &fields[fi])) != 0)
            return rc;
        seen[fi] = true;
    }
    return 0;
}

/* The required keys; without configs, the shorthand's one config (target: at least). */
static int s_required(lg__spec_ctx_t *c, const yaml_node_t *root, const bool *seen)
{
    for (size_t fi = 0; fi < LG__SPEC_NKEYS; fi++)
        if (lg__spec_fields[fi].required && !seen[fi])
            return lg__spec_fail(c, root, lg__spec_fields[fi].key, "missing required key");
    if (!seen[LG__SPEC_K_CONFIGS] && !seen[LG__SPEC_K_TARGET])
        return lg__spec_fail(c, root, "target", "missing required key (or configs)");
    if (!seen[LG__SPEC_K_CONFIGS]) {
        lg_sutconfig_t *cfg = lg__spec_implicit(c);
        if (!cfg)
            return -ENOMEM;
        cfg->line = 1;
        lg__spec_default_protocol(&cfg->targets[0]);
    }
    return 0;
}

/* Each target without a share: of its own against the campaign's. */
static int s_check_shares(lg__spec_ctx_t *c, const yaml_node_t *root)
{
    for (size_t k = 0; k < c->spec->nconfigs; k++)
        for (size_t i = 0; i < c->spec->configs[k].ntargets; i++) {
            const lg_target_t *t = &c->spec->configs[k].targets[i];
            int rc = t->agents.share_given
                         ? 0
                         : lg__spec_check_share(c, c->share_node ? c->share_node : root, "share", t,
                                                &c->spec->agents);
            if (rc)
                return rc;
        }
    return 0;
}

static int s_check_block_sizes(lg__spec_ctx_t *c, const yaml_node_t *root)
{
    for (size_t i = 0; i < c->spec->nprofiles; i++)
        if (c->spec->profiles[i].bs > c->spec->size)
            return lg__spec_fail(c, c->size_node ? c->size_node : root, "size",
                                 "the target region (%llu bytes) is smaller than the %u-byte "
                                 "blocks of profile \"%s\"",
                                 (unsigned long long)c->spec->size, c->spec->profiles[i].bs,
                                 c->spec->profiles[i].name);
    return 0;
}

/* An application benchmark keeps its database in a folder: every target it runs on must be one
 * (dir:). */
static int s_check_app_targets(lg__spec_ctx_t *c)
{
    for (size_t i = 0; i < c->spec->nprofiles; i++) {
        const lg_profile_t *p = &c->spec->profiles[i];
        for (size_t k = 0; p->app.kind && k < c->spec->nconfigs; k++)
            for (size_t t = 0; t < c->spec->configs[k].ntargets; t++) {
                const lg_target_t *tg = &c->spec->configs[k].targets[t];
                char key[64];
                snprintf(key, sizeof key, "profiles[%zu].app", i);
                if (!tg->dir)
                    return lg__spec_fail_at(c->diag, p->line, 0, key,
                                            "profile \"%s\" (app: %s) keeps its database in a "
                                            "folder on the target: target \"%s\" (protocol %s, "
                                            "config %zu) must be given as dir:/abs/dir",
                                            p->name, lg_appwl_name(p->app.kind), tg->path,
                                            tg->protocol, k + 1);
            }
    }
    return 0;
}

/* What submit stores at once: plan and submit accept exactly the same specs. */
static int s_check_run_count(lg__spec_ctx_t *c, const yaml_node_t *root)
{
    lg_run_plan_t *runs = NULL;
    size_t nruns = 0;
    int prc = lg_spec_plan(c->spec, &runs, &nruns);
    free(runs);
    if (prc == 0 && nruns > S_MAX_RUNS)
        return lg__spec_fail(c, c->profiles_node ? c->profiles_node : root, "profiles",
                             "the campaign has %zu runs (configs x targets x profiles x load "
                             "points x repeats); the limit is %d: split it into several campaigns",
                             nruns, S_MAX_RUNS);
    return 0;
}

/* A data pattern must be one fio can really write with each workload's block size. */
static int s_check_data(lg__spec_ctx_t *c, const yaml_node_t *root)
{
    if (!(c->spec->compress_ratio > 0 || c->spec->dedup_ratio > 0))
        return 0;
    lg_datapattern_t dp = {c->spec->compress_ratio ? c->spec->compress_ratio : 1.0,
                           c->spec->dedup_ratio ? c->spec->dedup_ratio : 1.0, c->spec->dedup_unit};
    lg_datapattern_plan_t plan;
    char why[768];
    for (size_t i = 0; i <= c->spec->nprofiles; i++) {
        const lg_profile_t *p = i < c->spec->nprofiles ? &c->spec->profiles[i] : NULL;
        if (p ? p->read_pct == 100 || p->app.kind : c->spec->precondition != LG_PRECOND_FILL)
            continue; /* reads write nothing; the fill writes at 128k; an app its own data */
        uint32_t bs = p ? p->bs : 131072;
        if (lg_datapattern_plan(&dp, bs, &plan, why, sizeof why) != 0)
            return lg__spec_fail(c, c->data_node ? c->data_node : root, "data",
                                 "%s%s%s writes %u-byte blocks: %s", p ? "profile \"" : "",
                                 p ? p->name : "the fill", p ? "\"" : "", bs, why);
    }
    return 0;
}

int lg__spec_walk_top(lg__spec_ctx_t *c, const yaml_node_t *root)
{
    bool seen[LG__SPEC_NKEYS] = {false};
    if (root->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, root, "",
                             "the spec must be a mapping of keys (name, target, profiles, "
                             "...), got %s",
                             lg__spec_node_kind(root));
    int rc = s_walk_keys(c, root, seen);
    if (rc == 0)
        rc = s_required(c, root, seen);
    if (rc == 0)
        rc = s_check_shares(c, root);
    if (rc == 0)
        rc = s_check_block_sizes(c, root);
    if (rc == 0)
        rc = s_check_app_targets(c);
    if (rc == 0)
        rc = s_check_run_count(c, root);
    if (rc == 0)
        rc = s_check_data(c, root);
    if (rc)
        return rc;
    if (c->spec->precondition == LG_PRECOND_STEADY && c->spec->precond_max_s < 5 * c->spec->round_s)
        return lg__spec_fail(c, c->precond_node ? c->precond_node : root, "precondition",
                             "max (%us) must allow at least the 5 rounds of the steady-state "
                             "window (5 x %us)",
                             c->spec->precond_max_s, c->spec->round_s);
    return 0;
}

/* lg_spec.c: reads a campaign spec (YAML, via libyaml's document API) into lg_spec_t: the entry
 * points, which load the document and hand it to the walker (lg_spec_walk.c, through the key
 * table of lg_spec_keys.c), and the diagnostics' format. The machinery every key uses is in
 * lg_spec_node.c, the run matrix in lg_plan.c. Every error carries the file, 1-based line/column
 * and dotted key, so the operator need not guess. */
#include "lg_spec.h"

#include "lg_error.h"
#include "lg_spec_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ---- */

void lg_spec_diag_format(const lg_spec_diag_t *d, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (!d) {
        buf[0] = '\0';
        return;
    }
    char where[300];
    /* A diag for an unreadable file has no position; "FILE:0:0" would look like a real place. */
    if (d->line > 0 && d->column > 0)
        snprintf(where, sizeof where, "%s:%d:%d", d->file, d->line, d->column);
    else if (d->line > 0)
        snprintf(where, sizeof where, "%s:%d", d->file, d->line);
    else
        snprintf(where, sizeof where, "%s", d->file);
    if (d->key[0])
        snprintf(buf, len, "%s: key \"%s\": %s", where, d->key, d->message);
    else
        snprintf(buf, len, "%s: %s", where, d->message);
}

/* ---- entry points ---- */

static int s_yaml_error(lg_spec_diag_t *d, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR) {
        lg__spec_fail_at(d, 0, 0, "", "out of memory while parsing YAML");
        return -ENOMEM;
    }
    /* libyaml's context ("while parsing a flow sequence") often starts lines before the problem
     * is noticed, e.g. an unclosed '[' reported on the next line; name where it began. */
    char ctx[160] = "";
    if (p->context && p->context_mark.line != p->problem_mark.line)
        snprintf(ctx, sizeof ctx, " %s started on line %d", p->context,
                 (int)p->context_mark.line + 1);
    else if (p->context)
        snprintf(ctx, sizeof ctx, " %s", p->context);
    return lg__spec_fail_at(d, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1, "",
                            "invalid YAML: %s%s", p->problem ? p->problem : "unknown error", ctx);
}

/* libyaml's scanner rechecks every open flow level ('[' or '{') for each token, so deeply nested
 * flow input costs tokens x depth: 1 MiB of '[' takes minutes. A first pass with the scanner
 * alone stops at S_MAX_DEPTH, bounding that cost before the real load. */
static int s_check_depth(const char *text, size_t len, lg_spec_diag_t *d)
{
    yaml_parser_t p;
    yaml_token_t tok;
    int depth = 0, rc = 0;
    if (!yaml_parser_initialize(&p))
        return -ENOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    for (;;) {
        if (!yaml_parser_scan(&p, &tok)) {
            rc = s_yaml_error(d, &p);
            break;
        }
        yaml_token_type_t t = tok.type;
        if (t == YAML_FLOW_SEQUENCE_START_TOKEN || t == YAML_FLOW_MAPPING_START_TOKEN ||
            t == YAML_BLOCK_SEQUENCE_START_TOKEN || t == YAML_BLOCK_MAPPING_START_TOKEN)
            depth++;
        else if (t == YAML_FLOW_SEQUENCE_END_TOKEN || t == YAML_FLOW_MAPPING_END_TOKEN ||
                 t == YAML_BLOCK_END_TOKEN)
            depth--;
        if (depth > S_MAX_DEPTH)
            rc = lg__spec_fail_at(d, (int)tok.start_mark.line + 1, (int)tok.start_mark.column + 1,
                                  "", "nested more than %d levels deep", S_MAX_DEPTH);
        yaml_token_delete(&tok);
        if (rc || t == YAML_STREAM_END_TOKEN)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}

int lg_spec_parse_text(const char *text, size_t len, const char *path, lg_spec_t **out,
                       lg_spec_diag_t *diag)
{
    lg_spec_diag_t local;
    if (!diag)
        diag = &local;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->file, sizeof diag->file, "%s", path ? path : "(spec)");
    if (!out || (!text && len))
        return lg__spec_fail_at(diag, 0, 0, "", "no spec given");
    *out = NULL;
    if (len > S_MAX_TEXT)
        return lg__spec_fail_at(diag, 0, 0, "",
                                "too large: the spec is %zu bytes; the limit is 1 MiB", len);

    lg_spec_t *spec = calloc(1, sizeof *spec);
    if (!spec)
        return -ENOMEM;
    /* Defaults; ramp_s is 0 from calloc. */
    spec->size = 1024ull * 1024 * 1024;
    spec->threads = spec->qd = 16;
    spec->runtime_s = 60;
    spec->direct = true;
    spec->repeats = 1;
    spec->retries = 1;
    spec->precondition = LG_PRECOND_STEADY;
    spec->round_s = 60;
    spec->precond_max_s = 1800;
    spec->dedup_unit = 128 * 1024;
    spec->between = LG_BETWEEN_PAUSE;
    spec->path = lg__spec_dup(path ? path : "");
    spec->text = malloc(len + 1);
    if (!spec->path || !spec->text) {
        lg_spec_destroy(&spec);
        return -ENOMEM;
    }
    if (len)
        memcpy(spec->text, text, len);
    spec->text[len] = '\0';

    yaml_parser_t parser;
    yaml_document_t doc;
    int rc = s_check_depth(spec->text, len, diag);
    if (rc == 0 && !yaml_parser_initialize(&parser))
        rc = -ENOMEM;
    if (rc) {
        lg_spec_destroy(&spec);
        return rc;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)spec->text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        rc = s_yaml_error(diag, &parser);
        yaml_parser_delete(&parser);
        lg_spec_destroy(&spec);
        return rc;
    }
    lg__spec_ctx_t c = {&doc, spec, diag, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        rc = lg__spec_fail_at(diag, 1, 1, "", "the spec is empty");
    } else if ((rc = lg__spec_walk_top(&c, root)) == 0) {
        /* A second document would be silently ignored otherwise. */
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) {
            rc = s_yaml_error(diag, &parser);
        } else {
            const yaml_node_t *r2 = yaml_document_get_root_node(&extra);
            if (r2)
                rc = lg__spec_fail(&c, r2, "",
                                   "a spec is a single YAML document; found a second one");
            yaml_document_delete(&extra);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc) {
        lg_spec_destroy(&spec);
        return rc;
    }
    *out = spec;
    return 0;
}

int lg_spec_parse_file(const char *path, lg_spec_t **out, lg_spec_diag_t *diag)
{
    lg_spec_diag_t local;
    if (!diag)
        diag = &local;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->file, sizeof diag->file, "%s", path ? path : "(null)");
    if (out)
        *out = NULL;
    if (!path || !out)
        return lg__spec_fail_at(diag, 0, 0, "", "no spec file given");

    /* Read one byte past the cap so an oversized file is detected without trusting st_size. */
    char *buf = malloc(S_MAX_TEXT + 1);
    FILE *f = buf ? fopen(path, "rb") : NULL;
    if (!f) {
        int e = buf ? errno : ENOMEM;
        free(buf);
        lg__spec_fail_at(diag, 0, 0, "", "could not open \"%s\": %s", path, strerror(e));
        return -e;
    }
    size_t len = fread(buf, 1, S_MAX_TEXT + 1, f);
    int e = ferror(f) ? errno : 0; /* e.g. EISDIR: fopen succeeds on a directory */
    fclose(f);
    int rc;
    if (e) {
        lg__spec_fail_at(diag, 0, 0, "", "could not read \"%s\": %s", path, strerror(e));
        rc = -e;
    } else if (len > S_MAX_TEXT)
        rc = lg__spec_fail_at(diag, 0, 0, "",
                              "too large: \"%s\" is over the 1 MiB limit for a spec", path);
    else
        rc = lg_spec_parse_text(buf, len, path, out, diag);
    free(buf);
    return rc;
}

void lg_spec_destroy(lg_spec_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    lg_spec_t *s = *self_p;
    for (size_t k = 0; k < s->nconfigs; k++) {
        lg_sutconfig_t *cfg = &s->configs[k];
        for (size_t i = 0; i < cfg->nlabels; i++) {
            free(cfg->labels[i].key);
            free(cfg->labels[i].value);
        }
        free(cfg->labels);
        for (size_t i = 0; i < cfg->ntargets; i++) {
            free(cfg->targets[i].path);
            free(cfg->targets[i].mount);
            lg__spec_agents_clear(&cfg->targets[i].agents);
        }
        free(cfg->targets);
        lg_telemetry_destroy(&cfg->telemetry, cfg->ntelemetry);
        lg_reduction_ref_free(cfg->reduction, cfg->reduction_keys, cfg->reduction_vals,
                              cfg->nreduction_params);
    }
    lg_telemetry_destroy(&s->telemetry, s->ntelemetry);
    free(s->configs);
    lg__spec_agents_clear(&s->agents);
    free(s->profiles);
    free(s->path);
    free(s->text);
    free(s->name);
    free(s);
    *self_p = NULL;
}

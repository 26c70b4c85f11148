/* lg_spec.c: reads a campaign spec (YAML, via libyaml's document API) into lg_spec_t: the
 * parsing machinery, diagnostics and entry points. The keys themselves are in lg_spec_keys.c (the
 * table, walked by lg_spec_walk.c) and the files it names, the run matrix in lg_plan.c. Every
 * error carries the file, 1-based line/column and dotted key, so the operator need not guess. */
#include "lg_app.h"
#include "lg_spec.h"

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_spec_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The review method's profiles; 8k-7030 sweeps 2T2Q .. 16T16Q by default. */
static const lg_profile_t s_standard[] = {
    {.name = "4k-rand", .bs = 4096, .random = true, .read_pct = -1},
    {.name = "8k-7030", .bs = 8192, .random = true, .read_pct = 70, .sweep = true},
    {.name = "8k-seq", .bs = 8192, .random = false, .read_pct = -1},
    {.name = "128k-seq", .bs = 131072, .random = false, .read_pct = -1},
};
#define S_NSTANDARD (sizeof s_standard / sizeof s_standard[0])

const char *lg_appwl_name(int kind)
{
    return kind == LG_APP_PGBENCH ? "pgbench" : kind == LG_APP_SYSBENCH_OLTP ? "sysbench-oltp" : "";
}

int lg_appwl_parse(const char *s)
{
    return !strcmp(s, "pgbench") ? LG_APP_PGBENCH
           : !strcmp(s, "sysbench-oltp") ? LG_APP_SYSBENCH_OLTP
                                         : 0;
}

const lg_profile_t *lg_profile_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < S_NSTANDARD; i++)
        if (strcmp(s_standard[i].name, name) == 0)
            return &s_standard[i];
    return NULL;
}

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

/* Copies user text for a message: truncated and with control bytes escaped, so a hostile or
 * binary spec cannot produce a multi-line or terminal-garbling diagnostic. */
const char *lg__spec_q(const char *s, char *buf, size_t len)
{
    size_t o = 0, i = 0;
    for (; s[i] && i < 80 && o + 7 < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\')
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
        else if (lg_ctrl_len(s + i) == 2) /* a C1 control, U+0080..U+009F */
            o += (size_t)snprintf(buf + o, len - o, "\\u00%02x", (unsigned char)s[++i]);
        else
            buf[o++] = (char)ch;
    }
    if (s[i] && o + 4 <= len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

static void s_diag_set(lg_spec_diag_t *d, int line, int col, const char *key, const char *fmt,
                       va_list ap)
{
    d->line = line;
    d->column = col;
    snprintf(d->key, sizeof d->key, "%s", key ? key : "");
    vsnprintf(d->message, sizeof d->message, fmt, ap);
}

/* Records an error at node (libyaml marks are 0-based) and returns LG_ESPEC. */
S_PRINTF(4, 5)
int lg__spec_fail(lg__spec_ctx_t *c, const yaml_node_t *node, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    s_diag_set(c->diag, node ? (int)node->start_mark.line + 1 : 0,
               node ? (int)node->start_mark.column + 1 : 0, key, fmt, ap);
    va_end(ap);
    return LG_ESPEC;
}

S_PRINTF(5, 6)
int lg__spec_fail_at(lg_spec_diag_t *d, int line, int col, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    s_diag_set(d, line, col, key, fmt, ap);
    va_end(ap);
    return LG_ESPEC;
}

/* ---- strict scalar parsers ---- */

/* Decimal digits only: strtoull alone would accept whitespace, '+', '-' (wrapping) and "0x". */
int lg__spec_parse_u64(const char *s, const char **end, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return LG_EPARSE;
    char *e = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno == ERANGE || e == s)
        return LG_EPARSE;
    *end = e;
    *out = (uint64_t)v;
    return 0;
}

int lg_parse_duration(const char *s, uint32_t *seconds)
{
    const char *end;
    uint64_t v, mult = 1;
    if (!seconds || lg__spec_parse_u64(s, &end, &v) != 0)
        return LG_EPARSE;
    /* Lowercase only: "M" would be ambiguous (minutes or months). */
    if (end[0] == 'm' || end[0] == 'h')
        mult = end[0] == 'm' ? 60 : 3600;
    if (end[0] != '\0' && (end[1] != '\0' || !strchr("smh", end[0])))
        return LG_EPARSE;
    if (v > UINT32_MAX / mult)
        return LG_EPARSE;
    *seconds = (uint32_t)(v * mult);
    return 0;
}

int lg_parse_size(const char *s, uint64_t *bytes)
{
    const char *end;
    uint64_t v;
    unsigned shift = 0;
    if (!bytes || lg__spec_parse_u64(s, &end, &v) != 0)
        return LG_EPARSE;
    /* One space may part the number from its unit: "16 GB" as "16GB". */
    if (end[0] == ' ' && end[1] != '\0')
        end++;
    static const char units[] = "kKmMgGtTpPeE";
    const char *u = *end ? strchr(units, *end) : NULL;
    if (u) {
        shift = 10 * (unsigned)((u - units) / 2 + 1);
        end++;
    }
    /* "16G", "16GB", "16GiB" and "16 GB" all mean 16 x 1024^3, as in fio (its default
     * kb_base=1024); "4096", "4096B" are bytes. */
    if (shift && strcmp(end, "iB") == 0)
        end += 2;
    else if (strcmp(end, "B") == 0)
        end += 1;
    if (*end != '\0')
        return LG_EPARSE;
    if (shift && v > (UINT64_MAX >> shift))
        return LG_EPARSE;
    *bytes = v << shift;
    return 0;
}

int lg_parse_bssplit(const char *s, lg_bssplit_t *out, size_t max, size_t *n, uint32_t *total)
{
    char buf[512];
    *n = 0;
    *total = 0;
    if (!s || strlen(s) >= sizeof buf)
        return LG_EPARSE;
    memcpy(buf, s, strlen(s) + 1);
    for (char *item = buf, *next; item && *item; item = next) {
        next = strchr(item, ':');
        if (next)
            *next++ = 0;
        char *slash = strchr(item, '/');
        uint64_t bs, pct;
        const char *end;
        if (!slash || *n == max)
            return LG_EPARSE;
        *slash = 0;
        if (lg_parse_size(item, &bs) != 0 || bs < 512 || bs > 16u << 20 || bs % 512 ||
            lg__spec_parse_u64(slash + 1, &end, &pct) != 0 || *end || pct < 1 || pct > 100)
            return LG_EPARSE;
        out[(*n)++] = (lg_bssplit_t){(uint32_t)bs, (uint32_t)pct};
        *total += (uint32_t)pct;
    }
    return *n ? 0 : LG_EPARSE;
}

bool lg__spec_valid_name(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
            return false;
    }
    return true;
}

/* ---- node helpers ---- */

const char *lg__spec_node_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "nothing";
    }
}

/* Returns the scalar's text (libyaml NUL-terminates it) or NULL after recording an error. */
const char *lg__spec_scalar(lg__spec_ctx_t *c, const yaml_node_t *n, const char *key)
{
    if (n->type != YAML_SCALAR_NODE) {
        lg__spec_fail(c, n, key, "must be a scalar, got %s", lg__spec_node_kind(n));
        return NULL;
    }
    /* A double-quoted "\0" yields an embedded NUL; C strings downstream would silently cut it. */
    if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
        lg__spec_fail(c, n, key, "must not contain a NUL character");
        return NULL;
    }
    /* Names, labels and targets end up on terminals, in log lines, CSV files and SVG charts:
     * an escape sequence would drive the operator's terminal, a newline forge a log line, and
     * XML cannot hold most of them. No key of a spec has a use for one (not even a tab). */
    const char *v = (const char *)n->data.scalar.value;
    if (lg_has_ctrl(v)) {
        char qb[128];
        lg__spec_fail(c, n, key,
                      "must not contain control characters (escape sequences, newlines, tabs), "
                      "got \"%s\"",
                      lg__spec_q(v, qb, sizeof qb));
        return NULL;
    }
    return v;
}

size_t lg__spec_map_len(const yaml_node_t *map)
{
    return (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

/* Reads pair i of map (whose path is `where`, "" at the top): the key must be a scalar and must
 * not repeat an earlier key; libyaml itself accepts duplicates and would let the last one win. */
int lg__spec_entry(lg__spec_ctx_t *c, const yaml_node_t *map, size_t i, const char *where, lg__spec_entry_t *e)
{
    const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
    char qb[128];
    e->kn = yaml_document_get_node(c->doc, pairs[i].key);
    e->vn = yaml_document_get_node(c->doc, pairs[i].value);
    if (!e->kn || !e->vn) /* the loader never makes these; cheap to refuse rather than crash */
        return lg__spec_fail(c, map, where, "malformed mapping");
    if (e->kn->type != YAML_SCALAR_NODE)
        return lg__spec_fail(c, e->kn, where, "keys must be scalars, got %s", lg__spec_node_kind(e->kn));
    if (!(e->key = lg__spec_scalar(c, e->kn, where)))
        return LG_ESPEC;
    snprintf(e->path, sizeof e->path, "%s%s%s", where, where[0] ? "." : "",
             lg__spec_q(e->key, qb, sizeof qb));
    for (size_t j = 0; j < i; j++) {
        const yaml_node_t *prev = yaml_document_get_node(c->doc, pairs[j].key);
        if (prev && prev->type == YAML_SCALAR_NODE &&
            strcmp(e->key, (const char *)prev->data.scalar.value) == 0)
            return lg__spec_fail(c, e->kn, e->path, "duplicate key (first given on line %d)",
                          (int)prev->start_mark.line + 1);
    }
    return 0;
}

int lg__spec_item(lg__spec_ctx_t *c, const yaml_node_t *seq, const char *where, size_t i, char *w,
                  size_t wlen, const yaml_node_t **it)
{
    snprintf(w, wlen, "%s[%zu]", where, i);
    *it = yaml_document_get_node(c->doc, seq->data.sequence.items.start[i]);
    /* the loader never makes these; cheap to refuse rather than crash */
    return *it ? 0 : lg__spec_fail(c, seq, w, "malformed sequence");
}

char *lg__spec_dup(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

/* true or false, in the YAML 1.2 core schema's spellings ("yes"/"on" are 1.1-isms that surprise
 * people). */
int lg__spec_bool(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, bool *out)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        *out = true;
    else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        *out = false;
    else
        return lg__spec_fail(c, v, where, "must be true or false, got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    return 0;
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
            rc = lg__spec_fail_at(d, (int)tok.start_mark.line + 1, (int)tok.start_mark.column + 1, "",
                           "nested more than %d levels deep", S_MAX_DEPTH);
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
        return lg__spec_fail_at(diag, 0, 0, "", "too large: the spec is %zu bytes; the limit is 1 MiB",
                         len);

    lg_spec_t *spec = calloc(1, sizeof *spec);
    if (!spec)
        return -ENOMEM;
    /* Defaults; ramp_s is 0 from calloc. */
    spec->size = 1024ull * 1024 * 1024;
    spec->threads = spec->qd = 16;
    spec->runtime_s = 60;
    spec->direct = true;
    spec->repeats = 1;
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
                rc = lg__spec_fail(&c, r2, "", "a spec is a single YAML document; found a second one");
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
        rc =
            lg__spec_fail_at(diag, 0, 0, "", "too large: \"%s\" is over the 1 MiB limit for a spec", path);
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
            lg__spec_agents_free(&cfg->targets[i].agents);
        }
        free(cfg->targets);
        lg_telemetry_free(cfg->telemetry, cfg->ntelemetry);
        for (size_t i = 0; i < cfg->nreduction; i++)
            free(cfg->reduction[i]);
        free(cfg->reduction);
    }
    lg_telemetry_free(s->telemetry, s->ntelemetry);
    free(s->configs);
    lg__spec_agents_free(&s->agents);
    free(s->profiles);
    free(s->path);
    free(s->text);
    free(s->name);
    free(s);
    *self_p = NULL;
}


/* lg_spec.c: reads a campaign spec (YAML, via libyaml's document API) into lg_spec_t and
 * expands it into the run matrix. This is the only place spec text is interpreted; every error
 * carries the file, 1-based line/column and dotted key, so the operator need not guess. */
#include "lg_spec.h"

#include "lg_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Specs are hand-written; anything bigger is a mistake (or hostile) and would only make
 * libyaml and the quadratic duplicate checks below do pointless work. */
#define S_MAX_TEXT (1024u * 1024u)
#define S_MAX_PROFILES 64
#define S_MAX_LABELS 256
#define S_MAX_LABEL_VALUE 255
#define S_MAX_PATH 4095
#define S_MAX_DEPTH 16

#if defined(__GNUC__)
#define S_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define S_PRINTF(a, b)
#endif

static const lg_profile_t s_standard[] = {
    {"4k-rand", 4096, true, -1},
    {"8k-7030", 8192, true, 70},
    {"8k-seq", 8192, false, -1},
    {"128k-seq", 131072, false, -1},
};
#define S_NSTANDARD (sizeof s_standard / sizeof s_standard[0])

typedef struct {
    yaml_document_t *doc;
    lg_spec_t *spec;
    lg_spec_diag_t *diag;
    const yaml_node_t *size_node; /* where "size" was given, for the size-vs-bs check */
} s_ctx_t;

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
static const char *s_q(const char *s, char *buf, size_t len)
{
    size_t o = 0, i = 0;
    for (; s[i] && i < 80 && o + 5 < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\')
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
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
static int s_fail(s_ctx_t *c, const yaml_node_t *node, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    s_diag_set(c->diag, node ? (int)node->start_mark.line + 1 : 0,
               node ? (int)node->start_mark.column + 1 : 0, key, fmt, ap);
    va_end(ap);
    return LG_ESPEC;
}

S_PRINTF(5, 6)
static int s_fail_at(lg_spec_diag_t *d, int line, int col, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    s_diag_set(d, line, col, key, fmt, ap);
    va_end(ap);
    return LG_ESPEC;
}

/* ---- strict scalar parsers ---- */

/* Decimal digits only: strtoull alone would accept whitespace, '+', '-' (wrapping) and "0x". */
static int s_parse_u64(const char *s, const char **end, uint64_t *out)
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
    if (!seconds || s_parse_u64(s, &end, &v) != 0)
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
    if (!bytes || s_parse_u64(s, &end, &v) != 0)
        return LG_EPARSE;
    const char *u = *end ? strchr("kKmMgGtT", *end) : NULL;
    if (u) {
        shift = 10 * (unsigned)((u - "kKmMgGtT") / 2 + 1);
        end++;
    }
    /* Accept "4k", "4K", "4KB", "4KiB" and "4096B"; all mean powers of 1024. */
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

static bool s_valid_name(const char *s, size_t max)
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

static const char *s_node_kind(const yaml_node_t *n)
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
static const char *s_scalar(s_ctx_t *c, const yaml_node_t *n, const char *key)
{
    if (n->type != YAML_SCALAR_NODE) {
        s_fail(c, n, key, "must be a scalar, got %s", s_node_kind(n));
        return NULL;
    }
    /* A double-quoted "\0" yields an embedded NUL; C strings downstream would silently cut it. */
    if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
        s_fail(c, n, key, "must not contain a NUL character");
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

static size_t s_map_len(const yaml_node_t *map)
{
    return (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

/* One key: value pair of a mapping, with its key already checked. */
typedef struct {
    const char *key;
    const yaml_node_t *kn, *vn;
    char path[128]; /* dotted path of the value, for messages */
} s_entry_t;

/* Reads pair i of map (whose path is `where`, "" at the top): the key must be a scalar and must
 * not repeat an earlier key; libyaml itself accepts duplicates and would let the last one win. */
static int s_entry(s_ctx_t *c, const yaml_node_t *map, size_t i, const char *where, s_entry_t *e)
{
    const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
    char qb[128];
    e->kn = yaml_document_get_node(c->doc, pairs[i].key);
    e->vn = yaml_document_get_node(c->doc, pairs[i].value);
    if (!e->kn || !e->vn) /* the loader never makes these; cheap to refuse rather than crash */
        return s_fail(c, map, where, "malformed mapping");
    if (e->kn->type != YAML_SCALAR_NODE)
        return s_fail(c, e->kn, where, "keys must be scalars, got %s", s_node_kind(e->kn));
    if (!(e->key = s_scalar(c, e->kn, where)))
        return LG_ESPEC;
    snprintf(e->path, sizeof e->path, "%s%s%s", where, where[0] ? "." : "",
             s_q(e->key, qb, sizeof qb));
    for (size_t j = 0; j < i; j++) {
        const yaml_node_t *prev = yaml_document_get_node(c->doc, pairs[j].key);
        if (prev && prev->type == YAML_SCALAR_NODE &&
            strcmp(e->key, (const char *)prev->data.scalar.value) == 0)
            return s_fail(c, e->kn, e->path, "duplicate key (first given on line %d)",
                          (int)prev->start_mark.line + 1);
    }
    return 0;
}

static char *s_dup(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

/* ---- field handlers ---- */

typedef struct s_field s_field_t;
typedef int (*s_get_fn)(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f);

/* One table drives parsing, ranges and the "allowed keys" hint (defaults: lg_spec_parse_text). */
struct s_field {
    const char *key;
    bool required;
    s_get_fn get;
    size_t offset; /* into lg_spec_t, for the generic handlers */
    uint64_t min, max;
};

#define S_NAME_RULE "1 to 63 characters from A-Z a-z 0-9 . _ -"

static int s_get_name(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *s = s_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (!s_valid_name(s, 63))
        return s_fail(c, v, f->key, "must be " S_NAME_RULE ", got \"%s\"", s_q(s, qb, sizeof qb));
    c->spec->name = s_dup(s);
    return c->spec->name ? 0 : -ENOMEM;
}

static int s_get_labels(s_ctx_t *c, const yaml_node_t *map)
{
    const char *where = "sut.labels";
    if (map->type != YAML_MAPPING_NODE)
        return s_fail(c, map, where, "must be a mapping, got %s", s_node_kind(map));
    size_t n = s_map_len(map);
    if (n > S_MAX_LABELS)
        return s_fail(c, map, where, "at most %d labels are allowed, got %zu", S_MAX_LABELS, n);
    if (n && !(c->spec->labels = calloc(n, sizeof *c->spec->labels)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        s_entry_t e;
        const char *val;
        int rc = s_entry(c, map, i, where, &e);
        if (rc)
            return rc;
        if (!s_valid_name(e.key, 63))
            return s_fail(c, e.kn, e.path, "label names must be " S_NAME_RULE);
        if (!(val = s_scalar(c, e.vn, e.path)))
            return LG_ESPEC;
        if (strlen(val) > S_MAX_LABEL_VALUE)
            return s_fail(c, e.vn, e.path, "label values are at most %d characters, got %zu",
                          S_MAX_LABEL_VALUE, strlen(val));
        lg_label_t *l = &c->spec->labels[c->spec->nlabels++]; /* counted first: destroy frees it */
        l->key = s_dup(e.key);
        l->value = s_dup(val);
        if (!l->key || !l->value)
            return -ENOMEM;
    }
    return 0;
}

static int s_get_sut(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    if (v->type != YAML_MAPPING_NODE)
        return s_fail(c, v, f->key, "must be a mapping, got %s", s_node_kind(v));
    for (size_t i = 0; i < s_map_len(v); i++) {
        s_entry_t e;
        int rc = s_entry(c, v, i, f->key, &e);
        if (rc)
            return rc;
        if (strcmp(e.key, "labels") != 0)
            return s_fail(c, e.kn, e.path, "unknown key; allowed under \"sut\": labels");
        if ((rc = s_get_labels(c, e.vn)) != 0)
            return rc;
    }
    return 0;
}

static int s_get_target(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *s = s_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (strcmp(s, "null") == 0 || strcmp(s, "null:") == 0) {
        c->spec->target_kind = LG_TARGET_NULL;
        c->spec->target = s_dup("");
        return c->spec->target ? 0 : -ENOMEM;
    }
    const char *path = strncmp(s, "file:", 5) == 0 ? s + 5 : s;
    if (path[0] != '/')
        return s_fail(c, v, f->key,
                      "must be an absolute path (\"/abs/path\" or "
                      "\"file:/abs/path\") or \"null:\", got \"%s\"",
                      s_q(s, qb, sizeof qb));
    if (strlen(path) > S_MAX_PATH)
        return s_fail(c, v, f->key, "path is longer than %d characters", S_MAX_PATH);
    /* The path ends up in fio job files, where a newline would start a new option. */
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return s_fail(c, v, f->key, "path must not contain control characters");
    c->spec->target_kind = LG_TARGET_FILE;
    c->spec->target = s_dup(path);
    return c->spec->target ? 0 : -ENOMEM;
}

static int s_get_size(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    uint64_t b;
    const char *s = s_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (lg_parse_size(s, &b) != 0 || b < f->min)
        return s_fail(c, v, f->key, "must be a size of at least 1M (e.g. 256M, 1G), got \"%s\"",
                      s_q(s, qb, sizeof qb));
    *(uint64_t *)((char *)c->spec + f->offset) = b;
    c->size_node = v;
    return 0;
}

static int s_get_u32(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *end;
    uint64_t n;
    const char *s = s_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (s_parse_u64(s, &end, &n) != 0 || *end != '\0' || n < f->min || n > f->max)
        return s_fail(c, v, f->key, "must be an integer from %llu to %llu, got \"%s\"",
                      (unsigned long long)f->min, (unsigned long long)f->max,
                      s_q(s, qb, sizeof qb));
    *(uint32_t *)((char *)c->spec + f->offset) = (uint32_t)n;
    return 0;
}

static int s_get_duration(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    uint32_t secs;
    const char *s = s_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (lg_parse_duration(s, &secs) != 0 || secs < f->min)
        return s_fail(c, v, f->key, "must be a duration%s (e.g. 90, 30s, 5m, 1h), got \"%s\"",
                      f->min ? " of at least 1s" : "", s_q(s, qb, sizeof qb));
    *(uint32_t *)((char *)c->spec + f->offset) = secs;
    return 0;
}

static int s_get_bool(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *s = s_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    bool *out = (bool *)((char *)c->spec + f->offset);
    /* YAML 1.2 core schema spellings; "yes"/"on" are 1.1-isms that surprise people. */
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        *out = true;
    else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        *out = false;
    else
        return s_fail(c, v, f->key, "must be true or false, got \"%s\"", s_q(s, qb, sizeof qb));
    return 0;
}

/* A custom profile: {name, bs, pattern, read}; read defaults to "split". */
static int s_get_custom_profile(s_ctx_t *c, const yaml_node_t *m, const char *where,
                                lg_profile_t *p)
{
    char qb[128];
    bool have_name = false, have_bs = false, have_pattern = false;
    p->read_pct = -1;
    for (size_t i = 0; i < s_map_len(m); i++) {
        s_entry_t e;
        const char *s, *end;
        uint64_t n;
        int rc = s_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        bool is_name = !strcmp(e.key, "name"), is_bs = !strcmp(e.key, "bs");
        bool is_pattern = !strcmp(e.key, "pattern"), is_read = !strcmp(e.key, "read");
        if (!is_name && !is_bs && !is_pattern && !is_read)
            return s_fail(c, e.kn, e.path,
                          "unknown key; allowed in a profile: name, bs, pattern, "
                          "read");
        if (!(s = s_scalar(c, e.vn, e.path)))
            return LG_ESPEC;
        if (is_name) {
            if (!s_valid_name(s, sizeof p->name - 1))
                return s_fail(c, e.vn, e.path, "must be " S_NAME_RULE ", got \"%s\"",
                              s_q(s, qb, sizeof qb));
            if (lg_profile_find(s))
                return s_fail(c, e.vn, e.path,
                              "\"%s\" is a standard profile; give the custom one another name", s);
            snprintf(p->name, sizeof p->name, "%s", s);
            have_name = true;
        } else if (is_bs) {
            if (lg_parse_size(s, &n) != 0 || n < 512 || n > 16u * 1024 * 1024 || n % 512)
                return s_fail(c, e.vn, e.path,
                              "must be a multiple of 512 from 512 to 16M (e.g. 64k), got \"%s\"",
                              s_q(s, qb, sizeof qb));
            p->bs = (uint32_t)n;
            have_bs = true;
        } else if (is_pattern) {
            if (strcmp(s, "random") && strcmp(s, "sequential"))
                return s_fail(c, e.vn, e.path, "must be \"random\" or \"sequential\", got \"%s\"",
                              s_q(s, qb, sizeof qb));
            p->random = !strcmp(s, "random");
            have_pattern = true;
        } else if (strcmp(s, "split") != 0) {
            if (s_parse_u64(s, &end, &n) != 0 || *end != '\0' || n > 100)
                return s_fail(c, e.vn, e.path,
                              "must be an integer from 0 to 100 or \"split\", got \"%s\"",
                              s_q(s, qb, sizeof qb));
            p->read_pct = (int)n;
        }
    }
    const char *missing = !have_name ? "name" : !have_bs ? "bs" : !have_pattern ? "pattern" : NULL;
    if (missing) {
        char path[160];
        snprintf(path, sizeof path, "%s.%s", where, missing);
        return s_fail(c, m, path,
                      "missing required key in a custom profile (needs name, bs, "
                      "pattern; read is optional)");
    }
    return 0;
}

static int s_get_profiles(s_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return s_fail(c, v, f->key,
                      "must be a sequence of profiles (e.g. [4k-rand, 128k-seq]), "
                      "got %s",
                      s_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0)
        return s_fail(c, v, f->key, "must list at least one profile");
    if (n > S_MAX_PROFILES)
        return s_fail(c, v, f->key, "at most %d profiles are allowed, got %zu", S_MAX_PROFILES, n);
    c->spec->profiles = calloc(n, sizeof *c->spec->profiles);
    if (!c->spec->profiles)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char where[64], qb[128];
        int rc;
        snprintf(where, sizeof where, "%s[%zu]", f->key, i);
        const yaml_node_t *it = yaml_document_get_node(c->doc, v->data.sequence.items.start[i]);
        lg_profile_t *p = &c->spec->profiles[i];
        if (!it)
            return s_fail(c, v, where, "malformed sequence");
        if (it->type == YAML_MAPPING_NODE) {
            if ((rc = s_get_custom_profile(c, it, where, p)) != 0)
                return rc;
        } else {
            const char *s = s_scalar(c, it, where);
            if (!s)
                return LG_ESPEC;
            const lg_profile_t *std = lg_profile_find(s);
            if (!std)
                return s_fail(c, it, where,
                              "unknown profile \"%s\"; known: 4k-rand, 8k-7030, 8k-seq, 128k-seq",
                              s_q(s, qb, sizeof qb));
            *p = *std;
        }
        /* Runs are keyed by profile name downstream; a repeat would make two runs ambiguous. */
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->spec->profiles[j].name, p->name) == 0)
                return s_fail(c, it, where, "profile \"%s\" is already listed as %s[%zu]", p->name,
                              f->key, j);
        c->spec->nprofiles = i + 1;
    }
    return 0;
}

static const s_field_t s_fields[] = {
    {"name", true, s_get_name, 0, 0, 0},
    {"sut", false, s_get_sut, 0, 0, 0},
    {"target", true, s_get_target, 0, 0, 0},
    {"size", false, s_get_size, offsetof(lg_spec_t, size), 1024 * 1024, UINT64_MAX},
    {"profiles", true, s_get_profiles, 0, 0, 0},
    {"threads", false, s_get_u32, offsetof(lg_spec_t, threads), 1, 256},
    {"qd", false, s_get_u32, offsetof(lg_spec_t, qd), 1, 4096},
    {"ramp", false, s_get_duration, offsetof(lg_spec_t, ramp_s), 0, UINT32_MAX},
    {"runtime", false, s_get_duration, offsetof(lg_spec_t, runtime_s), 1, UINT32_MAX},
    {"direct", false, s_get_bool, offsetof(lg_spec_t, direct), 0, 0},
};
#define S_NFIELDS (sizeof s_fields / sizeof s_fields[0])

static int s_unknown_key(s_ctx_t *c, const yaml_node_t *kn, const char *path)
{
    char allowed[256] = "";
    size_t o = 0;
    for (size_t i = 0; i < S_NFIELDS && o < sizeof allowed; i++)
        o += (size_t)snprintf(allowed + o, sizeof allowed - o, "%s%s", i ? ", " : "",
                              s_fields[i].key);
    return s_fail(c, kn, path, "unknown key; allowed: %s", allowed);
}

static int s_walk_top(s_ctx_t *c, const yaml_node_t *root)
{
    bool seen[S_NFIELDS] = {false};
    if (root->type != YAML_MAPPING_NODE)
        return s_fail(c, root, "",
                      "the spec must be a mapping of keys (name, target, profiles, "
                      "...), got %s",
                      s_node_kind(root));
    for (size_t i = 0; i < s_map_len(root); i++) {
        s_entry_t e;
        size_t fi = 0;
        int rc = s_entry(c, root, i, "", &e);
        if (rc)
            return rc;
        while (fi < S_NFIELDS && strcmp(s_fields[fi].key, e.key) != 0)
            fi++;
        if (fi == S_NFIELDS)
            return s_unknown_key(c, e.kn, e.path);
        if ((rc = s_fields[fi].get(c, e.vn, &s_fields[fi])) != 0)
            return rc;
        seen[fi] = true;
    }
    for (size_t fi = 0; fi < S_NFIELDS; fi++)
        if (s_fields[fi].required && !seen[fi])
            return s_fail(c, root, s_fields[fi].key, "missing required key");
    for (size_t i = 0; i < c->spec->nprofiles; i++)
        if (c->spec->profiles[i].bs > c->spec->size)
            return s_fail(c, c->size_node ? c->size_node : root, "size",
                          "the target region (%llu bytes) is smaller than the %u-byte blocks "
                          "of profile \"%s\"",
                          (unsigned long long)c->spec->size, c->spec->profiles[i].bs,
                          c->spec->profiles[i].name);
    return 0;
}

/* ---- entry points ---- */

static int s_yaml_error(lg_spec_diag_t *d, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR) {
        s_fail_at(d, 0, 0, "", "out of memory while parsing YAML");
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
    return s_fail_at(d, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1, "",
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
            rc = s_fail_at(d, (int)tok.start_mark.line + 1, (int)tok.start_mark.column + 1, "",
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
        return s_fail_at(diag, 0, 0, "", "no spec given");
    *out = NULL;
    if (len > S_MAX_TEXT)
        return s_fail_at(diag, 0, 0, "", "too large: the spec is %zu bytes; the limit is 1 MiB",
                         len);

    lg_spec_t *spec = calloc(1, sizeof *spec);
    if (!spec)
        return -ENOMEM;
    /* Defaults; ramp_s is 0 from calloc. */
    spec->size = 1024ull * 1024 * 1024;
    spec->threads = spec->qd = 16;
    spec->runtime_s = 60;
    spec->direct = true;
    spec->path = s_dup(path ? path : "");
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
    s_ctx_t c = {&doc, spec, diag, NULL};
    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        rc = s_fail_at(diag, 1, 1, "", "the spec is empty");
    } else if ((rc = s_walk_top(&c, root)) == 0) {
        /* A second document would be silently ignored otherwise. */
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) {
            rc = s_yaml_error(diag, &parser);
        } else {
            const yaml_node_t *r2 = yaml_document_get_root_node(&extra);
            if (r2)
                rc = s_fail(&c, r2, "", "a spec is a single YAML document; found a second one");
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
        return s_fail_at(diag, 0, 0, "", "no spec file given");

    /* Read one byte past the cap so an oversized file is detected without trusting st_size. */
    char *buf = malloc(S_MAX_TEXT + 1);
    FILE *f = buf ? fopen(path, "rb") : NULL;
    if (!f) {
        int e = buf ? errno : ENOMEM;
        free(buf);
        s_fail_at(diag, 0, 0, "", "could not open \"%s\": %s", path, strerror(e));
        return -e;
    }
    size_t len = fread(buf, 1, S_MAX_TEXT + 1, f);
    int e = ferror(f) ? errno : 0; /* e.g. EISDIR: fopen succeeds on a directory */
    fclose(f);
    int rc;
    if (e) {
        s_fail_at(diag, 0, 0, "", "could not read \"%s\": %s", path, strerror(e));
        rc = -e;
    } else if (len > S_MAX_TEXT)
        rc =
            s_fail_at(diag, 0, 0, "", "too large: \"%s\" is over the 1 MiB limit for a spec", path);
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
    for (size_t i = 0; i < s->nlabels; i++) {
        free(s->labels[i].key);
        free(s->labels[i].value);
    }
    free(s->labels);
    free(s->profiles);
    free(s->path);
    free(s->text);
    free(s->name);
    free(s->target);
    free(s);
    *self_p = NULL;
}

static void s_plan_one(lg_run_plan_t *r, const lg_spec_t *spec, const lg_profile_t *p, int read_pct)
{
    /* [random][read, write, mixed]: fio's rw= for each direction. */
    static const char *const rw[2][3] = {{"read", "write", "rw"},
                                         {"randread", "randwrite", "randrw"}};
    static const char *const dir[3] = {"read", "write", "mixed"};
    int d = read_pct == 100 ? 0 : read_pct == 0 ? 1 : 2;
    memset(r, 0, sizeof *r);
    snprintf(r->profile, sizeof r->profile, "%s", p->name);
    snprintf(r->rw, sizeof r->rw, "%s", rw[p->random][d]);
    snprintf(r->direction, sizeof r->direction, "%s", dir[d]);
    r->bs = p->bs;
    r->read_pct = read_pct;
    r->threads = spec->threads;
    r->qd = spec->qd;
    r->ramp_s = spec->ramp_s;
    r->runtime_s = spec->runtime_s;
}

int lg_spec_plan(const lg_spec_t *spec, lg_run_plan_t **runs, size_t *nruns)
{
    if (!spec || !runs || !nruns)
        return -EINVAL;
    *runs = NULL;
    *nruns = 0;
    size_t n = 0;
    for (size_t i = 0; i < spec->nprofiles; i++)
        n += spec->profiles[i].read_pct < 0 ? 2 : 1;
    if (n == 0)
        return 0;
    lg_run_plan_t *r = calloc(n, sizeof *r);
    if (!r)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < spec->nprofiles; i++) {
        const lg_profile_t *p = &spec->profiles[i];
        if (p->read_pct < 0) {
            s_plan_one(&r[k++], spec, p, 100);
            s_plan_one(&r[k++], spec, p, 0);
        } else {
            s_plan_one(&r[k++], spec, p, p->read_pct);
        }
    }
    *runs = r;
    *nruns = n;
    return 0;
}

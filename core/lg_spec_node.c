/* lg_spec_node.c: the spec parser's machinery over libyaml's nodes, which every key's handler
 * uses: errors recorded with their line, column and key, user text quoted safely for a message,
 * scalars, mapping entries and sequence items, strict numbers, true/false; and the value parsers
 * of sizes, durations and block-size splits. Calls nothing of the parser above it. */
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_spec_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ---- */

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
int lg__spec_entry(lg__spec_ctx_t *c, const yaml_node_t *map, size_t i, const char *where,
                   lg__spec_entry_t *e)
{
    const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
    char qb[128];
    e->kn = yaml_document_get_node(c->doc, pairs[i].key);
    e->vn = yaml_document_get_node(c->doc, pairs[i].value);
    if (!e->kn || !e->vn) /* the loader never makes these; cheap to refuse rather than crash */
        return lg__spec_fail(c, map, where, "malformed mapping");
    if (e->kn->type != YAML_SCALAR_NODE)
        return lg__spec_fail(c, e->kn, where, "keys must be scalars, got %s",
                             lg__spec_node_kind(e->kn));
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

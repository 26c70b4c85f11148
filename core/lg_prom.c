/* lg_prom.c: the Prometheus text exposition format, line by line (see lg_prom.h). Each line is
 * copied into a buffer of its own so that names and unescaped label values can be cut in place;
 * nothing is kept between lines but the family whose # TYPE line came last. */
#include "lg_prom.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"

#define DEF_MAX_BYTES (8u << 20)
#define DEF_MAX_LINE (64u << 10)
#define DEF_MAX_SAMPLES 100000u

typedef struct {
    char family[256]; /* the name of the last # TYPE line */
    lg_prom_type_t type;
    size_t lineno;
    char *err;
    size_t errlen;
} s_ctx_t;

static int s_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int s_name_char(char c)
{
    return s_name_start(c) || (c >= '0' && c <= '9');
}

static char *s_skip_ws(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int s_fail(s_ctx_t *c, const char *what)
{
    snprintf(c->err, c->errlen, "line %zu: %s", c->lineno, what);
    return LG_EPARSE;
}

/* "# TYPE name kind": remember the family; other comments are skipped. */
static void s_comment(s_ctx_t *c, char *p)
{
    p = s_skip_ws(p + 1);
    if (strncmp(p, "TYPE", 4) != 0 || (p[4] != ' ' && p[4] != '\t'))
        return;
    p = s_skip_ws(p + 4);
    char *name = p;
    while (s_name_char(*p))
        p++;
    size_t n = (size_t)(p - name);
    if (n == 0 || n >= sizeof c->family)
        return;
    memcpy(c->family, name, n);
    c->family[n] = 0;
    p = s_skip_ws(p);
    c->type = !strncmp(p, "counter", 7)     ? LG_PROM_COUNTER
              : !strncmp(p, "gauge", 5)     ? LG_PROM_GAUGE
              : !strncmp(p, "histogram", 9) ? LG_PROM_HISTOGRAM
              : !strncmp(p, "summary", 7)   ? LG_PROM_SUMMARY
                                            : LG_PROM_UNTYPED;
}

/* The type of a sample named name: its family's when it is that family (or one of a histogram's
 * or summary's _bucket, _sum, _count series). */
static lg_prom_type_t s_type_of(const s_ctx_t *c, const char *name)
{
    size_t n = strlen(c->family);
    if (n == 0 || strncmp(name, c->family, n) != 0)
        return LG_PROM_UNTYPED;
    const char *rest = name + n;
    if (*rest == 0)
        return c->type;
    if ((c->type == LG_PROM_HISTOGRAM || c->type == LG_PROM_SUMMARY) &&
        (!strcmp(rest, "_sum") || !strcmp(rest, "_count") ||
         (c->type == LG_PROM_HISTOGRAM && !strcmp(rest, "_bucket"))))
        return c->type;
    return LG_PROM_UNTYPED;
}

/* {name="value",...}: values unescaped in place (\\, \", \n). p is at '{'; returns the character
 * after '}' or NULL. */
static char *s_labels(s_ctx_t *c, char *p, lg_prom_sample_t *s, int *rc)
{
    p = s_skip_ws(p + 1);
    while (*p != '}') {
        if (!s_name_start(*p)) {
            *rc = s_fail(c, "a label name was expected");
            return NULL;
        }
        char *lname = p;
        while (s_name_char(*p))
            p++;
        char *lend = p;
        p = s_skip_ws(p);
        if (*p != '=') {
            *rc = s_fail(c, "'=' was expected after a label name");
            return NULL;
        }
        p = s_skip_ws(p + 1);
        if (*p != '"') {
            *rc = s_fail(c, "a label value must be quoted");
            return NULL;
        }
        char *val = ++p, *o = p;
        for (;; p++) {
            if (*p == 0) {
                *rc = s_fail(c, "a label value is not closed");
                return NULL;
            }
            if (*p == '"')
                break;
            if (*p == '\\') {
                p++;
                if (*p == 'n')
                    *o++ = '\n';
                else if (*p == '\\' || *p == '"')
                    *o++ = *p;
                else {
                    *rc = s_fail(c, "an unknown escape in a label value");
                    return NULL;
                }
            } else {
                *o++ = *p;
            }
        }
        p++;
        *o = 0;
        *lend = 0;
        if (s->nlabels == LG_PROM_MAX_LABELS) {
            *rc = s_fail(c, "more than 16 labels");
            return NULL;
        }
        s->labels[s->nlabels].name = lname;
        s->labels[s->nlabels].value = val;
        s->nlabels++;
        p = s_skip_ws(p);
        if (*p == ',')
            p = s_skip_ws(p + 1);
        else if (*p != '}') {
            *rc = s_fail(c, "',' or '}' was expected after a label");
            return NULL;
        }
    }
    return p + 1;
}

/* A number as the format writes it: a float, NaN, +Inf, -Inf. The whole token or nothing. */
static int s_value(char *tok, double *v)
{
    if (!strcmp(tok, "NaN") || !strcmp(tok, "nan")) {
        *v = __builtin_nan("");
        return 0;
    }
    if (!strcmp(tok, "+Inf") || !strcmp(tok, "Inf") || !strcmp(tok, "inf")) {
        *v = __builtin_inf();
        return 0;
    }
    if (!strcmp(tok, "-Inf") || !strcmp(tok, "-inf")) {
        *v = -__builtin_inf();
        return 0;
    }
    char *end;
    errno = 0;
    *v = strtod(tok, &end);
    return end == tok || *end != 0 || (errno == ERANGE && *v != 0) ? -1 : 0;
}

static int s_sample(s_ctx_t *c, char *p, lg_prom_sample_cb cb, void *arg)
{
    lg_prom_sample_t s;
    memset(&s, 0, sizeof s);
    if (!s_name_start(*p))
        return s_fail(c, "a metric name was expected");
    char *name = p;
    while (s_name_char(*p))
        p++;
    char *nend = p;
    int rc = 0;
    p = s_skip_ws(p);
    if (*p == '{' && (p = s_labels(c, p, &s, &rc)) == NULL)
        return rc;
    p = s_skip_ws(p);
    if (p == nend && *p != 0 && *p != ' ')
        return s_fail(c, "a space was expected after the metric name");
    *nend = 0;
    char *tok = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    char *tend = p;
    p = s_skip_ws(p);
    *tend = 0;
    if (*tok == 0 || s_value(tok, &s.value) != 0)
        return s_fail(c, "the sample's value is not a number");
    if (*p) {
        char *end;
        errno = 0;
        long long ts = strtoll(p, &end, 10);
        if (end == p || *s_skip_ws(end) != 0 || errno == ERANGE)
            return s_fail(c, "the sample's timestamp is not an integer");
        s.ts_ms = ts;
        s.has_ts = 1;
    }
    s.name = name;
    s.type = s_type_of(c, name);
    return cb(arg, &s);
}

int lg_prom_parse(const char *text, size_t len, const lg_prom_limits_t *lim, lg_prom_sample_cb cb,
                  void *arg, char *err, size_t errlen)
{
    size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : DEF_MAX_BYTES;
    size_t max_line = lim && lim->max_line ? lim->max_line : DEF_MAX_LINE;
    size_t max_samples = lim && lim->max_samples ? lim->max_samples : DEF_MAX_SAMPLES;
    if (len > max_bytes) {
        snprintf(err, errlen, "%zu bytes: more than the %zu allowed", len, max_bytes);
        return LG_ETOOBIG;
    }
    char *line = malloc(max_line + 1);
    if (!line) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    s_ctx_t c;
    memset(&c, 0, sizeof c);
    c.err = err;
    c.errlen = errlen;
    size_t nsamples = 0, i = 0;
    int rc = 0;
    while (i < len && rc == 0) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        c.lineno++;
        if (n > max_line) {
            snprintf(err, errlen, "line %zu: longer than %zu bytes", c.lineno, max_line);
            rc = LG_ETOOBIG;
            break;
        }
        memcpy(line, text + i, n);
        line[n] = 0;
        i += n + 1;
        if (memchr(line, 0, n)) {
            rc = s_fail(&c, "a NUL byte");
            break;
        }
        if (n && line[n - 1] == '\r')
            line[n - 1] = 0;
        char *p = s_skip_ws(line);
        if (*p == 0)
            continue;
        if (*p == '#') {
            s_comment(&c, p);
            continue;
        }
        if (++nsamples > max_samples) {
            snprintf(err, errlen, "more than %zu samples", max_samples);
            rc = LG_ETOOBIG;
            break;
        }
        rc = s_sample(&c, p, cb, arg);
    }
    free(line);
    return rc;
}

const char *lg_prom_label(const lg_prom_sample_t *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (!strcmp(s->labels[i].name, name))
            return s->labels[i].value;
    return NULL;
}

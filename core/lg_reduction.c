/* lg_reduction.c: the three forms a reduction: probe may print (see lg_reduction.h), told apart
 * by their shape and read through (pointer, length) spans: the text is a program's output and
 * is neither NUL-terminated nor trusted. Every refusal quotes the start of the text, escaped. */
#include "lg_reduction.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h" /* LG_PRINTF */

#define EXPECT_ANY                                                                                 \
    "\"logical_bytes=N physical_bytes=N\", the output of \"zfs get -Hp logicalused,used "          \
    "DATASET\" or that of \"compsize -b PATH\""
#define EXPECT_KV "\"logical_bytes=N physical_bytes=N\""
#define EXPECT_ZFS "the output of \"zfs get -Hp logicalused,used DATASET\""
#define EXPECT_CS "the output of \"compsize -b PATH\""

#define BEGAN_MAX 60 /* bytes of the text quoted in a refusal */
#define QUOTE_MAX 40 /* bytes of a token or name quoted */

typedef struct {
    const char *p;
    size_t n;
} s_span_t;

typedef struct {
    const char *text;
    size_t len;
    const char *expect;
    char *err;
    size_t errlen;
} s_ctx_t;

static const char s_ws[] = " \t\r\n\v\f";

/* ---- spans ---- */

static int s_eq(s_span_t s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

static int s_starts(s_span_t s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

/* The next line of *rest (without its \n or \r\n); 0 when none is left. */
static int s_line(s_span_t *rest, s_span_t *line)
{
    if (rest->n == 0)
        return 0;
    const char *nl = memchr(rest->p, '\n', rest->n);
    size_t n = nl ? (size_t)(nl - rest->p) : rest->n, skip = nl ? n + 1 : n;
    line->p = rest->p;
    line->n = n;
    rest->p += skip;
    rest->n -= skip;
    if (line->n && line->p[line->n - 1] == '\r')
        line->n--;
    return 1;
}

/* The next whitespace-separated token of *rest; 0 when none is left. */
static int s_token(s_span_t *rest, s_span_t *tok)
{
    while (rest->n && memchr(s_ws, rest->p[0], sizeof s_ws - 1))
        rest->p++, rest->n--;
    if (rest->n == 0)
        return 0;
    tok->p = rest->p;
    while (rest->n && !memchr(s_ws, rest->p[0], sizeof s_ws - 1))
        rest->p++, rest->n--;
    tok->n = (size_t)(rest->p - tok->p);
    return 1;
}

/* Does line hold exactly the tokens of words (NULL-terminated)? */
static int s_tokens_are(s_span_t line, const char *const *words)
{
    s_span_t t;
    for (; *words; words++)
        if (!s_token(&line, &t) || !s_eq(t, *words))
            return 0;
    return !s_token(&line, &t);
}

/* Splits line at tabs into up to max fields; returns how many there are (more than max when
 * there are more). */
static size_t s_tab_fields(s_span_t line, s_span_t *f, size_t max)
{
    size_t k = 0;
    for (;;) {
        const char *tab = memchr(line.p, '\t', line.n);
        size_t n = tab ? (size_t)(tab - line.p) : line.n;
        if (k < max)
            f[k] = (s_span_t){line.p, n};
        k++;
        if (!tab)
            return k;
        line.p += n + 1;
        line.n -= n + 1;
    }
}

static int s_blank(s_span_t s)
{
    s_span_t t;
    return !s_token(&s, &t);
}

/* ---- numbers ---- */

enum { NUM_OK = 0, NUM_EMPTY, NUM_NEGATIVE, NUM_NOT, NUM_HUMAN, NUM_BIG };

/* A whole number of bytes: decimal digits only, at most INT64_MAX (PostgreSQL's bigint, where
 * lg stores it; 8 EiB is beyond any NAS). NUM_HUMAN: a size with a unit or a fraction,
 * as zfs without -p and compsize without -b print them ("1.21G", "948K", "9B"). */
static int s_num(s_span_t s, uint64_t *out)
{
    if (s.n == 0)
        return NUM_EMPTY;
    if (s.p[0] == '-' && s.n > 1 && s.p[1] >= '0' && s.p[1] <= '9')
        return NUM_NEGATIVE;
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
        unsigned d = (unsigned)(s.p[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return NUM_BIG;
        v = v * 10 + d;
    }
    if (i == s.n) {
        *out = v;
        return NUM_OK;
    }
    if (i == 0)
        return NUM_NOT;
    while (i < s.n && ((s.p[i] >= '0' && s.p[i] <= '9') || s.p[i] == '.'))
        i++;
    if (i + 1 == s.n && s.p[i] && strchr("BKMGTPEZ", s.p[i]))
        return NUM_HUMAN;
    return NUM_NOT;
}

static const char *s_num_what(int rc)
{
    switch (rc) {
    case NUM_EMPTY:
        return "empty";
    case NUM_NEGATIVE:
        return "negative";
    case NUM_HUMAN:
        return "not in bytes";
    case NUM_BIG:
        return "too large (more than 2^63 - 1)";
    default:
        return "not a whole number of bytes";
    }
}

/* ---- refusals ---- */

/* Bytes of the valid UTF-8 character p starts with (1 for ASCII); 0 when it is not one. */
static size_t s_utf8_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (avail < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* The first max bytes of s as text safe to log and to store: NUL and bytes that are not
 * UTF-8 as \xHH, then control characters escaped by lg_esc_ctrl; "..." when cut. */
static const char *s_quote(s_span_t s, size_t max, char *out, size_t outlen)
{
    char tmp[4 * BEGAN_MAX + 1];
    size_t o = 0, i = 0, lim = s.n < max ? s.n : max;
    const unsigned char *u = (const unsigned char *)s.p;
    if (max > BEGAN_MAX)
        lim = s.n < BEGAN_MAX ? s.n : BEGAN_MAX;
    while (i < lim) {
        size_t n = s_utf8_len(u + i, s.n - i);
        if (n > 1 && i + n > lim)
            break; /* a character the limit would cut */
        if (n == 0 || u[i] == 0) {
            o += (size_t)snprintf(tmp + o, sizeof tmp - o, "\\x%02x", u[i]);
            i++;
            continue;
        }
        memcpy(tmp + o, u + i, n);
        o += n;
        i += n;
    }
    tmp[o] = 0;
    if (outlen < 4) {
        if (outlen)
            out[0] = 0;
        return out;
    }
    lg_esc_ctrl(tmp, out, outlen - 3);
    if (i < s.n)
        memcpy(out + strlen(out), "...", 4); /* room kept above */
    return out;
}

/* Refuse the text: what is wrong (printf-style), then what was expected and how it began. */
static int s_fail(s_ctx_t *c, const char *fmt, ...) LG_PRINTF(2, 3);
static int s_fail(s_ctx_t *c, const char *fmt, ...)
{
    char what[512], began[6 * BEGAN_MAX + 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s_quote((s_span_t){c->text, c->len}, BEGAN_MAX, began, sizeof began);
    lg_utf8_cut(what, sizeof what); /* snprintf cuts by bytes */
    snprintf(c->err, c->errlen, "%s; expected %s; the output began with \"%s\"", what, c->expect,
             began);
    if (c->errlen)
        lg_utf8_cut(c->err, c->errlen);
    return LG_EPARSE;
}

/* ---- logical_bytes=N physical_bytes=N ---- */

static int s_parse_kv(s_ctx_t *c, uint64_t *logical, uint64_t *physical)
{
    static const char *const keys[2] = {"logical_bytes", "physical_bytes"};
    uint64_t v[2] = {0, 0};
    int seen[2] = {0, 0};
    s_span_t rest = {c->text, c->len}, tok;
    char q[6 * QUOTE_MAX + 8];
    c->expect = EXPECT_KV;
    while (s_token(&rest, &tok)) {
        const char *eq = memchr(tok.p, '=', tok.n);
        if (!eq || eq == tok.p)
            return s_fail(c, "\"%s\" is not KEY=VALUE", s_quote(tok, QUOTE_MAX, q, sizeof q));
        s_span_t key = {tok.p, (size_t)(eq - tok.p)};
        s_span_t val = {eq + 1, tok.n - key.n - 1};
        for (size_t k = 0; k < 2; k++) {
            if (!s_eq(key, keys[k]))
                continue;
            if (seen[k])
                return s_fail(c, "%s is given twice", keys[k]);
            int rc = s_num(val, &v[k]);
            if (rc)
                return s_fail(c, "%s \"%s\" is %s", keys[k], s_quote(val, QUOTE_MAX, q, sizeof q),
                              s_num_what(rc));
            seen[k] = 1;
        }
    }
    for (size_t k = 0; k < 2; k++)
        if (!seen[k])
            return s_fail(c, "no %s", keys[k]);
    if (v[1] == 0)
        return s_fail(c, "physical_bytes is 0: no ratio can be taken");
    *logical = v[0];
    *physical = v[1];
    return 0;
}

/* ---- zfs get -Hp logicalused,used DATASET ---- */

/* The pairs, logical first: [0], [1] from "logicalused,used"; [2], [3] from the other. */
static const char *const s_zprops[4] = {"logicalused", "used", "logicalreferenced", "referenced"};

static int s_zprop(s_span_t s)
{
    for (int k = 0; k < 4; k++)
        if (s_eq(s, s_zprops[k]))
            return k;
    return -1;
}

static int s_zfs_value(s_ctx_t *c, size_t lineno, int k, s_span_t val, s_span_t name, uint64_t *out)
{
    char q[6 * QUOTE_MAX + 8], qn[6 * QUOTE_MAX + 8];
    if (s_eq(val, "-"))
        return s_fail(c, "line %zu: %s of \"%s\" is \"-\" (not available)", lineno, s_zprops[k],
                      s_quote(name, QUOTE_MAX, qn, sizeof qn));
    int rc = s_num(val, out);
    if (rc == NUM_HUMAN)
        return s_fail(c, "line %zu: %s \"%s\" is not in bytes: run zfs get with -p", lineno,
                      s_zprops[k], s_quote(val, QUOTE_MAX, q, sizeof q));
    if (rc)
        return s_fail(c, "line %zu: %s \"%s\" is %s", lineno, s_zprops[k],
                      s_quote(val, QUOTE_MAX, q, sizeof q), s_num_what(rc));
    return 0;
}

static int s_parse_zfs(s_ctx_t *c, uint64_t *logical, uint64_t *physical)
{
    static const char *const header[] = {"NAME", "PROPERTY", "VALUE", "SOURCE", NULL};
    uint64_t v[4] = {0, 0, 0, 0};
    int seen[4] = {0, 0, 0, 0};
    s_span_t rest = {c->text, c->len}, line, f[4], name = {NULL, 0};
    size_t lineno = 0;
    char q[6 * QUOTE_MAX + 8], qn[6 * QUOTE_MAX + 8];
    c->expect = EXPECT_ZFS;
    while (s_line(&rest, &line)) {
        lineno++;
        if (s_blank(line))
            continue;
        if (s_tokens_are(line, header))
            return s_fail(c,
                          "line %zu: a header line: run zfs get with -H (tab-separated, no "
                          "header)",
                          lineno);
        if (s_tab_fields(line, f, 4) != 4)
            return s_fail(c, "line %zu: not NAME<TAB>PROPERTY<TAB>VALUE<TAB>SOURCE (zfs get -H)",
                          lineno);
        if (!name.p)
            name = f[0];
        else if (f[0].n != name.n || memcmp(f[0].p, name.p, name.n) != 0)
            return s_fail(c, "line %zu: a second dataset \"%s\" after \"%s\": name one dataset",
                          lineno, s_quote(f[0], QUOTE_MAX, q, sizeof q),
                          s_quote(name, QUOTE_MAX, qn, sizeof qn));
        int k = s_zprop(f[1]);
        if (k < 0)
            continue; /* another property asked for too (compressratio, say) */
        if (seen[k])
            return s_fail(c, "line %zu: %s is given twice", lineno, s_zprops[k]);
        int rc = s_zfs_value(c, lineno, k, f[2], name, &v[k]);
        if (rc)
            return rc;
        seen[k] = 1;
    }
    int used = seen[0] && seen[1], ref = seen[2] && seen[3];
    if (used && ref)
        return s_fail(c, "both logicalused,used and logicalreferenced,referenced: ask for one "
                         "pair");
    if (!used && !ref) {
        /* Name what is missing of the pair begun, else of the usual pair. */
        int base = (seen[2] || seen[3]) && !seen[0] && !seen[1] ? 2 : 0;
        return s_fail(c, "no %s line", s_zprops[seen[base] ? base + 1 : base]);
    }
    int base = used ? 0 : 2;
    if (v[base + 1] == 0)
        return s_fail(c, "%s is 0: no ratio can be taken", s_zprops[base + 1]);
    *logical = v[base];
    *physical = v[base + 1];
    return 0;
}

/* ---- compsize -b PATH ---- */

static int s_parse_compsize(s_ctx_t *c, uint64_t *logical, uint64_t *physical)
{
    static const char *const header[] = {"Type",         "Perc",       "Disk", "Usage",
                                         "Uncompressed", "Referenced", NULL};
    static const char *const cols[3] = {"Disk Usage", "Uncompressed", "Referenced"};
    s_span_t rest = {c->text, c->len}, line, t;
    char q[6 * QUOTE_MAX + 8];
    int have_header = 0, have_total = 0;
    uint64_t v[3] = {0, 0, 0};
    c->expect = EXPECT_CS;
    while (s_line(&rest, &line)) {
        if (!have_header) {
            have_header = s_tokens_are(line, header);
            continue;
        }
        s_span_t toks = line;
        if (!s_token(&toks, &t) || !s_eq(t, "TOTAL"))
            continue;
        if (have_total)
            return s_fail(c, "a second TOTAL row");
        have_total = 1;
        if (!s_token(&toks, &t)) /* Perc */
            return s_fail(c, "the TOTAL row is not TOTAL PERC DISK UNCOMPRESSED REFERENCED");
        for (size_t k = 0; k < 3; k++) {
            if (!s_token(&toks, &t))
                return s_fail(c, "the TOTAL row has no %s", cols[k]);
            int rc = s_num(t, &v[k]);
            if (rc == NUM_HUMAN)
                return s_fail(c, "sizes are not in bytes (%s \"%s\"): run compsize -b", cols[k],
                              s_quote(t, QUOTE_MAX, q, sizeof q));
            if (rc)
                return s_fail(c, "TOTAL's %s \"%s\" is %s", cols[k],
                              s_quote(t, QUOTE_MAX, q, sizeof q), s_num_what(rc));
        }
        if (s_token(&toks, &t))
            return s_fail(c, "the TOTAL row has more than 5 columns");
    }
    if (!have_header)
        return s_fail(c, "no \"Type Perc Disk Usage Uncompressed Referenced\" header");
    if (!have_total)
        return s_fail(c, "no TOTAL row");
    if (v[0] == 0)
        return s_fail(c, "TOTAL's Disk Usage is 0: no ratio can be taken");
    *logical = v[1];
    *physical = v[0];
    return 0;
}

/* ---- which form ---- */

typedef enum { FORM_NONE, FORM_KV, FORM_ZFS, FORM_COMPSIZE } s_form_t;

static s_form_t s_form(const char *text, size_t len)
{
    static const char *const zheader[] = {"NAME", "PROPERTY", "VALUE", "SOURCE", NULL};
    s_span_t rest = {text, len}, line, tok;
    int zfs = 0, compsize = 0;
    while (s_line(&rest, &line)) {
        s_span_t toks = line, f[2];
        while (s_token(&toks, &tok))
            if (s_starts(tok, "logical_bytes=") || s_starts(tok, "physical_bytes="))
                return FORM_KV;
        if ((s_tab_fields(line, f, 2) >= 2 && s_zprop(f[1]) >= 0) || s_tokens_are(line, zheader))
            zfs = 1;
        toks = line;
        if (s_starts(line, "Processed ") ||
            (s_token(&toks, &tok) && (s_eq(tok, "Type") || s_eq(tok, "TOTAL"))))
            compsize = 1;
    }
    return zfs ? FORM_ZFS : compsize ? FORM_COMPSIZE : FORM_NONE;
}

int lg_reduction_parse(const char *text, size_t len, uint64_t *logical, uint64_t *physical,
                       char *err, size_t errlen)
{
    char dummy[1];
    s_ctx_t c = {text ? text : "", text ? len : 0, EXPECT_ANY, err ? err : dummy,
                 err ? errlen : sizeof dummy};
    if (s_blank((s_span_t){c.text, c.len})) {
        snprintf(c.err, c.errlen, "the probe printed nothing; expected %s", EXPECT_ANY);
        return LG_EPARSE;
    }
    switch (s_form(c.text, c.len)) {
    case FORM_KV:
        return s_parse_kv(&c, logical, physical);
    case FORM_ZFS:
        return s_parse_zfs(&c, logical, physical);
    case FORM_COMPSIZE:
        return s_parse_compsize(&c, logical, physical);
    default:
        return s_fail(&c, "not one of the forms lg reads");
    }
}

/* query.c: a query file read (query.h): its directive header, its SQL with :campaign bound and
 * its parts; and the query files compiled into a program. */
#include "query.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the dollar-quote tag starting at sql[i] ("$$" or "$tag$"), 0 when none. */
static size_t s_dollar_tag(const char *sql, size_t i, size_t n)
{
    size_t j = i + 1;
    if (i > 0 && (isalnum((unsigned char)sql[i - 1]) || sql[i - 1] == '_'))
        return 0; /* part of an identifier such as a$b */
    while (j < n && (isalnum((unsigned char)sql[j]) || sql[j] == '_'))
        j++;
    if (j < n && sql[j] == '$' && !isdigit((unsigned char)sql[i + 1]))
        return j - i + 1;
    return 0; /* $1 is a parameter, not a quote */
}

/* Replace the placeholder :campaign (outside strings, quoted names, comments and :: casts) by
 * ($1::text). Caller owns the result; NULL when out of memory. */
char *lg__bind_campaign(const char *sql, bool *used)
{
    size_t n = strlen(sql);
    char *out = malloc(n * 2 + 16); /* each placeholder of 9 characters becomes 10 */
    if (!out)
        return NULL;
    size_t o = 0;
    const char *ph = ":campaign";
    size_t phl = strlen(ph);
    *used = false;
    for (size_t i = 0; i < n;) {
        char c = sql[i];
        size_t j = i, tag;
        if (c == '\'' || c == '"') {
            j = i + 1;
            while (j < n && sql[j] != c) {
                if (c == '\'' && sql[j] == '\\' && i > 0 &&
                    (sql[i - 1] == 'E' || sql[i - 1] == 'e') && j + 1 < n)
                    j++; /* E'...\'...' */
                j++;
            }
            j = j < n ? j + 1 : n;
        } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
            while (j < n && sql[j] != '\n')
                j++;
        } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
            int depth = 0; /* PostgreSQL's block comments nest */
            while (j < n) {
                if (sql[j] == '/' && j + 1 < n && sql[j + 1] == '*') {
                    depth++;
                    j += 2;
                } else if (sql[j] == '*' && j + 1 < n && sql[j + 1] == '/') {
                    j += 2;
                    if (--depth == 0)
                        break;
                } else {
                    j++;
                }
            }
        } else if (c == '$' && (tag = s_dollar_tag(sql, i, n)) > 0) {
            j = i + tag;
            while (j < n && strncmp(sql + j, sql + i, tag) != 0)
                j++;
            j = j < n ? j + tag : n;
        } else if (c == ':' && i + 1 < n && sql[i + 1] == ':') {
            j = i + 2;
        } else if (c == ':' && strncmp(sql + i, ph, phl) == 0 &&
                   !(isalnum((unsigned char)sql[i + phl]) || sql[i + phl] == '_')) {
            memcpy(out + o, "($1::text)", 10);
            o += 10;
            i += phl;
            *used = true;
            continue;
        } else {
            j = i + 1;
        }
        memcpy(out + o, sql + i, j - i);
        o += j - i;
        i = j;
    }
    out[o] = '\0';
    return out;
}

/* The line at p (up to its '\n' or the end): its length; *next the line after it. */
static size_t s_line(const char *p, const char **next)
{
    const char *e = strchr(p, '\n');
    *next = e ? e + 1 : p + strlen(p);
    return e ? (size_t)(e - p) : strlen(p);
}

/* A header line's directive (d: what follows "--", trimmed; it is changed) into q. 0, or -1 when
 * out of memory. */
static int s_directive(lg_query_t *q, char *d, int line)
{
    char *colon = strchr(d, ':'), *value = NULL;
    if (d[0] == '\0' || d[0] == '-' || d[0] == '#')
        return 0; /* a plain comment line: "--" or "-- ---" */
    if (colon) {
        *colon = '\0';
        value = colon + 1;
        while (isspace((unsigned char)*value))
            value++;
    }
    size_t kl = strlen(d);
    while (kl > 0 && isspace((unsigned char)d[kl - 1]))
        d[--kl] = '\0';
    if (!colon && strchr(d, ' '))
        return 0; /* prose before the directives or between them: a comment */
    lg_query_dir_t *nd = realloc(q->dirs, sizeof *nd * (size_t)(q->ndirs + 1));
    if (!nd)
        return -1;
    q->dirs = nd;
    lg_query_dir_t *x = &q->dirs[q->ndirs];
    x->key = strdup(d);
    x->value = value ? strdup(value) : NULL;
    x->line = line;
    if (!x->key || (value && !x->value)) {
        free(x->key);
        free(x->value);
        return -1;
    }
    q->ndirs++;
    return 0;
}

/* 1 when the line (len bytes at p, trailing white space gone) is a part's marker "--+ NAME" or
 * "--+" (*name, *nlen: its name, empty for the end). */
static int s_marker(const char *p, size_t len, const char **name, size_t *nlen)
{
    while (len > 0 && isspace((unsigned char)*p))
        p++, len--;
    if (len < 3 || strncmp(p, "--+", 3) != 0)
        return 0;
    p += 3, len -= 3;
    while (len > 0 && isspace((unsigned char)*p))
        p++, len--;
    *name = p;
    *nlen = len;
    return 1;
}

/* The header into q's directives and the SQL (trailing white space of each line gone) into body
 * (room for strlen(text) + 2). Returns 0, or -1 when out of memory. */
static int s_split(lg_query_t *q, const char *text, char *body)
{
    size_t o = 0;
    int header = 1;
    for (const char *p = text, *next; *p; p = next) {
        size_t len = s_line(p, &next);
        while (len > 0 && isspace((unsigned char)p[len - 1]))
            len--;
        q->lines++;
        size_t lead = 0;
        while (lead < len && isspace((unsigned char)p[lead]))
            lead++;
        if (header && (lead == len || (len - lead >= 2 && !strncmp(p + lead, "--", 2)))) {
            body[o++] = '\n'; /* keep the line numbers of the SQL the server reports */
            if (lead == len)
                continue;
            char *d = strndup(p + lead + 2, len - lead - 2);
            char *t = d;
            while (t && isspace((unsigned char)*t))
                t++;
            int rc = d ? s_directive(q, t, q->lines) : -1;
            free(d);
            if (rc)
                return -1;
            continue;
        }
        header = 0;
        memcpy(body + o, p, len);
        o += len;
        body[o++] = '\n';
    }
    body[o] = '\0';
    return 0;
}

/* Every part of body ended, none inside another. 0, or -1 with err. */
static int s_check_parts(const char *path, const char *body, char *err, size_t errlen)
{
    int open_line = 0, ln = 0;
    for (const char *p = body, *next; *p; p = next) {
        const char *name;
        size_t len = s_line(p, &next), nlen;
        ln++;
        if (!s_marker(p, len, &name, &nlen))
            continue;
        if (nlen > 0 && open_line) {
            snprintf(err, errlen, "%s:%d: a part inside the part of line %d", path, ln, open_line);
            return -1;
        }
        if (nlen == 0 && !open_line) {
            snprintf(err, errlen, "%s:%d: \"--+\" ends no part", path, ln);
            return -1;
        }
        open_line = nlen > 0 ? ln : 0;
    }
    if (open_line) {
        snprintf(err, errlen, "%s:%d: the part is not ended (a line \"--+\")", path, open_line);
        return -1;
    }
    return 0;
}

int lg_query_parse(const char *path, const char *text, lg_query_t *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    const char *base = strrchr(path, '/');
    snprintf(q->name, sizeof q->name, "%s", base ? base + 1 : path);
    char *dot = strrchr(q->name, '.');
    if (dot && strcmp(dot, ".sql") == 0)
        *dot = '\0';
    char *body = malloc(strlen(text) + 2);
    int rc = body && s_split(q, text, body) == 0 ? 0 : -ENOMEM;
    if (rc == 0 && s_check_parts(path, body, err, errlen) != 0)
        rc = -1;
    if (rc == 0 && !(q->sql = lg__bind_campaign(body, &q->uses_campaign)))
        rc = -ENOMEM;
    free(body);
    if (rc == -ENOMEM)
        snprintf(err, errlen, "%s: out of memory", path);
    if (rc)
        lg_query_clear(q);
    return rc ? -1 : 0;
}

int lg_query_read(const char *path, lg_query_t *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0;
    FILE *mem = f ? open_memstream(&text, &len) : NULL;
    if (!f || !mem) {
        snprintf(err, errlen, "%s: could not open: %s", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    char buf[8192];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;)
        fwrite(buf, 1, n, mem);
    fclose(f);
    fclose(mem);
    int rc = lg_query_parse(path, text ? text : "", q, err, errlen);
    free(text);
    return rc;
}

bool lg_query_blank(const lg_query_t *q)
{
    return !q->sql || strspn(q->sql, " \t\r\n") == strlen(q->sql);
}

const char *lg_query_get(const lg_query_t *q, const char *key)
{
    for (int i = 0; i < q->ndirs; i++)
        if (strcmp(q->dirs[i].key, key) == 0)
            return q->dirs[i].value ? q->dirs[i].value : "";
    return NULL;
}

/* 1 when name (nlen bytes) is one of parts. */
static int s_asked(const char *const *parts, const char *name, size_t nlen)
{
    for (; parts && *parts; parts++)
        if (strlen(*parts) == nlen && strncmp(*parts, name, nlen) == 0)
            return 1;
    return 0;
}

char *lg_query_sql(const lg_query_t *q, const char *const *parts)
{
    char *out = malloc(strlen(q->sql) + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    int keep = 1;
    for (const char *p = q->sql, *next; *p; p = next) {
        const char *name;
        size_t len = s_line(p, &next), nlen;
        if (s_marker(p, len, &name, &nlen))
            keep = nlen == 0 || s_asked(parts, name, nlen);
        else if (keep) {
            memcpy(out + o, p, len);
            o += len;
        }
        if (p[len] == '\n')
            out[o++] = '\n'; /* every line stays, a dropped one empty */
    }
    out[o] = '\0';
    return out;
}

void lg_query_clear(lg_query_t *q)
{
    for (int i = 0; i < q->ndirs; i++) {
        free(q->dirs[i].key);
        free(q->dirs[i].value);
    }
    free(q->dirs);
    free(q->sql);
    memset(q, 0, sizeof *q);
}

int lg_query_load(const lg_query_src_t *set, const char *name, lg_query_t *q, char *err,
                  size_t errlen)
{
    memset(q, 0, sizeof *q);
    for (; set->name; set++) {
        if (strcmp(set->name, name) != 0)
            continue;
        char path[300], why[1024];
        snprintf(path, sizeof path, "%s.sql", name);
        if (lg_query_parse(path, set->text, q, why, sizeof why) == 0 && !lg_query_blank(q))
            return 0;
        if (q->sql) {
            snprintf(why, sizeof why, "%s: no SQL after the directives", path);
            lg_query_clear(q);
        }
        snprintf(err, errlen, "the query %s compiled into this program is broken: %s", name, why);
        return -1;
    }
    snprintf(err, errlen, "no query %s is compiled into this program", name);
    return -1;
}

/* chart.c: what a query file's directives say of its chart (the file read by db/query.c), and the
 * small pieces every chart shares: the palette and number formatting. */
#include "chart.h"
#include "lg_util.h"
#include "query.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *s_kinds[] = {"hbar", "bar", "line", "scatter", "timeseries", "curve"};

const char *lg_chart_kind_name(lg_chart_kind_t k)
{
    return s_kinds[k];
}

static char *s_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int s_set(char *dst, size_t len, const char *v, const char *path, int line, const char *key,
                 char *err, size_t errlen)
{
    if (strlen(v) >= len) {
        snprintf(err, errlen, "%s:%d: value of \"%s\" is too long (at most %zu characters)", path,
                 line, key, len - 1);
        return -1;
    }
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

#define S_FIELD(f) offsetof(lg_chart_spec_t, f), sizeof(((lg_chart_spec_t *)0)->f)
/* The directives that take a line of text as it is. */
static const struct {
    const char *name;
    size_t off, len;
} s_text_dirs[] = {
    {"title", S_FIELD(title)},   {"subtitle", S_FIELD(subtitle)}, {"x", S_FIELD(x)},
    {"y", S_FIELD(y)},           {"x-title", S_FIELD(xtitle)},    {"y-title", S_FIELD(ytitle)},
    {"series", S_FIELD(series)}, {"unit", S_FIELD(unit)},         {"limit", S_FIELD(limit)},
    {"y2", S_FIELD(y2)},         {"y2-title", S_FIELD(y2title)},  {"y2-unit", S_FIELD(y2unit)},
    {"each", S_FIELD(each)},     {"caveat", S_FIELD(caveat)},     {"label", S_FIELD(label)},
};
#define S_KNOWN                                                                                    \
    "chart, title, subtitle, x, y, x-title, y-title, series, unit, limit, mark, ci, y2, "          \
    "y2-title, y2-unit, each, caveat, label, window, group, sort, lower-is-better, log"

/* "a b": the two words, each at most len - 1 characters; -1 unless there are exactly two. */
static int s_two_words(char *val, char *a, char *b, size_t len)
{
    char *sp = strpbrk(val, " \t");
    if (!sp)
        return -1;
    *sp = '\0';
    char *second = s_trim(sp + 1);
    if (!val[0] || !second[0] || strpbrk(second, " \t") || strlen(val) >= len ||
        strlen(second) >= len)
        return -1;
    memcpy(a, val, strlen(val) + 1);
    memcpy(b, second, strlen(second) + 1);
    return 0;
}

/* One directive line "key: val" (colon false: "key" alone; prose is lg_query_parse's). 0, or -1
 * with "FILE:LINE: message" in err. */
static int s_directive(lg_chart_spec_t *spec, const char *key, char *val, bool colon,
                       const char *path, int ln, char *err, size_t errlen)
{
    for (size_t i = 0; colon && i < sizeof s_text_dirs / sizeof s_text_dirs[0]; i++)
        if (!strcmp(key, s_text_dirs[i].name))
            return s_set((char *)spec + s_text_dirs[i].off, s_text_dirs[i].len, val, path, ln, key,
                         err, errlen);
    if (colon && (!strcmp(key, "chart") || !strcmp(key, "kind"))) {
        for (int i = 0; i < (int)(sizeof s_kinds / sizeof s_kinds[0]); i++)
            if (!strcmp(val, s_kinds[i])) {
                spec->kind = (lg_chart_kind_t)i;
                return 0;
            }
        snprintf(err, errlen,
                 "%s:%d: unknown chart kind \"%s\"; known: hbar, bar, line, scatter, timeseries, "
                 "curve",
                 path, ln, val);
        return -1;
    }
    if (colon && !strcmp(key, "mark")) { /* "mark: COLUMN" or "mark: COLUMN LABEL" */
        char *sp = strchr(val, ' ');
        if (sp) {
            *sp = 0;
            if (s_set(spec->mark_label, sizeof spec->mark_label, s_trim(sp + 1), path, ln, key, err,
                      errlen))
                return -1;
        }
        return s_set(spec->mark, sizeof spec->mark, val, path, ln, key, err, errlen);
    }
    if (colon && !strcmp(key, "ci")) {
        if (s_two_words(val, spec->ci_lo, spec->ci_hi, sizeof spec->ci_lo) == 0)
            return 0;
        snprintf(err, errlen, "%s:%d: ci takes two columns, the low and the high bound", path, ln);
        return -1;
    }
    if (colon && !strcmp(key, "window")) {
        if (s_two_words(val, spec->win_lo, spec->win_hi, sizeof spec->win_lo) == 0)
            return 0;
        snprintf(err, errlen, "%s:%d: window takes two columns, its start and its end", path, ln);
        return -1;
    }
    if (colon && !strcmp(key, "group")) { /* one column, or two */
        if (!strpbrk(val, " \t") && val[0] && strlen(val) < sizeof spec->group[0]) {
            memcpy(spec->group[0], val, strlen(val) + 1);
            return 0;
        }
        if (s_two_words(val, spec->group[0], spec->group[1], sizeof spec->group[0]) == 0)
            return 0;
        snprintf(err, errlen, "%s:%d: group takes one or two columns", path, ln);
        return -1;
    }
    if (colon && !strcmp(key, "sort")) {
        if (!strcmp(val, "asc"))
            spec->sort = LG_SORT_ASC;
        else if (!strcmp(val, "desc"))
            spec->sort = LG_SORT_DESC;
        else if (!strcmp(val, "none"))
            spec->sort = LG_SORT_NONE;
        else {
            snprintf(err, errlen, "%s:%d: sort must be asc, desc or none, not \"%s\"", path, ln,
                     val);
            return -1;
        }
        return 0;
    }
    if (!colon && !strcmp(key, "lower-is-better")) {
        spec->lower_is_better = true;
        return 0;
    }
    if (!colon && !strcmp(key, "log")) {
        spec->log = true;
        return 0;
    }
    snprintf(err, errlen, "%s:%d: unknown directive \"%s\"; known: " S_KNOWN, path, ln, key);
    return -1;
}

/* What the directives ask of each other, once all are read. */
static int s_check_spec(const lg_chart_spec_t *spec, const char *path, int ci_line, int y2_line,
                        char *err, size_t errlen)
{
    if (!spec->x[0] || !spec->y[0]) {
        snprintf(err, errlen, "%s:1: the directives x and y are required", path);
        return -1;
    }
    if (ci_line && spec->kind != LG_CHART_HBAR && spec->kind != LG_CHART_BAR) {
        snprintf(err, errlen, "%s:%d: ci (error bars) is for bar and hbar charts, not %s", path,
                 ci_line, s_kinds[spec->kind]);
        return -1;
    }
    if (y2_line && spec->kind != LG_CHART_TIMESERIES) {
        snprintf(err, errlen, "%s:%d: y2 (a second value axis) is for timeseries charts, not %s",
                 path, y2_line, s_kinds[spec->kind]);
        return -1;
    }
    return 0;
}

int lg_chart_parse(const char *path, lg_chart_spec_t *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    lg_query_t q; /* the header and the SQL, read as every query file is (db/query.h) */
    if (lg_query_read(path, &q, err, errlen) != 0)
        return -1;
    snprintf(spec->name, sizeof spec->name, "%s", q.name);
    spec->kind = LG_CHART_HBAR;
    snprintf(spec->title, sizeof spec->title, "%s", spec->name);
    int rc = 0, ci_line = 0, y2_line = 0;
    for (int i = 0; rc == 0 && i < q.ndirs; i++) {
        const lg_query_dir_t *d = &q.dirs[i];
        char val[4096];
        snprintf(val, sizeof val, "%s", d->value ? d->value : "");
        ci_line = !strcmp(d->key, "ci") ? d->line : ci_line;
        y2_line = !strcmp(d->key, "y2") ? d->line : y2_line;
        rc = s_directive(spec, d->key, val, d->value != NULL, path, d->line, err, errlen);
    }
    if (rc == 0)
        rc = s_check_spec(spec, path, ci_line, y2_line, err, errlen);
    if (rc == 0 && lg_query_blank(&q)) {
        snprintf(err, errlen, "%s:%d: no SQL after the directives", path, q.lines);
        rc = -1;
    }
    if (rc == 0 && !(spec->sql = lg_query_sql(&q, NULL))) {
        snprintf(err, errlen, "%s: out of memory", path);
        rc = -1;
    }
    spec->uses_campaign = q.uses_campaign;
    lg_query_clear(&q);
    return rc;
}

void lg_chart_spec_clear(lg_chart_spec_t *spec)
{
    free(spec->sql);
    memset(spec, 0, sizeof *spec);
}

/* Colour-blind-safe qualitative palette (Okabe-Ito first, then Tableau). */
static const char *s_colors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
                                 "#332288", "#000000", "#4E79A7", "#F28E2B", "#59A14F", "#B07AA1",
                                 "#9C755F", "#76B7B2", "#EDC948", "#FF9DA7"};
#define S_NCOLORS (sizeof s_colors / sizeof s_colors[0])

const char *lg_palette_color(lg_palette_t *p, const char *series)
{
    if (!series)
        series = "";
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->names[i], series))
            return s_colors[(size_t)i % S_NCOLORS];
    if (p->n < (int)(sizeof p->names / sizeof p->names[0])) {
        p->names[p->n] = strdup(series);
        if (p->names[p->n])
            return s_colors[(size_t)p->n++ % S_NCOLORS];
    }
    return "#777777";
}

void lg_palette_clear(lg_palette_t *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->names[i]);
    memset(p, 0, sizeof *p);
}

/* Decimals for a magnitude: whole numbers from 100, then 1, 2, 3 decimals, and two significant
 * digits below 0.01. */
static int s_prec(double a)
{
    if (a >= 100)
        return 0;
    if (a >= 10)
        return 1;
    if (a >= 1)
        return 2;
    if (a >= 0.01)
        return 3;
    int p = 1 - (int)floor(log10(a));
    return p > 12 ? 12 : p;
}

void lg_fmt_num(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "n/a");
        return;
    }
    double a = fabs(v);
    char raw[400];
    if (a != 0 && a < 1e-6) { /* too small for fixed decimals to say anything */
        snprintf(buf, len, "%.2g", v);
        return;
    }
    int prec = a == 0 ? 0 : s_prec(a);
    snprintf(raw, sizeof raw, "%.*f", prec, a);
    /* Rounding may cross into the next magnitude (9.996 -> "10.00"): use that one's precision. */
    if (a != 0 && s_prec(strtod(raw, NULL)) < prec)
        prec = s_prec(strtod(raw, NULL));
    lg_fmt_thousands(buf, len, v, prec);
}

void lg_fmt_cell(const char *text, char *buf, size_t len)
{
    double v = strtod(text, NULL);
    if (!strpbrk(text, ".eEnN") && isfinite(v) && fabs(v) < 1e15)
        lg_fmt_thousands(buf, len, v, 0);
    else
        lg_fmt_num(v, buf, len);
}

void lg_chart_subline(const lg_chart_spec_t *s, char *buf, size_t len)
{
    /* Two value axes: which way is better is each figure's own, not the chart's. */
    const char *better = s->y2[0]             ? ""
                         : s->lower_is_better ? "lower is better"
                                              : "higher is better";
    snprintf(buf, len, "%s%s%s%s", s->subtitle, s->subtitle[0] && better[0] ? " · " : "", better,
             s->log ? " · log scale" : "");
}

/* Digits at *p: exactly n of them (n > 0) or 1..-n (n < 0); -1 when they are not there. */
static long s_digits(const char **p, int n)
{
    long v = 0;
    int k = 0, max = n < 0 ? -n : n;
    while (k < max && isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        (*p)++;
        k++;
    }
    return (k == 0 || (n > 0 && k != n)) ? -1 : v;
}

int lg_chart_parse_time(const char *s, double *epoch)
{
    const char *p = s;
    long y = s_digits(&p, 4), mo, d, h, mi, sec = 0;
    if (y < 0 || *p++ != '-' || (mo = s_digits(&p, 2)) < 1 || mo > 12 || *p++ != '-' ||
        (d = s_digits(&p, 2)) < 1 || d > 31 || (*p != ' ' && *p != 'T'))
        return -1;
    p++;
    if ((h = s_digits(&p, 2)) < 0 || h > 24 || *p++ != ':' || (mi = s_digits(&p, 2)) < 0 || mi > 59)
        return -1;
    double frac = 0;
    if (*p == ':') {
        p++;
        if ((sec = s_digits(&p, 2)) < 0 || sec > 60)
            return -1;
        if (*p == '.') {
            char *end;
            frac = strtod(p, &end);
            if (end == p + 1)
                return -1;
            p = end;
        }
    }
    long off = 0;
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1;
        long oh = s_digits(&p, 2), om = 0, os = 0;
        if (oh < 0)
            return -1;
        if (*p == ':')
            p++;
        if (isdigit((unsigned char)*p) && (om = s_digits(&p, 2)) < 0)
            return -1;
        if (*p == ':' && (p++, (os = s_digits(&p, 2)) < 0))
            return -1;
        off = sign * (oh * 3600 + om * 60 + os);
    }
    if (*p != '\0')
        return -1;
    /* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
    long yy = mo <= 2 ? y - 1 : y;
    long era = (yy >= 0 ? yy : yy - 399) / 400;
    long yoe = yy - era * 400;
    long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long days = era * 146097 + doe - 719468;
    *epoch = (double)(days * 86400 + h * 3600 + mi * 60 + sec - off) + frac;
    return 0;
}

/* Column c holds numbers or NULL in every row; -1 with err naming the first that is not. */
static int s_check_numbers(const lg_table_t *t, const char *col, const char *what, char *err,
                           size_t errlen)
{
    int c = lg_table_col(t, col);
    for (int r = 0; r < t->nrows; r++) {
        const char *v = lg_table_get(t, r, c);
        char *end;
        if (v && (strtod(v, &end), *end != '\0' || end == v)) {
            snprintf(err, errlen, "column \"%s\" (%s) holds \"%s\" in row %d, not a number", col,
                     what, v, r + 1);
            return -1;
        }
    }
    return 0;
}

int lg_chart_check(const lg_chart_spec_t *s, const lg_table_t *t, char *err, size_t errlen)
{
    const char *need[] = {s->x,     s->y,      s->series, s->limit,    s->mark,
                          s->ci_lo, s->ci_hi,  s->y2,     s->each,     s->caveat,
                          s->label, s->win_lo, s->win_hi, s->group[0], s->group[1]};
    const char *what[] = {"x",    "y",      "series", "limit",  "mark",   "ci",    "ci",   "y2",
                          "each", "caveat", "label",  "window", "window", "group", "group"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        if (!need[i][0])
            continue;
        if (lg_table_col(t, need[i]) < 0) {
            snprintf(err, errlen,
                     "directive %s names column \"%s\", which the query does not return", what[i],
                     need[i]);
            return -1;
        }
    }
    int xc = lg_table_col(t, s->x);
    for (int r = 0; r < t->nrows && (s->kind == LG_CHART_SCATTER ||
                                     s->kind == LG_CHART_TIMESERIES || s->kind == LG_CHART_CURVE);
         r++) {
        const char *v = lg_table_get(t, r, xc);
        char *end;
        double e;
        if (!v || (strtod(v, &end), *end == '\0' && end != v))
            continue;
        if (s->kind == LG_CHART_TIMESERIES && lg_chart_parse_time(v, &e) == 0)
            continue;
        snprintf(err, errlen, "column \"%s\" (x) holds \"%s\" in row %d, not a number%s", s->x, v,
                 r + 1, s->kind == LG_CHART_TIMESERIES ? " or a timestamp" : "");
        return -1;
    }
    const char *nums[] = {s->y, s->ci_lo, s->ci_hi, s->y2, s->win_lo, s->win_hi};
    const char *nwhat[] = {"y", "ci", "ci", "y2", "window", "window"};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (nums[i][0] && s_check_numbers(t, nums[i], nwhat[i], err, errlen) != 0)
            return -1;
    return 0;
}

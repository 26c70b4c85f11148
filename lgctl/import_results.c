/* import_results.c: figures made elsewhere (a published review, a spreadsheet) from a long-form
 * CSV into lg.imported_figure as one campaign. Every row is checked before anything is stored,
 * and every bad row is reported with its line, so a file is fixed in one pass. */
#include "import_results.h"

#include <ctype.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "lg_error.h"
#include "lg_util.h"

#define MAX_FILE (64u << 20)
#define MAX_COLS 64
#define MAX_ERRORS 50

typedef enum { K_IOPS, K_BW, K_LAT } kind_t;

/* The metrics of lg.metric (schema/007_compare.sql) and the kind of unit each takes. */
static const struct {
    const char *name;
    kind_t kind;
} s_metric_kinds[] = {
    {"iops", K_IOPS},       {"mbps", K_BW},           {"lat_avg_ms", K_LAT},
    {"lat_min_ms", K_LAT},  {"lat_max_ms", K_LAT},    {"lat_stddev_ms", K_LAT},
    {"p50_ms", K_LAT},      {"p90_ms", K_LAT},        {"p95_ms", K_LAT},
    {"p99_ms", K_LAT},      {"p99_9_ms", K_LAT},      {"p99_99_ms", K_LAT},
    {"clat_p50_ms", K_LAT}, {"clat_p90_ms", K_LAT},   {"clat_p95_ms", K_LAT},
    {"clat_p99_ms", K_LAT}, {"clat_p99_9_ms", K_LAT}, {"clat_p99_99_ms", K_LAT},
};

/* Units, and the factor to the metric's own unit (IOPS, MB/s = 10^6 B/s, ms). */
static const struct {
    const char *unit;
    kind_t kind;
    double factor;
} s_units[] = {
    {"IOPS", K_IOPS, 1},
    {"kIOPS", K_IOPS, 1e3},
    {"B/s", K_BW, 1e-6},
    {"KB/s", K_BW, 1e-3},
    {"kB/s", K_BW, 1e-3},
    {"MB/s", K_BW, 1},
    {"GB/s", K_BW, 1e3},
    {"KiB/s", K_BW, 1024 / 1e6},
    {"MiB/s", K_BW, 1048576 / 1e6},
    {"GiB/s", K_BW, 1073741824 / 1e6},
    {"ns", K_LAT, 1e-6},
    {"us", K_LAT, 1e-3},
    {"\xc2\xb5s", K_LAT, 1e-3},
    {"ms", K_LAT, 1},
    {"s", K_LAT, 1e3},
};

static const char *const s_kind_units[] = {
    "IOPS, kIOPS", "B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s", "ns, us, ms, s"};

typedef struct {
    char *buf; /* the fields of one record, each NUL-terminated */
    size_t len, cap;
    size_t off[MAX_COLS];
    size_t n;
    int too_many;
} record_t;

static int s_put(record_t *r, char c)
{
    if (r->len + 1 >= r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 256;
        char *nb = realloc(r->buf, nc);
        if (!nb)
            return -ENOMEM;
        r->buf = nb;
        r->cap = nc;
    }
    r->buf[r->len++] = c;
    return 0;
}

/* Read one CSV record (RFC 4180: quotes, doubled quotes, CRLF) from text at *pos; counts lines
 * in *line. Returns 1 with a record, 0 at the end, or LG_EPARSE for an unterminated quote. */
static int s_record(const char *text, size_t len, size_t *pos, size_t *line, record_t *r)
{
    r->len = 0;
    r->n = 0;
    r->too_many = 0;
    if (*pos >= len)
        return 0;
    size_t i = *pos;
    int quoted = 0, start = 1;
    r->off[r->n++] = 0;
    for (; i < len; i++) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < len && text[i + 1] == '"') {
                i++;
            } else if (c == '"') {
                quoted = 0;
                continue;
            } else if (c == '\n') {
                (*line)++;
            }
        } else if (c == '"' && start) {
            quoted = 1;
            start = 0;
            continue;
        } else if (c == ',') {
            if (s_put(r, 0))
                return -ENOMEM;
            if (r->n < MAX_COLS)
                r->off[r->n++] = r->len;
            else
                r->too_many = 1;
            start = 1;
            continue;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < len && text[i + 1] == '\n')
                i++;
            i++;
            (*line)++;
            break;
        }
        start = 0;
        if (s_put(r, c))
            return -ENOMEM;
    }
    if (quoted)
        return LG_EPARSE;
    if (s_put(r, 0))
        return -ENOMEM;
    *pos = i;
    return 1;
}

static char *s_field(record_t *r, size_t i)
{
    char *f = r->buf + r->off[i];
    while (isspace((unsigned char)*f))
        f++;
    size_t l = strlen(f);
    while (l && isspace((unsigned char)f[l - 1]))
        f[--l] = 0;
    return f;
}

typedef struct {
    char *text;
    size_t len, cap;
    size_t count;
} errs_t;

static void s_err(errs_t *e, const char *path, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void s_err(errs_t *e, const char *path, size_t line, const char *fmt, ...)
{
    e->count++;
    if (e->count > MAX_ERRORS)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[1200];
    int n = snprintf(full, sizeof full, "%s%s:%zu: %s", e->len ? "\n" : "", path, line, msg);
    if (n < 0)
        return;
    size_t need = e->len + (size_t)n + 1;
    if (need > e->cap) {
        size_t nc = e->cap ? e->cap : 1024;
        while (nc < need)
            nc *= 2;
        char *nt = realloc(e->text, nc);
        if (!nt)
            return;
        e->text = nt;
        e->cap = nc;
    }
    memcpy(e->text + e->len, full, (size_t)n + 1);
    e->len += (size_t)n;
}

static int s_metric(const char *m)
{
    for (size_t i = 0; i < sizeof s_metric_kinds / sizeof s_metric_kinds[0]; i++)
        if (strcmp(s_metric_kinds[i].name, m) == 0)
            return (int)i;
    return -1;
}

static int s_unit(const char *u, kind_t kind, double *factor)
{
    for (size_t i = 0; i < sizeof s_units / sizeof s_units[0]; i++) {
        if (s_units[i].kind != kind)
            continue;
        /* Case matters only where it carries meaning (ms vs Ms never occurs; KiB vs KB does
         * through the i, which case-insensitive matching keeps). */
        if (strcasecmp(s_units[i].unit, u) == 0) {
            *factor = s_units[i].factor;
            return 0;
        }
    }
    return -1;
}

static int s_label_name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
            return 0;
    return 1;
}

/* The columns lg knows; any other is a SUT label. */
enum { C_PROFILE, C_DIRECTION, C_METRIC, C_VALUE, C_UNIT, C_PROTOCOL, C_THREADS, C_QD, C_NR };
static const char *const s_known[C_NR] = {"profile", "direction", "metric",  "value",
                                          "unit",    "protocol",  "threads", "qd"};

/* A CSV file being read: where in it, its header, the rows so far and the errors. */
typedef struct {
    const char *path, *text;
    size_t len, pos, line;
    record_t r;
    errs_t e;
    json_t *rows;
    int col[C_NR];         /* where each known column is; -1: not there */
    char *names[MAX_COLS]; /* the header's names, lowercase */
    size_t ncols;
} csv_t;

/* The header row: its columns named (known or label names, none twice, the required ones
 * there). Returns 0 when the rows can be read, -1 after the errors in c->e. */
static int s_header(csv_t *c)
{
    size_t hline = c->line;
    int rc = s_record(c->text, c->len, &c->pos, &c->line, &c->r);
    if (rc <= 0) {
        s_err(&c->e, c->path, hline,
              rc == 0 ? "the file is empty: a header row is needed" : "unterminated quoted field");
        return -1;
    }
    if (c->r.too_many)
        s_err(&c->e, c->path, hline, "more than %d columns", MAX_COLS);
    c->ncols = c->r.n;
    for (size_t i = 0; i < c->ncols; i++) {
        char *f = s_field(&c->r, i);
        for (char *p = f; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        c->names[i] = strdup(f);
        int k = 0;
        while (k < C_NR && strcmp(s_known[k], f) != 0)
            k++;
        for (size_t j = 0; j < i; j++)
            if (c->names[j] && c->names[i] && strcmp(c->names[j], c->names[i]) == 0)
                s_err(&c->e, c->path, hline, "column \"%s\" appears twice", f);
        if (k < C_NR)
            c->col[k] = (int)i;
        else if (!s_label_name_ok(f))
            s_err(&c->e, c->path, hline, "column %zu: \"%s\" is not a label name ([A-Za-z0-9_.-])",
                  i + 1, f);
    }
    for (int k = 0; k <= C_UNIT; k++)
        if (c->col[k] < 0)
            s_err(&c->e, c->path, hline,
                  "the header has no \"%s\" column (required: profile, "
                  "direction, metric, value, unit)",
                  s_known[k]);
    return c->e.count ? -1 : 0;
}

/* Field k (a known column) of the record, "" when the file has no such column. */
static const char *s_opt_field(csv_t *c, int k)
{
    return c->col[k] >= 0 ? s_field(&c->r, (size_t)c->col[k]) : "";
}

/* The record of line at as a row of c->rows: every field checked, each error said with the
 * line; a row with any error is left out. */
static void s_row(csv_t *c, size_t at)
{
    errs_t *e = &c->e;
    const char *path = c->path;
    size_t before = e->count;
    const char *profile = s_field(&c->r, (size_t)c->col[C_PROFILE]);
    const char *dir = s_field(&c->r, (size_t)c->col[C_DIRECTION]);
    const char *metric = s_field(&c->r, (size_t)c->col[C_METRIC]);
    const char *value = s_field(&c->r, (size_t)c->col[C_VALUE]);
    const char *unit = s_field(&c->r, (size_t)c->col[C_UNIT]);
    if (!profile[0])
        s_err(e, path, at, "profile is empty");
    if (strcmp(dir, "read") && strcmp(dir, "write") && strcmp(dir, "mixed"))
        s_err(e, path, at, "direction \"%s\" is not read, write or mixed", dir);
    int m = s_metric(metric);
    if (m < 0)
        s_err(e, path, at,
              "unknown metric \"%s\" (metrics: iops, mbps, lat_avg_ms, "
              "lat_min_ms, lat_max_ms, lat_stddev_ms, p50_ms, p90_ms, "
              "p95_ms, p99_ms, p99_9_ms, p99_99_ms, clat_p50_ms ... clat_p99_99_ms)",
              metric);
    char *end = NULL;
    double v = value[0] ? strtod(value, &end) : NAN;
    if (!value[0] || *end || !isfinite(v) || v < 0)
        s_err(e, path, at, "value \"%s\" is not a number >= 0", value);
    double factor = 1;
    if (m >= 0 && s_unit(unit, s_metric_kinds[m].kind, &factor) != 0)
        s_err(e, path, at, "unit \"%s\" does not fit metric \"%s\" (units: %s)", unit, metric,
              s_kind_units[s_metric_kinds[m].kind]);
    uint64_t th = 0, qd = 0;
    const char *ths = s_opt_field(c, C_THREADS);
    const char *qds = s_opt_field(c, C_QD);
    if (ths[0] && lg_parse_u64(ths, 1, 65536, &th) != 0)
        s_err(e, path, at, "threads \"%s\" is not a whole number from 1 to 65536", ths);
    if (qds[0] && lg_parse_u64(qds, 1, 65536, &qd) != 0)
        s_err(e, path, at, "qd \"%s\" is not a whole number from 1 to 65536", qds);
    if (e->count != before)
        return;
    json_t *labels = json_object();
    for (size_t i = 0; i < c->ncols; i++) {
        int k = 0;
        while (k < C_NR && c->col[k] != (int)i)
            k++;
        const char *f = s_field(&c->r, i);
        if (k == C_NR && f[0])
            json_object_set_new(labels, c->names[i], json_string(f));
    }
    const char *proto = s_opt_field(c, C_PROTOCOL);
    json_t *o = json_pack("{s:I, s:o, s:s, s:s, s:s, s:f, s:s, s:s}", "line", (json_int_t)at,
                          "labels", labels, "profile", profile, "direction", dir, "metric", metric,
                          "value", v * factor, "raw_value", value, "raw_unit", unit);
    if (o) {
        json_object_set_new(o, "protocol", proto[0] ? json_string(proto) : json_null());
        json_object_set_new(o, "threads", th ? json_integer((json_int_t)th) : json_null());
        json_object_set_new(o, "qd", qd ? json_integer((json_int_t)qd) : json_null());
        json_array_append_new(c->rows, o);
    }
}

/* The records after the header, each a row or the errors of its line. */
static void s_rows(csv_t *c)
{
    for (;;) {
        size_t at = c->line;
        int rc = s_record(c->text, c->len, &c->pos, &c->line, &c->r);
        if (rc == 0)
            break;
        if (rc < 0) {
            s_err(&c->e, c->path, at,
                  rc == LG_EPARSE ? "unterminated quoted field" : "out of memory");
            break;
        }
        if (c->r.n == 1 && !s_field(&c->r, 0)[0])
            continue; /* a blank line */
        if (c->r.n != c->ncols || c->r.too_many) {
            s_err(&c->e, c->path, at, "%zu fields, the header has %zu", c->r.n, c->ncols);
            continue;
        }
        s_row(c, at);
    }
    if (!c->e.count && json_array_size(c->rows) == 0)
        s_err(&c->e, c->path, c->line, "no figures after the header");
}

int lg_results_csv_parse(const char *path, const char *text, size_t len, char **rows_json,
                         size_t *nrows, char *err, size_t errlen)
{
    csv_t c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.text = text;
    c.len = len;
    c.line = 1;
    c.rows = json_array();
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        c.pos = 3; /* a spreadsheet's byte order mark */
    for (int k = 0; k < C_NR; k++)
        c.col[k] = -1;
    if (s_header(&c) == 0)
        s_rows(&c);
    for (size_t i = 0; i < c.ncols; i++)
        free(c.names[i]);
    free(c.r.buf);
    if (c.e.count) {
        if (c.e.count > MAX_ERRORS)
            snprintf(err, errlen, "%zu bad rows in \"%s\", the first %d:\n%s", c.e.count, path,
                     MAX_ERRORS, c.e.text ? c.e.text : "");
        else
            snprintf(err, errlen, "%s", c.e.text ? c.e.text : "bad CSV");
        free(c.e.text);
        json_decref(c.rows);
        return LG_EPARSE;
    }
    *nrows = json_array_size(c.rows);
    *rows_json = json_dumps(c.rows, JSON_COMPACT);
    json_decref(c.rows);
    return *rows_json ? 0 : -ENOMEM;
}

int lg_import_results_csv(PGconn *db, const char *path, const char *name, uint64_t *campaign_id,
                          size_t *nrows, char *err, size_t errlen)
{
    char *text = NULL, *rows = NULL;
    size_t len = 0;
    int rc = lg_read_file(path, MAX_FILE, &text, &len);
    if (rc) {
        snprintf(err, errlen, "could not read \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    rc = lg_results_csv_parse(path, text, len, &rows, nrows, err, errlen);
    if (rc) {
        free(text);
        return rc;
    }
    char cname[64], tmp[1100];
    if (name) {
        lg_strlcpy(cname, name, sizeof cname);
    } else {
        lg_strlcpy(tmp, path, sizeof tmp);
        snprintf(cname, sizeof cname, "import-%s", basename(tmp));
        char *dot = strrchr(cname, '.');
        if (dot && dot > cname + 7)
            *dot = 0;
    }
    PGresult *r = NULL;
    char cid[24] = "";
    rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0) {
        /* The CSV itself is the campaign's spec: what was imported, verbatim. */
        const char *pc[3] = {cname, path, text};
        rc = lg_db_exec(db,
                        "INSERT INTO lg.campaign (name, spec_path, spec, state, started_at,"
                        " finished_at, between_configs, message) VALUES ($1, $2, $3, 'done',"
                        " now(), now(), 'none', 'imported figures') RETURNING campaign_id",
                        3, pc, &r, err, errlen);
    }
    if (rc == 0) {
        lg_strlcpy(cid, lg_db_get(r, 0, lg_db_col(r, "campaign_id")), sizeof cid);
        lg_db_result_destroy(&r);
        const char *pl[1] = {rows};
        rc = lg_db_exec(db,
                        "INSERT INTO lg.sut_config (labels) SELECT DISTINCT e -> 'labels'"
                        " FROM jsonb_array_elements($1::jsonb) e ON CONFLICT (labels) DO NOTHING",
                        1, pl, NULL, err, errlen);
    }
    if (rc == 0) {
        const char *pf[2] = {cid, rows};
        rc = lg_db_exec(db,
                        "INSERT INTO lg.imported_figure (campaign_id, line, sut_config_id,"
                        " profile, direction, protocol, threads, qd, metric, value, raw_value,"
                        " raw_unit)"
                        " SELECT $1::bigint, (e ->> 'line')::integer, s.sut_config_id,"
                        " e ->> 'profile', e ->> 'direction', e ->> 'protocol',"
                        " (e ->> 'threads')::integer, (e ->> 'qd')::integer, e ->> 'metric',"
                        " (e ->> 'value')::float8, e ->> 'raw_value', e ->> 'raw_unit'"
                        " FROM jsonb_array_elements($2::jsonb) e"
                        " JOIN lg.sut_config s ON s.labels = e -> 'labels'",
                        2, pf, NULL, err, errlen);
    }
    if (rc == 0)
        rc = lg_db_exec(db, "SELECT lg.refresh_views()", 0, NULL, NULL, err, errlen);
    rc = lg_db_end(db, rc, err, errlen);
    if (rc == 0)
        *campaign_id = strtoull(cid, NULL, 10);
    free(rows);
    free(text);
    return rc;
}

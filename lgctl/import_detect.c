/* import_detect.c: what a results file is, told from its content (import_detect.h). One table of
 * formats: a new importer is one row (its sniffer, check and store), and a format lg recognises
 * but cannot import yet is refused by name, never mistaken for a broken fio report. */
#include "import_detect.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "import_app.h"
#include "import_diskspd.h"
#include "import_results.h"
#include "lg_error.h"
#include "lg_util.h"

#define MAX_FILE (512u << 20)
#define SNIFF_HEAD 65536 /* text formats say what they are near their start */

/* Whether needle occurs in text[0..len) (case-insensitive when nocase). */
static int s_has(const char *text, size_t len, const char *needle, int nocase)
{
    size_t n = strlen(needle);
    if (!nocase) /* the common case, over whole files: glibc's two-way search */
        return memmem(text, len, needle, n) != NULL;
    for (size_t i = 0; n <= len && i <= len - n; i++) {
        size_t k = 0;
        while (k < n &&
               (nocase ? tolower((unsigned char)text[i + k]) == tolower((unsigned char)needle[k])
                       : text[i + k] == needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

/* The first non-blank byte of text, or 0. */
static char s_first(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)text[i]))
            return text[i];
    return 0;
}

/* fio's JSON, of any version, maybe after text (warnings, client mode's lines, the normal
 * report of --output-format=normal,json): every version prints "fio version" first. */
static int s_sniff_fio_json(const char *text, size_t len)
{
    int object = s_first(text, len) == '{' || s_has(text, len, "\n{\n", 0);
    return s_has(text, len, "\"fio version\"", 0) ||
           (object && (s_has(text, len, "\"jobs\"", 0) || s_has(text, len, "\"client_stats\"", 0)));
}

/* lg's results CSV: its header names profile, direction, metric, value and unit. */
static int s_sniff_lg_csv(const char *text, size_t len)
{
    const char *nl = memchr(text, '\n', len);
    size_t n = nl ? (size_t)(nl - text) : len;
    static const char *const need[] = {"profile", "direction", "metric", "value", "unit"};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        if (!s_has(text, n, need[i], 0))
            return 0;
    return memchr(text, ',', n) != NULL;
}

/* The first bytes, where a format's header lines are. */
static size_t s_head(size_t len)
{
    return len < SNIFF_HEAD ? len : SNIFF_HEAD;
}

/* What DiskSpd, sysbench and pgbench output looks like at a glance: with the importers' own
 * sniffers below, a file either recognises is named as that format, and one that their parsers
 * then cannot read is refused saying why. */
/* DiskSpd's -Rxml: a <Results> document with its <System> and <Profile> or <TimeSpan>s. */
static int s_looks_diskspd_xml(const char *text, size_t len)
{
    size_t h = s_head(len);
    return s_first(text, len) == '<' && s_has(text, h, "<Results>", 0) &&
           (s_has(text, len, "<Profile>", 0) || s_has(text, len, "<TimeSpan>", 0));
}

/* DiskSpd's text report: "Command Line: diskspd ...", "Input parameters:", "Total IO". */
static int s_looks_diskspd_text(const char *text, size_t len)
{
    size_t h = s_head(len);
    return (s_has(text, h, "command line: diskspd", 1) || s_has(text, h, "input parameters:", 0)) &&
           s_has(text, len, "Total IO", 0);
}

/* sysbench: "sysbench 1.0.20 (using ...)", its "General statistics:". */
static int s_looks_sysbench(const char *text, size_t len)
{
    size_t h = s_head(len);
    return s_has(text, h, "sysbench ", 0) &&
           (s_has(text, len, "General statistics:", 0) ||
            s_has(text, len, "Running the test with following options:", 0));
}

/* pgbench: "transaction type: <builtin: TPC-B (sort of)>", "number of clients: 8". */
static int s_looks_pgbench(const char *text, size_t len)
{
    size_t h = s_head(len);
    return s_has(text, h, "transaction type:", 0) && s_has(text, h, "number of clients:", 0);
}

/* DiskSpd (-Rxml or text, UTF-8 or UTF-16) and sysbench / pgbench: as their importers tell them
 * (import_diskspd.c, import_app.c), so that what is recognised is what they take. */
static int s_is(int yes, const char *got, const char *want)
{
    return yes && got && !strcmp(got, want);
}

static int s_sniff_diskspd_xml(const char *text, size_t len)
{
    const char *f = NULL;
    return s_looks_diskspd_xml(text, len) ||
           s_is(lg_import_diskspd_sniff(text, len, &f), f, "diskspd-xml");
}

static int s_sniff_diskspd_text(const char *text, size_t len)
{
    const char *f = NULL;
    return s_looks_diskspd_text(text, len) ||
           s_is(lg_import_diskspd_sniff(text, len, &f), f, "diskspd-text");
}

static int s_sniff_sysbench(const char *text, size_t len)
{
    const char *f = NULL;
    return s_looks_sysbench(text, len) || s_is(lg_import_app_sniff(text, len, &f), f, "sysbench");
}

static int s_sniff_pgbench(const char *text, size_t len)
{
    const char *f = NULL;
    return s_looks_pgbench(text, len) || s_is(lg_import_app_sniff(text, len, &f), f, "pgbench");
}

static int s_check_diskspd(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    (void)path;
    char *u = NULL;
    size_t ulen = 0;
    int rc = lg_diskspd_to_utf8(text, len, &u, &ulen, err, errlen);
    lg_diskspd_t *ds = rc ? NULL : calloc(1, sizeof *ds);
    if (rc == 0 && !ds)
        rc = -ENOMEM;
    if (rc == 0)
        rc = lg_diskspd_parse(u, ulen, ds, err, errlen);
    if (ds)
        lg_diskspd_clear(ds);
    free(ds);
    free(u);
    return rc;
}

static int s_store_diskspd(PGconn *db, const char *const *files, size_t n, const char *labels,
                           const char *name, uint64_t *cid, size_t *count, char *err, size_t errlen)
{
    *count = n;
    return lg_import_diskspd(db, files, n, labels, name, cid, err, errlen);
}

static int s_check_app(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    (void)path;
    lg_app_total_t a;
    return lg_import_app_parse(text, len, &a, err, errlen);
}

static int s_store_app(PGconn *db, const char *const *files, size_t n, const char *labels,
                       const char *name, uint64_t *cid, size_t *count, char *err, size_t errlen)
{
    *count = n;
    return lg_import_app(db, files, n, labels, name, cid, err, errlen);
}

/* fio's normal (text) report: "job: (groupid=0, jobs=1): err= 0: pid=...". */
static int s_sniff_fio_text(const char *text, size_t len)
{
    return s_has(text, len, "(groupid=", 0) && s_has(text, len, "err=", 0);
}

static int s_check_fio(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    (void)text;
    (void)len;
    return lg_import_fio_check(path, err, errlen);
}

static int s_store_fio(PGconn *db, const char *const *files, size_t n, const char *labels,
                       const char *name, uint64_t *cid, size_t *count, char *err, size_t errlen)
{
    *count = n;
    return lg_import_fio_json(db, files, n, labels, name, cid, err, errlen);
}

static int s_check_csv(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    char *rows = NULL;
    size_t n = 0;
    int rc = lg_results_csv_parse(path, text, len, &rows, &n, err, errlen);
    free(rows);
    return rc;
}

/* lg's CSV: one campaign a file (its rows carry their own labels). */
static int s_store_csv(PGconn *db, const char *const *files, size_t n, const char *labels,
                       const char *name, uint64_t *cid, size_t *count, char *err, size_t errlen)
{
    (void)labels;
    if (n != 1) {
        snprintf(err, errlen, "one results CSV at a time");
        return -EINVAL;
    }
    return lg_import_results_csv(db, files[0], name, cid, count, err, errlen);
}

static const lg_import_format_t s_formats[] = {
    {"fio JSON", s_sniff_fio_json, s_check_fio, s_store_fio, "file", NULL},
    {"lg's results CSV", s_sniff_lg_csv, s_check_csv, s_store_csv, "figure", NULL},
    {"DiskSpd XML output", s_sniff_diskspd_xml, s_check_diskspd, s_store_diskspd, "file", NULL},
    {"DiskSpd text output", s_sniff_diskspd_text, s_check_diskspd, s_store_diskspd, "file", NULL},
    {"sysbench output", s_sniff_sysbench, s_check_app, s_store_app, "file", NULL},
    {"pgbench output", s_sniff_pgbench, s_check_app, s_store_app, "file", NULL},
    {"fio's text report", s_sniff_fio_text, NULL, NULL, NULL,
     "lg reads fio's JSON, whose figures are exact (the text report rounds them): run fio with "
     "--output-format=json or json+"},
};

const lg_import_format_t *lg_import_formats(size_t *n)
{
    *n = sizeof s_formats / sizeof *s_formats;
    return s_formats;
}

static size_t s_bom(const char *text, size_t len)
{
    return len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

const lg_import_format_t *lg_import_detect(const char *text, size_t len)
{
    size_t b = s_bom(text, len);
    for (size_t i = 0; i < sizeof s_formats / sizeof *s_formats; i++)
        if (s_formats[i].sniff(text + b, len - b))
            return &s_formats[i];
    return NULL;
}

/* "fio JSON, lg's results CSV, ... or fio's text report" */
static void s_format_list(char *buf, size_t len)
{
    size_t o = 0, n = sizeof s_formats / sizeof *s_formats;
    buf[0] = 0;
    for (size_t i = 0; i < n && o < len; i++) {
        int w = snprintf(buf + o, len - o, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? " or "
                                      : ", ",
                         s_formats[i].name);
        o += w > 0 ? (size_t)w : 0;
    }
}

int lg_import_probe(const char *path, const lg_import_format_t **fmt, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    int rc = lg_read_file(path, MAX_FILE, &text, &len);
    *fmt = NULL;
    if (rc) {
        snprintf(err, errlen, "could not read \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    const lg_import_format_t *f = lg_import_detect(text, len);
    size_t b = s_bom(text, len);
    if (!f) {
        char list[512];
        s_format_list(list, sizeof list);
        if (len >= 2 && ((unsigned char)text[0] == 0xFF || (unsigned char)text[0] == 0xFE) &&
            ((unsigned char)text[1] == 0xFE || (unsigned char)text[1] == 0xFF))
            snprintf(err, errlen,
                     "\"%s\" is UTF-16 text (as PowerShell's > writes); lg reads UTF-8: convert "
                     "it first, e.g. iconv -f UTF-16 -t UTF-8",
                     path);
        else if (s_first(text + b, len - b) == 0)
            snprintf(err, errlen, "\"%s\" is empty", path);
        else
            snprintf(err, errlen, "could not tell what \"%s\" is: it is not %s", path, list);
        rc = LG_EPARSE;
    } else if (!f->store) {
        snprintf(err, errlen, "\"%s\": recognised as %s; %s", path, f->name, f->refusal);
        rc = LG_EPARSE;
    } else if (f->check) {
        rc = f->check(path, text + b, len - b, err, errlen);
        if (rc && !strstr(err, "recognised as")) {
            char msg[2048];
            snprintf(msg, sizeof msg, "\"%s\": recognised as %s; %s", path, f->name, err);
            lg_strlcpy(err, msg, errlen);
        }
    }
    if (rc == 0)
        *fmt = f;
    free(text);
    return rc;
}

/* import_read.c: the final reports of a fio output file (import_int.h). A plain json or json+
 * output is one report; a --status-interval stream is one process's cumulative reports, of which
 * the last is final; outputs of several runs appended to one file ("fio ... >> all.json") are
 * several final reports, told apart by what cannot happen inside one process's stream. */
#include "import_int.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_util.h"

#define MAX_FILE (512u << 20)
#define MAX_REPORTS 4096
#define MAX_JOBS 256

/* What tells one fio process's reports from another's. */
typedef struct {
    int ok; /* the object parsed as JSON with a jobs list */
    char version[64];
    size_t njobs;
    char *names;           /* the job names, '\n'-joined (malloc) */
    int64_t elapsed;       /* jobs[0].elapsed: seconds since fio started, rounded up */
    int64_t start_ms;      /* timestamp - elapsed: when that fio started; -1 unknown */
    uint64_t io[MAX_JOBS]; /* each job's total_ios over its directions: cumulative */
} s_sig_t;

typedef struct {
    fio_finals_t *out;
    char *prev; /* the object before, not yet known to be final */
    size_t prev_len;
    s_sig_t prev_sig;
    int failed; /* out of memory or too many reports */
} s_reader_t;

static int64_t s_int(json_t *o, const char *key, int64_t dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

static void s_sig(const char *text, size_t len, s_sig_t *s)
{
    memset(s, 0, sizeof *s);
    s->start_ms = -1;
    json_t *root = json_loadb(text, len, 0, NULL);
    json_t *jobs = json_object_get(root, "jobs");
    if (!json_is_array(jobs))
        jobs = json_object_get(root, "client_stats");
    if (!json_is_array(jobs)) {
        json_decref(root);
        return;
    }
    s->ok = 1;
    json_t *v = json_object_get(root, "fio version");
    lg_strlcpy(s->version, json_is_string(v) ? json_string_value(v) : "", sizeof s->version);
    s->njobs = json_array_size(jobs);
    size_t cap = 1, o = 0;
    for (size_t j = 0; j < s->njobs; j++) {
        json_t *n = json_object_get(json_array_get(jobs, j), "jobname");
        cap += (json_is_string(n) ? strlen(json_string_value(n)) : 0) + 1;
    }
    s->names = malloc(cap);
    for (size_t j = 0; s->names && j < s->njobs; j++) {
        json_t *job = json_array_get(jobs, j), *n = json_object_get(job, "jobname");
        o += (size_t)snprintf(s->names + o, cap - o, "%s\n",
                              json_is_string(n) ? json_string_value(n) : "");
        if (j < MAX_JOBS)
            for (const char *const *d = (const char *const[]){"read", "write", "trim", NULL}; *d;
                 d++)
                s->io[j] += (uint64_t)s_int(json_object_get(job, *d), "total_ios", 0);
    }
    s->elapsed = s_int(json_array_get(jobs, 0), "elapsed", -1);
    int64_t ts = s_int(root, "timestamp_ms", -1);
    if (ts < 0 && s_int(root, "timestamp", -1) >= 0)
        ts = s_int(root, "timestamp", 0) * 1000;
    if (ts >= 0 && s->elapsed >= 0)
        s->start_ms = ts - s->elapsed * 1000;
    json_decref(root);
}

/* Whether b, the object after a, is another fio's report: within one process the version and
 * the jobs stay, elapsed time and every job's I/O count only grow, and the start time
 * (timestamp - elapsed, elapsed rounded up to a second) moves by less than 2.5 s. */
static int s_new_run(const s_sig_t *a, const s_sig_t *b)
{
    if (!a->ok || !b->ok)
        return 0;
    if (strcmp(a->version, b->version) != 0 || a->njobs != b->njobs ||
        (a->names && b->names && strcmp(a->names, b->names) != 0))
        return 1;
    if (a->elapsed >= 0 && b->elapsed >= 0 && b->elapsed < a->elapsed)
        return 1;
    for (size_t j = 0; j < a->njobs && j < MAX_JOBS; j++)
        if (b->io[j] < a->io[j])
            return 1;
    return a->start_ms >= 0 && b->start_ms >= 0 && llabs(b->start_ms - a->start_ms) > 2500;
}

static void s_push(s_reader_t *r, char *text, size_t len)
{
    fio_finals_t *f = r->out;
    if (f->n == MAX_REPORTS) {
        r->failed = 1;
        free(text);
        return;
    }
    fio_final_t *v = realloc(f->v, (f->n + 1) * sizeof *v);
    if (!v) {
        r->failed = 1;
        free(text);
        return;
    }
    f->v = v;
    f->v[f->n].text = text;
    f->v[f->n].len = len;
    f->v[f->n++].rep = NULL;
}

static void s_on_obj(void *arg, const char *text, size_t len)
{
    s_reader_t *r = arg;
    char *t = malloc(len + 1);
    if (!t) {
        r->failed = 1;
        return;
    }
    memcpy(t, text, len + 1);
    s_sig_t sig;
    s_sig(t, len, &sig);
    if (r->prev && s_new_run(&r->prev_sig, &sig)) {
        s_push(r, r->prev, r->prev_len);
        r->prev = NULL;
    }
    free(r->prev);
    free(r->prev_sig.names);
    r->prev = t;
    r->prev_len = len;
    r->prev_sig = sig;
}

/* The "fio version" a report's text names ("fio-3.28"), valid JSON or not: 1 when found. */
static int s_version_in_text(const char *text, char *out, size_t len)
{
    const char *p = strstr(text, "\"fio version\"");
    if (!p)
        return 0;
    p += strlen("\"fio version\"");
    p += strspn(p, " \t:");
    if (*p != '"' || strncmp(p + 1, "fio-", 4) != 0)
        return 0;
    size_t n = strcspn(p + 1, "\"\n");
    if (n == 0 || n >= len || p[1 + n] != '"')
        return 0;
    for (size_t i = 0; i < n; i++) /* fio's own: "fio-3.28-12-gabc", nothing to escape */
        if (!isalnum((unsigned char)p[1 + i]) && !strchr("-._+", p[1 + i]))
            return 0;
    memcpy(out, p + 1, n);
    out[n] = 0;
    return 1;
}

/* Each final report parsed; on the first that does not, err says which and why. */
static int s_parse_all(const char *path, fio_finals_t *f, char *err, size_t errlen)
{
    for (size_t i = 0; i < f->n; i++) {
        char why[512], which[64] = "";
        if (lg_fio_report_parse(f->v[i].text, f->v[i].len, &f->v[i].rep, why, sizeof why) == 0)
            continue;
        if (f->n > 1)
            snprintf(which, sizeof which, " (its report %zu of %zu)", i + 1, f->n);
        /* A report that says which fio made it is fio's, and the message names that version
         * (read from the text when the JSON is cut off). */
        char ver[48];
        if (s_version_in_text(f->v[i].text, ver, sizeof ver))
            snprintf(err, errlen,
                     "\"%s\"%s: recognised as fio JSON output of %s, which lg cannot read: %s",
                     path, which, ver, why);
        else
            snprintf(err, errlen, "\"%s\"%s is not a complete fio JSON report: %s", path, which,
                     why);
        return LG_EPARSE;
    }
    return 0;
}

int lg__import_read_text(const char *path, const char *buf, size_t len, fio_finals_t *out,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    /* A byte-order mark (an editor's or Windows tool's save) is not text of the report. */
    size_t bom = len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
    s_reader_t r = {out, NULL, 0, {0}, 0};
    lg_fio_splitter_t *sp = lg_fio_splitter_new(MAX_FILE, s_on_obj, NULL, &r);
    if (sp) {
        lg_fio_splitter_feed(sp, buf + bom, len - bom);
        lg_fio_splitter_feed(sp, "\n", 1);
        lg_fio_splitter_destroy(&sp);
    }
    if (r.prev)
        s_push(&r, r.prev, r.prev_len);
    free(r.prev_sig.names);
    if (!r.failed && out->n == 0) { /* not pretty-printed the way fio does: the whole text */
        char *t = malloc(len - bom + 1);
        if (t) {
            memcpy(t, buf + bom, len - bom);
            t[len - bom] = 0;
            s_push(&r, t, len - bom);
        } else {
            r.failed = 1;
        }
    }
    if (r.failed) {
        lg__import_finals_clear(out);
        snprintf(err, errlen, "\"%s\": out of memory, or more than %d fio reports", path,
                 MAX_REPORTS);
        return -ENOMEM;
    }
    int rc = s_parse_all(path, out, err, errlen);
    if (rc)
        lg__import_finals_clear(out);
    return rc;
}

int lg__import_read(const char *path, fio_finals_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *buf = NULL;
    size_t len = 0;
    int rc = lg_read_file(path, MAX_FILE, &buf, &len);
    if (rc) {
        snprintf(err, errlen, "could not read \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    rc = lg__import_read_text(path, buf, len, out, err, errlen);
    free(buf);
    return rc;
}

void lg__import_finals_clear(fio_finals_t *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].text);
        lg_fio_report_destroy(&f->v[i].rep);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}

int lg_import_fio_check(const char *path, char *err, size_t errlen)
{
    fio_finals_t f;
    int rc = lg__import_read(path, &f, err, errlen);
    lg__import_finals_clear(&f);
    return rc;
}

/* cmd_import.c: lgctl import FILE... (each file's format told from its content, import_detect.c),
 * import fio-json and import results: others' figures stored as campaigns (import.c,
 * import_results.c), the schema migrated first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "import.h"
#include "import_app.h"
#include "import_detect.h"
#include "import_diskspd.h"
#include "import_results.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "migrate.h"
#include "report.h"

typedef int (*import_fn_t)(PGconn *db, const char *const *files, size_t n, const char *labels,
                           const char *name, uint64_t *campaign_id, char *err, size_t errlen);

typedef struct {
    const char *const *files;
    size_t n;
    const char *labels, *name;
    import_fn_t fn;
} import_args_t;

static int s_import_fn(PGconn *db, void *arg)
{
    import_args_t *a = arg;
    char err[2048];
    int applied;
    uint64_t cid = 0;
    int r = lg_db_migrate(db, &applied, NULL, err, sizeof err);
    if (r == 0)
        r = a->fn(db, a->files, a->n, a->labels, a->name, &cid, err, sizeof err);
    if (r) {
        lg_error("import failed, nothing stored: %s", err);
        return r == LG_EPARSE && strstr(err, "--labels") ? LGCTL_USAGE : LGCTL_FAIL;
    }
    printf("imported %zu file%s as campaign %llu\n", a->n, a->n == 1 ? "" : "s",
           (unsigned long long)cid);
    if (lg_report_print(db, cid, NULL, LG_FMT_TABLE, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_import(const lgctl_opts_t *o, const char *const *files, size_t n, const char *labels,
                    const char *name, import_fn_t fn)
{
    if (name && (strlen(name) == 0 || strlen(name) > 63)) {
        lg_error("--name must have 1 to 63 characters");
        return LGCTL_USAGE;
    }
    import_args_t a = {files, n, labels, name, fn};
    return lg__cli_with_db(o, s_import_fn, &a);
}

/* A file given to import fio-json that is of another format lg knows is refused by its name. */
static int s_not_fio(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    if (lg_read_file(path, 512u << 20, &text, &len) != 0)
        return 0; /* the import says why it cannot be read */
    const lg_import_format_t *f = lg_import_detect(text, len);
    free(text);
    if (!f || !strcmp(f->name, "fio JSON"))
        return 0;
    lg_error("import failed, nothing stored: \"%s\": recognised as %s, not fio JSON%s", path,
             f->name, f->store ? " (lgctl import FILE... takes it)" : "");
    return 1;
}

int lg__cli_import_fio(void *ctx)
{
    cli_t *c = ctx;
    for (int i = 0; i < c->npos; i++)
        if (s_not_fio(c->pos[i]))
            return LGCTL_FAIL;
    return s_import(&c->o, c->pos, (size_t)c->npos, c->labels, c->name, lg_import_fio_json);
}

int lg__cli_import_diskspd(void *ctx)
{
    cli_t *c = ctx;
    return s_import(&c->o, c->pos, (size_t)c->npos, c->labels, c->name, lg_import_diskspd);
}

int lg__cli_import_app(void *ctx)
{
    cli_t *c = ctx;
    return s_import(&c->o, c->pos, (size_t)c->npos, c->labels, c->name, lg_import_app);
}

typedef struct {
    const char *path, *name;
} import_results_args_t;

static int s_import_results_fn(PGconn *db, void *arg)
{
    import_results_args_t *a = arg;
    char err[16384];
    int applied;
    uint64_t cid = 0;
    size_t n = 0;
    int r = lg_db_migrate(db, &applied, NULL, err, sizeof err);
    if (r == 0)
        r = lg_import_results_csv(db, a->path, a->name, &cid, &n, err, sizeof err);
    if (r) {
        lg_error("import failed, nothing stored: %s", err);
        return r == LG_EPARSE ? LGCTL_USAGE : LGCTL_FAIL;
    }
    printf("imported %zu figure%s from \"%s\" as campaign %llu\n", n, n == 1 ? "" : "s", a->path,
           (unsigned long long)cid);
    return LGCTL_OK;
}

int lg__cli_import_results(void *ctx)
{
    cli_t *c = ctx;
    const char *name = c->name;
    if (name && (strlen(name) == 0 || strlen(name) > 63)) {
        lg_error("--name must have 1 to 63 characters");
        return LGCTL_USAGE;
    }
    import_results_args_t ia = {c->pos[0], name};
    return lg__cli_with_db(&c->o, s_import_results_fn, &ia);
}

/* lgctl import FILE...: every file's format told and the file checked before anything is stored,
 * so that a refused file (each one named, with what it was recognised as and why) leaves the
 * database as it was; then one campaign per format (per file for lg's CSV). */
typedef struct {
    const char *const *files;
    size_t n;
    const lg_import_format_t **fmt; /* fmt[i]: files[i]'s */
    const char *labels, *name;
} import_any_t;

/* The files of format f, in the order given, into list; returns how many. */
static size_t s_files_of(const import_any_t *a, const lg_import_format_t *f, const char **list)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->fmt[i] == f)
            list[k++] = a->files[i];
    return k;
}

static int s_store_one(PGconn *db, const import_any_t *a, const lg_import_format_t *f,
                       const char *const *list, size_t k)
{
    char err[16384];
    uint64_t cid = 0;
    size_t count = 0;
    int r = f->store(db, list, k, a->labels, a->name, &cid, &count, err, sizeof err);
    if (r) {
        lg_error("import of %s failed, nothing of it stored: %s", f->name, err);
        return LGCTL_FAIL;
    }
    printf("imported %zu %s%s (%s) as campaign %llu\n", count, f->count_what, count == 1 ? "" : "s",
           f->name, (unsigned long long)cid);
    if (strcmp(f->count_what, "file") != 0) /* figures: no runs to report */
        return LGCTL_OK;
    if (lg_report_print(db, cid, NULL, LG_FMT_TABLE, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_import_any_fn(PGconn *db, void *arg)
{
    import_any_t *a = arg;
    char err[2048];
    int applied;
    if (lg_db_migrate(db, &applied, NULL, err, sizeof err) != 0) {
        lg_error("import failed, nothing stored: %s", err);
        return LGCTL_FAIL;
    }
    size_t nf;
    const lg_import_format_t *formats = lg_import_formats(&nf);
    const char **list = calloc(a->n, sizeof *list);
    if (!list)
        return LGCTL_FAIL;
    int rc = LGCTL_OK;
    for (size_t i = 0; i < nf && rc == LGCTL_OK; i++) {
        const lg_import_format_t *f = &formats[i];
        size_t k = s_files_of(a, f, list);
        if (k == 0)
            continue;
        if (a->labels && strcmp(f->count_what, "file") != 0)
            lg_warn("--labels is for fio files: the labels of %s are in its own columns", f->name);
        if (strcmp(f->count_what, "file") == 0)
            rc = s_store_one(db, a, f, list, k);
        else /* one campaign a file */
            for (size_t j = 0; j < k && rc == LGCTL_OK; j++)
                rc = s_store_one(db, a, f, list + j, 1);
    }
    free(list);
    return rc;
}

int lg__cli_import(void *ctx)
{
    cli_t *c = ctx;
    const char *name = c->name;
    if (name && (strlen(name) == 0 || strlen(name) > 63)) {
        lg_error("--name must have 1 to 63 characters");
        return LGCTL_USAGE;
    }
    size_t n = (size_t)c->npos, refused = 0;
    const lg_import_format_t **fmt = calloc(n, sizeof *fmt);
    if (!fmt)
        return LGCTL_FAIL;
    for (size_t i = 0; i < n; i++) {
        char err[4096];
        if (lg_import_probe(c->pos[i], &fmt[i], err, sizeof err) != 0) {
            lg_error("%s", err);
            refused++;
        }
    }
    int rc = LGCTL_FAIL;
    if (refused) {
        lg_error("import refused, nothing stored: %zu of %zu file%s cannot be imported", refused, n,
                 n == 1 ? "" : "s");
    } else {
        import_any_t a = {c->pos, n, fmt, c->labels, name};
        rc = lg__cli_with_db(&c->o, s_import_any_fn, &a);
    }
    free(fmt);
    return rc;
}

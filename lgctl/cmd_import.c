/* cmd_import.c: lgctl import fio-json and import results: others' figures stored as a campaign
 * (import.c, import_results.c), the schema migrated first. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "import.h"
#include "import_app.h"
#include "import_diskspd.h"
#include "import_results.h"
#include "lg_error.h"
#include "lg_log.h"
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

int lg__cli_import_fio(cli_t *c)
{
    return s_import(&c->o, c->pos, (size_t)c->npos, c->val[OPT_LABELS], c->val[OPT_NAME],
                    lg_import_fio_json);
}

int lg__cli_import_diskspd(cli_t *c)
{
    return s_import(&c->o, c->pos, (size_t)c->npos, c->val[OPT_LABELS], c->val[OPT_NAME],
                    lg_import_diskspd);
}

int lg__cli_import_app(cli_t *c)
{
    return s_import(&c->o, c->pos, (size_t)c->npos, c->val[OPT_LABELS], c->val[OPT_NAME],
                    lg_import_app);
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

int lg__cli_import_results(cli_t *c)
{
    const char *name = c->val[OPT_NAME];
    if (name && (strlen(name) == 0 || strlen(name) > 63)) {
        lg_error("--name must have 1 to 63 characters");
        return LGCTL_USAGE;
    }
    import_results_args_t ia = {c->pos[0], name};
    return lg__cli_with_db(&c->o, s_import_results_fn, &ia);
}

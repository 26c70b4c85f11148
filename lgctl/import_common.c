/* import_common.c: the campaign, labels and agents of an import (import_common.h). */
#include "import_common.h"

#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_util.h"

int lg__import_read_file(const char *path, size_t max, char **buf, size_t *len, char *err,
                         size_t errlen)
{
    int rc = lg_read_file(path, max, buf, len);
    if (rc)
        snprintf(err, errlen, "could not read \"%s\": %s", path, lg_strerror(rc));
    return rc;
}

int lg__import_labels_json(const char *labels, char **out, char *err, size_t errlen)
{
    json_t *o = json_object();
    char buf[4096];
    lg_strlcpy(buf, labels ? labels : "", sizeof buf);
    for (char *item = buf, *next; item && *item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) {
            snprintf(err, errlen, "--labels: \"%s\" is not KEY=VALUE", item);
            json_decref(o);
            return LG_EPARSE;
        }
        *eq = 0;
        json_object_set_new(o, item, json_string(eq + 1));
    }
    *out = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return *out ? 0 : -ENOMEM;
}

void lg__import_profile(const char *path, char *out, size_t outlen)
{
    char tmp[1100];
    lg_strlcpy(tmp, path, sizeof tmp);
    lg_strlcpy(out, basename(tmp), outlen);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = 0;
}

int lg__import_begin(PGconn *db, const char *tool, const char *const *files, size_t n,
                     const char *labels, const char *name, char *cid, char *sut, char *err,
                     size_t errlen)
{
    char *lj = NULL;
    int rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = lg__import_labels_json(labels, &lj, err, errlen);
    if (rc)
        return rc;
    char cname[64];
    if (name) {
        lg_strlcpy(cname, name, sizeof cname);
    } else {
        char prof[64];
        lg__import_profile(files[0], prof, sizeof prof);
        snprintf(cname, sizeof cname, "import-%s", prof);
    }
    /* The "spec" of an import: what was imported, for the record. */
    char spec[4096];
    size_t o =
        (size_t)snprintf(spec, sizeof spec, "# lgctl import %s\nlabels: %s\nfiles:\n", tool, lj);
    for (size_t i = 0; i < n && o < sizeof spec; i++)
        o += (size_t)snprintf(spec + o, sizeof spec - o, "  - %s\n", files[i]);
    PGresult *r = NULL;
    const char *pl[1] = {lj};
    rc = lg_db_exec(db,
                    "INSERT INTO lg.sut_config (labels) VALUES ($1::jsonb) ON CONFLICT"
                    " (labels) DO UPDATE SET labels = EXCLUDED.labels RETURNING sut_config_id",
                    1, pl, &r, err, errlen);
    if (rc == 0) {
        lg_strlcpy(sut, lg_db_get(r, 0, lg_db_col(r, "sut_config_id")), 24);
        lg_db_result_destroy(&r);
        const char *pc[3] = {cname, files[0], spec};
        rc = lg_db_exec(db,
                        "INSERT INTO lg.campaign (name, spec_path, spec, state, started_at,"
                        " finished_at, between_configs) VALUES ($1, $2, $3, 'done', now(), now(),"
                        " 'none') RETURNING campaign_id",
                        3, pc, &r, err, errlen);
    }
    if (rc == 0) {
        lg_strlcpy(cid, lg_db_get(r, 0, lg_db_col(r, "campaign_id")), 24);
        lg_db_result_destroy(&r);
    }
    free(lj);
    return rc;
}

uint64_t lg__import_agent(PGconn *db, const char *name, const char *facts, char *err, size_t errlen)
{
    const char *p[2] = {name, facts ? facts : "{}"};
    PGresult *r = NULL;
    if (lg_db_exec(db,
                   "INSERT INTO lg.agent (name, facts) VALUES ($1, $2::jsonb) ON CONFLICT (name)"
                   " DO UPDATE SET last_seen = now(), facts = lg.agent.facts || EXCLUDED.facts"
                   " RETURNING agent_id",
                   2, p, &r, err, errlen))
        return 0;
    uint64_t id = strtoull(lg_db_get(r, 0, lg_db_col(r, "agent_id")), NULL, 10);
    lg_db_result_destroy(&r);
    return id;
}

/* archive.c: old reviews out of the database into a file and back. The file is text:
 *
 *   lg-archive 1
 *   before DATE
 *   campaigns ID,ID,...
 *   table NAME COLUMN,COLUMN,...     then the table's rows as COPY's text format, then "\."
 *   ...
 *   end N                            (N tables: a file cut short is refused)
 *
 * The tables come in the order a restore inserts them: first the rows the campaigns' rows point
 * to (configurations, agents, telemetry series), which a restore adds only where missing, then
 * the campaigns' own. COPY's text format escapes every newline and backslash, so a line "\."
 * only ever ends a table. */
#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lg_error.h"
#include "lg_util.h"

#define ARC_MAGIC "lg-archive 1"

typedef struct {
    const char *name;
    const char *where; /* the archived rows, over temp tables arc_c (campaigns) and arc_r (runs) */
    const char *key;   /* rows other campaigns may name too (NULL: none): restored only where
                        * no row has this id */
} arc_table_t;

#define IN_C "campaign_id IN (SELECT campaign_id FROM arc_c)"
#define IN_R "run_id IN (SELECT run_id FROM arc_r)"

static const arc_table_t s_tables[] = {
    {"sut_config",
     "sut_config_id IN (SELECT sut_config_id FROM lg.run WHERE " IN_R
     " UNION SELECT sut_config_id FROM lg.search WHERE " IN_C
     " UNION SELECT sut_config_id FROM lg.imported_figure WHERE " IN_C ")",
     "sut_config_id"},
    {"agent",
     "agent_id IN (SELECT agent_id FROM lg.run_agent WHERE " IN_R
     " UNION SELECT agent_id FROM lg.result WHERE " IN_R
     " UNION SELECT agent_id FROM lg.app_result WHERE " IN_R
     " UNION SELECT agent_id FROM lg.app_sample WHERE " IN_R ")",
     "agent_id"},
    {"sut_series", "series_id IN (SELECT unnest(series) FROM lg.sut_scrape WHERE " IN_R ")",
     "series_id"},
    {"campaign", IN_C, NULL},
    {"search", IN_C, NULL},
    {"run", IN_C, NULL},
    {"run_agent", IN_R, NULL},
    {"result", IN_R, NULL},
    {"sample", IN_R, NULL},
    {"app_result", IN_R, NULL},
    {"app_sample", IN_R, NULL},
    {"sut_scrape", IN_R, NULL},
    {"config_check", IN_C, NULL},
    {"imported_figure", IN_C, NULL},
    {"reduction", IN_C, NULL},
};
#define NTABLES (sizeof s_tables / sizeof s_tables[0])

/* A table's stored columns, comma-separated in their order (generated ones left out). */
static int s_columns(PGconn *db, const char *table, char *out, size_t len, char *err, size_t errlen)
{
    const char *p[1] = {table};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT string_agg(column_name::text, ',' ORDER BY ordinal_position) AS c"
                        " FROM information_schema.columns WHERE table_schema = 'lg'"
                        " AND table_name = $1 AND is_generated = 'NEVER'",
                        1, p, &r, err, errlen);
    int c = r ? lg_db_col(r, "c") : -1;
    if (rc == 0 && (lg_db_nrows(r) != 1 || lg_db_isnull(r, 0, c))) {
        snprintf(err, errlen, "lg.%s has no columns here (is the schema migrated?)", table);
        rc = LG_EDB;
    }
    if (rc == 0 && lg_strlcpy(out, lg_db_get(r, 0, c), len) >= len) {
        snprintf(err, errlen, "lg.%s has too many columns", table);
        rc = LG_EDB;
    }
    lg_db_result_destroy(&r);
    return rc;
}

typedef struct {
    FILE *f;
    uint64_t rows;
    char *err;
    size_t errlen;
} sink_t;

static int s_sink(void *arg, const char *buf, size_t n)
{
    sink_t *s = arg;
    if (fwrite(buf, 1, n, s->f) != n) {
        snprintf(s->err, s->errlen, "could not write the archive: %s", strerror(errno));
        return -EIO;
    }
    s->rows++;
    return 0;
}

static int s_write_table(PGconn *db, FILE *f, const arc_table_t *t, uint64_t *rows, char *err,
                         size_t errlen)
{
    char cols[4096], sql[8192];
    int rc = s_columns(db, t->name, cols, sizeof cols, err, errlen);
    if (rc)
        return rc;
    fprintf(f, "table %s %s\n", t->name, cols);
    snprintf(sql, sizeof sql, "COPY (SELECT %s FROM lg.%s WHERE %s) TO STDOUT", cols, t->name,
             t->where);
    sink_t s = {f, 0, err, errlen};
    rc = lg_db_copy_out(db, sql, s_sink, &s, err, errlen);
    if (rc == 0 && fputs("\\.\n", f) == EOF) {
        snprintf(err, errlen, "could not write the archive: %s", strerror(errno));
        rc = -EIO;
    }
    *rows = s.rows;
    return rc;
}

/* The campaigns to archive, in temp tables arc_c and arc_r; *ids their ids "1,2,3" (caller
 * frees; NULL when there are none). */
static int s_select(PGconn *db, const char *before, char **ids, lg_archive_stats_t *st, char *err,
                    size_t errlen)
{
    const char *p[1] = {before};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, "SELECT $1::timestamptz", 1, p, NULL, err, errlen);
    if (rc) {
        char why[512];
        lg_strlcpy(why, err, sizeof why);
        snprintf(err, errlen, "--before \"%s\" is not a date PostgreSQL reads: %s", before, why);
        return LG_EPARSE;
    }
    rc = lg_db_exec(db,
                    "CREATE TEMP TABLE arc_c ON COMMIT DROP AS SELECT campaign_id FROM lg.campaign"
                    " WHERE state IN ('done', 'failed', 'aborted')"
                    " AND coalesce(finished_at, created_at) < $1::timestamptz",
                    1, p, NULL, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(db,
                        "CREATE TEMP TABLE arc_r ON COMMIT DROP AS SELECT run_id FROM lg.run"
                        " WHERE campaign_id IN (SELECT campaign_id FROM arc_c);"
                        "ANALYZE arc_c; ANALYZE arc_r",
                        -1, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(
            db,
            "SELECT (SELECT count(*) FROM arc_c) AS c, (SELECT count(*) FROM arc_r) AS r,"
            " (SELECT string_agg(campaign_id::text, ',' ORDER BY campaign_id)"
            "  FROM arc_c) AS ids",
            0, NULL, &r, err, errlen);
    if (rc == 0) {
        st->campaigns = strtoull(lg_db_get(r, 0, lg_db_col(r, "c")), NULL, 10);
        st->runs = strtoull(lg_db_get(r, 0, lg_db_col(r, "r")), NULL, 10);
        *ids = st->campaigns ? strdup(lg_db_get(r, 0, lg_db_col(r, "ids"))) : NULL;
        if (st->campaigns && !*ids)
            rc = -ENOMEM;
    }
    lg_db_result_destroy(&r);
    return rc;
}

/* Write the whole archive to f. */
static int s_write(PGconn *db, FILE *f, const char *before, const char *ids, lg_archive_stats_t *st,
                   char *err, size_t errlen)
{
    fprintf(f, "%s\nbefore %s\ncampaigns %s\n", ARC_MAGIC, before, ids);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < NTABLES; i++) {
        uint64_t rows = 0;
        rc = s_write_table(db, f, &s_tables[i], &rows, err, errlen);
        if (!strcmp(s_tables[i].name, "sample"))
            st->samples = rows;
    }
    if (rc == 0)
        fprintf(f, "end %zu\n", NTABLES);
    if (rc == 0 && (fflush(f) != 0 || fsync(fileno(f)) != 0)) {
        snprintf(err, errlen, "could not write the archive: %s", strerror(errno));
        rc = -EIO;
    }
    if (rc == 0)
        st->bytes = (uint64_t)ftello(f);
    return rc;
}

/* Delete the archived campaigns (their runs and every row naming them go with them) and drop the
 * sample partitions that are left empty. */
static int s_delete(PGconn *db, lg_archive_stats_t *st, char *err, size_t errlen)
{
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "DELETE FROM lg.sample WHERE " IN_R ";"
                        "DELETE FROM lg.campaign WHERE " IN_C,
                        -1, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(db, "SELECT lg.sample_drop_empty() AS n", 0, NULL, &r, err, errlen);
    if (rc == 0)
        st->dropped = strtoull(lg_db_get(r, 0, lg_db_col(r, "n")), NULL, 10);
    lg_db_result_destroy(&r);
    return rc;
}

int lg_archive(PGconn *db, const char *before, const char *path, lg_archive_stats_t *st, char *err,
               size_t errlen)
{
    memset(st, 0, sizeof *st);
    char *ids = NULL;
    int rc = lg_db_exec(db, "BEGIN ISOLATION LEVEL REPEATABLE READ", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = s_select(db, before, &ids, st, err, errlen);
    if (rc || !ids) { /* nothing to archive: no file */
        char ignore[256];
        lg_db_end(db, LG_ESTATE, ignore, sizeof ignore);
        return rc;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "could not make \"%s\": %s%s", path, strerror(errno),
                 errno == EEXIST ? " (an archive is never overwritten)" : "");
        if (fd >= 0)
            close(fd);
        free(ids);
        return lg_db_end(db, -EIO, err, errlen);
    }
    rc = s_write(db, f, before, ids, st, err, errlen);
    free(ids);
    if (fclose(f) != 0 && rc == 0) {
        snprintf(err, errlen, "could not write \"%s\": %s", path, strerror(errno));
        rc = -EIO;
    }
    if (rc == 0)
        rc = s_delete(db, st, err, errlen);
    rc = lg_db_end(db, rc, err, errlen);
    if (rc)
        unlink(path); /* lg made it (O_EXCL): nothing was deleted, the file would mislead */
    return rc;
}

/* ---- restore ---- */

typedef struct {
    FILE *f;
    char *line;
    size_t cap;
    const char *path;
    lg_archive_stats_t *st;
    char *err;
    size_t errlen;
} rd_t;

/* The next line without its newline; NULL at the end of the file. */
static const char *s_line(rd_t *r, ssize_t *len)
{
    ssize_t n = getline(&r->line, &r->cap, r->f);
    if (n < 0)
        return NULL;
    if (n > 0 && r->line[n - 1] == '\n')
        r->line[--n] = 0;
    *len = n;
    return r->line;
}

static int s_bad(rd_t *r, const char *what)
{
    snprintf(r->err, r->errlen, "\"%s\" is not a whole lg archive: %s; nothing restored", r->path,
             what);
    return LG_EPARSE;
}

/* "table NAME COLS" of the file: NAME one of lg's own tables, after the one before it in the
 * file (*next: where the search starts, so every table comes after those it names), and COLS,
 * plain names, each a stored column of it. The file is data: nothing of it reaches SQL unchecked.
 */
static const arc_table_t *s_table_line(rd_t *r, PGconn *db, const char *line, size_t *next,
                                       char *cols, size_t colslen)
{
    char name[64];
    const char *sp = strchr(line + 6, ' ');
    if (!sp || (size_t)(sp - (line + 6)) >= sizeof name ||
        lg_strlcpy(cols, sp + 1, colslen) >= colslen) {
        s_bad(r, "a malformed table line");
        return NULL;
    }
    memcpy(name, line + 6, (size_t)(sp - (line + 6)));
    name[sp - (line + 6)] = 0;
    const arc_table_t *t = NULL;
    for (size_t i = *next; !t && i < NTABLES; i++)
        if (!strcmp(s_tables[i].name, name)) {
            t = &s_tables[i];
            *next = i + 1;
        }
    if (!t) {
        snprintf(r->err, r->errlen,
                 "\"%s\": table \"%.63s\" is not one an archive holds here, or out of its order; "
                 "nothing restored",
                 r->path, name);
        return NULL;
    }
    for (const char *c = cols; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == ',')) {
            s_bad(r, "a column name that is not a plain name");
            return NULL;
        }
    const char *p[2] = {t->name, cols};
    PGresult *res = NULL;
    int rc = lg_db_exec(db,
                        "SELECT string_agg(u.c, ', ') AS bad FROM unnest(string_to_array($2, ','))"
                        " u(c) WHERE NOT EXISTS (SELECT 1 FROM information_schema.columns k"
                        " WHERE k.table_schema = 'lg' AND k.table_name = $1"
                        " AND k.column_name = u.c AND k.is_generated = 'NEVER')",
                        2, p, &res, r->err, r->errlen);
    int bad = res ? lg_db_col(res, "bad") : -1;
    if (rc == 0 && !lg_db_isnull(res, 0, bad)) {
        snprintf(r->err, r->errlen,
                 "\"%s\": lg.%s here has no column %s (an archive of another lg's schema?); "
                 "nothing restored",
                 r->path, t->name, lg_db_get(res, 0, bad));
        rc = LG_EPARSE;
    }
    lg_db_result_destroy(&res);
    return rc ? NULL : t;
}

/* The rows of one table, up to its "\." line, into the COPY under way. */
static int s_rows(rd_t *r, PGconn *db, uint64_t *rows)
{
    size_t cap = 1u << 20, len = 0;
    char *buf = malloc(cap);
    int rc = buf ? 0 : -ENOMEM, ended = 0;
    ssize_t n;
    const char *line;
    while (rc == 0 && (line = s_line(r, &n)) != NULL) {
        if (!strcmp(line, "\\.")) {
            ended = 1;
            break;
        }
        if (len + (size_t)n + 1 > cap && len > 0) {
            rc = lg_db_copy_put(db, buf, len, r->err, r->errlen);
            len = 0;
        }
        if (rc == 0 && (size_t)n + 1 > cap) {
            char *b = realloc(buf, (size_t)n + 1);
            rc = b ? 0 : -ENOMEM;
            buf = b ? b : buf;
            cap = b ? (size_t)n + 1 : cap;
        }
        if (rc == 0) {
            memcpy(buf + len, line, (size_t)n);
            buf[len + (size_t)n] = '\n';
            len += (size_t)n + 1;
            (*rows)++;
        }
    }
    if (rc == 0 && len)
        rc = lg_db_copy_put(db, buf, len, r->err, r->errlen);
    free(buf);
    int end = lg_db_copy_finish(db, rc ? NULL : r->err, r->errlen);
    if (rc == 0 && !ended)
        return s_bad(r, "it ends inside a table");
    return rc ? rc : end;
}

/* One table of the file: straight into it, or (rows others may name too) into a temp table and
 * from there where no row has the id. */
static int s_table(rd_t *r, PGconn *db, const arc_table_t *t, const char *cols)
{
    char sql[8192];
    const char *into = t->key ? "arc_t" : t->name;
    int rc = 0;
    if (t->key) {
        snprintf(sql, sizeof sql,
                 "CREATE TEMP TABLE arc_t ON COMMIT DROP AS SELECT %s FROM lg.%s LIMIT 0", cols,
                 t->name);
        rc = lg_db_exec(db, sql, 0, NULL, NULL, r->err, r->errlen);
    }
    snprintf(sql, sizeof sql, "COPY %s%s (%s) FROM STDIN", t->key ? "" : "lg.", into, cols);
    PGresult *res = NULL;
    if (rc == 0)
        rc = lg_db_query(db, sql, 0, NULL, &res, r->err, r->errlen);
    if (rc == 0 && !lg_db_copy_started(res, r->err, r->errlen))
        rc = LG_EDB;
    lg_db_result_destroy(&res);
    uint64_t rows = 0;
    if (rc == 0)
        rc = s_rows(r, db, &rows);
    if (rc == 0 && !strcmp(t->name, "run"))
        r->st->runs = rows;
    if (rc == 0 && !strcmp(t->name, "sample"))
        r->st->samples = rows;
    if (rc == 0 && t->key) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO lg.%s (%s) SELECT %s FROM arc_t t WHERE NOT EXISTS"
                 " (SELECT 1 FROM lg.%s x WHERE x.%s = t.%s); DROP TABLE arc_t",
                 t->name, cols, cols, t->name, t->key, t->key);
        rc = lg_db_exec(db, sql, -1, NULL, NULL, r->err, r->errlen);
    }
    if (rc && !strstr(r->err, r->path)) {
        char why[1024];
        lg_strlcpy(why, r->err, sizeof why);
        snprintf(r->err, r->errlen, "\"%s\", lg.%s: %s; nothing restored", r->path, t->name, why);
    }
    return rc;
}

/* The header: the format, and the campaigns, none of which may be in the database. */
static int s_header(rd_t *r, PGconn *db)
{
    ssize_t n;
    const char *line = s_line(r, &n);
    if (!line || strcmp(line, ARC_MAGIC))
        return s_bad(r, "it does not begin \"" ARC_MAGIC "\"");
    if (!(line = s_line(r, &n)) || strncmp(line, "before ", 7))
        return s_bad(r, "no \"before\" line");
    if (!(line = s_line(r, &n)) || strncmp(line, "campaigns ", 10) ||
        strspn(line + 10, "0123456789,") != (size_t)n - 10 || n == 10)
        return s_bad(r, "no \"campaigns\" line of ids");
    const char *p[1] = {line + 10};
    PGresult *res = NULL;
    int rc = lg_db_exec(db,
                        "SELECT (SELECT string_agg(c.campaign_id || ' \"' || c.name || '\"', ', ')"
                        " FROM lg.campaign c WHERE c.campaign_id = ANY (u.ids)) AS here,"
                        " cardinality(u.ids) AS n"
                        " FROM (SELECT string_to_array($1, ',')::bigint[] AS ids) u",
                        1, p, &res, r->err, r->errlen);
    int here = res ? lg_db_col(res, "here") : -1;
    if (rc == 0 && !lg_db_isnull(res, 0, here)) {
        snprintf(r->err, r->errlen,
                 "\"%s\": campaign %s is in the database already (restored before?); nothing "
                 "restored",
                 r->path, lg_db_get(res, 0, here));
        rc = LG_ESTATE;
    }
    if (rc == 0)
        r->st->campaigns = strtoull(lg_db_get(res, 0, lg_db_col(res, "n")), NULL, 10);
    lg_db_result_destroy(&res);
    return rc;
}

/* Sequences past the ids restored (into another database), and the label columns of
 * lg.v_result and lg.v_sample for the configurations restored. */
static const char s_after_sql[] =
    "DO $$ DECLARE t text[]; s text; m bigint; l bigint; BEGIN"
    " FOREACH t SLICE 1 IN ARRAY ARRAY[['campaign', 'campaign_id'], ['run', 'run_id'],"
    "  ['search', 'search_id'], ['agent', 'agent_id'], ['sut_config', 'sut_config_id'],"
    "  ['sut_series', 'series_id']] LOOP"
    "  s := pg_get_serial_sequence('lg.' || t[1], t[2]);"
    "  EXECUTE format('SELECT max(%I) FROM lg.%I', t[2], t[1]) INTO m;"
    "  EXECUTE format('SELECT last_value FROM %s', s) INTO l;"
    "  IF m > l THEN PERFORM setval(s, m); END IF;"
    " END LOOP; END $$;"
    "SELECT lg.refresh_views()";

static int s_restore_all(rd_t *r, PGconn *db)
{
    int rc = s_header(r, db);
    size_t next = 0, tables = 0;
    ssize_t n;
    const char *line = NULL;
    while (rc == 0 && (line = s_line(r, &n)) != NULL && !strncmp(line, "table ", 6)) {
        char cols[4096];
        const arc_table_t *t = s_table_line(r, db, line, &next, cols, sizeof cols);
        rc = t ? s_table(r, db, t, cols) : LG_EPARSE;
        tables++;
    }
    if (rc)
        return rc;
    char want[32];
    snprintf(want, sizeof want, "end %zu", tables);
    if (!line || strcmp(line, want))
        return s_bad(r, "it is cut short (no \"end\" line after its last table)");
    return lg_db_exec(db, s_after_sql, -1, NULL, NULL, r->err, r->errlen);
}

int lg_restore(PGconn *db, const char *path, lg_archive_stats_t *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        snprintf(err, errlen, "could not open \"%s\": %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -EIO;
    }
    rd_t r = {f, NULL, 0, path, st, err, errlen};
    int rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = s_restore_all(&r, db);
    rc = lg_db_end(db, rc, err, errlen);
    st->bytes = (uint64_t)ftello(f);
    free(r.line);
    fclose(f);
    return rc;
}

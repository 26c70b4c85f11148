/* test_runrow.c: core/lg_runrow.c, a run and its lg.run row both ways: every column round-trips
 * (row -> INSERT text -> row), NULLs and empty values read as the scheduler always read them,
 * unknown names fall back as before; every enum name of core/lg_names.c round-trips; and every
 * column of the table is a column of lg.run as schema/'s migrations make it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lg_error.h"
#include "lg_names.h"
#include "lg_runrow.h"
#include "lg_util.h"

#ifndef LG_SOURCE_DIR
#define LG_SOURCE_DIR "."
#endif

/* A row's values by column name, as a store's row would give them. */
typedef struct {
    size_t n;
    const char *col[LG_RUNROW_MAX_COLS + 8];
    const char *val[LG_RUNROW_MAX_COLS + 8]; /* NULL: SQL NULL */
} fake_row_t;

static const char *s_get(void *arg, const char *col)
{
    const fake_row_t *r = arg;
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->col[i], col))
            return r->val[i];
    return NULL;
}

static void s_set(fake_row_t *r, const char *col, const char *val)
{
    r->col[r->n] = col;
    r->val[r->n++] = val;
}

static int s_inserted(const lg_col_t *c)
{
    return !(c->flags & (LG_COL_READONLY | LG_COL_QUERY));
}

/* A row with a value other than the zero one in every column. */
static void s_fill(lg_runrow_t *r)
{
    memset(r, 0, sizeof *r);
    r->campaign_id = 4000000001ULL;
    r->ordinal = 17;
    r->sut_config_id = 5000000002ULL;
    lg_strlcpy(r->profile, "8k-7030", sizeof r->profile);
    lg_strlcpy(r->direction, "mixed", sizeof r->direction);
    lg_strlcpy(r->rw, "randrw", sizeof r->rw);
    r->bs = 8192;
    r->read_pct = 70;
    r->threads = 16;
    r->qd = 32;
    r->ramp_s = 5;
    r->runtime_s = 60;
    r->target_kind = LG_TARGET_ISCSI;
    r->target = strdup("iscsi://nas:3260/iqn.2024-01.lg:t/0");
    r->size_bytes = 17179869184ULL;
    r->direct = true;
    r->phase = LG_PHASE_SEARCH;
    r->config_ordinal = 3;
    lg_strlcpy(r->protocol, "iscsi", sizeof r->protocol);
    r->repeat = 2;
    r->gate = true;
    r->rate_iops = 250;
    r->thinktime_us = 100;
    r->thinktime_blocks = 8;
    r->bssplit.n = 3;
    r->bssplit.v[0] = (lg_bssplit_t){4096, 50};
    r->bssplit.v[1] = (lg_bssplit_t){65536, 30};
    r->bssplit.v[2] = (lg_bssplit_t){1048576, 20};
    r->compress_ratio = 2.5;
    r->dedup_ratio = 0.1 + 0.2; /* not a short decimal: %.17g must keep every bit */
    r->dedup_unit = 4096;
    r->round_s = 30;
    r->agents = strdup("[{\"name\":\"h1\",\"threads\":4}]");
    r->share = LG_SHARE_RANGE;
    lg_strlcpy(r->target_fs, "iscsi", sizeof r->target_fs);
    r->target_mount = strdup("/mnt/nas");
    r->headline = true;
    r->search_id = 6000000003ULL;
    r->probe = 4;
    r->rate_total = 12000;
    r->curve_pct = 80;
    r->curve_base = 12;
    r->app = LG_APP_PGBENCH;
    r->app_params = (lg_runrow_app_t){.set = true,
                                      .scale = 10,
                                      .jobs = 2,
                                      .tables = 4,
                                      .table_size = 5000000000ULL,
                                      .keep = true};
    r->telemetry = strdup("[{\"name\":\"nas\",\"url\":\"http://nas:9100/metrics\"}]");
    r->reduction = strdup("{\"probe\":\"zfs\",\"params\":{\"pool\":\"tank\"}}");
    r->retries = 3;
    r->run_id = 7000000004ULL;
    r->attempt = 2;
    r->curve_base_of = true;
    r->sut = strdup("zstd raidz1");
}

/* The text a database would give back for the read-only columns of s_fill's row. */
static void s_set_readonly(fake_row_t *f)
{
    s_set(f, "run_id", "7000000004");
    s_set(f, "attempt", "2");
    s_set(f, "curve_base_of", "t");
    s_set(f, "sut", "zstd raidz1");
}

static const void *s_field(const lg_runrow_t *r, const lg_col_t *c)
{
    return (const char *)r + c->offset;
}

/* Is column c of r its zero value (what a row without it would hold)? */
static int s_is_zero(const lg_runrow_t *r, const lg_col_t *c)
{
    const unsigned char *p = s_field(r, c);
    if (c->type == LG_COL_STR)
        return p[0] == 0;
    if (c->type == LG_COL_HSTR)
        return *(char *const *)p == NULL || (*(char *const *)p)[0] == 0;
    for (size_t i = 0; i < c->size; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Column c of a and b equal, or a failure naming the column. */
static void s_assert_col_equal(const lg_runrow_t *a, const lg_runrow_t *b, const lg_col_t *c)
{
    const void *x = s_field(a, c), *y = s_field(b, c);
    int eq = 0;
    switch (c->type) {
    case LG_COL_STR:
        eq = !strcmp(x, y);
        break;
    case LG_COL_HSTR: {
        const char *s = *(char *const *)x, *t = *(char *const *)y;
        eq = s && t ? !strcmp(s, t) : s == t;
        break;
    }
    case LG_COL_BOOL:
        eq = *(const bool *)x == *(const bool *)y;
        break;
    case LG_COL_F64:
        eq = *(const double *)x == *(const double *)y;
        break;
    case LG_COL_APP: {
        const lg_runrow_app_t *p = x, *q = y;
        eq = p->set == q->set && p->scale == q->scale && p->jobs == q->jobs &&
             p->tables == q->tables && p->table_size == q->table_size && p->keep == q->keep;
        break;
    }
    case LG_COL_BSSPLIT: {
        const lg_runrow_bssplit_t *p = x, *q = y;
        eq = p->n == q->n && !memcmp(p->v, q->v, p->n * sizeof *p->v);
        break;
    }
    default: /* integers and enums */
        eq = !memcmp(x, y, c->size);
        break;
    }
    if (!eq)
        fail_msg("column \"%s\" did not come back as it went", c->name);
}

/* Every column a type, a field of its type's size, a name of its own. */
static void test_table(void **state)
{
    (void)state;
    size_t n = 0;
    const lg_col_t *cols = lg_runrow_cols(&n);
    assert_true(n > 40 && n <= LG_RUNROW_MAX_COLS);
    for (size_t i = 0; i < n; i++) {
        const lg_col_t *c = &cols[i];
        size_t want = c->type == LG_COL_U32 || c->type == LG_COL_I32   ? 4
                      : c->type == LG_COL_U64 || c->type == LG_COL_F64 ? 8
                      : c->type == LG_COL_BOOL                         ? sizeof(bool)
                      : c->type == LG_COL_HSTR                         ? sizeof(char *)
                      : c->type == LG_COL_ENUM                         ? sizeof(int)
                      : c->type == LG_COL_BSSPLIT                      ? sizeof(lg_runrow_bssplit_t)
                      : c->type == LG_COL_APP                          ? sizeof(lg_runrow_app_t)
                                                                       : c->size;
        if (c->size != want || c->size == 0 || c->offset + c->size > sizeof(lg_runrow_t))
            fail_msg("column \"%s\": field of %zu bytes for its type", c->name, c->size);
        assert_true((c->type == LG_COL_ENUM) == (c->names != NULL));
        if ((c->flags & (LG_COL_READONLY | LG_COL_QUERY)) && (c->flags & LG_COL_JSONB))
            fail_msg("column \"%s\": never inserted, so never cast", c->name);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(cols[j].name, c->name) || cols[j].offset == c->offset)
                fail_msg("columns \"%s\" and \"%s\" overlap", cols[j].name, c->name);
    }
}

/* The INSERT: every inserted column once, in the table's order, a parameter each, jsonb ones
 * cast; no read-only one. */
static void test_insert_sql(void **state)
{
    (void)state;
    char sql[2048];
    assert_int_equal(lg_runrow_insert_sql(sql, 40), LG_ETOOBIG);
    assert_int_equal(lg_runrow_insert_sql(sql, sizeof sql), 0);
    const char *head = "INSERT INTO lg.run (";
    assert_int_equal(strncmp(sql, head, strlen(head)), 0);
    const char *list = sql + strlen(head), *close = strstr(list, ") VALUES (");
    assert_non_null(close);
    size_t n = 0, ins = 0, jsonb = 0;
    const lg_col_t *cols = lg_runrow_cols(&n);
    const char *p = list;
    for (size_t i = 0; i < n; i++) {
        if (!s_inserted(&cols[i]))
            continue;
        size_t len = strlen(cols[i].name);
        if (strncmp(p, cols[i].name, len) != 0 || (p[len] != ',' && p[len] != ')'))
            fail_msg("column %zu of the INSERT is not \"%s\": %.40s", ins + 1, cols[i].name, p);
        p += len + (p[len] == ',' ? 2 : 0);
        ins++;
        jsonb += (cols[i].flags & LG_COL_JSONB) != 0;
    }
    assert_ptr_equal(p + 0, close);
    char last[32];
    snprintf(last, sizeof last, "$%zu", ins);
    assert_non_null(strstr(close, last));
    snprintf(last, sizeof last, "$%zu", ins + 1);
    assert_null(strstr(close, last));
    size_t casts = 0;
    for (const char *c = close; (c = strstr(c, "::jsonb")) != NULL; c++)
        casts++;
    assert_int_equal(casts, jsonb);
    assert_true(jsonb >= 4); /* agents, app_params, telemetry, reduction */
}

/* Every column filled, encoded to text, decoded: the same row. */
static void test_round_trip(void **state)
{
    (void)state;
    lg_runrow_t a, b;
    s_fill(&a);
    size_t n = 0;
    const lg_col_t *cols = lg_runrow_cols(&n);
    for (size_t i = 0; i < n; i++)
        if (s_is_zero(&a, &cols[i]))
            fail_msg("s_fill leaves column \"%s\" at its zero value: fill it", cols[i].name);
    lg_runrow_text_t t;
    lg_runrow_encode(&a, &t);
    fake_row_t f = {0};
    for (size_t i = 0, k = 0; i < n; i++)
        if (s_inserted(&cols[i])) {
            assert_non_null(t.val[k]); /* nothing is NULL in a full row */
            s_set(&f, cols[i].name, t.val[k++]);
        }
    assert_int_equal(f.n, t.n);
    assert_string_equal(s_get(&f, "bssplit"), "4096/50:65536/30:1048576/20");
    assert_string_equal(s_get(&f, "target_kind"), "iscsi");
    assert_string_equal(s_get(&f, "phase"), "search");
    assert_string_equal(s_get(&f, "share"), "range");
    assert_string_equal(s_get(&f, "app"), "pgbench");
    assert_string_equal(s_get(&f, "direct"), "t");
    assert_string_equal(s_get(&f, "size_bytes"), "17179869184");
    assert_string_equal(s_get(&f, "app_params"),
                        "{\"scale\": 10, \"jobs\": 2, \"tables\": 4, \"table_size\": 5000000000,"
                        " \"keep\": true}");
    s_set_readonly(&f);
    char err[256] = "";
    assert_int_equal(lg_runrow_decode(&b, s_get, &f, err, sizeof err), 0);
    for (size_t i = 0; i < n; i++)
        s_assert_col_equal(&a, &b, &cols[i]);
    lg_runrow_clear(&a);
    lg_runrow_clear(&b);
    assert_null(b.target);
    assert_int_equal(b.ordinal, 0);
}

/* A row of zeros: NULL where the column may be NULL, "" for a string left NULL; and back. */
static void test_nulls(void **state)
{
    (void)state;
    lg_runrow_t a;
    memset(&a, 0, sizeof a);
    lg_runrow_text_t t;
    lg_runrow_encode(&a, &t);
    size_t n = 0;
    const lg_col_t *cols = lg_runrow_cols(&n);
    fake_row_t f = {0};
    for (size_t i = 0, k = 0; i < n; i++)
        if (s_inserted(&cols[i])) {
            int nullable = (cols[i].flags & LG_COL_NULLABLE) != 0;
            if (nullable != (t.val[k] == NULL))
                fail_msg("column \"%s\" of a zero row: %s", cols[i].name,
                         t.val[k] ? t.val[k] : "NULL");
            s_set(&f, cols[i].name, t.val[k++]);
        }
    assert_string_equal(s_get(&f, "target"), "");
    assert_string_equal(s_get(&f, "bssplit"), "");
    assert_string_equal(s_get(&f, "phase"), "measure");
    assert_string_equal(s_get(&f, "share"), "auto");
    assert_string_equal(s_get(&f, "direct"), "f");
    assert_string_equal(s_get(&f, "read_pct"), "0");
    /* Nothing at all (every column NULL or absent), then every column "": as lg_row_get read them
     * (""), as lg_row_u32 read them (0), and the name chains' last choice. */
    for (int pass = 0; pass < 2; pass++) {
        fake_row_t e = {0};
        for (size_t i = 0; pass && i < n; i++)
            s_set(&e, cols[i].name, "");
        lg_runrow_t b;
        char err[256] = "";
        assert_int_equal(lg_runrow_decode(&b, s_get, &e, err, sizeof err), 0);
        assert_int_equal(b.target_kind, LG_TARGET_FILE);
        assert_int_equal(b.phase, LG_PHASE_MEASURE);
        assert_int_equal(b.share, LG_SHARE_AUTO);
        assert_int_equal(b.app, 0);
        assert_int_equal(b.app_params.set, pass); /* "" is a value, NULL is none */
        assert_int_equal(b.run_id, 0);
        assert_int_equal(b.attempt, 0);
        assert_int_equal(b.search_id, 0);
        assert_int_equal(b.bssplit.n, 0);
        assert_true(b.compress_ratio == 0);
        assert_false(b.direct);
        assert_false(b.curve_base_of);
        assert_string_equal(b.target, "");
        assert_string_equal(b.target_mount, "");
        assert_string_equal(b.agents, "");
        assert_string_equal(b.sut, "");
        assert_string_equal(b.profile, "");
        if (pass) {
            assert_string_equal(b.telemetry, "");
        } else {
            assert_null(b.telemetry);
            assert_null(b.reduction);
        }
        lg_runrow_clear(&b);
    }
}

/* A name its enum has not: the fallback the scheduler always took (FILE, MEASURE, sysbench),
 * and LG_EPARSE saying which column held what; the rest of the row is read. */
static void test_unknown_names(void **state)
{
    (void)state;
    static const struct {
        const char *col, *val;
        size_t off;
        int want;
    } cases[] = {
        {"target_kind", "tape", offsetof(lg_runrow_t, target_kind), LG_TARGET_FILE},
        {"target_kind", "ISCSI", offsetof(lg_runrow_t, target_kind), LG_TARGET_FILE},
        {"phase", "warmup", offsetof(lg_runrow_t, phase), LG_PHASE_MEASURE},
        {"share", "halves", offsetof(lg_runrow_t, share), LG_SHARE_AUTO},
        {"app", "fio", offsetof(lg_runrow_t, app), LG_APP_SYSBENCH_OLTP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fake_row_t f = {0};
        s_set(&f, cases[i].col, cases[i].val);
        s_set(&f, "threads", "8");
        lg_runrow_t r;
        char err[256] = "";
        assert_int_equal(lg_runrow_decode(&r, s_get, &f, err, sizeof err), LG_EPARSE);
        int v;
        memcpy(&v, (const char *)&r + cases[i].off, sizeof v);
        assert_int_equal(v, cases[i].want);
        assert_int_equal(r.threads, 8);
        assert_non_null(strstr(err, cases[i].col));
        assert_non_null(strstr(err, cases[i].val));
        lg_runrow_clear(&r);
    }
}

/* Every name of every enum round-trips; names and values are each one's own. */
static void test_enum_names(void **state)
{
    (void)state;
    const lg_names_t *all[] = {&lg_target_kind_names, &lg_phase_names,   &lg_share_names,
                               &lg_between_names,     &lg_precond_names, &lg_app_kind_names};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
        const lg_names_t *t = all[k];
        int fallback_known = 0;
        assert_true(t->n > 0);
        for (size_t i = 0; i < t->n; i++) {
            int v = -1;
            assert_string_equal(lg_name_of(t, t->names[i].value), t->names[i].name);
            assert_int_equal(lg_name_parse(t, t->names[i].name, &v), 0);
            assert_int_equal(v, t->names[i].value);
            fallback_known |= v == t->fallback;
            for (size_t j = 0; j < i; j++) {
                assert_int_not_equal(t->names[j].value, t->names[i].value);
                assert_string_not_equal(t->names[j].name, t->names[i].name);
            }
        }
        assert_true(fallback_known);
        int v = 12345;
        assert_int_equal(lg_name_parse(t, "no-such-name", &v), LG_EPARSE);
        assert_int_equal(lg_name_parse(t, "", &v), LG_EPARSE);
        assert_int_equal(lg_name_parse(t, NULL, &v), LG_EPARSE);
        assert_int_equal(v, 12345);
        assert_string_equal(lg_name_of(t, 999),
                            t->unknown ? t->unknown : lg_name_of(t, t->fallback));
    }
    /* the typed faces */
    lg_target_kind_t tk = LG_TARGET_FILE;
    assert_int_equal(lg_target_kind_parse("smb", &tk), 0);
    assert_int_equal(tk, LG_TARGET_SMB);
    assert_string_equal(lg_target_kind_name(LG_TARGET_NULL), "null");
    lg_phase_t ph = LG_PHASE_MEASURE;
    assert_int_equal(lg_phase_parse("steady-state", &ph), 0);
    assert_int_equal(ph, LG_PHASE_STEADY);
    assert_string_equal(lg_phase_name((lg_phase_t)42), "measure");
    lg_share_t sh = LG_SHARE_AUTO;
    assert_int_equal(lg_share_parse("whole", &sh), 0);
    assert_int_equal(sh, LG_SHARE_WHOLE);
    lg_between_t bw = LG_BETWEEN_PAUSE;
    assert_int_equal(lg_between_parse("hook", &bw), 0);
    assert_string_equal(lg_between_name(bw), "hook");
    lg_precond_t pc = LG_PRECOND_NONE;
    assert_int_equal(lg_precond_parse("fill", &pc), 0);
    assert_string_equal(lg_precond_name(pc), "fill");
    assert_int_equal(lg_appwl_parse("sysbench-oltp"), LG_APP_SYSBENCH_OLTP);
    assert_int_equal(lg_appwl_parse("sysbench"), 0);
    assert_string_equal(lg_appwl_name(0), "");
}

/* ---- lg.run as schema/'s migrations make it ---- */

#define S_MAXCOLS 256
typedef struct {
    char name[S_MAXCOLS][64];
    size_t n;
} colset_t;

static int s_has(const colset_t *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->name[i], name))
            return 1;
    return 0;
}

static void s_add(colset_t *s, const char *name, size_t len)
{
    char n[64];
    snprintf(n, sizeof n, "%.*s", (int)len, name);
    if (!s_has(s, n) && s->n < S_MAXCOLS)
        snprintf(s->name[s->n++], sizeof s->name[0], "%s", n);
}

static void s_drop(colset_t *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->name[i]) == len && !strncmp(s->name[i], name, len))
            s->name[i][0] = 0;
}

static size_t s_ident(const char *p)
{
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    return n;
}

static const char *s_skip(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* After p (past "KEYWORD"), the next identifier (after IF [NOT] EXISTS). */
static const char *s_name_after(const char *p)
{
    p = s_skip(p);
    if (!strncasecmp(p, "IF NOT EXISTS", 13))
        p = s_skip(p + 13);
    else if (!strncasecmp(p, "IF EXISTS", 9))
        p = s_skip(p + 9);
    return p;
}

/* CREATE TABLE lg.run (...): the first word of each top-level item that is not a constraint. */
static void s_create(colset_t *s, const char *p)
{
    int depth = 1;
    int item = 1;
    for (; *p && depth > 0; p++) {
        if (item) {
            p = s_skip(p);
            size_t n = s_ident(p);
            static const char *const not_cols[] = {"UNIQUE",     "PRIMARY", "CHECK",
                                                   "CONSTRAINT", "FOREIGN", "EXCLUDE"};
            int col = n > 0;
            for (size_t i = 0; col && i < sizeof not_cols / sizeof *not_cols; i++)
                col = !(strlen(not_cols[i]) == n && !strncasecmp(p, not_cols[i], n));
            if (col)
                s_add(s, p, n);
            item = 0;
        }
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        item = depth == 1 && *p == ',';
    }
}

/* ALTER TABLE lg.run ... ; its ADD, DROP and RENAME COLUMNs. */
static void s_alter(colset_t *s, const char *p, const char *end)
{
    for (; p < end; p++) {
        if (!strncasecmp(p, "ADD COLUMN", 10)) {
            const char *q = s_name_after(p + 10);
            s_add(s, q, s_ident(q));
        } else if (!strncasecmp(p, "DROP COLUMN", 11)) {
            const char *q = s_name_after(p + 11);
            s_drop(s, q, s_ident(q));
        } else if (!strncasecmp(p, "RENAME COLUMN", 13)) {
            const char *q = s_skip(p + 13);
            size_t n = s_ident(q);
            const char *to = s_skip(q + n);
            if (!strncasecmp(to, "TO", 2)) {
                to = s_skip(to + 2);
                s_drop(s, q, n);
                s_add(s, to, s_ident(to));
            }
        }
    }
}

/* One migration's text (its -- comments blanked) applied to s. */
static void s_migration(colset_t *s, char *text)
{
    for (char *c = text; (c = strstr(c, "--")) != NULL;)
        while (*c && *c != '\n')
            *c++ = ' ';
    for (char *p = text; *p; p++) {
        if (!strncasecmp(p, "CREATE TABLE lg.run", 19) && s_skip(p + 19)[0] == '(') {
            s_create(s, s_skip(p + 19) + 1);
        } else if (!strncasecmp(p, "ALTER TABLE lg.run", 18) &&
                   (isspace((unsigned char)p[18]) || p[18] == ';')) {
            char *end = strchr(p, ';');
            if (!end)
                end = p + strlen(p);
            s_alter(s, p + 18, end);
            p = end - 1;
        }
    }
}

static int s_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* lg.run's columns after every numbered migration, in order. */
static void s_schema_columns(colset_t *s)
{
    const char *dir = LG_SOURCE_DIR "/schema";
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *names[512];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < 512;)
        if (isdigit((unsigned char)e->d_name[0]) && strstr(e->d_name, ".sql"))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, s_cmp);
    assert_true(n > 30);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        static char text[1 << 20];
        size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = 0;
        s_migration(s, text);
        free(names[i]);
    }
}

/* Every column of the table is one of lg.run's; the load query's own are not. */
static void test_schema(void **state)
{
    (void)state;
    static colset_t s;
    memset(&s, 0, sizeof s);
    s_schema_columns(&s);
    /* the parse itself: columns of 001, of a later ALTER, and none of lg.run_agent's */
    assert_true(s_has(&s, "run_id") && s_has(&s, "target_kind") && s_has(&s, "retries") &&
                s_has(&s, "curve_base") && s_has(&s, "seal"));
    assert_false(s_has(&s, "offset_bytes") || s_has(&s, "fio_json"));
    size_t n = 0;
    const lg_col_t *cols = lg_runrow_cols(&n);
    for (size_t i = 0; i < n; i++) {
        int in = s_has(&s, cols[i].name);
        if ((cols[i].flags & LG_COL_QUERY) && in)
            fail_msg("\"%s\" is a column of lg.run now: it is no LG_COL_QUERY", cols[i].name);
        if (!(cols[i].flags & LG_COL_QUERY) && !in)
            fail_msg("\"%s\" is no column of lg.run (schema/*.sql)", cols[i].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),         cmocka_unit_test(test_insert_sql),
        cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_unknown_names), cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_dbcol: reading a result by column name (db/cols.c) on a result made in memory
 * (no server): names found wherever they sit, an unquoted name folded to lower case, a name not
 * there logged with the result's columns and read as "" / NULL, never a crash; and db/'s renderer
 * (render.c) of such a result: its rows as typed text, as guarded CSV and as typed JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db.h"
#include "lg_log.h"
#include "render.h"

/* A result of columns run, iops, qd (text) and two rows; row 1's iops is NULL. */
static PGresult *s_result(void)
{
    static const char *const cols[] = {"run", "iops", "qd"};
    PGresult *r = lg_db_result_make(LG_DB_MADE_ROWS, 3, cols, NULL);
    assert_non_null(r);
    assert_int_equal(lg_db_result_put(r, 0, 0, "7"), 0);
    assert_int_equal(lg_db_result_put(r, 0, 1, "1000.5"), 0);
    assert_int_equal(lg_db_result_put(r, 0, 2, "8"), 0);
    assert_int_equal(lg_db_result_put(r, 1, 0, "8"), 0);
    assert_int_equal(lg_db_result_put(r, 1, 1, NULL), 0);
    assert_int_equal(lg_db_result_put(r, 1, 2, "16"), 0);
    assert_int_equal(lg_db_result_put(r, 0, 3, "x"), -1); /* no such column */
    assert_int_equal(lg_db_nrows(r), 2);
    return r;
}

static void test_by_name(void **state)
{
    (void)state;
    PGresult *r = s_result();
    int c_qd = lg_db_col(r, "qd"), c_iops = lg_db_col(r, "iops");
    assert_int_equal(c_qd, 2);
    assert_int_equal(c_iops, 1);
    assert_int_equal(lg_db_col(r, "QD"), 2); /* unquoted: folded to lower case */
    assert_string_equal(lg_db_get(r, 1, c_qd), "16");
    assert_string_equal(lg_db_get(r, 0, c_iops), "1000.5");
    assert_int_equal(lg_db_isnull(r, 0, c_iops), 0);
    assert_int_equal(lg_db_isnull(r, 1, c_iops), 1);
    assert_string_equal(lg_db_get(r, 1, c_iops), ""); /* NULL reads as "", as PQgetvalue's */
    assert_string_equal(lg_db_get(r, 5, c_qd), "");   /* a row out of range too */
    static const char *const names[] = {"qd", "run"};
    int cols[2];
    assert_int_equal(lg_db_cols(r, names, cols, 2), 0);
    assert_int_equal(cols[0], 2);
    assert_int_equal(cols[1], 0);
    lg_db_result_destroy(&r);
}

static void test_missing(void **state)
{
    (void)state;
    PGresult *r = s_result();
    FILE *log = tmpfile();
    assert_non_null(log);
    lg_log_set_file(log);
    int c = lg_db_col(r, "p99_ms");
    static const char *const names[] = {"run", "nope", "qd"};
    int cols[3];
    int missing = lg_db_cols(r, names, cols, 3);
    lg_log_set_file(NULL);
    assert_int_equal(c, -1);
    assert_int_equal(missing, 1);
    assert_int_equal(cols[1], -1);
    assert_int_equal(cols[2], 2);
    /* read safely: "" and NULL, never a crash */
    assert_string_equal(lg_db_get(r, 0, c), "");
    assert_int_equal(lg_db_isnull(r, 0, c), 1);
    /* said loudly: the name and the result's columns */
    char text[2048] = "";
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = 0;
    fclose(log);
    assert_non_null(strstr(text, "no column \"p99_ms\""));
    assert_non_null(strstr(text, "no column \"nope\""));
    assert_non_null(strstr(text, "run, iops, qd"));
    lg_db_result_destroy(&r);
}

/* A result read whole (result.c): its columns' names and kinds, its status, and an error's
 * fields (none here: libpq sets them only from a server's message). */
static void test_whole(void **state)
{
    (void)state;
    static const unsigned oids[] = {16, 20, 21, 23, 26, 700, 701, 1700, 25, 1043, 3802};
    static const lg_db_kind_t kinds[] = {LG_DB_BOOL, LG_DB_INT,  LG_DB_INT,  LG_DB_INT,
                                         LG_DB_INT,  LG_DB_REAL, LG_DB_REAL, LG_DB_REAL,
                                         LG_DB_TEXT, LG_DB_TEXT, LG_DB_TEXT};
    enum { N = sizeof oids / sizeof oids[0] };
    char names[N][8];
    const char *np[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "c%d", i);
        np[i] = names[i];
    }
    PGresult *r = lg_db_result_make(LG_DB_MADE_ROWS, N, np, oids);
    assert_non_null(r);
    assert_int_equal(lg_db_nfields(r), N);
    assert_int_equal(lg_db_nrows(r), 0);
    for (int i = 0; i < N; i++) {
        assert_string_equal(lg_db_fname(r, i), names[i]);
        assert_int_equal(lg_db_fkind(r, i), kinds[i]);
    }
    assert_string_equal(lg_db_fname(r, N), ""); /* out of range: "", never NULL */
    assert_int_equal(lg_db_fkind(r, -1), LG_DB_TEXT);
    assert_int_equal(lg_db_result_ok(r), 1);
    assert_int_equal(lg_db_result_tuples(r), 1);
    lg_db_error_t e;
    memset(&e, 'x', sizeof e);
    lg_db_result_error(r, &e);
    assert_string_equal(e.sqlstate, "");
    assert_string_equal(e.message, "");
    assert_string_equal(e.hint, "");
    assert_int_equal(e.position, 0);
    lg_db_result_destroy(&r);
    assert_null(r);
    lg_db_result_destroy(&r); /* NULL: nothing */

    r = lg_db_result_make(LG_DB_MADE_DONE, 0, NULL, NULL);
    assert_int_equal(lg_db_result_ok(r), 1);
    assert_int_equal(lg_db_result_tuples(r), 0);
    lg_db_result_destroy(&r);
    r = lg_db_result_make(LG_DB_MADE_FAILED, 0, NULL, NULL);
    assert_int_equal(lg_db_result_ok(r), 0);
    lg_db_result_destroy(&r);
    /* no result at all: a failure, with nothing to read */
    assert_int_equal(lg_db_result_ok(NULL), 0);
    assert_int_equal(lg_db_nfields(NULL), 0);
    assert_string_equal(lg_db_result_message(NULL), "no result");
    lg_db_result_error(NULL, &e);
    assert_string_equal(e.sqlstate, "");
}

/* What f holds once closed (the caller frees it). */
static char *s_closed(FILE *f, char *buf, size_t len)
{
    assert_int_equal(fflush(f), 0);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* A result as lgctl's --format csv and json and lg-export's files write it: CSV's header and
 * text guarded against formulas, a number's column never (a negative number stays one), NULL
 * empty; JSON's values of their SQL types, NULL null, a real that is no number (NaN) a string. */
static void test_render(void **state)
{
    (void)state;
    static const unsigned oids[] = {25, 16, 20, 701};
    static const char *const cols[] = {"name", "ok", "n", "x"};
    PGresult *r = lg_db_result_make(LG_DB_MADE_ROWS, 4, cols, oids);
    const char *rows[3][4] = {
        {"=cmd", "t", "-12", "-0.5"}, {"a,b", "f", NULL, "NaN"}, {NULL, NULL, "7", "1e3"}};
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 4; c++)
            assert_int_equal(lg_db_result_put(r, i, c, rows[i][c]), 0);
    lg_table_t t;
    assert_int_equal(lg_table_from_result(r, &t), 0);
    assert_int_equal(t.ncols, 4);
    assert_int_equal(t.nrows, 3);
    assert_null(lg_table_get(&t, 2, 0));
    assert_string_equal(lg_table_get(&t, 1, 0), "a,b");
    assert_int_equal(lg_table_col(&t, "n"), 2);
    assert_int_equal(lg_table_col(&t, "nope"), -1);
    assert_false(lg_table_numeric(&t, 1)); /* a boolean: not a number to chart */
    assert_true(lg_table_numeric(&t, 3));
    char buf[1024];
    FILE *f = tmpfile();
    assert_non_null(f);
    lg_table_print(&t, LG_FMT_CSV, f);
    assert_string_equal(s_closed(f, buf, sizeof buf),
                        "name,ok,n,x\n\"'=cmd\",t,-12,-0.5\n\"a,b\",f,,NaN\n,,7,1e3\n");
    json_t *j = lg_table_json_rows(&t);
    char *dump = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(dump, "[{\"name\":\"=cmd\",\"ok\":true,\"n\":-12,\"x\":-0.5},"
                              "{\"name\":\"a,b\",\"ok\":false,\"n\":null,\"x\":\"NaN\"},"
                              "{\"name\":null,\"ok\":null,\"n\":7,\"x\":1000.0}]");
    free(dump);
    json_decref(j);
    f = tmpfile(); /* the same through lgctl's door: a result straight to JSON */
    assert_non_null(f);
    lg_tbl_print_result(r, LG_FMT_JSON, f);
    assert_non_null(strstr(s_closed(f, buf, sizeof buf), "\"x\": 1000.0"));
    lg_table_clear(&t);
    assert_null(t.cols);
    lg_table_clear(&t); /* cleared: nothing */
    lg_db_result_destroy(&r);
}

int main(void)
{
    lg_log_init("test_dbcol");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_name),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

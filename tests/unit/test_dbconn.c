/* test_dbconn: a connection string split for psql (db/db.c lg_db_conninfo_split, no server):
 * every setting but the password on its command line, quoted as libpq reads it back; the
 * password apart; an sslpassword, which nothing but a command line takes, refused. The opening
 * (db/open.c) without a server: what it says when it cannot, and Ctrl-C wired to db/'s waits. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libpq-fe.h> /* db/ itself under test: libpq reads the string back */

#include "db.h"
#include "lg_error.h"

/* The value of key in conninfo as libpq reads it ("" when not set). */
static void s_val(const char *conninfo, const char *key, char *out, size_t len)
{
    PQconninfoOption *o = PQconninfoParse(conninfo, NULL);
    assert_non_null(o);
    out[0] = 0;
    for (PQconninfoOption *p = o; p->keyword; p++)
        if (!strcmp(p->keyword, key) && p->val)
            snprintf(out, len, "%s", p->val);
    PQconninfoFree(o);
}

static void test_url(void **state)
{
    (void)state;
    char pub[1024], pass[256], err[256], v[256];
    assert_int_equal(lg_db_conninfo_split("postgresql://lg:p%3Aw%5Cd'x@db.example:5433/lg"
                                          "?sslmode=require&application_name=it's",
                                          pub, sizeof pub, pass, sizeof pass, err, sizeof err),
                     0);
    assert_string_equal(pass, "p:w\\d'x");
    assert_null(strstr(pub, "p:w"));
    assert_null(strstr(pub, "password"));
    s_val(pub, "host", v, sizeof v);
    assert_string_equal(v, "db.example");
    s_val(pub, "port", v, sizeof v);
    assert_string_equal(v, "5433");
    s_val(pub, "user", v, sizeof v);
    assert_string_equal(v, "lg");
    s_val(pub, "dbname", v, sizeof v);
    assert_string_equal(v, "lg");
    s_val(pub, "sslmode", v, sizeof v);
    assert_string_equal(v, "require");
    s_val(pub, "application_name", v, sizeof v);
    assert_string_equal(v, "it's");
}

static void test_keywords(void **state)
{
    (void)state;
    char pub[1024], pass[256], err[256], v[256];
    assert_int_equal(lg_db_conninfo_split("host=/tmp/a\\ b port=5432 dbname=lg", pub, sizeof pub,
                                          pass, sizeof pass, err, sizeof err),
                     0);
    assert_string_equal(pass, "");
    s_val(pub, "host", v, sizeof v);
    assert_string_equal(v, "/tmp/a b");
    /* refusals: not a connection string, an sslpassword, a buffer too small */
    assert_int_equal(lg_db_conninfo_split("host=x nosuch=1", pub, sizeof pub, pass, sizeof pass,
                                          err, sizeof err),
                     LG_EPARSE);
    assert_non_null(strstr(err, "nosuch"));
    assert_int_equal(lg_db_conninfo_split("host=x sslpassword=k", pub, sizeof pub, pass,
                                          sizeof pass, err, sizeof err),
                     LG_EPARSE);
    assert_non_null(strstr(err, "\"sslpassword\""));
    assert_null(strstr(err, "=k"));
    assert_int_equal(
        lg_db_conninfo_split("host=a-long-host-name", pub, 10, pass, sizeof pass, err, sizeof err),
        LG_ETOOBIG);
    assert_int_equal(lg_db_conninfo_split("host=x password=longer-than-8", pub, sizeof pub, pass, 8,
                                          err, sizeof err),
                     LG_ETOOBIG);
}

/* lg_db_open leaves nothing open when it cannot: no url nor data folder, or a url libpq cannot
 * read (refused before any connection is tried), each said. */
static void test_open_fails(void **state)
{
    (void)state;
    lg_db_open_t d;
    char err[512];
    assert_int_equal(lg_db_open(NULL, NULL, &d, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "no database"));
    assert_null(d.db);
    assert_int_equal(lg_db_open("no-equals-sign", NULL, &d, err, sizeof err), LG_EDB);
    assert_non_null(strstr(err, "could not connect to the database: "));
    assert_non_null(strstr(err, "no-equals-sign"));
    assert_null(d.db);
    assert_null(d.conninfo);
    lg_db_open_clear(&d); /* cleared already: nothing */
}

/* SIGINT and SIGTERM set the program's flag (db/'s waits read it), which it may clear to go on. */
static void test_interrupt(void **state)
{
    (void)state;
    static volatile int flag = 1;
    lg_db_interrupt_on_signals(&flag);
    assert_int_equal(flag, 0);
    raise(SIGINT);
    assert_int_equal(flag, 1);
    flag = 0;
    raise(SIGTERM);
    assert_int_equal(flag, 1);
    lg_db_interrupt_on_signals(NULL); /* db/'s own flag: the program's is left alone */
    flag = 0;
    raise(SIGINT);
    assert_int_equal(flag, 0);
    lg_db_set_interrupt(NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url),
        cmocka_unit_test(test_keywords),
        cmocka_unit_test(test_open_fails),
        cmocka_unit_test(test_interrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

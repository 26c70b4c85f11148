/* test_setcheck.c: what the operator's read-back check printed, against the config's labels
 * (lg_setcheck.h): both line forms, a mismatch named, keys that are no label kept, a check that
 * read no label or printed a line of neither form refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lg_setcheck.h"

static const char *L = "{\"build\":\"it\",\"compression\":\"lz4\",\"dedup\":\"off\"}";

static int s_cmp(const char *out, char **read, char *why, size_t whylen)
{
    return lg_setcheck_compare(out, strlen(out), L, read, why, whylen);
}

static void test_match(void **state)
{
    (void)state;
    char *read = NULL, why[256];
    /* zfs get -H -o property,value, a comment, a blank line, KEY = VALUE, KEY=VALUE, CRLF,
     * upper case */
    assert_int_equal(s_cmp("# tank/lz4\ncompression\tLZ4\n\n  dedup = off\r\nrecordsize=128K\n",
                           &read, why, sizeof why),
                     0);
    assert_string_equal(read,
                        "{\"compression\":\"LZ4\",\"dedup\":\"off\",\"recordsize\":\"128K\"}");
    free(read);
}

static void test_mismatch(void **state)
{
    (void)state;
    char *read = NULL, why[256];
    assert_int_equal(s_cmp("compression=zstd\ndedup=off\n", &read, why, sizeof why), 1);
    assert_string_equal(why, "compression reads \"zstd\" where the config's label says \"lz4\"");
    assert_non_null(read); /* what was read is kept for the report */
    assert_string_equal(read, "{\"compression\":\"zstd\",\"dedup\":\"off\"}");
    free(read);
}

static void test_nothing_checked(void **state)
{
    (void)state;
    char *read = NULL, why[256];
    assert_int_equal(s_cmp("atime=on\nsync=standard\n", &read, why, sizeof why), -1);
    assert_string_equal(why, "it read atime, sync, none of them a label of the config");
    free(read);
    read = NULL;
    assert_int_equal(s_cmp("", &read, why, sizeof why), -1);
    assert_string_equal(why, "it printed no setting");
    assert_null(read);
    assert_int_equal(s_cmp("\n# nothing\n", &read, why, sizeof why), -1);
    assert_null(read);
    assert_int_equal(
        s_cmp("compression=lz4\n'tank/x': dataset does not exist\n", &read, why, sizeof why), -1);
    assert_string_equal(why, "line 2 is not KEY=VALUE or KEY VALUE");
    free(read);
}

static void test_bad_labels(void **state)
{
    (void)state;
    char *read = NULL, why[256];
    assert_int_equal(lg_setcheck_compare("a=b", 3, "[1]", &read, why, sizeof why), -2);
    assert_null(read);
    /* a value without a key, a key without a value */
    assert_int_equal(lg_setcheck_compare("=lz4", 4, L, &read, why, sizeof why), -1);
    assert_int_equal(lg_setcheck_compare("compression", 11, L, &read, why, sizeof why), -1);
    assert_int_equal(lg_setcheck_compare("compression=", 12, L, &read, why, sizeof why), -1);
    assert_null(read);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_nothing_checked),
        cmocka_unit_test(test_bad_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

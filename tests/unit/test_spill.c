/* test_spill: the controller's spool on disk (controller/spill.c) on a real file: records read
 * back in order and whole, the size limit, emptying once caught up, a batch not committed read
 * again, what a killed controller left read on the next open (a torn last record cut, a damaged
 * one found by its checksum and said), a second controller on the same folder refused, a
 * folder or file another user could have planted refused, and records of two kinds appended
 * together (all or none) and read back one kind at a time. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lg_error.h"
#include "spill.h"

static char s_dir[256];

static int s_setup(void **state)
{
    (void)state;
    snprintf(s_dir, sizeof s_dir, "/tmp/lg-test-spill.XXXXXX");
    if (!mkdtemp(s_dir))
        return -1;
    return 0;
}

static int s_teardown(void **state)
{
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/spool/%s", s_dir, LG_SPILL_FILE);
    unlink(p);
    snprintf(p, sizeof p, "%s/spool", s_dir);
    rmdir(p);
    rmdir(s_dir);
    return 0;
}

static const char *s_spool(void)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/spool", s_dir);
    return p;
}

static lg_spill_t *s_open(uint64_t max)
{
    lg_spill_t *s = NULL;
    char err[512] = "";
    int rc = lg_spill_open(s_spool(), max, &s, err, sizeof err);
    if (rc)
        print_error("open: %s\n", err);
    assert_int_equal(rc, 0);
    return s;
}

/* A record of n rows whose bytes are (tag + i) for i < len. */
static void s_put(lg_spill_t *s, int tag, size_t len, size_t nrows, int expect)
{
    char *b = malloc(len);
    for (size_t i = 0; i < len; i++)
        b[i] = (char)(tag + i);
    char err[512] = "";
    assert_int_equal(lg_spill_append(s, b, len, nrows, 17, err, sizeof err), expect);
    free(b);
}

static void s_check_bytes(const char *rows, size_t off, int tag, size_t len)
{
    for (size_t i = 0; i < len; i++)
        assert_int_equal((unsigned char)rows[off + i], (unsigned char)(char)(tag + i));
}

static void test_order_commit_empty(void **state)
{
    (void)state;
    lg_spill_t *s = s_open(1 << 20);
    s_put(s, 1, 1000, 3, 0);
    s_put(s, 50, 2000, 5, 0);
    s_put(s, 9, 100, 1, 0);
    assert_int_equal(lg_spill_rows(s), 9);
    char *rows = NULL, err[512] = "";
    size_t len, nrows;
    int nf;
    /* 2500 bytes at most: the first two records (the first is always whole) */
    assert_int_equal(lg_spill_read(s, 3000, &rows, &len, &nrows, &nf, err, sizeof err), 1);
    assert_int_equal(len, 3000);
    assert_int_equal(nrows, 8);
    assert_int_equal(nf, 17);
    s_check_bytes(rows, 0, 1, 1000);
    s_check_bytes(rows, 1000, 50, 2000);
    free(rows);
    /* not committed: the same again */
    assert_int_equal(lg_spill_read(s, 10, &rows, &len, &nrows, &nf, err, sizeof err), 1);
    assert_int_equal(len, 1000);
    s_check_bytes(rows, 0, 1, 1000);
    free(rows);
    assert_int_equal(lg_spill_read(s, 1 << 20, &rows, &len, &nrows, &nf, err, sizeof err), 1);
    assert_int_equal(len, 3100);
    free(rows);
    assert_int_equal(lg_spill_commit(s, err, sizeof err), 0);
    assert_int_equal(lg_spill_rows(s), 0);
    assert_int_equal(lg_spill_bytes(s), 0);
    struct stat st;
    assert_int_equal(stat(lg_spill_path(s), &st), 0);
    assert_int_equal(st.st_size, 16); /* emptied: the header alone */
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(lg_spill_read(s, 10, &rows, &len, &nrows, &nf, err, sizeof err), 0);
    lg_spill_close(&s);
    assert_null(s);
}

static void test_limit(void **state)
{
    (void)state;
    lg_spill_t *s = s_open(64 << 10);
    s_put(s, 1, 30000, 10, 0);
    s_put(s, 2, 30000, 10, 0);
    s_put(s, 3, 30000, 10, LG_ETOOBIG); /* past 64 KiB: refused, nothing written */
    assert_int_equal(lg_spill_rows(s), 20);
    char *rows = NULL, err[512] = "";
    size_t len, nrows;
    int nf;
    assert_int_equal(lg_spill_read(s, 1 << 20, &rows, &len, &nrows, &nf, err, sizeof err), 1);
    assert_int_equal(len, 60000);
    free(rows);
    assert_int_equal(lg_spill_commit(s, err, sizeof err), 0);
    s_put(s, 3, 30000, 10, 0); /* room again once emptied */
    lg_spill_close(&s);
    s = s_open(64 << 10); /* what was left is read on the next open */
    assert_int_equal(lg_spill_rows(s), 10);
    assert_int_equal(lg_spill_read(s, 1 << 20, &rows, &len, &nrows, &nf, err, sizeof err), 1);
    s_check_bytes(rows, 0, 3, 30000);
    free(rows);
    assert_int_equal(lg_spill_commit(s, err, sizeof err), 0);
    lg_spill_close(&s);
}

static void test_locked(void **state)
{
    (void)state;
    lg_spill_t *s = s_open(1 << 20), *t = NULL;
    char err[512] = "";
    assert_int_equal(lg_spill_open(s_spool(), 1 << 20, &t, err, sizeof err), LG_ESTATE);
    assert_null(t);
    assert_non_null(strstr(err, "in use by another lg-controller"));
    lg_spill_close(&s);
    t = s_open(1 << 20); /* free again once closed */
    lg_spill_close(&t);
}

/* A controller killed while appending: the torn record is cut on the next open, the whole ones
 * before it kept. */
static void test_torn(void **state)
{
    (void)state;
    lg_spill_t *s = s_open(1 << 20);
    s_put(s, 7, 500, 2, 0);
    s_put(s, 8, 500, 4, 0);
    char path[600];
    snprintf(path, sizeof path, "%s", lg_spill_path(s));
    lg_spill_close(&s);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size - 100), 0);
    s = s_open(1 << 20);
    assert_int_equal(lg_spill_rows(s), 2);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 16 + 20 + 500);
    lg_spill_close(&s);
}

/* A damaged byte in a payload: the checksum finds it on open (cut there) and on read (said with
 * the offset, and what follows dropped). */
static void test_damaged(void **state)
{
    (void)state;
    lg_spill_t *s = s_open(1 << 20);
    s_put(s, 7, 500, 2, 0);
    s_put(s, 8, 500, 4, 0);
    int fd = open(lg_spill_path(s), O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, "X", 1, 16 + 20 + 10), 1); /* inside the first payload */
    close(fd);
    char *rows = NULL, err[512] = "";
    size_t len, nrows;
    int nf;
    assert_int_equal(lg_spill_read(s, 1 << 20, &rows, &len, &nrows, &nf, err, sizeof err),
                     LG_EPARSE);
    assert_null(rows);
    assert_non_null(strstr(err, "offset 16 is damaged"));
    assert_non_null(strstr(err, "(6 samples' rows)"));
    assert_int_equal(lg_spill_rows(s), 0);
    assert_int_equal(lg_spill_read(s, 1 << 20, &rows, &len, &nrows, &nf, err, sizeof err), 0);
    lg_spill_close(&s);
    /* the same on open: the second record damaged, the first kept */
    s = s_open(1 << 20);
    s_put(s, 7, 500, 2, 0);
    s_put(s, 8, 500, 4, 0);
    fd = open(lg_spill_path(s), O_WRONLY);
    assert_int_equal(pwrite(fd, "X", 1, 16 + 520 + 20 + 5), 1);
    close(fd);
    lg_spill_close(&s);
    s = s_open(1 << 20);
    assert_int_equal(lg_spill_rows(s), 2);
    lg_spill_close(&s);
}

/* A spool file that is a link, or another mode: refused, nothing followed. */
static void test_planted(void **state)
{
    (void)state;
    lg_spill_t *s = s_open(1 << 20);
    char path[600];
    snprintf(path, sizeof path, "%s", lg_spill_path(s));
    lg_spill_close(&s);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    char err[512] = "";
    assert_true(lg_spill_open(s_spool(), 1 << 20, &s, err, sizeof err) < 0);
    assert_null(s);
    assert_int_equal(unlink(path), 0);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
    assert_true(fd >= 0);
    assert_int_equal(fchmod(fd, 0644), 0);
    close(fd);
    assert_int_equal(lg_spill_open(s_spool(), 1 << 20, &s, err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "mode 0600"));
    unlink(path);
    /* a folder others may write into */
    assert_int_equal(chmod(s_spool(), 0777), 0);
    assert_true(lg_spill_open(s_spool(), 1 << 20, &s, err, sizeof err) != 0);
    assert_int_equal(chmod(s_spool(), 0700), 0);
}

static void test_parts_kinds(void **state)
{
    (void)state;
    lg_spill_t *s = s_open(4096);
    char a[300], b[200], err[512] = "";
    memset(a, 'a', sizeof a);
    memset(b, 'b', sizeof b);
    const int ka = 17, kb = 1 << 16 | 18; /* the writer's: lg.sample rows, lg.app_sample rows */
    lg_spill_part_t p[2] = {{a, sizeof a, 3, ka}, {b, sizeof b, 2, kb}};
    assert_int_equal(lg_spill_append_parts(s, p, 2, err, sizeof err), 0);
    assert_int_equal(lg_spill_append_parts(s, p, 2, err, sizeof err), 0);
    assert_int_equal(lg_spill_rows(s), 10);
    /* past the limit: neither record of the batch is written */
    uint64_t bytes = lg_spill_bytes(s);
    char big[3000] = {0};
    lg_spill_part_t q[2] = {{a, sizeof a, 3, ka}, {big, sizeof big, 1, kb}};
    assert_int_equal(lg_spill_append_parts(s, q, 2, err, sizeof err), LG_ETOOBIG);
    assert_int_equal(lg_spill_bytes(s), bytes);
    assert_int_equal(lg_spill_rows(s), 10);
    /* read back one kind at a time, in order: a, b, a, b */
    const int want_kind[4] = {ka, kb, ka, kb};
    const size_t want_len[4] = {sizeof a, sizeof b, sizeof a, sizeof b};
    for (int i = 0; i < 4; i++) {
        char *rows = NULL;
        size_t len, nrows;
        int kind;
        assert_int_equal(lg_spill_read(s, 1 << 20, &rows, &len, &nrows, &kind, err, sizeof err), 1);
        assert_int_equal(kind, want_kind[i]);
        assert_int_equal(len, want_len[i]);
        assert_int_equal(nrows, kind == ka ? 3 : 2);
        assert_int_equal(rows[0], kind == ka ? 'a' : 'b');
        free(rows);
        assert_int_equal(lg_spill_commit(s, err, sizeof err), 0);
    }
    assert_int_equal(lg_spill_rows(s), 0);
    lg_spill_close(&s);
}

static void test_crc(void **state)
{
    (void)state;
    /* the check value of CRC-32C */
    assert_int_equal(lg_crc32c(0, "123456789", 9), 0xe3069283u);
    assert_int_equal(lg_crc32c(lg_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc),
        cmocka_unit_test_setup_teardown(test_order_commit_empty, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_limit, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_locked, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_torn, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_damaged, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_planted, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_parts_kinds, s_setup, s_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

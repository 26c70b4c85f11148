/* test_telem: a scrape reduced to lg's keys, on the same captures test_prom reads (Debian's
 * node_exporter 1.5, FreeBSD's, windows_exporter's, Linux ZFS series): CPU seconds summed over
 * CPUs by mode, memory, disks (stacked ones apart), NICs (loopback left out), the ARC, extras. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_telem.h"

static char *s_read(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/prom/%s", LG_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[*len] = 0;
    return buf;
}

static void s_near(double got, double want)
{
    if (fabs(got - want) > 1e-6 * (fabs(want) + 1)) {
        print_error("got %.9g, want %.9g\n", got, want);
        fail();
    }
}

static void test_linux(void **state)
{
    (void)state;
    size_t len;
    char *text = s_read("node_exporter_linux.txt", &len);
    lg_telem_vals_t v = {0};
    char err[256];
    const char *extras[] = {"process_open_fds", "node_memory_Swap*"};
    assert_int_equal(lg_telem_extract(text, len, extras, 2, &v, err, sizeof err), 0);
    /* two CPUs: each mode is the sum of both lines of the capture */
    s_near(lg_telem_get(&v, "cpu.idle"), 4839.12 + 4741.33);
    s_near(lg_telem_get(&v, "cpu.iowait"), 7.25 + 14.16);
    s_near(lg_telem_get(&v, "cpu.user"), 887.22 + 871.55);
    s_near(lg_telem_get(&v, "cpu.count"), 2);
    s_near(lg_telem_get(&v, "mem.avail"), 2.4681213952e+10);
    s_near(lg_telem_get(&v, "mem.total"), 2.5276071936e+10);
    s_near(lg_telem_get(&v, "disk.read.vda"), 3.353035264e+10);
    s_near(lg_telem_get(&v, "disk.written.vda"), 3.547004928e+10);
    s_near(lg_telem_get(&v, "disk.busy.vda"), 271.724);
    s_near(lg_telem_get(&v, "net.rx.eth0"), 5.30651981e+08);
    assert_true(isnan(lg_telem_get(&v, "net.rx.lo")));
    assert_false(isnan(lg_telem_get(&v, "x.process_open_fds")));
    int fd = 0;
    for (size_t i = 0; i < v.n; i++) {
        fd += !strncmp(v.keys[i], "x.node_memory_Swap", 18);
        assert_true(strncmp(v.keys[i], "x.process_open_fds_", 19) != 0);
        assert_true(strncmp(v.keys[i], "cpux.", 5) != 0);
    }
    assert_int_equal(fd, 3); /* SwapTotal, SwapFree, SwapCached */
    assert_int_equal(v.dropped, 0);
    /* every key is small: a NAS with a dozen disks stays under 2 KB a scrape */
    assert_true(v.n < 80);
    lg_telem_vals_clear(&v);
    free(text);
}

static void test_freebsd_zfs(void **state)
{
    (void)state;
    size_t len;
    char *text = s_read("freebsd.txt", &len);
    lg_telem_vals_t v = {0};
    char err[256];
    assert_int_equal(lg_telem_extract(text, len, NULL, 0, &v, err, sizeof err), 0);
    s_near(lg_telem_get(&v, "cpu.idle"), 91234.5);
    s_near(lg_telem_get(&v, "cpu.interrupt"), 12.25);
    s_near(lg_telem_get(&v, "cpu.count"), 1);
    s_near(lg_telem_get(&v, "disk.read.ada0"), 1.073741824e+09);
    s_near(lg_telem_get(&v, "disk.written.ada0"), 2.147483648e+09);
    s_near(lg_telem_get(&v, "disk.busy.ada0"), 321.5);
    s_near(lg_telem_get(&v, "arc.hits"), 9.87654e+06);
    s_near(lg_telem_get(&v, "arc.misses"), 12345);
    s_near(lg_telem_get(&v, "arc.size"), 1.7179869184e+10);
    lg_telem_vals_clear(&v);
    free(text);
    text = s_read("zfs_linux.txt", &len);
    assert_int_equal(lg_telem_extract(text, len, NULL, 0, &v, err, sizeof err), 0);
    s_near(lg_telem_get(&v, "arc.hits"), 1.234567e+06);
    s_near(lg_telem_get(&v, "arc.misses"), 4567);
    s_near(lg_telem_get(&v, "arc.size"), 8.589934592e+09);
    lg_telem_vals_clear(&v);
    free(text);
}

static void test_windows(void **state)
{
    (void)state;
    size_t len;
    char *text = s_read("windows_exporter.txt", &len);
    lg_telem_vals_t v = {0};
    char err[256];
    assert_int_equal(lg_telem_extract(text, len, NULL, 0, &v, err, sizeof err), 0);
    s_near(lg_telem_get(&v, "cpu.idle"), 8123.25);
    s_near(lg_telem_get(&v, "cpu.privileged"), 300.5);
    s_near(lg_telem_get(&v, "cpu.user"), 600.125);
    /* interrupt and DPC time is inside privileged: kept apart, so modes still partition time */
    assert_true(isnan(lg_telem_get(&v, "cpu.dpc")));
    s_near(lg_telem_get(&v, "cpux.dpc"), 1.5);
    s_near(lg_telem_get(&v, "mem.total"), 3.4359738368e+10);
    s_near(lg_telem_get(&v, "mem.avail"), 2.147483648e+10);
    /* no physical_disk collector: the volumes stand in */
    s_near(lg_telem_get(&v, "disk.read.C:"), 5.36870912e+08);
    s_near(lg_telem_get(&v, "disk.idle.C:"), 9000.5);
    s_near(lg_telem_get(&v, "net.tx.Intel_R__Ethernet_Connection_I219_V"), 8.765432e+06);
    lg_telem_vals_clear(&v);
    free(text);
}

static void test_stacked_and_bad(void **state)
{
    (void)state;
    const char *t = "node_disk_read_bytes_total{device=\"sda\"} 10\n"
                    "node_disk_read_bytes_total{device=\"dm-0\"} 10\n"
                    "node_disk_read_bytes_total{device=\"zd16\"} 10\n"
                    "node_network_receive_bytes_total{device=\"lo\"} 99\n"
                    "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} NaN\n";
    lg_telem_vals_t v = {0};
    char err[256];
    assert_int_equal(lg_telem_extract(t, strlen(t), NULL, 0, &v, err, sizeof err), 0);
    s_near(lg_telem_get(&v, "disk.read.sda"), 10);
    s_near(lg_telem_get(&v, "vdisk.read.dm-0"), 10);
    s_near(lg_telem_get(&v, "vdisk.read.zd16"), 10);
    assert_true(isnan(lg_telem_get(&v, "disk.read.dm-0")));
    assert_true(isnan(lg_telem_get(&v, "net.rx.lo")));
    assert_true(isnan(lg_telem_get(&v, "cpu.idle"))); /* NaN is no value */
    lg_telem_vals_clear(&v);
    /* an HTML page, an empty answer: not an exposition */
    const char *html = "<!DOCTYPE html>\n<html><body>login</body></html>\n";
    assert_int_equal(lg_telem_extract(html, strlen(html), NULL, 0, &v, err, sizeof err), LG_EPARSE);
    assert_int_equal(lg_telem_extract("", 0, NULL, 0, &v, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "Prometheus"));
    /* more series than kept: the rest dropped and counted */
    size_t cap = 1500 * 64, n = 0;
    char *big = malloc(cap);
    for (int i = 0; i < 1500; i++)
        n += (size_t)snprintf(big + n, cap - n, "my_metric{i=\"%d\"} %d\n", i, i);
    const char *ex[] = {"my_metric"};
    assert_int_equal(lg_telem_extract(big, n, ex, 1, &v, err, sizeof err), 0);
    assert_int_equal(v.n, LG_TELEM_MAX_KEYS);
    assert_int_equal(v.dropped, 1500 - LG_TELEM_MAX_KEYS);
    s_near(lg_telem_get(&v, "x.my_metric{i=\"7\"}"), 7);
    lg_telem_vals_clear(&v);
    free(big);
}

/* Label values as PostgreSQL's text takes them: a device named by 100 "é" (200 bytes) cut on a
 * character boundary, not at byte 183 in the middle of one; bytes that are not UTF-8 (and a NUL
 * the exporter escaped in no way) replaced by U+FFFD; both counted for the controller's warning. */
static void test_utf8_labels(void **state)
{
    (void)state;
    char e100[201], t[2048];
    for (int i = 0; i < 100; i++)
        memcpy(e100 + 2 * i, "\xc3\xa9", 2);
    e100[200] = 0;
    snprintf(t, sizeof t,
             "node_disk_read_bytes_total{device=\"%s\"} 5\n"
             "node_disk_written_bytes_total{device=\"sd\xffx\"} 6\n"
             "node_network_receive_bytes_total{device=\"eth\xc3\"} 7\n"
             "my_metric{v=\"\xe2\x82\"} 8\n"
             "node_disk_read_bytes_total{device=\"sda\"} 9\n",
             e100);
    const char *ex[] = {"my_metric"};
    lg_telem_vals_t v = {0};
    char err[256], want[256];
    assert_int_equal(lg_telem_extract(t, strlen(t), ex, 1, &v, err, sizeof err), 0);
    snprintf(want, sizeof want, "disk.read.%.182s", e100); /* 91 characters: 182 bytes */
    s_near(lg_telem_get(&v, want), 5);
    s_near(lg_telem_get(&v, "disk.written.sd\xef\xbf\xbdx"), 6);
    s_near(lg_telem_get(&v, "net.rx.eth\xef\xbf\xbd"), 7);
    s_near(lg_telem_get(&v, "x.my_metric{v=\"\xef\xbf\xbd\"}"), 8);
    s_near(lg_telem_get(&v, "disk.read.sda"), 9);
    for (size_t i = 0; i < v.n; i++)
        assert_true(lg_utf8_valid(v.keys[i], strlen(v.keys[i])));
    assert_int_equal(v.replaced, 1 + 1 + 2); /* \xff, \xc3, \xe2\x82 */
    assert_int_equal(v.cut, 1);
    lg_telem_vals_clear(&v);
    /* nothing to change: nothing counted */
    const char *ok = "node_disk_read_bytes_total{device=\"nvme0n1\"} 1\n";
    assert_int_equal(lg_telem_extract(ok, strlen(ok), NULL, 0, &v, err, sizeof err), 0);
    assert_int_equal(v.replaced, 0);
    assert_int_equal(v.cut, 0);
    lg_telem_vals_clear(&v);
}

/* The system's facts (node_exporter's uname and os collectors, captured here): kept in keys, for
 * lg-export's test bed. */
static void test_os_facts(void **state)
{
    (void)state;
    size_t len;
    char *text = s_read("node_exporter_os.txt", &len);
    lg_telem_vals_t v = {0};
    char err[256];
    assert_int_equal(lg_telem_extract(text, len, NULL, 0, &v, err, sizeof err), 0);
    s_near(lg_telem_get(&v, "os.sysname.Linux"), 1);
    s_near(lg_telem_get(&v, "os.release.6.18.44-fc-v1300"), 1);
    s_near(lg_telem_get(&v, "os.name.Debian GNU/Linux 12 (bookworm)"), 1);
    assert_int_equal(v.n, 3);
    lg_telem_vals_clear(&v);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_os_facts),        cmocka_unit_test(test_linux),
        cmocka_unit_test(test_freebsd_zfs),     cmocka_unit_test(test_windows),
        cmocka_unit_test(test_stacked_and_bad), cmocka_unit_test(test_utf8_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

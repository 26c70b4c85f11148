/* test_prom: the Prometheus text exposition reader on real node_exporter output (Debian's
 * prometheus-node-exporter 1.5, captured), FreeBSD's, windows_exporter's and ZFS series as their
 * collectors write them, the format's own cases, and bad or oversized input. */
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
#include "lg_prom.h"
#include "lg_util.h"

typedef struct {
    size_t n;
    char names[64][128];
    char labels[64][256]; /* "k=v;k=v" */
    double values[64];
    lg_prom_type_t types[64];
    int64_t ts[64];
    size_t stop_at; /* return 1 at this sample (1-based), 0: never */
} got_t;

static int s_collect(void *arg, const lg_prom_sample_t *s)
{
    got_t *g = arg;
    if (g->n < 64) {
        snprintf(g->names[g->n], sizeof g->names[0], "%s", s->name);
        size_t o = 0;
        g->labels[g->n][0] = 0;
        for (size_t i = 0; i < s->nlabels && o < sizeof g->labels[0]; i++)
            o += (size_t)snprintf(g->labels[g->n] + o, sizeof g->labels[0] - o, "%s%s=%s",
                                  i ? ";" : "", s->labels[i].name, s->labels[i].value);
        g->values[g->n] = s->value;
        g->types[g->n] = s->type;
        g->ts[g->n] = s->has_ts ? s->ts_ms : -1;
    }
    g->n++;
    return g->stop_at && g->n == g->stop_at ? 1 : 0;
}

static char *s_read(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/prom/%s", LG_TEST_DATA_DIR, name);
    char *buf = NULL;
    assert_int_equal(lg_read_file(path, 1u << 24, &buf, len), 0);
    return buf;
}

static int s_find(const got_t *g, const char *name, const char *labels)
{
    for (size_t i = 0; i < g->n && i < 64; i++)
        if (!strcmp(g->names[i], name) && (!labels || !strcmp(g->labels[i], labels)))
            return (int)i;
    return -1;
}

/* Every sample line of the real capture, its types, and the figures the file says. */
typedef struct {
    size_t n, cpu, disk_io, counters, gauges;
    double memavail;
} node_t;

static int s_node(void *arg, const lg_prom_sample_t *s)
{
    node_t *t = arg;
    t->n++;
    t->counters += s->type == LG_PROM_COUNTER;
    t->gauges += s->type == LG_PROM_GAUGE;
    if (!strcmp(s->name, "node_cpu_seconds_total")) {
        assert_int_equal(s->type, LG_PROM_COUNTER);
        assert_non_null(lg_prom_label(s, "cpu"));
        assert_non_null(lg_prom_label(s, "mode"));
        t->cpu++;
    }
    if (!strcmp(s->name, "node_disk_io_time_seconds_total"))
        t->disk_io++;
    if (!strcmp(s->name, "node_memory_MemAvailable_bytes")) {
        assert_int_equal(s->type, LG_PROM_GAUGE);
        t->memavail = s->value;
    }
    return 0;
}

static void test_node_exporter_linux(void **state)
{
    (void)state;
    size_t len;
    char *text = s_read("node_exporter_linux.txt", &len);
    size_t lines = 0, cpu = 0;
    double memavail = 0;
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (*p != '#' && *p != '\n')
            lines++;
        if (!strncmp(p, "node_cpu_seconds_total{", 23))
            cpu++;
        if (!strncmp(p, "node_memory_MemAvailable_bytes ", 31))
            memavail = strtod(p + 31, NULL);
        p = nl ? nl + 1 : NULL;
    }
    node_t t = {0};
    char err[256];
    assert_int_equal(lg_prom_parse(text, len, NULL, s_node, &t, err, sizeof err), 0);
    assert_true(lines > 100);
    assert_int_equal(t.n, lines);
    assert_int_equal(t.cpu, cpu);
    assert_true(t.disk_io >= 1);
    assert_true(t.counters > 0 && t.gauges > 0);
    assert_true(memavail > 0);
    assert_true(t.memavail == memavail);
    free(text);
}

static void test_freebsd_windows_zfs(void **state)
{
    (void)state;
    char err[256];
    size_t len;
    got_t g = {0};
    char *text = s_read("zfs_linux.txt", &len);
    assert_int_equal(lg_prom_parse(text, len, NULL, s_collect, &g, err, sizeof err), 0);
    free(text);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.types[0], LG_PROM_UNTYPED); /* Linux's arcstats: untyped counters */
    assert_true(g.values[0] == 1234567.0);
    assert_true(g.values[2] == 8589934592.0);

    memset(&g, 0, sizeof g);
    text = s_read("freebsd.txt", &len);
    assert_int_equal(lg_prom_parse(text, len, NULL, s_collect, &g, err, sizeof err), 0);
    free(text);
    int i = s_find(&g, "node_devstat_bytes_total", "device=ada0;type=write");
    assert_true(i >= 0);
    assert_true(g.values[i] == 2147483648.0);
    i = s_find(&g, "node_zfs_arcstats_hits_total", "");
    assert_true(i >= 0);
    assert_int_equal(g.types[i], LG_PROM_COUNTER);
    assert_true(g.values[i] == 9876540.0);
    i = s_find(&g, "node_cpu_seconds_total", "cpu=0;mode=user");
    assert_true(i >= 0 && g.values[i] == 3456.125);

    memset(&g, 0, sizeof g);
    text = s_read("windows_exporter.txt", &len);
    assert_int_equal(lg_prom_parse(text, len, NULL, s_collect, &g, err, sizeof err), 0);
    free(text);
    i = s_find(&g, "windows_cpu_time_total", "core=0,0;mode=idle");
    assert_true(i >= 0 && g.values[i] == 8123.25);
    i = s_find(&g, "windows_logical_disk_idle_seconds_total", "volume=C:");
    assert_true(i >= 0 && g.values[i] == 9000.5);
}

static void test_format_cases(void **state)
{
    (void)state;
    char err[256];
    size_t len;
    got_t g = {0};
    char *text = s_read("format.txt", &len);
    assert_int_equal(lg_prom_parse(text, len, NULL, s_collect, &g, err, sizeof err), 0);
    free(text);
    assert_int_equal(g.n, 14);
    int i = s_find(&g, "http_requests_total", "method=post;code=400");
    assert_true(i >= 0);
    assert_true(g.values[i] == 3);
    assert_true(g.ts[i] == 1395066363000);
    assert_int_equal(g.types[i], LG_PROM_COUNTER);
    i = s_find(&g, "msdos_file_access_time_seconds", NULL);
    assert_string_equal(g.labels[i],
                        "path=C:\\DIR\\FILE.TXT;error=Cannot find file:\n\"FILE.TXT\"");
    i = s_find(&g, "something_weird", NULL);
    assert_true(isinf(g.values[i]) && g.values[i] > 0);
    assert_true(g.ts[i] == -3982045);
    i = s_find(&g, "nan_value", NULL);
    assert_true(isnan(g.values[i]));
    i = s_find(&g, "neg_inf", "a=b");
    assert_true(isinf(g.values[i]) && g.values[i] < 0);
    i = s_find(&g, "http_request_duration_seconds_bucket", "le=+Inf");
    assert_int_equal(g.types[i], LG_PROM_HISTOGRAM);
    i = s_find(&g, "http_request_duration_seconds_count", "");
    assert_int_equal(g.types[i], LG_PROM_HISTOGRAM);
    assert_true(g.values[i] == 144320);
    i = s_find(&g, "metric_without_timestamp_and_labels", "");
    assert_int_equal(g.types[i], LG_PROM_UNTYPED);
    assert_true(g.values[i] == 12.47 && g.ts[i] == -1);
    i = s_find(&g, "spaced_out", "a=1;b=2");
    assert_true(i >= 0 && g.values[i] == 7);
    i = s_find(&g, "crlf_line2", "");
    assert_true(i >= 0 && g.values[i] == 6);
}

/* Each bad line is refused with its line number; the samples before it were delivered. */
static void test_bad_input(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"ok 1\nbad{a=\"1\" 2\n", "line 2: ',' or '}' was expected"},
        {"ok 1\nbad{a=\"1} 2\n", "line 2: a label value is not closed"},
        {"ok 1\nbad{a=1} 2\n", "line 2: a label value must be quoted"},
        {"ok 1\nbad{a=\"\\x\"} 2\n", "line 2: an unknown escape"},
        {"ok 1\nbad{=\"1\"} 2\n", "line 2: a label name was expected"},
        {"ok 1\nbad twelve\n", "line 2: the sample's value is not a number"},
        {"ok 1\nbad\n", "line 2: the sample's value is not a number"},
        {"ok 1\nbad 1 12.5\n", "line 2: the sample's timestamp is not an integer"},
        {"ok 1\nbad 1 2 3\n", "line 2: the sample's timestamp is not an integer"},
        {"ok 1\n9bad 1\n", "line 2: a metric name was expected"},
        {"ok 1\n<html><body>404</body></html>\n", "line 2: a metric name was expected"},
        {"ok 1\nbad=1\n", "line 2: a space was expected"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        got_t g = {0};
        char err[256] = "";
        int rc = lg_prom_parse(cases[k].text, strlen(cases[k].text), NULL, s_collect, &g, err,
                               sizeof err);
        if (rc != LG_EPARSE || !strstr(err, cases[k].want))
            fail_msg("case %zu: rc %d, err \"%s\", want \"%s\"", k, rc, err, cases[k].want);
        assert_int_equal(g.n, 1);
    }
    /* 17 labels */
    char many[1024] = "m{";
    for (int i = 0; i < 17; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "l%d=\"v\",", i);
    snprintf(many + strlen(many), sizeof many - strlen(many), "} 1\n");
    got_t g = {0};
    char err[256];
    assert_int_equal(lg_prom_parse(many, strlen(many), NULL, s_collect, &g, err, sizeof err),
                     LG_EPARSE);
    assert_non_null(strstr(err, "more than 16 labels"));
    /* A NUL byte inside a line. */
    const char nul[] = "ok 1\nb\0ad 2\n";
    assert_int_equal(lg_prom_parse(nul, sizeof nul - 1, NULL, s_collect, &g, err, sizeof err),
                     LG_EPARSE);
    assert_non_null(strstr(err, "line 2: a NUL byte"));
}

static void test_limits_and_stop(void **state)
{
    (void)state;
    char err[256];
    got_t g = {0};
    const char *text = "a 1\nb 2\nc 3\n";
    lg_prom_limits_t lim = {.max_bytes = 5};
    assert_int_equal(lg_prom_parse(text, strlen(text), &lim, s_collect, &g, err, sizeof err),
                     LG_ETOOBIG);
    assert_int_equal(g.n, 0);
    lg_prom_limits_t lim2 = {.max_samples = 2};
    assert_int_equal(lg_prom_parse(text, strlen(text), &lim2, s_collect, &g, err, sizeof err),
                     LG_ETOOBIG);
    assert_int_equal(g.n, 2);
    assert_non_null(strstr(err, "more than 2 samples"));
    lg_prom_limits_t lim3 = {.max_line = 3};
    memset(&g, 0, sizeof g);
    const char *longer = "a 1\nbbbb 2\n";
    assert_int_equal(lg_prom_parse(longer, strlen(longer), &lim3, s_collect, &g, err, sizeof err),
                     LG_ETOOBIG);
    assert_non_null(strstr(err, "line 2: longer than 3 bytes"));
    memset(&g, 0, sizeof g);
    g.stop_at = 2;
    assert_int_equal(lg_prom_parse(text, strlen(text), NULL, s_collect, &g, err, sizeof err), 1);
    assert_int_equal(g.n, 2);
    /* No final newline; an empty text. */
    memset(&g, 0, sizeof g);
    assert_int_equal(lg_prom_parse("x 5", 3, NULL, s_collect, &g, err, sizeof err), 0);
    assert_int_equal(g.n, 1);
    assert_int_equal(lg_prom_parse("", 0, NULL, s_collect, &g, err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_exporter_linux), cmocka_unit_test(test_freebsd_windows_zfs),
        cmocka_unit_test(test_format_cases),        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_limits_and_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

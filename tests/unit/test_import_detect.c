/* test_import_detect.c: lgctl import tells a file's format from its content (import_detect.c):
 * every real fio output in tests/data/fio-versions is fio JSON (text before it, a status
 * stream, client mode); the other formats' openings as their tools print them (DiskSpd's XML
 * and text, sysbench's and pgbench's reports, lg's CSV), with and without a byte-order mark;
 * and text that is none of them is nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "import_detect.h"

#ifndef LG_SOURCE_DIR
#define LG_SOURCE_DIR "."
#endif

static const char *s_name(const char *text)
{
    const lg_import_format_t *f = lg_import_detect(text, strlen(text));
    return f ? f->name : "none";
}

static void s_expect(const char *text, const char *want)
{
    const char *got = s_name(text);
    if (strcmp(got, want) != 0)
        fail_msg("\"%.60s...\": %s, want %s", text, got, want);
    /* A byte-order mark before it changes nothing. */
    size_t n = strlen(text);
    char *bom = malloc(n + 4);
    assert_non_null(bom);
    memcpy(bom, "\xEF\xBB\xBF", 3);
    memcpy(bom + 3, text, n + 1);
    got = s_name(bom);
    if (strcmp(got, want) != 0)
        fail_msg("BOM + \"%.60s...\": %s, want %s", text, got, want);
    free(bom);
}

static void test_detect_fio_fixtures(void **state)
{
    (void)state;
    static const char *const versions[] = {"2.2.10", "2.21", "3.1", "3.7", "3.16", "3.19", "3.28"};
    static const char *const kinds[] = {"twojobs.json", "latpct.json",    "latpct.jsonplus",
                                        "groups.json",  "failed.json",    "client.json",
                                        "stream.json",  "normal-json.txt"};
    int n = 0;
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++)
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/tests/data/fio-versions/fio-%s.%s", LG_SOURCE_DIR,
                     versions[v], kinds[k]);
            FILE *f = fopen(path, "rb");
            if (!f)
                continue;
            static char buf[1 << 20];
            size_t len = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[len] = 0;
            const lg_import_format_t *fmt = lg_import_detect(buf, len);
            if (!fmt || strcmp(fmt->name, "fio JSON") != 0)
                fail_msg("%s: %s", path, fmt ? fmt->name : "none");
            n++;
        }
    assert_true(n >= 50);
}

static void test_detect_others(void **state)
{
    (void)state;
    s_expect("{\n  \"fio version\" : \"fio-2.1.4\",\n  \"jobs\" : [\n", "fio JSON");
    s_expect("fio: note: both iodepth >= 1 and synchronous I/O engine\n{\n  \"jobs\": []\n}\n",
             "fio JSON");
    s_expect("{\"jobs\": [{\"jobname\": \"a\"}]}", "fio JSON");
    s_expect("profile,direction,metric,value,unit,build\n4k-rand,read,iops,1000,IOPS,x\n",
             "lg's results CSV");
    s_expect("<?xml version=\"1.0\"?>\n<Results>\n  <System>\n    <ComputerName>h</ComputerName>\n"
             "    <Tool><Version>2.0.21a</Version></Tool>\n  </System>\n  <Profile>\n"
             "    <TimeSpans><TimeSpan><Duration>10</Duration></TimeSpan></TimeSpans>\n",
             "DiskSpd XML output");
    s_expect("\nCommand Line: diskspd.exe -c1G -d120 -r -w50 -t8 -o8 -b4K -Sh -L testfile.dat\n\n"
             "Input parameters:\n\n\ttimespan:   1\n\nResults for timespan 1:\n\nTotal IO\n"
             "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  file\n",
             "DiskSpd text output");
    s_expect("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nRunning the test with "
             "following options:\nNumber of threads: 16\n\nSQL statistics:\n\nGeneral statistics:\n"
             "    total time:                          60.0049s\n",
             "sysbench output");
    s_expect("pgbench (15.4 (Debian 15.4-1.pgdg120+1))\nstarting vacuum...end.\ntransaction type: "
             "<builtin: TPC-B (sort of)>\nscaling factor: 10\nquery mode: simple\nnumber of "
             "clients: 8\nnumber of threads: 2\n",
             "pgbench output");
    s_expect("r: (g=0): rw=randread, bs=8K-8K/8K-8K/8K-8K, ioengine=null, iodepth=4\nfio-2.2.10\n"
             "Starting 1 process\n\nr: (groupid=0, jobs=1): err= 0: pid=9842: Mon Dec  7\n",
             "fio's text report");
    s_expect("hello\n", "none");
    s_expect("", "none");
    s_expect("{\"a\": 1}", "none");
    s_expect("a,b,c\n1,2,3\n", "none");
}

/* The table: every format named, an importer or a reason, and what a store counts. */
static void test_detect_table(void **state)
{
    (void)state;
    size_t n = 0;
    const lg_import_format_t *f = lg_import_formats(&n);
    assert_true(n >= 7);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(f[i].name);
        assert_non_null(f[i].sniff);
        assert_true(f[i].store ? f[i].count_what != NULL : f[i].refusal != NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_fio_fixtures),
        cmocka_unit_test(test_detect_others),
        cmocka_unit_test(test_detect_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

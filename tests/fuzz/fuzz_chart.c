/* fuzz_chart.c: fuzz target for lg-export's query files: the directive header ("-- key: value"
 * lines) and the :campaign binder that rewrites the SQL under it, plus the timestamp reader of
 * time series. A query directory may be shared, so its files are input to check. Built with
 * libFuzzer, or with -DLG_FUZZ_STANDALONE and fuzz_driver.c for a plain main(). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* lg_chart_parse reads a file: one temporary NAME.sql per process, rewritten for every input. */
static char s_path[64];

static void s_cleanup(void)
{
    if (s_path[0])
        unlink(s_path);
}

static int s_write(const uint8_t *data, size_t size)
{
    if (!s_path[0]) {
        snprintf(s_path, sizeof s_path, "/tmp/lg_fuzz_chart_%d.sql", (int)getpid());
        atexit(s_cleanup);
    }
    FILE *f = fopen(s_path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || w != size)
        return -1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LG_FUZZ_MAX_INPUT)
        return 0;

    /* The binder on its own, over the whole input as a NUL-terminated string. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    bool used = false;
    char *sql = lg__bind_campaign(text, &used);
    if (sql && !used && strcmp(sql, text) != 0)
        abort(); /* without a :campaign the query must be unchanged */
    free(sql);

    /* A short input is a timestamp too. */
    if (size < 64) {
        double epoch;
        (void)lg_chart_parse_time(text, &epoch);
    }
    free(text);

    /* The whole parser, over the input as a file. */
    if (s_write(data, size) == 0) {
        lg_chart_spec_t spec;
        char err[512], sub[1024];
        if (lg_chart_parse(s_path, &spec, err, sizeof err) == 0) {
            if (!spec.sql || !spec.x[0])
                abort(); /* a parsed chart has SQL and x */
            lg_chart_subline(&spec, sub, sizeof sub);
            (void)lg_chart_kind_name(spec.kind);
        }
        lg_chart_spec_free(&spec);
    }
    return 0;
}

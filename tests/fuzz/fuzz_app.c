/* fuzz_app.c: fuzz target for the readers of pgbench's and sysbench's output (core/lg_app.c),
 * which an agent will parse from a tool it runs against a server on a NAS. The first byte picks
 * the tool; the rest is the output: every line through lg_app_parse_line, the whole through
 * lg_app_parse_final. Whatever they accept must be numbers they could have read (finite or the
 * NAN of a figure the tool does not print, never negative); whatever they refuse must come with
 * a message. Built with libFuzzer, or with -DLG_FUZZ_STANDALONE and fuzz_driver.c. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lg_app.h"
#include "lg_error.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void s_check_num(double v)
{
    if (!isnan(v) && (!isfinite(v) || v < 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > LG_FUZZ_MAX_INPUT)
        return 0;
    lg_app_kind_t k = (data[0] & 1) ? LG_APP_SYSBENCH_OLTP : LG_APP_PGBENCH;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    char *line = malloc(len + 1), err[512];
    if (!line)
        return 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && text[i] != '\n')
            continue;
        memcpy(line, text + start, i - start);
        line[i - start] = '\0';
        lg_app_sample_t s;
        err[0] = '\0';
        int rc = lg_app_parse_line(k, line, &s, err, sizeof err);
        if (rc == 1) {
            s_check_num(s.tps);
            s_check_num(s.qps);
        } else if (rc != 0 && (rc != LG_EPARSE || !err[0] || !memchr(err, '\0', sizeof err))) {
            abort(); /* a refusal says why */
        }
        start = i + 1;
    }
    free(line);
    lg_app_total_t t;
    err[0] = '\0';
    int rc = lg_app_parse_final(k, text, len, &t, err, sizeof err);
    if (rc == 0) {
        s_check_num(t.tps);
    } else if (!err[0] || !memchr(err, '\0', sizeof err)) {
        abort();
    }
    return 0;
}

/* fuzz_fio.c: fuzz target for lg_fio's splitter and report reader, which read fio's output.
 * Built with libFuzzer (-fsanitize=fuzzer) it is a normal target; built with
 * -DLG_FUZZ_STANDALONE it has a main() that runs each file named on the command line once. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_fio.h"
#include "lg_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Use everything a parsed report offers, so the sanitizers see it read. */
static void s_use_report(const lg_fio_report_t *r)
{
    lg_dirstats_t *tot = malloc(sizeof(*tot)), *d = malloc(sizeof(*d));

    if (!tot || !d)
        goto done;
    for (int dir = 0; dir < LG_DIR_NR; dir++) {
        lg_fio_report_total(r, (lg_dir_t)dir, tot);
        for (unsigned p = 0; p < LG_NPCT; p++)
            (void)lg_hist_percentile(&tot->hist, lg_pct_list[p]);
        lg_dirstats_delta(d, tot, &r->jobs[0].dir[dir]);
        lg_dirstats_delta(d, &r->jobs[0].dir[dir], tot);
    }
done:
    free(tot);
    free(d);
}

static void s_parse(const char *text, size_t len)
{
    lg_fio_report_t *r = NULL;
    char err[256];

    if (lg_fio_report_parse(text, len, &r, err, sizeof(err)) == 0) {
        s_use_report(r);
        lg_fio_report_destroy(&r);
    } else if (r) {
        abort(); /* a failed parse must leave *out NULL */
    }
}

static void s_on_object(void *arg, const char *text, size_t len)
{
    (void)arg;
    if (text[len] != '\0')
        abort(); /* objects are NUL-terminated at len */
    s_parse(text, len);
}

static void s_on_noise(void *arg, const char *line, size_t len)
{
    (void)arg;
    if (line[len] != '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    /* The first byte picks a chunk size and a small object cap, so that chunk boundaries and
     * the size limit are explored too. */
    size_t chunk = size > 0 ? (size_t)data[0] % 67 + 1 : 1;
    size_t cap = size > 1 && (data[1] & 1) ? (size_t)data[1] * 16 : (size_t)1 << 20;
    lg_fio_splitter_t *s;

    s_parse(text, size);

    s = lg_fio_splitter_new(cap, s_on_object, s_on_noise, NULL);
    if (!s)
        return 0;
    for (size_t pos = 0; pos < size; pos += chunk)
        (void)lg_fio_splitter_feed(s, text + pos, size - pos < chunk ? size - pos : chunk);
    lg_fio_splitter_destroy(&s);
    return 0;
}

#ifdef LG_FUZZ_STANDALONE
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        char *buf = NULL;
        size_t len = 0, cap = 0, n;

        if (!f) {
            fprintf(stderr, "could not open \"%s\"\n", argv[i]);
            return 1;
        }
        do {
            if (len == cap) {
                char *p = realloc(buf, cap ? cap * 2 : 65536);

                if (!p) {
                    fprintf(stderr, "out of memory reading \"%s\"\n", argv[i]);
                    free(buf);
                    fclose(f);
                    return 1;
                }
                buf = p;
                cap = cap ? cap * 2 : 65536;
            }
            n = fread(buf + len, 1, cap - len, f);
            len += n;
        } while (n > 0);
        fclose(f);
        LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
        free(buf);
        printf("%s: ok (%zu bytes)\n", argv[i], len);
    }
    return 0;
}
#endif

/* fuzz_prom.c: fuzz target for the Prometheus text exposition reader (core/lg_prom.c), which the
 * controller will run on whatever a NAS's exporter (or anything at that address) answers. It
 * must never read or write out of bounds; every sample it delivers has a name that is a metric
 * name, at most 16 labels with names, and labels found again by lg_prom_label; a refusal comes
 * with a message. What the controller keeps of it (lg_telem_extract) is driven too: at most
 * LG_TELEM_MAX_KEYS keys, each short, unique and with no quote or control character but in an
 * extra's label part. Built with libFuzzer, or with -DLG_FUZZ_STANDALONE and fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_prom.h"
#include "lg_telem.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int s_check(void *arg, const lg_prom_sample_t *s)
{
    size_t *n = arg;
    (*n)++;
    if (!s->name || !s->name[0] || strlen(s->name) > 65536 || s->nlabels > LG_PROM_MAX_LABELS)
        abort();
    for (size_t i = 0; i < s->nlabels; i++) {
        if (!s->labels[i].name[0] || !s->labels[i].value)
            abort();
        if (!lg_prom_label(s, s->labels[i].name))
            abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LG_FUZZ_MAX_INPUT)
        return 0;
    /* Small limits too, so that every limit's path is reached. */
    lg_prom_limits_t small = {.max_bytes = 4096, .max_line = 256, .max_samples = 16};
    const lg_prom_limits_t *lims[] = {NULL, &small};
    for (size_t k = 0; k < 2; k++) {
        char err[256] = "";
        size_t n = 0;
        int rc = lg_prom_parse((const char *)data, size, lims[k], s_check, &n, err, sizeof err);
        if (rc != 0 && err[0] == 0)
            abort();
        if (rc == 0 && k == 1 && n > 16)
            abort();
    }
    lg_telem_vals_t v = {0};
    const char *extras[] = {"a", "node_*", "x_total"};
    char err[256] = "";
    int rc = lg_telem_extract((const char *)data, size, extras, 3, &v, err, sizeof err);
    if (rc != 0 && (err[0] == 0 || v.n != 0))
        abort();
    if (v.n > LG_TELEM_MAX_KEYS)
        abort();
    for (size_t i = 0; i < v.n; i++) {
        size_t len = strlen(v.keys[i]);
        if (len == 0 || len >= LG_TELEM_KEY_MAX + 64)
            abort();
        for (size_t j = 0; j < i && v.n < 200; j++)
            if (!strcmp(v.keys[i], v.keys[j]))
                abort();
        int extra = !strncmp(v.keys[i], "x.", 2);
        for (size_t c = 0; c < len; c++)
            if ((unsigned char)v.keys[i][c] < 0x20 || (!extra && v.keys[i][c] == '"'))
                abort();
    }
    lg_telem_vals_clear(&v);
    return 0;
}

/* fuzz_diskspd.c: fuzz target for the readers of results made elsewhere that "lgctl import"
 * takes: DiskSpd's XML and text output (with its UTF-8/UTF-16 decoding) and sysbench/pgbench
 * output. Only the pure parsers run, no database; what they accept must be figures lg can store
 * (a test time over 0, at least one timespan, a tps that is a number). Built with libFuzzer, or
 * with -DLG_FUZZ_STANDALONE and fuzz_driver.c for a plain main(). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_app.h"
#include "import_diskspd.h"
#include "lg_error.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static lg_diskspd_t ds;
    char err[1024], *text = NULL;
    size_t len = 0;
    const char *fmt = NULL;

    if (size > LG_FUZZ_MAX_INPUT)
        return 0;
    lg_import_diskspd_sniff((const char *)data, size, &fmt);
    lg_import_app_sniff((const char *)data, size, &fmt);
    err[0] = '\0';
    if (lg_diskspd_to_utf8((const char *)data, size, &text, &len, err, sizeof err) == 0) {
        if (lg_diskspd_parse(text, len, &ds, err, sizeof err) == 0) {
            if (ds.nspans == 0 || ds.nspans > LG_DISKSPD_MAX_SPANS)
                abort();
            for (size_t k = 0; k < ds.nspans; k++)
                if (!(ds.spans[k].test_s > 0) || ds.spans[k].dir[0].npct > LG_DISKSPD_MAX_PCT ||
                    ds.spans[k].dir[1].npct > LG_DISKSPD_MAX_PCT)
                    abort();
        } else if (memchr(err, '\0', sizeof err) == NULL) {
            abort(); /* the message must stay a string */
        }
        lg_diskspd_clear(&ds);
        lg_app_total_t a;
        if (lg_import_app_parse(text, len, &a, err, sizeof err) == 0 && !isfinite(a.tps))
            abort();
        free(text);
    }
    return 0;
}

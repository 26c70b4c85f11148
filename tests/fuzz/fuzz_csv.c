/* fuzz_csv.c: fuzz target for the CSV reader of "lgctl import results" (a file a user got from
 * elsewhere). Only the pure parser runs, no database; whatever it accepts must be a JSON array
 * of as many figures as it counted. Built with libFuzzer, or with -DLG_FUZZ_STANDALONE and
 * fuzz_driver.c for a plain main(). */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_results.h"
#include "lg_error.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *rows = NULL, err[4096];
    size_t n = 0;

    if (size > LG_FUZZ_MAX_INPUT)
        return 0;
    err[0] = '\0';
    int rc = lg_results_csv_parse("fuzz.csv", (const char *)data, size, &rows, &n, err, sizeof err);
    if (rc == 0) {
        json_t *j = json_loads(rows, 0, NULL);
        if (!j || !json_is_array(j) || json_array_size(j) != n)
            abort(); /* the rows must be the JSON array that was counted */
        json_decref(j);
        free(rows);
    } else if (memchr(err, '\0', sizeof err) == NULL) {
        abort(); /* the message must stay a string */
    }
    return 0;
}

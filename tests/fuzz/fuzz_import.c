/* fuzz_import.c: fuzz target for what "lgctl import FILE..." reads before the database: the
 * format sniffers (import_detect.c) and the cutting of a fio output file into its final reports
 * (import_read.c: streams, appended runs, text around the JSON). Built with libFuzzer, or with
 * -DLG_FUZZ_STANDALONE and fuzz_driver.c for a plain main(). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_detect.h"
#include "import_int.h"
#include "lg_error.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LG_FUZZ_MAX_INPUT)
        return 0;
    const char *text = (const char *)data;
    const lg_import_format_t *f = lg_import_detect(text, size);
    if (f && (!f->name || !f->sniff))
        abort();
    fio_finals_t fin;
    char err[2048];
    err[0] = '\0';
    if (lg__import_read_text("fuzz.json", text, size, &fin, err, sizeof err) == 0) {
        if (fin.n == 0)
            abort(); /* success means at least one report */
        for (size_t i = 0; i < fin.n; i++)
            if (!fin.v[i].rep || fin.v[i].rep->njobs == 0 || fin.v[i].text[fin.v[i].len] != '\0')
                abort();
        lg__import_finals_clear(&fin);
    } else if (fin.n != 0 || fin.v || memchr(err, '\0', sizeof err) == NULL) {
        abort(); /* nothing left behind, and the message stays a string */
    }
    return 0;
}

/* fuzz_spec.c: libFuzzer target for the campaign spec parser (specs may come from users over the
 * network). Build with -DLG_FUZZ_STANDALONE for a plain main() that replays the files on argv,
 * so the corpus runs in CI without libFuzzer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lg_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_spec_t *spec = NULL;
    lg_spec_diag_t diag;
    if (lg_spec_parse_text((const char *)data, size, "fuzz.yaml", &spec, &diag) == 0) {
        /* A spec that parses must also plan; exercise that and the diag formatter. */
        lg_run_plan_t *runs = NULL;
        size_t nruns = 0;
        if (lg_spec_plan(spec, &runs, &nruns) == 0)
            free(runs);
        lg_spec_destroy(&spec);
    } else {
        char buf[1024];
        lg_spec_diag_format(&diag, buf, sizeof buf);
    }
    return 0;
}

#ifdef LG_FUZZ_STANDALONE
#include <stdio.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        /* Slightly over the parser's 1 MiB cap so the size check is reachable too. */
        size_t cap = 1024 * 1024 + 16, len;
        uint8_t *buf = malloc(cap);
        if (!buf) {
            fclose(f);
            return 1;
        }
        len = fread(buf, 1, cap, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        printf("%s: ok (%zu bytes)\n", argv[i], len);
    }
    return 0;
}
#endif

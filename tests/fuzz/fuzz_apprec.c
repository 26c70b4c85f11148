/* fuzz_apprec.c: fuzz target for the reader of an application run's record (agent/apprec.c),
 * which lg-agent reads at start to find what a killed agent left and then signals processes and
 * removes folders by. Whatever it accepts must have the paths it promises (so that format takes
 * it back) and read back the same; whatever it refuses must come with a message. Built with
 * libFuzzer, or with -DLG_FUZZ_STANDALONE and fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apprec.h"
#include "lg_error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static lg_apprec_t rec, back;
    static char text[LG_APPREC_MAX_BYTES];
    char err[512] = "";
    if (lg_apprec_parse((const char *)data, size, &rec, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return 0;
    }
    if (rec.nprocs > LG_APPREC_MAX_PROCS)
        abort();
    int n = lg_apprec_format(&rec, text, sizeof text);
    if (n < 0 || lg_apprec_parse(text, (size_t)n, &back, err, sizeof err) != 0)
        abort();
    if (back.kind != rec.kind || back.run_id != rec.run_id || back.keep != rec.keep ||
        back.uid != rec.uid || strcmp(back.server, rec.server) || strcmp(back.data, rec.data) ||
        strcmp(back.sock, rec.sock) || back.data_dev != rec.data_dev ||
        back.data_ino != rec.data_ino || back.sock_dev != rec.sock_dev ||
        back.sock_ino != rec.sock_ino)
        abort();
    return 0;
}

/* datacheck: print what a ZFS pool would make of a file's data, for integration tests.
 * Usage: datacheck PATH UNIT [SECTOR]; UNIT and SECTOR in bytes, or with a k or m suffix.
 * Prints "records=N unique=N zero=N dedup=X zstd=X lz4=X" on stdout; exit 2 on bad usage. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lg_datacheck.h"
#include "lg_error.h"
#include "lg_util.h"

/* Bytes with an optional k or m suffix (powers of 1024). Returns 0 or LG_EPARSE. */
static int s_parse_size(const char *s, uint32_t *out)
{
    char num[32];
    size_t n = strlen(s);
    uint64_t mult = 1, v;

    if (n == 0 || n >= sizeof(num))
        return LG_EPARSE;
    memcpy(num, s, n + 1);
    if (num[n - 1] == 'k' || num[n - 1] == 'K')
        mult = 1024;
    else if (num[n - 1] == 'm' || num[n - 1] == 'M')
        mult = 1024 * 1024;
    if (mult > 1)
        num[n - 1] = 0;
    if (lg_parse_u64(num, 0, UINT32_MAX / mult, &v))
        return LG_EPARSE;
    *out = (uint32_t)(v * mult);
    return 0;
}

int main(int argc, char **argv)
{
    lg_datacheck_opts_t o = {0};
    if (argc < 3 || argc > 4 || s_parse_size(argv[2], &o.unit) ||
        (argc == 4 && s_parse_size(argv[3], &o.sector))) {
        fprintf(stderr, "usage: datacheck PATH UNIT [SECTOR]  (sizes in bytes, or with k/m)\n");
        return 2;
    }
    lg_datacheck_t r;
    char err[512];
    int rc = lg_datacheck_file_opts(argv[1], &o, &r, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "datacheck: %s\n", err);
        return rc == LG_EPARSE ? 2 : 1;
    }
    printf("records=%llu unique=%llu zero=%llu dedup=%.4f zstd=%.4f lz4=%.4f\n",
           (unsigned long long)r.records, (unsigned long long)r.unique, (unsigned long long)r.zero,
           r.dedup_ratio, r.zstd_ratio, r.lz4_ratio);
    return 0;
}

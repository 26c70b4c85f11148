/* datapattern_job: print the fio options lg writes for a data pattern, for integration tests.
 * Usage: datapattern_job COMPRESS_RATIO DEDUP_RATIO DEDUP_UNIT BS (sizes in bytes or with k/m).
 * Options go to stdout, the expected ratios to stderr. Exit 0; 3 when the pattern is refused
 * (LG_EPROTO, the reason on stderr); 2 on bad usage. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_datapattern.h"
#include "lg_error.h"
#include "lg_util.h"

static int s_parse_ratio(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return (errno || end == s || *end) ? LG_EPARSE : 0;
}

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
    if (lg_parse_u64(num, 1, UINT32_MAX / mult, &v))
        return LG_EPARSE;
    *out = (uint32_t)(v * mult);
    return 0;
}

int main(int argc, char **argv)
{
    lg_datapattern_t p;
    uint32_t bs;
    if (argc != 5 || s_parse_ratio(argv[1], &p.compress_ratio) ||
        s_parse_ratio(argv[2], &p.dedup_ratio) || s_parse_size(argv[3], &p.dedup_unit) ||
        s_parse_size(argv[4], &bs)) {
        fprintf(stderr, "usage: datapattern_job COMPRESS_RATIO DEDUP_RATIO DEDUP_UNIT BS\n");
        return 2;
    }
    char err[512];
    lg_datapattern_plan_t pl;
    int rc = lg_datapattern_plan(&p, bs, &pl, err, sizeof(err));
    if (!rc)
        rc = lg_datapattern_fio_options(&p, bs, stdout, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "datapattern_job: %s\n", err);
        return rc == LG_EPROTO ? 3 : 1;
    }
    fprintf(stderr, "expected: compress=%.3f dedup=%.3f dedup_one_pass=%.3f\n",
            pl.compress_expected, pl.dedup_expected, pl.dedup_expected_one_pass);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* fuzz_driver.c: the plain driver for fuzz targets built without libFuzzer. It replays every file
 * named on the command line once and, with -runs=N, then feeds N mutants of those seeds (byte
 * flips, insertions, deletions, splices; a fixed PRNG seed, so a failure reproduces). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t s_rng = 0x9e3779b97f4a7c15ull;

static uint64_t s_rand(void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 7;
    s_rng ^= s_rng << 17;
    return s_rng;
}

static size_t s_below(size_t n)
{
    return n ? (size_t)(s_rand() % n) : 0;
}

static int s_read(const char *path, uint8_t **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 0, n;

    *buf = NULL;
    *len = 0;
    if (!f) {
        fprintf(stderr, "could not open \"%s\"\n", path);
        return -1;
    }
    do {
        if (*len == cap) {
            uint8_t *p = realloc(*buf, cap ? cap * 2 : 4096);
            if (!p) {
                fclose(f);
                return -1;
            }
            *buf = p;
            cap = cap ? cap * 2 : 4096;
        }
        n = fread(*buf + *len, 1, cap - *len, f);
        *len += n;
    } while (n > 0 && *len <= LG_FUZZ_MAX_INPUT);
    fclose(f);
    if (*len > LG_FUZZ_MAX_INPUT)
        *len = LG_FUZZ_MAX_INPUT;
    return 0;
}

/* Bytes that parsers of text and protobuf care about. */
static const uint8_t s_special[] = {0,    0xff, 0x7f, 0x80, '\n', '\r', '"', ',',
                                    ':',  '-',  '$',  '\'', '{',  '}',  '[', ']',
                                    '\\', ' ',  0x08, 0x0a, 0x12, 0x1a};

/* One mutant of seed (with other for splices) into out (capacity LG_FUZZ_MAX_INPUT); returns its
 * size. */
static size_t s_mutate(uint8_t *out, const uint8_t *seed, size_t n, const uint8_t *other, size_t on)
{
    size_t len = n < LG_FUZZ_MAX_INPUT ? n : LG_FUZZ_MAX_INPUT;
    int steps = 1 + (int)s_below(8);

    memcpy(out, seed, len);
    for (int i = 0; i < steps; i++) {
        size_t at = s_below(len + 1), k;
        switch (s_below(7)) {
        case 0: /* flip a bit */
            if (len)
                out[s_below(len)] ^= (uint8_t)(1u << s_below(8));
            break;
        case 1: /* set a byte */
            if (len)
                out[s_below(len)] =
                    s_below(2) ? (uint8_t)s_rand() : s_special[s_below(sizeof s_special)];
            break;
        case 2: /* insert a byte */
            if (len < LG_FUZZ_MAX_INPUT) {
                memmove(out + at + 1, out + at, len - at);
                out[at] = s_below(2) ? (uint8_t)s_rand() : s_special[s_below(sizeof s_special)];
                len++;
            }
            break;
        case 3: /* delete a range */
            k = s_below(len - (at < len ? at : len) + 1);
            if (k > 16)
                k = 1 + s_below(16);
            if (at + k <= len) {
                memmove(out + at, out + at + k, len - at - k);
                len -= k;
            }
            break;
        case 4: /* duplicate a range */
            if (len) {
                size_t from = s_below(len);
                k = 1 + s_below(len - from < 64 ? len - from : 64);
                if (len + k <= LG_FUZZ_MAX_INPUT) {
                    memmove(out + at + k, out + at, len - at);
                    memmove(out + at, out + (from < at ? from : from + k), k);
                    len += k;
                }
            }
            break;
        case 5: /* splice a range of the other seed */
            if (on) {
                size_t from = s_below(on);
                k = 1 + s_below(on - from < 256 ? on - from : 256);
                if (len + k <= LG_FUZZ_MAX_INPUT) {
                    memmove(out + at + k, out + at, len - at);
                    memcpy(out + at, other + from, k);
                    len += k;
                }
            }
            break;
        default: /* truncate */
            len = at;
            break;
        }
    }
    return len;
}

int main(int argc, char **argv)
{
    long runs = 0;
    int nseeds = 0;
    uint8_t **seeds = calloc((size_t)argc, sizeof *seeds);
    size_t *lens = calloc((size_t)argc, sizeof *lens);

    if (!seeds || !lens)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "-runs=", 6) == 0) {
            char *end;
            runs = strtol(argv[i] + 6, &end, 10);
            if (*end || runs < 0) {
                fprintf(stderr, "-runs must be a count, not \"%s\"\n", argv[i] + 6);
                return 2;
            }
            continue;
        }
        if (s_read(argv[i], &seeds[nseeds], &lens[nseeds]) != 0)
            return 1;
        /* An exact-size copy, so that reading past the input is caught by ASan. */
        uint8_t *copy = malloc(lens[nseeds] ? lens[nseeds] : 1);
        if (!copy)
            return 1;
        memcpy(copy, seeds[nseeds], lens[nseeds]);
        LLVMFuzzerTestOneInput(copy, lens[nseeds]);
        free(copy);
        printf("%s: ok (%zu bytes)\n", argv[i], lens[nseeds]);
        nseeds++;
    }
    if (runs > 0) {
        uint8_t *buf = malloc(LG_FUZZ_MAX_INPUT);
        static const uint8_t empty[1];
        if (!buf)
            return 1;
        for (long r = 0; r < runs; r++) {
            size_t a = s_below((size_t)nseeds), b = s_below((size_t)nseeds);
            size_t n = s_mutate(buf, nseeds ? seeds[a] : empty, nseeds ? lens[a] : 0,
                                nseeds ? seeds[b] : empty, nseeds ? lens[b] : 0);
            uint8_t *copy = malloc(n ? n : 1);
            if (!copy)
                return 1;
            memcpy(copy, buf, n);
            LLVMFuzzerTestOneInput(copy, n);
            free(copy);
        }
        free(buf);
        printf("%ld mutated inputs: ok\n", runs);
    }
    for (int i = 0; i < nseeds; i++)
        free(seeds[i]);
    free(seeds);
    free(lens);
    return 0;
}

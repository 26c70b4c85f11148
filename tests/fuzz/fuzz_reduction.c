/* fuzz_reduction.c: fuzz target for the reader of a reduction: probe's output
 * (core/lg_reduction.c), which the controller runs on whatever a program on or near the NAS
 * printed. It must never read or write out of bounds, never accept a physical size of 0 or a
 * figure beyond PostgreSQL's bigint, leave the outputs alone on refusal, and refuse with a
 * message that is terminated, holds no control character, is UTF-8 (PostgreSQL stores it) and
 * fits its buffer. Built with libFuzzer, or with -DLG_FUZZ_STANDALONE and fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_reduction.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is s (n bytes) well-formed UTF-8 (no overlong forms, surrogates or code points past
 * U+10FFFF)? */
static int s_utf8(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        size_t len = c < 0x80                 ? 1
                     : c >= 0xc2 && c <= 0xdf ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
        if (len == 0 || i + len > n)
            return 0;
        uint32_t cp = len == 1 ? c : c & (0x7f >> len);
        for (size_t k = 1; k < len; k++) {
            if ((u[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (u[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += len;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LG_FUZZ_MAX_INPUT)
        return 0;
    /* A copy of exactly size bytes, so that ASan sees a read past the end. */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    /* A roomy message buffer and a tight one, so that cutting is reached too. */
    static const size_t lens[] = {1024, 17};
    for (size_t k = 0; k < 2; k++) {
        char err[1024 + 8];
        memset(err, 0x5a, sizeof err);
        uint64_t l = 7, p = 9;
        int rc = lg_reduction_parse(text, size, &l, &p, err, lens[k]);
        if (rc == 0) {
            if (p == 0 || p > INT64_MAX || l > INT64_MAX)
                abort();
            continue;
        }
        if (rc != LG_EPARSE || l != 7 || p != 9)
            abort();
        size_t n = strnlen(err, lens[k]);
        if (n == lens[k] || n == 0 || err[lens[k]] != 0x5a || !s_utf8(err, n))
            abort();
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
                abort();
    }
    free(text);
    return 0;
}

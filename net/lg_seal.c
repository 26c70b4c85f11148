/* lg_seal.c: HMAC-SHA256 seals of run rows (lg_seal.h), with OpenSSL's HMAC. */
#include "lg_seal.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>
#include <sys/random.h>

static int s_random(uint8_t *b, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(b + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        got += (size_t)r;
    }
    return 0;
}

int lg_seal_key(const uint8_t *secret, size_t len, uint8_t key[LG_SEAL_KEY])
{
    if (!secret)
        return s_random(key, LG_SEAL_KEY);
    static const char label[] = "lg run seal v1";
    unsigned int n = LG_SEAL_KEY;
    if (!HMAC(EVP_sha256(), secret, (int)len, (const unsigned char *)label, sizeof label - 1, key,
              &n))
        return -EINVAL;
    return 0;
}

static void s_mac(const uint8_t key[LG_SEAL_KEY], const char *text, size_t len, uint8_t mac[32])
{
    unsigned int n = 32;
    if (!HMAC(EVP_sha256(), key, LG_SEAL_KEY, (const unsigned char *)text, len, mac, &n))
        memset(mac, 0, 32);
}

void lg_seal(const uint8_t key[LG_SEAL_KEY], const char *text, size_t len, char out[LG_SEAL_HEX])
{
    uint8_t mac[32];
    s_mac(key, text, len, mac);
    for (size_t i = 0; i < 32; i++) {
        out[2 * i] = "0123456789abcdef"[mac[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[mac[i] & 15];
    }
    out[64] = 0;
}

int lg_seal_check(const uint8_t key[LG_SEAL_KEY], const char *text, size_t len, const char *hex)
{
    char want[LG_SEAL_HEX];
    lg_seal(key, text, len, want);
    return hex && strlen(hex) == 64 && CRYPTO_memcmp(want, hex, 64) == 0;
}

int lg_random_hex(char *out, size_t n)
{
    uint8_t b[64];
    if (n > sizeof b)
        return -EINVAL;
    int rc = s_random(b, n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        out[2 * i] = "0123456789abcdef"[b[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[b[i] & 15];
    }
    out[rc == 0 ? 2 * n : 0] = 0;
    return rc;
}

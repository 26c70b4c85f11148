/* lg_seal.h: the controller's seal on the run rows it writes (schema 028_claims): an HMAC-SHA256
 * of what a run row makes the controller do (lg.run_seal_text), under a key only that controller
 * holds, so that a row another database login wrote or changed is refused, never acted on. */
#ifndef LG_SEAL_H
#define LG_SEAL_H

#include <stddef.h>
#include <stdint.h>

#define LG_SEAL_KEY 32
#define LG_SEAL_HEX 65 /* 64 hex digits and a NUL */

/* The seal key from a secret (the controller's CURVE secret key): an HMAC of a fixed label under
 * it, so the seal never reveals or reuses the secret itself. NULL secret: a random key (a
 * controller without a key pair: local mode, whose campaigns end with it). 0 or -errno. */
int lg_seal_key(const uint8_t *secret, size_t len, uint8_t key[LG_SEAL_KEY]);
/* The seal of text under key, as hex into out. */
void lg_seal(const uint8_t key[LG_SEAL_KEY], const char *text, size_t len, char out[LG_SEAL_HEX]);
/* Does hex seal the text? 1 yes, 0 no (compared in constant time). */
int lg_seal_check(const uint8_t key[LG_SEAL_KEY], const char *text, size_t len, const char *hex);
/* n random bytes as 2n hex digits into out (2n+1 bytes): identities of controllers. 0 or -errno */
int lg_random_hex(char *out, size_t n);

#endif

/* lg_auth.h: CURVE key pairs, allow-lists of public keys, the ZAP handler that enforces them on
 * the controller, and a handshake monitor that turns a refused or failed handshake into a
 * sentence on the client side.
 *
 * Files (Z85, the 40-character text form of a 32-byte key):
 *   NAME.key  "public = <z85>\nsecret = <z85>\n", mode 0600; refused when group or others can
 *             read or write it, or when its public key does not belong to its secret key.
 *   NAME.pub  "<z85> NAME\n": one allow-list line, so `cat *.pub > allowed` builds a list.
 * An allow-list is a file of such lines ('#' plus a space starts a comment; a key cannot) or a
 * directory whose *.pub files are read. */
#ifndef LG_AUTH_H
#define LG_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define LG_KEY_Z85 40
#define LG_KEY_NAME_MAX 64
#define LG_KEY_INLINE "z85:" /* what starts a public key given inline (lg_auth_load_public) */

typedef struct {
    char pub[LG_KEY_Z85 + 1];
    char sec[LG_KEY_Z85 + 1];
} lg_keypair_t;

typedef struct {
    uint8_t key[32];
    char name[LG_KEY_NAME_MAX];
} lg_allowed_key_t;

typedef struct {
    lg_allowed_key_t *keys;
    size_t n;
} lg_allowlist_t;

/* Write DIR/NAME.key (0600, never over an existing file) and DIR/NAME.pub. NAME: 1-63 of
 * a-z A-Z 0-9 . _ -. Returns 0 or a negative error with err set. */
int lg_auth_keygen(const char *dir, const char *name, char *err, size_t errlen);
/* A file holding a secret (key pair, SMB or CHAP credentials; what names it in err): a regular
 * file that group and others can neither read nor write (POSIX). 0, LG_EDENIED or -errno. */
int lg_auth_secret_file_check(const char *path, const char *what, char *err, size_t errlen);
/* Read a .key file, checking its mode and that the halves match. */
int lg_auth_load_keypair(const char *path, lg_keypair_t *kp, char *err, size_t errlen);
/* A public key given inline as "z85:" and its 40 Z85 characters, else the path of a .pub file
 * or a .key file (its public half): a path is always a path, whatever its characters. */
int lg_auth_load_public(const char *spec, char out[LG_KEY_Z85 + 1], char *err, size_t errlen);
/* Parse allow-list text (src names it in errors) into *al (appending). A key is one identity:
 * listed again with another name it is an error (the same line twice is not). */
int lg_auth_allowlist_parse(const char *text, const char *src, lg_allowlist_t *al, char *err,
                            size_t errlen);
/* Load an allow-list file or a directory of *.pub files (appending). */
int lg_auth_allowlist_load(const char *path, lg_allowlist_t *al, char *err, size_t errlen);
/* The name of key in al, or NULL. */
const char *lg_auth_allowlist_find(const lg_allowlist_t *al, const uint8_t key[32]);
/* Frees what al holds (not al itself) and leaves it empty, ready to load again. */
void lg_auth_allowlist_clear(lg_allowlist_t *al);

/* 1 for ipc://, inproc:// and tcp:// on a loopback address (127.x, [::1], localhost). */
int lg_auth_endpoint_local(const char *ep);

/* A CURVE server socket whose peers the ZAP handler checks under domain. */
int lg_auth_server(void *sock, const lg_keypair_t *kp, const char *domain);
/* A CURVE client socket that talks only to the server with public key server_pub. */
int lg_auth_client(void *sock, const lg_keypair_t *kp, const char *server_pub);

/* Handshake events of a client socket: after a failed one, lg_authmon_poll says why. */
typedef struct lg_authmon lg_authmon_t;

/* A client socket's security as its command line gave it: with key_file and server_key, CURVE
 * and a handshake monitor in *mon (may be NULL); with plaintext, nothing, but only towards a
 * loopback or ipc endpoint. Returns 0 or an error with err saying what to give. */
int lg_auth_client_setup(void *zctx, void *sock, const char *endpoint, const char *key_file,
                         const char *server_key, int plaintext, lg_authmon_t **mon, char *err,
                         size_t errlen);

/* The ZAP handler: a thread answering libzmq's authentication requests of zctx from the lists;
 * a CURVE client whose key is not in its domain's list is refused and logged with its key and
 * address. The lists must outlive it. Stop it before closing the context. */
typedef struct lg_zap lg_zap_t;
typedef struct {
    const char *domain;
    lg_allowlist_t *allow; /* the ZAP thread alone uses it once started (reloads replace it) */
    const char *reload;    /* the allow-list's file or folder: read again (at most once a
                            * second) when an unknown key knocks, so that a new agent's .pub
                            * dropped in needs no restart; NULL: never */
} lg_zap_domain_t;
/* An accepted connection's ZAP User-Id: "<key z85> <name>", the key and the one name the
 * allow-list gives it. Splits user into the two; 0, or -1 when it is not of that form. */
int lg_zap_user_split(const char *user, char key[LG_KEY_Z85 + 1], char *name, size_t namelen);
int lg_zap_start(void *zctx, const lg_zap_domain_t *domains, size_t n, lg_zap_t **out);
uint64_t lg_zap_refused(const lg_zap_t *z);
uint64_t lg_zap_accepted(const lg_zap_t *z);
void lg_zap_stop(lg_zap_t **z);

int lg_authmon_new(void *zctx, void *sock, lg_authmon_t **out);
/* Reads pending events without blocking: returns -1 after a failed handshake (msg says why),
 * 1 after a successful one, 0 when there is nothing new. */
int lg_authmon_poll(lg_authmon_t *m, char *msg, size_t len);
/* Close the monitor's socket, free *self_p and set it to NULL; NULL or *NULL: nothing. */
void lg_authmon_destroy(lg_authmon_t **self_p);

#endif

/* creds.h: the credentials files of lg's fio engines (lgsmb --smb-credentials, lgiscsi
 * --iscsi-chap), in smbclient's authentication-file format: "username = U", "password = P",
 * "domain = D" lines; blank lines and '#' comments allowed; a value runs from the first
 * non-blank after '=' to the end of the line. Compiled into each engine module. */
#ifndef LG_ENGINE_CREDS_H
#define LG_ENGINE_CREDS_H

#include <stddef.h>

#define LG_CREDS_MAX 256

typedef struct {
    char user[LG_CREDS_MAX];
    char password[LG_CREDS_MAX];
    char domain[LG_CREDS_MAX];
    int loose_mode; /* the file can be read by other users */
} lg_creds_t;

/* Read path into c (cleared first). allow_domain: whether "domain" may appear. Any other key, a
 * line without '=', an empty or over-long value is an error naming the file and line. Returns 0
 * or an errno value with the message in err; the password never appears in it. */
int lg_creds_read(const char *path, int allow_domain, lg_creds_t *c, char *err, size_t errlen);
/* Forget what c holds. */
void lg_creds_clear(lg_creds_t *c);

#endif

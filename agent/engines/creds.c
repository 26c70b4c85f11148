/* creds.c: see creds.h. */
#include "creds.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void lg_creds_clear(lg_creds_t *c)
{
    explicit_bzero(c, sizeof *c);
}

int lg_creds_read(const char *path, int allow_domain, lg_creds_t *c, char *err, size_t errlen)
{
    lg_creds_clear(c);
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "could not open credentials file \"%s\": %s", path, strerror(e));
        return e;
    }
    struct stat st;
    c->loose_mode = fstat(fileno(f), &st) == 0 && (st.st_mode & 077);
    char line[2 * LG_CREDS_MAX];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "credentials file \"%s\" line %d: line too long", path, lineno);
            rc = EINVAL;
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        char *key = line;
        while (*key == ' ' || *key == '\t')
            key++;
        if (!*key || *key == '#')
            continue;
        char *eq = strchr(key, '=');
        if (!eq) {
            snprintf(err, errlen, "credentials file \"%s\" line %d: expected \"key = value\"", path,
                     lineno);
            rc = EINVAL;
            break;
        }
        char *kend = eq;
        while (kend > key && (kend[-1] == ' ' || kend[-1] == '\t'))
            kend--;
        *kend = 0;
        char *val = eq + 1;
        while (*val == ' ' || *val == '\t')
            val++;
        char *dst = !strcasecmp(key, "username")                 ? c->user
                    : !strcasecmp(key, "password")               ? c->password
                    : allow_domain && !strcasecmp(key, "domain") ? c->domain
                                                                 : NULL;
        if (!dst) {
            snprintf(err, errlen, "credentials file \"%s\" line %d: unknown key \"%.40s\"", path,
                     lineno, key);
            rc = EINVAL;
        } else if (!*val || strlen(val) >= LG_CREDS_MAX) {
            snprintf(err, errlen,
                     "credentials file \"%s\" line %d: \"%s\" must be 1 to %d "
                     "characters",
                     path, lineno, key, LG_CREDS_MAX - 1);
            rc = EINVAL;
        } else {
            snprintf(dst, LG_CREDS_MAX, "%s", val);
        }
    }
    explicit_bzero(line, sizeof line);
    fclose(f);
    if (rc == 0 && !c->user[0]) {
        snprintf(err, errlen, "credentials file \"%s\" has no \"username = ...\" line", path);
        rc = EINVAL;
    }
    if (rc)
        lg_creds_clear(c);
    return rc;
}

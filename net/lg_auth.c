/* lg_auth.c: CURVE keys and allow-lists, the controller's ZAP handler, the clients' handshake
 * monitor. Keys and lists are read once at start; the ZAP thread only reads them. */
#include "lg_auth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifdef _WIN32
/* Windows: the key file's protection is its folder's ACL (C:\ProgramData\lg is readable by
 * administrators and SYSTEM only; see deploy/windows/README.md); there is no mode to set. */
#define fchmod(fd, mode) ((void)(fd), (void)(mode), 0)
#endif

#define KEYFILE_MAX 4096
#define ALLOW_MAX_BYTES (16u << 20)

static const char s_z85_chars[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/* 1 when s starts with a 40-character Z85 key that decodes, followed by the end of the text,
 * blanks or a newline. */
static int s_z85_at(const char *s, uint8_t out[32])
{
    for (int i = 0; i < LG_KEY_Z85; i++)
        if (!s[i] || !strchr(s_z85_chars, s[i]))
            return 0;
    char c = s[LG_KEY_Z85];
    if (c && c != ' ' && c != '\t' && c != '\n' && c != '\r')
        return 0;
    char z[LG_KEY_Z85 + 1];
    memcpy(z, s, LG_KEY_Z85);
    z[LG_KEY_Z85] = 0;
    uint8_t tmp[32];
    return zmq_z85_decode(out ? out : tmp, z) != NULL;
}

static int s_name_ok(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len >= LG_KEY_NAME_MAX)
        return 0;
    for (const char *c = n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-'))
            return 0;
    return 1;
}

static int s_write_all(int fd, const char *text)
{
    size_t n = strlen(text), off = 0;
    while (off < n) {
        ssize_t w = write(fd, text + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -errno;
        off += (size_t)w;
    }
    return 0;
}

int lg_auth_keygen(const char *dir, const char *name, char *err, size_t errlen)
{
    if (!s_name_ok(name)) {
        snprintf(err, errlen, "key name \"%s\": want 1 to %d of a-z A-Z 0-9 . _ -", name,
                 LG_KEY_NAME_MAX - 1);
        return LG_EPARSE;
    }
    char pub[LG_KEY_Z85 + 1], sec[LG_KEY_Z85 + 1];
    if (zmq_curve_keypair(pub, sec) != 0) {
        snprintf(err, errlen, "this libzmq cannot make CURVE keys: %s", zmq_strerror(zmq_errno()));
        return -ENOTSUP;
    }
    char kpath[4096], ppath[4096], text[256];
    snprintf(kpath, sizeof kpath, "%s/%s.key", dir, name);
    snprintf(ppath, sizeof ppath, "%s/%s.pub", dir, name);
    /* O_EXCL: never replace a key that something may already trust. */
    int fd = open(kpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = -errno;
        snprintf(err, errlen, "%s: %s", kpath, strerror(-e));
        return e;
    }
    snprintf(text, sizeof text,
             "# lg key pair \"%s\": the secret half; keep it private (mode 0600)\n"
             "public = %s\nsecret = %s\n",
             name, pub, sec);
    int rc = fchmod(fd, 0600) != 0 ? -errno : s_write_all(fd, text);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    memset(text, 0, sizeof text);
    memset(sec, 0, sizeof sec);
    if (rc) {
        unlink(kpath);
        snprintf(err, errlen, "%s: %s", kpath, strerror(-rc));
        return rc;
    }
    fd = open(ppath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = -errno;
        unlink(kpath);
        snprintf(err, errlen, "%s: %s", ppath, strerror(-e));
        return e;
    }
    snprintf(text, sizeof text, "%s %s\n", pub, name);
    rc = s_write_all(fd, text);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc) {
        unlink(kpath);
        unlink(ppath);
        snprintf(err, errlen, "%s: %s", ppath, strerror(-rc));
    }
    return rc;
}

/* The value of "key = <z85>" in text, or NULL. */
static const char *s_field(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, key, kl) != 0)
            continue;
        const char *p = l + kl;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p++ != '=')
            continue;
        while (*p == ' ' || *p == '\t')
            p++;
        return p;
    }
    return NULL;
}

int lg_auth_secret_file_check(const char *path, const char *what, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = -errno;
        snprintf(err, errlen, "%s \"%s\": %s", what, path, strerror(-e));
        return e;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s \"%s\" is not a regular file", what, path);
        return LG_EDENIED;
    }
#ifndef _WIN32
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        snprintf(err, errlen,
                 "%s \"%s\" has mode %04o: a secret must not be readable or writable by group "
                 "or others (chmod 600 it)",
                 what, path, (unsigned)(st.st_mode & 07777));
        return LG_EDENIED;
    }
    /* Another user's file is theirs to read and replace: a key they hold is no secret of ours. */
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        snprintf(err, errlen,
                 "%s \"%s\" belongs to uid %u, not to uid %u (us) or root: a secret another user "
                 "owns is known to them (chown it)",
                 what, path, (unsigned)st.st_uid, (unsigned)geteuid());
        return LG_EDENIED;
    }
#endif
    return 0;
}

int lg_auth_load_keypair(const char *path, lg_keypair_t *kp, char *err, size_t errlen)
{
    int rc0 = lg_auth_secret_file_check(path, "key file", err, errlen);
    if (rc0)
        return rc0;
    char *text = NULL;
    int rc = lg_read_file(path, KEYFILE_MAX, &text, NULL);
    if (rc) {
        snprintf(err, errlen, "key file \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    const char *pub = s_field(text, "public"), *sec = s_field(text, "secret");
    uint8_t sbin[32];
    rc = 0;
    if (!sec || !s_z85_at(sec, sbin)) {
        snprintf(err, errlen, "key file \"%s\": no \"secret = <40 Z85 characters>\" line", path);
        rc = LG_EPARSE;
    } else {
        memcpy(kp->sec, sec, LG_KEY_Z85);
        kp->sec[LG_KEY_Z85] = 0;
        if (zmq_curve_public(kp->pub, kp->sec) != 0) {
            snprintf(err, errlen, "key file \"%s\": %s", path, zmq_strerror(zmq_errno()));
            rc = -ENOTSUP;
        } else if (pub && (!s_z85_at(pub, NULL) || strncmp(pub, kp->pub, LG_KEY_Z85) != 0)) {
            snprintf(err, errlen,
                     "key file \"%s\": its public key is not the one of its secret "
                     "key",
                     path);
            rc = LG_EPARSE;
        }
    }
    memset(sbin, 0, sizeof sbin);
    memset(text, 0, strlen(text));
    free(text);
    if (rc)
        memset(kp, 0, sizeof *kp);
    return rc;
}

int lg_auth_load_public(const char *spec, char out[LG_KEY_Z85 + 1], char *err, size_t errlen)
{
    /* Inline only when it says so: '/', '.' and '-' are Z85 characters, so a path of 40 of
     * them (/etc/lg/keys/aaaaaaaaaaaa/controller.pub) would otherwise be taken for a key. */
    if (strncmp(spec, LG_KEY_INLINE, strlen(LG_KEY_INLINE)) == 0) {
        const char *k = spec + strlen(LG_KEY_INLINE);
        if (strlen(k) != LG_KEY_Z85 || !s_z85_at(k, NULL)) {
            snprintf(err, errlen,
                     "inline public key: want \"" LG_KEY_INLINE "\" and the 40 Z85 characters of "
                     "a key (a .pub file's first word); the %zu characters after \"" LG_KEY_INLINE
                     "\" are not one",
                     strlen(k));
            return LG_EPARSE;
        }
        memcpy(out, k, LG_KEY_Z85 + 1);
        return 0;
    }
    char *text = NULL;
    int rc = lg_read_file(spec, KEYFILE_MAX, &text, NULL);
    if (rc) {
        snprintf(err, errlen,
                 "could not read key \"%s\": %s. A key given inline is written " LG_KEY_INLINE
                 "KEY.",
                 spec, lg_strerror(rc));
        return rc;
    }
    const char *p = s_field(text, "public");
    if (!p)
        p = text;
    rc = 0;
    if (!s_z85_at(p, NULL)) {
        snprintf(err, errlen,
                 "public key file \"%s\": want \"<40 Z85 characters> [name]\" or "
                 "a .key file's \"public = ...\" line",
                 spec);
        rc = LG_EPARSE;
    } else {
        memcpy(out, p, LG_KEY_Z85);
        out[LG_KEY_Z85] = 0;
    }
    memset(text, 0, strlen(text));
    free(text);
    return rc;
}

/* 0, 1 (already listed under this name: nothing added), LG_EPARSE (listed under another name:
 * *other names it) or -ENOMEM. */
static int s_allow_add(lg_allowlist_t *al, const uint8_t key[32], const char *name, size_t nlen,
                       const char **other)
{
    if (nlen >= LG_KEY_NAME_MAX)
        nlen = LG_KEY_NAME_MAX - 1;
    for (size_t i = 0; i < al->n; i++) {
        if (memcmp(al->keys[i].key, key, 32) != 0)
            continue;
        if (strlen(al->keys[i].name) == nlen && memcmp(al->keys[i].name, name, nlen) == 0)
            return 1;
        *other = al->keys[i].name;
        return LG_EPARSE;
    }
    lg_allowed_key_t *k = realloc(al->keys, (al->n + 1) * sizeof *k);
    if (!k)
        return -ENOMEM;
    al->keys = k;
    k += al->n++;
    memcpy(k->key, key, 32);
    memcpy(k->name, name, nlen);
    k->name[nlen] = 0;
    return 0;
}

int lg_auth_allowlist_parse(const char *text, const char *src, lg_allowlist_t *al, char *err,
                            size_t errlen)
{
    int lineno = 0;
    for (const char *l = text; *l;) {
        lineno++;
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        const char *p = l;
        while (p < l + len && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        int blank = p == l + len;
        int comment = !blank && *p == '#' &&
                      (p + 1 == l + len || p[1] == ' ' || p[1] == '\t' || p[1] == '\r');
        if (!blank && !comment) {
            uint8_t key[32];
            if ((size_t)(p - l) + LG_KEY_Z85 > len || !s_z85_at(p, key)) {
                snprintf(err, errlen, "%s:%d: want \"<40 Z85 characters> [name]\"", src, lineno);
                return LG_EPARSE;
            }
            const char *n = p + LG_KEY_Z85;
            while (n < l + len && (*n == ' ' || *n == '\t'))
                n++;
            size_t nlen = 0;
            while (n + nlen < l + len && n[nlen] != ' ' && n[nlen] != '\t' && n[nlen] != '\r')
                nlen++;
            char z[LG_KEY_Z85 + 1];
            memcpy(z, p, LG_KEY_Z85);
            z[LG_KEY_Z85] = 0;
            const char *other = NULL;
            int rc =
                nlen ? s_allow_add(al, key, n, nlen, &other) : s_allow_add(al, key, z, 8, &other);
            if (rc == LG_EPARSE) {
                snprintf(err, errlen,
                         "%s:%d: key %s is listed already as \"%s\": a key is the "
                         "identity of one agent; give each agent its own key (lgctl keygen)",
                         src, lineno, z, other);
                return rc;
            }
            if (rc < 0) {
                snprintf(err, errlen, "%s: out of memory", src);
                return rc;
            }
        }
        l += len;
        if (*l == '\n')
            l++;
    }
    return 0;
}

static int s_allow_file(const char *path, lg_allowlist_t *al, char *err, size_t errlen)
{
    char *text = NULL;
    int rc = lg_read_file(path, ALLOW_MAX_BYTES, &text, NULL);
    if (rc) {
        snprintf(err, errlen, "allow-list \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    rc = lg_auth_allowlist_parse(text, path, al, err, errlen);
    free(text);
    return rc;
}

int lg_auth_allowlist_load(const char *path, lg_allowlist_t *al, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = -errno;
        snprintf(err, errlen, "allow-list \"%s\": %s", path, strerror(-e));
        return e;
    }
    if (!S_ISDIR(st.st_mode))
        return s_allow_file(path, al, err, errlen);
    DIR *d = opendir(path);
    if (!d) {
        int e = -errno;
        snprintf(err, errlen, "allow-list \"%s\": %s", path, strerror(-e));
        return e;
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".pub") != 0)
            continue;
        char f[4096];
        snprintf(f, sizeof f, "%s/%s", path, de->d_name);
        rc = s_allow_file(f, al, err, errlen);
    }
    closedir(d);
    return rc;
}

const char *lg_auth_allowlist_find(const lg_allowlist_t *al, const uint8_t key[32])
{
    for (size_t i = 0; al && i < al->n; i++)
        if (memcmp(al->keys[i].key, key, 32) == 0)
            return al->keys[i].name;
    return NULL;
}

void lg_auth_allowlist_clear(lg_allowlist_t *al)
{
    free(al->keys);
    al->keys = NULL;
    al->n = 0;
}

int lg_auth_endpoint_local(const char *ep)
{
    if (strncmp(ep, "ipc://", 6) == 0 || strncmp(ep, "inproc://", 9) == 0)
        return 1;
    if (strncmp(ep, "tcp://", 6) != 0)
        return 0;
    const char *h = ep + 6;
    /* "tcp://127.0.0.1:5601", "tcp://[::1]:5601", "tcp://localhost:5601"; not an interface
     * name or a wildcard, and no "source;destination" form that could hide a second address. */
    if (strchr(h, ';'))
        return 0;
    if (strncmp(h, "[::1]:", 6) == 0 || strncmp(h, "localhost:", 10) == 0)
        return 1;
    if (strncmp(h, "127.", 4) != 0)
        return 0;
    int dots = 0;
    for (const char *c = h; *c && *c != ':'; c++) {
        if (*c == '.')
            dots++;
        else if (*c < '0' || *c > '9')
            return 0;
    }
    return dots == 3 && strchr(h, ':') != NULL;
}

static int s_setopt(void *sock, int opt, const void *v, size_t len)
{
    return zmq_setsockopt(sock, opt, v, len) == 0 ? 0 : -zmq_errno();
}

int lg_auth_server(void *sock, const lg_keypair_t *kp, const char *domain)
{
    int one = 1;
    int rc = s_setopt(sock, ZMQ_CURVE_SERVER, &one, sizeof one);
    if (!rc)
        rc = s_setopt(sock, ZMQ_CURVE_SECRETKEY, kp->sec, LG_KEY_Z85);
    if (!rc)
        rc = s_setopt(sock, ZMQ_ZAP_DOMAIN, domain, strlen(domain));
    return rc;
}

int lg_auth_client(void *sock, const lg_keypair_t *kp, const char *server_pub)
{
    int rc = s_setopt(sock, ZMQ_CURVE_SERVERKEY, server_pub, LG_KEY_Z85);
    if (!rc)
        rc = s_setopt(sock, ZMQ_CURVE_PUBLICKEY, kp->pub, LG_KEY_Z85);
    if (!rc)
        rc = s_setopt(sock, ZMQ_CURVE_SECRETKEY, kp->sec, LG_KEY_Z85);
    return rc;
}

int lg_auth_client_setup(void *zctx, void *sock, const char *endpoint, const char *key_file,
                         const char *server_key, int plaintext, lg_authmon_t **mon, char *err,
                         size_t errlen)
{
    if (mon)
        *mon = NULL;
    if (plaintext) {
        if (!lg_auth_endpoint_local(endpoint)) {
            snprintf(err, errlen,
                     "plaintext is only for loopback or ipc endpoints, not \"%s\": "
                     "give a key pair and the controller's public key",
                     endpoint);
            return LG_EDENIED;
        }
        return 0;
    }
    if (!key_file || !server_key) {
        snprintf(err, errlen,
                 "no %s: CURVE needs our key pair (made by lgctl keygen) and the "
                 "controller's public key (or plaintext, on loopback only)",
                 !key_file ? "key pair" : "controller public key");
        return LG_EDENIED;
    }
    lg_keypair_t kp;
    char spub[LG_KEY_Z85 + 1];
    int rc = lg_auth_load_keypair(key_file, &kp, err, errlen);
    if (!rc)
        rc = lg_auth_load_public(server_key, spub, err, errlen);
    if (!rc && (rc = lg_auth_client(sock, &kp, spub)) != 0)
        snprintf(err, errlen, "could not set up CURVE: %s", zmq_strerror(-rc));
    memset(&kp, 0, sizeof kp);
    if (!rc && mon && (rc = lg_authmon_new(zctx, sock, mon)) != 0)
        snprintf(err, errlen, "could not monitor the CURVE handshake: %s", zmq_strerror(-rc));
    return rc;
}

/* ---- the ZAP handler (RFC 27) ---- */

#define ZAP_FRAMES 7

struct lg_zap {
    void *sock;
    void *thread;
    lg_zap_domain_t dom[4];
    size_t ndom;
    atomic_int stop;
    atomic_uint_least64_t refused, accepted;
    uint64_t reloaded_ms[4]; /* when each domain's list was last read again */
    int64_t mtime[4];        /* and the modification time of its file or folder then (ns) */
};

static int64_t s_mtime_ns(const struct stat *st)
{
#ifdef _WIN32
    return (int64_t)st->st_mtime * 1000000000;
#else
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
#endif
}

int lg_zap_user_split(const char *user, char key[LG_KEY_Z85 + 1], char *name, size_t namelen)
{
    if (!user || strlen(user) < LG_KEY_Z85 + 2 || user[LG_KEY_Z85] != ' ')
        return -1;
    memcpy(key, user, LG_KEY_Z85);
    key[LG_KEY_Z85] = 0;
    snprintf(name, namelen, "%s", user + LG_KEY_Z85 + 1);
    return 0;
}

/* An unknown key knocked: read the domain's list again (at most once a second). */
static const char *s_zap_reload(lg_zap_t *z, size_t d, const uint8_t key[32])
{
    lg_zap_domain_t *dom = &z->dom[d];
    uint64_t now = lg_mono_ms();
    struct stat st;
    if (!dom->reload || stat(dom->reload, &st) != 0)
        return NULL;
    /* A changed file or folder is read at once (a new .pub dropped in); otherwise at most once
     * a second (a .pub edited in place), so unknown keys cannot make us read all the time. */
    int changed = s_mtime_ns(&st) != z->mtime[d];
    if (!changed && z->reloaded_ms[d] && now - z->reloaded_ms[d] < 1000)
        return NULL;
    z->reloaded_ms[d] = now;
    z->mtime[d] = s_mtime_ns(&st);
    lg_allowlist_t fresh = {NULL, 0};
    char err[512];
    if (lg_auth_allowlist_load(dom->reload, &fresh, err, sizeof err) != 0) {
        lg_warn("could not read the allow-list of the %s endpoint again: %s (the old one stays)",
                dom->domain, err);
        lg_auth_allowlist_clear(&fresh);
        return NULL;
    }
    if (fresh.n != dom->allow->n)
        lg_info("allow-list of the %s endpoint read again: %zu keys (was %zu)", dom->domain,
                fresh.n, dom->allow->n);
    lg_auth_allowlist_clear(dom->allow);
    *dom->allow = fresh;
    return lg_auth_allowlist_find(dom->allow, key);
}

static void s_zap_reply(void *sock, zmq_msg_t *req_id, const char *code, const char *text,
                        const char *user)
{
    zmq_send(sock, "1.0", 3, ZMQ_SNDMORE);
    zmq_send(sock, zmq_msg_data(req_id), zmq_msg_size(req_id), ZMQ_SNDMORE);
    zmq_send(sock, code, strlen(code), ZMQ_SNDMORE);
    zmq_send(sock, text, strlen(text), ZMQ_SNDMORE);
    zmq_send(sock, user, strlen(user), ZMQ_SNDMORE);
    zmq_send(sock, "", 0, 0);
}

static void s_zap_one(lg_zap_t *z)
{
    /* version, request id, domain, address, routing id, mechanism, credentials... */
    zmq_msg_t f[ZAP_FRAMES + 1];
    int n = 0, more = 1;
    while (more && n < ZAP_FRAMES + 1) {
        zmq_msg_init(&f[n]);
        if (zmq_msg_recv(&f[n], z->sock, 0) < 0) {
            zmq_msg_close(&f[n]);
            break;
        }
        more = zmq_msg_more(&f[n]);
        n++;
    }
    while (more) { /* more frames than any mechanism sends: drain them */
        zmq_msg_t x;
        zmq_msg_init(&x);
        if (zmq_msg_recv(&x, z->sock, 0) < 0)
            more = 0;
        else
            more = zmq_msg_more(&x);
        zmq_msg_close(&x);
    }
    if (n < 6) {
        for (int i = 0; i < n; i++)
            zmq_msg_close(&f[i]);
        return; /* libzmq never sends this; nothing sensible to answer */
    }
    char domain[64] = "", addr[64] = "", mech[16] = "";
    size_t l = zmq_msg_size(&f[2]) < sizeof domain - 1 ? zmq_msg_size(&f[2]) : sizeof domain - 1;
    memcpy(domain, zmq_msg_data(&f[2]), l);
    l = zmq_msg_size(&f[3]) < sizeof addr - 1 ? zmq_msg_size(&f[3]) : sizeof addr - 1;
    memcpy(addr, zmq_msg_data(&f[3]), l);
    l = zmq_msg_size(&f[5]) < sizeof mech - 1 ? zmq_msg_size(&f[5]) : sizeof mech - 1;
    memcpy(mech, zmq_msg_data(&f[5]), l);
    const lg_allowlist_t *al = NULL;
    size_t d = 0;
    for (size_t i = 0; i < z->ndom; i++)
        if (strcmp(z->dom[i].domain, domain) == 0) {
            al = z->dom[i].allow;
            d = i;
        }
    const char *name = NULL;
    char z85[LG_KEY_Z85 + 1] = "(none)";
    if (strcmp(mech, "CURVE") == 0 && n == 7 && zmq_msg_size(&f[6]) == 32) {
        zmq_z85_encode(z85, zmq_msg_data(&f[6]), 32);
        name = lg_auth_allowlist_find(al, zmq_msg_data(&f[6]));
        if (!name && al)
            name = s_zap_reload(z, d, zmq_msg_data(&f[6]));
    }
    if (name) {
        atomic_fetch_add(&z->accepted, 1);
        lg_debug("accepted \"%s\" at %s on the %s endpoint", name, addr, domain);
        /* The connection's User-Id: its key and the one name that key may use. */
        char user[LG_KEY_Z85 + 1 + LG_KEY_NAME_MAX];
        snprintf(user, sizeof user, "%s %s", z85, name);
        s_zap_reply(z->sock, &f[1], "200", "OK", user);
    } else {
        atomic_fetch_add(&z->refused, 1);
        lg_warn("refused a peer of the %s endpoint at %s: %s key %s is not in its allow-list",
                domain, addr, mech, z85);
        s_zap_reply(z->sock, &f[1], "400", "key not allowed", "");
    }
    for (int i = 0; i < n; i++)
        zmq_msg_close(&f[i]);
}

static void s_zap_thread(void *arg)
{
    lg_zap_t *z = arg;
    while (!atomic_load(&z->stop)) {
        zmq_pollitem_t it = {z->sock, 0, ZMQ_POLLIN, 0};
        int n = zmq_poll(&it, 1, 100);
        if (n < 0 && zmq_errno() == ETERM)
            break;
        if (n > 0)
            s_zap_one(z);
    }
}

int lg_zap_start(void *zctx, const lg_zap_domain_t *domains, size_t n, lg_zap_t **out)
{
    if (n > 4)
        return -EINVAL;
    lg_zap_t *z = calloc(1, sizeof *z);
    if (!z)
        return -ENOMEM;
    memcpy(z->dom, domains, n * sizeof *domains);
    z->ndom = n;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (domains[i].reload && stat(domains[i].reload, &st) == 0)
            z->mtime[i] = s_mtime_ns(&st);
    }
    z->sock = zmq_socket(zctx, ZMQ_REP);
    int linger = 0;
    if (!z->sock || zmq_setsockopt(z->sock, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_bind(z->sock, "inproc://zeromq.zap.01") != 0) {
        int e = -zmq_errno();
        if (z->sock)
            zmq_close(z->sock);
        free(z);
        return e;
    }
    z->thread = zmq_threadstart(s_zap_thread, z);
    if (!z->thread) {
        zmq_close(z->sock);
        free(z);
        return -ENOMEM;
    }
    *out = z;
    return 0;
}

uint64_t lg_zap_refused(const lg_zap_t *z)
{
    return atomic_load(&((lg_zap_t *)z)->refused);
}
uint64_t lg_zap_accepted(const lg_zap_t *z)
{
    return atomic_load(&((lg_zap_t *)z)->accepted);
}

void lg_zap_stop(lg_zap_t **zp)
{
    lg_zap_t *z = *zp;
    if (!z)
        return;
    *zp = NULL;
    atomic_store(&z->stop, 1);
    zmq_threadclose(z->thread);
    zmq_close(z->sock);
    free(z);
}

/* ---- handshake monitor ---- */

struct lg_authmon {
    void *pair;
    char ep[64];
};

int lg_authmon_new(void *zctx, void *sock, lg_authmon_t **out)
{
    static atomic_int seq;
    lg_authmon_t *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    snprintf(m->ep, sizeof m->ep, "inproc://lg-authmon-%d", atomic_fetch_add(&seq, 1));
    int events = ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                 ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL;
    if (zmq_socket_monitor(sock, m->ep, events) != 0) {
        int e = -zmq_errno();
        free(m);
        return e;
    }
    m->pair = zmq_socket(zctx, ZMQ_PAIR);
    int linger = 0;
    if (!m->pair || zmq_setsockopt(m->pair, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_connect(m->pair, m->ep) != 0) {
        int e = -zmq_errno();
        if (m->pair)
            zmq_close(m->pair);
        zmq_socket_monitor(sock, NULL, 0);
        free(m);
        return e;
    }
    *out = m;
    return 0;
}

int lg_authmon_poll(lg_authmon_t *m, char *msg, size_t len)
{
    int result = 0;
    for (;;) {
        zmq_msg_t ev, addr;
        zmq_msg_init(&ev);
        if (zmq_msg_recv(&ev, m->pair, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&ev);
            return result;
        }
        uint16_t id = 0;
        uint32_t value = 0;
        if (zmq_msg_size(&ev) >= 6) {
            memcpy(&id, zmq_msg_data(&ev), 2);
            memcpy(&value, (uint8_t *)zmq_msg_data(&ev) + 2, 4);
        }
        zmq_msg_close(&ev);
        char where[256] = "";
        zmq_msg_init(&addr);
        if (zmq_msg_recv(&addr, m->pair, ZMQ_DONTWAIT) >= 0) {
            size_t l =
                zmq_msg_size(&addr) < sizeof where - 1 ? zmq_msg_size(&addr) : sizeof where - 1;
            memcpy(where, zmq_msg_data(&addr), l);
            where[l] = 0;
        }
        zmq_msg_close(&addr);
        if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
            result = 1;
        } else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
            snprintf(msg, len,
                     "%s refused our key (ZAP status %u): it is not in the peer's "
                     "allow-list",
                     where, value);
            result = -1;
        } else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) {
            snprintf(msg, len,
                     "CURVE handshake with %s failed (protocol error 0x%x): is the "
                     "peer's public key the right one, and does the peer use CURVE too?",
                     where, value);
            result = -1;
        } else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) {
            snprintf(msg, len,
                     "handshake with %s failed (%s): is the peer's public key the "
                     "right one, and does the peer use CURVE too?",
                     where, zmq_strerror((int)value));
            result = -1;
        }
    }
}

void lg_authmon_destroy(lg_authmon_t **self_p)
{
    lg_authmon_t *m = self_p ? *self_p : NULL;
    if (!m)
        return;
    *self_p = NULL;
    zmq_close(m->pair);
    free(m);
}

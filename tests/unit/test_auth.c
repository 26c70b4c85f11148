/* test_auth.c: key files, allow-lists and real CURVE handshakes between in-process sockets:
 * a listed key gets through, an unlisted one is refused (and said so on both sides), a client
 * that pins the wrong server key never reaches the server. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "lg_auth.h"
#include "lg_error.h"
#include "lg_util.h"

typedef struct {
    char dir[256];
} fx_t;

static int s_setup(void **state)
{
    fx_t *fx = calloc(1, sizeof *fx);
#ifdef _WIN32 /* the Windows build's tests run under wine or on Windows: a folder of our own */
    const char *tmp = getenv("TEMP");
    snprintf(fx->dir, sizeof fx->dir, "%s\\lg-test-auth-%d-%d", tmp ? tmp : ".", (int)getpid(),
             rand());
    if (lg_mkdirs(fx->dir, 0700) != 0)
        return -1;
#else
    snprintf(fx->dir, sizeof fx->dir, "/tmp/lg-test-auth.XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
#endif
    *state = fx;
    return 0;
}

static int s_teardown(void **state)
{
    fx_t *fx = *state;
    char cmd[512];
#ifdef _WIN32
    snprintf(cmd, sizeof cmd, "rmdir /s /q \"%s\"", fx->dir);
#else
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
#endif
    if (system(cmd) != 0)
        return -1;
    free(fx);
    return 0;
}

static void s_path(const fx_t *fx, const char *name, char *out, size_t len)
{
#ifdef _WIN32
    snprintf(out, len, "%s\\%s", fx->dir, name);
#else
    snprintf(out, len, "%s/%s", fx->dir, name);
#endif
}

static void s_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_keygen_and_load(void **state)
{
    fx_t *fx = *state;
    char err[512] = "", key[300], pub[300];
    assert_int_equal(lg_auth_keygen(fx->dir, "ctl", err, sizeof err), 0);
    s_path(fx, "ctl.key", key, sizeof key);
    s_path(fx, "ctl.pub", pub, sizeof pub);
#ifndef _WIN32 /* Windows: the folder's ACL protects the key (deploy/windows/README.md) */
    struct stat st;
    assert_int_equal(stat(key, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
#endif
    lg_keypair_t kp;
    assert_int_equal(lg_auth_load_keypair(key, &kp, err, sizeof err), 0);
    assert_int_equal(strlen(kp.pub), 40);
    char p1[41], p2[41];
    assert_int_equal(lg_auth_load_public(pub, p1, err, sizeof err), 0);
    assert_string_equal(p1, kp.pub);
    assert_int_equal(lg_auth_load_public(key, p2, err, sizeof err), 0); /* its public half */
    assert_string_equal(p2, kp.pub);
    char inl[64];
    snprintf(inl, sizeof inl, "z85:%s", kp.pub);
    assert_int_equal(lg_auth_load_public(inl, p2, err, sizeof err), 0); /* inline */
    assert_string_equal(p2, kp.pub);

    /* never over an existing key */
    assert_int_not_equal(lg_auth_keygen(fx->dir, "ctl", err, sizeof err), 0);
    assert_non_null(strstr(err, "ctl.key"));
    assert_int_not_equal(lg_auth_keygen(fx->dir, "../evil", err, sizeof err), 0);
    assert_non_null(strstr(err, "key name"));

#ifndef _WIN32
    /* readable by others: refused, naming the file and the mode */
    assert_int_equal(chmod(key, 0640), 0);
    assert_int_equal(lg_auth_load_keypair(key, &kp, err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "ctl.key"));
    assert_non_null(strstr(err, "0640"));
    assert_int_equal(chmod(key, 0604), 0);
    assert_int_equal(lg_auth_load_keypair(key, &kp, err, sizeof err), LG_EDENIED);
    assert_int_equal(chmod(key, 0600), 0);
    assert_int_equal(lg_auth_load_keypair(key, &kp, err, sizeof err), 0);
#endif
}

/* A path is always a path: one of exactly 40 Z85 characters ('/', '.' and '-' are some) is read
 * as the file it names, not taken for a key; a key given inline says so with "z85:". */
static void test_public_key_path_or_inline(void **state)
{
    fx_t *fx = *state;
    char err[512] = "", cwd[4096], got[LG_KEY_Z85 + 1] = "";
    assert_int_equal(lg_auth_keygen(fx->dir, "ctl", err, sizeof err), 0);
    char key[300];
    s_path(fx, "ctl.key", key, sizeof key);
    lg_keypair_t kp;
    assert_int_equal(lg_auth_load_keypair(key, &kp, err, sizeof err), 0);

    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(fx->dir), 0);
    const char *path = "keys/aaaaaaaaaaaaaaaaaaaa/controller.pub";
    assert_int_equal(strlen(path), LG_KEY_Z85);
    uint8_t bin[32];
    assert_non_null(zmq_z85_decode(bin, path)); /* as text, the path is a key too */
    assert_int_equal(lg_mkdirs("keys/aaaaaaaaaaaaaaaaaaaa", 0700), 0);
    char line[128];
    snprintf(line, sizeof line, "%s ctl\n", kp.pub);
    s_write(path, line);
    int rc = lg_auth_load_public(path, got, err, sizeof err);
    /* not there: refused, naming the path, with the inline form as a hint */
    const char *gone = "keys/bbbbbbbbbbbbbbbbbbbb/controller.pub";
    char err2[512] = "";
    int rc2 = lg_auth_load_public(gone, got, err2, sizeof err2);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    assert_string_equal(got, kp.pub); /* the file's key, not the path's text */
    assert_int_equal(rc2, -ENOENT);
    assert_non_null(
        strstr(err2, "could not read key \"keys/bbbbbbbbbbbbbbbbbbbb/controller.pub\": "));
    assert_non_null(strstr(err2, "z85:KEY"));

    /* a bare key is a path as well (none by that name here; on Windows, whose file names refuse
     * some Z85 characters, the open fails with EINVAL instead of ENOENT) */
    assert_true(lg_auth_load_public(kp.pub, got, err, sizeof err) < 0);
    assert_non_null(strstr(err, kp.pub));

    /* z85: and a key is taken inline; z85: and anything else is refused */
    char inl[64];
    snprintf(inl, sizeof inl, "z85:%s", kp.pub);
    memset(got, 0, sizeof got);
    assert_int_equal(lg_auth_load_public(inl, got, err, sizeof err), 0);
    assert_string_equal(got, kp.pub);
    static const char *const bad[] = {
        "z85:",
        "z85:not a key",
        "z85:0123456789012345678901234567890123456789x", /* 41 */
        "z85:012345678901234567890123456789012345678",   /* 39 */
        "z85:0123456789012345678901234567890123456789 ", /* a blank after it */
        "z85:01234567890123456789012345678901234567~9",  /* ~ is not Z85 */
        "z85:########################################",  /* 40, beyond 2^32 a word */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        if (lg_auth_load_public(bad[i], got, err, sizeof err) != LG_EPARSE)
            fail_msg("\"%s\" was taken inline", bad[i]);
        assert_non_null(strstr(err, "inline public key: want \"z85:\""));
    }
}

static void test_keyfile_halves_must_match(void **state)
{
    fx_t *fx = *state;
    char err[512] = "", path[300];
    char pa[41], sa[41], pb[41], sb[41], text[256];
    assert_int_equal(zmq_curve_keypair(pa, sa), 0);
    assert_int_equal(zmq_curve_keypair(pb, sb), 0);
    s_path(fx, "mixed.key", path, sizeof path);
    snprintf(text, sizeof text, "public = %s\nsecret = %s\n", pb, sa);
    s_write(path, text);
#ifndef _WIN32
    chmod(path, 0600);
#endif
    lg_keypair_t kp;
    assert_int_equal(lg_auth_load_keypair(path, &kp, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "not the one of its secret"));
    snprintf(text, sizeof text, "public = %s\n", pa);
    s_write(path, text);
    assert_int_equal(lg_auth_load_keypair(path, &kp, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "secret ="));
    snprintf(text, sizeof text, "secret = %s\n", sa); /* the public half is derived */
    s_write(path, text);
    assert_int_equal(lg_auth_load_keypair(path, &kp, err, sizeof err), 0);
    assert_string_equal(kp.pub, pa);
}

static void test_allowlist(void **state)
{
    fx_t *fx = *state;
    char pa[41], sa[41], pb[41], sb[41], text[512], err[512] = "";
    assert_int_equal(zmq_curve_keypair(pa, sa), 0);
    assert_int_equal(zmq_curve_keypair(pb, sb), 0);
    snprintf(text, sizeof text, "# agents of rack a\n\n%s host-a1\n  %s\n", pa, pb);
    lg_allowlist_t al = {0};
    assert_int_equal(lg_auth_allowlist_parse(text, "allowed", &al, err, sizeof err), 0);
    assert_int_equal(al.n, 2);
    uint8_t ka[32], kb[32], kc[32];
    zmq_z85_decode(ka, pa);
    zmq_z85_decode(kb, pb);
    memset(kc, 7, sizeof kc);
    assert_string_equal(lg_auth_allowlist_find(&al, ka), "host-a1");
    assert_non_null(lg_auth_allowlist_find(&al, kb)); /* named by its first characters */
    assert_null(lg_auth_allowlist_find(&al, kc));
    lg_auth_allowlist_clear(&al);

    /* a broken line is an error that names the line */
    snprintf(text, sizeof text, "%s a\nnot-a-key b\n", pa);
    assert_int_equal(lg_auth_allowlist_parse(text, "allowed", &al, err, sizeof err), LG_EPARSE);
    assert_string_equal(err, "allowed:2: want \"<40 Z85 characters> [name]\"");
    lg_auth_allowlist_clear(&al);
    snprintf(text, sizeof text, "%.39s\n", pa); /* one character short */
    assert_int_equal(lg_auth_allowlist_parse(text, "x", &al, err, sizeof err), LG_EPARSE);
    lg_auth_allowlist_clear(&al);
    /* a key is one identity: the same line twice is one entry, another name for it an error */
    snprintf(text, sizeof text, "%s a\n%s a\n%s b\n", pa, pa, pa);
    assert_int_equal(lg_auth_allowlist_parse(text, "dup", &al, err, sizeof err), LG_EPARSE);
    assert_int_equal(al.n, 1);
    assert_non_null(strstr(err, "dup:3: key "));
    assert_non_null(strstr(err, "is listed already as \"a\""));
    lg_auth_allowlist_clear(&al);

    /* a directory of .pub files */
    char sub[300];
    s_path(fx, "keys", sub, sizeof sub);
    assert_int_equal(lg_mkdirs(sub, 0755), 0);
    assert_int_equal(lg_auth_keygen(sub, "a1", err, sizeof err), 0);
    assert_int_equal(lg_auth_keygen(sub, "a2", err, sizeof err), 0);
    assert_int_equal(lg_auth_allowlist_load(sub, &al, err, sizeof err), 0);
    assert_int_equal(al.n, 2); /* the .key files are not read */
    lg_auth_allowlist_clear(&al);
    assert_int_not_equal(lg_auth_allowlist_load("/nonexistent/lg", &al, err, sizeof err), 0);
    assert_non_null(strstr(err, "/nonexistent/lg"));
}

static void test_endpoint_local(void **state)
{
    (void)state;
    assert_true(lg_auth_endpoint_local("tcp://127.0.0.1:5601"));
    assert_true(lg_auth_endpoint_local("tcp://127.0.0.1:*"));
    assert_true(lg_auth_endpoint_local("tcp://127.1.2.3:5601"));
    assert_true(lg_auth_endpoint_local("tcp://[::1]:5601"));
    assert_true(lg_auth_endpoint_local("tcp://localhost:5601"));
    assert_true(lg_auth_endpoint_local("ipc:///tmp/lg/agents"));
    assert_false(lg_auth_endpoint_local("tcp://0.0.0.0:5601"));
    assert_false(lg_auth_endpoint_local("tcp://*:5601"));
    assert_false(lg_auth_endpoint_local("tcp://10.0.0.5:5601"));
    assert_false(lg_auth_endpoint_local("tcp://127.0.0.1.evil.com:5601"));
    assert_false(lg_auth_endpoint_local("tcp://eth0:5601"));
    assert_false(lg_auth_endpoint_local("tcp://127.0.0.1:5601;10.0.0.5:5601"));
    assert_false(lg_auth_endpoint_local("udp://127.0.0.1:5601"));
}

/* Wait up to 3 s for a handshake verdict on m. */
static int s_verdict(lg_authmon_t *m, char *msg, size_t len)
{
    for (int i = 0; i < 300; i++) {
        int v = lg_authmon_poll(m, msg, len);
        if (v)
            return v;
        usleep(10000);
    }
    return 0;
}

/* A DEALER connected to ep: with kp, a CURVE client pinning server_pub whose handshakes *mon
 * reports; without, plaintext. */
static void *s_client(void *ctx, const lg_keypair_t *kp, const char *server_pub, const char *ep,
                      lg_authmon_t **mon)
{
    void *c = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 0;
    assert_non_null(c);
    zmq_setsockopt(c, ZMQ_LINGER, &linger, sizeof linger);
    if (kp) {
        assert_int_equal(lg_auth_client(c, kp, server_pub), 0);
        assert_int_equal(lg_authmon_new(ctx, c, mon), 0);
    }
    assert_int_equal(zmq_connect(c, ep), 0);
    return c;
}

static void test_handshakes(void **state)
{
    (void)state;
    lg_keypair_t srv, good, bad;
    assert_int_equal(zmq_curve_keypair(srv.pub, srv.sec), 0);
    assert_int_equal(zmq_curve_keypair(good.pub, good.sec), 0);
    assert_int_equal(zmq_curve_keypair(bad.pub, bad.sec), 0);
    char text[128], err[512] = "";
    snprintf(text, sizeof text, "%s good\n", good.pub);
    lg_allowlist_t al = {0};
    assert_int_equal(lg_auth_allowlist_parse(text, "t", &al, err, sizeof err), 0);

    void *ctx = zmq_ctx_new();
    lg_zap_domain_t dom = {"agents", &al, NULL};
    lg_zap_t *zap = NULL;
    assert_int_equal(lg_zap_start(ctx, &dom, 1, &zap), 0);
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    int linger = 0, tmo = 3000;
    zmq_setsockopt(router, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(router, ZMQ_RCVTIMEO, &tmo, sizeof tmo);
    assert_int_equal(lg_auth_server(router, &srv, "agents"), 0);
    assert_int_equal(zmq_bind(router, "tcp://127.0.0.1:*"), 0);
    char ep[128];
    size_t eplen = sizeof ep;
    zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, ep, &eplen);

    /* listed key: the message arrives, the monitor says so */
    lg_authmon_t *m1 = NULL, *m2 = NULL, *m3 = NULL;
    void *c1 = s_client(ctx, &good, srv.pub, ep, &m1);
    assert_int_equal(s_verdict(m1, err, sizeof err), 1);
    assert_int_equal(zmq_send(c1, "hello", 5, 0), 5);
    char buf[64];
    assert_true(zmq_recv(router, buf, sizeof buf, 0) > 0); /* routing id */
    zmq_msg_t body;
    zmq_msg_init(&body);
    assert_int_equal(zmq_msg_recv(&body, router, 0), 5);
    assert_memory_equal(zmq_msg_data(&body), "hello", 5);
    /* the connection's User-Id: its key and the name the allow-list gives it */
    char want_user[128], key[LG_KEY_Z85 + 1], name[64];
    snprintf(want_user, sizeof want_user, "%s good", good.pub);
    assert_string_equal(zmq_msg_gets(&body, "User-Id"), want_user);
    assert_int_equal(lg_zap_user_split(zmq_msg_gets(&body, "User-Id"), key, name, sizeof name), 0);
    assert_string_equal(key, good.pub);
    assert_string_equal(name, "good");
    assert_int_equal(lg_zap_user_split("good", key, name, sizeof name), -1);
    zmq_msg_close(&body);
    assert_int_equal(lg_zap_accepted(zap), 1);

    /* unlisted key: refused by the ZAP handler; the client's monitor names the refusal */
    void *c2 = s_client(ctx, &bad, srv.pub, ep, &m2);
    zmq_send(c2, "evil", 4, ZMQ_DONTWAIT);
    assert_int_equal(s_verdict(m2, err, sizeof err), -1);
    assert_non_null(strstr(err, "refused our key"));
    assert_true(lg_zap_refused(zap) >= 1);

    /* wrong server key pinned: never gets through either */
    void *c3 = s_client(ctx, &good, bad.pub, ep, &m3);
    zmq_send(c3, "evil", 4, ZMQ_DONTWAIT);
    int v3 = s_verdict(m3, err, sizeof err);
    assert_int_not_equal(v3, 1);

    /* a plaintext client: no CURVE, no handshake with a CURVE server */
    void *c4 = s_client(ctx, NULL, NULL, ep, NULL);
    zmq_send(c4, "evil", 4, ZMQ_DONTWAIT);

    /* nothing from c2, c3 or c4 ever reaches the server */
    tmo = 1000;
    zmq_setsockopt(router, ZMQ_RCVTIMEO, &tmo, sizeof tmo);
    assert_int_equal(zmq_recv(router, buf, sizeof buf, 0), -1);

    lg_authmon_destroy(&m1);
    lg_authmon_destroy(&m2);
    lg_authmon_destroy(&m3);
    zmq_close(c1);
    zmq_close(c2);
    zmq_close(c3);
    zmq_close(c4);
    zmq_close(router);
    lg_zap_stop(&zap);
    zmq_ctx_term(ctx);
    lg_auth_allowlist_clear(&al);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_keygen_and_load, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_public_key_path_or_inline, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_keyfile_halves_must_match, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_allowlist, s_setup, s_teardown),
        cmocka_unit_test(test_endpoint_local),
        cmocka_unit_test(test_handshakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

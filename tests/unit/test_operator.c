/* test_operator: the operator's file of probes and credentials (core/lg_operator.c): what it
 * accepts and refuses with file, line and key; how a spec's parameters become a probe's argv
 * (checked values, in the operator's places, never options); origins and which credential may go
 * with which URL; secret files that are not regular files, others' or readable by others; the
 * seal on run rows (net/lg_seal.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lg_error.h"
#include "lg_operator.h"
#include "lg_seal.h"
#include "lg_spec.h"

static const char s_good[] = "probes:\n"
                             "  - name: zfs\n"
                             "    argv: [/usr/bin/ssh, -o, BatchMode=yes, root@nas, zfs, get,\n"
                             "           -Hp, \"logicalused,used\", \"{dataset}\"]\n"
                             "    params: {dataset: path}\n"
                             "  - name: api\n"
                             "    argv: [/usr/local/bin/api, \"--pool={pool}\", \"{pool}/{ds}\"]\n"
                             "    params: {pool: name, ds: name}\n"
                             "credentials:\n"
                             "  - {name: nas, origin: \"HTTPS://NAS:9100\", token_file: /etc/t}\n"
                             "  - {name: plain, origin: \"http://10.0.0.2\"}\n";

static lg_operator_t *s_parse(const char *text)
{
    lg_operator_t *op = NULL;
    char err[1024] = "";
    int rc = lg_operator_parse(text, strlen(text), "op.yaml", &op, err, sizeof err);
    if (rc)
        fail_msg("refused: %s", err);
    return op;
}

/* text is refused with a message holding want. */
static void s_refused(const char *text, const char *want)
{
    lg_operator_t *op = NULL;
    char err[1024] = "";
    int rc = lg_operator_parse(text, strlen(text), "op.yaml", &op, err, sizeof err);
    if (rc == 0)
        fail_msg("accepted: %s", text);
    assert_null(op);
    if (!strstr(err, want))
        fail_msg("message \"%s\" lacks \"%s\"", err, want);
}

static void test_parse(void **state)
{
    (void)state;
    lg_operator_t *op = s_parse(s_good);
    const lg_op_probe_t *p = lg_operator_probe(op, "zfs");
    assert_non_null(p);
    assert_int_equal(p->argc, 9);
    assert_string_equal(p->argv[8], "{dataset}");
    assert_int_equal(p->kinds[0], LG_OP_PARAM_PATH);
    const lg_op_cred_t *c = lg_operator_cred(op, "nas");
    assert_non_null(c);
    assert_string_equal(c->origin, "https://nas:9100");
    assert_string_equal(c->token_file, "/etc/t");
    assert_string_equal(lg_operator_cred(op, "plain")->origin, "http://10.0.0.2:80");
    assert_null(lg_operator_probe(op, "ssh"));
    lg_operator_destroy(&op);
    assert_null(op);
    op = s_parse(""); /* nothing allowed */
    assert_null(lg_operator_probe(op, "zfs"));
    lg_operator_destroy(&op);
}

static void test_refused(void **state)
{
    (void)state;
    s_refused("probes:\n  - {name: a, argv: [ssh, x]}\n", "op.yaml:2:");
    s_refused("probes:\n  - {name: a, argv: [ssh, x]}\n", "absolute path");
    s_refused("probes:\n  - {name: a, argv: [/bin/x, \"{b}\"]}\n", "\"{b}\" is not one of");
    s_refused("probes:\n  - {name: a, argv: [/bin/x], params: {b: word}}\n", "name or path");
    s_refused("probes:\n  - {name: a, argv: [/bin/x]}\n  - {name: a, argv: [/bin/y]}\n",
              "given twice");
    s_refused("probes:\n  - {name: a}\n", "has no argv");
    s_refused("probes:\n  - {name: a, argv: [/bin/x], shell: yes}\n", "unknown key");
    s_refused("credentials:\n  - {name: c, origin: \"https://nas/metrics\"}\n", "an origin");
    s_refused("credentials:\n  - {name: c, origin: \"ftp://nas\"}\n", "an origin");
    s_refused("credentials:\n  - {name: c, origin: \"https://u@nas\"}\n", "an origin");
    s_refused("credentials:\n  - {name: c, origin: \"https://nas\", token_file: t}\n",
              "absolute path");
    s_refused("credentials:\n  - {name: c}\n", "has no origin");
    s_refused("hooks: []\n", "unknown or repeated key");
    s_refused("probes: [\n", "op.yaml:");
}

/* name's argv from keys/vals: 0 and the words joined by spaces into out, or the error. */
static int s_argv(lg_operator_t *op, const char *name, char *const *k, char *const *v, size_t n,
                  char *out, size_t len)
{
    char **argv = NULL;
    int rc = lg_operator_probe_argv(op, name, k, v, n, &argv, out, len);
    if (rc)
        return rc;
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; argv[i]; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s", i ? " " : "", argv[i]);
    lg_operator_argv_free(argv);
    return 0;
}

static void test_argv(void **state)
{
    (void)state;
    lg_operator_t *op = s_parse(s_good);
    char out[1024];
    char *k1[] = {"dataset"}, *v1[] = {"tank/lz4"};
    assert_int_equal(s_argv(op, "zfs", k1, v1, 1, out, sizeof out), 0);
    assert_string_equal(out, "/usr/bin/ssh -o BatchMode=yes root@nas zfs get -Hp "
                             "logicalused,used tank/lz4");
    char *k2[] = {"ds", "pool"}, *v2[] = {"lz4", "tank"};
    assert_int_equal(s_argv(op, "api", k2, v2, 2, out, sizeof out), 0);
    assert_string_equal(out, "/usr/local/bin/api --pool=tank tank/lz4");
    /* values that would be options, split, climb or carry a shell */
    const char *bad[] = {
        "-oProxyCommand=id", "a=b", "a b", "tank/../etc", "..", "a;id", "$(id)", "'x'", "", NULL};
    for (size_t i = 0; bad[i]; i++) {
        char *v[] = {(char *)bad[i]};
        if (s_argv(op, "zfs", k1, v, 1, out, sizeof out) != LG_EDENIED)
            fail_msg("\"%s\" was accepted", bad[i]);
        assert_non_null(strstr(out, "must be a plain path"));
    }
    char *vs[] = {"tank/lz4"}; /* a name takes no '/' */
    char *k3[] = {"pool", "ds"};
    char *v3[] = {"tank", "a/b"};
    assert_int_equal(s_argv(op, "api", k3, v3, 2, out, sizeof out), LG_EDENIED);
    assert_non_null(strstr(out, "must be a plain name"));
    assert_int_equal(s_argv(op, "api", k3, v3, 1, out, sizeof out), LG_EDENIED);
    assert_non_null(strstr(out, "needs the parameter \"ds\""));
    char *k4[] = {"host"};
    assert_int_equal(s_argv(op, "zfs", k4, vs, 1, out, sizeof out), LG_EDENIED);
    assert_non_null(strstr(out, "takes no parameter \"host\""));
    assert_int_equal(s_argv(op, "ssh", k1, vs, 1, out, sizeof out), LG_EDENIED);
    assert_non_null(strstr(out, "no probe \"ssh\""));
    assert_true(lg_operator_value_ok("tank/lab-1_2.3@snap", LG_OP_PARAM_PATH));
    assert_false(lg_operator_value_ok("tank/lab", LG_OP_PARAM_NAME));
    lg_operator_destroy(&op);
}

static void test_origin(void **state)
{
    (void)state;
    char o[LG_OP_ORIGIN_MAX];
    assert_int_equal(lg_url_origin("http://NAS:9100/metrics", o, sizeof o), 0);
    assert_string_equal(o, "http://nas:9100");
    assert_int_equal(lg_url_origin("https://nas/x?y", o, sizeof o), 0);
    assert_string_equal(o, "https://nas:443");
    assert_int_equal(lg_url_origin("http://[::1]:80/m", o, sizeof o), 0);
    assert_string_equal(o, "http://[::1]:80");
    assert_int_equal(lg_url_origin("http://nas:9100@evil/m", o, sizeof o), LG_EPARSE);
    assert_int_equal(lg_url_origin("http://nas:99999/", o, sizeof o), LG_EPARSE);
    assert_int_equal(lg_url_origin("file:///etc/passwd", o, sizeof o), LG_EPARSE);
    lg_operator_t *op = s_parse(s_good);
    const lg_op_cred_t *c = NULL;
    char err[512];
    assert_int_equal(
        lg_operator_cred_for(op, "nas", "https://nas:9100/metrics", &c, err, sizeof err), 0);
    assert_non_null(c);
    assert_int_equal(
        lg_operator_cred_for(op, "nas", "https://evil:9100/metrics", &c, err, sizeof err),
        LG_EDENIED);
    assert_null(c);
    assert_non_null(strstr(err, "is for https://nas:9100 only"));
    assert_int_equal(
        lg_operator_cred_for(op, "nas", "http://nas:9100/metrics", &c, err, sizeof err),
        LG_EDENIED); /* not the scheme */
    assert_int_equal(
        lg_operator_cred_for(op, "nas", "https://nas:9101/metrics", &c, err, sizeof err),
        LG_EDENIED); /* not the port */
    assert_int_equal(lg_operator_cred_for(op, "none", "https://nas:9100/", &c, err, sizeof err),
                     LG_EDENIED);
    /* the spec's sources resolved: token and CA from the credential, never kept otherwise */
    lg_telemetry_t t[2];
    memset(t, 0, sizeof t);
    t[0].url = strdup("https://nas:9100/metrics");
    snprintf(t[0].credential, sizeof t[0].credential, "nas");
    t[1].url = strdup("http://elsewhere/metrics");
    assert_int_equal(lg_telemetry_resolve(t, 2, op, err, sizeof err), 0);
    assert_string_equal(t[0].token_file, "/etc/t");
    assert_null(t[1].token_file);
    snprintf(t[1].credential, sizeof t[1].credential, "nas");
    assert_int_equal(lg_telemetry_resolve(t, 2, op, err, sizeof err), LG_EDENIED);
    lg_telemetry_clear(&t[0]);
    lg_telemetry_clear(&t[1]);
    lg_operator_destroy(&op);
}

static void test_secret_file(void **state)
{
    (void)state;
    char buf[64], err[512];
    assert_true(lg_read_secret_file("/proc/self/status", buf, sizeof buf, err, sizeof err) < 0);
    assert_non_null(strstr(err, "not a regular file"));
    assert_true(lg_read_secret_file("/dev/null", buf, sizeof buf, err, sizeof err) < 0);
    char path[] = "/tmp/test_operator.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "tok\n", 4), 4);
    close(fd);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(lg_read_secret_file(path, buf, sizeof buf, err, sizeof err), 4);
    assert_string_equal(buf, "tok\n");
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(lg_read_secret_file(path, buf, sizeof buf, err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "lets others read it"));
    /* the operator's file itself: not when others may write it */
    assert_int_equal(chmod(path, 0666), 0);
    assert_int_equal(lg_trusted_file(path, "it names programs", err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "could be changed by another user"));
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(lg_trusted_file(path, "it names programs", err, sizeof err), 0);
    unlink(path);
    lg_operator_t *op = NULL;
    assert_true(lg_operator_load("/proc/self/status", &op, err, sizeof err) < 0);
    assert_null(op);
}

static void test_seal(void **state)
{
    (void)state;
    uint8_t k1[LG_SEAL_KEY], k2[LG_SEAL_KEY], k3[LG_SEAL_KEY];
    const char secret[] = "a CURVE secret key in Z85, 40 character";
    assert_int_equal(lg_seal_key((const uint8_t *)secret, strlen(secret), k1), 0);
    assert_int_equal(lg_seal_key((const uint8_t *)secret, strlen(secret), k2), 0);
    assert_memory_equal(k1, k2, LG_SEAL_KEY); /* the same key pair: the same seals */
    assert_int_equal(lg_seal_key(NULL, 0, k3), 0);
    char s[LG_SEAL_HEX];
    const char row[] = "(1,1,1,1,measure,file,/x,,,auto,1024,randread,t,,,,,)";
    lg_seal(k1, row, strlen(row), s);
    assert_int_equal(strlen(s), 64);
    assert_true(lg_seal_check(k2, row, strlen(row), s));
    assert_false(lg_seal_check(k3, row, strlen(row), s)); /* another controller's key */
    const char forged[] = "(1,1,1,1,measure,file,/y,,,auto,1024,randread,t,,,,,)";
    assert_false(lg_seal_check(k1, forged, strlen(forged), s));
    assert_false(lg_seal_check(k1, row, strlen(row), NULL));
    assert_false(lg_seal_check(k1, row, strlen(row), "00"));
    char hex[17];
    assert_int_equal(lg_random_hex(hex, 8), 0);
    assert_int_equal(strlen(hex), 16);
}

/* A spec's reduction: and credential: as lg.run keeps them, and back. */
static void test_spec_refs(void **state)
{
    (void)state;
    const char text[] = "name: t\nconfigs:\n  - labels: {a: b}\n    target: /tmp/x\n"
                        "    reduction: {probe: zfs, dataset: tank/lz4}\n"
                        "profiles: [4k-rand]\n"
                        "telemetry: [{name: n, url: \"https://nas:9100/metrics\", credential: "
                        "nas}]\n";
    lg_spec_t *spec = NULL;
    lg_spec_diag_t d;
    if (lg_spec_parse_text(text, strlen(text), "t.yaml", &spec, &d) != 0) {
        char m[512];
        lg_spec_diag_format(&d, m, sizeof m);
        fail_msg("%s", m);
    }
    char *j = lg_reduction_json(&spec->configs[0]);
    assert_string_equal(j, "{\"params\":{\"dataset\":\"tank/lz4\"},\"probe\":\"zfs\"}");
    char *probe = NULL, **k = NULL, **v = NULL;
    size_t n = 0;
    assert_int_equal(lg_reduction_from_json(j, &probe, &k, &v, &n), 0);
    assert_string_equal(probe, "zfs");
    assert_int_equal(n, 1);
    assert_string_equal(k[0], "dataset");
    assert_string_equal(v[0], "tank/lz4");
    lg_reduction_ref_free(probe, k, v, n);
    assert_int_equal(lg_reduction_from_json("[\"/usr/bin/ssh\"]", &probe, &k, &v, &n),
                     LG_EPARSE); /* an argv of an older lg is no probe */
    free(j);
    char *tj = lg_telemetry_json(spec->telemetry, spec->ntelemetry);
    assert_non_null(strstr(tj, "\"credential\":\"nas\""));
    assert_null(strstr(tj, "token"));
    lg_telemetry_t *t = NULL;
    char err[256];
    assert_int_equal(lg_telemetry_from_json(tj, &t, &n, err, sizeof err), 0);
    assert_string_equal(t[0].credential, "nas");
    assert_null(t[0].token_file);
    lg_telemetry_destroy(&t, n);
    free(tj);
    lg_spec_destroy(&spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),       cmocka_unit_test(test_refused),
        cmocka_unit_test(test_argv),        cmocka_unit_test(test_origin),
        cmocka_unit_test(test_secret_file), cmocka_unit_test(test_seal),
        cmocka_unit_test(test_spec_refs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

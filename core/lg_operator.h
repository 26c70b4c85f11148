/* lg_operator.h: what the operator of a controller lets a spec use, by name: the programs that
 * probe a NAS's achieved data reduction (each with its whole argv and the named parameters a spec
 * may fill in) and the credentials telemetry may send (each bound to one origin). A spec comes
 * from whoever may submit campaigns and a database row from whoever may write one; neither names
 * a program the controller runs, a secret it sends, where it sends it, or a file it reads: those
 * are here, in a file only the operator can change (/etc/lg/operator.yaml, say):
 *
 *   probes:
 *     - name: zfs
 *       argv: [/usr/bin/ssh, -o, BatchMode=yes, -i, /etc/lg/probe_ed25519, root@nas,
 *              zfs, get, -Hp, "logicalused,used", "{dataset}"]
 *       params: {dataset: path}          # name (a plain word) or path (a plain word with /)
 *   credentials:
 *     - name: nas-b
 *       origin: https://nas-b:9100         # the only scheme, host and port it is sent to
 *       token_file: /etc/lg/nas-b.token    # a bearer token (optional)
 *       ca_file: /etc/lg/nas-ca.pem        # the CA of the origin's certificate (optional)
 *
 * A spec then says `reduction: {probe: zfs, dataset: tank/lz4}` and `telemetry: [{name: nas,
 * url: "https://nas-b:9100/metrics", credential: nas-b}]`. */
#ifndef LG_OPERATOR_H
#define LG_OPERATOR_H

#include <stddef.h>

#define LG_OP_NAME_MAX 64    /* probe, parameter and credential names: 1-63 of A-Za-z0-9._- */
#define LG_OP_MAX_PARAMS 8   /* parameters of one probe */
#define LG_OP_PARAM_MAX 255  /* bytes of one parameter's value */
#define LG_OP_ORIGIN_MAX 300 /* "https://host:port" */

typedef enum { LG_OP_PARAM_NAME = 0, LG_OP_PARAM_PATH = 1 } lg_op_param_kind_t;

typedef struct {
    char name[LG_OP_NAME_MAX];
    char **argv; /* argv[0] absolute; words may hold {param} */
    size_t argc;
    char params[LG_OP_MAX_PARAMS][LG_OP_NAME_MAX];
    lg_op_param_kind_t kinds[LG_OP_MAX_PARAMS];
    size_t nparams;
} lg_op_probe_t;

typedef struct {
    char name[LG_OP_NAME_MAX];
    char origin[LG_OP_ORIGIN_MAX]; /* normalised: scheme://host:port, lower case, port given */
    char *token_file;              /* absolute, or NULL */
    char *ca_file;                 /* absolute, or NULL */
} lg_op_cred_t;

typedef struct lg_operator lg_operator_t;

/* Read the operator's file. It must be a regular file owned by this user or root that nobody
 * else may write (nor the folder it is in, unless sticky): whoever can change it can make lg run
 * programs. Returns 0 or a negative error with err naming the file, line and key. Caller owns
 * *out (lg_operator_destroy). */
int lg_operator_load(const char *path, lg_operator_t **out, char *err, size_t errlen);
/* Could only its owner, this user or root, have written path: a regular file (not a link) of
 * ours or root's that group and others cannot write, in a folder of ours or root's that nobody
 * else can write unless it is sticky? 0, or LG_EDENIED / -errno with err saying why and what
 * (what the file does, for the message: "it names ..."). As ssh refuses a foreign config. */
int lg_trusted_file(const char *path, const char *what, char *err, size_t errlen);
/* The same from text (path only names it in messages; no ownership checks): tests, fuzzing. */
int lg_operator_parse(const char *text, size_t len, const char *path, lg_operator_t **out,
                      char *err, size_t errlen);
/* An operator that allows nothing (no file configured). Caller owns it. NULL on ENOMEM. */
lg_operator_t *lg_operator_empty(void);
void lg_operator_destroy(lg_operator_t **self_p);
/* Where it was read from ("" for none). */
const char *lg_operator_path(const lg_operator_t *op);

/* The probe or credential of that name, or NULL. */
const lg_op_probe_t *lg_operator_probe(const lg_operator_t *op, const char *name);
const lg_op_cred_t *lg_operator_cred(const lg_operator_t *op, const char *name);

/* Is v a parameter value of that kind: 1-255 bytes of A-Za-z0-9 . _ + : @ % , and - not first,
 * '/' only for a path (and no "." or ".." component there)? No '=', no space, no quote. */
int lg_operator_value_ok(const char *v, lg_op_param_kind_t kind);

/* The argv to run probe `name` with the spec's parameters (keys[i] = vals[i], n of them): every
 * declared parameter given, none other, each value checked, then put in place of its {key} in the
 * operator's words (never parsed as an option: a value starts with no '-'). Returns 0 with
 * *argv (NULL-terminated; caller frees with lg_operator_argv_free), or LG_EDENIED / LG_EPARSE
 * with err saying what is wrong. */
int lg_operator_probe_argv(const lg_operator_t *op, const char *name, char *const *keys,
                           char *const *vals, size_t n, char ***argv, char *err, size_t errlen);
void lg_operator_argv_free(char **argv);

/* The origin of an http(s) URL (scheme://host:port, lower case, default port filled in) into
 * buf. Returns 0, or LG_EPARSE for a URL without one (userinfo "user@" is refused too). */
int lg_url_origin(const char *url, char *buf, size_t len);
/* May credential `name` go with a request to url? 0 yes; else LG_EDENIED (no such credential,
 * or another origin) with err saying so. *cred is set when it may. */
int lg_operator_cred_for(const lg_operator_t *op, const char *name, const char *url,
                         const lg_op_cred_t **cred, char *err, size_t errlen);

/* Read a small secret file (a token, at most max-1 bytes, NUL-terminated into buf): a regular
 * file (never a device, FIFO, socket or a /proc or /sys file; opened without following a link
 * and without blocking), owned by this user or root, that group and others cannot read. Returns
 * the length, or a negative error with err naming the file and the reason. */
long lg_read_secret_file(const char *path, char *buf, size_t max, char *err, size_t errlen);

#endif

/* lg_operator.c: the operator's file of probes and credentials (lg_operator.h), its checks, and
 * the one place a probe's argv is made from a spec's parameters. */
#include "lg_operator.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <yaml.h>

#include "lg_error.h"
#include "lg_util.h"

#define OP_MAX_TEXT (256u << 10)
#define OP_MAX_PROBES 64
#define OP_MAX_CREDS 64
#define OP_MAX_ARGV 64
#define OP_MAX_WORD 4095
#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC 0x62656572
#endif

struct lg_operator {
    char path[1024];
    lg_op_probe_t *probes;
    size_t nprobes;
    lg_op_cred_t *creds;
    size_t ncreds;
};

typedef struct {
    yaml_document_t *doc;
    const char *path;
    char *err;
    size_t errlen;
} ctx_t;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int
s_fail(ctx_t *c, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s:%lu:%lu: %s%s%s%s", c->path,
             n ? (unsigned long)n->start_mark.line + 1 : 0UL,
             n ? (unsigned long)n->start_mark.column + 1 : 0UL, key ? "key \"" : "", key ? key : "",
             key ? "\": " : "", msg);
    return LG_EPARSE;
}

static int s_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= LG_OP_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
            return 0;
    return 1;
}

int lg_operator_value_ok(const char *v, lg_op_param_kind_t kind)
{
    size_t n = v ? strlen(v) : 0;
    if (n == 0 || n > LG_OP_PARAM_MAX || v[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = v[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 strchr("._+:@%,-", ch) != NULL || (ch == '/' && kind == LG_OP_PARAM_PATH);
        if (!ok || (ch == ':' && i == 0))
            return 0;
    }
    if (kind == LG_OP_PARAM_PATH) { /* no "." or ".." component: a path stays where it says */
        for (const char *p = v; *p;) {
            const char *e = strchr(p, '/');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
                return 0;
            if (!e)
                break;
            p = e + 1;
        }
    }
    return 1;
}

static const char *s_scalar(ctx_t *c, const yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        s_fail(c, n, key, "must be a single value");
        return NULL;
    }
    const char *s = (const char *)n->data.scalar.value;
    if (strlen(s) != n->data.scalar.length || strlen(s) > OP_MAX_WORD) {
        s_fail(c, n, key, "holds a NUL byte or is too long");
        return NULL;
    }
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            s_fail(c, n, key, "holds a control character");
            return NULL;
        }
    return s;
}

static const yaml_node_t *s_node(ctx_t *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

/* The {param} names in word w, each declared in p. */
static int s_check_refs(ctx_t *c, const yaml_node_t *at, const char *w, const lg_op_probe_t *p)
{
    for (const char *o = strchr(w, '{'); o; o = strchr(o + 1, '{')) {
        const char *e = strchr(o, '}');
        if (!e)
            return s_fail(c, at, "argv", "\"{\" without \"}\" in \"%s\"", w);
        char nm[LG_OP_NAME_MAX];
        size_t len = (size_t)(e - o - 1);
        if (len == 0 || len >= sizeof nm)
            return s_fail(c, at, "argv", "bad parameter reference in \"%s\"", w);
        memcpy(nm, o + 1, len);
        nm[len] = 0;
        size_t k = 0;
        while (k < p->nparams && strcmp(p->params[k], nm))
            k++;
        if (k == p->nparams)
            return s_fail(c, at, "argv", "\"{%s}\" is not one of the probe's params", nm);
    }
    return 0;
}

static int s_params(ctx_t *c, const yaml_node_t *v, lg_op_probe_t *p)
{
    if (v->type != YAML_MAPPING_NODE)
        return s_fail(c, v, "params", "must be a mapping of NAME: name|path");
    for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
        const char *k = s_scalar(c, s_node(c, pr->key), "params");
        const char *t = k ? s_scalar(c, s_node(c, pr->value), k) : NULL;
        if (!t)
            return LG_EPARSE;
        if (!s_name_ok(k) || !strcmp(k, "probe"))
            return s_fail(c, s_node(c, pr->key), "params",
                          "\"%s\" is not a parameter name (1-63 of A-Za-z0-9._-, not probe)", k);
        if (p->nparams >= LG_OP_MAX_PARAMS)
            return s_fail(c, v, "params", "at most %d parameters", LG_OP_MAX_PARAMS);
        for (size_t i = 0; i < p->nparams; i++)
            if (!strcmp(p->params[i], k))
                return s_fail(c, s_node(c, pr->key), "params", "\"%s\" is given twice", k);
        if (strcmp(t, "name") && strcmp(t, "path"))
            return s_fail(c, s_node(c, pr->value), k, "must be name or path, got \"%s\"", t);
        lg_strlcpy(p->params[p->nparams], k, LG_OP_NAME_MAX);
        p->kinds[p->nparams++] = !strcmp(t, "path") ? LG_OP_PARAM_PATH : LG_OP_PARAM_NAME;
    }
    return 0;
}

static int s_argv(ctx_t *c, const yaml_node_t *v, lg_op_probe_t *p)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return s_fail(c, v, "argv", "must be a list of words (no shell)");
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0 || n > OP_MAX_ARGV)
        return s_fail(c, v, "argv", "must have 1 to %d words", OP_MAX_ARGV);
    if (!(p->argv = calloc(n + 1, sizeof *p->argv)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *w = s_scalar(c, s_node(c, v->data.sequence.items.start[i]), "argv");
        if (!w)
            return LG_EPARSE;
        if (i == 0 && (w[0] != '/' || strchr(w, '{')))
            return s_fail(c, v, "argv", "the program must be an absolute path, got \"%s\"", w);
        if (!(p->argv[i] = strdup(w)))
            return -ENOMEM;
        p->argc = i + 1;
    }
    return 0;
}

static int s_abs(ctx_t *c, const yaml_node_t *v, const char *key, char **out)
{
    const char *s = s_scalar(c, v, key);
    if (!s)
        return LG_EPARSE;
    if (s[0] != '/')
        return s_fail(c, v, key, "must be an absolute path, got \"%s\"", s);
    return (*out = strdup(s)) ? 0 : -ENOMEM;
}

/* One entry of probes: (what = 0) or credentials: (what = 1). */
static int s_entry(ctx_t *c, const yaml_node_t *m, int what, lg_operator_t *op)
{
    const char *kind = what ? "credentials" : "probes";
    if (m->type != YAML_MAPPING_NODE)
        return s_fail(c, m, kind, "each entry must be a mapping");
    lg_op_probe_t *p = what ? NULL : &op->probes[op->nprobes++];
    lg_op_cred_t *cr = what ? &op->creds[op->ncreds++] : NULL;
    const yaml_node_t *argv = NULL;
    char *name = what ? cr->name : p->name;
    for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
        const yaml_node_t *kn = s_node(c, pr->key), *vn = s_node(c, pr->value);
        const char *k = s_scalar(c, kn, kind), *s = NULL;
        int rc = 0;
        if (!k)
            return LG_EPARSE;
        if (!strcmp(k, "name") || !strcmp(k, "origin")) {
            if (!(s = s_scalar(c, vn, k)))
                return LG_EPARSE;
        }
        if (!strcmp(k, "name")) {
            if (!s_name_ok(s))
                return s_fail(c, vn, k, "must be 1-63 of A-Za-z0-9._-, got \"%s\"", s);
            lg_strlcpy(name, s, LG_OP_NAME_MAX);
        } else if (!what && !strcmp(k, "argv")) {
            argv = vn;
        } else if (!what && !strcmp(k, "params")) {
            rc = s_params(c, vn, p);
        } else if (what && !strcmp(k, "origin")) {
            if (lg_url_origin(s, cr->origin, sizeof cr->origin) != 0 || strchr(s + 8, '/'))
                return s_fail(c, vn, k,
                              "must be an origin, scheme://host[:port] (http or https, no "
                              "path), got \"%s\"",
                              s);
        } else if (what && !strcmp(k, "token_file")) {
            rc = s_abs(c, vn, k, &cr->token_file);
        } else if (what && !strcmp(k, "ca_file")) {
            rc = s_abs(c, vn, k, &cr->ca_file);
        } else {
            return s_fail(c, kn, k, "unknown key; allowed in %s: %s", kind,
                          what ? "name, origin, token_file, ca_file" : "name, argv, params");
        }
        if (rc)
            return rc;
    }
    if (!name[0])
        return s_fail(c, m, kind, "an entry without a name");
    if (what && !cr->origin[0])
        return s_fail(c, m, kind, "credential \"%s\" has no origin", name);
    if (!what && !argv)
        return s_fail(c, m, kind, "probe \"%s\" has no argv", name);
    int rc = what ? 0 : s_argv(c, argv, p);
    for (size_t i = 0; !rc && !what && i < p->argc; i++)
        rc = s_check_refs(c, argv, p->argv[i], p);
    return rc;
}

static int s_list(ctx_t *c, const yaml_node_t *v, int what, lg_operator_t *op)
{
    const char *kind = what ? "credentials" : "probes";
    if (v->type != YAML_SEQUENCE_NODE)
        return s_fail(c, v, kind, "must be a list");
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n > (what ? OP_MAX_CREDS : OP_MAX_PROBES))
        return s_fail(c, v, kind, "too many entries");
    if (n && what && !(op->creds = calloc(n, sizeof *op->creds)))
        return -ENOMEM;
    if (n && !what && !(op->probes = calloc(n, sizeof *op->probes)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *m = s_node(c, v->data.sequence.items.start[i]);
        int rc = s_entry(c, m, what, op);
        if (rc)
            return rc;
        const char *nm = what ? op->creds[i].name : op->probes[i].name;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(nm, what ? op->creds[k].name : op->probes[k].name))
                return s_fail(c, m, kind, "the name \"%s\" is given twice", nm);
    }
    return 0;
}

static int s_doc(ctx_t *c, lg_operator_t *op)
{
    const yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root)
        return 0; /* an empty file allows nothing */
    if (root->type != YAML_MAPPING_NODE)
        return s_fail(c, root, NULL, "must be a mapping with probes: and credentials:");
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top;
         pr++) {
        const char *k = s_scalar(c, s_node(c, pr->key), NULL);
        if (!k)
            return LG_EPARSE;
        int rc;
        if (!strcmp(k, "probes") && !op->probes)
            rc = s_list(c, s_node(c, pr->value), 0, op);
        else if (!strcmp(k, "credentials") && !op->creds)
            rc = s_list(c, s_node(c, pr->value), 1, op);
        else
            rc = s_fail(c, s_node(c, pr->key), k,
                        "unknown or repeated key; allowed: probes, "
                        "credentials");
        if (rc)
            return rc;
    }
    return 0;
}

lg_operator_t *lg_operator_empty(void)
{
    return calloc(1, sizeof(lg_operator_t));
}

int lg_operator_parse(const char *text, size_t len, const char *path, lg_operator_t **out,
                      char *err, size_t errlen)
{
    *out = NULL;
    if (len > OP_MAX_TEXT) {
        snprintf(err, errlen, "%s: too large (%zu bytes; the limit is 256 KiB)", path, len);
        return LG_ETOOBIG;
    }
    lg_operator_t *op = lg_operator_empty();
    if (!op)
        return -ENOMEM;
    lg_strlcpy(op->path, path ? path : "", sizeof op->path);
    yaml_parser_t yp;
    yaml_document_t doc;
    ctx_t c = {&doc, path ? path : "(operator)", err, errlen};
    int rc = 0;
    if (!yaml_parser_initialize(&yp)) {
        lg_operator_destroy(&op);
        return -ENOMEM;
    }
    yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
    if (!yaml_parser_load(&yp, &doc)) {
        snprintf(err, errlen, "%s:%lu:%lu: %s", c.path, (unsigned long)yp.problem_mark.line + 1,
                 (unsigned long)yp.problem_mark.column + 1, yp.problem ? yp.problem : "not YAML");
        yaml_parser_delete(&yp);
        lg_operator_destroy(&op);
        return LG_EPARSE;
    }
    rc = s_doc(&c, op);
    yaml_document_delete(&doc);
    yaml_parser_delete(&yp);
    if (rc)
        lg_operator_destroy(&op);
    *out = op;
    return rc;
}

int lg_trusted_file(const char *path, const char *what, char *err, size_t errlen)
{
    struct stat st, dst;
    if (lstat(path, &st) != 0) {
        snprintf(err, errlen, "could not read \"%s\": %s", path, strerror(errno));
        return -errno;
    }
    char dir[1024];
    lg_strlcpy(dir, path, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        lg_strlcpy(dir, ".", sizeof dir);
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "\"%s\" is not a regular file (a link or something else)", path);
        return LG_EDENIED;
    }
    if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022)) {
        snprintf(err, errlen,
                 "\"%s\" could be changed by another user (owner uid %u, mode %04o) and %s; make "
                 "it yours or root's and not writable by group or others",
                 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), what);
        return LG_EDENIED;
    }
    if (stat(dir, &dst) != 0 || (dst.st_uid != geteuid() && dst.st_uid != 0) ||
        ((dst.st_mode & 022) && !(dst.st_mode & S_ISVTX))) {
        snprintf(err, errlen,
                 "\"%s\" is in a folder another user could change (\"%s\"), and %s: it could "
                 "be replaced; keep it in a folder of yours or root's",
                 path, dir, what);
        return LG_EDENIED;
    }
    return 0;
}

int lg_operator_load(const char *path, lg_operator_t **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = lg_trusted_file(path, "it names the programs lg runs and the secrets it sends", err,
                             errlen);
    if (rc)
        return rc;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "could not open \"%s\": %s", path, strerror(errno));
        return -errno;
    }
    struct statfs sf;
    if (fstatfs(fd, &sf) != 0 || sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC) {
        close(fd);
        snprintf(err, errlen, "\"%s\" is on /proc or /sys, not a file of the operator's", path);
        return LG_EDENIED;
    }
    char *buf = malloc(OP_MAX_TEXT + 1);
    ssize_t n = buf ? read(fd, buf, OP_MAX_TEXT + 1) : -1;
    int e = errno;
    close(fd);
    if (n < 0) {
        free(buf);
        snprintf(err, errlen, "could not read \"%s\": %s", path, strerror(e));
        return -e;
    }
    rc = lg_operator_parse(buf, (size_t)n, path, out, err, errlen);
    free(buf);
    return rc;
}

void lg_operator_destroy(lg_operator_t **self_p)
{
    lg_operator_t *op = self_p ? *self_p : NULL;
    if (!op)
        return;
    for (size_t i = 0; i < op->nprobes; i++)
        lg_operator_argv_free(op->probes[i].argv);
    for (size_t i = 0; i < op->ncreds; i++) {
        free(op->creds[i].token_file);
        free(op->creds[i].ca_file);
    }
    free(op->probes);
    free(op->creds);
    free(op);
    *self_p = NULL;
}

const char *lg_operator_path(const lg_operator_t *op)
{
    return op ? op->path : "";
}

const lg_op_probe_t *lg_operator_probe(const lg_operator_t *op, const char *name)
{
    for (size_t i = 0; op && name && i < op->nprobes; i++)
        if (!strcmp(op->probes[i].name, name))
            return &op->probes[i];
    return NULL;
}

const lg_op_cred_t *lg_operator_cred(const lg_operator_t *op, const char *name)
{
    for (size_t i = 0; op && name && i < op->ncreds; i++)
        if (!strcmp(op->creds[i].name, name))
            return &op->creds[i];
    return NULL;
}

void lg_operator_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* word with each {key} replaced by its value; NULL on ENOMEM. */
static char *s_fill(const char *word, const lg_op_probe_t *p, const char *const *vals)
{
    size_t cap = strlen(word) + 1;
    for (size_t k = 0; k < p->nparams; k++)
        for (const char *o = strchr(word, '{'); o; o = strchr(o + 1, '{'))
            cap += strlen(vals[k]);
    char *out = malloc(cap), *w = out;
    if (!out)
        return NULL;
    for (const char *s = word; *s;) {
        size_t k = p->nparams;
        if (*s == '{')
            for (k = 0; k < p->nparams; k++) {
                size_t len = strlen(p->params[k]);
                if (!strncmp(s + 1, p->params[k], len) && s[1 + len] == '}')
                    break;
            }
        if (k < p->nparams) {
            size_t vl = strlen(vals[k]);
            memcpy(w, vals[k], vl);
            w += vl;
            s += strlen(p->params[k]) + 2;
        } else {
            *w++ = *s++;
        }
    }
    *w = 0;
    return out;
}

int lg_operator_probe_argv(const lg_operator_t *op, const char *name, char *const *keys,
                           char *const *vals, size_t n, char ***argv, char *err, size_t errlen)
{
    *argv = NULL;
    const lg_op_probe_t *p = lg_operator_probe(op, name);
    if (!p) {
        snprintf(err, errlen, "no probe \"%s\" in the operator's file%s%s%s", name ? name : "",
                 op && op->path[0] ? " \"" : " (none is configured: --operator FILE)",
                 op && op->path[0] ? op->path : "", op && op->path[0] ? "\"" : "");
        return LG_EDENIED;
    }
    const char *v[LG_OP_MAX_PARAMS] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < p->nparams && strcmp(p->params[k], keys[i]))
            k++;
        if (k == p->nparams) {
            snprintf(err, errlen, "probe \"%s\" takes no parameter \"%s\"", name, keys[i]);
            return LG_EDENIED;
        }
        if (!lg_operator_value_ok(vals[i], p->kinds[k])) {
            snprintf(err, errlen,
                     "probe \"%s\": parameter \"%s\" must be a plain %s (letters, digits and . _ "
                     "+ : @ %% , -%s; not starting with -; no = or spaces)",
                     name, keys[i], p->kinds[k] == LG_OP_PARAM_PATH ? "path" : "name",
                     p->kinds[k] == LG_OP_PARAM_PATH ? ", / between parts other than . and .."
                                                     : "");
            return LG_EDENIED;
        }
        v[k] = vals[i];
    }
    for (size_t k = 0; k < p->nparams; k++)
        if (!v[k]) {
            snprintf(err, errlen, "probe \"%s\" needs the parameter \"%s\"", name, p->params[k]);
            return LG_EDENIED;
        }
    char **a = calloc(p->argc + 1, sizeof *a);
    for (size_t i = 0; a && i < p->argc; i++)
        if (!(a[i] = i ? s_fill(p->argv[i], p, v) : strdup(p->argv[0]))) {
            lg_operator_argv_free(a);
            a = NULL;
        }
    if (!a)
        return -ENOMEM;
    *argv = a;
    return 0;
}

int lg_url_origin(const char *url, char *buf, size_t len)
{
    const char *scheme = NULL, *h = NULL;
    if (!url)
        return LG_EPARSE;
    if (!strncasecmp(url, "http://", 7))
        scheme = "http", h = url + 7;
    else if (!strncasecmp(url, "https://", 8))
        scheme = "https", h = url + 8;
    else
        return LG_EPARSE;
    size_t hl = strcspn(h, "/?#");
    if (hl == 0 || hl >= 256 || memchr(h, '@', hl) || memchr(h, '\\', hl))
        return LG_EPARSE;
    char host[256];
    memcpy(host, h, hl);
    host[hl] = 0;
    for (char *p = host; *p; p++) {
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return LG_EPARSE;
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    }
    const char *port = NULL;
    char *colon = host[0] == '[' ? strstr(host, "]:") : strrchr(host, ':');
    if (colon && host[0] == '[')
        colon++;
    if (colon) {
        *colon = 0;
        port = colon + 1;
        uint64_t pn;
        if (lg_parse_u64(port, 1, 65535, &pn) != 0)
            return LG_EPARSE;
    }
    if (!host[0])
        return LG_EPARSE;
    int w = snprintf(buf, len, "%s://%s:%s", scheme, host,
                     port ? port : (scheme[4] == 's' ? "443" : "80"));
    return w > 0 && (size_t)w < len ? 0 : LG_EPARSE;
}

int lg_operator_cred_for(const lg_operator_t *op, const char *name, const char *url,
                         const lg_op_cred_t **cred, char *err, size_t errlen)
{
    *cred = NULL;
    const lg_op_cred_t *c = lg_operator_cred(op, name);
    if (!c) {
        snprintf(err, errlen, "no credential \"%s\" in the operator's file%s%s%s", name,
                 op && op->path[0] ? " \"" : " (none is configured: --operator FILE)",
                 op && op->path[0] ? op->path : "", op && op->path[0] ? "\"" : "");
        return LG_EDENIED;
    }
    char o[LG_OP_ORIGIN_MAX];
    if (lg_url_origin(url, o, sizeof o) != 0 || strcmp(o, c->origin)) {
        snprintf(err, errlen,
                 "credential \"%s\" is for %s only, and this source's URL is another origin "
                 "(%s): it is not sent there",
                 name, c->origin, lg_url_origin(url, o, sizeof o) == 0 ? o : "none");
        return LG_EDENIED;
    }
    *cred = c;
    return 0;
}

long lg_read_secret_file(const char *path, char *buf, size_t max, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO or a device such as /proc/kmsg must not hold us before fstat says
     * what it is; O_NOFOLLOW: the last component is not a link someone could swap. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "\"%s\": %s", path, e == ELOOP ? "is a link" : strerror(e));
        return -e;
    }
    struct stat st;
    struct statfs sf;
    long rc = 0;
    if (fstat(fd, &st) != 0 || fstatfs(fd, &sf) != 0) {
        rc = -errno;
        snprintf(err, errlen, "\"%s\": %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode) || sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC) {
        rc = LG_EDENIED;
        snprintf(err, errlen,
                 "\"%s\": not a regular file (a device, FIFO, socket, /proc or /sys "
                 "file is never read)",
                 path);
    } else if (st.st_mode & 077) {
        rc = LG_EDENIED;
        snprintf(err, errlen, "\"%s\": mode %04o lets others read it: make it 0600 (chmod 600)",
                 path, (unsigned)(st.st_mode & 07777));
    } else if (st.st_uid != geteuid() && st.st_uid != 0) {
        rc = LG_EDENIED;
        snprintf(err, errlen, "\"%s\": owned by uid %u, not by us or root", path,
                 (unsigned)st.st_uid);
    } else {
        ssize_t n = read(fd, buf, max - 1);
        if (n < 0) {
            rc = -errno;
            snprintf(err, errlen, "\"%s\": %s", path, strerror(errno));
        } else {
            buf[n] = 0;
            rc = n;
        }
    }
    close(fd);
    return rc;
}

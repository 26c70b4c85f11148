/* lg_config.c: a daemon's configuration file (--config FILE): the command line's options as
 * "option: value" lines of a small YAML subset, read into arguments for the program's one option
 * parser; its keys come from the same option table (lg_opt.h). See lg_config.h. */
#include "lg_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_util.h"

#define CONFIG_MAX (256u << 10)
#define ARGS_MAX 512

typedef struct {
    char **v;
    int n;
} args_t;

static int s_push(args_t *a, const char *s, size_t len)
{
    if (a->n >= ARGS_MAX)
        return LG_ETOOBIG;
    char *c = malloc(len + 1);
    if (!c)
        return -ENOMEM;
    memcpy(c, s, len);
    c[len] = 0;
    a->v[a->n++] = c;
    return 0;
}

static char *s_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* A scalar: 'single' or "double" quoted (taken literally: Windows paths keep their
 * backslashes), or plain. Returns NULL for an unterminated quote. */
static char *s_unquote(char *v)
{
    size_t n = strlen(v);
    if (n && (v[0] == '\'' || v[0] == '"')) {
        if (n < 2 || v[n - 1] != v[0])
            return NULL;
        v[n - 1] = 0;
        return v + 1;
    }
    return v;
}

static int s_value(args_t *a, const char *key, char *v, const char *path, int line, char *err,
                   size_t errlen)
{
    char *u = s_unquote(v);
    if (!u || !*u) {
        snprintf(err, errlen, "%s:%d: \"%s\" needs a value", path, line, key);
        return LG_EPARSE;
    }
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", key);
    int rc = s_push(a, opt, strlen(opt));
    if (!rc)
        rc = s_push(a, u, strlen(u));
    if (rc)
        snprintf(err, errlen, "%s:%d: too many options", path, line);
    return rc;
}

int lg_config_args(const char *path, const lg_optset_t *s, char ***argv, int *argc, char *err,
                   size_t errlen)
{
    char *text = NULL;
    int rc = lg_read_file(path, CONFIG_MAX, &text, NULL);
    if (rc) {
        snprintf(err, errlen, "config \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    args_t a = {calloc(ARGS_MAX + 1, sizeof(char *)), 0};
    if (!a.v) {
        free(text);
        return -ENOMEM;
    }
    char list_key[64] = ""; /* the key whose "- item" lines follow */
    int line = 0;
    for (char *l = text, *next; rc == 0 && l; l = next) {
        line++;
        next = strchr(l, '\n');
        if (next)
            *next++ = 0;
        int indented = l[0] == ' ' || l[0] == '\t';
        char *t = s_trim(l);
        if (!*t || *t == '#')
            continue;
        if (t[0] == '-' && (t[1] == ' ' || t[1] == 0)) {
            if (!indented || !list_key[0]) {
                snprintf(err, errlen, "%s:%d: a \"- item\" line belongs under a list option", path,
                         line);
                rc = LG_EPARSE;
            } else {
                rc = s_value(&a, list_key, s_trim(t + 1), path, line, err, errlen);
            }
            continue;
        }
        list_key[0] = 0;
        char *colon = strchr(t, ':');
        if (indented || !colon || colon == t) {
            snprintf(err, errlen,
                     "%s:%d: want \"option: value\" (an %s option without "
                     "its \"--\")",
                     path, line, s->prog);
            rc = LG_EPARSE;
            continue;
        }
        *colon = 0;
        char *key = s_trim(t), *v = s_trim(colon + 1);
        const lg_opt_t *o = lg_opt_config_key(s, key);
        if (!o) {
            snprintf(err, errlen, "%s:%d: unknown option \"%s\"", path, line, key);
            rc = LG_EPARSE;
        } else if (!o->arg) {
            if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0) {
                char opt[64];
                snprintf(opt, sizeof opt, "--%s", key);
                rc = s_push(&a, opt, strlen(opt));
            } else if (strcmp(v, "false") != 0 && strcmp(v, "no") != 0) {
                snprintf(err, errlen, "%s:%d: \"%s\" is true or false, got \"%s\"", path, line, key,
                         v);
                rc = LG_EPARSE;
            }
        } else if (!*v && (o->flags & LG_OPT_LIST)) {
            lg_strlcpy(list_key, key, sizeof list_key);
        } else if (v[0] == '[' && (o->flags & LG_OPT_LIST)) {
            size_t n = strlen(v);
            if (v[n - 1] != ']') {
                snprintf(err, errlen, "%s:%d: \"[\" without \"]\"", path, line);
                rc = LG_EPARSE;
                continue;
            }
            v[n - 1] = 0;
            for (char *item = v + 1, *comma; rc == 0 && item; item = comma) {
                comma = strchr(item, ',');
                if (comma)
                    *comma++ = 0;
                rc = s_value(&a, key, s_trim(item), path, line, err, errlen);
            }
        } else {
            rc = s_value(&a, key, v, path, line, err, errlen);
        }
    }
    free(text);
    if (rc) {
        lg_config_free(a.v, a.n);
        return rc;
    }
    *argv = a.v;
    *argc = a.n;
    return 0;
}

void lg_config_free(char **argv, int argc)
{
    for (int i = 0; argv && i < argc; i++)
        free(argv[i]);
    free(argv);
}

char **lg_config_merge(char *argv0, char **cargs, int ncargs, char **rest, int nrest, int *n)
{
    char **all = calloc((size_t)ncargs + (size_t)(nrest > 0 ? nrest : 1) + 1, sizeof *all);
    if (!all)
        return NULL;
    int k = 0;
    all[k++] = argv0;
    for (int i = 0; i < ncargs; i++)
        all[k++] = cargs[i];
    for (int i = 1; i < nrest; i++)
        all[k++] = rest[i];
    *n = k;
    return all;
}

int lg_cmdline_load(lg_cmdline_t *self, const lg_optset_t *s, int argc, char **argv, void *ctx,
                    const char *const *config, char *err, size_t errlen)
{
    memset(self, 0, sizeof *self);
    int nrest = 0;
    self->rest = calloc((size_t)argc + 1, sizeof *self->rest);
    if (!self->rest) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = lg_opt_early(s, argc, argv, ctx, self->rest, &nrest, err, errlen);
    if (rc == 0 && config && *config)
        rc = lg_config_args(*config, s, &self->cargs, &self->ncargs, err, errlen);
    if (rc)
        return rc;
    self->argv =
        lg_config_merge(self->rest[0], self->cargs, self->ncargs, self->rest, nrest, &self->argc);
    if (!self->argv) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

void lg_cmdline_clear(lg_cmdline_t *self)
{
    free(self->argv);
    lg_config_free(self->cargs, self->ncargs);
    free(self->rest);
    memset(self, 0, sizeof *self);
}

/* lg_opt.c: a program's option table (lg_opt.h) read four ways: the command line parsed by it,
 * --help and the man page's OPTIONS printed from it, and the --config file's keys looked up in
 * it. A program of commands' command line, help and man page are lg_optcmd.c's. */
#include "lg_opt.h"

#include <string.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_opt_int.h"
#include "lg_util.h"

const lg_opt_t *lg_opt_find(const lg_optset_t *s, const char *name)
{
    for (const lg_opt_t *o = s->opts; o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

const lg_opt_t *lg_opt_config_key(const lg_optset_t *s, const char *key)
{
    const lg_opt_t *o = lg_opt_find(s, key);
    return o && !(o->flags & LG_OPT_CLI) ? o : NULL;
}

/* The option a command-line word names: "--name", or "-x" for a letter. */
static const lg_opt_t *s_match(const lg_optset_t *s, const char *w)
{
    if (w[0] != '-')
        return NULL;
    if (w[1] == '-')
        return w[2] ? lg_opt_find(s, w + 2) : NULL;
    for (const lg_opt_t *o = s->opts; w[1] && !w[2] && o->name; o++)
        if (o->letter == w[1])
            return o;
    return NULL;
}

int lg_opt_verbose(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    (void)ctx, (void)o, (void)v, (void)err, (void)errlen;
    lg_log_set_level(LG_LOG_DEBUG);
    return 0;
}

int lg_opt_apply(const lg_opt_t *o, const char *as, const char *v, void *ctx, char *err,
                 size_t errlen)
{
    char *at = (char *)ctx + o->off;
    uint64_t n;
    switch (o->kind) {
    case LG_OPT_STR:
        *(const char **)(void *)at = v;
        return 0;
    case LG_OPT_FLAG:
        *(int *)(void *)at = 1;
        return 0;
    case LG_OPT_UINT:
    case LG_OPT_SECONDS:
        if (lg_parse_u64(v, o->min, o->max, &n) != 0) {
            snprintf(err, errlen, "%s: \"%s\" is not %s from %lu to %lu", as, v,
                     o->kind == LG_OPT_UINT ? "an integer" : "a number of seconds",
                     (unsigned long)o->min, (unsigned long)o->max);
            return LG_EPARSE;
        }
        *(uint32_t *)(void *)at = (uint32_t)n;
        return 0;
    case LG_OPT_FN:
        return o->fn(ctx, o, v, err, errlen) == 0 ? 0 : LG_EPARSE;
    default: /* help, version, man: lg_opt_parse's */
        return 0;
    }
}

int lg_opt_parse(const lg_optset_t *s, int argc, char **argv, void *ctx, char *err, size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i], *v = NULL;
        const lg_opt_t *o = s_match(s, w);
        if (!o && s->operand && w[0] != '-') {
            if (s->operand(ctx, w, err, errlen) != 0)
                return LG_EPARSE;
            continue;
        }
        if (!o) {
            snprintf(err, errlen, "unknown option \"%s\"", w);
            return LG_ENOTFOUND;
        }
        if (o->arg) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "option \"%s\" needs a value", w);
                return LG_EPARSE;
            }
            v = argv[++i];
        }
        if (o->kind == LG_OPT_HELP || o->kind == LG_OPT_VERSION || o->kind == LG_OPT_MAN) {
            if (o->kind == LG_OPT_HELP)
                lg_opt_help(s, stdout);
            else if (o->kind == LG_OPT_VERSION)
                printf("%s %s\n", s->prog, LG_VERSION);
            else
                lg_opt_man(s, stdout);
            return LG_OPT_DONE;
        }
        int rc = lg_opt_apply(o, w, v, ctx, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int lg_opt_early(const lg_optset_t *s, int argc, char **argv, void *ctx, char **rest, int *nrest,
                 char *err, size_t errlen)
{
    int n = 0;
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const lg_opt_t *o = s_match(s, argv[i]);
        if (!o || !(o->flags & LG_OPT_EARLY) || (o->arg && i + 1 >= argc)) {
            rest[n++] = argv[i];
            continue;
        }
        const char *w = argv[i], *v = o->arg ? argv[++i] : NULL;
        int rc = lg_opt_apply(o, w, v, ctx, err, errlen);
        if (rc) {
            *nrest = n;
            return rc;
        }
    }
    rest[n] = NULL;
    *nrest = n;
    return 0;
}

void lg__opt_entry(FILE *f, const lg_optset_t *s, const char *lhs, const char *text)
{
    if ((int)strlen(lhs) <= s->width)
        fprintf(f, "  %-*s ", s->width, lhs);
    else /* it runs into the column: two spaces, as a sentence */
        fprintf(f, "  %s  ", lhs);
    for (const char *p = text ? text : ""; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", s->width + 3, "");
    }
    fputc('\n', f);
}

void lg__opt_help_entry(FILE *f, const lg_optset_t *s, const lg_opt_t *o, const char *text)
{
    char lhs[128];
    snprintf(lhs, sizeof lhs, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    lg__opt_entry(f, s, lhs, text);
}

void lg_opt_help(const lg_optset_t *s, FILE *f)
{
    if (s->cmds) {
        lg__opt_cmd_list(s, f);
        return;
    }
    fputs(s->usage, f);
    for (const lg_opt_t *o = s->opts; o->name; o++)
        if (!(o->flags & LG_OPT_HIDDEN))
            lg__opt_help_entry(f, s, o, o->help);
    if (s->epilog)
        fputs(s->epilog, f);
}

void lg__opt_man_text(FILE *f, const char *text)
{
    char last = ' ';
    for (const char *p = text; *p; last = *p++) {
        if (*p == '\n') {
            fputc(' ', f);
            continue;
        }
        int alnum = (last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z') ||
                    (last >= '0' && last <= '9');
        if (*p == '*' || *p == '\\' || (*p == '_' && !alnum))
            fputc('\\', f);
        fputc(*p, f);
    }
}

void lg_opt_man(const lg_optset_t *s, FILE *f)
{
    if (s->cmds) {
        lg__opt_cmd_man(s, f);
        return;
    }
    for (const lg_opt_t *o = s->opts; o->name; o++) {
        if (o->flags & LG_OPT_HIDDEN)
            continue;
        fprintf(f, "*--%s*", o->name);
        if (o->arg)
            fprintf(f, " _%s_", o->arg);
        fputs("\n\t", f);
        if (o->man)
            fputs(o->man, f);
        else
            lg__opt_man_text(f, o->help);
        fputs("\n\n", f);
    }
}

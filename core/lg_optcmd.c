/* lg_optcmd.c: the command level of lg_opt (lg_opt.h): a program of commands (lgctl) reads its
 * command line, prints its list of commands, a command's help and the man page's COMMANDS and
 * OPTIONS from one table of options and one of commands, each command naming the options it
 * takes. */
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_opt.h"
#include "lg_opt_int.h"
#include "lg_util.h"

/* The command words[0..n) name, the longest match first (two words, then one); *used: how many
 * words it took. */
static const lg_optcmd_t *s_find(const lg_optset_t *s, const char *const *words, int n, int *used)
{
    for (int want = 2; want >= 1; want--) {
        if (n < want)
            continue;
        char name[128];
        if (want == 2)
            snprintf(name, sizeof name, "%s %s", words[0], words[1]);
        else
            lg_strlcpy(name, words[0], sizeof name);
        for (const lg_optcmd_t *k = s->cmds; k->name; k++)
            if (strcmp(k->name, name) == 0) {
                *used = want;
                return k;
            }
    }
    return NULL;
}

/* 1 when command k takes option o: one of its list, or --help, --version and --man-options,
 * which every command takes. */
static int s_takes(const lg_optcmd_t *k, const lg_opt_t *o)
{
    if (o->kind == LG_OPT_HELP || o->kind == LG_OPT_VERSION || o->kind == LG_OPT_MAN)
        return 1;
    for (const lg_optuse_t *u = k->opts; u && u->name; u++)
        if (strcmp(u->name, o->name) == 0)
            return 1;
    return 0;
}

/* The set's option of a kind (its --help), or NULL. */
static const lg_opt_t *s_kind(const lg_optset_t *s, lg_opt_kind_t kind)
{
    for (const lg_opt_t *o = s->opts; o->name; o++)
        if (o->kind == kind)
            return o;
    return NULL;
}

static void s_synopsis(FILE *f, const lg_optset_t *s, const lg_optcmd_t *k)
{
    fprintf(f, "%s %s%s%s [options]\n", s->prog, k->name, k->args[0] ? " " : "", k->args);
}

void lg_opt_cmd_help(const lg_optset_t *s, const lg_optcmd_t *k, FILE *f)
{
    fputs("usage: ", f);
    s_synopsis(f, s, k);
    fputs("  ", f); /* its text, indented by two */
    for (const char *p = k->summary; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fputs("  ", f);
    }
    fputc('\n', f);
    fputs("options:\n", f);
    for (const lg_optuse_t *u = k->opts; u && u->name; u++) {
        const lg_opt_t *o = lg_opt_find(s, u->name);
        if (o)
            lg__opt_help_entry(f, s, o, u->help ? u->help : o->help);
    }
    const lg_opt_t *help = s_kind(s, LG_OPT_HELP); /* every command's, last */
    if (help)
        lg__opt_help_entry(f, s, help, help->help);
}

void lg__opt_cmd_list(const lg_optset_t *s, FILE *f)
{
    fputs(s->usage, f);
    fputs("commands:\n", f);
    for (const lg_optcmd_t *k = s->cmds; k->name; k++) {
        char lhs[128];
        snprintf(lhs, sizeof lhs, "%s%s%s", k->name, k->args[0] ? " " : "", k->args);
        lg__opt_entry(f, s, lhs, k->brief);
    }
    if (s->epilog)
        fputs(s->epilog, f);
}

int lg_opt_help_cmd(const lg_optset_t *s, const char *const *words, int n)
{
    if (n == 0) {
        lg_opt_help(s, stdout);
        return 0;
    }
    int used = 0;
    const lg_optcmd_t *k = s_find(s, words, n, &used);
    if (!k || used != n) {
        lg_error("help: no command \"%s%s%s\"", words[0], n > 1 ? " " : "", n > 1 ? words[1] : "");
        lg_opt_help(s, stderr);
        return LG_ENOTFOUND;
    }
    lg_opt_cmd_help(s, k, stdout);
    return 0;
}

/* ---- the man page's COMMANDS and OPTIONS ---- */

static void s_man_opt(FILE *f, const lg_opt_t *o)
{
    fprintf(f, "*--%s*", o->name);
    if (o->arg)
        fprintf(f, " _%s_", o->arg);
}

static int s_by_name(const void *a, const void *b)
{
    return strcmp((*(const lg_opt_t *const *)a)->name, (*(const lg_opt_t *const *)b)->name);
}

/* Under OPTIONS, after option o's own text: what each command says of it its own way
 * ("compare: ..."), each text once, with the first command that says it. */
static void s_man_uses(const lg_optset_t *s, const lg_opt_t *o, FILE *f)
{
    for (const lg_optcmd_t *k = s->cmds; k->name; k++)
        for (const lg_optuse_t *u = k->opts; u && u->name; u++) {
            if (strcmp(u->name, o->name) != 0 || !u->help)
                continue;
            int seen = 0;
            for (const lg_optcmd_t *j = s->cmds; j < k && !seen; j++)
                for (const lg_optuse_t *v = j->opts; v && v->name; v++)
                    seen |= !strcmp(v->name, o->name) && v->help && !strcmp(v->help, u->help);
            if (seen)
                continue;
            fprintf(f, "\n\t%s: ", k->name);
            lg__opt_man_text(f, u->help);
            fputc('\n', f);
        }
}

void lg__opt_cmd_man(const lg_optset_t *s, FILE *f)
{
    fputs("# COMMANDS\n\n", f);
    for (const lg_optcmd_t *k = s->cmds; k->name; k++) {
        fprintf(f, "*%s*", k->name);
        if (k->args[0])
            fprintf(f, " _%s_", k->args);
        fputs("\n\t", f);
        lg__opt_man_text(f, k->summary);
        fputc('\n', f);
        if (k->more)
            fprintf(f, "\n\t%s\n", k->more);
        int n = 0;
        for (const lg_optuse_t *u = k->opts; u && u->name; u++) {
            const lg_opt_t *o = lg_opt_find(s, u->name);
            if (!o)
                continue;
            fputs(n++ ? ", " : "\n\tOptions: ", f);
            s_man_opt(f, o);
        }
        fputs(n ? ".\n\n" : "\n", f);
    }
    fputs("# OPTIONS\n\n", f);
    size_t n = 0;
    for (const lg_opt_t *o = s->opts; o->name; o++)
        n++;
    const lg_opt_t **by = calloc(n + 1, sizeof *by);
    size_t m = 0;
    for (const lg_opt_t *o = s->opts; by && o->name; o++)
        if (!(o->flags & LG_OPT_HIDDEN))
            by[m++] = o;
    if (m > 1)
        qsort(by, m, sizeof *by, s_by_name);
    for (size_t i = 0; i < m; i++) {
        s_man_opt(f, by[i]);
        fputs("\n\t", f);
        if (by[i]->man)
            fputs(by[i]->man, f);
        else
            lg__opt_man_text(f, by[i]->help);
        fputc('\n', f);
        s_man_uses(s, by[i], f);
        fputc('\n', f);
    }
    free(by);
}

/* ---- the command line ---- */

/* An option given on the command line. */
typedef struct {
    const lg_opt_t *o;
    const char *v; /* its value; NULL for a flag */
} s_given_t;

/* The option word a names ("--name", "--name=VALUE", a letter of the table's: "-h"), with its
 * value taken from after '=' or the next word (argv[*i + 1], *i moved past it), into *g. Returns
 * 1 for an option, 0 for a word that is none (an argument: "-", "-x"), or LG_EPARSE after saying
 * why. */
static int s_option(const lg_optset_t *s, int argc, char **argv, int *i, s_given_t *g)
{
    const char *a = argv[*i], *eq = NULL;
    const lg_opt_t *o = NULL;
    size_t nl = 0;
    if (a[0] != '-' || a[1] == 0)
        return 0;
    if (a[1] != '-') { /* a letter of the table's, else an argument */
        for (o = s->opts; a[2] == 0 && o->name && o->letter != a[1]; o++)
            ;
        if (a[2] != 0 || !o->name)
            return 0;
    } else {
        eq = strchr(a, '=');
        nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        for (o = s->opts; o->name && (strlen(o->name) != nl || strncmp(o->name, a + 2, nl)); o++)
            ;
        if (!o->name) {
            lg_error("unknown option \"%.*s\" (%s help lists the commands, %s help COMMAND a "
                     "command's options)",
                     (int)(nl + 2), a, s->prog, s->prog);
            return LG_EPARSE;
        }
    }
    g->o = o;
    g->v = NULL;
    if (o->arg && eq)
        g->v = eq + 1;
    else if (o->arg && *i + 1 < argc)
        g->v = argv[++*i];
    else if (o->arg) {
        lg_error("option --%s needs a value (%s)", o->name, o->arg);
        return LG_EPARSE;
    } else if (eq) {
        lg_error("option --%s takes no value", o->name);
        return LG_EPARSE;
    }
    return 1;
}

/* Options into g[0..*ng) (room for argc), the other words into words[0..*nw) (room for max).
 * Returns 0 or LG_EPARSE after saying why. */
static int s_scan(const lg_optset_t *s, int argc, char **argv, s_given_t *g, int *ng,
                  const char **words, int max, int *nw)
{
    int rest = 0;
    for (int i = 1; i < argc; i++) {
        if (!rest && strcmp(argv[i], "--") == 0) { /* the rest are arguments (db shell: psql's) */
            rest = 1;
            continue;
        }
        int rc = rest ? 0 : s_option(s, argc, argv, &i, &g[*ng]);
        if (rc < 0)
            return rc;
        if (rc) {
            (*ng)++;
            continue;
        }
        if (*nw == max) {
            lg_error("too many arguments");
            return LG_EPARSE;
        }
        words[(*nw)++] = argv[i];
    }
    return 0;
}

/* The option of kind among g[0..ng), or NULL. */
static const lg_opt_t *s_given_kind(const s_given_t *g, int ng, lg_opt_kind_t kind)
{
    for (int i = 0; i < ng; i++)
        if (g[i].o->kind == kind)
            return g[i].o;
    return NULL;
}

/* --help, --version or --man-options given (k the command, or NULL with nw words that name
 * none): what it asks printed, as lgctl always has (a command's --help before --version; with
 * neither command nor words, --version before --help). Returns 1 when one was, else 0. */
static int s_asked(const lg_optset_t *s, const lg_optcmd_t *k, const s_given_t *g, int ng, int nw)
{
    int alone = !k && nw == 0, help = s_given_kind(g, ng, LG_OPT_HELP) != NULL;
    if (k && help)
        lg_opt_cmd_help(s, k, stdout);
    else if ((k || alone) && s_given_kind(g, ng, LG_OPT_VERSION))
        printf("%s %s\n", s->prog, LG_VERSION);
    else if (alone && help)
        lg_opt_help(s, stdout);
    else if ((k || alone) && s_given_kind(g, ng, LG_OPT_MAN))
        lg_opt_man(s, stdout);
    else
        return 0;
    return 1;
}

/* No command in words[0..nw): an unknown one named, or the list of commands. */
static void s_no_command(const lg_optset_t *s, const char *const *words, int nw)
{
    if (nw == 0) {
        lg_opt_help(s, stderr);
        return;
    }
    char names[1024];
    size_t no = 0;
    for (const lg_optcmd_t *k = s->cmds; k->name && no < sizeof names; k++)
        no += (size_t)snprintf(names + no, sizeof names - no, "%s%s", k == s->cmds ? "" : ", ",
                               k->name);
    lg_error("unknown command \"%s\"; commands: %s", words[0], names);
    lg_log_hint("%s help COMMAND prints a command's usage and options", s->prog);
}

/* Command k given the options g[0..ng) and nargs arguments: each option one it takes, the
 * arguments as many as it takes. Returns 0 or LG_EPARSE after saying why. */
static int s_check(const lg_optset_t *s, const lg_optcmd_t *k, const s_given_t *g, int ng,
                   const char *const *args, int nargs)
{
    for (const lg_opt_t *o = s->opts; o->name; o++) { /* the table's order: the first it names */
        int given = 0;
        for (int i = 0; i < ng && !given; i++)
            given = g[i].o == o;
        if (given && !s_takes(k, o)) {
            lg_error("%s: option --%s does not apply to %s", k->name, o->name, k->name);
            lg_opt_cmd_help(s, k, stderr);
            return LG_EPARSE;
        }
    }
    if (nargs >= k->min && nargs <= k->max)
        return 0;
    if (nargs < k->min)
        lg_error("%s: needs %s", k->name, k->args);
    else
        lg_error("%s: unexpected argument \"%s\"", k->name, args[k->max]);
    fputs("usage: ", stderr);
    s_synopsis(stderr, s, k);
    fprintf(stderr, "(%s help %s: its options)\n", s->prog, k->name);
    return LG_EPARSE;
}

int lg_opt_parse_cmd(const lg_optset_t *s, int argc, char **argv, void *ctx,
                     const lg_optcmd_t **cmd, const char **args, int max, int *nargs)
{
    s_given_t *g = calloc((size_t)argc + 1, sizeof *g);
    int ng = 0, nw = 0, used = 0, rc = LG_EPARSE;
    *cmd = NULL;
    *nargs = 0;
    if (!g) {
        lg_error("out of memory");
        return LG_EPARSE;
    }
    if (s_scan(s, argc, argv, g, &ng, args, max, &nw) != 0)
        goto out;
    const lg_optcmd_t *k = nw ? s_find(s, args, nw, &used) : NULL;
    if (s_asked(s, k, g, ng, nw)) {
        rc = LG_OPT_DONE;
        goto out;
    }
    if (!k) {
        s_no_command(s, args, nw);
        goto out;
    }
    *nargs = nw - used;
    memmove(args, args + used, (size_t)*nargs * sizeof *args);
    if (s_check(s, k, g, ng, args, *nargs) != 0)
        goto out;
    for (int i = 0; i < ng; i++) {
        char err[1024], as[128];
        snprintf(as, sizeof as, "--%s", g[i].o->name);
        if (lg_opt_apply(g[i].o, as, g[i].v, ctx, err, sizeof err) != 0) {
            lg_error("%s", err);
            goto out;
        }
    }
    *cmd = k;
    rc = 0;
out:
    free(g);
    return rc;
}

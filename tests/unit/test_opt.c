/* test_opt.c: core/lg_opt, a program's option table: the command line parsed by it (values,
 * flags, ranges, lists, operands, its messages), the early options, --help's layout, the man
 * page's OPTIONS in scdoc, and the --config file's keys (lg_config) taken from it; and its command
 * level (lgctl's): a command found by its words, options anywhere and only the command's own,
 * its arguments counted, the list of commands, a command's help and the man page's COMMANDS and
 * OPTIONS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lg_config.h"
#include "lg_error.h"
#include "lg_opt.h"
#include "lg_owndir.h"

typedef struct {
    const char *name, *config;
    int flag, early_flag;
    uint32_t n, secs;
    const char *list[4];
    int nlist;
    const char *words[4];
    int nwords;
} ctx_t;

static int s_item(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    ctx_t *c = ctx;
    if (strcmp(v, "bad") == 0 || c->nlist == 4) {
        snprintf(err, errlen, "--%s \"%s\": not an item", o->name, v);
        return -1;
    }
    c->list[c->nlist++] = v;
    return 0;
}

static int s_word(void *ctx, const char *w, char *err, size_t errlen)
{
    ctx_t *c = ctx;
    (void)err, (void)errlen;
    c->words[c->nwords++] = w;
    return 0;
}

#define O(f) offsetof(ctx_t, f)
static const lg_opt_t s_opts[] = {
    {"name", 0, "NAME", LG_OPT_STR, 0, O(name), 0, 0, NULL, "a name", NULL},
    {"flag", 0, NULL, LG_OPT_FLAG, 0, O(flag), 0, 0, NULL, "a flag", NULL},
    {"n", 0, "N", LG_OPT_UINT, 0, O(n), 10, 100, NULL, "a number", NULL},
    {"secs", 0, "S", LG_OPT_SECONDS, 0, O(secs), 1, 60, NULL, "seconds", NULL},
    {"item", 0, "X", LG_OPT_FN, LG_OPT_LIST, 0, 0, 0, s_item, "an item (repeatable;\nsecond line)",
     NULL},
    {"a-much-longer-option", 0, "VALUE", LG_OPT_STR, 0, O(name), 0, 0, NULL,
     "past the column: *bold* and _under_ and a\\b stay text, snake_case too", NULL},
    {"manned", 0, NULL, LG_OPT_FLAG, 0, O(flag), 0, 0, NULL, "short", "the page's *own* text"},
    {"config", 0, "FILE", LG_OPT_STR, LG_OPT_CLI | LG_OPT_EARLY, O(config), 0, 0, NULL,
     "options from FILE", NULL},
    {"early", 0, NULL, LG_OPT_FLAG, LG_OPT_CLI | LG_OPT_EARLY, O(early_flag), 0, 0, NULL,
     "taken first", NULL},
    {"secret", 0, NULL, LG_OPT_FLAG, LG_OPT_HIDDEN, O(flag), 0, 0, NULL, NULL, NULL},
    {"version", 0, NULL, LG_OPT_VERSION, LG_OPT_CLI, 0, 0, 0, NULL, "the version", NULL},
    {"help", 'h', NULL, LG_OPT_HELP, LG_OPT_CLI | LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    {NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL},
};
static const lg_optset_t s_set = {
    "lg-test", "usage: lg-test [options]\n", "the end\n", 10, s_opts, NULL, NULL};
static const lg_optset_t s_set_words = {
    "lg-test", "usage: lg-test [options] WORD...\n", NULL, 10, s_opts, s_word, NULL};

static int s_parse(const lg_optset_t *s, ctx_t *c, char *err, size_t errlen, ...)
{
    char *argv[32] = {"lg-test"};
    int argc = 1;
    va_list ap;
    va_start(ap, errlen);
    for (char *a; argc < 31 && (a = va_arg(ap, char *));)
        argv[argc++] = a;
    va_end(ap);
    memset(c, 0, sizeof *c);
    err[0] = 0;
    return lg_opt_parse(s, argc, argv, c, err, errlen);
}

static void test_parse(void **state)
{
    (void)state;
    ctx_t c;
    char err[256];
    assert_int_equal(s_parse(&s_set, &c, err, sizeof err, "--name", "a", "--flag", "--n", "10",
                             "--secs", "60", "--item", "x", "--item", "--y", "--name", "b", NULL),
                     0);
    assert_string_equal(c.name, "b"); /* the last wins */
    assert_int_equal(c.flag, 1);
    assert_int_equal(c.n, 10);
    assert_int_equal(c.secs, 60);
    assert_int_equal(c.nlist, 2);
    assert_string_equal(c.list[1], "--y"); /* a value is the next word, whatever it is */

    assert_int_equal(s_parse(&s_set, &c, err, sizeof err, "--n", "9", NULL), LG_EPARSE);
    assert_string_equal(err, "--n: \"9\" is not an integer from 10 to 100");
    assert_int_equal(s_parse(&s_set, &c, err, sizeof err, "--secs", "1m", NULL), LG_EPARSE);
    assert_string_equal(err, "--secs: \"1m\" is not a number of seconds from 1 to 60");
    assert_int_equal(s_parse(&s_set, &c, err, sizeof err, "--item", "bad", NULL), LG_EPARSE);
    assert_string_equal(err, "--item \"bad\": not an item");
    assert_int_equal(s_parse(&s_set, &c, err, sizeof err, "--flag", "--name", NULL), LG_EPARSE);
    assert_string_equal(err, "option \"--name\" needs a value");
    /* no abbreviations, no --opt=value, no letters but the table's */
    const char *unknown[] = {"--nam", "--name=a", "-n", "--", "-", "word"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_int_equal(s_parse(&s_set, &c, err, sizeof err, unknown[i], "x", NULL), LG_ENOTFOUND);
        char want[64];
        snprintf(want, sizeof want, "unknown option \"%s\"", unknown[i]);
        assert_string_equal(err, want);
    }
    /* an unknown last word is unknown too, not one missing its value */
    assert_int_equal(s_parse(&s_set, &c, err, sizeof err, "--bogus", NULL), LG_ENOTFOUND);
    /* words that are no option: the program's, when it takes them, in order */
    assert_int_equal(s_parse(&s_set_words, &c, err, sizeof err, "a.sql", "--flag", "b.sql", NULL),
                     0);
    assert_int_equal(c.nwords, 2);
    assert_string_equal(c.words[1], "b.sql");
    assert_int_equal(s_parse(&s_set_words, &c, err, sizeof err, "a.sql", "-x", NULL), LG_ENOTFOUND);
    assert_string_equal(err, "unknown option \"-x\"");
    /* an option's own handling of a value from elsewhere, named as that */
    assert_int_equal(lg_opt_apply(lg_opt_find(&s_set, "secs"), "LG_SECS", "0", &c, err, sizeof err),
                     LG_EPARSE);
    assert_string_equal(err, "LG_SECS: \"0\" is not a number of seconds from 1 to 60");
    assert_null(lg_opt_find(&s_set, "nope"));
}

static void test_early(void **state)
{
    (void)state;
    char *argv[] = {"lg-test", "--name", "--config", "--early", "f.yaml", "--flag", "--config"};
    int argc = 7, nrest = 0;
    char *rest[8], err[64];
    ctx_t c;
    memset(&c, 0, sizeof c);
    assert_int_equal(lg_opt_early(&s_set, argc, argv, &c, rest, &nrest, err, sizeof err), 0);
    /* as the daemons' pre-pass always did: "--config VALUE" wherever it is, a last one without
     * its value left for the parser to refuse */
    assert_string_equal(c.config, "--early");
    assert_int_equal(c.early_flag, 0);
    assert_int_equal(nrest, 5);
    const char *want[] = {"lg-test", "--name", "f.yaml", "--flag", "--config"};
    for (int i = 0; i < nrest; i++)
        assert_string_equal(rest[i], want[i]);
    assert_null(rest[nrest]);
    char *argv2[] = {"lg-test", "--early", "--name", "x"};
    memset(&c, 0, sizeof c);
    assert_int_equal(lg_opt_early(&s_set, 4, argv2, &c, rest, &nrest, err, sizeof err), 0);
    assert_int_equal(c.early_flag, 1);
    assert_int_equal(nrest, 3);
    assert_int_equal(lg_opt_parse(&s_set, nrest, rest, &c, err, sizeof err), 0);
    assert_string_equal(c.name, "x");
}

/* What f got, from its start; caller frees. */
/* A file of the test's made anew as lg makes its files (lg_create_new_file: O_EXCL|O_NOFOLLOW,
 * an older one of that name unlinked first). */
static FILE *s_new(const char *path)
{
    FILE *f = lg_create_new_file(path, 0600);
    assert_non_null(f);
    return f;
}

/* Closes f, written at path, and returns what it holds. */
static char *s_slurp(FILE *f, const char *path)
{
    assert_int_equal(fclose(f), 0);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    char *buf = calloc((size_t)n + 1, 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

static void test_help_and_man(void **state)
{
    (void)state;
    const char *path = "lg-test-opt.txt";
    FILE *f = s_new(path);
    lg_opt_help(&s_set, f);
    char *help = s_slurp(f, path);
    assert_string_equal(help, "usage: lg-test [options]\n"
                              "  --name NAME  a name\n"
                              "  --flag     a flag\n"
                              "  --n N      a number\n"
                              "  --secs S   seconds\n"
                              "  --item X   an item (repeatable;\n"
                              "             second line)\n"
                              "  --a-much-longer-option VALUE  past the column: *bold* and _under_ "
                              "and a\\b stay text, snake_case too\n"
                              "  --manned   short\n"
                              "  --config FILE  options from FILE\n"
                              "  --early    taken first\n"
                              "  --version  the version\n"
                              "the end\n");
    free(help);
    f = s_new(path);
    lg_opt_man(&s_set, f);
    char *man = s_slurp(f, path);
    assert_string_equal(man, "*--name* _NAME_\n\ta name\n\n"
                             "*--flag*\n\ta flag\n\n"
                             "*--n* _N_\n\ta number\n\n"
                             "*--secs* _S_\n\tseconds\n\n"
                             "*--item* _X_\n\tan item (repeatable; second line)\n\n"
                             "*--a-much-longer-option* _VALUE_\n\tpast the column: \\*bold\\* and "
                             "\\_under_ and a\\\\b stay text, snake_case too\n\n"
                             "*--manned*\n\tthe page's *own* text\n\n"
                             "*--config* _FILE_\n\toptions from FILE\n\n"
                             "*--early*\n\ttaken first\n\n"
                             "*--version*\n\tthe version\n\n");
    free(man);
    unlink(path);
}

/* The --config file's keys are the table's options but the command line's own. */
static void test_config_keys(void **state)
{
    (void)state;
    const char *path = "lg-test-opt.yaml";
    FILE *f = s_new(path);
    fputs("name: a\nflag: true\nmanned: false\nitem: [x, y]\nsecs: 5\n", f);
    fclose(f);
    char **argv = NULL, err[256];
    int argc = 0;
    assert_int_equal(lg_config_args(path, &s_set, &argv, &argc, err, sizeof err), 0);
    const char *want[] = {"--name", "a", "--flag", "--item", "x", "--item", "y", "--secs", "5"};
    assert_int_equal(argc, 9);
    for (int i = 0; i < argc; i++)
        assert_string_equal(argv[i], want[i]);
    lg_config_free(argv, argc);
    const char *cli[] = {"config: x\n", "early: true\n", "version: true\n", "help: true\n"};
    for (size_t i = 0; i < sizeof cli / sizeof cli[0]; i++) {
        f = s_new(path);
        fputs(cli[i], f);
        fclose(f);
        assert_int_not_equal(lg_config_args(path, &s_set, &argv, &argc, err, sizeof err), 0);
        assert_non_null(strstr(err, ":1: unknown option"));
    }
    f = s_new(path);
    fputs("name: [a, b]\n", f); /* not a list: the value as it is */
    fclose(f);
    assert_int_equal(lg_config_args(path, &s_set, &argv, &argc, err, sizeof err), 0);
    assert_int_equal(argc, 2);
    assert_string_equal(argv[1], "[a, b]");
    lg_config_free(argv, argc);
    unlink(path);
}

/* A daemon's command line (lg_cmdline_load): the early options out, the file's options in front
 * of the command line's (which win); a broken file is an error naming its line. */
static void test_cmdline(void **state)
{
    (void)state;
    const char *path = "lg-test-cmdline.yaml";
    FILE *f = s_new(path);
    fputs("name: file\nsecs: 5\n", f);
    fclose(f);
    char *argv[] = {"lg-test", "--early", "--name", "cli", "--config", (char *)path, NULL};
    ctx_t c;
    memset(&c, 0, sizeof c);
    lg_cmdline_t line;
    char err[256];
    assert_int_equal(lg_cmdline_load(&line, &s_set, 6, argv, &c, &c.config, err, sizeof err), 0);
    assert_int_equal(c.early_flag, 1);
    const char *want[] = {"lg-test", "--name", "file", "--secs", "5", "--name", "cli"};
    assert_int_equal(line.argc, 7);
    for (int i = 0; i < line.argc; i++)
        assert_string_equal(line.argv[i], want[i]);
    assert_null(line.argv[line.argc]);
    assert_int_equal(lg_opt_parse(&s_set, line.argc, line.argv, &c, err, sizeof err), 0);
    assert_string_equal(c.name, "cli"); /* the command line's wins */
    lg_cmdline_clear(&line);
    assert_null(line.argv);
    /* no --config: the command line less its early options */
    memset(&c, 0, sizeof c);
    assert_int_equal(lg_cmdline_load(&line, &s_set, 4, argv, &c, &c.config, err, sizeof err), 0);
    assert_int_equal(line.argc, 3);
    lg_cmdline_clear(&line);
    f = s_new(path);
    fputs("name: a\nbogus: 1\n", f);
    fclose(f);
    memset(&c, 0, sizeof c);
    assert_int_not_equal(lg_cmdline_load(&line, &s_set, 6, argv, &c, &c.config, err, sizeof err),
                         0);
    assert_non_null(strstr(err, "lg-test-cmdline.yaml:2: unknown option \"bogus\""));
    lg_cmdline_clear(&line);
    unlink(path);
}

/* ---- the command level: a program of commands ---- */

typedef struct {
    const char *name, *args[8];
    int flag, nargs;
    uint32_t n;
} cctx_t;

static int s_cmd_run(void *ctx)
{
    (void)ctx;
    return 0;
}

#define CO(f) offsetof(cctx_t, f)
static const lg_opt_t s_copts[] = {
    {"name", 0, "NAME", LG_OPT_STR, 0, CO(name), 0, 0, NULL, "a name", NULL},
    {"flag", 0, NULL, LG_OPT_FLAG, 0, CO(flag), 0, 0, NULL, "a flag", NULL},
    {"n", 0, "N", LG_OPT_UINT, 0, CO(n), 1, 9, NULL, "a number", NULL},
    {"help", 'h', NULL, LG_OPT_HELP, 0, 0, 0, 0, NULL, "this help", NULL},
    {"version", 0, NULL, LG_OPT_VERSION, 0, 0, 0, 0, NULL, "the version", NULL},
    {"man-options", 0, NULL, LG_OPT_MAN, LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    {NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL},
};
static const lg_optuse_t s_u_show[] = {
    {"name", "what to show it as"}, {"flag", NULL}, {NULL, NULL}};
static const lg_optuse_t s_u_db[] = {{"n", NULL}, {"name", "the database's\nname"}, {NULL, NULL}};
static const lg_optcmd_t s_ccmds[] = {
    {"show", "THING", 1, 1, "show a thing", "show a thing,\nwhole", NULL, s_u_show, s_cmd_run},
    {"db", "[X]", 0, 1, "the database", "the database", NULL, NULL, s_cmd_run},
    {"db up", "", 0, 0, "start it", "start the database", "*More* to say.", s_u_db, s_cmd_run},
    {NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL},
};
static const lg_optset_t s_cset = {
    "lg-test", "usage: lg-test COMMAND [options]\n", "the end\n", 12, s_copts, NULL, s_ccmds};

/* lg_opt_parse_cmd over the words given (NULL-ended) into c; *k the command. */
static int s_cparse(cctx_t *c, const lg_optcmd_t **k, ...)
{
    char *argv[32] = {"lg-test"};
    int argc = 1;
    va_list ap;
    va_start(ap, k);
    for (char *a; argc < 31 && (a = va_arg(ap, char *));)
        argv[argc++] = a;
    va_end(ap);
    memset(c, 0, sizeof *c);
    return lg_opt_parse_cmd(&s_cset, argc, argv, c, k, c->args, 8, &c->nargs);
}

static void test_cmd_parse(void **state)
{
    (void)state;
    cctx_t c;
    const lg_optcmd_t *k;
    /* options before and after the command, --name=VALUE, the words after -- as they are */
    assert_int_equal(s_cparse(&c, &k, "--flag", "show", "--name=a=b", "x", NULL), 0);
    assert_ptr_equal(k, &s_ccmds[0]);
    assert_string_equal(c.name, "a=b");
    assert_int_equal(c.flag, 1);
    assert_int_equal(c.nargs, 1);
    assert_string_equal(c.args[0], "x");
    assert_int_equal(s_cparse(&c, &k, "show", "--", "--flag", NULL), 0);
    assert_int_equal(c.flag, 0);
    assert_string_equal(c.args[0], "--flag");
    /* the longest match: two words, else one; the words after it its arguments */
    assert_int_equal(s_cparse(&c, &k, "db", "up", "--n", "3", NULL), 0);
    assert_ptr_equal(k, &s_ccmds[2]);
    assert_int_equal(c.n, 3);
    assert_int_equal(c.nargs, 0);
    assert_int_equal(s_cparse(&c, &k, "db", "down", NULL), 0);
    assert_ptr_equal(k, &s_ccmds[1]);
    assert_string_equal(c.args[0], "down");
    /* refused, nothing handled: an option of another command (before its value is read), too
     * few or many arguments, no command, an unknown one, an unknown option, a missing value, a
     * flag's value */
    const char *bad[][5] = {
        {"show", "x", "--n", "0", NULL},
        {"show", NULL},
        {"show", "a", "b", NULL},
        {NULL},
        {"frob", NULL},
        {"show", "x", "--bogus", NULL},
        {"show", "x", "--name", NULL},
        {"show", "x", "--flag=1", NULL},
        {"db", "up", "--n", "0", NULL},
        {"-x", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[8] = {"lg-test"};
        int argc = 1;
        for (int j = 0; bad[i][j]; j++)
            argv[argc++] = (char *)bad[i][j];
        memset(&c, 0, sizeof c);
        k = &s_ccmds[0];
        assert_int_equal(lg_opt_parse_cmd(&s_cset, argc, argv, &c, &k, c.args, 8, &c.nargs),
                         LG_EPARSE);
        assert_null(k);
        assert_null(c.name);
        assert_int_equal(c.flag, 0);
    }
    /* no room for the arguments */
    char *many[] = {"lg-test", "db", "a", "b", "c"};
    assert_int_equal(lg_opt_parse_cmd(&s_cset, 5, many, &c, &k, c.args, 3, &c.nargs), LG_EPARSE);
    /* --version, alone or with a command */
    assert_int_equal(s_cparse(&c, &k, "db", "--version", NULL), LG_OPT_DONE);
    assert_null(k);
}

static void test_cmd_help_and_man(void **state)
{
    (void)state;
    const char *path = "lg-test-optcmd.txt";
    FILE *f = s_new(path);
    lg_opt_help(&s_cset, f);
    lg_opt_cmd_help(&s_cset, &s_ccmds[0], f);
    lg_opt_cmd_help(&s_cset, &s_ccmds[2], f);
    char *help = s_slurp(f, path);
    assert_string_equal(help, "usage: lg-test COMMAND [options]\n"
                              "commands:\n"
                              "  show THING   show a thing\n"
                              "  db [X]       the database\n"
                              "  db up        start it\n"
                              "the end\n"
                              "usage: lg-test show THING [options]\n"
                              "  show a thing,\n"
                              "  whole\n"
                              "options:\n"
                              "  --name NAME  what to show it as\n"
                              "  --flag       a flag\n"
                              "  --help       this help\n"
                              "usage: lg-test db up [options]\n"
                              "  start the database\n"
                              "options:\n"
                              "  --n N        a number\n"
                              "  --name NAME  the database's\n"
                              "               name\n"
                              "  --help       this help\n");
    free(help);
    f = s_new(path);
    lg_opt_man(&s_cset, f);
    char *man = s_slurp(f, path);
    assert_string_equal(man, "# COMMANDS\n\n"
                             "*show* _THING_\n\tshow a thing, whole\n\n"
                             "\tOptions: *--name* _NAME_, *--flag*.\n\n"
                             "*db* _[X]_\n\tthe database\n\n"
                             "*db up*\n\tstart the database\n\n\t*More* to say.\n\n"
                             "\tOptions: *--n* _N_, *--name* _NAME_.\n\n"
                             "# OPTIONS\n\n"
                             "*--flag*\n\ta flag\n\n"
                             "*--help*\n\tthis help\n\n"
                             "*--n* _N_\n\ta number\n\n"
                             "*--name* _NAME_\n\ta name\n"
                             "\n\tshow: what to show it as\n"
                             "\n\tdb up: the database's name\n\n"
                             "*--version*\n\tthe version\n\n");
    free(man);
    unlink(path);
    /* help COMMAND: a command's words whole, else refused */
    const char *w[] = {"db", "up"};
    assert_int_equal(lg_opt_help_cmd(&s_cset, w, 1), 0);
    const char *nope[] = {"db", "down"};
    assert_int_equal(lg_opt_help_cmd(&s_cset, nope, 2), LG_ENOTFOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_early),
        cmocka_unit_test(test_help_and_man),
        cmocka_unit_test(test_config_keys),
        cmocka_unit_test(test_cmdline),
        cmocka_unit_test(test_cmd_parse),
        cmocka_unit_test(test_cmd_help_and_man),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

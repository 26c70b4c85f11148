/* lg_opt.h: a program's options, each written once in one table (as fio's options and curl's
 * one source per option): its name, short letter, value's name, help and man text, and how it is
 * stored. From the table come the command line's parsing, --help, the man page's OPTIONS section
 * (PROGRAM --man-options, which the build puts into the page), the bash completion (which reads
 * --help) and the keys its --config file may set (lg_config.h). lg-agent, lg-controller and
 * lg-export use it; so does lgctl, a program of commands (lg_optcmd_t below), whose table of
 * commands names the options each takes.
 *
 * The daemons' and lg-export's command line is what it always was: "--name VALUE" as two words
 * (no "--name=VALUE", no abbreviations: getopt_long would accept both), words parsed in order,
 * the last of a repeated option winning (a list option appends). lgctl's is lg_opt_parse_cmd's. */
#ifndef LG_OPT_H
#define LG_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct lg_opt lg_opt_t;

/* An option's own handling: v its value (NULL for a flag), ctx the program's struct. Returns 0,
 * or -1 with err saying what is wrong (without the program's name). */
typedef int (*lg_opt_fn_t)(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen);

typedef enum {
    LG_OPT_STR,     /* const char * at off: the value (it points into argv) */
    LG_OPT_FLAG,    /* int at off: set to 1 */
    LG_OPT_UINT,    /* uint32_t at off: an integer from min to max */
    LG_OPT_SECONDS, /* uint32_t at off: a number of seconds from min to max */
    LG_OPT_FN,      /* fn(ctx, o, value) */
    LG_OPT_HELP,    /* --help's text to stdout; parsing ends */
    LG_OPT_VERSION, /* "PROGRAM VERSION" to stdout; parsing ends */
    LG_OPT_MAN      /* the man page's OPTIONS entries (scdoc) to stdout; parsing ends */
} lg_opt_kind_t;

enum {
    LG_OPT_HIDDEN = 1, /* in neither --help nor the man page */
    LG_OPT_CLI = 2,    /* the command line's only: no key of the --config file */
    LG_OPT_LIST = 4,   /* repeatable (fn appends); in the --config file a list */
    LG_OPT_EARLY = 8   /* taken out of the command line first, by lg_opt_early */
};

struct lg_opt {
    const char *name; /* without its "--"; NULL ends a table */
    char letter;      /* also -LETTER, or 0 */
    const char *arg;  /* its value's name ("FILE"); NULL: a flag */
    lg_opt_kind_t kind;
    unsigned flags;    /* LG_OPT_HIDDEN ... */
    size_t off;        /* STR, FLAG, UINT, SECONDS: where in ctx (offsetof) */
    uint32_t min, max; /* UINT, SECONDS */
    lg_opt_fn_t fn;    /* FN */
    const char *help;  /* --help's text, its lines broken with '\n' */
    const char *man;   /* the man page's (scdoc markup); NULL: help's, its '\n' spaces */
};

/* A word that is not an option (lg-export's query files). Returns 0, or -1 with err. */
typedef int (*lg_opt_operand_fn_t)(void *ctx, const char *word, char *err, size_t errlen);

/* An option of the set's table as a command takes it. */
typedef struct {
    const char *name; /* the option's, without its "--"; NULL ends a command's list */
    const char *help; /* what it is to this command ('\n' breaks lines); NULL: the option's own */
} lg_optuse_t;

/* A command of a program of commands ("lgctl report"): what its help, the list of commands and
 * the man page's COMMANDS say of it, the options it takes and what runs it. */
typedef struct {
    const char *name;        /* one word or two ("report", "db url"); NULL ends the table */
    const char *args;        /* its arguments' synopsis ("SPEC.yaml", "FILE..."), "" for none */
    int min, max;            /* how many arguments it takes */
    const char *brief;       /* its line in the list of commands */
    const char *summary;     /* what it does ('\n' breaks lines for its help) */
    const char *more;        /* what the man page says further (scdoc markup), or NULL */
    const lg_optuse_t *opts; /* the options it takes besides --help and --version */
    int (*run)(void *ctx);   /* the command, on the options parsed into ctx: an exit code */
} lg_optcmd_t;

typedef struct {
    const char *prog;   /* "lg-agent": --version, the --config file's messages */
    const char *usage;  /* --help's first lines, each ending in '\n' */
    const char *epilog; /* --help's last lines, or NULL */
    int width;          /* of "--name ARG" in --help's column; the text starts 3 further */
    const lg_opt_t *opts;
    lg_opt_operand_fn_t operand; /* NULL: every word must be an option */
    const lg_optcmd_t *cmds;     /* a program of commands: its commands (lg_opt_parse_cmd) */
} lg_optset_t;

#define LG_OPT_DONE 1 /* lg_opt_parse: --help, --version or --man-options printed; exit 0 */

/* Parses argv[1..argc) into ctx by s's table, in order. Returns 0; LG_OPT_DONE; LG_ENOTFOUND
 * for a word that is no option (err names it: the caller prints --help's text after it); or
 * LG_EPARSE with err saying what is wrong (a missing or bad value). */
int lg_opt_parse(const lg_optset_t *s, int argc, char **argv, void *ctx, char *err, size_t errlen);

/* Takes the LG_OPT_EARLY options (--config FILE, Windows' service verbs) out of argv[0..argc),
 * handling each into ctx: a flag wherever it is, a valued one when a value follows it (else it is
 * left for lg_opt_parse to refuse). The other words go to rest[0..*nrest) (rest has room for
 * argc + 1; argv[0] first). Returns 0, or LG_EPARSE with err from a handler. */
int lg_opt_early(const lg_optset_t *s, int argc, char **argv, void *ctx, char **rest, int *nrest,
                 char *err, size_t errlen);

/* --help's text: usage, then an entry per option that is not hidden (of a program of commands:
 * a line per command, "commands:" first), then the epilog. */
void lg_opt_help(const lg_optset_t *s, FILE *f);
/* The man page's OPTIONS entries, in scdoc: "*--name* _ARG_" and its text on a tab. A program of
 * commands': its sections "# COMMANDS" (each command, its text and its options) and "# OPTIONS"
 * (every option by name, with what a command says of it its own way). */
void lg_opt_man(const lg_optset_t *s, FILE *f);

/* Option o's handling of value v as if given on the command line, naming it `as` in err (an
 * environment variable that gives its default, say). Returns 0, or LG_EPARSE with err. */
int lg_opt_apply(const lg_opt_t *o, const char *as, const char *v, void *ctx, char *err,
                 size_t errlen);
/* The option of s named name (without "--"), or NULL. */
const lg_opt_t *lg_opt_find(const lg_optset_t *s, const char *name);
/* The option named key that the --config file may set (not LG_OPT_CLI), or NULL. */
const lg_opt_t *lg_opt_config_key(const lg_optset_t *s, const char *key);

/* ---- a program of commands (lg_optcmd.c): PROGRAM COMMAND [ARGS] [options] ---- */

/* Parses the command line of a program of commands (s->cmds), as lgctl's always was: options
 * before or after the command's words, "--name VALUE" or "--name=VALUE", a letter of the table's
 * ("-h") for its option, every word after "--" an argument as it is. The command is the longest
 * match of the first words (two, else one); the words after it are its arguments, into
 * args[0..*nargs) (room for max). Every option given must be one the command takes (or --help,
 * --version), the arguments as many as it takes; only then are the options handled into ctx, in
 * order (lg_opt_apply). Returns 0 with *cmd the command; LG_OPT_DONE after printing what --help,
 * a command's --help, --version or --man-options ask (exit 0); or LG_EPARSE after saying what is
 * wrong (lg_error, then the usage it concerns on stderr; exit 2). */
int lg_opt_parse_cmd(const lg_optset_t *s, int argc, char **argv, void *ctx,
                     const lg_optcmd_t **cmd, const char **args, int max, int *nargs);
/* A command's help: its usage, its text and the options it takes (each in its words, --help
 * last). */
void lg_opt_cmd_help(const lg_optset_t *s, const lg_optcmd_t *k, FILE *f);
/* "PROGRAM help [COMMAND]": the list of commands (lg_opt_help) with no words, else the help of
 * the command words[0..n) name, to stdout. Returns 0, or LG_ENOTFOUND after saying there is no
 * such command (and the list on stderr). */
int lg_opt_help_cmd(const lg_optset_t *s, const char *const *words, int n);

/* A ready handler for --verbose: debug logging. */
int lg_opt_verbose(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen);

#endif

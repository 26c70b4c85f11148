/* lg_config.h: a daemon's configuration file (lg-agent, lg-controller). One "option: value" per
 * line, the options of the command line without their "--"; repeatable ones (allow, label) as
 * "allow: [a, b]" or as
 * "- item" lines under "allow:"; flags (allow-destructive, plaintext, verbose) as true/false;
 * '#' starts a comment line; values may be quoted '...' or "..." and are taken literally (a
 * Windows path keeps its backslashes). For example (C:\ProgramData\lg\agent.yaml):
 *
 *   controller: tcp://10.0.0.5:5601
 *   name: win-host-1
 *   key: C:\ProgramData\lg\win-host-1.key
 *   controller-key: C:\ProgramData\lg\controller.pub
 *   fio: C:\Program Files\fio\fio.exe
 *   allow:
 *     - D:\lg
 *     - \\nas\bench
 *   log-file: C:\ProgramData\lg\agent.log
 */
#ifndef LG_CONFIG_H
#define LG_CONFIG_H

#include <stddef.h>

#include "lg_opt.h"

/* Read path into arguments ("--controller", "tcp://...", ...). Its keys are the options of the
 * program's table s (lg_opt.h) that are not LG_OPT_CLI: those with a value, flags (true/false),
 * and the LG_OPT_LIST ones as lists. Caller frees them with lg_config_free. Returns 0, or an
 * error with err naming the file and line. */
int lg_config_args(const char *path, const lg_optset_t *s, char ***argv, int *argc, char *err,
                   size_t errlen);
void lg_config_free(char **argv, int argc);
/* The arguments a daemon parses: argv0, then the file's (cargs), then the command line's others
 * (rest[1..nrest)), so the command line wins. Only the array is new (free() it); *n its length.
 * NULL on ENOMEM. */
char **lg_config_merge(char *argv0, char **cargs, int ncargs, char **rest, int nrest, int *n);

/* A daemon's command line, the start-up lg-agent and lg-controller share: its early options
 * (LG_OPT_EARLY: --config, the service verbs) taken out first, then the file --config names read,
 * its options put in front of the command line's others (which win). */
typedef struct {
    char **argv; /* what the daemon parses (argv[argc] NULL) */
    int argc;
    char **rest;  /* the command line less its early options */
    char **cargs; /* the file's arguments */
    int ncargs;
} lg_cmdline_t;

/* The early options of s parsed into ctx, then the file *config names (a member of ctx, read after
 * them; NULL or unset: none) read. Returns 0, or an error (-ENOMEM, or err naming the option or
 * the file and line); lg_cmdline_clear frees self either way. */
int lg_cmdline_load(lg_cmdline_t *self, const lg_optset_t *s, int argc, char **argv, void *ctx,
                    const char *const *config, char *err, size_t errlen);
void lg_cmdline_clear(lg_cmdline_t *self);

#endif

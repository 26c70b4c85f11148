/* lg_opt_int.h: what lg_opt.c and lg_optcmd.c (the command level) share, inside core/. */
#ifndef LG_OPT_INT_H
#define LG_OPT_INT_H

#include <stdio.h>

#include "lg_opt.h"

/* help's text for scdoc: its line breaks spaces, and what scdoc would take for markup escaped
 * ('*' always, '_' where it would start an underline, '\'). */
void lg__opt_man_text(FILE *f, const char *text);
/* A line of --help: lhs ("--name ARG", a command and its arguments) in the set's column, then
 * text, its lines after the first indented under it. lg__opt_help_entry: option o's, "--name ARG"
 * and text. */
void lg__opt_entry(FILE *f, const lg_optset_t *s, const char *lhs, const char *text);
void lg__opt_help_entry(FILE *f, const lg_optset_t *s, const lg_opt_t *o, const char *text);
/* A program of commands' --help: its usage, "commands:" and a line per command, its epilog. */
void lg__opt_cmd_list(const lg_optset_t *s, FILE *f);
/* A program of commands' man page sections: # COMMANDS and # OPTIONS. */
void lg__opt_cmd_man(const lg_optset_t *s, FILE *f);

#endif

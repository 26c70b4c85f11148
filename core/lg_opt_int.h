/* lg_opt_int.h: what lg_opt.c and lg_optcmd.c (the command level) share, inside core/. */
#ifndef LG_OPT_INT_H
#define LG_OPT_INT_H

#include <stdio.h>

#include "lg_opt.h"

/* help's text for scdoc: its line breaks spaces, and what scdoc would take for markup escaped
 * ('*' always, '_' where it would start an underline, '\'). */
void lg__opt_man_text(FILE *f, const char *text);
/* A program of commands' --help: its usage, "commands:" and a line per command, its epilog. */
void lg__opt_cmd_list(const lg_optset_t *s, FILE *f);
/* A program of commands' man page sections: # COMMANDS and # OPTIONS. */
void lg__opt_cmd_man(const lg_optset_t *s, FILE *f);

#endif

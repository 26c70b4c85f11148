/* lg_log.c: the stderr logger. One fprintf per line so lines of concurrent processes
 * sharing a terminal do not interleave mid-line. */
#include "lg_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *s_prog = "lg";
static lg_log_level_t s_level = LG_LOG_INFO;
static lg_log_level_t s_last = LG_LOG_INFO;
static FILE *s_out; /* NULL: stderr */

void lg_log_set_file(FILE *f) { s_out = f; }

static const char *const s_names[] = {"debug", "info", "warning", "error"};

void lg_log_init(const char *progname)
{
    s_prog = progname;
    const char *env = getenv("LG_LOG_LEVEL");
    if (env) {
        for (int i = 0; i <= LG_LOG_ERROR; i++)
            if (strcmp(env, s_names[i]) == 0)
                s_level = (lg_log_level_t)i;
    }
}

void lg_log_set_level(lg_log_level_t level) { s_level = level; }
lg_log_level_t lg_log_get_level(void) { return s_level; }

static void s_emit(const char *tag, const char *fmt, va_list ap)
{
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(s_out ? s_out : stderr, "%s: %s: %s\n", s_prog, tag, line);
}

void lg_log(lg_log_level_t level, const char *fmt, ...)
{
    s_last = level;
    if (level < s_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    s_emit(s_names[level], fmt, ap);
    va_end(ap);
}

void lg_log_detail(const char *fmt, ...)
{
    if (s_last < s_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    s_emit("detail", fmt, ap);
    va_end(ap);
}

void lg_log_hint(const char *fmt, ...)
{
    if (s_last < s_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    s_emit("hint", fmt, ap);
    va_end(ap);
}

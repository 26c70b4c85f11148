/* lg_log.c: the stderr logger. One fprintf per line so lines of concurrent processes
 * sharing a terminal do not interleave mid-line; one line per message, its control characters
 * escaped, so a label or an agent's name cannot forge a log line or drive the terminal. */
#include "lg_log.h"

#include "lg_esc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *s_prog = "lg";
static lg_log_level_t s_level = LG_LOG_INFO;
static lg_log_level_t s_last = LG_LOG_INFO;
static FILE *s_out; /* NULL: stderr */
static int s_stamp; /* daemons: each line starts with its UTC time */

void lg_log_set_timestamps(int on)
{
    s_stamp = on;
}

void lg_log_set_file(FILE *f)
{
    s_out = f;
}

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

void lg_log_set_level(lg_log_level_t level)
{
    s_level = level;
}
lg_log_level_t lg_log_get_level(void)
{
    return s_level;
}

static void s_emit(const char *tag, const char *fmt, va_list ap)
{
    char raw[2048], line[4 * 2048], stamp[40] = "";
    vsnprintf(raw, sizeof raw, fmt, ap);
    lg_esc_ctrl(raw, line, sizeof line);
    if (s_stamp) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        time_t t = ts.tv_sec;
#ifdef _WIN32
        gmtime_s(&tm, &t);
#else
        gmtime_r(&t, &tm);
#endif
        size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(stamp + n, sizeof stamp - n, ".%03ldZ ", ts.tv_nsec / 1000000);
    }
    fprintf(s_out ? s_out : stderr, "%s%s: %s: %s\n", stamp, s_prog, tag, line);
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

void lg_log_detail_text(const char *text)
{
    if (s_last < s_level || !text)
        return;
    while (*text) {
        size_t n = strcspn(text, "\n");
        char part[2048];
        snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), text);
        size_t k = strlen(part);
        if (k && part[k - 1] == '\r')
            part[k - 1] = '\0';
        lg_log_detail("%s", part);
        text += n + (text[n] == '\n');
    }
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

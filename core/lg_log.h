/* lg_log.h: log messages to stderr: a short primary line, then optional detail and hint lines
 * (the PostgreSQL frontend style). Results never go through here: they go to stdout. Each
 * message is one line with its control characters escaped (lg_esc.h): names and labels in it
 * cannot forge log lines or drive the terminal. */
#ifndef LG_LOG_H
#define LG_LOG_H

#include <stdio.h>

typedef enum { LG_LOG_DEBUG = 0, LG_LOG_INFO, LG_LOG_WARN, LG_LOG_ERROR } lg_log_level_t;

/* Program name shown in front of each line ("lg-agent"); the string must outlive the logger. */
void lg_log_init(const char *progname);
/* Daemons (lg-agent, lg-controller): start each line with its UTC time, milliseconds. */
void lg_log_set_timestamps(int on);
void lg_log_set_level(lg_log_level_t level);
/* Log to f (unbuffered, appended; a service has no stderr) instead of stderr; NULL: stderr. */
void lg_log_set_file(FILE *f);
lg_log_level_t lg_log_get_level(void);

#if defined(__MINGW32__)
/* lg_log formats with vsnprintf, which __USE_MINGW_ANSI_STDIO makes C99 (gnu_printf) there. */
#define LG_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define LG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define LG_PRINTF(a, b)
#endif

void lg_log(lg_log_level_t level, const char *fmt, ...) LG_PRINTF(2, 3);
/* Detail and hint lines belong to the message logged just before, at the same level. */
void lg_log_detail(const char *fmt, ...) LG_PRINTF(1, 2);
void lg_log_hint(const char *fmt, ...) LG_PRINTF(1, 2);
/* Text of several lines (another program's output, a log's tail) as one detail line each: a
 * message is always one line, its control characters escaped (a newline as \x0a), so text that
 * is meant to span lines goes through here. */
void lg_log_detail_text(const char *text);

#define lg_debug(...) lg_log(LG_LOG_DEBUG, __VA_ARGS__)
#define lg_info(...) lg_log(LG_LOG_INFO, __VA_ARGS__)
#define lg_warn(...) lg_log(LG_LOG_WARN, __VA_ARGS__)
#define lg_error(...) lg_log(LG_LOG_ERROR, __VA_ARGS__)

#endif

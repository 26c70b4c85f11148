/* text.h: text from outside the controller (an exporter's, fio's and an agent's, a hook's, a
 * probe's) on its way into the database, made valid UTF-8 as PostgreSQL's text takes it
 * (lg_utf8_clean, lg_esc.h): a text column refuses anything else, and with it the whole row. What
 * that changed is said in a warning that names where the text came from. */
#ifndef LG_TEXT_H
#define LG_TEXT_H

#include <stddef.h>

#include "lg_log.h"

/* in (len bytes, may hold NULs; NULL: empty) as valid UTF-8 of at most max bytes (0: no limit).
 * tail: in is the end of a longer text, so the continuation bytes of a character cut off its
 * start are left out rather than replaced. When anything was replaced or cut, a warning "WHAT:
 * 2 invalid bytes replaced by U+FFFD" (WHAT from fmt, printf-style) and, when note is not NULL,
 * that phrase into note (else note is ""). Caller owns the result; NULL when out of memory. */
char *lg_text_in(const char *in, size_t len, int tail, size_t max, char *note, size_t notelen,
                 const char *fmt, ...) LG_PRINTF(7, 8);

/* text (heap, lg_text_in's) with " (as stored: NOTE)" after it when note is not empty, so that
 * the row says what lg changed. Takes ownership of text; returns the result (text itself when
 * note is empty or memory is short). */
char *lg_text_noted(char *text, const char *note);

#endif

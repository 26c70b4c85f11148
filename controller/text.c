/* text.c: text from outside made valid UTF-8 before the controller stores it, and what that
 * changed said (text.h). */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_esc.h"
#include "lg_util.h"

char *lg_text_in(const char *in, size_t len, int tail, size_t max, char *note, size_t notelen,
                 const char *fmt, ...)
{
    if (!in)
        in = "", len = 0;
    size_t skip = tail ? lg_utf8_tail_skip(in, len) : 0, replaced = 0;
    int cut = 0;
    char *out = lg_utf8_clean_dup(in + skip, len - skip, max, &replaced, &cut);
    char phrase[160];
    lg_utf8_note(phrase, sizeof phrase, replaced, cut, max);
    if (note && notelen)
        lg_strlcpy(note, phrase, notelen);
    if (phrase[0]) {
        char what[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        lg_utf8_cut(what, sizeof what);
        lg_warn("%s: %s (stored so)", what, phrase);
    }
    return out;
}

char *lg_text_noted(char *text, const char *note)
{
    if (!text || !note || !note[0])
        return text;
    size_t n = strlen(text) + strlen(note) + 32;
    char *t = malloc(n);
    if (!t)
        return text;
    snprintf(t, n, "%s (as stored: %s)", text, note);
    free(text);
    return t;
}

/* lg_esc.c: control characters escaped for terminals and logs, the CSV formula guard, the
 * Markdown and the XML escapers (lg_esc.h). A label that reaches a terminal must not clear it,
 * one that reaches a log must not start a line of its own, one that reaches a spreadsheet must
 * not run there, one that reaches a rendered page must not be HTML there. */
#include "lg_esc.h"

#include <stdlib.h>
#include <string.h>

size_t lg_ctrl_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (!u[0])
        return 0;
    if (u[0] < 0x20 || u[0] == 0x7f)
        return 1;
    return u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f ? 2 : 0;
}

int lg_has_ctrl(const char *s)
{
    for (; s && *s; s++)
        if (lg_ctrl_len(s))
            return 1;
    return 0;
}

/* Bytes of the character s starts with that are there: a lead byte and its continuations. */
static size_t s_char_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t want = u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc0 ? 2 : 1, n = 1;
    while (n < want && (u[n] & 0xc0) == 0x80)
        n++;
    return n;
}

const char *lg_esc_ctrl(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    if (!buf || !len)
        return buf;
    for (; s && *s;) {
        size_t c = lg_ctrl_len(s), n = c ? c : s_char_len(s);
        char e[8];
        if (c == 1)
            snprintf(e, sizeof e, "\\x%02x", (unsigned char)s[0]);
        else if (c == 2)
            snprintf(e, sizeof e, "\\u00%02x", (unsigned char)s[1]);
        size_t w = c ? strlen(e) : n;
        if (o + w >= len)
            break;
        memcpy(buf + o, c ? e : s, w);
        o += w;
        s += n;
    }
    buf[o] = '\0';
    return buf;
}

char *lg_esc_ctrl_dup(const char *s)
{
    size_t len = 6 * strlen(s ? s : "") + 1; /* "\u009b" for two bytes, "\x1b" for one */
    char *buf = malloc(len);
    return buf ? (char *)lg_esc_ctrl(s, buf, len) : NULL;
}

/* ---- CSV ---- */

int lg_csv_formula(const char *s)
{
    return s && s[0] && s[1] && strchr("=+-@\t\r", s[0]);
}

int lg_csv_numeric(const char *s)
{
    size_t i = s && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (!s ||
        !((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9')))
        return 0;
    for (; s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || strchr(".,eE%+- ", s[i])))
            return 0;
    return 1;
}

void lg_csv_write(FILE *out, const char *s, lg_csv_kind_t kind)
{
    if (!s)
        return;
    char small[1024], *big = NULL;
    const char *v = s;
    if (lg_has_ctrl(s)) {
        big = lg_esc_ctrl_dup(s);
        v = big ? big : lg_esc_ctrl(s, small, sizeof small);
    }
    /* A number type's value is a number whatever its sign; a figure lg wrote is one while it
     * looks like one; text is guarded (OWASP: a leading ' and the cell quoted). */
    int guard =
        kind != LG_CSV_NUMBER && lg_csv_formula(v) && (kind == LG_CSV_TEXT || !lg_csv_numeric(v));
    if (!guard && !strpbrk(v, ",\"\n\r")) {
        fputs(v, out);
    } else {
        fputs(guard ? "\"'" : "\"", out);
        for (const char *c = v; *c; c++) {
            if (*c == '"')
                fputc('"', out);
            fputc(*c, out);
        }
        fputc('"', out);
    }
    free(big);
}

/* ---- Markdown ---- */

/* The escape of the character s starts with (*n its bytes) when Markdown needs one, into e or a
 * constant; NULL when the character stands for itself. */
static const char *s_md_piece(const char *s, char e[8], size_t *n)
{
    size_t c = lg_ctrl_len(s);
    *n = c ? c : s_char_len(s);
    if (c == 1)
        snprintf(e, 8, "\\x%02x", (unsigned char)s[0]);
    else if (c == 2)
        snprintf(e, 8, "\\u00%02x", (unsigned char)s[1]);
    if (c)
        return e;
    switch (s[0]) {
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '&':
        return "&amp;";
    case '`':
        return "&#96;";
    case '|':
        return "\\|";
    case '\\':
        /* before punctuation (what follows may be an escape of ours, or a quote lg prints) or
         * a control character, a backslash would escape it: doubled, it is one backslash */
        return !s[1] || lg_ctrl_len(s + 1) || strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[1])
                   ? "\\\\"
                   : NULL;
    default:
        return NULL;
    }
}

const char *lg_md_esc(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    if (!buf || !len)
        return buf;
    for (; s && *s;) {
        char e[8];
        size_t n;
        const char *p = s_md_piece(s, e, &n);
        size_t w = p ? strlen(p) : n;
        if (o + w >= len)
            break;
        memcpy(buf + o, p ? p : s, w);
        o += w;
        s += n;
    }
    buf[o] = '\0';
    return buf;
}

void lg_md_write(FILE *out, const char *s)
{
    for (; s && *s;) {
        char e[8];
        size_t n;
        const char *p = s_md_piece(s, e, &n);
        if (p)
            fputs(p, out);
        else
            fwrite(s, 1, n, out);
        s += n;
    }
}

const char *lg_esc_text(const char *s, int md, char *buf, size_t len)
{
    return md ? lg_md_esc(s, buf, len) : lg_esc_ctrl(s, buf, len);
}

/* ---- XML ---- */

/* The code point of the well-formed UTF-8 sequence at u (*n its length), or -1 (*n = 1) for a
 * malformed one: a stray continuation, a short or overlong sequence, a surrogate, beyond
 * U+10FFFF. */
static long s_utf8(const unsigned char *u, size_t *n)
{
    *n = 1;
    if (u[0] < 0x80)
        return u[0];
    size_t len = u[0] >= 0xc2 && u[0] <= 0xdf   ? 2
                 : u[0] >= 0xe0 && u[0] <= 0xef ? 3
                 : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4
                                                : 0;
    if (!len)
        return -1;
    long cp = u[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (u[i] & 0x3f);
    }
    static const long min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *n = len;
    return cp;
}

void lg_xml_write(FILE *out, const char *s)
{
    for (const unsigned char *u = (const unsigned char *)s; u && *u;) {
        size_t n;
        long cp = s_utf8(u, &n);
        if (cp < 0 || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') ||
            (cp >= 0x7f && cp <= 0x9f) || cp == 0xfffe || cp == 0xffff)
            fputs("\xef\xbf\xbd", out); /* U+FFFD */
        else if (cp == '<')
            fputs("&lt;", out);
        else if (cp == '>')
            fputs("&gt;", out);
        else if (cp == '&')
            fputs("&amp;", out);
        else if (cp == '"')
            fputs("&quot;", out);
        else
            fwrite(u, 1, n, out);
        u += n;
    }
}

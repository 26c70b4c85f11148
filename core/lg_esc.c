/* lg_esc.c: control characters escaped for terminals and logs, the CSV formula guard, the
 * Markdown and the XML escapers (lg_esc.h). A label that reaches a terminal must not clear it,
 * one that reaches a log must not start a line of its own, one that reaches a spreadsheet must
 * not run there, one that reaches a rendered page must not be HTML there. */
#include "lg_esc.h"

#include <stdint.h>
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
    case '[': /* no link or image: "[text](javascript:...)" renders as a link on many sites */
        return "\\[";
    case ']':
        return "\\]";
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

/* ---- UTF-8 ---- */

/* The code point of the well-formed UTF-8 sequence at u (avail bytes there; a NUL ends a
 * NUL-terminated string early, being no continuation byte) with *n its length; or -1 with *n the
 * length of the maximal ill-formed part there (1 to 3 bytes: a stray continuation, a lead byte
 * that cannot start one, or a lead and those of its continuations that fit Unicode's table 3-7
 * before one did not or the text ended): an overlong form, a surrogate or beyond U+10FFFF fail
 * on their second byte. */
static long s_utf8_at(const unsigned char *u, size_t avail, size_t *n)
{
    *n = 1;
    if (u[0] < 0x80)
        return u[0];
    unsigned lo = 0x80, hi = 0xbf;
    size_t len = 0;
    if (u[0] >= 0xc2 && u[0] <= 0xdf)
        len = 2;
    else if (u[0] >= 0xe0 && u[0] <= 0xef)
        len = 3, lo = u[0] == 0xe0 ? 0xa0 : 0x80, hi = u[0] == 0xed ? 0x9f : 0xbf;
    else if (u[0] >= 0xf0 && u[0] <= 0xf4)
        len = 4, lo = u[0] == 0xf0 ? 0x90 : 0x80, hi = u[0] == 0xf4 ? 0x8f : 0xbf;
    if (!len)
        return -1;
    long cp = u[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if (i >= avail || u[i] < (i == 1 ? lo : 0x80) || u[i] > (i == 1 ? hi : 0xbf)) {
            *n = i;
            return -1;
        }
        cp = cp << 6 | (u[i] & 0x3f);
    }
    *n = len;
    return cp;
}

size_t lg_utf8_clean(const char *in, size_t inlen, char *out, size_t outmax, size_t *replaced,
                     int *cut)
{
    const unsigned char *u = (const unsigned char *)in;
    size_t i = 0, o = 0, bad = 0;
    while (in && i < inlen && outmax) {
        size_t n;
        long cp = s_utf8_at(u + i, inlen - i, &n);
        int ok = cp > 0; /* a NUL is replaced too */
        size_t w = ok ? n : 3;
        if (o + w >= outmax)
            break;
        memcpy(out + o, ok ? (const char *)u + i : "\xef\xbf\xbd", w);
        o += w;
        bad += ok ? 0 : n;
        i += n;
    }
    if (outmax)
        out[o] = 0;
    if (replaced)
        *replaced = bad;
    if (cut)
        *cut = in && i < inlen;
    return o;
}

char *lg_utf8_clean_dup(const char *in, size_t inlen, size_t max, size_t *replaced, int *cut)
{
    size_t need = inlen <= SIZE_MAX / 3 - 1 ? 3 * inlen : SIZE_MAX - 1;
    if (max && max < need)
        need = max;
    char *out = malloc(need + 1);
    if (out)
        lg_utf8_clean(in, inlen, out, need + 1, replaced, cut);
    return out;
}

int lg_utf8_valid(const char *in, size_t inlen)
{
    const unsigned char *u = (const unsigned char *)in;
    for (size_t i = 0, n; i < inlen; i += n)
        if (s_utf8_at(u + i, inlen - i, &n) <= 0)
            return 0;
    return 1;
}

size_t lg_utf8_cut(char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    /* the last lead byte, within a character's length of the end */
    size_t k = n;
    while (k > 0 && n - k < 4 && ((unsigned char)s[k - 1] & 0xc0) == 0x80)
        k--;
    if (k > 0 && n - k < 4) {
        unsigned char c = (unsigned char)s[k - 1];
        size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (c >= 0xc0 && n - (k - 1) < want)
            n = k - 1;
    }
    s[n] = 0;
    return n;
}

size_t lg_utf8_tail_skip(const char *s, size_t len)
{
    size_t k = 0;
    while (k < len && k < 3 && ((unsigned char)s[k] & 0xc0) == 0x80)
        k++;
    return k;
}

const char *lg_utf8_note(char *buf, size_t len, size_t replaced, int cut, size_t max)
{
    if (!buf || !len)
        return buf;
    int o = 0;
    buf[0] = 0;
    if (replaced)
        o = snprintf(buf, len, "%zu invalid byte%s replaced by U+FFFD", replaced,
                     replaced == 1 ? "" : "s");
    if (cut && o >= 0 && (size_t)o < len)
        snprintf(buf + o, len - (size_t)o, "%scut on a character boundary at %zu bytes",
                 replaced ? " and " : "", max);
    return buf;
}

/* ---- XML ---- */

void lg_xml_write(FILE *out, const char *s)
{
    for (const unsigned char *u = (const unsigned char *)s; u && *u;) {
        size_t n;
        long cp = s_utf8_at(u, SIZE_MAX, &n);
        if (cp < 0)
            n = 1; /* each byte of it replaced, as before */
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

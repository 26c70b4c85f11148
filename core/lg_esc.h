/* lg_esc.h: text from specs, agents and the database made safe where lg shows it: on a terminal
 * or in a log line (control characters escaped), in a spreadsheet (CSV cells a spreadsheet would
 * run as formulas guarded), in Markdown (no markup of its own) and in XML (characters XML 1.0
 * forbids replaced). Specs refuse such text (lg_spec.c); these functions guard what is stored
 * already (imports, older campaigns). And text from outside (exporters, fio, hooks, probes) made
 * what PostgreSQL's text takes: valid UTF-8 without NUL, cut on a character boundary. */
#ifndef LG_ESC_H
#define LG_ESC_H

#include <stddef.h>
#include <stdio.h>

/* The length in bytes of the control character s starts with: 1 for C0 (below 0x20) or DEL, 2
 * for C1 (U+0080..U+009F, UTF-8 C2 80..C2 9F: a terminal may take U+009B as CSI); 0 when s does
 * not start with one. */
size_t lg_ctrl_len(const char *s);
/* Does s hold a control character (as lg_ctrl_len)? */
int lg_has_ctrl(const char *s);
/* s with each control character written as \xHH (C1 as \u00HH), cut to fit len (never inside
 * a character or an escape) and NUL-terminated, into buf. Returns buf. */
const char *lg_esc_ctrl(const char *s, char *buf, size_t len);
/* The same, whole. Caller owns the result; NULL when out of memory. */
char *lg_esc_ctrl_dup(const char *s);

/* What a CSV cell holds: text (names, labels: guarded whatever follows the first character), a
 * figure lg formatted as text (left alone while it looks like a number: "-12.5", "+3.1%"), or a
 * value of a number type (never changed). */
typedef enum { LG_CSV_TEXT, LG_CSV_FIGURE, LG_CSV_NUMBER } lg_csv_kind_t;
/* Would a spreadsheet take s as a formula: two characters or more, the first = + - @, a tab or
 * a CR (OWASP's list)? */
int lg_csv_formula(const char *s);
/* Does s look like a number lg writes: a sign or digit, then only digits and . , e E % + - and
 * spaces (no letter a formula's function could be spelt with)? */
int lg_csv_numeric(const char *s);
/* Write s as one CSV field (no separator): control characters escaped (lg_esc_ctrl); a cell a
 * spreadsheet would run (lg_csv_formula; for a figure, one not lg_csv_numeric) prefixed with a
 * single quote and quoted; quoted when it holds , or ". NULL writes an empty field. */
void lg_csv_write(FILE *out, const char *s, lg_csv_kind_t kind);

/* s as Markdown text, a table cell or prose, for a page that renders it: control characters
 * escaped (lg_esc_ctrl); < > & and ` as the entities &lt; &gt; &amp; &#96; (no HTML tag, entity
 * or code span of its own); | as \| (no cell boundary); [ and ] as \[ \] (no link or image); a
 * backslash that would escape what follows it doubled. Cut to fit len (never inside a character or
 * an escape), NUL-terminated, into buf. Returns buf. */
const char *lg_md_esc(const char *s, char *buf, size_t len);
/* Write s to out as lg_md_esc does, whole. */
void lg_md_write(FILE *out, const char *s);
/* s escaped for where it is printed: Markdown when md (lg_md_esc), else a terminal or a log
 * (lg_esc_ctrl). Returns buf. */
const char *lg_esc_text(const char *s, int md, char *buf, size_t len);

/* Write s as XML 1.0 character data or attribute value (the same in HTML): < > & " as
 * entities; what XML 1.0 forbids (control characters but tab, LF and CR; U+FFFE, U+FFFF;
 * surrogates; malformed UTF-8) and C1 controls as U+FFFD, so the document stays well-formed. */
void lg_xml_write(FILE *out, const char *s);

/* ---- UTF-8 as PostgreSQL text takes it ---- */

/* in (inlen bytes, may hold NULs, need not be NUL-terminated) as valid UTF-8 into out (outmax
 * bytes, always NUL-terminated when outmax > 0). Well-formed characters are copied; what is not
 * one is replaced by U+FFFD ("\xef\xbf\xbd"), one for each maximal ill-formed part (Unicode's
 * "substitution of maximal subparts": a stray continuation byte, a lead byte without all its
 * continuations, an overlong form, a surrogate, beyond U+10FFFF), and so is each NUL byte (text
 * cannot hold one). When out is full it ends before the character (or U+FFFD) that would not
 * fit, never inside one. *replaced (may be NULL): how many input bytes were replaced; *cut (may
 * be NULL): 1 when input was left out for want of room, else 0. Returns strlen(out). */
size_t lg_utf8_clean(const char *in, size_t inlen, char *out, size_t outmax, size_t *replaced,
                     int *cut);
/* The same into a buffer of its own, of at most max bytes before its NUL (0: no limit). Caller
 * owns the result; NULL when out of memory. */
char *lg_utf8_clean_dup(const char *in, size_t inlen, size_t max, size_t *replaced, int *cut);
/* Is in (inlen bytes) valid UTF-8 without NUL, as lg_utf8_clean would leave it? */
int lg_utf8_valid(const char *in, size_t inlen);
/* Cut s (NUL-terminated, UTF-8) to at most max bytes, never inside a character: a character the
 * cut would split, or an incomplete one s ends with (what snprintf leaves when it cuts by bytes),
 * is left out whole. Returns the new strlen(s). */
size_t lg_utf8_cut(char *s, size_t max);
/* How many bytes the end of a longer text (s, len bytes: a tail kept of a program's output)
 * starts with that belong to a character cut off before it: its continuation bytes, at most 3.
 * Skip them rather than have them replaced as invalid. */
size_t lg_utf8_tail_skip(const char *s, size_t len);
/* What cleaning did, for a message: "3 invalid bytes replaced by U+FFFD", "cut on a character
 * boundary at N bytes", both joined by " and ", or "" when nothing; max is the limit cut to.
 * Into buf; returns buf. */
const char *lg_utf8_note(char *buf, size_t len, size_t replaced, int cut, size_t max);

#endif

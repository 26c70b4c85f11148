/* fuzz_chart.c: fuzz target for lg-export's query files: the directive header ("-- key: value"
 * lines) and the :campaign binder that rewrites the SQL under it, plus the timestamp reader of
 * time series. A query directory may be shared, so its files are input to check. Then what the
 * database hands the charts: every parsed chart is drawn over rows cut from the input (names of
 * any length and bytes, numbers of any size), and the input is wrapped as a name is, which must
 * keep every character. Built with libFuzzer, or with -DLG_FUZZ_STANDALONE and fuzz_driver.c for
 * a plain main(). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"
#include "svg_common.h"

#define LG_FUZZ_MAX_INPUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* lg_chart_parse reads a file: one temporary NAME.sql per process, rewritten for every input. */
static char s_path[64];

static void s_cleanup(void)
{
    if (s_path[0])
        unlink(s_path);
}

static int s_write(const uint8_t *data, size_t size)
{
    if (!s_path[0]) {
        snprintf(s_path, sizeof s_path, "/tmp/lg_fuzz_chart_%d.sql", (int)getpid());
        atexit(s_cleanup);
    }
    FILE *f = fopen(s_path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || w != size)
        return -1;
    return 0;
}

/* Wrapping text at some width keeps every byte but the spaces lines end at, in order. */
static void s_wrap(const char *text, size_t size)
{
    lg__svg_wrap_t w;
    double width = 8 + (size ? (unsigned char)text[0] : 0);
    if (lg__svg_wrap(&w, text, 11, width) != 0) {
        lg__svg_wrap_clear(&w);
        return;
    }
    const char *p = text;
    for (int i = 0; i < w.n; i++) {
        while (*p == ' ' && w.line[i][0] != ' ')
            p++;
        size_t n = strlen(w.line[i]);
        if (strncmp(p, w.line[i], n) != 0)
            abort(); /* a line that is not the next piece of the text */
        p += n;
    }
    while (*p == ' ')
        p++;
    if (*p)
        abort(); /* text left out */
    lg__svg_wrap_clear(&w);
}

/* A table for spec cut from the input: a column for each directive that names one, up to eight
 * rows, text cells slices of the input, number cells numbers made from its bytes (some NULL). */
#define S_COLS 12
static void s_draw(const lg_chart_spec_t *spec0, const char *text, size_t size)
{
    /* the caveat lines drawn under the chart: the input's first bytes, as lines */
    static lg_chart_spec_t copy;
    copy = *spec0;
    snprintf(copy.caveats, sizeof copy.caveats, "%.*s\n", (int)(size < 300 ? size : 300), text);
    const lg_chart_spec_t *spec = &copy;
    const char *names[S_COLS] = {spec->x,    spec->y,     spec->series, spec->limit,
                                 spec->mark, spec->ci_lo, spec->ci_hi,  spec->y2,
                                 spec->each, spec->label, spec->win_lo, spec->win_hi};
    const bool num[S_COLS] = {spec->kind >= LG_CHART_SCATTER,
                              true,
                              false,
                              true,
                              false,
                              true,
                              true,
                              true,
                              false,
                              false,
                              true,
                              true};
    char *cols[S_COLS], *cells[8 * S_COLS], nums[8 * S_COLS][32];
    lg_db_kind_t numeric[S_COLS];
    int nrows = (int)(size % 8) + 1;
    size_t piece = size / (size_t)nrows + 1;
    char *slices[8] = {0};
    for (int c = 0; c < S_COLS; c++) {
        cols[c] = names[c][0] ? (char *)names[c] : "-";
        numeric[c] = num[c] ? LG_DB_REAL : LG_DB_TEXT;
    }
    for (int r = 0; r < nrows; r++) {
        size_t at = (size_t)r * piece < size ? (size_t)r * piece : size;
        size_t n = at + piece <= size ? piece : size - at;
        slices[r] = strndup(text + at, n);
        unsigned char b = n ? (unsigned char)text[at] : 0;
        for (int c = 0; c < S_COLS; c++) {
            char *cell = nums[r * S_COLS + c];
            if (num[c]) /* a number from the bytes: signs, magnitudes, now and then NULL */
                snprintf(cell, 32, "%.17g", ((double)b - 64) * pow(10, (b + c) % 24 - 8));
            cells[r * S_COLS + c] = !num[c] ? slices[r] : (b + c) % 11 == 0 ? NULL : cell;
        }
    }
    lg_table_t t = {S_COLS, nrows, cols, cells, numeric};
    char err[512];
    if (lg_chart_check(spec, &t, err, sizeof err) == 0) {
        char *svg = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&svg, &len);
        lg_palette_t pal = {0};
        if (f) {
            lg_svg_write(f, spec, &t, &pal);
            fclose(f);
            if (len > 0 && !strstr(svg, "</svg>\n"))
                abort(); /* a document that does not end */
            free(svg);
        }
        lg_palette_clear(&pal);
    }
    for (int r = 0; r < nrows; r++)
        free(slices[r]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LG_FUZZ_MAX_INPUT)
        return 0;

    /* The binder on its own, over the whole input as a NUL-terminated string. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    bool used = false;
    char *sql = lg__bind_campaign(text, &used);
    if (sql && !used && strcmp(sql, text) != 0)
        abort(); /* without a :campaign the query must be unchanged */
    free(sql);

    /* A short input is a timestamp too. */
    if (size < 64) {
        double epoch;
        (void)lg_chart_parse_time(text, &epoch);
    }
    if (size < 4096) /* a name as long as a database would hand one */
        s_wrap(text, strlen(text));

    /* The whole parser, over the input as a file. */
    if (s_write(data, size) == 0) {
        lg_chart_spec_t spec;
        char err[512], sub[1200];
        if (lg_chart_parse(s_path, &spec, err, sizeof err) == 0) {
            if (!spec.sql || !spec.x[0])
                abort(); /* a parsed chart has SQL and x */
            lg_chart_subline(&spec, sub, sizeof sub);
            (void)lg_chart_kind_name(spec.kind);
            if (size < 65536)
                s_draw(&spec, text, size);
        }
        lg_chart_spec_clear(&spec);
    }
    free(text);
    return 0;
}

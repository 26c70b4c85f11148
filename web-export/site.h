/* site.h: what lg-export writes for the charts of its queries: a chart's drawn copy (subtitle
 * filled, latency in the unit drawn), the charts of an "each" query (one per value), and the
 * files: NAME.svg, NAME.csv, NAME.json and index.html, all created anew in the owned folder. */
#ifndef LG_EXPORT_SITE_H
#define LG_EXPORT_SITE_H

#include "chart.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct lg_site_chart {
    lg_chart_spec_t spec; /* of a part (each): a copy whose sql is NULL, the query's owns it */
    lg_table_t table;
    char err[2048];
    bool ok, parsed;
    bool empty; /* the query found nothing (a profile the campaign did not run): no chart */
    /* What is drawn: the spec with its title and subtitle filled in, and the table in the unit
     * drawn (sub-millisecond latency in microseconds); the .csv and .json keep the query's rows. */
    lg_chart_spec_t dspec;
    lg_table_t dtable;
    bool drawn_copy;
    /* A query with the each directive: its charts, one per value of that column in order of
     * first appearance, each with its rows; the query itself writes no files. Owned. */
    struct lg_site_chart *parts;
    int nparts;
    const char *each_value; /* of a part: its value (in its table), NULL for SQL NULL */
} lg_site_chart_t;

/* The distinct lines of s's caveat column over t's rows into buf, each ending in '\n', in order
 * of first appearance; a cell is a JSON array of strings (lg.caveat_json's) or lines of text.
 * What does not fit is counted in a last line. Returns how many; 0 and "" without the column. */
int lg_site_caveats(const lg_chart_spec_t *s, const lg_table_t *t, char *buf, size_t len);

/* Cuts c's rows into c->parts by the value of its each column: names NAME-VALUE (the value's
 * letters and digits, '-' for the rest, made unique), tables of copied rows. 0, or -1 when out
 * of memory (with c->err). */
int lg_site_split(lg_site_chart_t *c);

/* Writes chart c (not a query split into parts): NAME.svg from its drawn copy, NAME.csv and
 * NAME.json from its rows, in dir (lg_owndir's, files created anew). 0, or -1 with c->err. */
int lg_site_write(const char *dir, lg_site_chart_t *c, lg_palette_t *pal);

/* What index.html says besides the charts (main.c reads it with --campaign; zeroed without):
 * the campaign's caveats (column caveat: one line each), its load hosts (agent, cpu_model,
 * cpu_count, mem_bytes, os, fio_version, lg_version), the NAS's facts from its telemetry (source,
 * cpus, mem_total_bytes) and the spec as stored (spec, spec_path). Tables owned by the struct. */
typedef struct {
    lg_table_t caveats, agents, nas, spec;
} lg_site_facts_t;
/* Frees the tables (not f itself) and zeroes them. */
void lg_site_facts_clear(lg_site_facts_t *f);

/* index.html: every chart (and part) that has figures, inline, with its data and its files; a
 * failed one with its error. 0, or -1 (logged). */
int lg_site_write_index(const char *dir, lg_site_chart_t *cs, int n, const char *campaign,
                        const lg_site_facts_t *facts, lg_palette_t *pal);

/* Internal (site_index.c), for lg_site_write_index: the caveats section (the campaign's, and
 * those of the charts in v, each naming the charts that show it); the test bed; a part's group
 * value (g 0 or 1, "" for none); the parts of a grouped each query in grouped order (out has
 * room for c->nparts). */
void lg__index_caveats(FILE *o, lg_site_chart_t **v, int nv, const lg_site_facts_t *f);
void lg__index_testbed(FILE *o, const lg_site_facts_t *f);
const char *lg__index_group_value(const lg_site_chart_t *p, int g);
void lg__index_group_order(const lg_site_chart_t *c, int *out);

/* Frees what c owns (its parts too), not c itself, and zeroes c. */
void lg_site_chart_clear(lg_site_chart_t *c);

#endif

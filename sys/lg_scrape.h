/* lg_scrape.h: the controller's scraper of NAS telemetry (Prometheus text endpoints). A thread of
 * its own runs libcurl's multi interface, so a slow or dead source never holds the loop: each
 * run gets a baseline scrape of each source when it starts, one every interval while it runs,
 * and one after it ends; every answer (or miss) is reduced to lg's keys (lg_telem.h) on that
 * thread and handed to the loop, which stores it (lg.sut_scrape). */
#ifndef LG_TELEM_SCRAPER_H
#define LG_TELEM_SCRAPER_H

#include <stdint.h>
#include <uv.h>

#include "lg_spec.h"
#include "lg_telem.h"

typedef enum { LG_SCRAPE_BEFORE, LG_SCRAPE_DURING, LG_SCRAPE_AFTER } lg_scrape_kind_t;

/* One scrape's outcome, owned by the callback's caller (freed after it returns). */
typedef struct {
    uint64_t run_id;
    char source[64];
    char url[256]; /* for messages (shortened) */
    uint32_t seq;  /* 0: the baseline before, then 1, 2, ... */
    lg_scrape_kind_t kind;
    int64_t t_send_us; /* wall clock (CLOCK_REALTIME), microseconds */
    int64_t t_recv_us; /* 0: missed */
    char error[512];   /* why it was missed */
    lg_telem_vals_t vals;
    size_t bytes; /* the answer's size */
} lg_scrape_t;

typedef void (*lg_scrape_cb)(void *arg, const lg_scrape_t *s);
/* A run's scrapes are all delivered (its after scrapes included). */
typedef void (*lg_scrape_end_cb)(void *arg, uint64_t run_id);

typedef struct lg_scraper lg_scraper_t;

/* Start the thread. cb and end run on loop. NULL on failure. */
lg_scraper_t *lg_scraper_new(uv_loop_t *loop, lg_scrape_cb cb, lg_scrape_end_cb end, void *arg);
/* Begin scraping sources (copied) for run_id: the baseline now, then every interval. A run
 * already being scraped is ended first. Returns 0 or -ENOMEM. */
int lg_scraper_start(lg_scraper_t *s, uint64_t run_id, const lg_telemetry_t *src, size_t n);
/* The run ended: one last scrape of each source, then end(). */
void lg_scraper_stop(lg_scraper_t *s, uint64_t run_id);
/* Stop the thread (transfers in flight are abandoned) and free *self_p (its handle closes on the
 * loop: run it once more), setting *self_p to NULL. Call from the loop. NULL or *NULL: nothing. */
void lg_scraper_destroy(lg_scraper_t **self_p);

/* One scrape, synchronously (lgctl plan --check): 0 with the values' count in *nkeys, or an
 * error with its text in err. */
int lg_scrape_once(const lg_telemetry_t *src, size_t *nkeys, size_t *bytes, char *err,
                   size_t errlen);

#endif

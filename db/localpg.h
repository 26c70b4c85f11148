/* localpg.h: lgctl's private PostgreSQL cluster for local mode: created under the lg data
 * directory on first use, reached only through a Unix socket in that directory. */
#ifndef LG_LOCALPG_H
#define LG_LOCALPG_H

#include <stddef.h>

typedef struct {
    char root[1024]; /* DATA_DIR/pg */
    char data[1100]; /* DATA_DIR/pg/data */
    char sock[1100]; /* DATA_DIR/pg/run */
    char log[1100];  /* DATA_DIR/pg/server.log */
    char bindir[512];
    char conninfo[1400];
    char url[1600]; /* the same as a postgresql:// URL */
    int short_sock; /* the socket is in /tmp/lg-pg-HASH: DATA_DIR is too long for one */
    int started;    /* we started the server, so we stop it */
    int as_root;    /* tools run as the postgres user */
} lg_localpg_t;

/* Local mode's folder for root: not /var/lib/lg, the lg daemons' (the lg user's home). */
#define LG_LOCALPG_ROOT_DIR "/var/lib/lg-local"

/* The default lg data directory: $XDG_DATA_HOME/lg, else (for root) LG_LOCALPG_ROOT_DIR, else
 * $HOME/.local/share/lg. Writes into buf. */
void lg_localpg_default_dir(char *buf, size_t len);
/* Check that data_dir is ours (lg_owndir: owned by us or root, nobody else can write it or a
 * folder above it), create the cluster if missing, start it if not running, and make sure database
 * "lg" exists. Returns 0 or a negative error with the reason (and PostgreSQL's output) in err. */
int lg_localpg_open(const char *data_dir, lg_localpg_t *pg, char *err, size_t errlen);
/* Stop the server if lg_localpg_open started it. */
void lg_localpg_close(lg_localpg_t *pg);
/* Only the paths, conninfo and URL of data_dir's cluster: nothing is made or started. */
int lg_localpg_paths(const char *data_dir, lg_localpg_t *pg, char *err, size_t errlen);
/* Is data_dir's cluster (from lg_localpg_paths) running? */
int lg_localpg_running(lg_localpg_t *pg);
/* Stop it (fast shutdown: sessions end, nothing committed is lost), whoever started it. */
void lg_localpg_stop(lg_localpg_t *pg);

#endif

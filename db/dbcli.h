/* dbcli.h: the start-up of the command-line programs that read the database (lgctl, lg-export),
 * written once, as PostgreSQL's fe_utils gives psql and pg_dump their connection options: the
 * logger's and the connections' name, every statement to a deadline (10 s, --timeout), Ctrl-C
 * ending any wait, and the options that say which database: --db URL (default
 * $LG_DATABASE_URL) and --data-dir DIR (local mode's folder, whose private cluster is opened when
 * no URL is given). Each program puts the options in its own table (lg_opt.h) by the
 * LG_DBCLI_OPT_* entries below, for its context struct whose member m is an lg_dbcli_t. */
#ifndef LG_DBCLI_H
#define LG_DBCLI_H

#include <stddef.h>

#include "lg_opt.h"

typedef struct {
    const char *url;      /* --db, else $LG_DATABASE_URL (empty: none); NULL: none */
    const char *data_dir; /* --data-dir, else local mode's folder (lgctl) or NULL (lg-export) */
    int data_dir_given;   /* --data-dir was given */
    char dflt[1024];      /* local mode's folder, when it is data_dir's default */
} lg_dbcli_t;

/* Before the command line: the logger and the connections named prog, each statement's deadline
 * 10 s, url $LG_DATABASE_URL's, data_dir local mode's folder when local (lgctl: its run folders
 * are there whatever the database), else NULL. self is the caller's (it may be copied: data_dir
 * then points into the first). */
void lg_dbcli_init(lg_dbcli_t *self, const char *prog, int local);
/* After the command line: the data folder checked (an absolute path), then SIGINT and SIGTERM
 * made to end every wait of db/ (lg_db_interrupt_on_signals(flag)) and SIGPIPE ignored (output
 * into a closed pipe is an error, not an end). Returns 0, or LG_EPARSE after saying why. */
int lg_dbcli_start(const lg_dbcli_t *self, volatile int *flag);

/* The handlers of --data-dir (into the lg_dbcli_t at o->off) and --timeout (the deadline of every
 * statement, 1 to 86400 seconds), for the entries below. */
int lg_dbcli_opt_data_dir(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen);
int lg_dbcli_opt_timeout(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen);

/* The options' entries, for a table of type's options whose member m is an lg_dbcli_t. */
#define LG_DBCLI_OPT_DB(type, m)                                                                   \
    {                                                                                              \
        "db", 0, "URL", LG_OPT_STR, 0, offsetof(type, m.url), 0, 0, NULL,                          \
            "PostgreSQL connection string (default $LG_DATABASE_URL); one\n"                       \
            "with a password goes there: ps shows a command line",                                 \
            "PostgreSQL connection string (default $LG_DATABASE_URL). One with a password goes "   \
            "there: "                                                                              \
            "every user of the host can read a command line (ps)."                                 \
    }
/* help: what the folder is to the program (lgctl: local mode's data; lg-export: its database) */
#define LG_DBCLI_OPT_DATA_DIR(type, m, help)                                                       \
    {                                                                                              \
        "data-dir", 0, "DIR", LG_OPT_FN, 0, offsetof(type, m), 0, 0, lg_dbcli_opt_data_dir, help,  \
            NULL                                                                                   \
    }
#define LG_DBCLI_OPT_TIMEOUT(type, m)                                                              \
    {                                                                                              \
        "timeout", 0, "S", LG_OPT_FN, 0, offsetof(type, m), 0, 0, lg_dbcli_opt_timeout,            \
            "give up on a database that does not answer a statement within S\n"                    \
            "seconds (default 10; connecting: its connect_timeout, default 10)",                   \
            "give up on a database that does not answer a statement within _S_ seconds (default "  \
            "10; "                                                                                 \
            "connecting: its connect_timeout, default 10), naming it (host or socket folder) and " \
            "the "                                                                                 \
            "statement; Ctrl-C ends any wait at once"                                              \
    }

#endif

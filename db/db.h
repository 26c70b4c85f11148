/* db.h: libpq helpers shared by lg-controller, lgctl and lg-export: connect, run parameterised
 * statements with checked results, read results, and JSON forms of histograms and percentiles for
 * jsonb columns. The one door to PostgreSQL: no file outside db/ includes libpq-fe.h or calls
 * libpq (tests/lint/db_door.sh). */
#ifndef LG_DB_H
#define LG_DB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lg_stats.h"
#include "localpg.h"

/* libpq's handles, opaque outside db/: the same typedefs as libpq-fe.h's, which C11 lets a file
 * of db/ that includes both repeat. */
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

#define LG_DB_CONNECT_TIMEOUT_S 10 /* connect_timeout unless the connection string sets one */
#define LG_DB_DEADLINE_MS 30000    /* a statement's default deadline */

/* Connect, bounded: connect_timeout (10 s), TCP keepalives (a silent peer found in 25 s),
 * tcp_user_timeout (25 s) and application_name (lg_db_set_app) are added unless conninfo (or
 * PGCONNECT_TIMEOUT / PGAPPNAME) gives them; the server's statement_timeout is set a second past
 * the deadline. NULL with the reason in err, naming the database (host or socket folder).
 * Caller owns the result (lg_db_close). */
PGconn *lg_db_connect(const char *conninfo, char *err, size_t errlen);
/* Close *db_p (PQfinish) and set it to NULL; NULL or *NULL: nothing. */
void lg_db_close(PGconn **db_p);
/* 1 when db is open (CONNECTION_OK), 0 when it is gone (shut past a deadline, or by the server's
 * end, found when it was used) or NULL: the caller then closes it and connects again. */
int lg_db_connected(const PGconn *db);
/* A database as lgctl, its local mode and lg-export open theirs (open.c): the connection, what
 * it was made with, and the private cluster it is in, if any. The caller's struct. */
typedef struct {
    PGconn *db;           /* connected and bounded, as lg_db_connect makes it */
    const char *conninfo; /* what it connected with: the url given, or pg.conninfo */
    lg_localpg_t pg;      /* data_dir's cluster (pg.started: this opening started it) */
} lg_db_open_t;
/* Open the database: url (a libpq connection string, LG_DATABASE_URL's or --db's) when not
 * NULL, else the private cluster in data_dir (lg_localpg_open: refused unless the folder is
 * ours, made if new, started if down). Returns 0, or a negative error with the reason in err
 * (the cluster's, or "could not connect to the database: ...") and nothing left open.
 * lg_db_open_clear closes the connection, stops the cluster if this opening started it, and
 * leaves *self zeroed (zeroed or cleared already: nothing). */
int lg_db_open(const char *url, const char *data_dir, lg_db_open_t *self, char *err, size_t errlen);
void lg_db_open_clear(lg_db_open_t *self);
/* For a command-line program (lgctl, lg-export): *flag (NULL: a flag of db/'s own) is cleared,
 * and SIGINT and SIGTERM set it (handlers without SA_RESTART: a blocking call returns EINTR) and
 * so end any wait of db/ within 100 ms (lg_db_set_interrupt(flag)). The program reads *flag to
 * end waits of its own, and may clear it to go on (lgctl's local mode then aborts its
 * campaign). A daemon whose loop owns the
 * signals (lg-controller) sets a flag of its own with lg_db_set_interrupt instead. */
void lg_db_interrupt_on_signals(volatile int *flag);
/* conninfo (a URL or "key=value" string) split for a program of PostgreSQL's own (psql), so
 * that no secret goes on its command line, which every user of the host can read (ps): into pub
 * (publen bytes) every setting but the password, as a "key='value'" string for its command line,
 * and into pass (passlen bytes) the password, "" when there is none. 0, or LG_EPARSE with the
 * reason in err: conninfo cannot be read, or holds an sslpassword (no file or variable of libpq
 * takes one), or LG_ETOOBIG: a buffer is too small. */
int lg_db_conninfo_split(const char *conninfo, char *pub, size_t publen, char *pass, size_t passlen,
                         char *err, size_t errlen);
/* The application_name connections get ("lgctl", "lg-controller", "lg-export"); a static
 * string. */
void lg_db_set_app(const char *name);
/* The deadline of each statement lg_db_exec runs, for the process (0: the default), and for the
 * calling thread alone (0: the process's; e.g. migrations, which may take minutes). Past it the
 * call returns LG_ETIMEOUT naming the database, and the connection is shut. */
void lg_db_set_deadline_ms(uint32_t ms);
void lg_db_set_thread_deadline_ms(uint32_t ms);
uint32_t lg_db_deadline_ms(void);
/* A flag (set by a signal handler) that ends any wait within 100 ms: connecting gives NULL,
 * lg_db_exec LG_ETIMEOUT, both saying "interrupted". */
void lg_db_set_interrupt(volatile int *flag);
/* Run sql with n text parameters, to the deadline. Succeeds on COMMAND_OK or TUPLES_OK; then
 * *out (if not NULL) receives the result, which the caller frees (lg_db_result_destroy). Returns 0,
 * LG_EDB with the message in err, or LG_ETIMEOUT (the connection is then shut). */
int lg_db_exec(PGconn *db, const char *sql, int n, const char *const *params, PGresult **out,
               char *err, size_t errlen);
/* The same, the result whatever its status (*res; the caller checks and frees it: its error
 * fields, e.g. the position, stay readable); n < 0: sql is a script of several statements, run
 * with the simple protocol. 0, or LG_EDB / LG_ETIMEOUT with *res NULL. */
int lg_db_query(PGconn *db, const char *sql, int n, const char *const *params, PGresult **res,
                char *err, size_t errlen);
/* A COPY FROM STDIN under way (lg_db_query gave PGRES_COPY_IN): its data, then its end and
 * result (*res, the caller checks and frees it), each to the deadline. 0, LG_EDB or
 * LG_ETIMEOUT (the connection shut). */
int lg_db_copy_put(PGconn *db, const char *data, size_t len, char *err, size_t errlen);
int lg_db_copy_end(PGconn *db, PGresult **res, char *err, size_t errlen);
/* lg_db_query's answer to a COPY FROM STDIN: 1 when the COPY is under way, else 0 with the
 * server's error (or what the answer was) in err. */
int lg_db_copy_started(const PGresult *res, char *err, size_t errlen);
/* End a COPY FROM STDIN and check its result: 0, or LG_EDB / LG_ETIMEOUT with the message in err
 * (err NULL: the outcome only, e.g. after an error of one's own). */
int lg_db_copy_finish(PGconn *db, char *err, size_t errlen);
/* Run sql, a COPY ... TO STDOUT, and hand its data to sink as it comes (rows whole, in order);
 * a sink that returns non-zero ends it and the connection (that value is returned, err left to
 * the sink: the transaction is lost, as with a timeout). The
 * deadline counts from the last data received, so a long COPY that keeps coming runs on.
 * 0, LG_EDB or LG_ETIMEOUT (the connection shut). */
int lg_db_copy_out(PGconn *db, const char *sql, int (*sink)(void *arg, const char *buf, size_t n),
                   void *arg, char *err, size_t errlen);
/* A script of several statements (a migration), to the deadline. 0, LG_EDB or LG_ETIMEOUT. */
int lg_db_script(PGconn *db, const char *sql, char *err, size_t errlen);
/* End a transaction: COMMIT when rc is 0, else (or when the commit fails) ROLLBACK, keeping the
 * first error in err. Returns the outcome: 0, rc, or the commit's error. */
int lg_db_end(PGconn *db, int rc, char *err, size_t errlen);
/* Reading a result by column name (cols.c), as pg_dump does: find each column once per result,
 * before the row loop (int c_name = lg_db_col(r, "name")), then read rows by it; never by
 * position, which a query that gains a column silently shifts. Give every expression in a
 * select list a name (AS name), lower case: PQfnumber folds an unquoted name to lower case.
 * A name not in r is a programming error: logged, naming it and r's columns, and -1, which
 * lg_db_get reads as "" and lg_db_isnull as NULL (a wrong read shows empty, never crashes). */
int lg_db_col(const PGresult *r, const char *name);
/* cols[k] = lg_db_col(r, names[k]) for each of the n names; returns how many are missing. */
int lg_db_cols(const PGresult *r, const char *const *names, int *cols, size_t n);
/* The value of row in column col as text: "" for NULL (as PQgetvalue), for col < 0 and for a
 * row out of range. Valid while r is (owned by r). */
const char *lg_db_get(const PGresult *r, int row, int col);
/* 1 when the value is NULL or col < 0 (a column not found reads as NULL), else 0. */
int lg_db_isnull(const PGresult *r, int row, int col);

/* A result read whole (result.c), what code outside db/ uses in place of libpq's own calls: a
 * printer of any query's rows (lgctl's --format csv/json, lg-export's tables) goes by position
 * over all columns, naming each by lg_db_fname. */
/* The rows of r (0 for NULL), and *self_p freed (PQclear) and set to NULL (NULL or *NULL:
 * nothing). */
int lg_db_nrows(const PGresult *r);
void lg_db_result_destroy(PGresult **self_p);
/* The columns of r (0 for NULL); column col's name, "" out of range (owned by r). */
int lg_db_nfields(const PGresult *r);
const char *lg_db_fname(const PGresult *r, int col);
/* What column col's type is to a printer (lgctl's --format csv/json, lg-export's tables and
 * charts), from its type's OID (the one list of them, result.c): a boolean; an integer (int2,
 * int4, int8, oid); a real number (float4, float8, numeric); or text (every other type, and
 * col out of range). */
typedef enum { LG_DB_TEXT, LG_DB_BOOL, LG_DB_INT, LG_DB_REAL } lg_db_kind_t;
lg_db_kind_t lg_db_fkind(const PGresult *r, int col);
/* 1 when r is a statement's success (COMMAND_OK or TUPLES_OK), else 0 (NULL, an error, a COPY
 * under way); lg_db_result_tuples: 1 only for a statement that returns rows (TUPLES_OK, no rows
 * included). */
int lg_db_result_ok(const PGresult *r);
int lg_db_result_tuples(const PGresult *r);
/* A result made in memory, no server (a test of what reads results, or a caller that hands rows
 * on as a result): status LG_DB_MADE_ROWS (a query's, rows put with lg_db_result_put), _DONE (a
 * command's) or _FAILED (an error's, with no fields), with ncols columns of those names and type
 * OIDs (oids NULL: all text). NULL when it cannot be made; lg_db_result_destroy frees it. */
typedef enum { LG_DB_MADE_ROWS, LG_DB_MADE_DONE, LG_DB_MADE_FAILED } lg_db_made_t;
PGresult *lg_db_result_make(lg_db_made_t status, int ncols, const char *const *names,
                            const unsigned *oids);
/* Value v of row row (the rows grow to it), column col; v NULL is SQL NULL. 0, or -1 when it
 * does not fit (col out of range, no memory). */
int lg_db_result_put(PGresult *r, int row, int col, const char *v);
/* r's error as libpq words it ("ERROR:  primary\nDETAIL:  ..."), "" when r is none; owned by r.
 * "no result" for NULL. */
const char *lg_db_result_message(const PGresult *r);

/* An error the server sent, its fields apart (as psql's \errverbose shows them), for a caller
 * that decides on its SQLSTATE (a unique violation, a usage error raised by a function) or says
 * its detail and hint as lg_log does. Plain C data in the caller's struct. */
typedef struct {
    char sqlstate[6];  /* "23505"; "" when r is no error of the server's */
    char message[512]; /* the primary message, one line; "" when none */
    char detail[512];  /* "" when none */
    char hint[512];    /* "" when none */
    int position;      /* 1-based character of the statement the error is at; 0 when none */
} lg_db_error_t;
/* r's error fields into *e, every one emptied first (NULL or a success: all empty). */
void lg_db_result_error(const PGresult *r, lg_db_error_t *e);

/* Sparse histogram as a JSON object {"bucket index": count, ...}. Caller owns the result (free). */
char *lg_db_hist_json(const lg_hist_t *h);
/* Percentiles of h for lg_pct_list as {"99.000000": ns, ...} (keys as fio prints them).
 * Caller owns the result (free). */
char *lg_db_pct_json(const lg_hist_t *h);

/* The names of the newest campaigns (at most 20, newest first, comma-separated) into buf, for a
 * "no campaign named X; campaigns: ..." message; "" when there are none or on error. */
void lg_db_campaign_names(PGconn *db, char *buf, size_t len);

/* The measured points without figures (lg.v_failed_point) of campaign id cid (NULL: of the newest
 * campaign named name, or of all when name is NULL too), one line each on out: "failed: run N
 * (config labels, profile direction TxQ), attempt k: error" (text from the database escaped for a
 * terminal). Returns how many, or a negative error (err). */
int lg_db_failed_points(PGconn *db, const char *name, const char *cid, FILE *out, char *err,
                        size_t errlen);

#endif

/* spill.h: the controller's spool on disk for samples the database cannot take now. While the
 * database is away the sample writer appends its batches here (each record checksummed and
 * fsynced before its samples are acknowledged to their agents, who then drop their copies), and
 * once the database is back it writes them from here, oldest first, before anything newer. The
 * file has a size limit: past it, samples wait in the agents' own spools as without a spool.
 * A spool left by a controller that was killed is written on the next start (a torn last record,
 * never acknowledged, is dropped: its agent still has it). Safe to use from two threads (one
 * appending, one reading). */
#ifndef LG_SPILL_H
#define LG_SPILL_H

#include <stddef.h>
#include <stdint.h>

typedef struct lg_spill lg_spill_t;

#define LG_SPILL_FILE "samples.spool"

/* Opens (making it if need be) the spool in dir, a folder lg_owndir accepts (made 0700), and
 * locks it: a second controller on the same folder is refused. Reads what a previous controller
 * left (checking every record). Returns 0 with *out set, or a negative error with err saying
 * what and where. */
int lg_spill_open(const char *dir, uint64_t max_bytes, lg_spill_t **out, char *err, size_t errlen);

/* A record's kind is the writer's to define (which table its rows go to, and how many fields
 * each has); the spool keeps it and reads back records of one kind at a time. */
typedef struct {
    const void *rows;
    size_t len;
    size_t nrows;
    int kind;
} lg_spill_part_t;

/* Appends one record of nrows COPY rows of the given kind and fsyncs it. Returns 0,
 * LG_ETOOBIG when the record would take the file past its limit (nothing written), or a negative
 * error with err set. */
int lg_spill_append(lg_spill_t *s, const void *rows, size_t len, size_t nrows, int kind, char *err,
                    size_t errlen);
/* Appends n records (one fsync): all of them, or none (the file is cut back on a failure). */
int lg_spill_append_parts(lg_spill_t *s, const lg_spill_part_t *p, size_t n, char *err,
                          size_t errlen);

/* Reads the oldest records not yet stored, whole, up to about max_len bytes (at least one
 * record), all of one kind: into *rows (caller frees), *len, *nrows, *kind. Returns 1 with
 * a batch, 0 when nothing waits, or a negative error with err naming the file and offset (a
 * damaged record: what follows it is skipped and counted as lost). Call lg_spill_commit once
 * the batch is stored, or nothing: the next read gives the same records again. */
int lg_spill_read(lg_spill_t *s, size_t max_len, char **rows, size_t *len, size_t *nrows, int *kind,
                  char *err, size_t errlen);
/* The batch last read is stored: once nothing waits, the file is emptied. */
int lg_spill_commit(lg_spill_t *s, char *err, size_t errlen);

/* Rows and bytes waiting in the file. */
uint64_t lg_spill_rows(lg_spill_t *s);
uint64_t lg_spill_bytes(lg_spill_t *s);
uint64_t lg_spill_max(const lg_spill_t *s);
const char *lg_spill_path(const lg_spill_t *s);

void lg_spill_close(lg_spill_t **self_p);

/* CRC-32C (Castagnoli) of len bytes, continuing crc (0 to start). */
uint32_t lg_crc32c(uint32_t crc, const void *p, size_t len);

#endif

/* archive.h: "lgctl db archive --before DATE FILE" and "lgctl db restore FILE": old reviews
 * moved out of a lab's database into a file, and back, figures intact (schema 036: lg.sample's
 * partitions of 10,000 run ids keep the rows of old and current reviews apart). */
#ifndef LG_ARCHIVE_H
#define LG_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

typedef struct {
    uint64_t campaigns, runs, samples, bytes, dropped; /* dropped: sample partitions emptied */
} lg_archive_stats_t;

/* Every finished campaign (done, failed or aborted) that finished before the date `before` (any
 * form PostgreSQL reads as a timestamptz), with every row that names it or its runs, written to
 * path (made new: O_EXCL|O_NOFOLLOW, mode 0600; never overwritten) and then deleted, in one
 * transaction: the rows go only once the file is complete on disk. No such campaign: no file,
 * st->campaigns 0. Returns 0, or LG_EPARSE (a bad date), LG_EIO (the file) or LG_EDB with err;
 * on any error nothing is deleted and a file lg made is removed. */
int lg_archive(PGconn *db, const char *before, const char *path, lg_archive_stats_t *st, char *err,
               size_t errlen);

/* The campaigns of an archive back into the database, in one transaction: all or nothing. The
 * file is data: its tables are lg's own and its columns must be theirs. A campaign still (or
 * again) in the database, a truncated file or one of another format: refused, nothing stored. */
int lg_restore(PGconn *db, const char *path, lg_archive_stats_t *st, char *err, size_t errlen);

#endif

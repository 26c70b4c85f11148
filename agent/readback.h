/* readback.h: read back what a run wrote to an smb:// file or an iscsi:// LUN, through
 * libsmbclient or libiscsi as the lgsmb and lgiscsi engines reach it, and measure it with the
 * data reduction scanner (lg_datacheck.h). Not in the Windows build, which has neither engine. */
#ifndef LG_READBACK_H
#define LG_READBACK_H

#include <stddef.h>
#include <stdint.h>

#include "lg_datacheck.h"

/* Which URL schemes this build can read back: 1 when it was linked with the library. */
int lg_readback_has_smb(void);
int lg_readback_has_iscsi(void);

/* Read url (smb://[domain;][user@]host[:port]/share/path or iscsi://host[:port]/iqn/lun) from
 * byte offset for size bytes in records of unit bytes (a partial last record is skipped, as
 * lg_datacheck_file does) and write the totals into *out (only on success). credentials: the
 * agent's --smb-credentials or --iscsi-chap file (creds.h format), or NULL. Connecting, logging
 * in and each read are bounded in time. Blocking: call it from a worker thread; one call at a
 * time per process (libsmbclient keeps process-wide state; calls are serialised inside).
 * Returns 0, LG_EPARSE (bad unit, not a URL this reads), LG_EDENIED (built without the
 * library), or -errno (cannot connect, log in, open, or a short or failed read); the reason,
 * naming the URL, is in err. The password is never in err. */
int lg_readback_datacheck(const char *url, const char *credentials, uint64_t offset, uint64_t size,
                          uint32_t unit, lg_datacheck_t *out, char *err, size_t errlen);

/* lgctl plan --check: log in to url as a run would and look, without I/O. smb://: the file's
 * folder exists and takes a new file (one is made and removed at once); iscsi://: the LUN
 * answers READ CAPACITY and holds at least size bytes (its size into *bytes). What was found, or
 * why it was refused, naming the URL, is in msg either way. Blocking and serialised as
 * lg_readback_datacheck. Returns 0, -ENOENT (no such folder or LUN), -ENOSPC (a LUN smaller than
 * size), LG_EPARSE, LG_EDENIED or another -errno (cannot connect, log in, make a file). */
int lg_readback_look(const char *url, const char *credentials, uint64_t size, uint64_t *bytes,
                     char *msg, size_t len);

#endif

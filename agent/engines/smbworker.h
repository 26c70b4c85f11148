/* smbworker.h: a worker process of lgsmb's pool (smbpool.c): what a job and its workers say to
 * each other (requests on a socket, results in a slot of shared memory, completions on a pipe)
 * and the worker's own loop, which serves a job and, between jobs, keeps its SMB session parked
 * for the next one (smbpark.h). Internal to lgsmb.so. */
#ifndef LG_ENGINE_SMBWORKER_H
#define LG_ENGINE_SMBWORKER_H

#include <stddef.h>
#include <stdint.h>

#include "smbconn.h"
#include "smbpark.h"
#include "smbpool.h"

/* Requests beside the control ones of smbpool.h. LG__SMB_OP_PARK: the job is done; keep the
 * session for the next job of the same target (smbpark.h) instead of logging off. */
enum { LG__SMB_OP_READ = LG_SMBPOOL_CLOSE + 1, LG__SMB_OP_WRITE, LG__SMB_OP_PARK };

/* A request, one SOCK_SEQPACKET message. */
typedef struct {
    uint32_t op;
    int32_t fileno;
    int32_t flags; /* LG_SMBPOOL_OPEN: open(2) flags */
    uint32_t len;  /* bytes to move; LG_SMBPOOL_CONNECT, LG_SMBPOOL_OPEN: the URL's length */
    uint64_t offset;
} lg__smb_msg_t;

/* The head of a worker's slot, written by the worker before it reports, or by the job when the
 * worker died. */
typedef struct {
    int64_t result; /* bytes moved (short at end of file) or 0; else a negative errno */
    char said[2 * LG__SMB_DETAIL]; /* on failure: for I/O what libsmbclient said, else the whole
                                      reason */
} lg__smb_slot_t;
#define LG__SMB_SLOT_DATA 4096 /* a slot's data starts on its own page */

/* In worker process job->index, just forked by td's job: make the SMB context with td's options
 * and serve the job's requests until it closes the socket (then close the files, log off and
 * exit) or asks to park (then, if park is not NULL, wait parked for another job of the same
 * target and serve it, and so on; see smbpark.h). Never returns. */
_Noreturn void lg__smb_worker_main(struct thread_data *td, lg__smb_job_t *job,
                                   const lg__smb_park_t *park);

#endif

/* smblogon.h: how the lgsmb engine paces the logons of a job's worker pool (smbpool.c): which
 * failed connects are the server's load and tried again, the pause before each try, and the lock
 * that makes the jobs of one fio run log on in turn. Internal to lgsmb.so. */
#ifndef LG_ENGINE_SMBLOGON_H
#define LG_ENGINE_SMBLOGON_H

#include <stdint.h>

#include "fio_engine.h"

/* Connects a job has in flight at once; with the lock, per fio run (per agent). */
#define LG__SMB_LOGON_PARALLEL 8

/* Whether a connect that failed with errno e may succeed once the server is less busy. */
int lg__smb_logon_transient(int e);
/* What a connect's failure with errno e means when libsmbclient says no more (the server refused
 * a further session or connection, and why it might have), or NULL. */
const char *lg__smb_logon_hint(int e);
/* The pause after a connect failed for the tries-th time (tries >= 1): 50 ms doubling to 2 s, of
 * which a random half; *rng is the job's xorshift32 state (never 0). */
int64_t lg__smb_logon_backoff_ms(unsigned tries, uint32_t *rng);
/* The logon locks of one fio run: files in the working folder (see smblogon.c). */
typedef struct {
    int wave; /* held exclusively while a wave of a job's connects is in flight */
    int busy; /* held shared from a job's first connect until its sessions are all up */
} lg__smb_logon_lock_t;

/* Open the logon locks of this fio run in the working folder and take busy, shared. Without them
 * (said once per job section), both are -1: logons are then bounded per job only. Caller closes
 * them (lg__smb_logon_lock_close). */
void lg__smb_logon_lock_open(struct thread_data *td, lg__smb_logon_lock_t *lk);
void lg__smb_logon_lock_close(lg__smb_logon_lock_t *lk);
/* Wait, answering fio's status thread, until lk->wave is this job's: 1 once it is, 0 when flock
 * cannot lock it (go on without), -ETIMEDOUT at deadline (monotonic ms), -EINTR when fio stops
 * the job. */
int lg__smb_logon_lock_take(struct thread_data *td, lg__smb_logon_lock_t *lk, int64_t deadline);
/* Let go of lk->wave, then pause a moment, answering fio's status thread, so that another job
 * waiting for it takes it before this one does again. */
void lg__smb_logon_lock_give(struct thread_data *td, lg__smb_logon_lock_t *lk);
/* This job's sessions are up: let go of busy, then wait, answering fio's status thread, until no
 * job of the fio run is still logging on, or the deadline, or fio stops the job. */
void lg__smb_logon_together(struct thread_data *td, lg__smb_logon_lock_t *lk, int64_t deadline);
/* Monotonic milliseconds. */
int64_t lg__smb_now_ms(void);

#endif

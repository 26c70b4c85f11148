/* smbconn.h: the SMB connections of the lgsmb engine (smbconn.c), which the engine (lgsmb.c)
 * and its worker pool (smbpool.c) both use: a job's SMB connection, the lock every
 * libsmbclient call takes, what libsmbclient said about the last failure, SMB targets and I/O
 * error reports. Internal to lgsmb.so. */
#ifndef LG_ENGINE_SMBCONN_H
#define LG_ENGINE_SMBCONN_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <libsmbclient.h>

#include "creds.h"

#include "fio_engine.h"

#define LG__SMB_PREFIX "smb://"
#define LG__SMB_FIELD 256  /* user, password, domain: as large as libsmbclient's own buffers */
#define LG__SMB_DETAIL 512 /* the text that follows an errno text: SMB status, diagnosis */

/* The engine's options (td->eo, defined in lgsmb.c's option table), which a job's connections
 * are made with. fio requires that no option sits at offset 0. */
struct lg__smb_opts {
    void *pad;
    char *credentials;
    char *min_protocol;
    unsigned int layout;
    unsigned long long
        connect_timeout; /* smb_connect_timeout, in microseconds as fio keeps times */
};

/* One connection to the servers of a job: a libsmbclient context, its entry points, and the
 * credentials its authentication callback hands out. */
typedef struct {
    SMBCCTX *ctx;
    smbc_open_fn open;
    smbc_read_fn read;
    smbc_write_fn write;
    smbc_lseek_fn lseek;
    smbc_stat_fn stat;
    smbc_close_fn close;
    smbc_unlink_fn unlink;
    int have_creds;
    char min_protocol[32];
    lg_creds_t creds;   /* what the authentication callback hands out, if have_creds */
    unsigned io_errors; /* failed I/Os so far, to log only the first ones */
} lg__smb_conn_t;

/* Debian's libsmbclient cannot be given thread hooks (smbc_thread_posix is not exported), so
 * its talloc stack frames are process-wide: two threads inside it at once crash it. Every call
 * goes through LG__SMB_CALL under this lock. ->setup makes jobs processes, where it is uncontended;
 * only jobs that still share a process (thread=1 with create_serialize=0) take turns. */
extern pthread_mutex_t lg__smb_lock;
#define LG__SMB_CALL(res, expr)                                                                    \
    do {                                                                                           \
        pthread_mutex_lock(&lg__smb_lock);                                                         \
        (res) = (expr);                                                                            \
        int s_errno_ = errno;                                                                      \
        pthread_mutex_unlock(&lg__smb_lock);                                                       \
        errno = s_errno_;                                                                          \
    } while (0)

/* The parts of smb://[domain;][user[:password]@]host[:port]/share[/path]. */
typedef struct {
    char authority[2 * LG__SMB_FIELD]; /* [domain;][user@]host[:port], to reach the same server */
    char server[LG__SMB_FIELD];        /* host[:port], to name it */
    char share[LG__SMB_FIELD];
    char parent[PATH_MAX]; /* the folder of the file inside the share, "" for its root */
    int has_password;
} lg__smb_target_t;

/* A context with td's credentials and dialects; no connection is made until the first call.
 * Caller owns *out (lg__smb_conn_destroy). Returns 0 or a negative errno value; err says why. */
int lg__smb_conn_new(struct thread_data *td, lg__smb_conn_t **out, char *err, size_t errlen);
/* Close every file and connection of *self_p and clear the password. Takes ownership of *self_p
 * and sets it to NULL; NULL or *NULL: nothing. */
void lg__smb_conn_destroy(lg__smb_conn_t **self_p);
/* Forget, for this thread, what libsmbclient said last. */
void lg__smb_said_clear(void);
/* What libsmbclient said about the last failure (NT status, reason), "" if nothing. */
void lg__smb_said_text(char *out, size_t len);
/* Split url into t; 0, or -EINVAL when it is not smb://.../share/path. */
int lg__smb_parse_target(const char *url, lg__smb_target_t *t);
/* After an open of url failed with errno e, find which part is wrong (server, share, folder)
 * and write errno text plus what libsmbclient said into out. */
void lg__smb_explain(lg__smb_conn_t *c, const char *url, int e, char *out, size_t len);
/* Report the failure e of io_u (said: what libsmbclient said, may be "") for the first few
 * failures counted in *count, and put it into td->verror for fio's summary. */
void lg__smb_io_log(struct thread_data *td, unsigned *count, struct io_u *io_u, int e,
                    const char *said);
/* url with the password of its user part, if any, replaced by "***" (into out, len bytes). */
void lg__smb_redact(const char *url, char *out, size_t len);
/* Once per process: say that a sync completes without an SMB2 FLUSH. */
void lg__smb_warn_sync(void);

#endif

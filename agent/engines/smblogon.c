/* smblogon.c: the pacing of the lgsmb worker pool's logons: which failed connects are tried
 * again, the pause before each try, and the lock that makes the jobs of one fio run log on in
 * turn. See smblogon.h; the logons themselves are smbpool.c's lg_smbpool_connect. */
#include "smblogon.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define S_BACKOFF_FIRST_MS 50 /* the pause before a refused connect is tried again ... */
#define S_BACKOFF_MAX_MS 2000 /* ... doubling up to this */
#define S_SLICE_MS 10         /* how long a wait goes without answering fio's status thread */
#define S_GIVE_PAUSE_MS 20    /* > S_SLICE_MS: a job that waits for the lock tries it meanwhile */
#define S_LOCK_NAME "lgsmb-logon.lock"
#define S_BUSY_NAME "lgsmb-logon.busy"

int64_t lg__smb_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Seen here against smbd 4.17 and Debian's libsmbclient 4.17 (tests/integration/it_smb_logons.sh,
 * tests/bench/smb_16t16q.sh): 512 connects at once, more than smbd accepts and forks in time, time
 * out (ETIMEDOUT, after libsmbclient's 20 s); a share at its "max connections" refuses the tree
 * connect with NT_STATUS_INSUFFICIENT_RESOURCES, which libsmbclient turns into EINVAL without a
 * word; one at "max smbd processes" drops the new connection, which libsmbclient says as
 * ENETRESET or ECONNABORTED. A server that drops a connection, runs out of memory or does not
 * listen (while it restarts) gives ECONNRESET, EPIPE, EIO, ENOMEM or ECONNREFUSED. EINVAL is
 * otherwise a bad URL, but worker 0 has just logged on with the same URL, credentials and share, so
 * here it is the server's. A refused logon or access (EACCES, EPERM), a share gone (ENOENT) or
 * anything else is reported, never tried again: a wrong password tried again is a step towards
 * locking the account out. */
int lg__smb_logon_transient(int e)
{
    switch (e) {
    case ETIMEDOUT:
    case EINVAL:
    case ENOMEM:
    case ECONNREFUSED:
    case ECONNRESET:
    case ENETRESET:
    case ECONNABORTED:
    case EPIPE:
    case EIO:
    case EAGAIN:
    case EBUSY:
    case EINTR:
        return 1;
    default:
        return 0;
    }
}

const char *lg__smb_logon_hint(int e)
{
    switch (e) {
    case EINVAL:
        return "the server refused a further session, as smbd does past a share's "
               "\"max connections\"";
    case ENETRESET:
    case ECONNABORTED:
        return "the server dropped a further connection, as smbd does past \"max smbd processes\"";
    default:
        return NULL;
    }
}

/* "Equal jitter": half the pause fixed, half random, so that the workers of the jobs and agents
 * that were refused together do not come back together. */
int64_t lg__smb_logon_backoff_ms(unsigned tries, uint32_t *rng)
{
    int64_t d = S_BACKOFF_FIRST_MS;
    for (unsigned k = 1; k < tries && d < S_BACKOFF_MAX_MS; k++)
        d *= 2;
    if (d > S_BACKOFF_MAX_MS)
        d = S_BACKOFF_MAX_MS;
    *rng ^= *rng << 13;
    *rng ^= *rng >> 17;
    *rng ^= *rng << 5;
    return d / 2 + (int64_t)(*rng % (uint32_t)(d / 2 + 1));
}

/* s_lock_file: name in the working folder dfd, opened; -1 with why set. */
static int s_lock_file(int dfd, const char *name, char *why, size_t whylen)
{
    struct stat st;
    int fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, whylen, "\"%s\": %s", name, strerror(errno));
    } else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        snprintf(why, whylen, "\"%s\" is not a file of this user's", name);
        close(fd);
        fd = -1;
    }
    return fd;
}

/* fio's jobs are processes of their own, so a bound per job is none per agent (16 jobs x 8 in
 * flight). A job holds an exclusive flock on one file in its working folder (wave) while a wave
 * of its connects (at most LG__SMB_LOGON_PARALLEL) is in flight, and gives it up between waves,
 * so the jobs of one fio run take turns wave by wave: at most LG__SMB_LOGON_PARALLEL connects in
 * flight per agent. And fio starts a job's I/O as soon as its own ->init returns: on a busy host
 * (16 jobs of 16 workers, their smbd children), the I/O of the jobs logged on first starved the
 * logons of the others of CPU until they missed their deadline. So each job also holds a shared
 * flock on a second file (busy) while it logs on, and once its sessions are up waits until it can
 * lock that one exclusively: no job of the run is logging on any more, and all start together.
 * lg-agent starts fio in the run's folder, which it made 0700 and which holds that run's files
 * only. flock rather than a named semaphore: the kernel lets go of it when a job dies, and it
 * needs no name in a folder shared with others (/dev/shm). In a folder that is not this user's
 * alone (fio run by hand in /tmp) no file is made: the bound is then per job. Said with log_err,
 * as lgsmb's notes are: fio's stdout carries the JSON lg-agent reads. */
void lg__smb_logon_lock_open(struct thread_data *td, lg__smb_logon_lock_t *lk)
{
    char why[PATH_MAX] = "";
    struct stat st;
    lk->wave = lk->busy = -1;
    int dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fstat(dfd, &st) < 0)
        snprintf(why, sizeof why, "%s", strerror(errno));
    else if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
        snprintf(why, sizeof why, "the working folder is not this user's alone");
    else if ((lk->wave = s_lock_file(dfd, S_LOCK_NAME, why, sizeof why)) >= 0 &&
             (lk->busy = s_lock_file(dfd, S_BUSY_NAME, why, sizeof why)) >= 0 &&
             flock(lk->busy, LOCK_SH) <
                 0) /* only ever held shared, or exclusively for an instant */
        snprintf(why, sizeof why, "flock: %s", strerror(errno));
    if (dfd >= 0)
        close(dfd);
    if (why[0]) {
        lg__smb_logon_lock_close(lk);
        if (td->subjob_number == 0)
            log_err("lgsmb: SMB logons are bounded per job only, not across this fio run's jobs: "
                    "no lock in the working folder (%s)\n",
                    why);
    }
}

void lg__smb_logon_lock_close(lg__smb_logon_lock_t *lk)
{
    if (lk->wave >= 0)
        close(lk->wave);
    if (lk->busy >= 0)
        close(lk->busy);
    lk->wave = lk->busy = -1;
}

/* s_pause: sleep ms (<= 1000) in slices, answering fio's status thread. */
static void s_pause(struct thread_data *td, int64_t ms)
{
    for (;;) {
        lg__fio_answer_status(td);
        if (ms <= 0)
            return;
        int64_t d = ms < S_SLICE_MS ? ms : S_SLICE_MS;
        struct timespec ts = {0, (long)d * 1000000L};
        nanosleep(&ts, NULL);
        ms -= d;
    }
}

int lg__smb_logon_lock_take(struct thread_data *td, lg__smb_logon_lock_t *lk, int64_t deadline)
{
    for (;;) {
        if (flock(lk->wave, LOCK_EX | LOCK_NB) == 0)
            return 1;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return 0;
        if (td->terminate)
            return -EINTR;
        int64_t left = deadline - lg__smb_now_ms();
        if (left <= 0)
            return -ETIMEDOUT;
        s_pause(td, left < S_SLICE_MS ? left : S_SLICE_MS);
    }
}

void lg__smb_logon_lock_give(struct thread_data *td, lg__smb_logon_lock_t *lk)
{
    if (lk->wave < 0)
        return;
    flock(lk->wave, LOCK_UN);
    s_pause(td, S_GIVE_PAUSE_MS);
}

void lg__smb_logon_together(struct thread_data *td, lg__smb_logon_lock_t *lk, int64_t deadline)
{
    if (lk->busy < 0)
        return;
    flock(lk->busy, LOCK_UN);
    while (!td->terminate && lg__smb_now_ms() < deadline) {
        if (flock(lk->busy, LOCK_EX | LOCK_NB) == 0) {
            flock(lk->busy, LOCK_UN);
            return;
        }
        if (errno != EWOULDBLOCK && errno != EINTR)
            return;
        s_pause(td, S_SLICE_MS);
    }
}

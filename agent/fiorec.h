/* fiorec.h: the record of a running fio kept in the agent's work folder (the folder stays across
 * restarts), so that an agent killed mid-run is followed by one that ends what is left of its
 * fio: the hold stage dies with the agent (PR_SET_PDEATHSIG), but the job processes fio forked do
 * not (each in a session of its own), and would go on writing next to the next run's fio. The
 * functions are POSIX (Linux /proc) only; the type is seen on Windows too (run_t holds it). */
#ifndef LG_FIOREC_H
#define LG_FIOREC_H

#include <stddef.h>
#include <stdint.h>

#include "apprec.h"

/* How long lg_fiorec_clean waits, at the agent's start, for a killed group to be gone. */
#define LG_FIOREC_KILL_MS 5000
#define LG_FIOREC_MAX_BYTES 4096

typedef struct {
    uint64_t run_id;
    int pgid;       /* fio's process group: the hold stage's (fio's) pid, made by setsid */
    uint64_t start; /* that pid's start time (/proc/PID/stat field 22; kept across exec) */
    char boot[40];  /* the kernel's boot_id when written: after a reboot nothing of it runs */
    char job[LG_APPREC_PATH]; /* the job file: on the command line of fio and its jobs */
} lg_fiorec_t;

/* The record's text into buf. Returns its length, LG_ETOOBIG, or LG_EPARSE for a field the
 * parser would not take back. */
int lg_fiorec_format(const lg_fiorec_t *rec, char *buf, size_t len);
/* Read a record's text (len bytes). Returns 0, or LG_EPARSE with err naming what is wrong. */
int lg_fiorec_parse(const char *text, size_t len, lg_fiorec_t *out, char *err, size_t errlen);

/* Write the record of run_id's fio, process group pgid (it leads it) reading job, in dir (a
 * folder lg_owndir accepted): made anew (O_CREAT|O_EXCL|O_NOFOLLOW, 0600) and fsynced. Returns 0;
 * -ESRCH when pgid is gone already (nothing written, nothing to record); or a negative errno with
 * err saying why. The record goes to out too (lg_fiorec_kill ends its fio). */
int lg_fiorec_create(const char *dir, uint64_t run_id, int pgid, const char *job, lg_fiorec_t *out,
                     char *err, size_t errlen);
/* Remove run_id's record from dir. Returns 0 (also when it is not there) or a negative errno. */
int lg_fiorec_remove(const char *dir, uint64_t run_id);

/* How many live processes are provably rec's fio's: its leader (pid rec->pgid started at
 * rec->start), and processes started after it with rec->job on their command line that are in
 * its group or lead a session of their own (fio's job processes call setsid, so a kill of fio's
 * group does not reach them). Zombies do not count. */
int lg_fiorec_alive(const lg_fiorec_t *rec);
/* SIGKILL to each of those (to the process group it leads, if it does). Returns how many. */
int lg_fiorec_kill(const lg_fiorec_t *rec);

/* For every record in dir: a group still alive gets SIGKILL, and is waited for up to wait_ms;
 * each is logged ("killed the fio (pgid N) that a previous agent left running for run R"). A
 * record is removed once nothing of its group runs; one whose group could not be ended stays.
 * Returns how many groups are still alive (0: none). */
int lg_fiorec_clean(const char *dir, unsigned wait_ms);

#endif

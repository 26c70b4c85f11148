/* smbpark.h: lgsmb's parked sessions. A sweep runs run after run against the same share, and a
 * job at iodepth N logs N sessions on (smbpool.c), 512 for 16T16Q from two agents, which took 10
 * to 35 s of every run's Prepare. So, when lg-agent asks for it (LG_SMB_PARK in fio's
 * environment), a job that ends well parks its workers instead of logging them off: each waits,
 * logged on, on a socket of its own in the agent's park folder, named by a key of what its session
 * depends on; the next job with the same key adopts it (one round trip instead of a logon) and
 * forks and logs on only the workers it did not find. A parked worker ends with the agent (it
 * watches the agent's pidfd) and after the idle time the agent gave. Internal to lgsmb.so. */
#ifndef LG_ENGINE_SMBPARK_H
#define LG_ENGINE_SMBPARK_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "fio_engine.h"

/* "IDLE_S:AGENT_PID:AGENT_START:DIR", set by lg-agent for the fio of a run (agent_gate.c):
 * parked sessions log off after IDLE_S unused, and end with the agent AGENT_PID (started at
 * AGENT_START, field 22 of /proc/PID/stat, so that a PID used again is not taken for it); DIR is
 * the agent's park folder, its own (0700). */
#define LG__SMB_PARK_ENV LG_SMBPARK_ENV /* fiogate.h */
#define LG__SMB_KEY_LEN 32              /* a SHA-256 */

typedef struct {
    unsigned idle_s;
    int agent_pid;
    uint64_t agent_start;
    char dir[PATH_MAX];
    uint8_t key[LG__SMB_KEY_LEN]; /* what the job's sessions depend on */
    char prefix[40];              /* "p-" and the key's first bytes in hex, "-": parked names */
} lg__smb_park_t;

/* The park of td's job from LG_SMB_PARK, with the key of its sessions: the engine's park
 * protocol, the credentials (user, domain, password), the lowest dialect, and the server and
 * share of each of td's files. Returns 1 with *pk set; 0 when fio was not asked to park (not
 * under lg-agent, or the agent keeps no sessions); or a negative errno value with err saying why
 * (the job then goes on without parking). */
int lg__smb_park_init(struct thread_data *td, lg__smb_park_t *pk, char *err, size_t errlen);

/* What a job hands each worker it adopts. */
typedef struct {
    uint32_t index;   /* the worker's index in the job's pool */
    int memfd;        /* the pool's slots (sealed against shrinking), slot_size each */
    size_t slot_size; /* a multiple of the page size */
    int done_wr;      /* the write end of the pool's completion pipe */
    unsigned nfiles;  /* the job's files */
} lg__smb_adopt_t;

/* A worker the job adopted: not its child, so its end shows on sock (EOF) and pidfd. */
typedef struct {
    int sock;  /* requests to it (SOCK_SEQPACKET, close-on-exec) */
    int pidfd; /* the worker's own, from it: readable once it has exited */
    int pid;
} lg__smb_adopted_t;

/* Job side: up to want parked workers of pk's key, each claimed (its name renamed, so that no
 * other job takes it), checked (its user is ours) and handed a (a->index counting up from the
 * first) into out[]. Answers fio's status thread meanwhile. Returns how many (0 when none is
 * parked, or the park folder is not there or not ours alone). The caller owns out[k].sock and
 * .pidfd. */
unsigned lg__smb_park_adopt(struct thread_data *td, const lg__smb_park_t *pk,
                            const lg__smb_adopt_t *a, lg__smb_adopted_t *out, unsigned want);

/* Worker side: a pidfd on pk's agent, checked to be that agent (its start time); -ESRCH when it is
 * gone, another negative errno when there is none to be had (no pidfd_open: no parking). */
int lg__smb_park_watch(const lg__smb_park_t *pk);

/* The job a worker serves: where its requests come from, where its data and results go. */
typedef struct {
    int sock;         /* the job's requests */
    int done_wr;      /* the job's completion pipe: the worker writes index there */
    uint32_t index;   /* the worker's index in the job's pool */
    void *slot;       /* its slot: the head (smbworker.h), then the data */
    size_t slot_size; /* a multiple of the page size */
    void *map;        /* the mapping that holds the slot, unmapped when the job is done */
    size_t map_len;
    unsigned nfiles; /* the job's files (a request's fileno is below) */
} lg__smb_job_t;

/* Worker side, parked: publish a socket under pk's key in the park folder and wait for a job to
 * adopt this worker, until pk->idle_s pass unadopted or the agent (agent_fd, from
 * lg__smb_park_watch) ends. Returns 0 with *job set (the worker serves it), or a negative errno
 * value: the worker logs off and exits (-ETIMEDOUT: the idle time; -ESRCH: the agent ended). */
int lg__smb_park_wait(const lg__smb_park_t *pk, int agent_fd, lg__smb_job_t *job);

#endif

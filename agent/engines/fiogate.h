/* fiogate.h: the start gate between lg-agent and the jobs of its engines (lgsmb, lgiscsi), whose
 * logins take seconds. The agent starts fio at Prepare with LG_FIO_GATE naming a gate file in
 * the run's folder; each job logs in, says it is ready (a file of its own beside the gate), and
 * waits for the gate to appear with the agreed instant, sleeping until it. Plain libc, compiled
 * into each engine module and into lg-agent (POSIX). Functions return 0 or a negative errno. */
#ifndef LG_ENGINE_FIOGATE_H
#define LG_ENGINE_FIOGATE_H

#include <stddef.h>
#include <stdint.h>

#define LG_FIOGATE_ENV "LG_FIO_GATE"
/* Beside it for an smb:// run, when lg-agent keeps SMB sessions between runs (--smb-keep-sessions):
 * "IDLE_S:AGENT_PID:AGENT_START:DIR", read by lgsmb (engines/smbpark.h). */
#define LG_SMBPARK_ENV "LG_SMB_PARK"
/* A job that is ready creates "<gate>.ready.<job number>"; one whose logins failed
 * "<gate>.failed.<job number>", holding its error, so that the agent need not wait for the others
 * (fio waits for every job, and those that are ready wait for the gate). */
#define LG_FIOGATE_READY ".ready."
#define LG_FIOGATE_FAILED ".failed."
/* A job's first I/O: "<gate>.first.<job number>" holds the instant it was queued (local
 * CLOCK_REALTIME, microseconds, as text), so the agent can say when its I/O really began. */
#define LG_FIOGATE_FIRST ".first."
/* The ramp's mark: "<gate>.mark.<job number>" holds the instant (local CLOCK_REALTIME,
 * microseconds) a job asked fio for a report a second past the ramp's planned end. */
#define LG_FIOGATE_MARK ".mark."
/* What the gate holds instead of an instant when the run was called off before its start. */
#define LG_FIOGATE_OFF "off"
/* How long a ready job waits for the gate: past the controller's prepare budget for any target
 * lg runs against, so it ends only a job whose agent and fio vanished without telling it. */
#define LG_FIOGATE_WAIT_S 3600
/* How often a job looks at the gate, and answers fio's status thread, while it waits. */
#define LG_FIOGATE_POLL_MS 10

/* Called every LG_FIOGATE_POLL_MS while a job waits; nonzero ends the wait (fio is ending). */
typedef int (*lg_fiogate_tick_fn)(void *arg);

/* The engine's side: say that job (its fio job number) is ready, wait for gate and sleep until
 * the instant it holds (local CLOCK_REALTIME, microseconds), calling tick meanwhile. On success
 * *at_us is the instant. Fails with err set: -ECANCELED when the run was called off, fio ends
 * the job or the job's parent (fio) is gone; -ETIMEDOUT after LG_FIOGATE_WAIT_S; another
 * negative errno when the ready file cannot be made or the gate read. */
int lg_fiogate_pass(const char *gate, unsigned job, lg_fiogate_tick_fn tick, void *arg,
                    int64_t *at_us, char *err, size_t errlen);

/* The engine's side: job queued its first I/O at at_us. Best effort (written whole, then named). */
void lg_fiogate_first_io(const char *gate, unsigned job, int64_t at_us);
/* The agent's side: the earliest first I/O its jobs wrote beside gate; 0 when none did. */
int64_t lg_fiogate_first(const char *gate);

/* The engine's side: job asked fio for a report at at_us (the ramp's mark). Best effort. */
void lg_fiogate_mark(const char *gate, unsigned job, int64_t at_us);
/* The agent's side: when a job asked for that report; 0 when none did. */
int64_t lg_fiogate_marked(const char *gate);

/* The engine's side of a job that failed before it passed the gate (its ->cleanup, which fio
 * calls after a failed ->init too): why, for the agent. Best effort. */
void lg_fiogate_fail(const char *gate, unsigned job, const char *why);

/* The gate's text: 0 with *at_us set for an instant, 1 for "called off", -EBADMSG for anything
 * else. */
int lg_fiogate_parse(const char *text, size_t len, int64_t *at_us);

/* The agent's side: open the gate with at_us (> 0), or with "called off" (at_us <= 0), at once
 * for every job: the text goes to "<gate>.tmp", made O_EXCL|O_NOFOLLOW in the agent's own run
 * folder, which is then renamed to gate. err says why it failed. */
int lg_fiogate_open(const char *gate, int64_t at_us, char *err, size_t errlen);
/* How many jobs said they are ready (their files beside gate). Returns the count or a negative
 * errno (the folder cannot be read). */
int lg_fiogate_ready(const char *gate);
/* Whether a job failed before the gate: 1 with its error in why, else 0. */
int lg_fiogate_failed(const char *gate, char *why, size_t whylen);
/* Remove the gate, its temporary file and every ready file (a run's folder used again). */
void lg_fiogate_remove(const char *gate);

#endif

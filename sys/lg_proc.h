/* lg_proc.h: child processes for lgctl (a CLI, no loop running): running PostgreSQL's tools to
 * their end (through lg_child, on a loop of its own), and starting and stopping the local-mode
 * controller and agent by PID (fork/exec and waitpid: they outlive every call, polled between
 * lgctl's blocking database calls). */
#ifndef LG_PROC_H
#define LG_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Run argv to completion; its stdout and stderr (merged) go into out (truncated to outlen, may
 * be NULL). Returns the exit status (0..255), 128+signal, or -errno if it could not start. */
int lg_proc_run_blocking(char *const argv[], char *out, size_t outlen);
/* Start argv in the background with stdout and stderr appended to logpath (or inherited when
 * NULL) and env as its whole environment (NULL: ours; lg_child_env makes one): a secret goes
 * there, never in argv, which every user of the host can read. Returns the PID or -errno. */
pid_t lg_proc_spawn(char *const argv[], char *const env[], const char *logpath);
/* SIGTERM, wait up to timeout_ms, then SIGKILL. Returns the exit status as
 * lg_proc_run_blocking. */
int lg_proc_stop(pid_t pid, int timeout_ms);
/* Has pid exited? Reaps it and stores its status in *status if so. */
int lg_proc_exited(pid_t pid, int *status);

#endif

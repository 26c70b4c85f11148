/* lg_proc.c: child processes for a CLI: a tool run to its end (on lg_child, a loop of its own),
 * and daemons started by fork/exec and stopped by PID only, never by name. */
#include "lg_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lg_child.h"

static int s_status(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 255;
}

/* Could uv_spawn's error have come from the exec, once forked? (The fork/exec helper it replaces
 * reported those as the child's: exit 127 and a message in its output.) */
static int s_exec_error(int e)
{
    return e == ENOENT || e == EACCES || e == ENOEXEC || e == ENOTDIR || e == ELOOP ||
           e == ENAMETOOLONG || e == EPERM || e == ETXTBSY;
}

int lg_proc_run_blocking(char *const argv[], char *out, size_t outlen)
{
    lg_child_opts_t o;
    memset(&o, 0, sizeof o);
    o.argv = (char **)argv; /* looked up in PATH, as execvp does */
    o.out = LG_CHILD_MERGE;
    lg_child_status_t st;
    int rc = lg_child_run(&o, out, outlen, &st);
    if (rc) {
        if (!s_exec_error(-rc))
            return rc;
        if (out && outlen)
            snprintf(out, outlen, "could not run \"%s\": %s\n", argv[0], strerror(-rc));
        return 127;
    }
    if (!st.exited)
        return 255;
    return st.term_signal ? 128 + st.term_signal : (int)(st.status & 0xff);
}

extern char **environ;

pid_t lg_proc_spawn(char *const argv[], char *const env[], const char *logpath)
{
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        if (logpath) {
            int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
                close(fd);
            }
        }
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        if (env)
            environ = (char **)env; /* what execvp passes on: no allocation after fork */
        execvp(argv[0], argv);
        fprintf(stderr, "could not run \"%s\": %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

int lg_proc_exited(pid_t pid, int *status)
{
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) {
        if (status)
            *status = s_status(st);
        return 1;
    }
    return r < 0; /* not our child any more: treat as gone */
}

int lg_proc_stop(pid_t pid, int timeout_ms)
{
    int st = 0;
    if (lg_proc_exited(pid, &st))
        return st;
    kill(pid, SIGTERM);
    for (int waited = 0; waited < timeout_ms; waited += 20) {
        struct timespec ts = {0, 20 * 1000000};
        nanosleep(&ts, NULL);
        if (lg_proc_exited(pid, &st))
            return st;
    }
    kill(pid, SIGKILL);
    if (waitpid(pid, &st, 0) == pid)
        return s_status(st);
    return 255;
}

/* lg_proc.c: fork/exec helpers. Children are stopped by PID only, never by name. */
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

static int s_status(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 255;
}

int lg_proc_run_blocking(char *const argv[], char *out, size_t outlen)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return -e;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        execvp(argv[0], argv);
        fprintf(stderr, "could not run \"%s\": %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    char buf[4096];
    ssize_t r;
    while ((r = read(fds[0], buf, sizeof buf)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (out && n + 1 < outlen) {
            size_t c = (size_t)r < outlen - 1 - n ? (size_t)r : outlen - 1 - n;
            memcpy(out + n, buf, c);
            n += c;
        }
    }
    if (out && outlen)
        out[n] = 0;
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return s_status(st);
}

pid_t lg_proc_spawn(char *const argv[], const char *logpath)
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

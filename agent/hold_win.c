/* hold_win.c: the hold stage on Windows. Windows has no exec, so the stage cannot become fio as
 * on Linux: it creates fio suspended (the process and its image mapped, its main thread not yet
 * run), resumes it at the instant, and then stays as fio's parent until fio exits, with fio's
 * exit code as its own. Its standard input is the agent's control pipe:
 *   agent -> stage: the instant (int64, local microseconds, > 0), or LG_HOLD_KILL at any time;
 *   stage -> agent: when it resumed fio (int64) and 0, or that time and -errno when fio could not
 *                   be created (16 bytes either way).
 * fio inherits the stage's stdout and stderr (the agent's pipes) but not the control pipe, so the
 * agent sees the pipe end exactly when the stage does. fio is put in a job object that ends it
 * when the stage's handles close, whatever ends the stage. */
#include "fiorun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "lg_util.h"

/* A command line that Windows' parsing rules (CommandLineToArgvW, the C runtime) split back into
 * exactly argv: quotes where needed, backslashes doubled only before a quote. */
static int s_append_arg(wchar_t *out, size_t cap, size_t *len, const wchar_t *a)
{
    size_t n = *len;
#define PUT(c)                                                                                     \
    do {                                                                                           \
        if (n + 1 >= cap)                                                                          \
            return -1;                                                                             \
        out[n++] = (c);                                                                            \
    } while (0)
    if (n)
        PUT(L' ');
    int quote = a[0] == 0 || wcspbrk(a, L" \t\n\v\"") != NULL;
    if (!quote) {
        for (const wchar_t *p = a; *p; p++)
            PUT(*p);
    } else {
        PUT(L'"');
        for (const wchar_t *p = a;; p++) {
            size_t bs = 0;
            while (*p == L'\\') {
                bs++;
                p++;
            }
            if (*p == 0) { /* before the closing quote: every backslash doubled */
                for (size_t i = 0; i < 2 * bs; i++)
                    PUT(L'\\');
                break;
            }
            for (size_t i = 0; i < (*p == L'"' ? 2 * bs + 1 : bs); i++)
                PUT(L'\\');
            PUT(*p);
        }
        PUT(L'"');
    }
#undef PUT
    out[n] = 0;
    *len = n;
    return 0;
}

static wchar_t *s_wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w && MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n) != n) {
        free(w);
        w = NULL;
    }
    return w;
}

static int s_errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
        return EACCES;
    case ERROR_BAD_EXE_FORMAT:
        return ENOEXEC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    default:
        return EIO;
    }
}

static int s_io_full(HANDLE h, void *buf, DWORD len, int wr)
{
    DWORD done = 0;
    while (done < len) {
        DWORD n = 0;
        BOOL ok = wr ? WriteFile(h, (char *)buf + done, len - done, &n, NULL)
                     : ReadFile(h, (char *)buf + done, len - done, &n, NULL);
        if (!ok || n == 0)
            return -1;
        done += n;
    }
    return 0;
}

/* Create argv[0] suspended, with the stage's stdout and stderr and NUL as its input, in a job
 * that ends it with the stage. Returns 0 or an errno. */
static int s_create(char **argv, PROCESS_INFORMATION *pi, HANDLE *job)
{
    size_t cap = 32768, len = 0; /* CreateProcess's own limit on a command line */
    wchar_t *cmd = calloc(cap, sizeof *cmd);
    wchar_t *app = s_wide(argv[0]);
    int e = cmd && app ? 0 : ENOMEM;
    for (size_t i = 0; !e && argv[i]; i++) {
        wchar_t *w = s_wide(argv[i]);
        e = !w ? ENOMEM : s_append_arg(cmd, cap, &len, w) ? E2BIG : 0;
        free(w);
    }
    HANDLE nul = INVALID_HANDLE_VALUE;
    if (!e) {
        SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
        nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                          OPEN_EXISTING, 0, NULL);
        HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE), err = GetStdHandle(STD_ERROR_HANDLE);
        SetHandleInformation(out, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
        SetHandleInformation(err, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
        /* The control pipe stays ours: its end must mean the stage's end. */
        SetHandleInformation(GetStdHandle(STD_INPUT_HANDLE), HANDLE_FLAG_INHERIT, 0);
        STARTUPINFOW si;
        memset(&si, 0, sizeof si);
        si.cb = sizeof si;
        si.dwFlags = STARTF_USESTDHANDLES;
        si.hStdInput = nul;
        si.hStdOutput = out;
        si.hStdError = err;
        if (!CreateProcessW(app, cmd, NULL, NULL, TRUE,
                            CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT, NULL, NULL, &si, pi))
            e = s_errno_of(GetLastError());
    }
    if (nul != INVALID_HANDLE_VALUE)
        CloseHandle(nul);
    free(cmd);
    free(app);
    if (e)
        return e;
    /* Best effort (a job inside the agent's own job needs Windows 8): without it, a stage that
     * is killed leaves fio to the agent's job, which ends it with the agent. */
    *job = CreateJobObjectW(NULL, NULL);
    if (*job) {
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
        memset(&li, 0, sizeof li);
        li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        if (!SetInformationJobObject(*job, JobObjectExtendedLimitInformation, &li, sizeof li) ||
            !AssignProcessToJobObject(*job, pi->hProcess)) {
            CloseHandle(*job);
            *job = NULL;
        }
    }
    return 0;
}

/* Sleep until at (local microseconds): coarsely to 20 ms before, then by yielding, since Sleep
 * wakes on the system timer's tick (up to 15.6 ms late on Windows, a few ms under wine). */
static void s_sleep_until(int64_t at)
{
    for (;;) {
        int64_t left = at - lg_now_us();
        if (left <= 0)
            return;
        if (left > 20000)
            Sleep((DWORD)((left - 20000) / 1000));
        else
            SwitchToThread();
    }
}

/* After the instant: wait for fio, and end it when the agent asks or goes away. */
static DWORD s_wait(HANDLE in, HANDLE proc)
{
    for (;;) {
        if (WaitForSingleObject(proc, 50) == WAIT_OBJECT_0)
            break;
        DWORD avail = 0;
        if (!PeekNamedPipe(in, NULL, 0, NULL, &avail, NULL)) {
            TerminateProcess(proc, 1); /* the agent is gone */
            WaitForSingleObject(proc, INFINITE);
            break;
        }
        int64_t v;
        if (avail >= sizeof v && s_io_full(in, &v, sizeof v, 0) == 0 && v == LG_HOLD_KILL) {
            TerminateProcess(proc, 1);
            WaitForSingleObject(proc, INFINITE);
            break;
        }
    }
    DWORD code = 1;
    GetExitCodeProcess(proc, &code);
    return code;
}

int lg_fiorun_hold_main_win(char **argv)
{
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
    PROCESS_INFORMATION pi;
    memset(&pi, 0, sizeof pi);
    HANDLE job = NULL;
    int e = s_create(argv, &pi, &job);
    int64_t at;
    if (s_io_full(in, &at, sizeof at, 0) != 0 || at <= 0) {
        /* Called off (LG_HOLD_KILL or the pipe's end): fio never ran a line of its own. */
        if (!e)
            TerminateProcess(pi.hProcess, 1);
        return 0;
    }
    s_sleep_until(at);
    if (!e && ResumeThread(pi.hThread) == (DWORD)-1) {
        e = s_errno_of(GetLastError());
        TerminateProcess(pi.hProcess, 1);
    }
    int64_t msg[2] = {lg_now_us(), -(int64_t)e};
    if (s_io_full(in, msg, sizeof msg, 1) != 0 && !e) {
        TerminateProcess(pi.hProcess, 1);
        return 0;
    }
    if (e) {
        fprintf(stderr, "could not start \"%s\": %s\n", argv[0], strerror(e));
        return 127;
    }
    CloseHandle(pi.hThread);
    DWORD code = s_wait(in, pi.hProcess);
    CloseHandle(pi.hProcess);
    if (job)
        CloseHandle(job);
    return (int)code;
}

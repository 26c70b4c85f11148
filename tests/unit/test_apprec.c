/* test_apprec.c: the record of an application run (apprec.h): its text read back as written,
 * every malformed form refused, the file made anew only; and the clean-up after a killed agent
 * (appclean.h) on stand-in processes: the recorded "server" stopped, a recorded client killed,
 * a PID whose start time or program does not match left alone, and only the folders lg made
 * removed. */
/* cmocka.h needs these before it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "appclean.h"
#include "apprec.h"
#include "lg_app.h"
#include "lg_error.h"
#include "lg_owndir.h"
#include "lg_util.h"

static char s_dir[64];

static lg_apprec_t s_rec(void)
{
    lg_apprec_t r;
    memset(&r, 0, sizeof r);
    r.kind = LG_APP_PGBENCH;
    r.run_id = 42;
    r.keep = 0;
    r.uid = 65534;
    lg_strlcpy(r.boot, "2ca402f3-41e5-40e3-9089-bdb510ea27d2", sizeof r.boot);
    lg_strlcpy(r.server, "/usr/lib/postgresql/15/bin/postgres", sizeof r.server);
    lg_strlcpy(r.data, "/mnt/nas share/lg-pgbench-42-h1", sizeof r.data);
    r.data_dev = 2049;
    r.data_ino = 123456;
    lg_strlcpy(r.sock, "/tmp/lg-app-AbC123", sizeof r.sock);
    r.sock_dev = 17;
    r.sock_ino = 99;
    return r;
}

static int s_parse(const char *text, lg_apprec_t *out)
{
    char err[256];
    return lg_apprec_parse(text, strlen(text), out, err, sizeof err);
}

static void test_roundtrip(void **state)
{
    (void)state;
    lg_apprec_t r = s_rec(), back;
    char text[4096];
    int n = lg_apprec_format(&r, text, sizeof text);
    assert_true(n > 0);
    assert_int_equal(s_parse(text, &back), 0);
    assert_int_equal(back.kind, LG_APP_PGBENCH);
    assert_int_equal(back.run_id, 42);
    assert_int_equal(back.uid, 65534);
    assert_string_equal(back.boot, r.boot);
    assert_string_equal(back.server, r.server);
    assert_string_equal(back.data, r.data); /* a space in a path is kept */
    assert_int_equal(back.data_dev, 2049);
    assert_int_equal(back.data_ino, 123456);
    assert_string_equal(back.sock, r.sock);
    assert_int_equal(back.sock_ino, 99);
    assert_int_equal(back.nprocs, 0);
    /* processes appended, the last one cut short by a crash */
    lg_strlcpy(text + n, "proc 100 5000\nserver-proc 101 5001\nproc 102 50", sizeof text - n);
    assert_int_equal(s_parse(text, &back), 0);
    assert_int_equal(back.nprocs, 2);
    assert_int_equal(back.procs[0].pid, 100);
    assert_int_equal(back.procs[0].start, 5000);
    assert_int_equal(back.procs[0].server, 0);
    assert_int_equal(back.procs[1].pid, 101);
    assert_int_equal(back.procs[1].server, 1);
    /* more processes than kept: the newest kept, the record still read */
    size_t len = strlen(text);
    for (int i = 0; i < LG_APPREC_MAX_PROCS + 8; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "\nproc %d 7", 200 + i);
    lg_strlcpy(text + len, "\n", sizeof text - len);
    assert_int_equal(s_parse(text, &back), 0);
    assert_int_equal(back.nprocs, LG_APPREC_MAX_PROCS);
    assert_int_equal(back.procs[LG_APPREC_MAX_PROCS - 1].pid, 200 + LG_APPREC_MAX_PROCS + 7);
    r.kind = LG_APP_SYSBENCH_OLTP;
    r.keep = 1;
    assert_true(lg_apprec_format(&r, text, sizeof text) > 0);
    assert_int_equal(s_parse(text, &back), 0);
    assert_int_equal(back.kind, LG_APP_SYSBENCH_OLTP);
    assert_int_equal(back.keep, 1);
    assert_int_equal(lg_apprec_format(&r, text, 40), LG_ETOOBIG);
}

/* The record's text with line `line` (1-based) replaced by repl (NULL: removed). */
static int s_parse_with(int line, const char *repl)
{
    lg_apprec_t r = s_rec(), back;
    char text[4096], out[4096];
    lg_apprec_format(&r, text, sizeof text);
    size_t o = 0;
    int ln = 1;
    for (char *p = text, *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1, ln++) {
        if (ln != line)
            o += (size_t)snprintf(out + o, sizeof out - o, "%.*s\n", (int)(nl - p), p);
        else if (repl)
            o += (size_t)snprintf(out + o, sizeof out - o, "%s\n", repl);
    }
    if (line >= ln && repl) /* after the last line: appended */
        snprintf(out + o, sizeof out - o, "%s\n", repl);
    return s_parse(out, &back);
}

static void test_malformed(void **state)
{
    (void)state;
    assert_int_equal(s_parse_with(0, NULL), 0); /* as written */
    const struct {
        int line;
        const char *repl;
    } bad[] = {
        {1, "lg-app-record 2"},
        {1, NULL},
        {2, "kind fio"},
        {2, NULL},
        {3, "run 12x"},
        {3, "run -1"},
        {4, "keep 2"},
        {5, "uid 4294967296"},
        {6, "boot 2CA402F3-41E5-40E3-9089-BDB510EA27D2"},
        {6, "boot 2ca402f3-41e5-40e3-9089-bdb510ea27d"},
        {6, "boot 2ca402f341e5-40e3-9089-bdb510ea27d2-"},
        {6, NULL},
        {7, "server bin/postgres"},
        {7, "server /usr/lib/../bin/postgres"},
        {8, "data 1 2 /mnt/share/pgdata"}, /* not a folder lg names lg-... */
        {8, "data 1 2 /mnt/../etc/lg-x"},
        {8, "data 1 2 /mnt/share/lg-x/"},
        {8, "data 1 0 /mnt/share/lg-x"}, /* no inode 0 */
        {8, "data 1 /mnt/share/lg-x"},
        {9, "sock 1 2 /var/tmp/lg-app-AbC123"},
        {9, "sock 1 2 /tmp/lg-app-"},
        {9, "sock 1 2 /tmp/lg-app-x/y"},
        {9, "sock 1 2 /tmp/lg-app-x/../../etc"},
        {9, NULL},
        {10, "server-proc 1 5"}, /* never PID 1 */
        {10, "proc 12 0"},
        {10, "proc 12"},
        {10, "children 12 5"},
        {10, "nospace"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = s_parse_with(bad[i].line, bad[i].repl);
        if (rc != LG_EPARSE)
            fprintf(stderr, "accepted: line %d \"%s\"\n", bad[i].line,
                    bad[i].repl ? bad[i].repl : "(none)");
        assert_int_equal(rc, LG_EPARSE);
    }
    lg_apprec_t back;
    char err[256];
    assert_int_equal(
        lg_apprec_parse("lg-app-record 1\nkind pg\0bench\n", 30, &back, err, sizeof err),
        LG_EPARSE);
    char *big = calloc(1, LG_APPREC_MAX_BYTES + 2);
    memset(big, 'x', LG_APPREC_MAX_BYTES + 1);
    assert_int_equal(lg_apprec_parse(big, LG_APPREC_MAX_BYTES + 1, &back, err, sizeof err),
                     LG_EPARSE);
    free(big);
    /* a path the parser would refuse is never written */
    lg_apprec_t r = s_rec();
    char text[4096];
    lg_strlcpy(r.data, "/mnt/x\nkeep 1/lg-y", sizeof r.data);
    assert_int_equal(lg_apprec_format(&r, text, sizeof text), LG_EPARSE);
}

static void test_file(void **state)
{
    (void)state;
    char work[128], err[512], path[256], name[64];
    snprintf(work, sizeof work, "%s/file", s_dir);
    assert_int_equal(mkdir(work, 0700), 0);
    lg_apprec_t r = s_rec();
    int fd = -1, fd2 = -1;
    assert_int_equal(lg_apprec_create(work, &r, &fd, err, sizeof err), 0);
    assert_int_equal(lg_apprec_add_proc(fd, (int)getpid(), 0), 0);
    assert_int_equal(lg_apprec_add_proc(fd, INT32_MAX - 1, 1), -ESRCH); /* no such process */
    /* made anew only: a second one of the run is refused and the first one stays */
    assert_int_equal(lg_apprec_create(work, &r, &fd2, err, sizeof err), -EEXIST);
    assert_non_null(strstr(err, "left by an earlier agent"));
    close(fd);
    lg_apprec_name(r.run_id, name, sizeof name);
    assert_string_equal(name, "app-42.rec");
    snprintf(path, sizeof path, "%s/%s", work, name);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(lg_read_file(path, LG_APPREC_MAX_BYTES, &text, &len), 0);
    lg_apprec_t back;
    assert_int_equal(lg_apprec_parse(text, len, &back, err, sizeof err), 0);
    free(text);
    assert_int_equal(back.nprocs, 1);
    assert_int_equal(back.procs[0].pid, (int)getpid());
    assert_int_equal(back.procs[0].start, lg_apprec_starttime((int)getpid(), NULL));
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(lg_apprec_remove(work, r.run_id), 0);
    assert_int_equal(lstat(path, &st), -1);
    assert_int_equal(lg_apprec_remove(work, r.run_id), 0); /* gone already */
    /* a link planted in its place is not followed */
    assert_int_equal(symlink("/etc/passwd", path), 0);
    assert_int_equal(lg_apprec_create(work, &r, &fd2, err, sizeof err), -EEXIST);
    unlink(path);
}

/* A stand-in process: sleep 30 in dir. */
static pid_t s_sleeper(const char *dir)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    /* until it is sleep (its start time is set at fork; its program at exec) */
    char link[64], exe[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
    for (int i = 0; i < 200; i++) {
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n > 0 && (exe[n] = 0, strstr(exe, "sleep")))
            break;
        usleep(10000);
    }
    return pid;
}

static int s_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

static void test_clean(void **state)
{
    (void)state;
    char work[128], data[128], sock[] = "/tmp/lg-app-XXXXXX", path[256], err[512];
    snprintf(work, sizeof work, "%s/work", s_dir);
    snprintf(data, sizeof data, "%s/lg-sysbench-7-h1", s_dir);
    assert_int_equal(mkdir(work, 0700), 0);
    assert_int_equal(mkdir(data, 0700), 0);
    assert_non_null(mkdtemp(sock));
    snprintf(path, sizeof path, "%s/sub", data);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/sub/f", data);
    close(open(path, O_CREAT | O_WRONLY, 0600));
    pid_t server = s_sleeper(data), client = s_sleeper(s_dir), other = s_sleeper(s_dir);
    /* the "server" is sleep, working in the data folder, as a real one works in its own */
    lg_apprec_t r;
    memset(&r, 0, sizeof r);
    r.kind = LG_APP_SYSBENCH_OLTP;
    r.run_id = 7;
    r.uid = (unsigned)geteuid();
    assert_int_equal(lg_apprec_boot_id(r.boot, sizeof r.boot), 0);
    char real[PATH_MAX];
    assert_non_null(realpath("/bin/sleep", real));
    lg_strlcpy(r.server, real, sizeof r.server);
    struct stat st;
    assert_int_equal(stat(data, &st), 0);
    lg_strlcpy(r.data, data, sizeof r.data);
    r.data_dev = (uint64_t)st.st_dev;
    r.data_ino = (uint64_t)st.st_ino;
    assert_int_equal(stat(sock, &st), 0);
    lg_strlcpy(r.sock, sock, sizeof r.sock);
    r.sock_dev = (uint64_t)st.st_dev;
    r.sock_ino = (uint64_t)st.st_ino;
    int fd;
    assert_int_equal(lg_apprec_create(work, &r, &fd, err, sizeof err), 0);
    assert_int_equal(lg_apprec_add_proc(fd, (int)client, 0), 0);
    assert_int_equal(lg_apprec_add_proc(fd, (int)server, 1), 0);
    /* "other" under its PID with another start time: as if the PID had been used again */
    char line[64];
    int n = snprintf(line, sizeof line, "proc %d %llu\n", (int)other,
                     (unsigned long long)lg_apprec_starttime((int)other, NULL) + 1);
    assert_int_equal(write(fd, line, (size_t)n), n);
    close(fd);
    /* and the server's pid file names it too: not the server (not in the data folder) */
    snprintf(path, sizeof path, "%s/mysqld.pid", sock);
    FILE *pf = lg_create_new_file(path, 0600); /* O_EXCL|O_NOFOLLOW, as lg writes files */
    assert_non_null(pf);
    fprintf(pf, "%d\n", (int)other);
    fclose(pf);

    assert_int_equal(lg_appclean_run(work), 1);
    int ws;
    assert_int_equal(waitpid(server, &ws, WNOHANG), server); /* stopped, gently */
    assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM);
    assert_int_equal(waitpid(client, &ws, WNOHANG), client);
    assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
    assert_int_equal(waitpid(other, &ws, WNOHANG), 0); /* left alone */
    kill(other, SIGKILL);
    waitpid(other, &ws, 0);
    assert_int_equal(stat(data, &st), -1);
    assert_int_equal(stat(sock, &st), -1);
    snprintf(path, sizeof path, "%s/app-7.rec", work);
    assert_int_equal(stat(path, &st), -1);

    /* A data folder that is no longer the one made (same name, another inode) stays; the
     * socket folder, gone already, is said to be; the record goes. */
    assert_int_equal(mkdir(data, 0700), 0);
    assert_int_equal(stat(data, &st), 0);
    r.data_ino = (uint64_t)st.st_ino ^ 1; /* the filesystem may have given it the old number */
    r.run_id = 8;
    assert_int_equal(lg_apprec_create(work, &r, &fd, err, sizeof err), 0);
    close(fd);
    assert_int_equal(lg_appclean_run(work), 1);
    assert_int_equal(stat(data, &st), 0);
    snprintf(path, sizeof path, "%s/app-8.rec", work);
    assert_int_equal(stat(path, &st), -1);
    /* A record of another boot: its PIDs are other processes now, even one whose start time
     * and program match (this "server", in the data folder, is left running); its folders go. */
    pid_t other_boot = s_sleeper(data);
    r.run_id = 10;
    lg_strlcpy(r.boot, "00000000-0000-0000-0000-000000000000", sizeof r.boot);
    assert_int_equal(stat(data, &st), 0);
    r.data_ino = (uint64_t)st.st_ino;
    assert_int_equal(lg_apprec_create(work, &r, &fd, err, sizeof err), 0);
    assert_int_equal(lg_apprec_add_proc(fd, (int)other_boot, 1), 0);
    close(fd);
    assert_int_equal(lg_appclean_run(work), 1);
    assert_int_equal(waitpid(other_boot, &ws, WNOHANG), 0);
    kill(other_boot, SIGKILL);
    waitpid(other_boot, &ws, 0);
    assert_int_equal(stat(data, &st), -1);
    /* Something that is not a record is left alone. */
    snprintf(path, sizeof path, "%s/app-9.rec", work);
    pf = lg_create_new_file(path, 0600);
    assert_non_null(pf);
    fprintf(pf, "hello\n");
    fclose(pf);
    assert_int_equal(lg_appclean_run(work), 1);
    assert_int_equal(stat(path, &st), 0);
}

static int s_setup(void **state)
{
    (void)state;
    lg_strlcpy(s_dir, "/tmp/lg-test-apprec-XXXXXX", sizeof s_dir);
    return mkdtemp(s_dir) ? 0 : -1;
}

static int s_teardown(void **state)
{
    (void)state;
    return nftw(s_dir, s_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_clean),
    };
    return cmocka_run_group_tests(tests, s_setup, s_teardown);
}

/* smbcopy: the baselines of tests/bench/engine_smb.sh, plain libsmbclient loops with the same
 * context API lgsmb uses.
 * write|read: one file sequentially in 128 KiB calls; prints "MB/s CPU-seconds": 10^6 bytes per
 * second and the CPU this process used, both over the data calls only (after the connection and
 * open, as fio times its I/O).
 * randread: N processes, each with its own context (its own connection and SMB session), read
 * 4 KiB blocks at random offsets of the first BYTES of the file for SECONDS; prints "IOPS", the
 * sum of each process's reads over its own time. Processes, not threads: Debian's libsmbclient
 * cannot run in two threads of a process at once (see agent/engines/lgsmb.c).
 * usage: smbcopy write|read smb://host[:port]/share/file BYTES CREDENTIALS_FILE
 *        smbcopy randread smb://host[:port]/share/file BYTES CREDENTIALS_FILE N SECONDS */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libsmbclient.h>

#define BLOCK (128 * 1024)

static char s_user[256], s_password[256], s_domain[256];

static void s_auth(SMBCCTX *ctx, const char *srv, const char *shr, char *wg, int wglen, char *un,
                   int unlen, char *pw, int pwlen)
{
    (void)ctx;
    (void)srv;
    (void)shr;
    if (s_domain[0])
        snprintf(wg, (size_t)wglen, "%s", s_domain);
    snprintf(un, (size_t)unlen, "%s", s_user);
    snprintf(pw, (size_t)pwlen, "%s", s_password);
}

/* s_read_creds: "username = U", "password = P", "domain = D" lines, as smbclient -A reads. */
static int s_read_creds(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "smbcopy: could not open \"%s\": %s\n", path, strerror(errno));
        return -1;
    }
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        char *k = line, *ke = eq, *v = eq + 1;
        while (*k == ' ' || *k == '\t')
            k++;
        while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
            ke--;
        *ke = 0;
        while (*v == ' ' || *v == '\t')
            v++;
        if (strcasecmp(k, "username") == 0)
            snprintf(s_user, sizeof s_user, "%s", v);
        else if (strcasecmp(k, "password") == 0)
            snprintf(s_password, sizeof s_password, "%s", v);
        else if (strcasecmp(k, "domain") == 0)
            snprintf(s_domain, sizeof s_domain, "%s", v);
    }
    fclose(f);
    return 0;
}

static double s_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static SMBCCTX *s_context(void)
{
    SMBCCTX *ctx = smbc_new_context();
    if (!ctx) {
        fprintf(stderr, "smbcopy: smbc_new_context: %s\n", strerror(errno));
        return NULL;
    }
    smbc_setFunctionAuthDataWithContext(ctx, s_auth);
    smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
    if (!smbc_init_context(ctx)) {
        fprintf(stderr, "smbcopy: smbc_init_context: %s\n", strerror(errno));
        smbc_free_context(ctx, 1);
        return NULL;
    }
    smbc_setOptionProtocols(ctx, "SMB2_02", "SMB3");
    return ctx;
}

#define RBLOCK 4096

/* s_rand_child: one reader: connect and open, say so on ready, wait for go to close, read for
 * secs, then write "reads seconds" to out. Returns the exit status. */
static int s_rand_child(const char *url, unsigned long long bytes, double secs, int ready, int go,
                        int out)
{
    SMBCCTX *ctx = s_context();
    if (!ctx)
        return 1;
    SMBCFILE *fh = smbc_getFunctionOpen(ctx)(ctx, url, O_RDONLY, 0);
    if (!fh) {
        fprintf(stderr, "smbcopy: could not open \"%s\": %s\n", url, strerror(errno));
        smbc_free_context(ctx, 1);
        return 1;
    }
    smbc_read_fn rd = smbc_getFunctionRead(ctx);
    smbc_lseek_fn sk = smbc_getFunctionLseek(ctx);
    static char buf[RBLOCK];
    uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull | 1, blocks = bytes / RBLOCK;
    char c = 'r';
    if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 0)
        return 1;
    unsigned long long n = 0;
    double t0 = s_clock(CLOCK_MONOTONIC), t;
    do {
        for (int k = 0; k < 64; k++) {
            x ^= x << 13; /* xorshift64 */
            x ^= x >> 7;
            x ^= x << 17;
            if (sk(ctx, fh, (off_t)((x % blocks) * RBLOCK), SEEK_SET) < 0 ||
                rd(ctx, fh, buf, RBLOCK) != RBLOCK) {
                fprintf(stderr, "smbcopy: read of \"%s\": %s\n", url, strerror(errno));
                return 1;
            }
            n++;
        }
        t = s_clock(CLOCK_MONOTONIC) - t0;
    } while (t < secs);
    char line[64];
    int len = snprintf(line, sizeof line, "%llu %.6f\n", n, t);
    if (write(out, line, (size_t)len) != len)
        return 1;
    smbc_getFunctionClose(ctx)(ctx, fh);
    smbc_free_context(ctx, 1);
    return 0;
}

/* s_randread: N readers (s_rand_child) that start together; prints the sum of their IOPS. */
static int s_randread(const char *url, unsigned long long bytes, int n, double secs)
{
    int ready[2], go[2], out[2];
    if (pipe(ready) || pipe(go) || pipe(out)) {
        fprintf(stderr, "smbcopy: pipe: %s\n", strerror(errno));
        return 1;
    }
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "smbcopy: fork: %s\n", strerror(errno));
            return 1;
        }
        if (pid == 0) {
            close(ready[0]);
            close(go[1]);
            close(out[0]);
            _exit(s_rand_child(url, bytes, secs, ready[1], go[0], out[1]));
        }
    }
    close(ready[1]);
    close(go[0]);
    close(out[1]);
    int up = 0;
    char c;
    while (up < n && read(ready[0], &c, 1) == 1)
        up++; /* every reader connected and opened: none is logging on while others read */
    close(go[1]);
    FILE *f = fdopen(out[0], "r");
    double iops = 0;
    unsigned long long reads;
    double t;
    int got = 0;
    while (f && fscanf(f, "%llu %lf", &reads, &t) == 2) {
        iops += (double)reads / t;
        got++;
    }
    int rc = 0, st;
    while (wait(&st) > 0)
        if (!WIFEXITED(st) || WEXITSTATUS(st))
            rc = 1;
    if (rc || up < n || got < n) {
        fprintf(stderr, "smbcopy: %d of %d readers failed\n", n - (got < up ? got : up), n);
        return 1;
    }
    printf("%.1f\n", iops);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "randread") == 0) {
        char *e1, *e2, *e3;
        errno = 0;
        unsigned long long bytes = strtoull(argv[3], &e1, 10);
        long n = strtol(argv[5], &e2, 10);
        double secs = strtod(argv[6], &e3);
        if (errno || *e1 || *e2 || *e3 || bytes < RBLOCK || n < 1 || n > 1024 || secs <= 0) {
            fprintf(stderr, "smbcopy: randread wants BYTES >= %d, 1 <= N <= 1024, SECONDS > 0\n",
                    RBLOCK);
            return 2;
        }
        if (s_read_creds(argv[4]))
            return 1;
        return s_randread(argv[2], bytes, (int)n, secs);
    }
    if (argc != 5 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
        fprintf(stderr, "usage: smbcopy write|read URL BYTES CREDENTIALS_FILE\n"
                        "       smbcopy randread URL BYTES CREDENTIALS_FILE N SECONDS\n");
        return 2;
    }
    int writing = strcmp(argv[1], "write") == 0;
    const char *url = argv[2];
    char *end;
    errno = 0;
    unsigned long long total = strtoull(argv[3], &end, 10);
    if (errno || *end || total == 0 || total % BLOCK) {
        fprintf(stderr, "smbcopy: BYTES must be a positive multiple of %d\n", BLOCK);
        return 2;
    }
    if (s_read_creds(argv[4]))
        return 1;

    SMBCCTX *ctx = s_context();
    if (!ctx)
        return 1;

    static char buf[BLOCK];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)(i * 131 + 7);
    int rc = 1;
    SMBCFILE *fh = smbc_getFunctionOpen(ctx)(
        ctx, url, writing ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY, 0644);
    if (!fh) {
        fprintf(stderr, "smbcopy: could not open \"%s\": %s\n", url, strerror(errno));
        goto out;
    }
    smbc_read_fn rd = smbc_getFunctionRead(ctx);
    smbc_write_fn wr = smbc_getFunctionWrite(ctx);
    unsigned long long done = 0;
    double t0 = s_clock(CLOCK_MONOTONIC), cpu0 = s_clock(CLOCK_PROCESS_CPUTIME_ID);
    while (done < total) {
        ssize_t n = writing ? wr(ctx, fh, buf, BLOCK) : rd(ctx, fh, buf, BLOCK);
        if (n <= 0) {
            fprintf(stderr, "smbcopy: %s at %llu of \"%s\": %s\n", argv[1], done, url,
                    n < 0 ? strerror(errno) : "end of file");
            smbc_getFunctionClose(ctx)(ctx, fh);
            goto out;
        }
        done += (unsigned long long)n;
    }
    double secs = s_clock(CLOCK_MONOTONIC) - t0;
    double cpu = s_clock(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    if (smbc_getFunctionClose(ctx)(ctx, fh) < 0) {
        fprintf(stderr, "smbcopy: could not close \"%s\": %s\n", url, strerror(errno));
        goto out;
    }
    printf("%.1f %.4f\n", (double)total / 1e6 / secs, cpu);
    rc = 0;
out:
    smbc_free_context(ctx, 1);
    return rc;
}

/* smbcopy: the baseline of tests/bench/engine_smb.sh: a plain libsmbclient loop that writes or
 * reads one file sequentially in 128 KiB calls, with the same context API lgsmb uses, and prints
 * "MB/s CPU-seconds" on stdout: 10^6 bytes per second and the CPU this process used, both over
 * the data calls only (after the connection and open, as fio times its I/O).
 * usage: smbcopy write|read smb://host[:port]/share/file BYTES CREDENTIALS_FILE */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
        fprintf(stderr, "usage: smbcopy write|read URL BYTES CREDENTIALS_FILE\n");
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

    SMBCCTX *ctx = smbc_new_context();
    if (!ctx) {
        fprintf(stderr, "smbcopy: smbc_new_context: %s\n", strerror(errno));
        return 1;
    }
    smbc_setFunctionAuthDataWithContext(ctx, s_auth);
    smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
    if (!smbc_init_context(ctx)) {
        fprintf(stderr, "smbcopy: smbc_init_context: %s\n", strerror(errno));
        smbc_free_context(ctx, 1);
        return 1;
    }
    smbc_setOptionProtocols(ctx, "SMB2_02", "SMB3");

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

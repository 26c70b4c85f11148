/* test_agent.c: the agent's pure parts: the job file it writes from a RunSpec (and what it
 * refuses), its target allow-list, and the spool of unacknowledged messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "jobfile.h"
#include "lg_config.h"
#include "lg_error.h"
#include "lg_fs.h"
#include "lg_util.h"
#include "options.h"
#include "spool.h"

/* The same checks on each platform, with its own paths. */
#ifdef _WIN32
#define P_TARGET "C:\\mnt\\nas share\\lg.bin"
#define P_FILENAME "filename=C\\:\\mnt\\nas share\\lg.bin\n"
#define P_ENGINE "ioengine=windowsaio\n"
#define P_DOTDOT "C:\\mnt\\nas\\..\\..\\Windows\\win.ini"
#define P_VAR "C:\\mnt\\nas\\${HOME}\\lg.bin"
#else
#define P_TARGET "/mnt/nas:share/lg.bin"
#define P_FILENAME "filename=/mnt/nas\\:share/lg.bin\n"
#define P_ENGINE "ioengine=libaio\n"
#define P_DOTDOT "/mnt/nas/../../etc/passwd"
#define P_VAR "/mnt/nas/${HOME}/lg.bin"
#endif

static Lg__RunSpec s_spec(void)
{
    Lg__RunSpec s = LG__RUN_SPEC__INIT;
    s.run_id = 4;
    s.target_kind = LG__TARGET_KIND__TARGET_FILE;
    s.target = P_TARGET;
    s.size = 64u << 20;
    s.rw = "randrw";
    s.bs = 8192;
    s.read_pct = 70;
    s.threads = 16;
    s.qd = 16;
    s.ramp_s = 2;
    s.runtime_s = 30;
    s.direct = 1;
    return s;
}

static char *s_write(const Lg__RunSpec *s, int layout)
{
    char path[] = "/tmp/lg-test-job-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    lg_jobhost_t host = {"cpu", "/opt/lg/engines", "/etc/lg/smb.cred", "/etc/lg/chap.cred"};
    assert_int_equal(lg_jobfile_write(s, path, layout, &host, err, sizeof err), 0);
    char *buf = NULL;
    assert_int_equal(lg_read_file(path, 1 << 20, &buf, NULL), 0);
    unlink(path);
    return buf;
}

static void test_jobfile(void **state)
{
    (void)state;
    Lg__RunSpec s = s_spec();
    char *j = s_write(&s, 0);
    const char *want[] = {P_ENGINE,
                          "direct=1\n",
                          P_FILENAME,
                          "size=67108864\n",
                          "rw=randrw\n",
                          "bs=8192\n",
                          "rwmixread=70\n",
                          "iodepth=16\n",
                          "numjobs=16\n",
                          "time_based=1\n",
                          "ramp_time=2\n",
                          "runtime=30\n",
                          "lat_percentiles=1\n",
                          "clat_percentiles=0\n",
                          "clocksource=cpu\n"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(j, want[i]))
            fail_msg("job file lacks \"%s\":\n%s", want[i], j);
    assert_null(strstr(j, "exec"));
    free(j);
    s.target_kind = LG__TARGET_KIND__TARGET_NULL;
    s.rw = "randread";
    j = s_write(&s, 0);
    assert_non_null(strstr(j, "ioengine=null\n"));
    assert_null(strstr(j, "filename="));
    assert_null(strstr(j, "rwmixread"));
    free(j);
    s = s_spec();
    j = s_write(&s, 1);
    /* the layout writes the file the agent extended, through fio, never re-created by name */
    assert_null(strstr(j, "create_only"));
    assert_non_null(strstr(j, "rw=write\nbs=1M\n[layout]\n"));
    free(j);
}

static void test_jobfile_rejects(void **state)
{
    (void)state;
    char err[256];
    Lg__RunSpec s = s_spec();
    s.rw = "randread\nexec_prerun=rm -rf /";
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.target = "/mnt/x\n[evil]\nioengine=exec";
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.target = "relative/path";
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.target = P_DOTDOT;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.target = P_VAR; /* fio would expand it */
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
#ifdef _WIN32
    const char *win_bad[] = {"C:\\mnt\\f.bin:stream",
                             "\\\\nas\\share\\..\\x",
                             "C:\\mnt\\.\\x",
                             "C:\\a|b",
                             "C:relative",
                             "mnt\\x"};
    for (size_t i = 0; i < sizeof win_bad / sizeof win_bad[0]; i++) {
        s = s_spec();
        s.target = (char *)win_bad[i];
        if (lg_jobfile_validate(&s, err, sizeof err) != LG_EPROTO)
            fail_msg("accepted \"%s\"", win_bad[i]);
    }
    const char *win_ok[] = {"\\\\nas\\share\\dir\\lg.bin", "D:/lg/x.bin", "\\\\.\\PhysicalDrive1"};
    for (size_t i = 0; i < sizeof win_ok / sizeof win_ok[0]; i++) {
        s = s_spec();
        s.target = (char *)win_ok[i];
        if (lg_jobfile_validate(&s, err, sizeof err) != 0)
            fail_msg("refused \"%s\": %s", win_ok[i], err);
    }
#endif
    s = s_spec();
    s.qd = 0;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.qd = 1025;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    assert_string_equal(err, "run spec: threads 16 x qd 1025 out of range (1..256 x 1..1024)");
    s.qd = 1024;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), 0);
    s = s_spec();
    s.threads = 257;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.bs = 1000;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.read_pct = 101;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    s.target_kind = (Lg__TargetKind)9;
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    s = s_spec();
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), 0);
}

static void s_put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* smb:// and iscsi:// targets: fio's external engine, the escaped URL, the agent's credentials
 * files (never a password); an smb:// file's layout is lgsmb's (layout=1: written through when
 * missing or short, else one block read), an iscsi:// LUN gets a one-block probe; unclean URLs
 * refused. */
static void test_jobfile_engines(void **state)
{
    (void)state;
    Lg__RunSpec s = s_spec();
    s.target_kind = LG__TARGET_KIND__TARGET_SMB;
    s.target = "smb://lg@127.0.0.1:14445/share/dir/f.bin";
    s.offset = 1 << 20;
    char *job = s_write(&s, 0);
    assert_non_null(strstr(job, "ioengine=external:/opt/lg/engines/lgsmb.so\n"));
    assert_non_null(strstr(job, "filename=smb\\://lg@127.0.0.1\\:14445/share/dir/f.bin\n"));
    assert_non_null(strstr(job, "credentials=/etc/lg/smb.cred\n"));
    assert_non_null(strstr(job, "offset=1048576\n"));
    assert_null(strstr(job, "direct="));
    assert_null(strstr(job, "chap"));
    free(job);
    job = s_write(&s, 1);
    assert_non_null(strstr(job, "rw=write\nbs=1M\nlayout=1\n[layout]\n"));
    assert_non_null(strstr(job, "offset=1048576\n"));
    assert_null(strstr(job, "[probe]"));
    assert_null(strstr(job, "create_only"));
    free(job);
    s.target_kind = LG__TARGET_KIND__TARGET_ISCSI;
    s.target = "iscsi://127.0.0.1:13260/iqn.2026-11.test.lg:lun0/1";
    job = s_write(&s, 0);
    assert_non_null(strstr(job, "ioengine=external:/opt/lg/engines/lgiscsi.so\n"));
    assert_non_null(
        strstr(job, "filename=iscsi\\://127.0.0.1\\:13260/iqn.2026-11.test.lg\\:lun0/1\n"));
    assert_non_null(strstr(job, "chap_credentials=/etc/lg/chap.cred\n"));
    free(job);
    job = s_write(&s, 1);
    assert_non_null(strstr(job, "rw=read\nbs=4k\nnumber_ios=1\n[probe]\n"));
    assert_null(strstr(job, "layout=1"));
    free(job);
    const char *bad[] = {"iscsi://u@h/iqn/1", "iscsi://h/iqn/1\nrw=trim", "iscsi:///iqn/1",
                         "iscsi://h",         "iscsi://h/../x/1",         "smb://h/s/f",
                         "iscsi://h/i%20q/1"};
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s.target = (char *)bad[i];
        assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
        assert_non_null(strstr(err, "is not a clean iscsi:// URL"));
    }
    s.target_kind = LG__TARGET_KIND__TARGET_SMB;
    s.target = "smb://u:pw@h/s/f";
    assert_int_equal(lg_jobfile_validate(&s, err, sizeof err), LG_EPROTO);
    assert_string_equal(lg_jobfile_engine(LG__TARGET_KIND__TARGET_SMB), "lgsmb");
    assert_null(lg_jobfile_engine(LG__TARGET_KIND__TARGET_FILE));
}

static void test_clocksource(void **state)
{
    (void)state;
    const char *cs = "/tmp/lg-test-cs", *ci = "/tmp/lg-test-cpuinfo";
    s_put(ci, "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc rdtscp\n");
    s_put(cs, "tsc\n");
    assert_string_equal(lg_jobfile_detect_clocksource(cs, ci), "cpu");
    s_put(cs, "kvm-clock\n");
    assert_null(lg_jobfile_detect_clocksource(cs, ci));
    s_put(cs, "tsc\n");
    s_put(ci, "flags\t\t: fpu tsc constant_tsc rdtscp\n");
    assert_null(lg_jobfile_detect_clocksource(cs, ci));
    assert_null(lg_jobfile_detect_clocksource("/nonexistent", ci));
    unlink(cs);
    unlink(ci);
}

static void test_block_consent(void **state)
{
    (void)state;
    lg_agent_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    char err[256];
    Lg__RunSpec s = s_spec();
    s.target_kind = LG__TARGET_KIND__TARGET_BLOCK;
    s.target = "/dev/null";
    s.rw = "randwrite";
    /* Writing without the agent's own consent is refused before anything else is looked at. */
    assert_int_equal(lg_agent_check_block(&cfg, &s, err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "--allow-destructive"));
    cfg.allow_destructive = 1;
#ifdef _WIN32
    /* A file is not a device; a device that is not there cannot be opened. */
    s.target = "C:\\lg.bin";
    assert_int_equal(lg_agent_check_block(&cfg, &s, err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "is not a device"));
    s.target = "\\\\.\\PhysicalDrive97";
    assert_int_equal(lg_agent_check_block(&cfg, &s, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "PhysicalDrive97"));
#else
    /* /dev/null is a character device, not a block device. */
    assert_int_equal(lg_agent_check_block(&cfg, &s, err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "not a block device"));
    s.target = "/nonexistent/dev";
    assert_int_equal(lg_agent_check_block(&cfg, &s, err, sizeof err), -ENOENT);
    /* Reading needs no consent; the device checks still apply. */
    cfg.allow_destructive = 0;
    s.rw = "randread";
    s.target = "/dev/null";
    assert_int_equal(lg_agent_check_block(&cfg, &s, err, sizeof err), LG_EDENIED);
    assert_non_null(strstr(err, "not a block device"));
#endif
}

static void test_allowed(void **state)
{
    (void)state;
    lg_agent_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
#ifdef _WIN32
    assert_false(lg_agent_path_allowed(&cfg, "C:\\mnt\\nas\\a"));
    cfg.allow[0] = "C:\\mnt\\nas\\";
    cfg.allow[1] = "\\\\filer\\bench";
    cfg.allow[2] = "\\\\.\\PhysicalDrive2";
    cfg.nallow = 3;
    assert_true(lg_agent_path_allowed(&cfg, "C:\\mnt\\nas\\a"));
    assert_true(lg_agent_path_allowed(&cfg, "c:/MNT/Nas/a")); /* case and '/' do not matter */
    assert_true(lg_agent_path_allowed(&cfg, "C:\\mnt\\nas"));
    assert_true(lg_agent_path_allowed(&cfg, "\\\\filer\\bench\\lg.bin"));
    assert_true(lg_agent_path_allowed(&cfg, "\\\\.\\PhysicalDrive2"));
    assert_false(lg_agent_path_allowed(&cfg, "\\\\.\\PhysicalDrive21"));
    assert_false(lg_agent_path_allowed(&cfg, "C:\\mnt\\nasty\\a"));
    assert_false(lg_agent_path_allowed(&cfg, "C:\\mnt\\nas\\..\\x"));
    assert_false(lg_agent_path_allowed(&cfg, "\\\\filer\\benchmark\\x"));
    assert_false(lg_agent_path_allowed(&cfg, "D:\\mnt\\nas\\a"));
#else
    assert_false(lg_agent_path_allowed(&cfg, "/mnt/nas/a"));
    cfg.allow[0] = "/mnt/nas/";
    cfg.allow[1] = "/srv/one.bin";
    cfg.nallow = 2;
    assert_true(lg_agent_path_allowed(&cfg, "/mnt/nas/a"));
    assert_true(lg_agent_path_allowed(&cfg, "/mnt/nas"));
    assert_true(lg_agent_path_allowed(&cfg, "/srv/one.bin"));
    assert_false(lg_agent_path_allowed(&cfg, "/mnt/nasty/a"));
    assert_false(lg_agent_path_allowed(&cfg, "/mnt/nas/../etc/passwd"));
    assert_false(lg_agent_path_allowed(&cfg, "/srv/one.bin2"));
    assert_false(lg_agent_path_allowed(&cfg, "mnt/nas/a"));
#endif
}

static void s_args_eq(char **argv, int argc, const char *const *want, int nwant)
{
    if (argc != nwant) {
        for (int i = 0; i < argc; i++)
            fprintf(stderr, "arg %d: %s\n", i, argv[i]);
        fail_msg("%d arguments, want %d", argc, nwant);
    }
    for (int i = 0; i < argc; i++)
        assert_string_equal(argv[i], want[i]);
}

/* The configuration file: the command line's options, read into arguments. */
static void test_config(void **state)
{
    (void)state;
    const char *path = "lg-test-agent.yaml";
    char **argv = NULL, err[512];
    int argc = 0;
    s_put(path, "# an agent\r\n"
                "controller: tcp://10.0.0.5:5601\r\n"
                "name: 'win host 1'\n"
                "allow:\n"
                "  - D:\\lg\n"
                "  - \"\\\\nas\\bench\"\n"
                "label: [rack=a, site=lab]\n"
                "allow-destructive: true\n"
                "plaintext: false\n"
                "\n"
                "fio: C:\\Program Files\\fio\\fio.exe\n");
    assert_int_equal(lg_config_args(path, &lg_agent_opts, &argv, &argc, err, sizeof err), 0);
    const char *want[] = {"--controller",
                          "tcp://10.0.0.5:5601",
                          "--name",
                          "win host 1",
                          "--allow",
                          "D:\\lg",
                          "--allow",
                          "\\\\nas\\bench",
                          "--label",
                          "rack=a",
                          "--label",
                          "site=lab",
                          "--allow-destructive",
                          "--fio",
                          "C:\\Program Files\\fio\\fio.exe"};
    s_args_eq(argv, argc, want, (int)(sizeof want / sizeof want[0]));
    /* what the daemon parses: its name, the file's, then the command line's (which win) */
    char *rest[] = {"lg-agent", "--name", "h2", "-v"};
    int n = 0;
    char **all = lg_config_merge(rest[0], argv, argc, rest, 4, &n);
    assert_non_null(all);
    assert_int_equal(n, 1 + argc + 3);
    assert_string_equal(all[0], "lg-agent");
    assert_string_equal(all[1], "--controller");
    assert_string_equal(all[n - 3], "--name");
    assert_string_equal(all[n - 1], "-v");
    assert_null(all[n]);
    free(all);
    lg_config_free(argv, argc);

    struct {
        const char *text, *err;
    } bad[] = {
        {"controller: x\nfoo: 1\n", "lg-test-agent.yaml:2: unknown option \"foo\""},
        {"  - D:\\lg\n", "lg-test-agent.yaml:1: a \"- item\" line belongs under"},
        {"verbose: maybe\n", "lg-test-agent.yaml:1: \"verbose\" is true or false"},
        {"name:\n", "lg-test-agent.yaml:1: \"name\" needs a value"},
        {"name: 'x\n", "lg-test-agent.yaml:1: \"name\" needs a value"},
        {"just text\n", "lg-test-agent.yaml:1: want \"option: value\""},
        {"allow: [a, b\n", "lg-test-agent.yaml:1: \"[\" without \"]\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s_put(path, bad[i].text);
        assert_int_not_equal(lg_config_args(path, &lg_agent_opts, &argv, &argc, err, sizeof err),
                             0);
        if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0)
            fail_msg("%s: got \"%s\", want \"%s...\"", bad[i].text, err, bad[i].err);
    }
    unlink(path);
    assert_int_not_equal(lg_config_args(path, &lg_agent_opts, &argv, &argc, err, sizeof err), 0);
    assert_non_null(strstr(err, "lg-test-agent.yaml"));
}

static int s_sent;
static int s_count_send(void *arg, const uint8_t *buf, size_t len)
{
    (void)arg;
    (void)buf;
    (void)len;
    s_sent++;
    return 0;
}

static uint8_t *s_buf(size_t n)
{
    uint8_t *b = malloc(n);
    memset(b, 1, n);
    return b;
}

static void test_spool(void **state)
{
    (void)state;
    lg_spool_t *s = lg_spool_new(1000);
    for (uint64_t i = 1; i <= 5; i++)
        assert_int_equal(lg_spool_put(s, 1, i, 0, s_buf(10), 10, 100), 0);
    assert_int_equal(lg_spool_put(s, 1, 0, 1, s_buf(10), 10, 100), 0);
    assert_int_equal(lg_spool_put(s, 2, 1, 0, s_buf(10), 10, 100), 0);
    assert_int_equal(lg_spool_count(s), 7);
    assert_int_equal(lg_spool_bytes(s), 70);
    /* The memory cap refuses (and frees) what does not fit. */
    assert_int_equal(lg_spool_put(s, 3, 1, 0, s_buf(2000), 2000, 100), LG_ETOOBIG);
    /* A range ack drops that range only: samples 4..5 committed by a new controller before 1..3,
     * which the old one never stored, keep 1..3 for the resend. */
    assert_int_equal(lg_spool_ack(s, 1, 4, 5, 0), 2);
    assert_int_equal(lg_spool_count(s), 5);
    assert_int_equal(lg_spool_ack(s, 1, 2, 2, 0), 1);
    /* From 0 (an older controller): up to seq. */
    assert_int_equal(lg_spool_ack(s, 1, 0, 3, 0), 2);
    assert_int_equal(lg_spool_count(s), 2);
    assert_int_equal(lg_spool_put(s, 1, 4, 0, s_buf(10), 10, 100), 0); /* a resend, again */
    assert_int_equal(lg_spool_put(s, 1, 5, 0, s_buf(10), 10, 100), 0);
    assert_int_equal(lg_spool_count(s), 4);
    /* Resend only what is older than the age limit. */
    s_sent = 0;
    assert_int_equal(lg_spool_resend(s, 150, 100, s_count_send, NULL), 0);
    assert_int_equal(lg_spool_resend(s, 200, 100, s_count_send, NULL), 4);
    assert_int_equal(lg_spool_resend(s, 250, 100, s_count_send, NULL), 0);
    assert_int_equal(s_sent, 4);
    /* The result goes only with a result ack. */
    assert_int_equal(lg_spool_ack(s, 1, 1, 99, 0), 2);
    assert_int_equal(lg_spool_ack(s, 1, 0, 0, 1), 1);
    assert_int_equal(lg_spool_count(s), 1);
    lg_spool_destroy(&s);
    assert_null(s);
}

/* The user of an smb:// URL: a named user needs --smb-credentials (never a guest login). And
 * what a protocol asks of a target's filesystem (lg_fs.h). */
static void test_smb_user_and_fs_rule(void **state)
{
    (void)state;
    char u[64];
    assert_string_equal(lg_smb_url_user("smb://alice@nas/share/x.bin", u, sizeof u), "alice");
    assert_string_equal(lg_smb_url_user("smb://LAB;bob@nas:445/share/x", u, sizeof u), "LAB;bob");
    assert_string_equal(lg_smb_url_user("smb://nas/share/x@y", u, sizeof u), "");
    assert_string_equal(lg_smb_url_user("smb://@nas/share", u, sizeof u), "");
    assert_string_equal(lg_smb_url_user("/mnt/x@y", u, sizeof u), "");
    assert_int_equal(lg_fs_expect("smb", ""), LG_FS_CIFS);
    assert_int_equal(lg_fs_expect("smb", "any"), LG_FS_ANY);
    assert_int_equal(lg_fs_expect("local", ""), LG_FS_ANY);
    assert_int_equal(lg_fs_expect("local", "nfs"), LG_FS_NFS);
    assert_int_equal(lg_fs_expect("iscsi", NULL), LG_FS_ISCSI);
    char err[512];
    lg_fs_facts_t ext4 = {.type = "ext4", .mount = "/", .known = 1};
    lg_fs_facts_t cifs = {
        .type = "cifs", .mount = "/mnt/nas-smb", .smb = 1, .network = 1, .known = 1};
    assert_int_equal(lg_fs_check("/mnt/nas-smb/x", "smb", LG_FS_CIFS, NULL, &ext4, err, sizeof err),
                     LG_EDENIED);
    assert_non_null(
        strstr(err, "must be on an SMB share, but it is on ext4 (local), mounted at /"));
    assert_int_equal(
        lg_fs_check("/mnt/nas-smb/x", "smb", LG_FS_CIFS, "/mnt/nas-smb", &cifs, err, sizeof err),
        0);
    assert_int_equal(
        lg_fs_check("/mnt/nas-smb/x", "smb", LG_FS_CIFS, "/mnt/nas-smb/", &cifs, err, sizeof err),
        0);
    assert_int_equal(
        lg_fs_check("/mnt/nas-smb/x", "smb", LG_FS_CIFS, "/mnt", &cifs, err, sizeof err),
        LG_EDENIED);
    assert_int_equal(
        lg_fs_check("/mnt/nas-smb/x", "local", LG_FS_LOCAL, NULL, &cifs, err, sizeof err),
        LG_EDENIED);
    lg_fs_facts_t unknown = {.known = 0};
    assert_int_equal(lg_fs_check("/x", "smb", LG_FS_CIFS, NULL, &unknown, err, sizeof err),
                     LG_EDENIED);
    assert_int_equal(lg_fs_check("/x", "local", LG_FS_ANY, NULL, &unknown, err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobfile),         cmocka_unit_test(test_smb_user_and_fs_rule),
        cmocka_unit_test(test_jobfile_rejects), cmocka_unit_test(test_jobfile_engines),
        cmocka_unit_test(test_allowed),         cmocka_unit_test(test_clocksource),
        cmocka_unit_test(test_block_consent),   cmocka_unit_test(test_spool),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

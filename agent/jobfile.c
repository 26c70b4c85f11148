/* jobfile.c: RunSpec -> fio job file. The option set is fixed here; values are checked against
 * tight ranges and character sets so that nothing can smuggle a second option or section in. */
#include "jobfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lg_datapattern.h"
#include "lg_error.h"
#include "lg_owndir.h"
#include "platform.h"

static const char *const s_rw[] = {"randread", "randwrite", "randrw", "read", "write", "rw"};

static int s_rw_ok(const char *rw)
{
    for (size_t i = 0; i < sizeof s_rw / sizeof s_rw[0]; i++)
        if (strcmp(rw, s_rw[i]) == 0)
            return 1;
    return 0;
}

/* smb://[user@]host[:port]/share/path or iscsi://host[:port]/iqn/lun: printable, no spaces or
 * backslashes, no credentials (those come from the agent's own files), no "..". */
static int s_url_ok(const char *u, int kind)
{
    const char *scheme = kind == LG__TARGET_KIND__TARGET_SMB ? "smb://" : "iscsi://";
    size_t n = strlen(scheme);
    if (strncmp(u, scheme, n) != 0 || strlen(u) > 1024 || !u[n] || u[n] == '/')
        return 0;
    for (const unsigned char *c = (const unsigned char *)u; *c; c++)
        if (*c <= 0x20 || *c == 0x7f || *c == '\\' || *c == '%' || *c == '$')
            return 0;
    const char *slash = strchr(u + n, '/'), *at = strchr(u + n, '@');
    if (!slash ||
        (at && at < slash &&
         (kind != LG__TARGET_KIND__TARGET_SMB || memchr(u + n, ':', (size_t)(at - u - n)))))
        return 0;
    return strstr(u, "/../") == NULL && strstr(u, "/./") == NULL;
}

const char *lg_jobfile_engine(int target_kind)
{
    return target_kind == LG__TARGET_KIND__TARGET_SMB     ? "lgsmb"
           : target_kind == LG__TARGET_KIND__TARGET_ISCSI ? "lgiscsi"
                                                          : NULL;
}

unsigned lg_jobfile_njobs(const Lg__RunSpec *s)
{
    return s->threads; /* one section, [lg], with numjobs=threads (lg_jobfile_write) */
}

int lg_jobfile_writes(const Lg__RunSpec *s)
{
    return s->rw && strcmp(s->rw, "randread") != 0 && strcmp(s->rw, "read") != 0;
}

int lg_jobfile_validate(const Lg__RunSpec *s, char *err, size_t errlen)
{
    if (!s->rw || !s_rw_ok(s->rw)) {
        snprintf(err, errlen,
                 "run spec: rw \"%s\" is not one of randread, randwrite, randrw, "
                 "read, write, rw",
                 s->rw ? s->rw : "");
        return LG_EPROTO;
    }
    if (s->bs < 512 || s->bs > 16u << 20 || s->bs % 512) {
        snprintf(err, errlen, "run spec: bs %u is not a multiple of 512 from 512 to 16M", s->bs);
        return LG_EPROTO;
    }
    if (s->threads < 1 || s->threads > 256 || s->qd < 1 || s->qd > 1024) {
        snprintf(err, errlen, "run spec: threads %u x qd %u out of range (1..256 x 1..1024)",
                 s->threads, s->qd);
        return LG_EPROTO;
    }
    if (s->read_pct > 100 || s->runtime_s < 1 || s->runtime_s > 7 * 86400 || s->ramp_s > 86400) {
        snprintf(err, errlen, "run spec: read_pct %u, runtime %us or ramp %us out of range",
                 s->read_pct, s->runtime_s, s->ramp_s);
        return LG_EPROTO;
    }
    if (s->rate_iops > 100000000 || s->thinktime_us > 60000000 || s->thinktime_blocks > 100000000) {
        snprintf(err, errlen, "run spec: rate_iops %u or thinktime %u us / %u blocks out of range",
                 s->rate_iops, s->thinktime_us, s->thinktime_blocks);
        return LG_EPROTO;
    }
    if (s->n_bssplit > 16) {
        snprintf(err, errlen, "run spec: at most 16 bssplit entries, got %zu", s->n_bssplit);
        return LG_EPROTO;
    }
    uint32_t total = 0;
    for (size_t i = 0; i < s->n_bssplit; i++) {
        const Lg__BsSplit *b = s->bssplit[i];
        if (b->bs < 512 || b->bs > 16u << 20 || b->bs % 512 || b->pct < 1 || b->pct > 100) {
            snprintf(err, errlen, "run spec: bssplit entry %u/%u out of range", b->bs, b->pct);
            return LG_EPROTO;
        }
        total += b->pct;
    }
    if (s->n_bssplit && total != 100) {
        snprintf(err, errlen, "run spec: bssplit percentages add up to %u, not 100", total);
        return LG_EPROTO;
    }
    if (!(s->compress_ratio == 0 || (s->compress_ratio >= 1.0 && s->compress_ratio <= 20.0)) ||
        !(s->dedup_ratio == 0 || (s->dedup_ratio >= 1.0 && s->dedup_ratio <= 100.0))) {
        snprintf(err, errlen, "run spec: compress ratio %g or dedup ratio %g out of range",
                 s->compress_ratio, s->dedup_ratio);
        return LG_EPROTO;
    }
    if (lg_jobfile_writes(s) && (s->compress_ratio > 0 || s->dedup_ratio > 0)) {
        lg_datapattern_t dp = {s->compress_ratio ? s->compress_ratio : 1.0,
                               s->dedup_ratio ? s->dedup_ratio : 1.0, s->dedup_unit};
        lg_datapattern_plan_t plan;
        char why[256];
        if (lg_datapattern_plan(&dp, s->bs, &plan, why, sizeof why) != 0) {
            snprintf(err, errlen, "run spec: data pattern: %s", why);
            return LG_EPROTO;
        }
    }
    if (s->size < (1u << 20) || s->size < s->bs) {
        snprintf(err, errlen, "run spec: size %llu is below 1 MiB", (unsigned long long)s->size);
        return LG_EPROTO;
    }
    switch (s->target_kind) {
    case LG__TARGET_KIND__TARGET_NULL:
        break;
    case LG__TARGET_KIND__TARGET_FILE:
    case LG__TARGET_KIND__TARGET_BLOCK:
        if (!s->target || !lg_plat_path_clean(s->target)) {
            snprintf(err, errlen, "run spec: target \"%s\" is not a clean absolute path",
                     s->target ? s->target : "");
            return LG_EPROTO;
        }
        break;
    case LG__TARGET_KIND__TARGET_SMB:
    case LG__TARGET_KIND__TARGET_ISCSI:
        if (!s->target || !s_url_ok(s->target, s->target_kind)) {
            snprintf(err, errlen, "run spec: target \"%s\" is not a clean %s URL",
                     s->target ? s->target : "",
                     s->target_kind == LG__TARGET_KIND__TARGET_SMB ? "smb://" : "iscsi://");
            return LG_EPROTO;
        }
        break;
    default:
        snprintf(err, errlen, "run spec: unknown target kind %d", (int)s->target_kind);
        return LG_EPROTO;
    }
    return 0;
}

/* fio reads ':' in filename= as a list separator: escape it. */
static void s_put_filename(FILE *f, const char *path)
{
    fputs("filename=", f);
    for (const char *c = path; *c; c++) {
        if (*c == ':')
            fputc('\\', f);
        fputc(*c, f);
    }
    fputc('\n', f);
}

const char *lg_jobfile_detect_clocksource(const char *sys_clocksource_path,
                                          const char *cpuinfo_path)
{
    char cs[64] = "";
    FILE *f = fopen(sys_clocksource_path, "r");
    if (!f)
        return NULL;
    if (!fgets(cs, sizeof cs, f))
        cs[0] = 0;
    fclose(f);
    cs[strcspn(cs, "\n")] = 0;
    if (strcmp(cs, "tsc") != 0)
        return NULL;
    f = fopen(cpuinfo_path, "r");
    if (!f)
        return NULL;
    char line[4096];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(f);
    return constant && nonstop ? "cpu" : NULL;
}

int lg_jobfile_write(const Lg__RunSpec *s, const char *path, int layout_only,
                     const lg_jobhost_t *host, char *err, size_t errlen)
{
    int rc = lg_jobfile_validate(s, err, errlen);
    if (rc)
        return rc;
    /* Created anew, never through a name planted there ("\n" line ends on Windows too). */
    FILE *f = lg_create_new_file(path, 0600);
    if (!f) {
        rc = -errno;
        snprintf(err, errlen, "could not create \"%s\": %s", path, strerror(errno));
        return rc;
    }
    int is_null = s->target_kind == LG__TARGET_KIND__TARGET_NULL;
    const char *engine = lg_jobfile_engine(s->target_kind);
    fprintf(f, "; written by lg-agent for run %llu\n[global]\n", (unsigned long long)s->run_id);
    if (is_null) {
        fputs("ioengine=null\n", f);
    } else if (engine) {
        /* fio's external engine, built against this very fio (lib/lg/engines). */
        fprintf(f, "ioengine=external:%s/%s.so\n",
                host && host->engine_dir ? host->engine_dir : ".", engine);
        s_put_filename(f, s->target);
        if (s->target_kind == LG__TARGET_KIND__TARGET_SMB && host && host->smb_credentials)
            fprintf(f, "credentials=%s\n", host->smb_credentials);
        if (s->target_kind == LG__TARGET_KIND__TARGET_ISCSI && host && host->iscsi_chap)
            fprintf(f, "chap_credentials=%s\n", host->iscsi_chap);
    } else {
        fprintf(f, "ioengine=%s\n", lg_plat_async_engine());
        fprintf(f, "direct=%d\n", s->direct ? 1 : 0);
        s_put_filename(f, s->target);
    }
    fprintf(f, "size=%llu\n", (unsigned long long)s->size);
    if (s->offset && !is_null) /* this agent's slice of a shared device */
        fprintf(f, "offset=%llu\n", (unsigned long long)s->offset);
    if (host && host->clocksource)
        fprintf(f, "clocksource=%s\n", host->clocksource);
    if ((layout_only || lg_jobfile_writes(s)) && (s->compress_ratio > 0 || s->dedup_ratio > 0)) {
        /* Checked in lg_jobfile_validate; the layout writes with the same pattern, at 1M. */
        lg_datapattern_t dp = {s->compress_ratio ? s->compress_ratio : 1.0,
                               s->dedup_ratio ? s->dedup_ratio : 1.0, s->dedup_unit};
        rc = lg_datapattern_fio_options(&dp, layout_only ? (1u << 20) : s->bs, f, err, errlen);
        if (rc) {
            fclose(f);
            return rc;
        }
    }
    if (layout_only && s->target_kind == LG__TARGET_KIND__TARGET_SMB) {
        /* An SMB file is laid out like a local one: lgsmb writes it through when it is missing
         * or short (with the data pattern), else reads one block; either way connecting,
         * logging in and opening are proven here, at Prepare. */
        fputs("rw=write\nbs=1M\nlayout=1\n[layout]\n", f);
    } else if (layout_only && engine) {
        /* Connect, log in and read one block of the LUN: what is wrong with the target shows
         * here, at Prepare. A LUN is the user's device: it is written only by write runs. */
        fputs("rw=read\nbs=4k\nnumber_ios=1\n[probe]\n", f);
    } else if (layout_only) {
        /* Lay the file out once, so the measured run does not time its creation: the agent
         * made it full size, so fio writes it through (it would otherwise unlink it and
         * create it again by name, and the name is not what the agent holds). */
        fputs("rw=write\nbs=1M\n[layout]\n", f);
    } else {
        fprintf(f, "rw=%s\n", s->rw);
        if (s->n_bssplit) {
            fputs("bssplit=", f);
            for (size_t i = 0; i < s->n_bssplit; i++)
                fprintf(f, "%s%u/%u", i ? ":" : "", s->bssplit[i]->bs, s->bssplit[i]->pct);
            fputc('\n', f);
        } else {
            fprintf(f, "bs=%u\n", s->bs);
        }
        if (strcmp(s->rw, "randrw") == 0 || strcmp(s->rw, "rw") == 0)
            fprintf(f, "rwmixread=%u\n", s->read_pct);
        fprintf(f, "iodepth=%u\nnumjobs=%u\n", s->qd, s->threads);
        if (s->size_based) {
            /* Each thread writes its own share of the target once (a fill). */
            fprintf(f, "offset_increment=%llu\nsize=%llu\n",
                    (unsigned long long)(s->size / s->threads / s->bs * s->bs),
                    (unsigned long long)(s->size / s->threads / s->bs * s->bs));
        } else {
            fputs("time_based=1\n", f);
        }
        fprintf(f, "ramp_time=%u\nruntime=%u\n", s->ramp_s, s->runtime_s);
        if (s->rate_iops)
            fprintf(f, "rate_iops=%u\n", s->rate_iops);
        if (s->thinktime_us)
            fprintf(f, "thinktime=%u\nthinktime_blocks=%u\n", s->thinktime_us,
                    s->thinktime_blocks ? s->thinktime_blocks : 1);
        /* Percentiles and histograms of total latency (lat_ns), not completion latency; fio
         * then need not build completion-latency percentiles that nobody reads (with 16 jobs
         * that is a third of each streamed report, and CPU taken from the load). */
        fputs("lat_percentiles=1\nclat_percentiles=0\n", f);
        fputs("randrepeat=0\nnorandommap=1\n", f);
        fputs("[lg]\n", f);
    }
    if (fclose(f) != 0) {
        rc = -errno;
        snprintf(err, errlen, "could not write \"%s\": %s", path, strerror(errno));
        return rc;
    }
    return 0;
}

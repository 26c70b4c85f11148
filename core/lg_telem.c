/* lg_telem.c: one scrape reduced to lg's keys (lg_telem.h). Each exporter names the same thing
 * its own way; the table below says which metric (and which of its labels) becomes which key. */
#include "lg_telem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_prom.h"

/* How one metric becomes keys: key_prefix plus, when label is set, that label's value (a
 * device, a CPU mode); sum: values of the same key add up (CPU seconds over the CPUs). */
typedef struct {
    const char *metric;
    const char *key;                     /* the key, or its prefix when label is set */
    const char *label;                   /* whose value ends the key; NULL: none */
    const char *type_label, *type_value; /* only samples with this label value (devstat) */
    int sum;
} map_t;

static const map_t s_map[] = {
    /* CPU seconds by mode: Linux and FreeBSD node_exporter, windows_exporter */
    {"node_cpu_seconds_total", "cpu.", "mode", NULL, NULL, 1},
    {"windows_cpu_time_total", "cpu.", "mode", NULL, NULL, 1},
    /* memory */
    {"node_memory_MemAvailable_bytes", "mem.avail", NULL, NULL, NULL, 0},
    {"node_memory_MemTotal_bytes", "mem.total", NULL, NULL, NULL, 0},
    {"node_memory_size_bytes", "mem.total", NULL, NULL, NULL, 0},     /* FreeBSD */
    {"node_memory_free_bytes", "mem.avail", NULL, NULL, NULL, 1},     /* FreeBSD: free + */
    {"node_memory_inactive_bytes", "mem.avail", NULL, NULL, NULL, 1}, /* inactive + cache */
    {"node_memory_cache_bytes", "mem.avail", NULL, NULL, NULL, 1},
    {"windows_memory_available_bytes", "mem.avail", NULL, NULL, NULL, 0},
    {"windows_os_physical_memory_free_bytes", "mem.avail", NULL, NULL, NULL, 0},
    {"windows_memory_physical_total_bytes", "mem.total", NULL, NULL, NULL, 0},
    {"windows_cs_physical_memory_bytes", "mem.total", NULL, NULL, NULL, 0},
    /* disks */
    {"node_disk_read_bytes_total", "disk.read.", "device", NULL, NULL, 0},
    {"node_disk_written_bytes_total", "disk.written.", "device", NULL, NULL, 0},
    {"node_disk_io_time_seconds_total", "disk.busy.", "device", NULL, NULL, 0},
    {"node_devstat_bytes_total", "disk.read.", "device", "type", "read", 0},
    {"node_devstat_bytes_total", "disk.written.", "device", "type", "write", 0},
    {"node_devstat_busy_time_seconds_total", "disk.busy.", "device", NULL, NULL, 0},
    {"windows_physical_disk_read_bytes_total", "disk.read.", "disk", NULL, NULL, 0},
    {"windows_physical_disk_write_bytes_total", "disk.written.", "disk", NULL, NULL, 0},
    {"windows_physical_disk_idle_seconds_total", "disk.idle.", "disk", NULL, NULL, 0},
    {"windows_logical_disk_read_bytes_total", "ldisk.read.", "volume", NULL, NULL, 0},
    {"windows_logical_disk_write_bytes_total", "ldisk.written.", "volume", NULL, NULL, 0},
    {"windows_logical_disk_idle_seconds_total", "ldisk.idle.", "volume", NULL, NULL, 0},
    /* network */
    {"node_network_receive_bytes_total", "net.rx.", "device", NULL, NULL, 0},
    {"node_network_transmit_bytes_total", "net.tx.", "device", NULL, NULL, 0},
    {"windows_net_bytes_received_total", "net.rx.", "nic", NULL, NULL, 0},
    {"windows_net_bytes_sent_total", "net.tx.", "nic", NULL, NULL, 0},
    /* ZFS ARC: Linux (untyped, counters all the same) and FreeBSD */
    {"node_zfs_arc_hits", "arc.hits", NULL, NULL, NULL, 0},
    {"node_zfs_arc_misses", "arc.misses", NULL, NULL, NULL, 0},
    {"node_zfs_arc_size", "arc.size", NULL, NULL, NULL, 0},
    {"node_zfs_arcstats_hits_total", "arc.hits", NULL, NULL, NULL, 0},
    {"node_zfs_arcstats_misses_total", "arc.misses", NULL, NULL, NULL, 0},
    {"node_zfs_arcstats_size_bytes", "arc.size", NULL, NULL, NULL, 0},
    /* the system, for a review's test bed: info metrics (value 1) whose label is the fact, kept
     * in the key ("os.release.6.1.0-18-amd64"); node_exporter's uname and os collectors,
     * windows_exporter's os */
    {"node_uname_info", "os.sysname.", "sysname", NULL, NULL, 0},
    {"node_uname_info", "os.release.", "release", NULL, NULL, 0},
    {"node_os_info", "os.name.", "pretty_name", NULL, NULL, 0},
    {"windows_os_info", "os.name.", "product", NULL, NULL, 0},
    {"windows_os_info", "os.release.", "version", NULL, NULL, 0},
};

typedef struct {
    lg_telem_vals_t *v;
    const char *const *extras;
    size_t nextras;
    int nomem;
    size_t seen;
    int cpus[256]; /* CPU labels seen (by hash) for cpu.count */
    size_t ncpus;
} ctx_t;

static ssize_t s_find(const lg_telem_vals_t *v, const char *key)
{
    for (size_t i = v->n; i-- > 0;)
        if (!strcmp(v->keys[i], key))
            return (ssize_t)i;
    return -1;
}

/* Set (or add to, when sum) key's value. */
static int s_put(ctx_t *c, const char *key, double val, int sum)
{
    lg_telem_vals_t *v = c->v;
    ssize_t i = s_find(v, key);
    if (i >= 0) {
        v->vals[i] = sum ? v->vals[i] + val : val;
        return 0;
    }
    if (v->n == LG_TELEM_MAX_KEYS) {
        v->dropped++;
        return 0;
    }
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        char **k = realloc(v->keys, cap * sizeof *k);
        if (!k)
            return -ENOMEM;
        v->keys = k;
        double *d = realloc(v->vals, cap * sizeof *d);
        if (!d)
            return -ENOMEM;
        v->vals = d;
        v->cap = cap;
    }
    v->keys[v->n] = strdup(key);
    if (!v->keys[v->n])
        return -ENOMEM;
    v->vals[v->n++] = val;
    return 0;
}

/* Stacked block devices (device mapper, md RAID, zvols, FreeBSD's pass-through twins): kept, as
 * vdisk.*, but out of the disk sums, where they would count the same bytes twice. */
static int s_stacked(const char *dev)
{
    static const char *const pre[] = {"dm-", "md", "zd", "drbd", "pass", "cd", "sr"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (!strncmp(dev, pre[i], strlen(pre[i])))
            return 1;
    return 0;
}

static int s_loopback(const char *nic)
{
    return !strcmp(nic, "lo") || !strcmp(nic, "lo0") || strstr(nic, "Loopback") != NULL;
}

/* windows_exporter's CPU modes: idle, user, privileged partition the time (interrupt and dpc
 * time is part of privileged); the others are kept apart so the busy share stays right. */
static const char *s_cpu_mode_key(const char *metric, const char *mode, char *buf, size_t len)
{
    if (!strcmp(metric, "windows_cpu_time_total") && strcmp(mode, "idle") != 0 &&
        strcmp(mode, "user") != 0 && strcmp(mode, "privileged") != 0) {
        snprintf(buf, len, "cpux.%s", mode);
        return buf;
    }
    snprintf(buf, len, "cpu.%s", mode);
    return buf;
}

static void s_count_cpu(ctx_t *c, const lg_prom_sample_t *s)
{
    const char *cpu = lg_prom_label(s, "cpu");
    if (!cpu)
        cpu = lg_prom_label(s, "core");
    if (!cpu)
        return;
    unsigned h = 5381;
    for (const char *p = cpu; *p; p++)
        h = h * 33 + (unsigned char)*p;
    for (size_t i = 0; i < c->ncpus; i++)
        if (c->cpus[i] == (int)h)
            return;
    if (c->ncpus < sizeof c->cpus / sizeof c->cpus[0])
        c->cpus[c->ncpus++] = (int)h;
}

/* Key characters: a label value (a device or NIC name) goes in as valid UTF-8 (what is not is
 * replaced, a long one cut on a character boundary: PostgreSQL refuses the key otherwise, and
 * with it the whole scrape) and as is, but for controls, quotes and backslashes, which become
 * '_'. Adds what was replaced to *replaced; returns 1 when the value was cut. */
static int s_keypart(char *dst, size_t len, const char *src, size_t *replaced)
{
    size_t rep;
    int cut;
    size_t n = lg_utf8_clean(src, strlen(src), dst, len, &rep, &cut);
    for (size_t j = 0; j < n; j++)
        if ((unsigned char)dst[j] < 0x20 || dst[j] == '"' || dst[j] == '\\' || dst[j] == 0x7f)
            dst[j] = '_';
    *replaced += rep;
    return cut;
}

static int s_extra(ctx_t *c, const lg_prom_sample_t *s)
{
    int want = 0;
    for (size_t i = 0; i < c->nextras && !want; i++) {
        const char *e = c->extras[i];
        size_t n = strlen(e);
        want = n && e[n - 1] == '*' ? !strncmp(s->name, e, n - 1) : !strcmp(s->name, e);
    }
    if (!want)
        return 0;
    char key[LG_TELEM_KEY_MAX + 64];
    size_t k = (size_t)snprintf(key, sizeof key, "x.%s", s->name), replaced = 0;
    if (s->nlabels) {
        k += (size_t)snprintf(key + k, sizeof key - k, "{");
        for (size_t i = 0; i < s->nlabels && k < sizeof key; i++) {
            char part[LG_TELEM_KEY_MAX];
            s_keypart(part, sizeof part, s->labels[i].value, &replaced); /* cut: too long */
            k += (size_t)snprintf(key + k, sizeof key - k, "%s%s=\"%s\"", i ? "," : "",
                                  s->labels[i].name, part);
        }
        if (k < sizeof key)
            k += (size_t)snprintf(key + k, sizeof key - k, "}");
    }
    if (k >= LG_TELEM_KEY_MAX) {
        c->v->dropped++;
        return 0;
    }
    c->v->replaced += replaced;
    return s_put(c, key, s->value, 0);
}

static int s_sample(void *arg, const lg_prom_sample_t *s)
{
    ctx_t *c = arg;
    c->seen++;
    for (size_t m = 0; m < sizeof s_map / sizeof s_map[0]; m++) {
        const map_t *e = &s_map[m];
        if (strcmp(s->name, e->metric) != 0)
            continue;
        if (e->type_label) {
            const char *t = lg_prom_label(s, e->type_label);
            if (!t || strcmp(t, e->type_value) != 0)
                continue;
        }
        char key[LG_TELEM_KEY_MAX];
        if (e->label) {
            const char *lv = lg_prom_label(s, e->label);
            if (!lv || !lv[0])
                continue;
            char part[LG_TELEM_PART_MAX + 1];
            c->v->cut += (size_t)s_keypart(part, sizeof part, lv, &c->v->replaced);
            if (!strcmp(e->key, "cpu.")) {
                s_cpu_mode_key(s->name, part, key, sizeof key);
                s_count_cpu(c, s);
            } else if (!strncmp(e->key, "net.", 4)) {
                if (s_loopback(part))
                    continue;
                snprintf(key, sizeof key, "%s%s", e->key, part);
            } else if (!strncmp(e->key, "disk.", 5) && s_stacked(part)) {
                snprintf(key, sizeof key, "v%s%s", e->key, part);
            } else {
                snprintf(key, sizeof key, "%s%s", e->key, part);
            }
        } else {
            snprintf(key, sizeof key, "%s", e->key);
        }
        if (isnan(s->value))
            continue;
        if (s_put(c, key, s->value, e->sum) != 0)
            return -ENOMEM;
    }
    return s_extra(c, s) ? -ENOMEM : 0;
}

void lg_telem_vals_clear(lg_telem_vals_t *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++)
        free(v->keys[i]);
    free(v->keys);
    free(v->vals);
    memset(v, 0, sizeof *v);
}

double lg_telem_get(const lg_telem_vals_t *v, const char *key)
{
    ssize_t i = s_find(v, key);
    return i >= 0 ? v->vals[i] : NAN;
}

/* windows_exporter: physical disks when it reports them, else its logical disks (volumes)
 * stand in: the ldisk.* keys become disk.*, or vdisk.* beside physical ones. */
static void s_windows_disks(lg_telem_vals_t *v)
{
    int physical = 0;
    for (size_t i = 0; i < v->n && !physical; i++)
        physical = !strncmp(v->keys[i], "disk.", 5);
    for (size_t i = 0; i < v->n; i++) {
        if (strncmp(v->keys[i], "ldisk.", 6) != 0)
            continue;
        if (physical)
            v->keys[i][0] = 'v';
        else
            memmove(v->keys[i], v->keys[i] + 1, strlen(v->keys[i]));
    }
}

int lg_telem_extract(const char *text, size_t len, const char *const *extras, size_t nextras,
                     lg_telem_vals_t *out, char *err, size_t errlen)
{
    lg_telem_vals_clear(out);
    ctx_t c = {.v = out, .extras = extras, .nextras = nextras};
    lg_prom_limits_t lim = {.max_bytes = 16u << 20, .max_line = 64u << 10, .max_samples = 200000};
    int rc = lg_prom_parse(text, len, &lim, s_sample, &c, err, errlen);
    if (rc == -ENOMEM) {
        lg_telem_vals_clear(out);
        return rc;
    }
    if (rc) {
        lg_telem_vals_clear(out);
        return rc;
    }
    if (c.seen == 0) {
        snprintf(err, errlen, "no samples: not a Prometheus text exposition");
        return LG_EPARSE;
    }
    if (c.ncpus && s_put(&c, "cpu.count", (double)c.ncpus, 0) != 0) {
        lg_telem_vals_clear(out);
        return -ENOMEM;
    }
    s_windows_disks(out);
    return 0;
}

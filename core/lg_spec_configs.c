/* lg_spec_configs.c: the SUT configs of a campaign spec (configs:, each with its labels and its
 * targets per protocol) and the one-config shorthand (sut:, target:, protocol:): target paths,
 * smb:// and iscsi:// URLs, fs: and mount:. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_spec_int.h"
#include "lg_util.h"

static int s_get_labels(lg__spec_ctx_t *c, const yaml_node_t *map, const char *where,
                        lg_sutconfig_t *cfg)
{
    if (map->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, map, where, "must be a mapping, got %s", lg__spec_node_kind(map));
    size_t n = lg__spec_map_len(map);
    if (n > S_MAX_LABELS)
        return lg__spec_fail(c, map, where, "at most %d labels are allowed, got %zu", S_MAX_LABELS,
                             n);
    if (n && !(cfg->labels = calloc(n, sizeof *cfg->labels)))
        return -ENOMEM;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        lg__spec_entry_t e;
        const char *val;
        int rc = lg__spec_entry(c, map, i, where, &e);
        if (rc)
            return rc;
        if (!lg__spec_valid_name(e.key, 63))
            return lg__spec_fail(c, e.kn, e.path, "label names must be " S_NAME_RULE);
        if (!(val = lg__spec_scalar(c, e.vn, e.path)))
            return LG_ESPEC;
        if (strlen(val) > S_MAX_LABEL_VALUE)
            return lg__spec_fail(c, e.vn, e.path, "label values are at most %d characters, got %zu",
                                 S_MAX_LABEL_VALUE, strlen(val));
        bytes += strlen(e.key) + strlen(val) + 8;
        if (bytes > S_MAX_LABELS_BYTES)
            return lg__spec_fail(c, e.kn, e.path,
                                 "the labels of a config take at most %d bytes (names and values "
                                 "together; the database indexes them)",
                                 S_MAX_LABELS_BYTES);
        lg_label_t *l = &cfg->labels[cfg->nlabels++]; /* counted first: destroy frees it */
        l->key = lg__spec_dup(e.key);
        l->value = lg__spec_dup(val);
        if (!l->key || !l->value)
            return -ENOMEM;
    }
    return 0;
}

/* What every agent refuses in a target ('$', "." and ".." components: lg_path_refused_part, of
 * path: the target s without its file:, block: or dir:), refused here so that the error names
 * the spec's line before anything is submitted. */
static int s_target_refused(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                            const char *s, const char *path)
{
    char qb[128];
    const char *part = lg_path_refused_part(path);
    return part ? lg__spec_fail(c, v, where,
                                "must not hold %s: lg-agent refuses such a target, got \"%s\"",
                                part, lg__spec_q(s, qb, sizeof qb))
                : 0;
}

/* smb://[user@]host[:port]/share/path or iscsi://host[:port]/iqn/lun: checked here, used by the
 * agent's lgsmb and lgiscsi engines. Credentials never appear in a spec. */
static int s_target_url(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_target_t *t,
                        const char *s)
{
    char qb[128];
    int smb = strncmp(s, "smb://", 6) == 0;
    const char *rest = s + (smb ? 6 : 8), *slash = strchr(rest, '/');
    const char *at = memchr(rest, '@', slash ? (size_t)(slash - rest) : strlen(rest));
    const char *host = at ? at + 1 : rest;
    if (strlen(s) > S_MAX_PATH)
        return lg__spec_fail(c, v, where, "target is longer than %d characters", S_MAX_PATH);
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return lg__spec_fail(c, v, where, "target must not contain control characters");
    int rc = s_target_refused(c, v, where, s, s);
    if (rc)
        return rc;
    if (at &&
        (memchr(rest, ':', (size_t)(at - rest)) || memchr(rest, '%', (size_t)(at - rest)) || !smb))
        return lg__spec_fail(
            c, v, where, "credentials never go in a spec: give the agent %s (got \"%s\")",
            smb ? "--smb-credentials FILE" : "--iscsi-chap FILE", lg__spec_q(s, qb, sizeof qb));
    if (!slash || slash == host || host[0] == ':')
        return lg__spec_fail(c, v, where, "%s has no host, got \"%s\"",
                             smb ? "smb://[user@]host[:port]/share/path"
                                 : "iscsi://host[:port]/iqn/lun",
                             lg__spec_q(s, qb, sizeof qb));
    const char *port = memchr(host, ':', (size_t)(slash - host));
    if (port) {
        uint64_t pn;
        char pb[8] = "";
        size_t pl = (size_t)(slash - port - 1);
        if (pl == 0 || pl >= sizeof pb)
            return lg__spec_fail(c, v, where, "bad port in \"%s\"", lg__spec_q(s, qb, sizeof qb));
        memcpy(pb, port + 1, pl);
        const char *end;
        if (lg__spec_parse_u64(pb, &end, &pn) != 0 || *end || pn == 0 || pn > 65535)
            return lg__spec_fail(c, v, where, "bad port in \"%s\"", lg__spec_q(s, qb, sizeof qb));
    }
    const char *a = slash + 1, *b = strchr(a, '/');
    if (!b || b == a || !b[1] || b[strlen(b) - 1] == '/')
        return lg__spec_fail(c, v, where, "%s, got \"%s\"",
                             smb ? "must name a share and a file: smb://host/share/path"
                                 : "must name a target and a LUN: iscsi://host/iqn/lun",
                             lg__spec_q(s, qb, sizeof qb));
    if (!smb) {
        uint64_t lun;
        const char *end;
        if (strchr(b + 1, '/') || lg__spec_parse_u64(b + 1, &end, &lun) != 0 || *end || lun > 16383)
            return lg__spec_fail(c, v, where,
                                 "the LUN must be a number from 0 to 16383, got "
                                 "\"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
    }
    t->kind = smb ? LG_TARGET_SMB : LG_TARGET_ISCSI;
    free(t->path);
    t->path = lg__spec_dup(s);
    return t->path ? 0 : -ENOMEM;
}

/* A Windows load host's absolute path: "C:\dir" (or "C:/dir"), a UNC path "\\nas\share\dir",
 * or a device "\\.\PhysicalDrive1". */
static int s_win_absolute(const char *p)
{
    if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
        (p[2] == '\\' || p[2] == '/'))
        return 1;
    return p[0] == '\\' && p[1] == '\\' && p[2] && p[2] != '\\';
}

/* A target: "/abs/path", "file:/abs/path", "dir:/abs/dir" (lg's file in that folder, e.g. a
 * mounted share), "block:/dev/...", "smb://...", "iscsi://...", or "null" / "null:" (fio's
 * null engine); for Windows load hosts also "C:\dir", "\\nas\share\dir" and
 * "block:\\.\PhysicalDrive1". */
static int s_target_path(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (strncmp(s, "smb://", 6) == 0 || strncmp(s, "iscsi://", 8) == 0)
        return s_target_url(c, v, where, t, s);
    if (strncmp(s, "dir:", 4) == 0) {
        const char *d = s + 4;
        int win = s_win_absolute(d);
        char sep = win ? '\\' : '/';
        size_t n = strlen(d);
        while (n > 1 && (d[n - 1] == '/' || (win && d[n - 1] == '\\')))
            n--;
        if (d[0] != '/' && !win)
            return lg__spec_fail(c, v, where, "dir: needs an absolute path, got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        char *path = malloc(n + 32);
        if (!path)
            return -ENOMEM;
        snprintf(path, n + 32, "%.*s%clg-data.bin", (int)n, d, sep);
        if (n == 1 && d[0] == '/')
            snprintf(path, n + 32, "/lg-data.bin");
        int rc = 0;
        for (const char *p = path; *p && rc == 0; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                rc = lg__spec_fail(c, v, where, "path must not contain control characters");
        if (rc == 0 && strlen(path) > S_MAX_PATH)
            rc = lg__spec_fail(c, v, where, "path is longer than %d characters", S_MAX_PATH);
        if (rc == 0)
            rc = s_target_refused(c, v, where, s, d);
        if (rc) {
            free(path);
            return rc;
        }
        t->kind = LG_TARGET_FILE;
        t->dir = true;
        free(t->path);
        t->path = path;
        return 0;
    }
    if (strcmp(s, "null") == 0 || strcmp(s, "null:") == 0) {
        t->kind = LG_TARGET_NULL;
        free(t->path);
        t->path = lg__spec_dup("");
        return t->path ? 0 : -ENOMEM;
    }
    int block = strncmp(s, "block:", 6) == 0;
    const char *path = block ? s + 6 : strncmp(s, "file:", 5) == 0 ? s + 5 : s;
    if (path[0] != '/' && !s_win_absolute(path))
        return lg__spec_fail(c, v, where,
                             "must be an absolute path (\"/abs/path\", \"file:/abs/path\", "
                             "\"dir:/abs/dir\" or \"block:/dev/...\"; on Windows hosts "
                             "\"C:\\dir\", \"\\\\nas\\share\\dir\"), smb://host/share/path, "
                             "iscsi://host/iqn/lun or \"null:\", got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    if (strlen(path) > S_MAX_PATH)
        return lg__spec_fail(c, v, where, "path is longer than %d characters", S_MAX_PATH);
    /* The path ends up in fio job files, where a newline would start a new option. */
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return lg__spec_fail(c, v, where, "path must not contain control characters");
    int rc = s_target_refused(c, v, where, s, path);
    if (rc)
        return rc;
    t->kind = block ? LG_TARGET_BLOCK : LG_TARGET_FILE;
    free(t->path);
    t->path = lg__spec_dup(path);
    return t->path ? 0 : -ENOMEM;
}

static int s_protocol(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    size_t n = strlen(s);
    bool ok = n > 0 && n < sizeof t->protocol;
    for (size_t i = 0; ok && i < n; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-';
    if (!ok)
        return lg__spec_fail(c, v, where,
                             "must be a protocol name of 1 to 31 characters from a-z 0-9 - "
                             "(e.g. smb, iscsi, nfs, local), got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    snprintf(t->protocol, sizeof t->protocol, "%s", s);
    return 0;
}

/* fs: what the file target's filesystem must be (the agent checks before Prepare). */
static int s_target_fs(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    static const char *const ok[] = {"cifs", "smb", "nfs", "iscsi", "local", "any"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(s, ok[i])) {
            snprintf(t->fs, sizeof t->fs, "%s", i == 1 ? "cifs" : s);
            return 0;
        }
    return lg__spec_fail(c, v, where,
                         "must be cifs (or smb), nfs, iscsi, local or any: what the target's "
                         "filesystem must be, got \"%s\"",
                         lg__spec_q(s, qb, sizeof qb));
}

/* mount: the mount point the target must sit under, e.g. /mnt/nas-smb. */
static int s_target_mount(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                          lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if ((s[0] != '/' && !s_win_absolute(s)) || strlen(s) > S_MAX_PATH)
        return lg__spec_fail(c, v, where, "must be the absolute path of a mount point, got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return lg__spec_fail(c, v, where, "must not contain control characters");
    int rc = s_target_refused(c, v, where, s, s);
    if (rc)
        return rc;
    free(t->mount);
    t->mount = lg__spec_dup(s);
    return t->mount ? 0 : -ENOMEM;
}

void lg__spec_default_protocol(lg_target_t *t)
{
    if (!t->protocol[0])
        snprintf(t->protocol, sizeof t->protocol, "%s",
                 t->kind == LG_TARGET_FILE ? "local" : lg_target_kind_name(t->kind));
}

/* {protocol: smb, target: /mnt/nas/lg.bin} */
static int s_get_target_entry(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                              lg_target_t *t)
{
    if (m->type == YAML_SCALAR_NODE) { /* a bare path */
        int rc = s_target_path(c, m, where, t);
        lg__spec_default_protocol(t);
        return rc;
    }
    if (m->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, m, where, "must be a mapping {protocol, target}, got %s",
                             lg__spec_node_kind(m));
    bool have_target = false;
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "protocol"))
            rc = s_protocol(c, e.vn, e.path, t);
        else if (!strcmp(e.key, "target")) {
            rc = s_target_path(c, e.vn, e.path, t);
            have_target = true;
        } else if (!strcmp(e.key, "agents"))
            rc = lg__spec_get_agents(c, e.vn, e.path, &t->agents);
        else if (!strcmp(e.key, "share"))
            rc = lg__spec_get_share(c, e.vn, e.path, &t->agents);
        else if (!strcmp(e.key, "fs"))
            rc = s_target_fs(c, e.vn, e.path, t);
        else if (!strcmp(e.key, "mount"))
            rc = s_target_mount(c, e.vn, e.path, t);
        else
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in a target: protocol, "
                               "target, agents, share, fs, mount");
        if (rc)
            return rc;
    }
    if (!have_target) {
        char path[160];
        snprintf(path, sizeof path, "%s.target", where);
        return lg__spec_fail(c, m, path, "missing required key");
    }
    lg__spec_default_protocol(t);
    return lg__spec_check_share(c, m, where, t, &t->agents);
}

static int s_get_targets(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                         lg_sutconfig_t *cfg)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, where, "must be a list of {protocol, target}, got %s",
                             lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0 || n > S_MAX_TARGETS)
        return lg__spec_fail(c, v, where, "must list 1 to %d targets", S_MAX_TARGETS);
    if (!(cfg->targets = calloc(n, sizeof *cfg->targets)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char w[160];
        const yaml_node_t *it;
        int rc = lg__spec_item(c, v, where, i, w, sizeof w, &it);
        if (rc)
            return rc;
        cfg->ntargets = i + 1;
        rc = s_get_target_entry(c, it, w, &cfg->targets[i]);
        if (rc)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(cfg->targets[j].protocol, cfg->targets[i].protocol))
                return lg__spec_fail(c, it, w,
                                     "protocol \"%s\" is already given for this config as "
                                     "%s[%zu]",
                                     cfg->targets[i].protocol, where, j);
    }
    return 0;
}

/* One element of configs: {labels: {...}, targets: [...]} or {labels, target, protocol}. */
static int s_get_config(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                        lg_sutconfig_t *cfg)
{
    if (m->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, m, where, "must be a mapping {labels, targets}, got %s",
                             lg__spec_node_kind(m));
    cfg->line = (int)m->start_mark.line + 1;
    const yaml_node_t *target = NULL, *protocol = NULL, *targets = NULL;
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "labels"))
            rc = s_get_labels(c, e.vn, e.path, cfg);
        else if (!strcmp(e.key, "targets"))
            rc = s_get_targets(c, e.vn, e.path, cfg), targets = e.kn;
        else if (!strcmp(e.key, "target"))
            target = e.vn;
        else if (!strcmp(e.key, "protocol"))
            protocol = e.vn;
        else if (!strcmp(e.key, "telemetry"))
            rc = lg__spec_get_telemetry(c, e.vn, e.path, &cfg->telemetry, &cfg->ntelemetry),
            cfg->telemetry_given = true;
        else if (!strcmp(e.key, "reduction"))
            rc = lg__spec_get_reduction(c, e.vn, e.path, cfg);
        else
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in a config: labels, targets (or target "
                               "and protocol), telemetry, reduction");
        if (rc)
            return rc;
    }
    char path[160];
    if (targets && (target || protocol))
        return lg__spec_fail(c, target ? target : protocol, where,
                             "give either targets or target/protocol, not both");
    if (!targets) {
        snprintf(path, sizeof path, "%s.target", where);
        if (!target)
            return lg__spec_fail(c, m, path, "missing required key (or targets)");
        if (!(cfg->targets = calloc(1, sizeof *cfg->targets)))
            return -ENOMEM;
        cfg->ntargets = 1;
        int rc = s_target_path(c, target, path, &cfg->targets[0]);
        if (rc == 0 && protocol) {
            snprintf(path, sizeof path, "%s.protocol", where);
            rc = s_protocol(c, protocol, path, &cfg->targets[0]);
        }
        if (rc)
            return rc;
        lg__spec_default_protocol(&cfg->targets[0]);
    }
    return 0;
}

int lg__spec_get_configs(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, key, "must be a list of SUT configs, got %s",
                             lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0 || n > S_MAX_CONFIGS)
        return lg__spec_fail(c, v, key, "must list 1 to %d configs", S_MAX_CONFIGS);
    if (!(c->spec->configs = calloc(n, sizeof *c->spec->configs)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char w[64];
        const yaml_node_t *it;
        int rc = lg__spec_item(c, v, key, i, w, sizeof w, &it);
        if (rc)
            return rc;
        c->spec->nconfigs = i + 1;
        rc = s_get_config(c, it, w, &c->spec->configs[i]);
        if (rc)
            return rc;
    }
    c->configs_node = v;
    return 0;
}

/* The one-config shorthand: sut.labels, target and protocol at the top level. */
lg_sutconfig_t *lg__spec_implicit(lg__spec_ctx_t *c)
{
    if (!c->spec->configs) {
        c->spec->configs = calloc(1, sizeof *c->spec->configs);
        if (!c->spec->configs)
            return NULL;
        c->spec->nconfigs = 1;
    }
    lg_sutconfig_t *cfg = &c->spec->configs[0];
    if (!cfg->targets) {
        cfg->targets = calloc(1, sizeof *cfg->targets);
        if (!cfg->targets)
            return NULL;
        cfg->ntargets = 1;
    }
    return cfg;
}

int lg__spec_get_sut(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key)
{
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, key, "must be a mapping, got %s", lg__spec_node_kind(v));
    lg_sutconfig_t *cfg = lg__spec_implicit(c);
    if (!cfg)
        return -ENOMEM;
    c->sut_node = v;
    for (size_t i = 0; i < lg__spec_map_len(v); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, v, i, key, &e);
        if (rc)
            return rc;
        if (strcmp(e.key, "labels") != 0)
            return lg__spec_fail(c, e.kn, e.path, "unknown key; allowed under \"sut\": labels");
        if ((rc = s_get_labels(c, e.vn, "sut.labels", cfg)) != 0)
            return rc;
    }
    return 0;
}

int lg__spec_get_target(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key)
{
    lg_sutconfig_t *cfg = lg__spec_implicit(c);
    if (!cfg)
        return -ENOMEM;
    c->target_node = v;
    return s_target_path(c, v, key, &cfg->targets[0]);
}

int lg__spec_get_protocol(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key)
{
    lg_sutconfig_t *cfg = lg__spec_implicit(c);
    if (!cfg)
        return -ENOMEM;
    c->protocol_node = v;
    return s_protocol(c, v, key, &cfg->targets[0]);
}

/* lg_spec_agents.c: the agents: and share: keys of a campaign spec (and of each target): which
 * agents drive a target together, per-agent threads x QD, and how they share the target. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lg_error.h"
#include "lg_spec_int.h"

#define S_MAX_SEL 256

/* Agent label keys as lg-agent --label takes them: [a-z0-9_-]{1,31}. */
static bool s_label_key_ok(const char *k)
{
    size_t n = strlen(k);
    if (n == 0 || n > 31)
        return false;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_' || *k == '-'))
            return false;
    return true;
}

static int s_u32_in(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, uint32_t lo,
                    uint32_t hi, uint32_t *out)
{
    char qb[128];
    const char *end;
    uint64_t n;
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (lg__spec_parse_u64(s, &end, &n) != 0 || *end != '\0' || n < lo || n > hi)
        return lg__spec_fail(c, v, where, "must be an integer from %u to %u, got \"%s\"", lo, hi,
                             lg__spec_q(s, qb, sizeof qb));
    *out = (uint32_t)n;
    return 0;
}

static int s_sel_labels(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                        lg_agentsel_t *sel)
{
    if (m->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, m, where,
                             "must be a mapping of agent labels, e.g. {rack: a}, "
                             "got %s",
                             lg__spec_node_kind(m));
    size_t n = lg__spec_map_len(m);
    if (n == 0 || n > 16)
        return lg__spec_fail(c, m, where, "must give 1 to 16 labels");
    if (!(sel->labels = calloc(n, sizeof *sel->labels)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        if (!s_label_key_ok(e.key))
            return lg__spec_fail(c, e.kn, e.path,
                                 "agent label names are 1 to 31 characters from a-z 0-9 _ - "
                                 "(as lg-agent --label takes them)");
        const char *val = lg__spec_scalar(c, e.vn, e.path);
        if (!val)
            return LG_ESPEC;
        if (!val[0] || strlen(val) > 63)
            return lg__spec_fail(c, e.vn, e.path, "agent label values are 1 to 63 characters");
        lg_label_t *l = &sel->labels[sel->nlabels++];
        l->key = lg__spec_dup(e.key);
        l->value = lg__spec_dup(val);
        if (!l->key || !l->value)
            return -ENOMEM;
    }
    return 0;
}

/* One entry: "name" or {name | labels, threads, qd}. */
static int s_sel(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_agentsel_t *sel)
{
    char qb[128];
    if (v->type == YAML_SCALAR_NODE) {
        const char *s = lg__spec_scalar(c, v, where);
        if (!s)
            return LG_ESPEC;
        if (!lg__spec_valid_name(s, 63))
            return lg__spec_fail(c, v, where, "agent names are " S_NAME_RULE ", got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        return (sel->name = lg__spec_dup(s)) ? 0 : -ENOMEM;
    }
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, where,
                             "must be an agent name or {name or labels, threads, "
                             "qd}, got %s",
                             lg__spec_node_kind(v));
    bool have_labels = false;
    for (size_t i = 0; i < lg__spec_map_len(v); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, v, i, where, &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "name")) {
            const char *s = lg__spec_scalar(c, e.vn, e.path);
            if (!s)
                return LG_ESPEC;
            if (!lg__spec_valid_name(s, 63))
                return lg__spec_fail(c, e.vn, e.path, "agent names are " S_NAME_RULE ", got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            free(sel->name);
            if (!(sel->name = lg__spec_dup(s)))
                return -ENOMEM;
        } else if (!strcmp(e.key, "labels")) {
            rc = s_sel_labels(c, e.vn, e.path, sel);
            have_labels = true;
        } else if (!strcmp(e.key, "threads")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 256, &sel->threads);
        } else if (!strcmp(e.key, "qd")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 1024, &sel->qd);
        } else {
            rc =
                lg__spec_fail(c, e.kn, e.path,
                              "unknown key; allowed in an agents entry: name, labels, threads, qd");
        }
        if (rc)
            return rc;
    }
    if (!sel->name == !have_labels)
        return lg__spec_fail(c, v, where, "give either name or labels");
    return 0;
}

int lg__spec_get_agents(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_agents_t *a)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, where,
                             "must be a list of agent names or {name or labels, threads, qd}, "
                             "got %s",
                             lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0 || n > S_MAX_SEL)
        return lg__spec_fail(c, v, where, "must list 1 to %d agents or label selectors", S_MAX_SEL);
    if (!(a->sel = calloc(n, sizeof *a->sel)))
        return -ENOMEM;
    a->sel_given = true;
    for (size_t i = 0; i < n; i++) {
        char w[160];
        const yaml_node_t *it;
        int rc = lg__spec_item(c, v, where, i, w, sizeof w, &it);
        if (rc)
            return rc;
        a->nsel = i + 1;
        rc = s_sel(c, it, w, &a->sel[i]);
        if (rc)
            return rc;
        for (size_t j = 0; a->sel[i].name && j < i; j++)
            if (a->sel[j].name && !strcmp(a->sel[j].name, a->sel[i].name))
                return lg__spec_fail(c, it, w, "agent \"%s\" is already listed as %s[%zu]",
                                     a->sel[i].name, where, j);
    }
    return 0;
}

int lg__spec_get_share(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_agents_t *a)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (lg_share_parse(s, &a->share) == 0) {
        a->share_given = true;
        return 0;
    }
    return lg__spec_fail(c, v, where,
                         "must be files (each agent its own file), range (each its own slice of "
                         "a block device), whole (all on the whole target) or auto, got \"%s\"",
                         lg__spec_q(s, qb, sizeof qb));
}

/* A share that cannot work with the target's kind. */
int lg__spec_check_share(lg__spec_ctx_t *c, const yaml_node_t *at, const char *where,
                         const lg_target_t *t, const lg_agents_t *a)
{
    if (a->share == LG_SHARE_RANGE && (t->kind == LG_TARGET_FILE || t->kind == LG_TARGET_SMB))
        return lg__spec_fail(c, at, where,
                             "share: range needs a block device or LUN (\"%s\" is a file: use "
                             "files, each agent its own, or whole)",
                             t->path);
    if (a->share == LG_SHARE_FILES && (t->kind == LG_TARGET_BLOCK || t->kind == LG_TARGET_ISCSI))
        return lg__spec_fail(c, at, where,
                             "share: files needs a file target (\"%s\" is a device: use "
                             "range, each agent its own slice, or whole)",
                             t->path);
    return 0;
}

void lg__spec_agents_clear(lg_agents_t *a)
{
    for (size_t i = 0; i < a->nsel; i++) {
        free(a->sel[i].name);
        for (size_t k = 0; k < a->sel[i].nlabels; k++) {
            free(a->sel[i].labels[k].key);
            free(a->sel[i].labels[k].value);
        }
        free(a->sel[i].labels);
    }
    free(a->sel);
    memset(a, 0, sizeof *a);
}

lg_agents_t lg_spec_agents(const lg_spec_t *spec, const lg_target_t *t)
{
    lg_agents_t a = t->agents.sel_given ? t->agents : spec->agents;
    if (!t->agents.share_given)
        a.share = spec->agents.share;
    else
        a.share = t->agents.share;
    return a;
}

char *lg_agents_json(const lg_agents_t *a)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    for (size_t i = 0; i < a->nsel; i++) {
        const lg_agentsel_t *s = &a->sel[i];
        json_t *o = json_object();
        if (s->name)
            json_object_set_new(o, "name", json_string(s->name));
        if (s->nlabels) {
            json_t *l = json_object();
            for (size_t k = 0; k < s->nlabels; k++)
                json_object_set_new(l, s->labels[k].key, json_string(s->labels[k].value));
            json_object_set_new(o, "labels", l);
        }
        if (s->threads)
            json_object_set_new(o, "threads", json_integer(s->threads));
        if (s->qd)
            json_object_set_new(o, "qd", json_integer(s->qd));
        json_array_append_new(arr, o);
    }
    char *text = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return text;
}

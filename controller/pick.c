/* pick.c: which agents drive a run together (names, label selectors, per-agent threads x QD)
 * and how they share its target without overlapping (own files, own slices, or the whole). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ctrl.h"
#include "lg_util.h"

static int s_idle(const lg_agent_conn_t *a)
{
    return !a->lost && a->agent_id &&
           (a->state == LG__AGENT_STATE__AGENT_IDLE ||
            a->state == LG__AGENT_STATE__AGENT_STATE_UNKNOWN);
}

/* An agent the selection takes that is connected but still busy (with an earlier run it came
 * back to after it was lost): said in why, the first one only, for the caller to wait for. */
static void s_note_busy(const lg_agent_conn_t *a, char *why, size_t whylen)
{
    if (!a->lost && a->agent_id && !why[0])
        snprintf(why, whylen, "agent \"%s\" is still busy with run %llu", a->name,
                 (unsigned long long)a->run_id);
}

/* Does the agent's "k=v\n..." carry label key=value? */
static int s_has_label(const lg_agent_conn_t *a, const char *key, const char *value)
{
    char want[160];
    snprintf(want, sizeof want, "%s=%s", key, value);
    size_t wl = strlen(want);
    for (const char *p = a->labels; *p;) {
        size_t len = strcspn(p, "\n");
        if (len == wl && memcmp(p, want, wl) == 0)
            return 1;
        p += len + (p[len] == '\n');
    }
    return 0;
}

static int s_matches(const lg_agent_conn_t *a, json_t *labels)
{
    const char *k;
    json_t *v;
    json_object_foreach(labels, k, v)
    {
        if (!json_is_string(v) || !s_has_label(a, k, json_string_value(v)))
            return 0;
    }
    return 1;
}

static uint32_t s_u32(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint32_t)json_integer_value(v) : 0;
}

size_t lg__pick_agents(lg_ctrl_t *c, const char *selection, size_t *conns, uint32_t *threads,
                       uint32_t *qd, size_t max, char *why, size_t whylen)
{
    size_t n = 0;
    json_error_t je;
    json_t *sel = json_loads(selection && selection[0] ? selection : "[]", 0, &je);
    if (!json_is_array(sel)) {
        snprintf(why, whylen, "its agent selection is unreadable: %s", je.text);
        json_decref(sel);
        return 0;
    }
    if (json_array_size(sel) == 0) {
        for (size_t i = 0; i < c->nagents && n < max; i++) {
            if (!s_idle(&c->agents[i])) {
                s_note_busy(&c->agents[i], why, whylen);
                continue;
            }
            conns[n] = i;
            threads[n] = qd[n] = 0;
            n++;
        }
        if (n == 0)
            snprintf(why, whylen, "no agent is idle");
    }
    size_t idx;
    json_t *e;
    json_array_foreach(sel, idx, e)
    {
        json_t *name = json_object_get(e, "name"), *labels = json_object_get(e, "labels");
        size_t before = n;
        for (size_t i = 0; i < c->nagents && n < max; i++) {
            const lg_agent_conn_t *a = &c->agents[i];
            if (!a->agent_id)
                continue;
            if (json_is_string(name) ? strcmp(a->name, json_string_value(name)) != 0
                                     : !json_is_object(labels) || !s_matches(a, labels))
                continue;
            size_t k = 0;
            while (k < n && conns[k] != i)
                k++;
            if (k < n)
                continue; /* picked by an earlier entry */
            if (!s_idle(a)) {
                if (json_is_string(name)) {
                    snprintf(why, whylen, "agent \"%s\" is %s", a->name, a->lost ? "lost" : "busy");
                    json_decref(sel);
                    return 0;
                }
                s_note_busy(a, why, whylen);
                continue;
            }
            conns[n] = i;
            threads[n] = s_u32(e, "threads");
            qd[n] = s_u32(e, "qd");
            n++;
        }
        if (n == before) {
            if (json_is_string(name)) {
                snprintf(why, whylen, "agent \"%s\" is not connected", json_string_value(name));
            } else {
                char *l = json_dumps(labels, JSON_COMPACT);
                snprintf(why, whylen, "no idle agent has the labels %s", l ? l : "?");
                free(l);
            }
            json_decref(sel);
            return 0;
        }
    }
    json_decref(sel);
    /* By name, so that shares (files, slices) go to the same agents run after run. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i;
             j > 0 && strcmp(c->agents[conns[j - 1]].name, c->agents[conns[j]].name) > 0; j--) {
            size_t tc = conns[j];
            conns[j] = conns[j - 1];
            conns[j - 1] = tc;
            uint32_t tt = threads[j];
            threads[j] = threads[j - 1];
            threads[j - 1] = tt;
            tt = qd[j];
            qd[j] = qd[j - 1];
            qd[j - 1] = tt;
        }
    return n;
}

int lg__share_assign(lg_ctrl_t *c, lg_share_t share)
{
    lg_current_t *cur = &c->cur;
    size_t n = cur->nra;
    int kind = cur->spec.target_kind;
    lg_share_t s = share;
    if (s == LG_SHARE_AUTO)
        s = kind == LG__TARGET_KIND__TARGET_BLOCK || kind == LG__TARGET_KIND__TARGET_ISCSI
                ? LG_SHARE_RANGE
            : kind == LG__TARGET_KIND__TARGET_FILE || kind == LG__TARGET_KIND__TARGET_SMB
                ? LG_SHARE_FILES
                : LG_SHARE_WHOLE;
    /* A slice is a whole number of the run's largest block, and at least one. */
    uint64_t unit = cur->spec.bs ? cur->spec.bs : 4096;
    for (size_t b = 0; b < cur->spec.n_bssplit; b++)
        if (cur->spec.bssplit[b]->bs > unit)
            unit = cur->spec.bssplit[b]->bs;
    uint64_t part = n ? cur->spec.size / n / unit * unit : 0;
    for (size_t i = 0; i < n; i++) {
        lg_run_agent_t *ra = &cur->ra[i];
        free(ra->target);
        ra->target = NULL;
        ra->offset = 0;
        ra->size = cur->spec.size;
        if (n < 2 || s == LG_SHARE_WHOLE || part == 0)
            continue;
        ra->size = part;
        if (s == LG_SHARE_RANGE) {
            ra->offset = part * i;
        } else { /* files: PATH.AGENT */
            const char *name = ra->conn >= 0 ? c->agents[ra->conn].name : "agent";
            size_t len = strlen(cur->target) + strlen(name) + 2;
            if (!(ra->target = malloc(len)))
                return -ENOMEM;
            snprintf(ra->target, len, "%s.%s", cur->target, name);
        }
    }
    return 0;
}

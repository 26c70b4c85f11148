/* agentmap.c: see agentmap.h. Linear probing over a power-of-two table kept at most half full
 * (removed slots included), rebuilt at four times the live keys when it fills; the keys stay in
 * the agents array, the index holds positions and full hashes. */
#include "agentmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "lg_log.h"

#define GONE UINT32_MAX
#define MIN_CAP 64

typedef enum { BY_ID, BY_NAME } kind_t;

static lg_agentmap_t *s_map(const lg_ctrl_t *c, kind_t kind)
{
    return (lg_agentmap_t *)(kind == BY_ID ? &c->by_id : &c->by_name);
}

/* The key of connection conn in this index: its routing id or its name. */
static const uint8_t *s_key(const lg_ctrl_t *c, kind_t kind, size_t conn, size_t *len)
{
    const lg_agent_conn_t *a = &c->agents[conn];
    if (kind == BY_ID) {
        *len = a->idlen;
        return a->id;
    }
    *len = strlen(a->name);
    return (const uint8_t *)a->name;
}

/* FNV-1a, 64 bits folded to 32; never 0, so that a stored hash is never mistaken for none. */
static uint32_t s_hash(const uint8_t *k, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ k[i]) * 0x100000001b3ull;
    uint32_t x = (uint32_t)(h ^ (h >> 32));
    return x ? x : 1;
}

/* The slot holding key, or the capacity when there is none. */
static size_t s_find(const lg_ctrl_t *c, kind_t kind, const uint8_t *key, size_t len, uint32_t h)
{
    const lg_agentmap_t *m = s_map(c, kind);
    if (!m->cap)
        return 0;
    for (size_t i = h & (m->cap - 1), n = 0; n < m->cap; i = (i + 1) & (m->cap - 1), n++) {
        uint32_t s = m->slot[i];
        if (s == 0)
            break;
        if (s == GONE || m->hash[i] != h)
            continue;
        size_t klen;
        const uint8_t *k = s_key(c, kind, s - 1, &klen);
        if (klen == len && memcmp(k, key, len) == 0)
            return i;
    }
    return m->cap;
}

/* Place position pos (hash h) in the first free slot of its probe sequence; the table has room. */
static void s_place(lg_agentmap_t *m, uint32_t pos, uint32_t h)
{
    size_t i = h & (m->cap - 1);
    while (m->slot[i] != 0 && m->slot[i] != GONE)
        i = (i + 1) & (m->cap - 1);
    if (m->slot[i] == 0)
        m->used++;
    m->slot[i] = pos + 1;
    m->hash[i] = h;
}

/* Room for one more key: the table rebuilt, without its removed slots, when it is half full. */
static int s_room(lg_agentmap_t *m)
{
    if (m->cap && (m->used + 1) * 2 <= m->cap)
        return 0;
    size_t live = 0;
    for (size_t i = 0; i < m->cap; i++)
        live += m->slot[i] != 0 && m->slot[i] != GONE;
    size_t cap = MIN_CAP;
    while (cap < (live + 1) * 4)
        cap *= 2;
    lg_agentmap_t n = {calloc(cap, sizeof *n.slot), calloc(cap, sizeof *n.hash), cap, 0};
    if (!n.slot || !n.hash) {
        free(n.slot);
        free(n.hash);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i] != 0 && m->slot[i] != GONE)
            s_place(&n, m->slot[i] - 1, m->hash[i]);
    free(m->slot);
    free(m->hash);
    *m = n;
    return 0;
}

static ssize_t s_lookup(const lg_ctrl_t *c, kind_t kind, const uint8_t *key, size_t len)
{
    const lg_agentmap_t *m = s_map(c, kind);
    if (!len || !m->cap)
        return -1;
    size_t i = s_find(c, kind, key, len, s_hash(key, len));
    return i < m->cap ? (ssize_t)m->slot[i] - 1 : -1;
}

ssize_t lg__agents_by_id(const lg_ctrl_t *c, const uint8_t *id, size_t idlen)
{
    return s_lookup(c, BY_ID, id, idlen);
}

ssize_t lg__agents_by_name(const lg_ctrl_t *c, const char *name)
{
    return s_lookup(c, BY_NAME, (const uint8_t *)name, strlen(name));
}

static int s_put(lg_ctrl_t *c, kind_t kind, size_t conn)
{
    size_t len;
    const uint8_t *key = s_key(c, kind, conn, &len);
    if (!len)
        return 0;
    lg_agentmap_t *m = s_map(c, kind);
    uint32_t h = s_hash(key, len);
    size_t i = s_find(c, kind, key, len, h);
    if (i < m->cap) { /* another connection's key until now: this one takes it over */
        m->slot[i] = (uint32_t)conn + 1;
        return 0;
    }
    if (s_room(m) != 0)
        return -ENOMEM;
    s_place(m, (uint32_t)conn, h);
    return 0;
}

static void s_del(lg_ctrl_t *c, kind_t kind, size_t conn)
{
    size_t len;
    const uint8_t *key = s_key(c, kind, conn, &len);
    lg_agentmap_t *m = s_map(c, kind);
    if (!len || !m->cap)
        return;
    size_t i = s_find(c, kind, key, len, s_hash(key, len));
    if (i < m->cap && m->slot[i] == conn + 1)
        m->slot[i] = GONE;
}

int lg__agents_index(lg_ctrl_t *c, size_t conn)
{
    if (s_put(c, BY_ID, conn) == 0 && s_put(c, BY_NAME, conn) == 0)
        return 0;
    lg__agents_unindex(c, conn);
    lg_error("could not index agent \"%s\": out of memory", c->agents[conn].name);
    return -ENOMEM;
}

void lg__agents_unindex(lg_ctrl_t *c, size_t conn)
{
    s_del(c, BY_ID, conn);
    s_del(c, BY_NAME, conn);
}

void lg__agents_index_clear(lg_ctrl_t *c)
{
    for (int k = BY_ID; k <= BY_NAME; k++) {
        lg_agentmap_t *m = s_map(c, (kind_t)k);
        free(m->slot);
        free(m->hash);
        memset(m, 0, sizeof *m);
    }
}

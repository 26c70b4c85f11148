/* agentmap.h: the controller's agents found by their ZeroMQ routing id and by their name in
 * constant time: two open-addressing indexes of positions in lg_ctrl_t's agents array. Every
 * message from an agent looks its connection up by routing id; a scan of the array per message
 * cost O(agents) each (about 1 ms a message at 10,000 agents). */
#ifndef LG_AGENTMAP_H
#define LG_AGENTMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One index: slot[i] is a position in the agents array + 1 (0: empty, UINT32_MAX: removed),
 * hash[i] the full hash of its key. Zeroed is empty. */
typedef struct {
    uint32_t *slot;
    uint32_t *hash;
    size_t cap;  /* a power of two, or 0 */
    size_t used; /* live and removed slots */
} lg_agentmap_t;

struct lg_ctrl;

/* The connection whose routing id is id (idlen bytes), or -1. */
ssize_t lg__agents_by_id(const struct lg_ctrl *c, const uint8_t *id, size_t idlen);
/* The connection registered as name, or -1. */
ssize_t lg__agents_by_name(const struct lg_ctrl *c, const char *name);
/* Index connection conn under its routing id and its name as they are now (an empty name or id
 * is not indexed; a key indexed for another connection is taken over). Returns 0 or -ENOMEM
 * (said; the connection is then found by neither). */
int lg__agents_index(struct lg_ctrl *c, size_t conn);
/* Take connection conn out of both indexes, under the id and name it has now: call this before
 * changing either, then lg__agents_index. */
void lg__agents_unindex(struct lg_ctrl *c, size_t conn);
/* Free both indexes (the controller is stopping). */
void lg__agents_index_clear(struct lg_ctrl *c);

#endif

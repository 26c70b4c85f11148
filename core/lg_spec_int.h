/* lg_spec_int.h: the spec parser's internals, shared by lg_spec.c (entry points), lg_spec_walk.c
 * (the walker and the checks that span keys), lg_spec_keys.c (the table of top-level keys, one
 * handler each), the files of the bigger keys (lg_spec_profiles.c, lg_spec_configs.c,
 * lg_spec_agents.c, lg_spec_telem.c) and lg_spec_node.c (the machinery they all use). Calls run
 * in that order, never back. Not a public API. */
#ifndef LG_SPEC_INT_H
#define LG_SPEC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "lg_spec.h"

/* Specs are hand-written; anything bigger is a mistake (or hostile) and would only make
 * libyaml and the quadratic duplicate checks do pointless work. */
#define S_MAX_TEXT (1024u * 1024u)
#define S_MAX_PROFILES 64
#define S_MAX_LABELS 256
#define S_MAX_LABEL_VALUE 255
/* The labels of a config, as the database keeps them (jsonb under a unique btree index, whose
 * rows hold at most 2704 bytes): their names and values together, with room for the JSON. */
#define S_MAX_LABELS_BYTES 2000
/* Runs of one campaign: beyond this, split it (submit stores the whole matrix at once). */
#define S_MAX_RUNS 100000
#define S_MAX_PATH 4095
#define S_MAX_DEPTH 16
#define S_MAX_CONFIGS 64
#define S_MAX_TARGETS 16

#if defined(__GNUC__)
#define S_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define S_PRINTF(a, b)
#endif

#define S_NAME_RULE "1 to 63 characters from A-Z a-z 0-9 . _ -"

typedef struct {
    yaml_document_t *doc;
    lg_spec_t *spec;
    lg_spec_diag_t *diag;
    const yaml_node_t *size_node;     /* where "size" was given, for the size-vs-bs check */
    const yaml_node_t *profiles_node; /* the "profiles" key, for the run-count limit */
    const yaml_node_t *configs_node, *sut_node, *target_node, *protocol_node, *precond_node,
        *data_node, *share_node;
} lg__spec_ctx_t;

/* One key: value pair of a mapping, with its key already checked. */
typedef struct {
    const char *key;
    const yaml_node_t *kn, *vn;
    char path[128]; /* dotted path of the value, for messages */
} lg__spec_entry_t;

/* ---- the machinery (lg_spec_node.c) ---- */
/* Record an error at node and return LG_ESPEC. */
S_PRINTF(4, 5)
int lg__spec_fail(lg__spec_ctx_t *c, const yaml_node_t *node, const char *key, const char *fmt,
                  ...);
S_PRINTF(5, 6)
int lg__spec_fail_at(lg_spec_diag_t *d, int line, int col, const char *key, const char *fmt, ...);
/* User text made safe for a one-line message (truncated, control bytes escaped) into buf. */
const char *lg__spec_q(const char *s, char *buf, size_t len);
/* Strict decimal digits; *end points after them. */
int lg__spec_parse_u64(const char *s, const char **end, uint64_t *out);
bool lg__spec_valid_name(const char *s, size_t max);
const char *lg__spec_node_kind(const yaml_node_t *n);
/* The scalar's text, or NULL after recording an error. */
const char *lg__spec_scalar(lg__spec_ctx_t *c, const yaml_node_t *n, const char *key);
size_t lg__spec_map_len(const yaml_node_t *map);
/* Pair i of map (path `where`): a scalar key not given before. */
int lg__spec_entry(lg__spec_ctx_t *c, const yaml_node_t *map, size_t i, const char *where,
                   lg__spec_entry_t *e);
/* Item i of sequence seq (path `where`): *it, with its path "where[i]" in w. */
int lg__spec_item(lg__spec_ctx_t *c, const yaml_node_t *seq, const char *where, size_t i, char *w,
                  size_t wlen, const yaml_node_t **it);
/* Caller owns the result; NULL on allocation failure. */
char *lg__spec_dup(const char *s);
/* true or false (YAML 1.2 core schema spellings) into *out. */
int lg__spec_bool(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, bool *out);

/* ---- the top-level keys (lg_spec_keys.c), walked by lg_spec_walk.c ---- */
typedef struct lg__spec_field lg__spec_field_t;
typedef int (*lg__spec_get_fn)(lg__spec_ctx_t *c, const yaml_node_t *v, const lg__spec_field_t *f);
/* One table drives parsing, ranges and the "allowed keys" hint (defaults: lg_spec_parse_text). */
struct lg__spec_field {
    const char *key;
    bool required;
    lg__spec_get_fn get;
    size_t offset; /* into lg_spec_t, for the generic handlers */
    uint64_t min, max;
};
/* The table's entries the walker treats apart, at fixed places: configs is read first, and with
 * it the one-config shorthand (sut, target, protocol) is refused. */
enum {
    LG__SPEC_K_SUT = 1,
    LG__SPEC_K_TARGET = 2,
    LG__SPEC_K_PROTOCOL = 3,
    LG__SPEC_K_CONFIGS = 4,
    LG__SPEC_NKEYS = 21
};
/* The table: LG__SPEC_NKEYS entries, in the order the "allowed keys" hint names them. */
extern const lg__spec_field_t *const lg__spec_fields;
/* Record "unknown key; allowed: ..." (every key of the table) at kn; returns LG_ESPEC. */
int lg__spec_unknown_key(lg__spec_ctx_t *c, const yaml_node_t *kn, const char *path);
/* telemetry: (a list of sources) and reduction: (a probe of the operator's and its parameters)
 * (lg_spec_telem.c) */
int lg__spec_get_telemetry(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                           lg_telemetry_t **out, size_t *n);
int lg__spec_get_reduction(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                           lg_sutconfig_t *cfg);
/* agents: and share: (lg_spec_agents.c) */
int lg__spec_get_agents(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_agents_t *a);
int lg__spec_get_share(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_agents_t *a);
int lg__spec_check_share(lg__spec_ctx_t *c, const yaml_node_t *at, const char *where,
                         const lg_target_t *t, const lg_agents_t *a);
/* Frees what a holds (not a itself) and zeroes it. */
void lg__spec_agents_clear(lg_agents_t *a);
/* profiles: (lg_spec_profiles.c) */
int lg__spec_get_profiles(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key);
/* configs: with their labels and targets, and the one-config shorthand sut:, target:, protocol:
 * (lg_spec_configs.c) */
int lg__spec_get_configs(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key);
int lg__spec_get_sut(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key);
int lg__spec_get_target(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key);
int lg__spec_get_protocol(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key);
/* The shorthand's one config with its one target, made on first use (owned by c->spec); NULL
 * when out of memory. */
lg_sutconfig_t *lg__spec_implicit(lg__spec_ctx_t *c);
/* A target without protocol: gets its kind's: null, block, smb, iscsi, else local. */
void lg__spec_default_protocol(lg_target_t *t);

/* Walk the top-level mapping into c->spec and check what spans keys (lg_spec_walk.c). */
int lg__spec_walk_top(lg__spec_ctx_t *c, const yaml_node_t *root);

#endif

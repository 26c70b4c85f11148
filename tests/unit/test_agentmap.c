/* test_agentmap: the controller's index of its agents by routing id and by name
 * (controller/agentmap.c): lookups, a name or routing id that changes hands, removal, and growth
 * past many keys and removals, checked against a scan of the array as the controller did before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agentmap.h"
#include "ctrl.h"

static lg_ctrl_t *s_ctrl(size_t n)
{
    lg_ctrl_t *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->agents = calloc(n, sizeof *c->agents);
    assert_non_null(c->agents);
    c->agents_cap = n;
    return c;
}

static void s_ctrl_destroy(lg_ctrl_t **self_p)
{
    lg_ctrl_t *c = *self_p;
    *self_p = NULL;
    lg__agents_index_clear(c);
    free(c->agents);
    free(c);
}

/* Connection k with routing id "rid-<id>" and name name ("" for none). */
static void s_set(lg_ctrl_t *c, size_t k, unsigned id, const char *name)
{
    lg_agent_conn_t *a = &c->agents[k];
    a->idlen = (size_t)snprintf((char *)a->id, sizeof a->id, "rid-%u", id);
    snprintf(a->name, sizeof a->name, "%s", name);
    if (k >= c->nagents)
        c->nagents = k + 1;
}

static ssize_t s_by_id(lg_ctrl_t *c, unsigned id)
{
    char rid[32];
    int n = snprintf(rid, sizeof rid, "rid-%u", id);
    return lg__agents_by_id(c, (const uint8_t *)rid, (size_t)n);
}

static void test_lookup(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(4);
    assert_int_equal(s_by_id(c, 1), -1); /* empty: nothing found, nothing allocated */
    assert_int_equal(lg__agents_by_name(c, "a"), -1);
    s_set(c, 0, 1, "alpha");
    s_set(c, 1, 2, "beta");
    s_set(c, 2, 3, ""); /* connected, no name yet */
    for (size_t k = 0; k < 3; k++)
        assert_int_equal(lg__agents_index(c, k), 0);
    assert_int_equal(s_by_id(c, 1), 0);
    assert_int_equal(s_by_id(c, 2), 1);
    assert_int_equal(s_by_id(c, 3), 2);
    assert_int_equal(s_by_id(c, 4), -1);
    assert_int_equal(lg__agents_by_name(c, "alpha"), 0);
    assert_int_equal(lg__agents_by_name(c, "beta"), 1);
    assert_int_equal(lg__agents_by_name(c, ""), -1);
    assert_int_equal(lg__agents_by_name(c, "alph"), -1);
    /* a routing id that is a prefix of another's is another key */
    uint8_t pre[] = "rid-";
    assert_int_equal(lg__agents_by_id(c, pre, 4), -1);
    assert_int_equal(lg__agents_by_id(c, pre, 0), -1);
    s_ctrl_destroy(&c);
}

static void test_changes(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(4);
    s_set(c, 0, 1, "alpha");
    s_set(c, 1, 2, "beta");
    lg__agents_index(c, 0);
    lg__agents_index(c, 1);
    /* conn 0 renames itself (plaintext): out under its old name, in under its new one */
    lg__agents_unindex(c, 0);
    s_set(c, 0, 1, "gamma");
    lg__agents_index(c, 0);
    assert_int_equal(lg__agents_by_name(c, "alpha"), -1);
    assert_int_equal(lg__agents_by_name(c, "gamma"), 0);
    assert_int_equal(s_by_id(c, 1), 0);
    /* "beta" on a new connection (routing id 7): the old one (1) takes the new id over */
    lg__agents_unindex(c, 1);
    s_set(c, 1, 7, "beta");
    lg__agents_index(c, 1);
    assert_int_equal(s_by_id(c, 2), -1);
    assert_int_equal(s_by_id(c, 7), 1);
    assert_int_equal(lg__agents_by_name(c, "beta"), 1);
    /* a key indexed for another connection is taken over; the first one's removal leaves it */
    s_set(c, 2, 7, "");
    lg__agents_index(c, 2);
    assert_int_equal(s_by_id(c, 7), 2);
    lg__agents_unindex(c, 1);
    assert_int_equal(s_by_id(c, 7), 2);
    assert_int_equal(lg__agents_by_name(c, "beta"), -1);
    s_ctrl_destroy(&c);
}

/* Many agents, many renames (removed slots), checked against a scan. */
static void test_many(void **state)
{
    (void)state;
    enum { N = 5000 };
    lg_ctrl_t *c = s_ctrl(N);
    char name[64];
    for (size_t k = 0; k < N; k++) {
        snprintf(name, sizeof name, "agent%05zu", k);
        s_set(c, k, (unsigned)k, name);
        assert_int_equal(lg__agents_index(c, k), 0);
    }
    for (int round = 0; round < 3; round++)
        for (size_t k = 0; k < N; k += 3) {
            lg__agents_unindex(c, k);
            snprintf(name, sizeof name, "agent%05zu-%d", k, round);
            s_set(c, k, (unsigned)(k + N * (size_t)(round + 1)), name);
            lg__agents_index(c, k);
        }
    assert_true(c->by_id.cap <= 4 * 4 * N && c->by_name.cap <= 4 * 4 * N);
    for (size_t k = 0; k < N; k++) {
        const lg_agent_conn_t *a = &c->agents[k];
        assert_int_equal(lg__agents_by_id(c, a->id, a->idlen), (ssize_t)k);
        assert_int_equal(lg__agents_by_name(c, a->name), (ssize_t)k);
        if (k % 3 == 0) { /* the names and ids they gave up find nothing */
            snprintf(name, sizeof name, "agent%05zu", k);
            assert_int_equal(lg__agents_by_name(c, name), -1);
            assert_int_equal(s_by_id(c, (unsigned)k), -1);
        }
    }
    s_ctrl_destroy(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_changes),
        cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* lg_setcheck.h: the operator's read-back check of a SUT config. Before a config is measured the
 * between-configs hook sets the NAS up (compression, dedup, ...); the controller's --readback
 * command then reads the settings back and prints what it read, a setting a line:
 *
 *   compression=lz4            KEY=VALUE
 *   dedup   off                KEY VALUE (spaces or a tab: `zfs get -H -o property,value`)
 *
 * Blank lines and lines starting with '#' are skipped. A key that is one of the config's labels
 * must read the label's value (letter case aside); keys that are not labels are kept and shown.
 * A check that read none of the labels checked nothing, and says so. Pure C: no I/O. */
#ifndef LG_SETCHECK_H
#define LG_SETCHECK_H

#include <stddef.h>

#define LG_SETCHECK_MAX 64 /* settings kept of one check */

/* What a check printed, against the config's labels (a JSON object of strings).
 * Returns 0 when every label it read matches, with *read_json (caller frees) the settings read
 * as a JSON object in the order printed; 1 on a mismatch and -1 when it read no label or printed
 * no setting, each with why (naming the key, the label's value and what was read) and
 * *read_json set as well when anything was read; -2 on bad labels or no memory. */
int lg_setcheck_compare(const char *out, size_t len, const char *labels_json, char **read_json,
                        char *why, size_t whylen);

#endif

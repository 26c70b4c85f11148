/* lg_reduction.h: what a config's reduction: probe printed (issue 31), read into the bytes the
 * NAS holds logically and the bytes it stores physically, whose ratio is the data reduction it
 * achieved. Pure: no I/O, so the controller, the unit tests and the fuzzer share it. */
#ifndef LG_REDUCTION_H
#define LG_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

/* Reads text (len bytes, not necessarily NUL-terminated; it comes from a program on, or
 * talking to, the NAS) in whichever of these forms it is:
 *  - "logical_bytes=N physical_bytes=N": whitespace-separated KEY=VALUE tokens, in any order,
 *    others ignored;
 *  - the output of "zfs get -Hp logicalused,used DATASET" (or logicalreferenced,referenced):
 *    lines NAME<TAB>PROPERTY<TAB>VALUE<TAB>SOURCE for one dataset, values in bytes;
 *  - the output of "compsize -b PATH" (btrfs-compsize): logical is the TOTAL row's
 *    Uncompressed, physical its Disk Usage.
 * Figures are whole numbers of bytes up to 2^63 - 1 (what PostgreSQL's bigint holds).
 * Returns 0 with *logical and *physical set (physical is never 0), or LG_EPARSE with err saying
 * what is wrong, what was expected and what the text began with (control characters and bytes
 * that are not UTF-8 escaped: err is safe to log and to store); then *logical and *physical are
 * left alone. */
int lg_reduction_parse(const char *text, size_t len, uint64_t *logical, uint64_t *physical,
                       char *err, size_t errlen);

#endif

/* sodium_heap.c: libsodium's guarded allocator, replaced in lg-controller by the heap.
 *
 * libzmq 4.3 takes the plaintext of every CURVE message, and each handshake's keys, from
 * sodium_allocarray() and gives them back with sodium_free(). libsodium serves each call with
 * its own mapping: mmap, guard pages set with mprotect, mlock, and on free munlock, munmap. Every
 * mprotect and munmap flushes the TLB of each CPU the process runs on. With a thousand agents
 * that was a quarter of the controller's samples under perf while they registered, and it held
 * the ZeroMQ I/O thread, so Pongs to agents already registered waited for it.
 *
 * Defined in the executable, these two take the place of libsodium's for libzmq (the dynamic
 * linker binds a library's calls to the executable's definition first). What stays: the memory
 * is wiped when freed, as sodium_free does. What goes: guard pages (an overrun of a libzmq buffer
 * is no longer trapped) and mlock (a transient key may reach swap, as lg's own long-term key
 * already may). tests/CMakeLists.txt checks that lg-controller still exports both names. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The size ahead of each block, padded so that the caller's block keeps malloc's alignment. */
typedef union {
    size_t n;
    max_align_t align;
} s_head_t;

void *sodium_malloc(size_t n);
void *sodium_allocarray(size_t count, size_t size);
void sodium_free(void *p);

void *sodium_malloc(size_t n)
{
    if (n > SIZE_MAX - sizeof(s_head_t))
        return NULL;
    s_head_t *h = malloc(sizeof *h + n);
    if (!h)
        return NULL;
    h->n = n;
    return h + 1;
}

void *sodium_allocarray(size_t count, size_t size)
{
    if (count > 0 && size >= SIZE_MAX / count)
        return NULL; /* as libsodium: errno is left to malloc's */
    return sodium_malloc(count * size);
}

void sodium_free(void *p)
{
    if (!p)
        return;
    s_head_t *h = (s_head_t *)p - 1;
    explicit_bzero(p, h->n);
    free(h);
}

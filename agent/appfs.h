/* appfs.h: the filesystem and network checks of an application run: its folders made and
 * removed without ever following a link or crossing into another filesystem, whether the
 * application user can reach a folder, and whether a server listens on TCP. POSIX only. */
#ifndef LG_APPFS_H
#define LG_APPFS_H

#include <stddef.h>
#include <sys/types.h>

/* A folder we made: held open (and its parent), so that removing it never follows a link.
 * fd and pfd are -1 when closed. */
typedef struct {
    int pfd, fd;
    char name[256];
    char path[1100];
} lg_appfs_folder_t;

/* Make the folder name (0700) below the open folder pfd (taken over: f owns it from then on,
 * and closes it on failure); parent is pfd's path, for f->path and messages. With give, the
 * folder is then given to uid/gid. Fails when it exists: nothing that was there before is ever
 * used or removed. Returns 0, or a negative errno / LG_EDENIED with err saying why (f is then
 * closed). */
int lg_appfs_folder_make(lg_appfs_folder_t *f, int pfd, const char *parent, const char *name,
                         int give, uid_t uid, gid_t gid, char *err, size_t errlen);

/* Remove f's contents and f itself, if its name still leads to the folder we hold; never
 * through a link, never into another filesystem mounted inside. f stays open (see
 * lg_appfs_folder_close). Returns 0 (also when f is not open), or a negative errno / LG_EDENIED
 * with err saying what was left. Safe on a worker thread while nothing else touches f. */
int lg_appfs_folder_rm(lg_appfs_folder_t *f, char *err, size_t errlen);

/* Close what f holds (not removing anything); f's fds are -1 afterwards. */
void lg_appfs_folder_close(lg_appfs_folder_t *f);

/* Can uid/gid reach into dir (search permission on every folder of the path)? 1 if so; else 0
 * with the first folder it cannot enter in bad. */
int lg_appfs_reachable(uid_t uid, gid_t gid, const char *dir, char *bad, size_t blen);

/* Does process pid hold a listening TCP socket (IPv4 or IPv6, from /proc)? 1 with what saying
 * where, 0 if not, -1 with what saying why it could not be checked. */
int lg_appfs_tcp_listens(int pid, char *what, size_t wlen);

#endif

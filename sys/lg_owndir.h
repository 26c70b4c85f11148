/* lg_owndir.h: the folders lg writes into are its own. lg runs as root on machines other people
 * log into: a folder another user made (or can rename, or can write into) lets that user swap a
 * file lg writes for a link to one of root's, or a job file for one of their own. So a folder is
 * used only when it and every folder above it are out of other users' hands, and files in it are
 * created anew (O_EXCL|O_NOFOLLOW), never opened through a name someone else could have set. */
#ifndef LG_OWNDIR_H
#define LG_OWNDIR_H

#include <stddef.h>
#include <stdio.h>

/* lg_owndir flags */
#define LG_OWNDIR_ROOT_OK 1u /* a folder root owns is accepted too (a data folder root made) */

/* Makes path (and missing folders above it, with mode) and checks it is ours: a folder (not a
 * link), owned by the effective user (or root with LG_OWNDIR_ROOT_OK), writable by nobody else;
 * and every folder above it owned by root or us and writable by nobody else unless sticky (as
 * /tmp is, where only a folder's owner can rename it). The resolved path (no links) goes to real:
 * use it from then on, as a link in the path given may be changed later. Returns 0, or
 * LG_EDENIED (or -errno) with err naming the folder, its owner or mode, and what to do.
 * On Windows (ACLs, not modes; mode and flags are not used) missing folders are made with a
 * protected DACL (full control for SYSTEM, Administrators and this process's user, nothing
 * inherited) and the path is resolved through links and junctions (GetFinalPathNameByHandle).
 * Trusted are this process's user (the token's: SYSTEM for the service), SYSTEM, Administrators
 * and TrustedInstaller. The folder must be owned by one of them, and no allowed ACE, inheritable
 * ones included, may give anyone else a right to write, delete, re-own or re-permission it; a
 * null DACL is refused. Every folder above it must be owned by one of them, and no ACE on it may
 * give anyone else FILE_DELETE_CHILD, WRITE_DAC, WRITE_OWNER, GENERIC_ALL or (but on a root)
 * DELETE: adding files and folders is allowed (Users may, in C:\ProgramData). Deny ACEs are not
 * counted. Under wine, which keeps no ACLs, owner and DACL come from the Unix owner and mode. */
int lg_owndir(const char *path, unsigned mode, unsigned flags, char *real, size_t reallen,
              char *err, size_t errlen);

/* Creates the file at path anew for writing, with mode: an older file or link of that name is
 * unlinked first, then opened O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, so nothing planted there is
 * followed. Meant for folders lg_owndir accepted. Returns the descriptor or -errno. */
int lg_create_new(const char *path, unsigned mode);

/* lg_create_new as a stdio stream ("wb"); NULL with errno set. Caller owns the FILE. */
FILE *lg_create_new_file(const char *path, unsigned mode);

#endif

/* lg_owndir.c: folders that are lg's own and files created anew in them (see lg_owndir.h). */
#include "lg_owndir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lg_error.h"
#include "lg_util.h"

#ifdef _WIN32
#include <windows.h> /* first: the others need its types */

#include <aclapi.h>
#include <io.h>
#include <sddl.h>

/* Windows has ACLs, not modes: a folder is ours when its owner is one of the trusted accounts
 * below and no access control entry gives anyone else a right to write it (or, for a folder
 * above it, to rename or replace what is in it). Trusted: this process's user (the token's user
 * SID: SYSTEM for the service, the logged-on user for a console agent), SYSTEM, Administrators
 * (an elevated administrator's folders belong to them) and TrustedInstaller (it owns C:\ and
 * the system's folders). An ACE for OWNER RIGHTS stands for the owner, checked first; one for
 * CREATOR OWNER for whoever makes a file or folder inside, which only the trusted can (an
 * untrusted right to add one is refused). Deny ACEs are not counted (they only take away). */
typedef struct {
    BYTE me[SECURITY_MAX_SID_SIZE], sy[SECURITY_MAX_SID_SIZE], ba[SECURITY_MAX_SID_SIZE],
        ti[SECURITY_MAX_SID_SIZE], co[SECURITY_MAX_SID_SIZE], orr[SECURITY_MAX_SID_SIZE];
    char me_str[192]; /* "S-1-5-21-..." */
} s_trust_t;

/* Rights that let whoever holds them change what is in the folder itself (and, through
 * inheritable ACEs, in what the agent makes in it): add or delete files and folders, write
 * attributes (a reparse point), delete it, change its ACL or owner. */
#define S_WRITE_RIGHTS                                                                             \
    (FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES |                  \
     FILE_DELETE_CHILD | DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL)
/* Rights on a folder above that let their holder rename or replace what is in it: delete any
 * child, change the ACL or owner (and so grant itself anything), rename the folder itself.
 * Adding files and folders is not among them (Users may make folders in C:\ProgramData). */
#define S_REPLACE_RIGHTS (FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER | GENERIC_ALL | DELETE)

/* Windows' own text for error e, then its number: "Access is denied (Windows error 5)". */
static const char *s_win_text(DWORD e, char *buf, size_t len)
{
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0,
                             buf, (DWORD)len, NULL);
    while (n > 0 &&
           (buf[n - 1] == '\r' || buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '.'))
        n--;
    snprintf(buf + n, len - n, "%sWindows error %lu%s", n ? " (" : "", (unsigned long)e,
             n ? ")" : "");
    return buf;
}

static int s_win_errno(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
        return -ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_PRIVILEGE_NOT_HELD:
        return -EACCES;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
        return -EEXIST;
    case ERROR_FILENAME_EXCED_RANGE:
        return -ENAMETOOLONG;
    case ERROR_DIRECTORY:
        return -ENOTDIR;
    default:
        return -EIO;
    }
}

/* "DOMAIN\name (S-1-...)" of sid, or its SID string alone when no account has it. */
static const char *s_who(PSID sid, char *buf, size_t len)
{
    char name[256], dom[256], *str = NULL;
    DWORD nl = sizeof name, dl = sizeof dom;
    SID_NAME_USE use;
    if (!ConvertSidToStringSidA(sid, &str))
        str = NULL;
    if (LookupAccountSidA(NULL, sid, name, &nl, dom, &dl, &use))
        snprintf(buf, len, "%s%s%s (%s)", dom, dom[0] ? "\\" : "", name, str ? str : "?");
    else
        snprintf(buf, len, "%s (no account of that SID here)", str ? str : "an unreadable SID");
    LocalFree(str);
    return buf;
}

static int s_wk(WELL_KNOWN_SID_TYPE type, BYTE *buf)
{
    DWORD size = SECURITY_MAX_SID_SIZE;
    return CreateWellKnownSid(type, NULL, buf, &size);
}

static int s_trust_init(s_trust_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    HANDLE tok = NULL;
    union {
        TOKEN_USER u;
        BYTE b[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
    } tu;
    DWORD n = 0;
    char text[256];
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok) ||
        !GetTokenInformation(tok, TokenUser, &tu, sizeof tu, &n) ||
        !CopySid(sizeof t->me, t->me, tu.u.User.Sid)) {
        DWORD e = GetLastError();
        snprintf(err, errlen, "could not read this process's user: %s",
                 s_win_text(e, text, sizeof text));
        if (tok)
            CloseHandle(tok);
        return s_win_errno(e);
    }
    CloseHandle(tok);
    PSID ti = NULL;
    char *str = NULL;
    int ok = s_wk(WinLocalSystemSid, t->sy) && s_wk(WinBuiltinAdministratorsSid, t->ba) &&
             s_wk(WinCreatorOwnerSid, t->co) && s_wk(WinCreatorOwnerRightsSid, t->orr) &&
             /* NT SERVICE\TrustedInstaller */
             ConvertStringSidToSidA(
                 "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464", &ti) &&
             CopySid(sizeof t->ti, t->ti, ti) && ConvertSidToStringSidA(t->me, &str) &&
             lg_strlcpy(t->me_str, str, sizeof t->me_str) < sizeof t->me_str;
    DWORD e = GetLastError();
    LocalFree(ti);
    LocalFree(str);
    if (!ok) {
        snprintf(err, errlen, "could not make the SIDs of trusted accounts: %s",
                 s_win_text(e, text, sizeof text));
        return s_win_errno(e);
    }
    return 0;
}

/* May sid own lg's folders (and write them)? */
static int s_trusted(const s_trust_t *t, PSID sid)
{
    return EqualSid(sid, (PSID)t->me) || EqualSid(sid, (PSID)t->sy) || EqualSid(sid, (PSID)t->ba) ||
           EqualSid(sid, (PSID)t->ti);
}

/* Does an allowed ACE of dacl give someone untrusted any of rights? 1 (*sid is who, NULL when
 * the ACE's SID is malformed, *mask what it gives), 0, or -1 when the ACL cannot be read. With
 * is_last, inheritable ACEs count too (what the agent makes in the folder gets them); above it
 * only ACEs on the folder itself (its children are checked themselves). */
static int s_untrusted_ace(const s_trust_t *t, PACL dacl, ACCESS_MASK rights, int is_last,
                           PSID *who, ACCESS_MASK *mask)
{
    ACL_SIZE_INFORMATION ai;
    if (!GetAclInformation(dacl, &ai, sizeof ai, AclSizeInformation))
        return -1;
    for (DWORD i = 0; i < ai.AceCount; i++) {
        ACE_HEADER *h;
        if (!GetAce(dacl, i, (void **)&h))
            return -1;
        ACCESS_MASK m;
        PSID sid;
        switch (h->AceType) {
        case ACCESS_ALLOWED_ACE_TYPE:
        case ACCESS_ALLOWED_CALLBACK_ACE_TYPE: {
            ACCESS_ALLOWED_ACE *a = (ACCESS_ALLOWED_ACE *)h;
            m = a->Mask;
            sid = (PSID)&a->SidStart;
            break;
        }
        case ACCESS_ALLOWED_OBJECT_ACE_TYPE:
        case ACCESS_ALLOWED_CALLBACK_OBJECT_ACE_TYPE: {
            ACCESS_ALLOWED_OBJECT_ACE *o = (ACCESS_ALLOWED_OBJECT_ACE *)h;
            BYTE *p = (BYTE *)&o->ObjectType;
            if (o->Flags & ACE_OBJECT_TYPE_PRESENT)
                p += sizeof(GUID);
            if (o->Flags & ACE_INHERITED_OBJECT_TYPE_PRESENT)
                p += sizeof(GUID);
            m = o->Mask;
            sid = (PSID)p;
            break;
        }
        default: /* deny ACEs and the like take rights away, never give them */
            continue;
        }
        if (h->AceFlags & INHERIT_ONLY_ACE) {
            if (!is_last || !(h->AceFlags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)))
                continue;
        }
        if (!(m & rights))
            continue;
        if (IsValidSid(sid) &&
            (s_trusted(t, sid) || EqualSid(sid, (PSID)t->co) || EqualSid(sid, (PSID)t->orr)))
            continue;
        *who = IsValidSid(sid) ? sid : NULL;
        *mask = m;
        return 1;
    }
    return 0;
}

/* The verdict on one folder of the resolved path from its owner and DACL: the last (is_last)
 * must be ours and writable by no one untrusted; the others owned by someone trusted and giving
 * no one untrusted a right to rename or replace what is in them (is_root: a volume's or share's
 * root, which cannot be renamed). */
static int s_judge(const s_trust_t *t, PSID owner, PACL dacl, const char *dir, const char *whole,
                   int is_last, int is_root, char *err, size_t errlen)
{
    char text[256], who[400], mine[400];
    int rc = 0, bad = 0;
    ACCESS_MASK mask = 0;
    PSID other = NULL;
    if (!owner || !IsValidSid(owner)) {
        snprintf(err, errlen, "\"%s\" has no owner that can be read: refused", dir);
        rc = LG_EDENIED;
    } else if (!s_trusted(t, owner)) {
        if (is_last)
            snprintf(err, errlen,
                     "\"%s\" belongs to %s, not to %s%sSYSTEM or Administrators: refused "
                     "(whoever owns a folder can redirect what is written there); use a folder "
                     "of your own or remove it (the agent makes it anew, private to it)",
                     dir, s_who(owner, who, sizeof who),
                     EqualSid((PSID)t->me, (PSID)t->sy) ? ""
                                                        : s_who((PSID)t->me, mine, sizeof mine),
                     EqualSid((PSID)t->me, (PSID)t->sy) ? "" : ", ");
        else
            snprintf(err, errlen,
                     "\"%s\" is inside \"%s\", which belongs to %s: refused (its owner could "
                     "rename the folder and put another in its place); use a folder outside it",
                     whole, dir, s_who(owner, who, sizeof who));
        rc = LG_EDENIED;
    } else if (!dacl) {
        snprintf(err, errlen,
                 "\"%s\" has a null access control list (everyone has full access to it): "
                 "refused; %s",
                 dir,
                 is_last ? "remove it (the agent makes it anew, private to it) or use another "
                           "folder"
                         : "use a folder outside it");
        rc = LG_EDENIED;
    } else if ((bad = s_untrusted_ace(t, dacl,
                                      is_last   ? S_WRITE_RIGHTS
                                      : is_root ? S_REPLACE_RIGHTS & ~(ACCESS_MASK)DELETE
                                                : S_REPLACE_RIGHTS,
                                      is_last, &other, &mask)) < 0) {
        DWORD e2 = GetLastError();
        snprintf(err, errlen, "could not read the access control list of \"%s\": %s: refused", dir,
                 s_win_text(e2, text, sizeof text));
        rc = LG_EDENIED;
    } else if (bad && is_last) {
        snprintf(err, errlen,
                 "\"%s\" grants write access to %s (access mask 0x%08lx): refused (another user "
                 "could replace what is written there); remove it (the agent makes it anew, "
                 "private to it), or that access (icacls), or use another folder",
                 dir, other ? s_who(other, who, sizeof who) : "a malformed SID",
                 (unsigned long)mask);
        rc = LG_EDENIED;
    } else if (bad) {
        snprintf(err, errlen,
                 "\"%s\" is inside \"%s\", which grants %s the right to rename or replace what "
                 "is in it (access mask 0x%08lx): refused (they could put another folder in its "
                 "place); use a folder outside it",
                 whole, dir, other ? s_who(other, who, sizeof who) : "a malformed SID",
                 (unsigned long)mask);
        rc = LG_EDENIED;
    }
    return rc;
}

/* One folder of the resolved path, through h when it is open (else by its name): s_judge. */
static int s_check(const s_trust_t *t, HANDLE h, const char *dir, const char *whole, int is_last,
                   int is_root, char *err, size_t errlen)
{
    PSID owner = NULL;
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    const SECURITY_INFORMATION what = OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION;
    DWORD e =
        h != INVALID_HANDLE_VALUE
            ? GetSecurityInfo(h, SE_FILE_OBJECT, what, &owner, NULL, &dacl, NULL, &sd)
            : GetNamedSecurityInfoA(dir, SE_FILE_OBJECT, what, &owner, NULL, &dacl, NULL, &sd);
    if (e != ERROR_SUCCESS) {
        char text[256];
        snprintf(err, errlen, "could not read the owner and permissions of \"%s\": %s", dir,
                 s_win_text(e, text, sizeof text));
        return s_win_errno(e);
    }
    int rc = s_judge(t, owner, dacl, dir, whole, is_last, is_root, err, errlen);
    LocalFree(sd);
    return rc;
}

/* "\\?\C:\x" -> "C:\x", "\\?\UNC\srv\share\x" -> "\\srv\share\x" (others, such as
 * "\\?\Volume{...}\x", stay as they are). */
static void s_unprefix(char *p)
{
    if (strncmp(p, "\\\\?\\UNC\\", 8) == 0)
        memmove(p + 2, p + 8, strlen(p + 8) + 1);
    else if (strncmp(p, "\\\\?\\", 4) == 0 && p[4] && p[5] == ':' && p[6] == '\\')
        memmove(p, p + 4, strlen(p + 4) + 1);
}

/* Length of the root of full path p: "C:\" 3; "\\srv\share\", "\\?\Volume{...}\" up to and
 * with their fourth backslash. */
static size_t s_root_len(const char *p)
{
    if (p[0] && p[1] == ':' && p[2] == '\\')
        return 3;
    size_t n = 0, i = 0;
    for (; p[i]; i++)
        if (p[i] == '\\' && ++n == 4)
            return i + 1;
    return i;
}

int lg_owndir(const char *path, unsigned mode, unsigned flags, char *real, size_t reallen,
              char *err, size_t errlen)
{
    (void)mode;
    (void)flags; /* SYSTEM and Administrators are trusted owners anyway */
    s_trust_t t;
    int rc = s_trust_init(&t, err, errlen);
    if (rc)
        return rc;
    char full[4096], text[256];
    DWORD n = GetFullPathNameA(path, sizeof full, full, NULL);
    if (n == 0 || n >= sizeof full) {
        DWORD e = n ? ERROR_FILENAME_EXCED_RANGE : GetLastError();
        snprintf(err, errlen, "could not resolve \"%s\": %s", path,
                 s_win_text(e, text, sizeof text));
        return s_win_errno(e);
    }
    s_unprefix(full);
    size_t len = strlen(full);
    while (len > s_root_len(full) && full[len - 1] == '\\')
        full[--len] = 0;

    /* Missing folders are made private: full control for SYSTEM, Administrators and us only,
     * nothing inherited from above (C:\ProgramData would give Users the right to add files). */
    char sddl[512];
    snprintf(sddl, sizeof sddl, "O:%sD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;%s)", t.me_str,
             t.me_str);
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, FALSE};
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorA(sddl, SDDL_REVISION_1,
                                                              &sa.lpSecurityDescriptor, NULL)) {
        DWORD e = GetLastError();
        snprintf(err, errlen, "could not make the security descriptor \"%s\": %s", sddl,
                 s_win_text(e, text, sizeof text));
        return s_win_errno(e);
    }
    for (size_t i = s_root_len(full); i <= len && rc == 0; i++) {
        if (full[i] != '\\' && full[i] != 0)
            continue;
        char c = full[i];
        full[i] = 0;
        DWORD attr = GetFileAttributesA(full);
        if (attr == INVALID_FILE_ATTRIBUTES) {
            if (!CreateDirectoryA(full, &sa) && GetLastError() != ERROR_ALREADY_EXISTS) {
                DWORD e = GetLastError();
                snprintf(err, errlen, "could not create \"%s\": %s", full,
                         s_win_text(e, text, sizeof text));
                rc = s_win_errno(e);
            }
        } else if (!(attr & FILE_ATTRIBUTE_DIRECTORY)) {
            snprintf(err, errlen, "could not create \"%s\": \"%s\" is not a folder", path, full);
            rc = -ENOTDIR;
        }
        full[i] = c;
    }
    LocalFree(sa.lpSecurityDescriptor);
    if (rc)
        return rc;

    /* The folder itself, through links and junctions, held open while it is checked. */
    HANDLE h = CreateFileA(full, READ_CONTROL | FILE_READ_ATTRIBUTES,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        snprintf(err, errlen, "could not open \"%s\": %s", full, s_win_text(e, text, sizeof text));
        return s_win_errno(e);
    }
    char r[4096];
    BY_HANDLE_FILE_INFORMATION fi;
    n = GetFinalPathNameByHandleA(h, r, sizeof r, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (n == 0 || n >= sizeof r) {
        DWORD e = n ? ERROR_FILENAME_EXCED_RANGE : GetLastError();
        snprintf(err, errlen, "could not resolve \"%s\": %s", full,
                 s_win_text(e, text, sizeof text));
        rc = s_win_errno(e);
    } else if (!GetFileInformationByHandle(h, &fi) ||
               !(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        snprintf(err, errlen, "\"%s\" is not a folder: refused", full);
        rc = LG_EDENIED;
    }
    if (rc == 0) {
        s_unprefix(r);
        len = strlen(r);
        size_t root = s_root_len(r);
        while (len > root && r[len - 1] == '\\')
            r[--len] = 0;
        if (len >= reallen) {
            snprintf(err, errlen, "\"%s\" resolves to a path too long (%zu bytes)", path, len);
            rc = -ENAMETOOLONG;
        }
        /* From the top down: "C:\", "C:\ProgramData", "C:\ProgramData\lg", then the folder. */
        char part[4096];
        for (size_t i = root; i < len && rc == 0; i++) {
            if (r[i] != '\\' && i != root)
                continue;
            size_t k = i == root ? root : i; /* the root with its backslash, others without */
            memcpy(part, r, k);
            part[k] = 0;
            rc = s_check(&t, INVALID_HANDLE_VALUE, part, r, 0, i == root, err, errlen);
        }
        if (rc == 0)
            rc = s_check(&t, h, r, r, 1, len <= root, err, errlen);
        if (rc == 0)
            lg_strlcpy(real, r, reallen);
    }
    CloseHandle(h);
    return rc;
}

int lg_create_new(const char *path, unsigned mode)
{
    (void)mode;
    if (_unlink(path) != 0 && errno != ENOENT)
        return -errno;
    int fd = _open(path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, 0600);
    return fd >= 0 ? fd : -errno;
}

#else
#include <pwd.h>
#include <unistd.h>

static const char *s_user(unsigned uid, char *buf, size_t len)
{
    struct passwd *pw = getpwuid((uid_t)uid);
    if (pw)
        snprintf(buf, len, "uid %u (%s)", uid, pw->pw_name);
    else
        snprintf(buf, len, "uid %u (no such user)", uid);
    return buf;
}

/* One folder of the resolved path: the last (is_last) must be ours, the others root's or ours
 * and, if others can write them, sticky. */
static int s_check(const char *dir, const char *whole, int is_last, unsigned flags, char *err,
                   size_t errlen)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        int rc = -errno;
        snprintf(err, errlen, "could not check \"%s\": %s", dir, strerror(errno));
        return rc;
    }
    uid_t me = geteuid();
    char who[128], mine[128];
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "\"%s\" is not a folder (it changed while it was checked): refused",
                 dir);
        return LG_EDENIED;
    }
    if (is_last) {
        int owner_ok = st.st_uid == me || ((flags & LG_OWNDIR_ROOT_OK) && st.st_uid == 0);
        if (!owner_ok) {
            snprintf(err, errlen,
                     "\"%s\" belongs to %s, not to %s: refused (whoever owns a folder can "
                     "redirect what is written there); use a folder of your own or remove it",
                     dir, s_user(st.st_uid, who, sizeof who), s_user(me, mine, sizeof mine));
            return LG_EDENIED;
        }
        if (st.st_mode & 022) {
            snprintf(err, errlen,
                     "\"%s\" is writable by %s (mode %04o): refused (another user could replace "
                     "what is written there); chmod go-w it or use another folder",
                     dir, (st.st_mode & 002) ? "others" : "its group",
                     (unsigned)(st.st_mode & 07777));
            return LG_EDENIED;
        }
        return 0;
    }
    if (st.st_uid != 0 && st.st_uid != me) {
        snprintf(err, errlen,
                 "\"%s\" is inside \"%s\", which belongs to %s: refused (its owner could rename "
                 "the folder and put another in its place); use a folder outside it",
                 whole, dir, s_user(st.st_uid, who, sizeof who));
        return LG_EDENIED;
    }
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
        snprintf(err, errlen,
                 "\"%s\" is inside \"%s\", which %s can write (mode %04o, not sticky): refused "
                 "(they could rename the folder and put another in its place)",
                 whole, dir, (st.st_mode & 002) ? "everyone" : "its group",
                 (unsigned)(st.st_mode & 07777));
        return LG_EDENIED;
    }
    return 0;
}

int lg_owndir(const char *path, unsigned mode, unsigned flags, char *real, size_t reallen,
              char *err, size_t errlen)
{
    int rc = lg_mkdirs(path, mode);
    if (rc) {
        snprintf(err, errlen, "could not create \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    char *r = realpath(path, NULL);
    if (!r) {
        rc = -errno;
        snprintf(err, errlen, "could not resolve \"%s\": %s", path, strerror(errno));
        return rc;
    }
    if (strlen(r) >= reallen) {
        snprintf(err, errlen, "\"%s\" resolves to a path too long (%zu bytes)", path, strlen(r));
        free(r);
        return -ENAMETOOLONG;
    }
    /* From the top down: "/", "/var", "/var/lib", ... then the folder itself. */
    char part[4096];
    size_t n = strlen(r);
    if (n > 1)
        rc = s_check("/", r, 0, flags, err, errlen);
    for (size_t i = 1; i < n && rc == 0; i++) {
        if (r[i] != '/')
            continue;
        memcpy(part, r, i);
        part[i] = 0;
        rc = s_check(part, r, 0, flags, err, errlen);
    }
    if (rc == 0)
        rc = s_check(r, r, 1, flags, err, errlen);
    if (rc == 0)
        lg_strlcpy(real, r, reallen);
    free(r);
    return rc;
}

int lg_create_new(const char *path, unsigned mode)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return -errno;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    return fd >= 0 ? fd : -errno;
}

#endif

/* One for both platforms: fdopen and close are also mingw's names (io.h). */
FILE *lg_create_new_file(const char *path, unsigned mode)
{
    int fd = lg_create_new(path, mode);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

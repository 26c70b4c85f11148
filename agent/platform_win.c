/* platform_win.c: the agent's OS questions answered on Windows: RtlGetVersion, the registry's
 * CPU name, GlobalMemoryStatusEx, GetAdaptersAddresses, IOCTL_DISK_GET_LENGTH_INFO. */
#include "platform.h"

/* In this order, a block each: winsock2.h before windows.h (else windows.h pulls in the old
 * winsock.h), and windows.h before the headers that use its types. */
#include <winsock2.h>
#include <ws2tcpip.h>

#include <windows.h>

#include <iphlpapi.h>
#include <winioctl.h>
#include <winternl.h>

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_util.h"

typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *);

void lg_plat_host(lg_plat_host_t *h)
{
    /* GetVersionEx reports what the manifest allows; ntdll tells the truth. */
    OSVERSIONINFOW v;
    memset(&v, 0, sizeof v);
    v.dwOSVersionInfoSize = sizeof v;
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    rtl_get_version_fn get =
        nt ? (rtl_get_version_fn)(void (*)(void))GetProcAddress(nt, "RtlGetVersion") : NULL;
    SYSTEM_INFO si;
    GetNativeSystemInfo(&si);
    const char *arch = si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
                       : si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "arm64"
                                                                                   : "x86";
    if (get && get(&v) == 0)
        snprintf(h->os, sizeof h->os, "Windows %lu.%lu.%lu %s", (unsigned long)v.dwMajorVersion,
                 (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber, arch);
    else
        snprintf(h->os, sizeof h->os, "Windows %s", arch);
    DWORD len = (DWORD)sizeof h->cpu;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                     "ProcessorNameString", RRF_RT_REG_SZ, NULL, h->cpu, &len) != ERROR_SUCCESS)
        lg_strlcpy(h->cpu, "unknown", sizeof h->cpu);
    /* Names are padded with blanks in the registry of some CPUs. */
    size_t n = strlen(h->cpu);
    while (n > 0 && h->cpu[n - 1] == ' ')
        h->cpu[--n] = 0;
    DWORD ncpu = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    h->ncpu = ncpu ? (uint32_t)ncpu : (uint32_t)si.dwNumberOfProcessors;
    MEMORYSTATUSEX m;
    m.dwLength = sizeof m;
    h->mem_bytes = GlobalMemoryStatusEx(&m) ? (uint64_t)m.ullTotalPhys : 0;
}

void lg_plat_nics(lg_plat_nics_t *t)
{
    t->n = 0;
    ULONG size = 16384;
    IP_ADAPTER_ADDRESSES *list = NULL;
    ULONG rc = ERROR_BUFFER_OVERFLOW;
    for (int tries = 0; tries < 3 && rc == ERROR_BUFFER_OVERFLOW; tries++) {
        free(list);
        list = malloc(size);
        if (!list)
            return;
        rc = GetAdaptersAddresses(
            AF_UNSPEC, GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST | GAA_FLAG_SKIP_DNS_SERVER,
            NULL, list, &size);
    }
    if (rc != NO_ERROR) {
        free(list);
        return;
    }
    for (IP_ADAPTER_ADDRESSES *a = list; a && t->n < LG_PLAT_MAX_NICS; a = a->Next) {
        if (a->IfType == IF_TYPE_SOFTWARE_LOOPBACK)
            continue;
        size_t k = t->n++;
        Lg__Nic *n = &t->nic[k];
        lg__nic__init(n);
        if (!a->FriendlyName || WideCharToMultiByte(CP_UTF8, 0, a->FriendlyName, -1, t->name[k],
                                                    (int)sizeof t->name[k], NULL, NULL) == 0)
            lg_strlcpy(t->name[k], a->AdapterName ? a->AdapterName : "?", sizeof t->name[k]);
        n->name = t->name[k];
        /* bits per second; ULONG64_MAX when unknown */
        ULONG64 bps = a->TransmitLinkSpeed;
        n->speed_mbps = bps && bps != (ULONG64)-1 && bps / 1000000 <= UINT32_MAX
                            ? (uint32_t)(bps / 1000000)
                            : 0;
        size_t off = 0;
        t->mac[k][0] = 0;
        for (ULONG i = 0; i < a->PhysicalAddressLength && off + 4 < sizeof t->mac[k]; i++)
            off += (size_t)snprintf(t->mac[k] + off, sizeof t->mac[k] - off, "%s%02x", i ? ":" : "",
                                    a->PhysicalAddress[i]);
        n->mac = t->mac[k];
        n->addrs = t->addrp[k];
        t->ptr[k] = n;
        for (IP_ADAPTER_UNICAST_ADDRESS *u = a->FirstUnicastAddress;
             u && n->n_addrs < LG_PLAT_MAX_ADDRS; u = u->Next) {
            char *dst = t->addr[k][n->n_addrs];
            if (getnameinfo(u->Address.lpSockaddr, u->Address.iSockaddrLength, dst,
                            (DWORD)sizeof t->addr[k][n->n_addrs], NULL, 0, NI_NUMERICHOST) == 0) {
                t->addrp[k][n->n_addrs] = dst;
                n->n_addrs++;
            }
        }
    }
    free(list);
}

int lg_plat_block_bytes(const char *path, uint64_t *bytes, char *err, size_t errlen)
{
    *bytes = 0;
    if (strncmp(path, "\\\\.\\", 4) != 0) {
        snprintf(err, errlen, "block target \"%s\" is not a device (\\\\.\\PhysicalDriveN)", path);
        return LG_EDENIED;
    }
    HANDLE hd =
        CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    if (hd == INVALID_HANDLE_VALUE) {
        snprintf(err, errlen, "block target \"%s\": cannot open it (Windows error %lu)", path,
                 (unsigned long)GetLastError());
        return -ENOENT;
    }
    GET_LENGTH_INFORMATION li;
    DWORD got = 0;
    BOOL ok = DeviceIoControl(hd, IOCTL_DISK_GET_LENGTH_INFO, NULL, 0, &li, sizeof li, &got, NULL);
    DWORD e = GetLastError();
    CloseHandle(hd);
    if (!ok) {
        snprintf(err, errlen, "block target \"%s\": no disk length (Windows error %lu)", path,
                 (unsigned long)e);
        return LG_EDENIED;
    }
    *bytes = (uint64_t)li.Length.QuadPart;
    return 0;
}

const char *lg_plat_async_engine(void)
{
    return "windowsaio";
}

/* fio --version through a pipe of our own: no cmd.exe (_popen needs one, and a service started
 * on a new wine prefix found none). Empty on failure. */
static void s_fio_version_once(const char *fio, char *buf, size_t len)
{
    char cmd[1100];
    buf[0] = 0;
    /* fio path comes from the agent's own command line, never from the network. */
    if (strchr(fio, '"') || snprintf(cmd, sizeof cmd, "\"%s\" --version", fio) >= (int)sizeof cmd)
        return;
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    HANDLE rd = NULL, wr = NULL;
    if (!CreatePipe(&rd, &wr, &sa, 0))
        return;
    SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOA si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdOutput = wr;
    si.hStdError = wr;
    si.hStdInput = NULL;
    PROCESS_INFORMATION pi;
    BOOL ok = CreateProcessA(NULL, cmd, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
    CloseHandle(wr);
    if (!ok) {
        CloseHandle(rd);
        return;
    }
    size_t got = 0;
    DWORD n = 0;
    while (got + 1 < len && ReadFile(rd, buf + got, (DWORD)(len - 1 - got), &n, NULL) && n > 0)
        got += n;
    buf[got] = 0;
    buf[strcspn(buf, "\r\n")] = 0;
    WaitForSingleObject(pi.hProcess, 30000);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CloseHandle(rd);
}

void lg_plat_fio_version(const char *fio, char *buf, size_t len)
{
    /* A first start of fio.exe on a host that just booted (or a new wine prefix) can fail:
     * try a few times before saying fio is missing. */
    for (int i = 0; i < 3; i++) {
        s_fio_version_once(fio, buf, len);
        if (strncmp(buf, "fio-", 4) == 0)
            return;
        Sleep(1000);
    }
    if (!buf[0])
        lg_strlcpy(buf, "unknown", len);
}

static int s_sep(char c)
{
    return c == '\\' || c == '/';
}

int lg_plat_path_absolute(const char *p)
{
    if (!p)
        return 0;
    if (isalpha((unsigned char)p[0]) && p[1] == ':' && s_sep(p[2]))
        return 1;
    return s_sep(p[0]) && s_sep(p[1]) && p[2] && !s_sep(p[2]); /* \\server\share, \\.\dev */
}

/* Has the path a "." or ".." component (either separator)? Not "\\.\" at the very start. */
static int s_dot_component(const char *p)
{
    size_t start = (s_sep(p[0]) && s_sep(p[1]) && p[2] == '.' && s_sep(p[3])) ? 4 : 0;
    for (size_t i = start; p[i];) {
        size_t j = i;
        while (p[j] && !s_sep(p[j]))
            j++;
        if ((j - i == 1 && p[i] == '.') || (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
            return 1;
        i = p[j] ? j + 1 : j;
    }
    return 0;
}

int lg_plat_path_clean(const char *p)
{
    if (!lg_plat_path_absolute(p) || strlen(p) > 1024 || s_dot_component(p))
        return 0;
    for (size_t i = 0; p[i]; i++) {
        unsigned char c = (unsigned char)p[i];
        /* ':' only as the drive's; elsewhere it names an NTFS stream */
        if (c < 0x20 || c == 0x7f || c == '$' || c == '"' || c == '*' || c == '?' || c == '<' ||
            c == '>' || c == '|' || (c == ':' && i != 1))
            return 0;
    }
    return 1;
}

int lg_plat_path_under(const char *path, const char *prefix)
{
    if (!lg_plat_path_absolute(path) || !lg_plat_path_absolute(prefix) || s_dot_component(path))
        return 0;
    size_t n = strlen(prefix);
    while (n > 3 && s_sep(prefix[n - 1]))
        n--;
    for (size_t i = 0; i < n; i++) {
        char a = path[i], b = prefix[i];
        if (!a)
            return 0;
        if (s_sep(a) && s_sep(b))
            continue;
        if (tolower((unsigned char)a) != tolower((unsigned char)b))
            return 0;
    }
    return path[n] == 0 || s_sep(path[n]) || s_sep(prefix[n - 1]);
}

void lg_plat_default_work_dir(const char *name, char *buf, size_t len)
{
    const char *pd = getenv("ProgramData");
    snprintf(buf, len, "%s\\lg\\agent-%s", pd && pd[0] ? pd : "C:\\ProgramData", name);
}

void lg_plat_hostname(char *buf, size_t len)
{
    /* Not gethostname: Winsock is not started yet when the options are read. */
    DWORD n = (DWORD)len;
    if (!GetComputerNameA(buf, &n))
        lg_strlcpy(buf, "agent", len);
}

/* ---- targets, resolved and held ---- */

/* The final path of an open handle, as "C:\dir\file" or "\\server\share\file". */
static int s_handle_path(HANDLE h, char *buf, size_t len)
{
    char tmp[1200];
    DWORD n = GetFinalPathNameByHandleA(h, tmp, (DWORD)sizeof tmp, FILE_NAME_NORMALIZED);
    if (n == 0 || n >= sizeof tmp)
        return -ENAMETOOLONG;
    if (strncmp(tmp, "\\\\?\\UNC\\", 8) == 0)
        snprintf(buf, len, "\\\\%s", tmp + 8);
    else if (strncmp(tmp, "\\\\?\\", 4) == 0)
        lg_strlcpy(buf, tmp + 4, len);
    else
        lg_strlcpy(buf, tmp, len);
    return 0;
}

static HANDLE s_open_any(const char *path, DWORD disposition)
{
    /* Attributes only, sharing read and write (fio's own opens) but not delete: while held it
     * can be neither renamed nor replaced. */
    return CreateFileA(path, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                       disposition, FILE_FLAG_BACKUP_SEMANTICS, NULL);
}

static void s_resolve_loose(const char *p, char *out, size_t len)
{
    HANDLE h = s_open_any(p, OPEN_EXISTING);
    if (h != INVALID_HANDLE_VALUE) {
        if (s_handle_path(h, out, len) != 0)
            lg_strlcpy(out, p, len);
        CloseHandle(h);
        return;
    }
    lg_strlcpy(out, p, len);
}

int lg_plat_target_open(const char *path, const char *const *allow, size_t nallow, int create,
                        lg_plat_target_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (strncmp(path, "\\\\.\\", 4) == 0) { /* a device: its name is what it is */
        t->is_dev = 1;
        lg_strlcpy(t->real, path, sizeof t->real);
        lg_strlcpy(t->fio_path, path, sizeof t->fio_path);
        for (size_t i = 0; i < nallow; i++)
            if (allow[i] && lg_plat_path_under(path, allow[i]))
                return 0;
        snprintf(err, errlen, "target \"%s\" is outside this agent's allowed targets", path);
        return LG_EDENIED;
    }
    HANDLE h = s_open_any(path, create ? OPEN_ALWAYS : OPEN_EXISTING);
    if (h == INVALID_HANDLE_VALUE) {
        snprintf(err, errlen, "could not open target \"%s\" (Windows error %lu)", path,
                 (unsigned long)GetLastError());
        return -ENOENT;
    }
    t->created = create && GetLastError() != ERROR_ALREADY_EXISTS;
    t->fd = (intptr_t)h;
    BY_HANDLE_FILE_INFORMATION fi;
    int rc = s_handle_path(h, t->real, sizeof t->real);
    if (rc == 0 && !GetFileInformationByHandle(h, &fi))
        rc = -EIO;
    if (rc) {
        snprintf(err, errlen, "target \"%s\": cannot tell where it leads", path);
        lg_plat_target_close(t);
        return rc;
    }
    int ok = 0;
    for (size_t i = 0; i < nallow && !ok; i++) {
        if (!allow[i] || !lg_plat_path_absolute(allow[i]))
            continue;
        char r[1100];
        s_resolve_loose(allow[i], r, sizeof r);
        ok = lg_plat_path_under(t->real, r);
    }
    if (!ok) {
        snprintf(err, errlen,
                 "target \"%s\" resolves to \"%s\", outside this agent's allowed targets (a "
                 "link leads out of them)",
                 path, t->real);
        rc = LG_EDENIED;
    } else if (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
        snprintf(err, errlen, "target \"%s\" is a folder; give a file in it", path);
        rc = LG_EDENIED;
    } else if (fi.nNumberOfLinks > 1) {
        snprintf(err, errlen,
                 "target \"%s\" has %lu hard links: another name of it may lie "
                 "outside this agent's allowed targets; refused",
                 path, (unsigned long)fi.nNumberOfLinks);
        rc = LG_EDENIED;
    }
    if (rc) {
        lg_plat_target_close(t);
        return rc;
    }
    t->dev = fi.dwVolumeSerialNumber;
    t->ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
    t->size = ((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow;
    lg_strlcpy(t->fio_path, t->real, sizeof t->fio_path);
    return 0;
}

int lg_plat_target_recheck(const lg_plat_target_t *t, const char *path, char *err, size_t errlen)
{
    if (t->fd == -1)
        return 0; /* a device */
    HANDLE h = s_open_any(path, OPEN_EXISTING);
    BY_HANDLE_FILE_INFORMATION fi;
    int same = h != INVALID_HANDLE_VALUE && GetFileInformationByHandle(h, &fi) &&
               fi.dwVolumeSerialNumber == t->dev &&
               (((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow) == t->ino;
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    if (!same) {
        snprintf(err, errlen,
                 "target \"%s\" changed since it was checked (it was \"%s\"): a "
                 "link or file was swapped during the run",
                 path, t->real);
        return LG_EDENIED;
    }
    return 0;
}

int lg_plat_target_extend(lg_plat_target_t *t, uint64_t bytes, char *err, size_t errlen)
{
    HANDLE h = CreateFileA(t->real, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, 0, NULL);
    LARGE_INTEGER li;
    li.QuadPart = (LONGLONG)bytes;
    int ok =
        h != INVALID_HANDLE_VALUE && SetFilePointerEx(h, li, NULL, FILE_BEGIN) && SetEndOfFile(h);
    DWORD e = GetLastError();
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    if (!ok) {
        snprintf(err, errlen, "could not extend target \"%s\" (Windows error %lu)", t->real,
                 (unsigned long)e);
        return -EIO;
    }
    return 0;
}

void lg_plat_target_self_path(const lg_plat_target_t *t, char *buf, size_t len)
{
    lg_strlcpy(buf, t->real, len);
}

void lg_plat_target_close(lg_plat_target_t *t)
{
    if (t->fd != -1)
        CloseHandle((HANDLE)t->fd);
    t->fd = -1;
}

/* ---- where a target sits: the volume and its drive type ---- */

void lg_plat_target_fs(const lg_plat_target_t *t, lg_fs_facts_t *f)
{
    memset(f, 0, sizeof *f);
    char root[MAX_PATH + 1];
    if (!GetVolumePathNameA(t->real, root, sizeof root))
        return;
    lg_strlcpy(f->mount, root, sizeof f->mount);
    UINT dt = GetDriveTypeA(root);
    char fsname[MAX_PATH + 1] = "";
    if (!GetVolumeInformationA(root, NULL, 0, NULL, NULL, NULL, fsname, sizeof fsname))
        lg_strlcpy(fsname, dt == DRIVE_REMOTE ? "remote" : "unknown", sizeof fsname);
    lg_strlcpy(f->type, fsname, sizeof f->type);
    /* A Windows load host reaches a NAS share over SMB: a remote volume is taken for one (an
     * NFS client mount says "NFS" as its filesystem name). */
    f->network = dt == DRIVE_REMOTE;
    f->nfs = f->network && _stricmp(fsname, "NFS") == 0;
    f->smb = f->network && !f->nfs;
    /* An iSCSI LUN is a fixed drive to Windows; its storage bus says what it is. */
    if (dt == DRIVE_FIXED && isalpha((unsigned char)root[0]) && root[1] == ':') {
        char vol[8];
        snprintf(vol, sizeof vol, "\\\\.\\%c:", root[0]);
        HANDLE h =
            CreateFileA(vol, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
        if (h != INVALID_HANDLE_VALUE) {
            STORAGE_PROPERTY_QUERY q;
            memset(&q, 0, sizeof q);
            q.PropertyId = StorageDeviceProperty;
            q.QueryType = PropertyStandardQuery;
            STORAGE_DEVICE_DESCRIPTOR d;
            DWORD got = 0;
            if (DeviceIoControl(h, IOCTL_STORAGE_QUERY_PROPERTY, &q, sizeof q, &d, sizeof d, &got,
                                NULL) &&
                got >= offsetof(STORAGE_DEVICE_DESCRIPTOR, BusType) + sizeof d.BusType)
                f->iscsi = d.BusType == BusTypeiScsi;
            CloseHandle(h);
        }
    }
    f->known = 1;
}

/* ---- the load host's own CPU ---- */

static uint64_t s_ft(FILETIME f)
{
    return (uint64_t)f.dwHighDateTime << 32 | f.dwLowDateTime;
}

typedef LONG(WINAPI *nt_query_system_information_fn)(ULONG, void *, ULONG, ULONG *);
#define LG_STATUS_INFO_LENGTH_MISMATCH ((LONG)0xC0000004)

/* fio's CPU: the hold stage (fio_pid, which stays fio's parent) and the processes below it
 * (fio.exe; its jobs are threads on Windows), with each process's user and kernel time, from one
 * NtQuerySystemInformation(SystemProcessInformation) (what Task Manager reads): one call for the
 * tree and the times, no handle to open per process. GetProcessTimes of another process is not
 * used: wine answers it with the caller's own times. */
static void s_fio_times(DWORD root, lg_cpu_snap_t *s)
{
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    nt_query_system_information_fn query =
        nt ? (nt_query_system_information_fn)(void (*)(void))GetProcAddress(
                 nt, "NtQuerySystemInformation")
           : NULL;
    if (!query)
        return;
    ULONG cap = 256u << 10, got = 0;
    char *buf = NULL;
    LONG st = LG_STATUS_INFO_LENGTH_MISMATCH;
    while (st == LG_STATUS_INFO_LENGTH_MISMATCH && cap <= (64u << 20)) {
        char *nb = realloc(buf, cap);
        if (!nb)
            break;
        buf = nb;
        st = query(SystemProcessInformation, buf, cap, &got);
        cap = got > cap ? got + (64u << 10) : cap * 2; /* processes come and go meanwhile */
    }
    size_t n = 0, ncap = 0;
    lg_cpu_proc_t *procs = NULL;
    for (ULONG off = 0; st == 0 && off + sizeof(SYSTEM_PROCESS_INFORMATION) <= got;) {
        const SYSTEM_PROCESS_INFORMATION *e = (const SYSTEM_PROCESS_INFORMATION *)(buf + off);
        if (n == ncap) {
            size_t nc = ncap ? ncap * 2 : 256;
            lg_cpu_proc_t *np = realloc(procs, nc * sizeof *np);
            if (!np)
                break;
            procs = np;
            ncap = nc;
        }
        procs[n++] = (lg_cpu_proc_t){
            (int)(ULONG_PTR)e->UniqueProcessId, (int)(ULONG_PTR)e->InheritedFromUniqueProcessId,
            (uint64_t)e->UserTime.QuadPart + (uint64_t)e->KernelTime.QuadPart};
        if (e->NextEntryOffset == 0)
            break;
        off += e->NextEntryOffset;
    }
    free(buf);
    s->fio = lg_cpu_tree_ticks(procs, n, (int)root, &s->fio_ok);
    free(procs);
    s->fio_hz = 10000000;    /* 100 ns */
    LARGE_INTEGER now, freq; /* not GetTickCount64: its 15.6 ms steps are 1.6% of 1 s */
    QueryPerformanceCounter(&now);
    QueryPerformanceFrequency(&freq);
    s->fio_wall_us = (int64_t)((double)now.QuadPart * 1e6 / (double)freq.QuadPart);
}

void lg_plat_cpu_snap(int64_t fio_pid, lg_cpu_snap_t *s)
{
    memset(s, 0, sizeof *s);
    FILETIME idle, kernel, user;
    if (GetSystemTimes(&idle, &kernel, &user)) {
        /* kernel time includes idle time; Windows has no iowait */
        s->host.total = s_ft(kernel) + s_ft(user);
        s->host.idle = s_ft(idle);
        DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
        s->host.ncpus = n ? (unsigned)n : 1;
        s->host_ok = 1;
    }
    if (fio_pid > 0 && fio_pid <= (int64_t)UINT32_MAX)
        s_fio_times((DWORD)fio_pid, s);
}

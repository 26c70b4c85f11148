/* appclean.h: at lg-agent's start, what an agent killed during an application run left behind
 * (its records in the work folder, apprec.h): the private database server stopped, the run's
 * client processes ended, its data and socket folders removed, each only when it is provably
 * the one the record names. POSIX only. */
#ifndef LG_APPCLEAN_H
#define LG_APPCLEAN_H

/* Bounds: a server gets this long after SIGINT (PostgreSQL's fast shutdown) or SIGTERM
 * (MariaDB) before its process group is killed, and then this long to be gone. */
#define LG_APPCLEAN_STOP_MS 15000
#define LG_APPCLEAN_KILL_MS 5000

/* Clean up after every record in work_dir (a folder lg_owndir accepted), logging what was found
 * and what was done. A record is removed once its server is no longer running; one whose server
 * could not be stopped stays for the next start. A process is signalled only when its PID, start
 * time and program (and, for a server, its working folder or command line naming the data
 * folder) match the record; a folder is removed only when its device, inode and owner do.
 * Blocks for at most about LG_APPCLEAN_STOP_MS + LG_APPCLEAN_KILL_MS per record. Returns the
 * number of records found (0 if none or the folder could not be read). */
int lg_appclean_run(const char *work_dir);

#endif

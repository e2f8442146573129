/* When a process started, as the kernel counts it: what tells a reused pid from its first
 * owner (a box's owner, a run counted live). */
#ifndef CP_BASE_PROC_START_H
#define CP_BASE_PROC_START_H

/* Field 22 of /proc/PID/stat as its text, or NULL when there is no such process. The caller
 * frees it. */
char *cp_process_start(long pid);

#endif

/* A process's start time from /proc (proc-start.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/base/proc-start.h"
#include "src/base/util.h"

char *cp_process_start(long pid)
{
    cleanup_free char *path = xasprintf("/proc/%ld/stat", pid);
    cleanup_fclose FILE *f = fopen(path, "re");
    char line[1024];
    if (f == NULL || fgets(line, sizeof(line), f) == NULL)
        return NULL;
    const char *p = strrchr(line, ')'); /* the command name may hold spaces */
    for (int field = 2; p != NULL && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p != NULL ? strndup(p + 1, strcspn(p + 1, " ")) : NULL;
}

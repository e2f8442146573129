/* Tests hold a stage open on a fifo instead of racing it (issue 31: no wait by a count). */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/base/test-hold.h"
#include "src/base/util.h"

void cp_test_hold(const char *var)
{
    const char *dir = getenv(var);
    if (dir == NULL)
        return;
    cleanup_free char *held = xasprintf("%s/held", dir);
    cleanup_free char *go = xasprintf("%s/go", dir);
    int h = open(held, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (h >= 0)
        close(h);
    cleanup_close int g = open(go, O_RDONLY | O_CLOEXEC);
    char c;
    while (g >= 0 && read(g, &c, 1) > 0)
        ;
}

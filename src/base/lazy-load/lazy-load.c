/* The loader behind the stubs of lazy-load.h. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/base/lazy-load/lazy-load.h"

/* Not the error carried up: a stub has none to return, and a library missing from this
 * computer's install is no state a run can go on from (exit 125: conch-place itself failed). */
static void die(const char *what, const char *package)
{
    fprintf(stderr,
            "conch-place: cannot load %s.\n"
            "Install it (as root: apt-get install %s), then run the command again.\n",
            what, package);
    exit(125);
}

void *cp_lazy_sym(void **cache, const char *soname, const char *package, const char *name)
{
    void *known = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (known != NULL)
        return known;
    /* dlopen counts its openings: the same handle each time, for each stub's first call; two
     * threads' first calls find the same symbol. */
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        die(dlerror(), package);
    void *sym = dlsym(lib, name);
    if (sym == NULL)
        die(dlerror(), package);
    __atomic_store_n(cache, sym, __ATOMIC_RELEASE);
    return sym;
}

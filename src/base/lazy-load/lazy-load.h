/* Libraries loaded on their first call, not at the start: libcurl and libarchive with the ~40
 * libraries they need (Kerberos, LDAP, GnuTLS, ICU, libxml2...) cost every run ~17 ms of CPU
 * before main on this kind of machine (the loader's page faults; measured: an empty program
 * takes 6.4 ms with json-c and libcrypto, 14.8 with libcurl too, 13.8 with libarchive), and a
 * container run uses neither: the engines' HTTP is src/base/http-unix.c.
 *
 * lazy-curl.c and lazy-archive.c define each function the code calls, under its own name and
 * prototype (from the library's header), as a stub that calls the library's, found the first
 * time. Callers are unchanged. The idea is Implib.so's (github.com/yugr/Implib.so), as systemd
 * loads its optional libraries by dlopen. A library that cannot be loaded ends the process
 * with what to install: the stubs have no error to return. */
#ifndef CONCH_LAZY_LOAD_H
#define CONCH_LAZY_LOAD_H

/* The library's symbol name, from soname (loaded once, never closed), kept in *cache after
 * the first call; package names what provides it. Does not return when either is missing. */
void *cp_lazy_sym(void **cache, const char *soname, const char *package, const char *name);

/* A stub for ret name params that calls the library's name with args. */
#define CP_LAZY(LIB, ret, name, params, args)                                                      \
    ret name params                                                                                \
    {                                                                                              \
        static void *real;                                                                         \
        return ((ret(*) params)cp_lazy_sym(&real, LIB, #name))args;                                \
    }
#define CP_LAZY_VOID(LIB, name, params, args)                                                      \
    void name params                                                                               \
    {                                                                                              \
        static void *real;                                                                         \
        ((void(*) params)cp_lazy_sym(&real, LIB, #name)) args;                                     \
    }

/* The libraries, as lazy-curl.c and lazy-archive.c name them and images/egress-rootfs.sh copies
 * them. */
#define CP_LAZY_CURL    "libcurl.so.4", "libcurl4"
#define CP_LAZY_ARCHIVE "libarchive.so.13", "libarchive13"

#endif

/* libcurl's functions that conch-place calls, as stubs that load it on the first call
 * (lazy-load.h): the cloud place's HTTPS and the URL parser load it; a container run does not. */
#include "config.h"

/* The type-checking macros would rename the variadic functions defined here. */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

#include <stdarg.h>

#include "src/base/lazy-load/lazy-load.h"

CP_LAZY(CP_LAZY_CURL, CURL *, curl_easy_init, (void), ())
CP_LAZY_VOID(CP_LAZY_CURL, curl_easy_cleanup, (CURL * c), (c))
CP_LAZY_VOID(CP_LAZY_CURL, curl_easy_reset, (CURL * c), (c))
CP_LAZY(CP_LAZY_CURL, CURLcode, curl_easy_perform, (CURL * c), (c))
CP_LAZY(CP_LAZY_CURL, const char *, curl_easy_strerror, (CURLcode rc), (rc))
CP_LAZY(CP_LAZY_CURL, char *, curl_easy_escape, (CURL * c, const char *s, int len), (c, s, len))
CP_LAZY(CP_LAZY_CURL, char *, curl_easy_unescape, (CURL * c, const char *s, int len, int *out),
        (c, s, len, out))
CP_LAZY_VOID(CP_LAZY_CURL, curl_free, (void *p), (p))
CP_LAZY(CP_LAZY_CURL, struct curl_slist *, curl_slist_append,
        (struct curl_slist * l, const char *s), (l, s))
CP_LAZY_VOID(CP_LAZY_CURL, curl_slist_free_all, (struct curl_slist * l), (l))
CP_LAZY(CP_LAZY_CURL, curl_mime *, curl_mime_init, (CURL * c), (c))
CP_LAZY_VOID(CP_LAZY_CURL, curl_mime_free, (curl_mime * m), (m))
CP_LAZY(CP_LAZY_CURL, curl_mimepart *, curl_mime_addpart, (curl_mime * m), (m))
CP_LAZY(CP_LAZY_CURL, CURLcode, curl_mime_name, (curl_mimepart * p, const char *s), (p, s))
CP_LAZY(CP_LAZY_CURL, CURLcode, curl_mime_filename, (curl_mimepart * p, const char *s), (p, s))
CP_LAZY(CP_LAZY_CURL, CURLcode, curl_mime_type, (curl_mimepart * p, const char *s), (p, s))
CP_LAZY(CP_LAZY_CURL, CURLcode, curl_mime_data, (curl_mimepart * p, const char *d, size_t n),
        (p, d, n))
CP_LAZY(CP_LAZY_CURL, CURLcode, curl_mime_data_cb,
        (curl_mimepart * p, curl_off_t n, curl_read_callback r, curl_seek_callback s,
         curl_free_callback f, void *arg),
        (p, n, r, s, f, arg))
CP_LAZY(CP_LAZY_CURL, CURLU *, curl_url, (void), ())
CP_LAZY_VOID(CP_LAZY_CURL, curl_url_cleanup, (CURLU * u), (u))
CP_LAZY(CP_LAZY_CURL, CURLUcode, curl_url_get,
        (CURLU * u, CURLUPart what, char **part, unsigned int flags), (u, what, part, flags))
CP_LAZY(CP_LAZY_CURL, CURLUcode, curl_url_set,
        (CURLU * u, CURLUPart what, const char *part, unsigned int flags), (u, what, part, flags))

/* The two variadic ones take one argument after the option, whose type the option's number
 * says (curl.h's CURLOPTTYPE_ ranges; every CURLINFO takes a pointer): passed on as that
 * type. */
typedef void (*any_fn)(void);

CURLcode curl_easy_setopt(CURL *c, CURLoption o, ...)
{
    static void *cache;
    CURLcode (*real)(CURL *, CURLoption, ...) =
        (CURLcode(*)(CURL *, CURLoption, ...))cp_lazy_sym(&cache, CP_LAZY_CURL, "curl_easy_setopt");
    va_list ap;
    va_start(ap, o);
    CURLcode rc;
    if (o < CURLOPTTYPE_OBJECTPOINT)
        rc = real(c, o, va_arg(ap, long));
    else if (o < CURLOPTTYPE_FUNCTIONPOINT)
        rc = real(c, o, va_arg(ap, void *));
    else if (o < CURLOPTTYPE_OFF_T)
        rc = real(c, o, va_arg(ap, any_fn));
    else if (o < CURLOPTTYPE_BLOB)
        rc = real(c, o, va_arg(ap, curl_off_t));
    else
        rc = real(c, o, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

CURLcode curl_easy_getinfo(CURL *c, CURLINFO info, ...)
{
    static void *cache;
    CURLcode (*real)(CURL *, CURLINFO, ...) =
        (CURLcode(*)(CURL *, CURLINFO, ...))cp_lazy_sym(&cache, CP_LAZY_CURL, "curl_easy_getinfo");
    va_list ap;
    va_start(ap, info);
    CURLcode rc = real(c, info, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

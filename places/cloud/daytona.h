/* The Daytona client: one API, one toolbox host named by that API, the key only to those two. */
#ifndef CONCH_CLOUD_DAYTONA_H
#define CONCH_CLOUD_DAYTONA_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "src/base/error.h"
#include "src/base/http.h"
#include "src/base/settings/settings.h"

#define CP_DAYTONA_API "https://app.daytona.io/api"

struct cp_daytona {
    CURL *curl;
    char *api;            /* the API's base URL, as re-serialised after the check */
    char *api_origin;     /* "https://host:port": the first host the key may go to */
    char *toolbox_origin; /* the same for /api/config's proxyToolboxUrl: the second */
    char *auth;           /* "Authorization: Bearer KEY": wiped when freed */
    char *ca_file;        /* borrowed from nothing: our copy, or NULL for the system's */
    int max_attempts;     /* retries of 429, 409 and 5xx stop here */
    long backoff_ms;      /* the first wait; doubled each time */
    long wait_ms;         /* how long a sandbox may take to start */
};

/* One call. The URL must belong to the API's or the toolbox's origin, or nothing is sent. */
struct cp_daytona_call {
    const char *method;
    const char *url;
    const char *body; /* JSON, or NULL */
    const char *content_type;
    cp_http_reader reader; /* a streamed upload instead of body */
    void *reader_ctx;
    curl_mime *mime;       /* a multipart upload instead of body (never retried) */
    cp_http_writer writer; /* a streamed download */
    void *writer_ctx;
    const char *const *headers; /* extra lines, NULL-terminated */
    long timeout_ms;
    size_t max_body;
    bool retry_5xx;   /* false where a 5xx may mean the work was done (create, exec) */
    bool no_key;      /* the public /api/config */
    long *status_out; /* the final status, or NULL */
};

/* Builds the client: the API URL from config (or the default), its CA, the key. */
int cp_daytona_open(const struct cp_config *cfg, const char *key, struct cp_daytona **out,
                    cp_error_t *err);
/* Asks the API's public /api/config which toolbox host it names, and checks it. */
int cp_daytona_discover(struct cp_daytona *d, cp_error_t *err);
void cp_daytona_free(struct cp_daytona *d);
void cp_cleanup_daytonap(struct cp_daytona **d);
#define cleanup_daytona __attribute__((cleanup(cp_cleanup_daytonap)))

/* Parses url once with curl's URL API: https, no user or password, no fragment; the host
 * lower-cased, one trailing dot dropped, the port explicit. *origin_out: "https://host:port";
 * *url_out (optional): the URL as curl will send it. Abuse case 114. */
int cp_daytona_origin(const char *url, char **origin_out, char **url_out, cp_error_t *err);

/* Performs one call with the retry policy; a 2xx answer's JSON (when out is not NULL). */
int cp_daytona_request(struct cp_daytona *d, const struct cp_daytona_call *c, json_object **out,
                       cp_error_t *err);

/* Daytona's own words from an error body: JSON "message" (string or list), else a note. */
char *cp_daytona_message(const char *body, size_t len);

/* How long a 429 asks us to wait, from Retry-After or Retry-After-<name>; -1 if not said. */
long cp_daytona_retry_after_ms(const char *headers);

/* A value made safe for a URL query or path segment; the caller frees it. */
char *cp_daytona_escape(struct cp_daytona *d, const char *s);

#endif

/* ProxyJump values: a comma list of [user@]host[:port] or ssh://[user@]host[:port]. */
#include "config.h"

#include <string.h>

#include "places/ssh/ssh_config.h"
#include "places/ssh/ssh_text.h"
#include "src/base/util.h"

#define MAX_HOPS 8

void cp_ssh_hops_free(struct cp_ssh_hop *hops, size_t n)
{
    for (size_t i = 0; hops != NULL && i < n; i++) {
        free(hops[i].user);
        free(hops[i].host);
    }
    free(hops);
}

/* Splits "host", "host:port", "[addr]" or "[addr]:port". */
static int split_host_port(char *s, struct cp_ssh_hop *hop)
{
    char *port = NULL;
    if (s[0] == '[') {
        char *close = strchr(s, ']');
        if (close == NULL || (close[1] != '\0' && close[1] != ':'))
            return -1;
        *close = '\0';
        port = close[1] == ':' ? close + 2 : NULL;
        s++;
    } else if ((port = strchr(s, ':')) != NULL) {
        *port++ = '\0';
    }
    if (!cp_ssh_hostname_ok(s))
        return -1;
    if (port != NULL && cp_parse_long(port, 1, 65535, &hop->port) < 0)
        return -1;
    hop->host = xstrdup(s);
    return 0;
}

static int parse_hop(const char *text, size_t len, struct cp_ssh_hop *hop)
{
    cleanup_free char *s = strndup(text, len);
    if (s == NULL)
        abort();
    char *h = strncmp(s, "ssh://", 6) == 0 ? s + 6 : s;
    char *at = strrchr(h, '@');
    hop->port = -1;
    if (at != NULL) {
        *at = '\0';
        if (!cp_ssh_user_ok(h))
            return -1;
        hop->user = xstrdup(h);
        h = at + 1;
    }
    return split_host_port(h, hop);
}

int cp_ssh_jump_parse(const char *value, struct cp_ssh_hop **out, size_t *n_out, cp_error_t *err)
{
    *out = NULL;
    *n_out = 0;
    if (strcmp(value, "none") == 0)
        return 0;
    struct cp_ssh_hop *hops = xcalloc(MAX_HOPS, sizeof(*hops));
    size_t n = 0;
    for (const char *s = value;; s++) {
        size_t len = strcspn(s, ",");
        if (n >= MAX_HOPS || parse_hop(s, len, &hops[n]) < 0) {
            cp_ssh_hops_free(hops, n + (n < MAX_HOPS));
            return cp_error_make(err, CP_ERR_USAGE, 0,
                                 "\"%s\" is not a list of at most %d [user@]host[:port]", value,
                                 MAX_HOPS);
        }
        n++;
        s += len;
        if (*s == '\0')
            break;
    }
    *out = hops;
    *n_out = n;
    return 0;
}

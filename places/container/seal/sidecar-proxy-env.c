/* A sealed box's proxy variables: the sidecar by its address on the internal network (a box has
 * no resolver) with a credential of the box's own, which the sidecar derives from its secret
 * and the box's name, so no box can speak as another. */
#include "config.h"

#include <string.h>

#include "places/container/seal/sidecar.h"
#include "egress/egress.h"
#include "src/base/util.h"

int cp_sidecar_box_env(const struct cp_sidecar *s, const char *box, char ***out, cp_error_t *err)
{
    char token[CP_EGRESS_TOKEN_CHARS + 1];
    if (cp_egress_box_token(s->secret, box, token, err) < 0)
        return cp_error_code(err);
    cleanup_free char *url = xasprintf("http://%s:%s@%s:%d", box, token, s->ip, CP_SIDECAR_PORT);
    explicit_bzero(token, sizeof(token));
    static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                        "http_proxy", "https_proxy", "all_proxy"};
    char **v = xcalloc(ARRAY_SIZE(names) + 1, sizeof(char *));
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        v[i] = xasprintf("%s=%s", names[i], url);
    explicit_bzero(url, strlen(url));
    *out = v;
    return 0;
}

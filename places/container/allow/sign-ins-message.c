/* The sidecar's message: this run's sign-ins handed to the encoder the sidecar decodes with
 * (egress/egress.h), so that both sides spell the message alike. The entries only borrow the
 * list's values; the encoder wipes every copy json-c makes of them. */
#include "config.h"

#include "egress/egress.h"
#include "places/container/allow/sign-ins.h"
#include "src/base/util.h"

char *cp_sign_ins_message(const struct cp_sign_ins *s, const char *id)
{
    cleanup_free struct cp_egress_sign_in *v = xcalloc(s->n ? s->n : 1, sizeof(*v));
    for (size_t i = 0; i < s->n; i++)
        v[i] = (struct cp_egress_sign_in){
            .host = s->v[i].host,
            .prefix = s->v[i].prefix,
            .authorization = s->v[i].authorization,
            .source = s->v[i].source,
            .header = s->v[i].header,
            .placeholder = s->v[i].placeholder,
            .write = s->v[i].write,
        };
    return cp_egress_sign_ins_message(v, s->n, id);
}

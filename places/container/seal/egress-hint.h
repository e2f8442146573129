/* The words after a sealed command failed and the sidecar refused something for its box. */
#ifndef CONCH_EGRESS_HINT_H
#define CONCH_EGRESS_HINT_H

#include <stddef.h>

#include "src/base/error.h"

/* One refusal as the proxy's decision log names it (and two failures a person can act on: a far
 * side whose certificate did not verify, and a sign-in the far side refused): the host (or the
 * request's target when it named none), the reason's slug ("not-listed", "ip-literal", "port",
 * "method", ...), and for a request refused inside a tunnel the sidecar ended, its method and path
 * (else NULL). */
struct cp_egress_refusal {
    char *target;
    char *reason;
    char *method;
    char *path;
    char *source; /* a sign-in the far side refused: where it came from (a file), else NULL */
};

/* The distinct refusals for box in log text (the sidecar's log as the engine hands it back,
 * frame headers and all), in the order first made; at most 64. The caller frees them. */
size_t cp_egress_refusals(const char *text, size_t len, const char *box,
                          struct cp_egress_refusal **out);
void cp_egress_refusals_free(struct cp_egress_refusal *v, size_t n);

/* The paragraph: what was refused and why, what the box reaches (reach), and only the ways
 * on that can work: `conch-place hosts add HOST` for a name the list lacks, `... --write` for
 * an upload to a fetch-only host; for an IP literal,
 * another port, plain HTTP or a malformed request, that no entry can allow it and --unsealed
 * runs the command outside the seal. The caller's. */
char *cp_egress_hint_words(const struct cp_egress_refusal *v, size_t n, const char *reach);

#endif

/* Probe boxes: small boxes made from the egress image on a folder's internal network, running
 * `conch-place seal-probe` (src/cmd-seal-probe.c) to learn what a sealed box can open. A probe
 * box has a sealed box's network part (the same network, no IPv6) and nothing of the folder. */
#ifndef CONCH_SEAL_PROBE_H
#define CONCH_SEAL_PROBE_H

#include "places/container/engine/engine.h"
#include "places/container/seal/sidecar.h"

/* After a sidecar is made: a box on network must open ip's proxy port. When it cannot (a host
 * firewall that drops traffic across the bridge, as Docker's FORWARD DROP does to Podman's
 * bridges), the error names the rule that lets it through. */
int cp_seal_probe_sidecar(struct cp_engine *e, const char *image, const char *network,
                          const char *ip, cp_error_t *err);

/* doctor: from a probe box on the sidecar's network, the sidecar must answer and no address of
 * this computer may (counted at listeners this process opens on 0.0.0.0 and ::). One line
 * each on standard output, a failure with its next step; *failures_out counts the failures. */
int cp_seal_doctor(struct cp_engine *e, const struct cp_sidecar *s, int *failures_out,
                   cp_error_t *err);

#endif

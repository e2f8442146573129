/* Links judged by where they lead (issue 38): each link the box made is resolved step by step
 * through the folder as it will stand after the landing (the box's layer over this computer's
 * folder, the links of both), and a path is judged by every name it is reached by. */
#ifndef CONCH_MIRROR_LINKS_H
#define CONCH_MIRROR_LINKS_H

#include "mirror/rules.h"

/* Links followed in one resolution, at most; past them a link is refused with words. */
#define CP_LINKS_MAX 40

struct cp_links;

/* The folder (rootfd) with the layer (upperfd, -1: none) over it. The folder's and the layer's
 * links are read once, when first needed. */
struct cp_links *cp_links_new(int rootfd, int upperfd, const struct cp_rules *r);
void cp_links_free(struct cp_links *k);

/* Whether the box's link at path with text target may land: resolved through the folder as it
 * will stand (a name both sides hold is followed both ways), it stays inside, within
 * CP_LINKS_MAX links, and passes through and ends in no place the rules refuse. NULL when it
 * may, else why not. */
const char *cp_links_link_why(struct cp_links *k, const char *path, const char *target);

/* The rules for path by each name a link gives it (".claude -> shared-ai": shared-ai/x is
 * also .claude/x): NULL when none refuses it, else why (CP_RULES_HOST_RUN for host-run). */
const char *cp_links_place_why(struct cp_links *k, const char *path);

#endif

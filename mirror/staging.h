/* Staging folders a killed run left in the work folder: a landing cut by kill -9, from a far
 * copy (pull.c) or a box's layer (layer.c). Their owner is gone and what they hold never landed,
 * so each landing removes them first. Told by CP_STAGING_PREFIX and the owner's pid after it;
 * a folder whose pid is alive (or this process's) is left. Flat, made by the landings only. */
#ifndef CONCH_MIRROR_STAGING_H
#define CONCH_MIRROR_STAGING_H

void cp_staging_sweep(int rootfd);

#endif

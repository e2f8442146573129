/* Staging folders a killed run left in the work folder: a landing cut by kill -9, from a far
 * copy (pull.c) or a box's layer (layer.c). Their owner is gone and what they hold never landed,
 * so each landing removes them first. Told by CP_STAGING_PREFIX and the owner's pid after it;
 * a folder whose pid is alive (or this process's) is left. Flat, made by the landings only. */
#ifndef CONCH_MIRROR_STAGING_H
#define CONCH_MIRROR_STAGING_H

void cp_staging_sweep(int rootfd);

/* Makes the staging folder name in parentfd (0700) and opens it. It holds a .gitignore of "*"
 * from the start, so git never shows it, nor what a killed landing left in it. -1 on failure,
 * errno kept. */
int cp_staging_make(int parentfd, const char *name);

/* Closes *fd (-1 after) and removes the staging folder name, its .gitignore with it. */
void cp_staging_remove(int parentfd, const char *name, int *fd);

#endif

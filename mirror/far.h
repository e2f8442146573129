/* The far side's scripts, embedded from the .sh files of mirror/far at build time. */
#ifndef CONCH_MIRROR_FAR_H
#define CONCH_MIRROR_FAR_H

extern const char cp_far_list_script[];
extern const char cp_far_unpack_script[];
extern const char cp_far_pack_script[];
extern const char cp_far_lock_script[];

/* Exit codes the far scripts give for what only they can see (far/common.sh). */
#define CP_FAR_NO_TMP   120 /* no temporary folder */
#define CP_FAR_NO_COPY  121 /* the copy's folder cannot be made or entered */
#define CP_FAR_NO_SPACE 122 /* the disk (or the quota) is full */
#define CP_FAR_BUSY     123 /* the copy's lock is held */
#define CP_FAR_NO_TOOL  124 /* a tool the copy needs is missing */

#endif

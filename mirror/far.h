/* The far side's scripts, embedded from the .sh files of mirror/far at build time. */
#ifndef CONCH_MIRROR_FAR_H
#define CONCH_MIRROR_FAR_H

extern const char cp_far_list_script[];
extern const char cp_far_unpack_script[];
extern const char cp_far_pack_script[];

#endif

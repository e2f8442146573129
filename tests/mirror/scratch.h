/* Scratch trees for mirror tests: a work folder beside an "outside" folder with a canary. */
#ifndef CONCH_TESTS_SCRATCH_H
#define CONCH_TESTS_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

struct scratch {
    char top[64];  /* /tmp/conch-mirror-XXXXXX */
    char work[96]; /* top/work */
    char out[96];  /* top/outside, holding "canary" */
    int workfd;
};

#define CANARY_TEXT "canary: untouched\n"

int scratch_make(struct scratch *s);
void scratch_remove(struct scratch *s);
/* Removes a tree without following links. */
void rm_tree(const char *path);
/* path relative to dir; creates folders on the way. */
void put_file(const char *dir, const char *rel, const char *text);
/* The file's contents (caller frees), or NULL when absent or not a plain file. */
char *get_file(const char *dir, const char *rel);
bool exists_nofollow(const char *dir, const char *rel);
/* True when outside/ holds exactly the canary, unchanged, and top holds only work, outside. */
bool outside_untouched(const struct scratch *s);
/* Number of entries under dir (recursively, links not followed), the folder itself excluded. */
size_t count_tree(const char *dir);

#endif

/* The unit tests' one way to lay out a file: root/rel with text, its folders made on the way.
 * Included after cmocka.h by the tests that plant folders (a header of static helpers, since
 * each test is a program of its own; a test may use either). */
#ifndef CONCH_TESTS_PUT_FILE_H
#define CONCH_TESTS_PUT_FILE_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

__attribute__((unused)) static void put(const char *root, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *s = strchr(path + strlen(root) + 1, '/'); s != NULL; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Removes the tree at path, whatever a test left in it. */
__attribute__((unused)) static void remove_tree(const char *path)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    FILE *p = popen(cmd, "r");
    if (p != NULL)
        pclose(p);
}

#endif

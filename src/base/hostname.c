/* Validation of host names and allow-list patterns, shared by config loading and the proxy. */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "src/base/hostname.h"

static bool label_valid(const char *s, size_t len)
{
    if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-')
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && c != '-' && c != '_')
            return false;
    }
    return true;
}

bool cp_hostname_valid(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len > 253)
        return false;
    if (name[len - 1] == '.')
        len--;
    int labels = 0;
    bool all_numeric_last = false;
    for (size_t start = 0; start <= len;) {
        const char *dot = memchr(name + start, '.', len - start);
        size_t end = dot ? (size_t)(dot - name) : len;
        if (!label_valid(name + start, end - start))
            return false;
        all_numeric_last = strspn(name + start, "0123456789") >= end - start;
        labels++;
        start = end + 1;
        if (dot == NULL)
            break;
    }
    /* An all-digit last label would make "10.0.0.1" look like a name. */
    return labels >= 2 && !all_numeric_last;
}

bool cp_host_pattern_valid(const char *pattern)
{
    if (strncmp(pattern, "*.", 2) == 0)
        return cp_hostname_valid(pattern + 2);
    return cp_hostname_valid(pattern);
}

bool cp_host_pattern_match(const char *pattern, const char *name)
{
    if (strncmp(pattern, "*.", 2) != 0)
        return strcasecmp(pattern, name) == 0;
    const char *suffix = pattern + 1; /* ".example.org" */
    size_t sl = strlen(suffix), nl = strlen(name);
    return nl > sl && strcasecmp(name + nl - sl, suffix) == 0;
}

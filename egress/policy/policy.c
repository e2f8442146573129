/* Building and asking the allow-list. Patterns use the same validation as config.json, so a
 * list the sidecar accepts is exactly a list conch-place would have written. */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "egress/policy/policy.h"
#include "src/base/hostname.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static char *lowered(const char *s)
{
    char *out = xstrdup(s);
    for (char *c = out; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return out;
}

int cp_egress_policy_add_mode(struct cp_egress_policy *p, const char *pattern,
                              enum cp_egress_mode mode, cp_error_t *err)
{
    if (!cp_host_pattern_valid(pattern) || pattern[strlen(pattern) - 1] == '.')
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a host name or *.suffix pattern",
                             pattern);
    p->modes = xrealloc(p->modes, (p->patterns.n + 1) * sizeof(*p->modes));
    p->modes[p->patterns.n] = mode;
    cp_strvec_push_owned(&p->patterns, lowered(pattern));
    return 0;
}

int cp_egress_policy_add_host(struct cp_egress_policy *p, const char *pattern, cp_error_t *err)
{
    return cp_egress_policy_add_mode(p, pattern, CP_EGRESS_MODE_READ, err);
}

int cp_egress_policy_add_write(struct cp_egress_policy *p, const char *pattern, cp_error_t *err)
{
    return cp_egress_policy_add_mode(p, pattern, CP_EGRESS_MODE_WRITE, err);
}

int cp_egress_policy_add_pass(struct cp_egress_policy *p, const char *pattern, cp_error_t *err)
{
    return cp_egress_policy_add_mode(p, pattern, CP_EGRESS_MODE_PASS, err);
}

const char *cp_egress_mode_name(enum cp_egress_mode mode)
{
    switch (mode) {
    case CP_EGRESS_MODE_WRITE:
        return "write";
    case CP_EGRESS_MODE_PASS:
        return "pass-through";
    default:
        return "read";
    }
}

/* The words a list file may put after a host: the same as `hosts add`'s flags. */
static int mode_word(const char *word, enum cp_egress_mode *out)
{
    if (word[0] == '\0' || strcmp(word, "read") == 0)
        *out = CP_EGRESS_MODE_READ;
    else if (strcmp(word, "write") == 0)
        *out = CP_EGRESS_MODE_WRITE;
    else if (strcmp(word, "pass-through") == 0)
        *out = CP_EGRESS_MODE_PASS;
    else
        return -1;
    return 0;
}

static int add_line(struct cp_egress_policy *p, char *line, const char *path, int lineno,
                    cp_error_t *err)
{
    char *hash = strchr(line, '#');
    if (hash != NULL)
        *hash = '\0';
    char *start = line + strspn(line, " \t\r");
    size_t n = strlen(start);
    while (n > 0 && strchr(" \t\r", start[n - 1]) != NULL)
        start[--n] = '\0';
    if (n == 0)
        return 0;
    char *word = start + strcspn(start, " \t");
    if (*word != '\0') {
        *word++ = '\0';
        word += strspn(word, " \t");
    }
    enum cp_egress_mode mode;
    if (mode_word(word, &mode) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "%s:%d: '%s' is not a mode (write or pass-through)", path, lineno,
                             word);
    if (cp_egress_policy_add_mode(p, start, mode, err) < 0)
        return cp_error_wrap(err, "%s:%d", path, lineno);
    return 0;
}

int cp_egress_policy_add_file(struct cp_egress_policy *p, const char *path, cp_error_t *err)
{
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (cp_read_file(path, 1024 * 1024, &text, &len, err) < 0)
        return cp_error_wrap(err, "while reading the allow-list file");
    if (memchr(text, '\0', len) != NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s: holds a NUL byte", path);
    int lineno = 0;
    for (char *save = NULL, *line = text; line != NULL; line = save) {
        save = strchr(line, '\n');
        if (save != NULL)
            *save++ = '\0';
        if (add_line(p, line, path, ++lineno, err) < 0)
            return cp_error_code(err);
    }
    return 0;
}

int cp_egress_policy_add_cidr(struct cp_egress_policy *p, const char *cidr, cp_error_t *err)
{
    struct cp_cidr c;
    if (cp_cidr_parse(cidr, &c, err) < 0)
        return cp_error_code(err);
    p->cidrs = xrealloc(p->cidrs, (p->ncidrs + 1) * sizeof(*p->cidrs));
    p->cidrs[p->ncidrs++] = c;
    return 0;
}

int cp_egress_policy_add_pin(struct cp_egress_policy *p, const char *spec, cp_error_t *err)
{
    const char *eq = strchr(spec, '=');
    if (eq == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not HOST=ADDRESS", spec);
    cleanup_free char *host = lowered(spec);
    host[eq - spec] = '\0';
    struct cp_ip ip;
    if (!cp_hostname_valid(host) || host[strlen(host) - 1] == '.')
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s': '%s' is not a host name", spec, host);
    if (cp_ip_parse(eq + 1, &ip) < 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s': '%s' is not an IP address", spec, eq + 1);
    p->pins = xrealloc(p->pins, (p->npins + 1) * sizeof(*p->pins));
    p->pins[p->npins].host = steal_pointer(&host);
    p->pins[p->npins++].ip = ip;
    return 0;
}

bool cp_egress_policy_listed(const struct cp_egress_policy *p, const char *host)
{
    if (p->any_public)
        return true;
    for (size_t i = 0; i < p->patterns.n; i++)
        if (cp_host_pattern_match(p->patterns.v[i], host))
            return true;
    return false;
}

/* How specific a matching pattern is: an exact name beats every wildcard; a wildcard is as
 * specific as its suffix is long. */
static size_t specificity(const char *pattern)
{
    return pattern[0] == '*' ? strlen(pattern) : SIZE_MAX;
}

/* Among equally specific patterns the most open mode wins. */
static int openness(enum cp_egress_mode mode)
{
    return mode == CP_EGRESS_MODE_WRITE ? 2 : mode == CP_EGRESS_MODE_PASS ? 1 : 0;
}

enum cp_egress_mode cp_egress_policy_mode(const struct cp_egress_policy *p, const char *host)
{
    enum cp_egress_mode best = CP_EGRESS_MODE_READ;
    size_t best_spec = 0;
    for (size_t i = 0; i < p->patterns.n; i++) {
        if (!cp_host_pattern_match(p->patterns.v[i], host))
            continue;
        size_t spec = specificity(p->patterns.v[i]);
        if (spec > best_spec || (spec == best_spec && openness(p->modes[i]) > openness(best))) {
            best = p->modes[i];
            best_spec = spec;
        }
    }
    return best;
}

const struct cp_ip *cp_egress_policy_pinned(const struct cp_egress_policy *p, const char *host)
{
    for (size_t i = 0; i < p->npins; i++)
        if (strcmp(p->pins[i].host, host) == 0)
            return &p->pins[i].ip;
    return NULL;
}

static bool address_allowed(const struct cp_egress_policy *p, const struct cp_ip *ip)
{
    for (size_t i = 0; i < p->ncidrs; i++)
        if (cp_cidr_contains(&p->cidrs[i], ip))
            return true;
    return cp_addr_classify(ip) == CP_ADDR_PUBLIC;
}

enum cp_egress_reason cp_egress_policy_check_addrs(const struct cp_egress_policy *p,
                                                   const struct cp_ip *addrs, size_t n, size_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        if (!address_allowed(p, &addrs[i])) {
            *bad = i;
            return CP_EGRESS_SPECIAL_ADDRESS;
        }
    }
    return n == 0 ? CP_EGRESS_DNS : CP_EGRESS_ALLOWED;
}

void cp_egress_policy_dispose(struct cp_egress_policy *p)
{
    cp_strvec_dispose(&p->patterns);
    for (size_t i = 0; i < p->npins; i++)
        free(p->pins[i].host);
    free(p->modes);
    free(p->cidrs);
    free(p->pins);
    memset(p, 0, sizeof(*p));
}

/* The keyword table (config-keywords.c) and what its handlers are given: the reader's state
 * and one split line. The reader (config-parse.c) dispatches to the table; the table knows
 * nothing of the reader but this state, so arrows point one way. Not for other modules. */
#ifndef CONCH_SSH_CONFIG_KEYWORDS_H
#define CONCH_SSH_CONFIG_KEYWORDS_H

#include "places/ssh/config-host.h"
#include "places/ssh/config-text.h"
#include "src/base/strvec.h"

struct ssh_parse {
    const struct cp_ssh_fs *fs;
    const char *alias; /* NULL while listing names */
    struct cp_ssh_host *h;
    struct cp_strvec *names; /* listing: where literal Host names go */
    const char *file;
    int line;
    int depth;
    size_t files_read;
    bool active;     /* the current Host block applies */
    bool nevermatch; /* inside an Include of a block that does not apply */
};

/* One config line split into its keyword, its arguments and the raw rest (for commands). */
struct ssh_line {
    char *keyword; /* lowercased */
    char **argv;
    size_t argc;
    const char *rest;
};

enum ssh_kw_class {
    KW_READER, /* Host and Include: they steer the reader itself, which does them */
    KW_HONOURED,
    KW_IGNORED,
    KW_REFUSED_IF_APPLIES,
    KW_REFUSED,
};

struct ssh_keyword {
    const char *name; /* lowercase */
    enum ssh_kw_class cls;
    int (*handle)(struct ssh_parse *p, const struct ssh_keyword *kw, const struct ssh_line *l,
                  cp_error_t *err);
    size_t field;       /* offsetof into struct cp_ssh_host, for the shared handlers */
    const char *tokens; /* the %-tokens the value may hold */
    const char *why;    /* for refused keywords: the sentence */
};

/* The keyword's entry, or NULL. */
const struct ssh_keyword *ssh_keyword_find(const char *lowercase_name);

/* Records "file:line: message" as the error, for the line being read. */
#define ssh_parse_error(p, code, err, ...)                                                         \
    cp_ssh_line_error((p)->file, (p)->line, code, err, __VA_ARGS__)

#endif

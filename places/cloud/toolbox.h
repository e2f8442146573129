/* The sandbox's toolbox through Daytona's proxy: process execution, sessions and files. */
#ifndef CONCH_CLOUD_TOOLBOX_H
#define CONCH_CLOUD_TOOLBOX_H

#include <stdbool.h>
#include <stdio.h>

#include "places/cloud/daytona.h"
#include "places/cloud/sandbox.h"
#include "src/base/buf.h"

/* The sandbox's toolbox base: its toolboxProxyUrl + "/" + id, after the origin check. */
struct cp_toolbox {
    struct cp_daytona *d; /* borrowed */
    char *base;
};

int cp_toolbox_open(struct cp_daytona *d, const struct cp_sandbox *sb, struct cp_toolbox *out,
                    cp_error_t *err);
void cp_toolbox_dispose(struct cp_toolbox *t);
#define cleanup_toolbox __attribute__((cleanup(cp_toolbox_dispose)))

/* GET /user-home-dir: an absolute path. */
int cp_toolbox_home(struct cp_toolbox *t, char **out, cp_error_t *err);
/* GET /version: the cheapest proof the toolbox answers. */
int cp_toolbox_version(struct cp_toolbox *t, char **out, cp_error_t *err);
/* POST /process/execute; *result_out (optional) is stdout and stderr together. */
int cp_toolbox_execute(struct cp_toolbox *t, const char *command, long timeout_s, int *exit_out,
                       char **result_out, cp_error_t *err);
/* POST /files/bulk-upload of one file, its content read from fd (from its start). */
int cp_toolbox_upload(struct cp_toolbox *t, const char *dest, int fd, cp_error_t *err);
/* GET /files/download into fd, at most max bytes. */
int cp_toolbox_download(struct cp_toolbox *t, const char *path, int fd, size_t max,
                        cp_error_t *err);

/* Sessions: a command run apart from any request, its output kept and read as it grows. */
int cp_toolbox_session_create(struct cp_toolbox *t, const char *sid, cp_error_t *err);
int cp_toolbox_session_delete(struct cp_toolbox *t, const char *sid, cp_error_t *err);
int cp_toolbox_session_exec(struct cp_toolbox *t, const char *sid, const char *command,
                            char **cmd_id_out, cp_error_t *err);
/* *done_out and *exit_out once the command has ended. */
int cp_toolbox_command_status(struct cp_toolbox *t, const char *sid, const char *cid,
                              bool *done_out, int *exit_out, cp_error_t *err);
/* The whole output so far, standard output and error apart. */
int cp_toolbox_command_logs(struct cp_toolbox *t, const char *sid, const char *cid,
                            struct cp_buf *out, struct cp_buf *errout, cp_error_t *err);

#endif

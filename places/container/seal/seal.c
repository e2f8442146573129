/* The seal of one run, as the container place sees it: the folder's allow-list and sign-ins
 * read afresh, its sidecar found or made, the sign-ins handed to it, the box's proxy variables
 * and its CA bundle; after the command, the refusal hint. */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/seal/egress-trust.h"
#include "places/container/seal/seal.h"
#include "places/container/seal/sign-in-send.h"
#include "places/container/allow/allow.h"
#include "egress/egress.h"
#include "src/base/paths.h"
#include "src/base/secrets.h"
#include "src/base/util.h"

static void trust_dispose(struct cp_sidecar_trust *t)
{
    cp_free_secret(t->ca_pem);
    free(t->extra);
}

/* The CA the sidecar signs with, and egress.ca_file's roots it trusts beside this computer's. */
static int trust_load(const struct cp_config *cfg, struct cp_sidecar_trust *t, cp_error_t *err)
{
    if (cp_egress_ca_from_home(&t->ca_pem, err) < 0 ||
        cp_egress_ca_fingerprint(t->ca_pem, t->ca_fingerprint, err) < 0 ||
        cp_egress_extra_trust(cfg, &t->extra, err) < 0)
        return cp_error_wrap(err, "the egress sidecar's trust");
    return 0;
}

/* A sidecar given sign-ins has a mark, so that a run with none clears them and a run with none
 * for a sidecar without them costs no attach. */
static char *signed_mark(const struct cp_sidecar *s)
{
    cleanup_free char *dir = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_workplaces_dir(&dir, &err) < 0)
        return NULL;
    return xasprintf("%s/signed-%.64s", dir, s->id);
}

/* This run's sign-ins, read afresh, into the sidecar: one run at a time per folder. */
static int give_sign_ins(struct cp_engine *e, const struct cp_sidecar *s,
                         const struct cp_sign_ins *ins, cp_error_t *err)
{
    cleanup_free char *mark = signed_mark(s);
    if (ins->n == 0 && (mark == NULL || access(mark, F_OK) != 0))
        return 0;
    char id[17];
    cp_box_random_hex(id, sizeof(id));
    cleanup_secret char *line = cp_sign_ins_message(ins, id);
    cleanup_close int lock = cp_sidecar_lock(s->name, err);
    if (lock < 0 || cp_sidecar_send_sign_ins(e, s, line, id, err) < 0)
        return cp_error_wrap(err, "giving the egress sidecar your sign-ins");
    if (mark != NULL && ins->n == 0)
        unlink(mark);
    else if (mark != NULL)
        close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    return 0;
}

/* The proxy variables, then each named sign-in's placeholder (never its secret). */
static void add_placeholders(struct cp_seal *out, const struct cp_sign_ins *ins)
{
    char **named = cp_sign_ins_box_env(ins);
    size_t have = cp_strv_len(out->env), more = cp_strv_len(named);
    out->env = xrealloc(out->env, (have + more + 1) * sizeof(char *));
    for (size_t i = 0; i <= more; i++)
        out->env[have + i] = named[i]; /* the strings are the env's now */
    free(named);
}

/* The sidecar's sign-ins for this run, with the placeholders of a run of the folder going
 * beside it where there is one (sign-ins-share.c); this run is counted live from here. */
static int share_and_give(struct cp_engine *e, struct cp_seal *out, struct cp_sign_ins *ins,
                          cp_error_t *err)
{
    out->named_sign_ins = cp_sign_ins_any_named(ins);
    if (out->named_sign_ins)
        cp_sign_ins_share(ins, out->sidecar.id, out->box);
    return give_sign_ins(e, &out->sidecar, ins, err);
}

int cp_seal_prepare(struct cp_engine *e, const char *workdir, const struct cp_config *cfg,
                    const char *box, const char *image_id, struct cp_seal *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->since = time(NULL) - 1;
    out->box = xstrdup(box);
    __attribute__((cleanup(trust_dispose))) struct cp_sidecar_trust trust = {0};
    cleanup_sign_ins struct cp_sign_ins ins = {0};
    if (trust_load(cfg, &trust, err) < 0 || cp_sign_ins_for(workdir, &ins, err) < 0 ||
        cp_allowlist_signed_for(workdir, cfg, &ins, &out->list, err) < 0 ||
        cp_sidecar_ensure(e, &out->list, workdir, &trust, &out->sidecar, err) < 0 ||
        share_and_give(e, out, &ins, err) < 0 ||
        cp_sidecar_box_env(&out->sidecar, box, &out->env, err) < 0 ||
        cp_egress_box_bundle(e, image_id, trust.ca_pem, &out->ca_bundle, &out->ca_paths, err) < 0) {
        cp_seal_dispose(out);
        return cp_error_code(err);
    }
    add_placeholders(out, &ins);
    return 0;
}

void cp_seal_after(struct cp_engine *e, const struct cp_seal *seal, int status, const char *workdir)
{
    if (status != 0 && seal->sidecar.id != NULL)
        cp_sidecar_hint(e, &seal->sidecar, seal->box, seal->since, &seal->list, workdir);
}

void cp_seal_dispose(struct cp_seal *s)
{
    if (s->named_sign_ins && s->sidecar.id != NULL)
        cp_sign_ins_unshare(s->sidecar.id, s->box);
    cp_allowlist_dispose(&s->list);
    cp_sidecar_dispose(&s->sidecar);
    for (size_t i = 0; s->env != NULL && s->env[i] != NULL; i++)
        explicit_bzero(s->env[i], strlen(s->env[i]));
    cp_strv_free(s->env);
    free(s->box);
    free(s->ca_bundle);
    cp_strv_free(s->ca_paths);
    memset(s, 0, sizeof(*s));
}

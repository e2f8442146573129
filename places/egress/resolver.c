/* The lookup pool. Jobs move from a pending list to a done list under one mutex; the worker
 * reads only the job's host and writes only its answer, the loop alone reads the tag. */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "places/egress/resolver.h"
#include "src/base/util.h"

#define THREADS_MAX 16

struct cp_egress_job {
    struct cp_egress_job *next;
    void *tag; /* NULL once cancelled */
    char host[256];
    struct cp_egress_answer answer;
};

struct cp_egress_resolver {
    cp_egress_resolve_fn fn;
    void *ctx;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct cp_egress_job *pending, **pending_tail, *done;
    bool quit;
    int efd;
    unsigned nthreads;
    pthread_t threads[THREADS_MAX];
};

void cp_egress_resolve_default(void *ctx, const char *host, struct cp_egress_answer *out)
{
    memset(out, 0, sizeof(*out));
    const struct cp_ip *pin = ctx ? cp_egress_policy_pinned(ctx, host) : NULL;
    if (pin != NULL) {
        out->addrs[0] = *pin;
        out->n = 1;
        out->ok = 1;
        return;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return;
    for (struct addrinfo *ai = res; ai != NULL && out->n < CP_EGRESS_ADDRS_MAX; ai = ai->ai_next)
        if (cp_ip_from_sockaddr(ai->ai_addr, &out->addrs[out->n]) == 0)
            out->n++;
    freeaddrinfo(res);
    out->ok = out->n > 0;
}

static struct cp_egress_job *next_job(struct cp_egress_resolver *r)
{
    pthread_mutex_lock(&r->lock);
    while (r->pending == NULL && !r->quit)
        pthread_cond_wait(&r->wake, &r->lock);
    struct cp_egress_job *job = r->quit ? NULL : r->pending;
    if (job != NULL) {
        r->pending = job->next;
        if (r->pending == NULL)
            r->pending_tail = &r->pending;
    }
    pthread_mutex_unlock(&r->lock);
    return job;
}

static void *worker(void *arg)
{
    struct cp_egress_resolver *r = arg;
    struct cp_egress_job *job;
    while ((job = next_job(r)) != NULL) {
        r->fn(r->ctx, job->host, &job->answer);
        pthread_mutex_lock(&r->lock);
        job->next = r->done;
        r->done = job;
        pthread_mutex_unlock(&r->lock);
        uint64_t one = 1;
        ssize_t n = write(r->efd, &one, sizeof(one));
        (void)n; /* an eventfd only refuses at 2^64 - 1 pending wake-ups */
    }
    return NULL;
}

int cp_egress_resolver_new(cp_egress_resolve_fn fn, void *ctx, unsigned threads,
                           struct cp_egress_resolver **out, cp_error_t *err)
{
    struct cp_egress_resolver *r = xcalloc(1, sizeof(*r));
    r->fn = fn;
    r->ctx = ctx;
    r->pending_tail = &r->pending;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->wake, NULL);
    r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (r->efd < 0) {
        cp_egress_resolver_free(r);
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make the resolver's eventfd");
    }
    for (unsigned i = 0; i < threads && i < THREADS_MAX; i++) {
        int rc = pthread_create(&r->threads[i], NULL, worker, r);
        if (rc != 0) {
            cp_egress_resolver_free(r);
            return cp_error_make(err, CP_ERR_FAILED, rc, "cannot start a resolver thread");
        }
        r->nthreads++;
    }
    *out = r;
    return 0;
}

int cp_egress_resolver_fd(const struct cp_egress_resolver *r)
{
    return r->efd;
}

struct cp_egress_job *cp_egress_resolver_submit(struct cp_egress_resolver *r, const char *host,
                                                void *tag)
{
    struct cp_egress_job *job = xcalloc(1, sizeof(*job));
    job->tag = tag;
    snprintf(job->host, sizeof(job->host), "%s", host);
    pthread_mutex_lock(&r->lock);
    *r->pending_tail = job;
    r->pending_tail = &job->next;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    return job;
}

void cp_egress_resolver_cancel(struct cp_egress_job *job)
{
    job->tag = NULL;
}

int cp_egress_resolver_take(struct cp_egress_resolver *r, void **tag, struct cp_egress_answer *out)
{
    uint64_t count;
    ssize_t n = read(r->efd, &count, sizeof(count));
    (void)n; /* empty is fine: the done list is the truth, the counter only wakes us */
    for (;;) {
        pthread_mutex_lock(&r->lock);
        struct cp_egress_job *job = r->done;
        if (job != NULL)
            r->done = job->next;
        pthread_mutex_unlock(&r->lock);
        if (job == NULL)
            return 0;
        void *t = job->tag;
        *out = job->answer;
        free(job);
        if (t != NULL) {
            *tag = t;
            return 1;
        }
    }
}

static void free_list(struct cp_egress_job *job)
{
    while (job != NULL) {
        struct cp_egress_job *next = job->next;
        free(job);
        job = next;
    }
}

void cp_egress_resolver_free(struct cp_egress_resolver *r)
{
    if (r == NULL)
        return;
    pthread_mutex_lock(&r->lock);
    r->quit = true;
    pthread_cond_broadcast(&r->wake);
    pthread_mutex_unlock(&r->lock);
    for (unsigned i = 0; i < r->nthreads; i++)
        pthread_join(r->threads[i], NULL);
    free_list(r->pending);
    free_list(r->done);
    if (r->efd >= 0)
        close(r->efd);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->wake);
    free(r);
}

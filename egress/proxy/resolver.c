/* The lookups. c-ares tells which of its sockets to watch through a callback; they go on an
 * epoll set of their own, whose one descriptor the proxy's loop watches. Finished lookups wait
 * on a list until the loop takes them; a cancelled one is freed when it finishes. */
#include "config.h"

#include <ares.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "egress/proxy/resolver.h"
#include "src/base/util.h"

#define LOOKUP_TIMEOUT_MS 2500 /* per try; the proxy's dial deadline bounds the whole */
#define LOOKUP_TRIES      3
#define EVENTS_BATCH      32

struct cp_egress_job {
    struct cp_egress_job *next;
    struct cp_egress_resolver *r;
    void *tag; /* NULL once cancelled */
    bool in_submit, done;
    struct cp_egress_answer answer;
};

struct cp_egress_resolver {
    const struct cp_egress_policy *policy;
    ares_channel channel;
    bool have_channel;
    int epfd;
    struct cp_egress_job *done, **done_tail;
};

static void watch_socket(void *data, ares_socket_t fd, int readable, int writable)
{
    struct cp_egress_resolver *r = data;
    struct epoll_event ev = {.events = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0),
                             .data.fd = fd};
    if (!readable && !writable) {
        epoll_ctl(r->epfd, EPOLL_CTL_DEL, fd, NULL);
        return;
    }
    if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 && errno == ENOENT)
        epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev);
}

int cp_egress_resolver_new(const struct cp_egress_policy *policy, const char *servers,
                           struct cp_egress_resolver **out, cp_error_t *err)
{
    static bool library_ready;
    if (!library_ready && ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot start c-ares");
    library_ready = true;
    struct cp_egress_resolver *r = xcalloc(1, sizeof(*r));
    r->policy = policy;
    r->done_tail = &r->done;
    r->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (r->epfd < 0) {
        cp_egress_resolver_free(r);
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make the resolver's epoll set");
    }
    /* Every name is fully qualified: a search domain (resolv.conf's search line, LOCALDOMAIN)
     * would turn a listed name that does not exist into NAME.SEARCH-DOMAIN, a host nobody
     * listed, and HOSTALIASES would let the environment rename a listed host. The flag alone
     * is not enough: c-ares 1.18's ares_getaddrinfo ignores ARES_FLAG_NOSEARCH (the proxy
     * still dialled NAME.SEARCH-DOMAIN with it set), so the search list is also set empty,
     * which keeps LOCALDOMAIN and resolv.conf from filling it. */
    struct ares_options o = {.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES,
                             .timeout = LOOKUP_TIMEOUT_MS,
                             .tries = LOOKUP_TRIES,
                             .domains = NULL,
                             .ndomains = 0,
                             .sock_state_cb = watch_socket,
                             .sock_state_cb_data = r};
    int rc = ares_init_options(&r->channel, &o,
                               ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES |
                                   ARES_OPT_DOMAINS | ARES_OPT_SOCK_STATE_CB);
    if (rc != ARES_SUCCESS) {
        cp_egress_resolver_free(r);
        return cp_error_make(err, CP_ERR_FAILED, 0, "cannot start the resolver: %s",
                             ares_strerror(rc));
    }
    r->have_channel = true;
    if (servers != NULL && (rc = ares_set_servers_ports_csv(r->channel, servers)) != ARES_SUCCESS) {
        cp_egress_resolver_free(r);
        return cp_error_make(err, CP_ERR_USAGE, 0, "'%s' is not a list of DNS servers: %s", servers,
                             ares_strerror(rc));
    }
    *out = r;
    return 0;
}

int cp_egress_resolver_fd(const struct cp_egress_resolver *r)
{
    return r->epfd;
}

static void fill_answer(struct cp_egress_answer *a, const struct ares_addrinfo *res)
{
    memset(a, 0, sizeof(*a));
    for (const struct ares_addrinfo_node *n = res ? res->nodes : NULL;
         n != NULL && a->n < CP_EGRESS_ADDRS_MAX; n = n->ai_next)
        if (n->ai_addr != NULL && cp_ip_from_sockaddr(n->ai_addr, &a->addrs[a->n]) == 0)
            a->n++;
    a->ok = a->n > 0;
}

static void looked_up(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
    struct cp_egress_job *job = arg;
    struct cp_egress_resolver *r = job->r;
    fill_answer(&job->answer, status == ARES_SUCCESS ? res : NULL);
    if (res != NULL)
        ares_freeaddrinfo(res);
    job->done = true;
    if (job->in_submit)
        return; /* answered within submit, which hands it over itself */
    if (status == ARES_EDESTRUCTION || !r->have_channel) {
        free(job);
        return;
    }
    *r->done_tail = job;
    r->done_tail = &job->next;
}

int cp_egress_resolver_submit(struct cp_egress_resolver *r, const char *host, void *tag,
                              struct cp_egress_answer *out, struct cp_egress_job **job_out)
{
    const struct cp_ip *pin = r->policy ? cp_egress_policy_pinned(r->policy, host) : NULL;
    *job_out = NULL;
    if (pin != NULL) {
        memset(out, 0, sizeof(*out));
        out->addrs[0] = *pin;
        out->n = 1;
        out->ok = 1;
        return 1;
    }
    struct cp_egress_job *job = xcalloc(1, sizeof(*job));
    job->r = r;
    job->tag = tag;
    job->in_submit = true;
    struct ares_addrinfo_hints hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    ares_getaddrinfo(r->channel, host, NULL, &hints, looked_up, job);
    job->in_submit = false;
    if (job->done) {
        *out = job->answer;
        free(job);
        return 1;
    }
    *job_out = job;
    return 0;
}

void cp_egress_resolver_cancel(struct cp_egress_job *job)
{
    job->tag = NULL;
}

static void process(struct cp_egress_resolver *r)
{
    struct epoll_event events[EVENTS_BATCH];
    int n = epoll_wait(r->epfd, events, EVENTS_BATCH, 0);
    for (int i = 0; i < n; i++) {
        ares_socket_t fd = events[i].data.fd;
        bool in = events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR);
        bool out = events[i].events & EPOLLOUT;
        ares_process_fd(r->channel, in ? fd : ARES_SOCKET_BAD, out ? fd : ARES_SOCKET_BAD);
    }
    ares_process_fd(r->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD); /* the time-outs */
}

int cp_egress_resolver_take(struct cp_egress_resolver *r, void **tag, struct cp_egress_answer *out)
{
    if (r->done == NULL)
        process(r);
    while (r->done != NULL) {
        struct cp_egress_job *job = r->done;
        r->done = job->next;
        if (r->done == NULL)
            r->done_tail = &r->done;
        void *t = job->tag;
        *out = job->answer;
        free(job);
        if (t != NULL) {
            *tag = t;
            return 1;
        }
    }
    return 0;
}

void cp_egress_resolver_free(struct cp_egress_resolver *r)
{
    if (r == NULL)
        return;
    if (r->have_channel) {
        r->have_channel = false;
        ares_destroy(r->channel); /* each lookup's callback runs and frees its job */
    }
    while (r->done != NULL) {
        struct cp_egress_job *job = r->done;
        r->done = job->next;
        free(job);
    }
    if (r->epfd >= 0)
        close(r->epfd);
    free(r);
}

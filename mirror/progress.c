/* The progress line (progress.h): redrawn at most five times a second, cleared at the end. */
#include "config.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "mirror/progress.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cp_progress_begin(struct cp_progress *p, int fd, const char *what, uint64_t total)
{
    *p = (struct cp_progress){.what = what, .total = total};
    p->on = total >= CP_PROGRESS_MIN && isatty(fd);
}

static void draw(const struct cp_progress *p)
{
    uint64_t done = p->done < p->total ? p->done : p->total;
    fprintf(stderr, "\rconch-place: %s %llu of %llu MB (%llu%%)\033[K", p->what,
            (unsigned long long)(done / 1000000), (unsigned long long)(p->total / 1000000),
            (unsigned long long)(p->total ? done * 100 / p->total : 100));
    fflush(stderr);
}

void cp_progress_add(struct cp_progress *p, uint64_t n)
{
    p->done += n;
    if (!p->on)
        return;
    int64_t t = now_ms();
    if (t - p->last_ms < 200)
        return;
    p->last_ms = t;
    draw(p);
}

void cp_progress_end(struct cp_progress *p)
{
    if (p->on && p->last_ms != 0) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->on = false;
}

/* The progress line: one line of standard error, redrawn with a carriage return. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/progress.h"
#include "src/base/util.h"

#define REDRAW_NS 100000000L

static double seconds_since(int64_t t_ns)
{
    return (double)(cp_now_ns() - t_ns) / 1e9;
}

static void copy_text(char *dst, size_t len, const char *src)
{
    size_t n = 0;
    for (; src != NULL && *src != '\0' && n + 1 < len; src++)
        if ((unsigned char)*src >= 0x20 && *src != 0x7f)
            dst[n++] = *src;
    dst[n] = '\0';
}

void cp_progress_begin(struct cp_progress *p, int fd, const char *what)
{
    memset(p, 0, sizeof(*p));
    p->fd = fd;
    p->on = isatty(fd) && cp_log_verbose == 0;
    copy_text(p->what, sizeof(p->what), what);
    p->start_ns = cp_now_ns();
}

static void size_text(uint64_t bytes, char *out, size_t len)
{
    if (bytes >= 1024 * 1024)
        snprintf(out, len, "%.1f MB", (double)bytes / (1024.0 * 1024.0));
    else
        snprintf(out, len, "%.0f kB", (double)bytes / 1024.0);
}

void cp_progress_format(const struct cp_progress *p, double elapsed_s, char *out, size_t len)
{
    char amount[64] = "";
    char done[24], total[24];
    size_text(p->done, done, sizeof(done));
    size_text(p->total, total, sizeof(total));
    if (p->total > 0)
        snprintf(amount, sizeof(amount), " %s of %s (%d%%)", done, total,
                 (int)(p->done * 100 / p->total));
    else if (p->done > 0)
        snprintf(amount, sizeof(amount), " %s", done);
    long s = (long)elapsed_s;
    snprintf(out, len, "conch-place: %s: %s%s, %ld:%02ld%s%s", p->what, p->step, amount, s / 60,
             s % 60, p->note[0] ? "  " : "", p->note);
}

static int columns(int fd)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return ws.ws_col;
    return 80;
}

static void draw(struct cp_progress *p)
{
    char line[512];
    cp_progress_format(p, seconds_since(p->start_ns), line, sizeof(line));
    size_t width = (size_t)columns(p->fd) - 1;
    if (strlen(line) > width)
        line[width] = '\0';
    /* Carriage return, the line, then clear to its end: a shorter line leaves no tail. */
    char out[600];
    int n = snprintf(out, sizeof(out), "\r%s\033[K", line);
    if (n > 0)
        (void)cp_write_all(p->fd, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1);
    p->drawn_at_ns = cp_now_ns();
    p->drawn = true;
}

void cp_progress_tick(struct cp_progress *p)
{
    if (!p->on)
        return;
    if (p->drawn && cp_now_ns() - p->drawn_at_ns < REDRAW_NS)
        return;
    draw(p);
}

void cp_progress_step(struct cp_progress *p, const char *step, uint64_t total)
{
    copy_text(p->step, sizeof(p->step), step);
    p->note[0] = '\0';
    p->done = 0;
    p->total = total;
    if (p->on)
        draw(p);
}

void cp_progress_add(struct cp_progress *p, uint64_t bytes)
{
    p->done += bytes;
    cp_progress_tick(p);
}

void cp_progress_note(struct cp_progress *p, const char *note)
{
    copy_text(p->note, sizeof(p->note), note);
    cp_progress_tick(p);
}

void cp_progress_end(struct cp_progress *p)
{
    if (p->on && p->drawn)
        (void)cp_write_all(p->fd, "\r\033[K", 4);
    p->drawn = false;
}

// The floor under the daemon's frame on this host, measured by a loop written plainly in C with
// none of the daemon's code: what waking 60 times a second costs (a timerfd and epoll, nothing
// drawn), and what a ticker tape's frame costs when the band is interpolated and copied to a
// scanout buffer paced at 60 Hz against the same work done back to back (its pixels in cache).
// `Tests/Headless/frame-cost.py` builds it with the system's cc and prints its figures beside
// the daemon's: the ratio a 60 Hz loop cannot get under, whoever writes it.
//
//     loop-floor WIDTH HEIGHT BAND_ROWS FRAMES
//     FLOOR wake_ms=… tape_paced_ms=… tape_back_to_back_ms=… tape_paced_ratio=…
//
// CPU is the process's (getrusage: user + system), as the daemon's bench counts it.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

static double cpu_ms(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

// Each byte of `out` between `a` and `b` by t/255, rounded: a sub-pixel step of a crawling band.
// Sixteen-bit sums, so that the compiler keeps eight bytes to a lane as the daemon's kernel does.
static void lerp(uint8_t *restrict out, const uint8_t *a, const uint8_t *b, size_t n, uint16_t t) {
    uint16_t u = (uint16_t)(255 - t);
    for (size_t k = 0; k < n; k++) {
        uint16_t x = (uint16_t)(b[k] * t + a[k] * u + 128);
        out[k] = (uint8_t)((x + (x >> 8)) >> 8);
    }
}

struct pacer { int timer, epoll; };

static uint32_t checksum;

static struct pacer pacer_open(void) {
    struct pacer p = { timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), epoll_create1(EPOLL_CLOEXEC) };
    if (p.timer < 0 || p.epoll < 0) { perror("loop-floor"); exit(1); }
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = p.timer };
    epoll_ctl(p.epoll, EPOLL_CTL_ADD, p.timer, &ev);
    struct itimerspec every = { { 0, 16666667 }, { 0, 16666667 } };
    timerfd_settime(p.timer, 0, &every, NULL);
    return p;
}

static void pacer_wait(struct pacer p) {
    struct epoll_event out[4];
    uint64_t expirations;
    while (epoll_wait(p.epoll, out, 4, -1) < 1) {}
    if (read(p.timer, &expirations, sizeof expirations) < 0) perror("loop-floor: read");
}

// Frames 0..frames-1 of a band `rows` high at the foot, crawling 100 px/s; the first 60 warm up.
static double tape(int w, int h, int rows, int frames, int paced) {
    int iw = 8 * w;
    uint32_t *canvas = malloc((size_t)w * h * 4), *scanout = malloc((size_t)w * h * 4), *image = malloc((size_t)iw * rows * 4);
    if (!canvas || !scanout || !image) { perror("loop-floor"); exit(1); }
    for (size_t i = 0; i < (size_t)iw * rows; i++) image[i] = (uint32_t)(i * 2654435761u);
    memset(canvas, 0x20, (size_t)w * h * 4);
    memset(scanout, 0x20, (size_t)w * h * 4);
    struct pacer p = pacer_open();
    double start = 0;
    for (int f = -60; f < frames; f++) {
        if (f == 0) start = cpu_ms();
        if (paced) pacer_wait(p);
        double s = (f + 60) * 100.0 / 60;
        int whole = (int)s;
        uint16_t t = (uint16_t)((s - whole) * 255);
        int x0 = whole % (iw - w - 1), y0 = h - rows;
        for (int y = 0; y < rows; y++) {
            const uint32_t *src = image + (size_t)y * iw + x0;
            lerp((uint8_t *)(canvas + (size_t)(y0 + y) * w), (const uint8_t *)src, (const uint8_t *)(src + 1), (size_t)w * 4, t);
        }
        for (int y = 0; y < rows; y++)
            memcpy(scanout + (size_t)(y0 + y) * w, canvas + (size_t)(y0 + y) * w, (size_t)w * 4);
    }
    double ms = (cpu_ms() - start) / frames;
    // Read what was written, so that no compiler may leave the work out.
    uint32_t sum = 0;
    for (int y = h - rows; y < h; y++) sum ^= scanout[(size_t)y * w + (size_t)(y % w)];
    checksum += sum;
    close(p.timer);
    close(p.epoll);
    free(canvas);
    free(scanout);
    free(image);
    return ms;
}

static double wake(int frames) {
    struct pacer p = pacer_open();
    for (int f = 0; f < 30; f++) pacer_wait(p);
    double start = cpu_ms();
    for (int f = 0; f < frames; f++) pacer_wait(p);
    double ms = (cpu_ms() - start) / frames;
    close(p.timer);
    close(p.epoll);
    return ms;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: loop-floor WIDTH HEIGHT BAND_ROWS FRAMES\n");
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]), rows = atoi(argv[3]), frames = atoi(argv[4]);
    if (w < 2 || h < 1 || rows < 1 || rows > h || frames < 1) {
        fprintf(stderr, "loop-floor: a width of at least 2, a band within the height, frames\n");
        return 2;
    }
    double idle = wake(frames), paced = tape(w, h, rows, frames, 1), hot = tape(w, h, rows, frames, 0);
    printf("FLOOR w=%d h=%d band_rows=%d frames=%d wake_ms=%.4f tape_paced_ms=%.4f tape_back_to_back_ms=%.4f "
           "tape_paced_ratio=%.3f checksum=%08x\n", w, h, rows, frames, idle, paced, hot, hot > 0 ? paced / hot : 0.0,
           checksum);
    return 0;
}

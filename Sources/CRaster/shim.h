// Streaming stores and 4x4 transposes: the rasterizer's widest fills (see
// SpanKernels.streamingFillPixels) and the copies towards the screen, turned or not. Swift has no
// way to ask for a store that bypasses the cache, and an ordinary fill or copy of a frame larger
// than the cache reads every destination line in only to overwrite it.
#ifndef TICKERBOARD_CRASTER_SHIM_H
#define TICKERBOARD_CRASTER_SHIM_H
#include <stdint.h>
#include <stddef.h>

typedef uint32_t tb_u32x4 __attribute__((vector_size(16), aligned(16)));

/// out[0 ..< count] = value: the whole 64-byte lines between with streaming stores, the ends with
/// ordinary ones. On x86 the streaming stores are ordered by a store fence before returning, so
/// any thread that later synchronises with this one sees them.
static inline void tb_fill_streaming(uint32_t *out, size_t count, uint32_t value) {
    size_t i = 0;
    while (i < count && ((uintptr_t)(out + i) & 63) != 0) out[i++] = value;
    tb_u32x4 v = {value, value, value, value};
    for (; i + 16 <= count; i += 16) {
        __builtin_nontemporal_store(v, (tb_u32x4 *)(out + i));
        __builtin_nontemporal_store(v, (tb_u32x4 *)(out + i + 4));
        __builtin_nontemporal_store(v, (tb_u32x4 *)(out + i + 8));
        __builtin_nontemporal_store(v, (tb_u32x4 *)(out + i + 12));
    }
    for (; i < count; i++) out[i] = value;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#endif
}
typedef uint32_t tb_u32x4u __attribute__((vector_size(16), aligned(4)));

// The copies towards the screen below (see Display's CopyPlacement): scanout memory is written
// and never read back by us, so streaming stores spare reading each destination line in first.

/// Stores four pixels at `out`: streaming when `out` is 16-byte aligned, ordinary otherwise.
static inline void tb_store4(uint32_t *out, tb_u32x4 v) {
    if (((uintptr_t)out & 15) == 0) __builtin_nontemporal_store(v, (tb_u32x4 *)out);
    else *(tb_u32x4u *)out = v;
}

/// Orders the streaming stores before whatever the caller does next (a page flip).
static inline void tb_store_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#endif
}

/// dst[0 ..< count] = src[0 ..< count] with streaming stores. No fence: tb_store_fence after
/// the last row.
static inline void tb_copy_streaming(uint32_t *dst, const uint32_t *src, size_t count) {
    size_t i = 0;
    while (i < count && ((uintptr_t)(dst + i) & 15) != 0) { dst[i] = src[i]; i++; }
    for (; i + 8 <= count; i += 8) {
        tb_u32x4 a = *(const tb_u32x4u *)(src + i), b = *(const tb_u32x4u *)(src + i + 4);
        __builtin_nontemporal_store(a, (tb_u32x4 *)(dst + i));
        __builtin_nontemporal_store(b, (tb_u32x4 *)(dst + i + 4));
    }
    for (; i < count; i++) dst[i] = src[i];
}

static inline void tb_transpose4(tb_u32x4 *a, tb_u32x4 *b, tb_u32x4 *c, tb_u32x4 *d) {
    tb_u32x4 t0 = __builtin_shufflevector(*a, *b, 0, 4, 1, 5), t1 = __builtin_shufflevector(*a, *b, 2, 6, 3, 7);
    tb_u32x4 t2 = __builtin_shufflevector(*c, *d, 0, 4, 1, 5), t3 = __builtin_shufflevector(*c, *d, 2, 6, 3, 7);
    *a = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    *b = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    *c = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    *d = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/// Writes the destination rectangle [tx0, tx1) x [ty0, ty1) of a picture turned clockwise by
/// `turns` quarter turns (1, 2 or 3), reading each pixel from `src` (rows `ss` pixels apart) at
///   turns 1: (ty + cx, cy - tx)   turns 2: (cx - tx, cy - ty)   turns 3: (cx - ty, tx + cy)
/// (the caller folds the picture's size and a burn-in offset into cx and cy, and keeps every read
/// inside the source). A quarter turn goes in strips of 64 destination rows and 4x4 transposes:
/// each source line is read once while it is in cache, each destination row written in runs.
/// From a source out of cache (as a frame just drawn mostly is) a 1080p frame took 1.0-1.2 ms
/// here this way (1.4-1.8 ms in strips of 32 and 16 rows), against 2-3 ms pixel by pixel in
/// 32x32 tiles, and 0.4-0.5 ms for a plain streaming copy of the same bytes. The loads wait for
/// memory (a block's four rows are 7.5 kB apart, too far for the hardware to guess): asking for
/// the lines 48 source rows ahead (three blocks) took the turn of a frame drawn 1 ms before from
/// 0.7-1.0 to 0.55-0.64 ms in a C loop here (16 rows ahead, the next block: 0.8; from a source
/// still in cache it changed nothing). No fence: tb_store_fence.
/// How many source rows ahead of the block being turned tb_copy_turned asks for (see there).
#define TB_TURN_PREFETCH_ROWS 48

/// Asks for the lines of the strip's source columns (destination rows [sy, sEnd)) in the 16
/// source rows that destination columns [tx, tx + 16) read, those before tx1 only.
static inline void tb_prefetch_turned_rows(const uint32_t *src, ptrdiff_t ss, int turns, long cx, long cy,
                                           long sy, long sEnd, long tx, long tx1) {
    long end = tx + 16 < tx1 ? tx + 16 : tx1;
    for (; tx < end; tx++) {
        // The strip's first and last source pixel in that row, and every line between.
        const uint32_t *first = turns == 1 ? src + (cy - tx) * ss + sy + cx : src + (tx + cy) * ss + (cx - sEnd + 1);
        const char *p = (const char *)first, *last = (const char *)(first + (sEnd - sy - 1));
        for (; p < last; p += 64) __builtin_prefetch(p);
        __builtin_prefetch(last);
    }
}

static inline void tb_copy_turned(uint32_t *dst, ptrdiff_t ds, long tx0, long ty0, long tx1, long ty1,
                                  const uint32_t *src, ptrdiff_t ss, int turns, long cx, long cy) {
    if (tx1 <= tx0 || ty1 <= ty0) return;
    if (turns == 2) {
        for (long ty = ty0; ty < ty1; ty++) {
            uint32_t *out = dst + ty * ds;
            const uint32_t *row = src + (cy - ty) * ss + cx;  // destination column tx reads row[-tx]
            long tx = tx0;
            for (; tx < tx1 && ((uintptr_t)(out + tx) & 15) != 0; tx++) out[tx] = row[-tx];
            for (; tx + 4 <= tx1; tx += 4) {
                tb_u32x4 v = *(const tb_u32x4u *)(row - tx - 3);
                tb_store4(out + tx, __builtin_shufflevector(v, v, 3, 2, 1, 0));
            }
            for (; tx < tx1; tx++) out[tx] = row[-tx];
        }
        return;
    }
    long bx1 = tx0 + ((tx1 - tx0) & ~3L), by1 = ty0 + ((ty1 - ty0) & ~3L);
    for (long sy = ty0; sy < by1; sy += 64) {
        long sEnd = sy + 64 < by1 ? sy + 64 : by1;
        // Blocks end on the destination's 64-byte lines (a first block of 4-12 pixels reaches
        // one): a block straddling two lines leaves both half written.
        uintptr_t mis = (uintptr_t)(dst + sy * ds + tx0) & 63;
        long lead = (mis & 15) == 0 && mis != 0 ? (long)(64 - mis) / 4 : 16;
        for (long bx = tx0, bEnd; bx < bx1; bx = bEnd) {
            bEnd = bx + (bx == tx0 ? lead : 16);
            if (bEnd > bx1) bEnd = bx1;
            tb_prefetch_turned_rows(src, ss, turns, cx, cy, sy, sEnd, bx + TB_TURN_PREFETCH_ROWS, tx1);
            // Four destination rows at a time get a whole 64-byte line each before the next four:
            // streaming stores to more lines at once than the CPU has write-combining buffers
            // for go out as partial lines. A 1080p turn took 6 ms when each of 16 rows got 16
            // bytes in turn, 3 ms with lines straddled, 0.8-1.0 ms so.
            for (long ty = sy; ty < sEnd; ty += 4) {
                for (long tx = bx; tx < bEnd; tx += 4) {
                    tb_u32x4 a, b, c, d;
                    uint32_t *o = dst + ty * ds + tx;
                    if (turns == 1) {
                        const uint32_t *p = src + (cy - tx) * ss + ty + cx;
                        a = *(const tb_u32x4u *)p; b = *(const tb_u32x4u *)(p - ss);
                        c = *(const tb_u32x4u *)(p - 2 * ss); d = *(const tb_u32x4u *)(p - 3 * ss);
                        tb_transpose4(&a, &b, &c, &d);
                        tb_store4(o, a); tb_store4(o + ds, b); tb_store4(o + 2 * ds, c); tb_store4(o + 3 * ds, d);
                    } else {
                        const uint32_t *p = src + (tx + cy) * ss + (cx - ty - 3);
                        a = *(const tb_u32x4u *)p; b = *(const tb_u32x4u *)(p + ss);
                        c = *(const tb_u32x4u *)(p + 2 * ss); d = *(const tb_u32x4u *)(p + 3 * ss);
                        tb_transpose4(&a, &b, &c, &d);
                        tb_store4(o, d); tb_store4(o + ds, c); tb_store4(o + 2 * ds, b); tb_store4(o + 3 * ds, a);
                    }
                }
            }
        }
    }
    // The edges no 4x4 block covers: pixel by pixel.
    for (long ty = ty0; ty < ty1; ty++) {
        uint32_t *out = dst + ty * ds;
        for (long tx = ty < by1 ? bx1 : tx0; tx < tx1; tx++)
            out[tx] = turns == 1 ? src[(cy - tx) * ss + ty + cx] : src[(tx + cy) * ss + (cx - ty)];
    }
}
/* Each byte of `a` and `b` blended by t/255 (b's share) into `out`, `n` bytes: lerpPixel's
 * arithmetic per channel, exact (round(x/255) by (x + 128 + ((x + 128) >> 8)) >> 8), so equal
 * neighbours come out unchanged with no test. A loop over bytes the compiler turns into 16-bit
 * lanes (pmullw on x86-64's baseline, NEON on arm64): the tape's sub-pixel crawl blends every
 * pixel of its band every frame. */
static inline void tb_lerp_bytes(uint8_t *restrict out, const uint8_t *a, const uint8_t *b, size_t n, uint16_t t) {
    uint16_t it = (uint16_t)(255 - t);
    for (size_t k = 0; k < n; k++) {
        uint16_t x = (uint16_t)(b[k] * t + a[k] * it + 128);
        out[k] = (uint8_t)((x + (x >> 8)) >> 8);
    }
}

#endif

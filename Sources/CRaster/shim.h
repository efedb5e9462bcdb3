// Streaming stores for the rasterizer's widest fills (see SpanKernels.streamingFillPixels). Swift
// has no way to ask for a store that bypasses the cache, and an ordinary fill of a frame larger
// than the cache reads every line in only to overwrite it.
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
#endif

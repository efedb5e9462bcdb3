// Counts the calls to malloc and its kin and the bytes asked for, for `tickerboard bench --mode
// daemon` (which reads the totals through `tb_alloc_counts`). glibc keeps no running total of its
// own, and its malloc hooks are gone since 2.34. Preloaded:
//     cc -O2 -shared -fPIC -o alloc-count.so Tests/Bench/alloc-count.c
//     LD_PRELOAD=$PWD/alloc-count.so tickerboard bench --mode daemon ...
// Each wrapper calls glibc's own entry (__libc_malloc and so on), so there is no dlsym lookup and no
// recursion while the loader is still resolving symbols.
#include <stddef.h>
#include <stdint.h>
#include <errno.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static uint64_t calls, bytes;

static void count(size_t n) {
    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bytes, (uint64_t)n, __ATOMIC_RELAXED);
}

void tb_alloc_counts(uint64_t *c, uint64_t *b) {
    if (c) *c = __atomic_load_n(&calls, __ATOMIC_RELAXED);
    if (b) *b = __atomic_load_n(&bytes, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { count(n); return __libc_malloc(n); }
void *calloc(size_t k, size_t n) { count(k * n); return __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { count(n); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { count(n); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { count(n); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    if (a < sizeof(void *) || (a & (a - 1)) != 0) return EINVAL;
    count(n);
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

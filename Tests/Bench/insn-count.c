/*
 * insn-count.c - a QEMU TCG plugin that counts the guest instructions a program executes.
 *
 * Why: to state "instructions per frame" for the daemon on arm64 (and x86-64 for comparison)
 * without the hardware, by running it under qemu-user (linux-user mode). Debian ships neither
 * QEMU's plugins nor its qemu-plugin.h, so Tests/Bench/insn-count.sh fetches the header of the
 * host's QEMU (7.2, plugin API version 1) from the Debian source package at run time, into a
 * cache outside the repository, and builds this file against it (cc -shared -fPIC).
 *
 * How: at translation time each translation block (TB) gets an execution hook that adds the
 * TB's instruction count when the TB starts executing.
 *   default      a helper call per executed TB adds to a per-vCPU slot (one cache line each,
 *                indexed by vCPU index, i.e. guest thread, modulo SLOTS) with a relaxed atomic
 *                add: exact for multi-threaded guests, whose threads run in parallel.
 *   inline=on    an inline u64 add into one shared counter instead: a few % faster, but that
 *                add is not atomic, so increments from guest threads running at the same
 *                time can be lost (exact for single-threaded guests only).
 * Counting per TB at its start over-counts when a TB is left part-way (a fault, or the
 * single-stepping of an atomic sequence under parallel threads); that is rare in user mode.
 *
 * Arguments (-plugin insn-count.so,ARG=VAL,...):
 *   outfile=PATH  write "INSNS <total>\n" to PATH at exit (default: to stderr)
 *   inline=on|off see above (default off)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define SLOTS 256
static struct { uint64_t n; char pad[56]; } slot[SLOTS] __attribute__((aligned(64)));
static uint64_t inline_total;
static bool use_inline;
static const char *outfile;

static void tb_exec(unsigned int vcpu, void *udata)
{
    __atomic_fetch_add(&slot[vcpu % SLOTS].n, (uint64_t)(uintptr_t)udata, __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (use_inline)
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &inline_total, n);
    else
        qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    uint64_t total = __atomic_load_n(&inline_total, __ATOMIC_RELAXED);
    for (int i = 0; i < SLOTS; i++)
        total += __atomic_load_n(&slot[i].n, __ATOMIC_RELAXED);
    FILE *f = outfile ? fopen(outfile, "w") : stderr;
    if (!f) {
        fprintf(stderr, "insn-count: cannot write %s; INSNS %" PRIu64 "\n", outfile, total);
        return;
    }
    fprintf(f, "INSNS %" PRIu64 "\n", total);
    if (f != stderr)
        fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq && !strncmp(argv[i], "outfile=", 8)) {
            outfile = eq + 1;
        } else if (eq && !strncmp(argv[i], "inline=", 7)) {
            if (!qemu_plugin_bool_parse("inline", eq + 1, &use_inline)) {
                fprintf(stderr, "insn-count: bad value in \"%s\" (on or off)\n", argv[i]);
                return -1;
            }
        } else {
            fprintf(stderr, "insn-count: unknown argument \"%s\" (outfile=PATH, inline=on|off)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}

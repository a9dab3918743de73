/*
 * The injection library's host side, without a GPU
 * (src/trace/inject/inject_drain.c): the records the device patches leave
 * in a launch's buffer, in the order their slots were taken, become the
 * trace's records, sorted by block and warp (each warp's in slot order),
 * the lost warps and the records no trace holds left out, PCs made
 * relative to the kernel; and what it gives is a trace the reader takes.
 *
 * The launch: 2 blocks of 40 threads (2 warps each, the second of 8
 * lanes), every warp in the sample, the kernel's code at 0x1000..0x1200.
 */
#define _XOPEN_SOURCE 700 /* getpid */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "trace/inject/inject_drain.h"

#define NREC 10

static cml_inject_rec rec(uint64_t block, uint32_t warp, uint64_t pc, uint32_t active,
                          uint32_t attr, uint32_t size, uint64_t base)
{
    cml_inject_rec r;
    memset(&r, 0, sizeof r);
    r.block = block;
    r.warp = warp;
    r.pc = pc;
    r.active = active;
    r.attr = attr;
    r.size = size;
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = (active >> l) & 1u ? base + 4u * l : 0xDEADu; /* garbage off the mask */
    return r;
}

int main(void)
{
    const cml_inject_launch l = {{2, 1, 1}, {40, 1, 1}, 2, 1, 0x1000, 0x200, 0, 7};
    cml_inject_rec r[NREC] = {
        rec(1, 0, 0x1010, 0xFFFFFFFFu, 0, 4, 0x100),    /* 0: block 1 warp 0, load     */
        rec(0, 1, 0x1010, 0xFFu, 0, 4, 0x200),          /* 1: block 0 warp 1, 8 lanes  */
        rec(0, 0, 0x1010, 0xFFFFFFFFu, 0, 4, 0x300),    /* 2: block 0 warp 0, load     */
        rec(0, 0, 0x1020, 0xFFFFFFFFu, 1u << 2, 4, 0x400), /* 3: its store         */
        rec(1, 1, 0x1010, 0xFFu, 0, 4, 0x500),          /* 4: warp 3 lost             */
        rec(1, 0, 0x1020, 0xFFFFFFFFu, 1u << 2, 4, 0x600), /* 5: block 1's store    */
        rec(0, 1, 0x1010, 0x1FFu, 0, 4, 0x700),         /* 6: lane 8 of 40 threads    */
        rec(0, 0, 0x0900, 1u, 2u << 2, 8, 0x800),       /* 7: an atomic outside       */
        rec(0, 0, 0x1010, 1u, 0, 3, 0x900),             /* 8: a size of 3             */
        rec(2, 0, 0x1010, 1u, 0, 4, 0xA00),             /* 9: block 2 of 2            */
    };
    const unsigned lost[1] = {1u << 3}; /* warp 3: block 1, warp 1 */
    cml_tf_ins out[NREC];
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    size_t outside = 0;
    const size_t m = cml_inject_drain(&l, r, NREC, lost, 1, out, &k, &outside);
    CHECK_EQ_U64(m, 6);
    /* block 0 warp 0: slots 2, 3, 7; block 0 warp 1: slot 1; block 1 warp 0: 0, 5 */
    static const uint64_t base[6] = {0x300, 0x400, 0x800, 0x200, 0x100, 0x600};
    static const uint32_t pc[6] = {0x10, 0x20, 0x900, 0x10, 0x10, 0x20};
    static const uint32_t func[6] = {0, 0, 7, 0, 0, 0};
    static const uint8_t op[6] = {CML_TF_LOAD, CML_TF_STORE, CML_TF_ATOMIC, CML_TF_LOAD,
                                  CML_TF_LOAD, CML_TF_STORE};
    for (size_t i = 0; i < m && i < 6; i++) {
        CHECK_EQ_U64(out[i].addr[0], base[i]);
        CHECK_EQ_U64(out[i].pc, pc[i]);
        CHECK_EQ_U64(out[i].func, func[i]);
        CHECK_EQ_U64(out[i].op, op[i]);
    }
    CHECK_EQ_U64(out[3].active, 0xFFu);
    CHECK_EQ_U64(out[3].addr[7], 0x200 + 28);
    CHECK_EQ_U64(out[3].addr[8], 0); /* off the mask: not the buffer's garbage */
    CHECK_EQ_U64(out[2].size, 8);
    CHECK_EQ_U64(outside, 1);
    CHECK_EQ_U64(k.warps_total, 4);
    CHECK_EQ_U64(k.warps_recorded, 3);
    CHECK_EQ_U64(k.warps_lost, 1);
    CHECK_EQ_U64(k.stride, 1);

    /* what it gives is a trace the reader takes, record for record */
    char path[256], err[400];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/cml_drain_%ld.trace", dir && *dir ? dir : "/tmp",
             (long)getpid());
    cml_tf_header h = {"test", 90, 132, 0, "", 0, 1u << 20, "test_inject_drain"};
    cml_tf_writer *w = cml_tf_writer_open(path, &h, err, sizeof err);
    CHECK(w != NULL);
    if (w) {
        for (uint32_t f = 0; f < 8; f++) {
            cml_tf_func fn = {f, f ? "(called from k)" : "k", "", 1, ""};
            CHECK_EQ_I64(cml_tf_write_func(w, &fn), 0);
        }
        CHECK_EQ_I64(cml_tf_write_kernel(w, &k, out, m), 0);
        CHECK_EQ_I64(cml_tf_writer_close(w), 0);
        cml_trace t;
        CHECK_EQ_I64(cml_tf_read(path, &t, err, sizeof err), 0);
        CHECK_EQ_U64(t.nkernels, 1);
        if (t.nkernels == 1) {
            CHECK_EQ_U64(t.kernel[0].nins, 6);
            CHECK_EQ_U64(t.kernel[0].warps_lost, 1);
            cml_tf_cursor c;
            cml_tf_ins x;
            cml_tf_cursor_init(&c, &t.kernel[0]);
            for (size_t i = 0; i < 6 && cml_tf_next(&c, &x); i++)
                CHECK(memcmp(&x, &out[i], sizeof x) == 0);
        }
        cml_tf_free(&t);
        remove(path);
    }

    /* a sample of every other warp: warp 2 (block 1, warp 0) is j = 1 */
    cml_inject_launch l2 = l;
    l2.stride = 2;
    const unsigned lost2[1] = {1u << 1};
    const cml_inject_rec r2[2] = {rec(0, 0, 0x1010, 1u, 0, 4, 0), rec(1, 0, 0x1010, 1u, 0, 4, 0)};
    const size_t m2 = cml_inject_drain(&l2, r2, 2, lost2, 1, out, &k, &outside);
    CHECK_EQ_U64(m2, 1);
    CHECK_EQ_U64(out[0].block, 0);
    CHECK_EQ_U64(k.warps_lost, 1);
    CHECK_EQ_U64(k.stride, 2);
    return cml_test_summary("test_inject_drain");
}

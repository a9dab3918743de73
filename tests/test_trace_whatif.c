/*
 * What if (src/trace/trace_whatif.h): the transforms of an instruction's
 * lane addresses, on synthetic warps whose figures are derived by hand
 * below and on the committed traces of the lab's own kernels
 * (tests/data/trace/). Each case writes its warps as a trace (the writer
 * the injection library uses), reads it back and models it, so the
 * transforms see exactly what `cumemlab trace --from` gives them.
 */
#define _XOPEN_SOURCE 700 /* getpid */
#include "trace_test_util.h"
#include "trace/trace_whatif.h"

#define FULL 0xffffffffu
#define BASE (UINT64_C(1) << 40) /* a global array, aligned as cudaMalloc's */

/* One block of `threads` holding ins[0..n), read back and modelled. */
static int load(const cml_tf_ins *ins, size_t n, unsigned threads, cml_trace *t, cml_tf_model *m)
{
    const unsigned grid[3] = {1, 1, 1}, block[3] = {threads, 1, 1};
    return trace_load(ins, n, grid, block, t, m);
}

/* A warp instruction at pc 0 of warp w: space, size, every lane active. */
static cml_tf_ins warp_ins(unsigned space, unsigned op, unsigned size, uint32_t w)
{
    return trace_warp(space, op, size, 0, w, 0);
}

/* The transforms of the launch's only site. */
static int whatif_of(const cml_tf_ins *ins, size_t n, unsigned threads, cml_wi_list *out,
                     cml_traffic *site)
{
    cml_trace t;
    cml_tf_model m;
    if (load(ins, n, threads, &t, &m) != 0)
        return -1;
    CHECK_EQ_U64(m.nsites, 1);
    cml_status rc = cml_wi_site(&t.kernel[0], &m.sites[0], out);
    CHECK_EQ_I64(rc, CML_OK);
    *site = m.sites[0].traffic;
    cml_tf_model_free(&m);
    cml_tf_free(&t);
    return rc == CML_OK ? 0 : -1;
}

/*
 * A 32 x 32 float tile in shared memory read by column: warp w (of a block
 * of 1024) reads tile[l][w], lane l at 128 l + 4 w: every lane in bank w,
 * 32 wavefronts a request, 31 conflicts; 32 warps: 1024 wavefronts, 992
 * conflicts, 992 * 128 = 126976 bytes wasted. Padded by one float a row
 * (pitch 132 = 33 words): lane l in bank (w + 33 l) mod 32 = (w + l) mod
 * 32, all different: 1 wavefront a request, 32 in all, no conflict; k = 1
 * is also the smallest k that leaves none, so the only transform. No
 * structure (the stride is a whole line), no vector (not contiguous).
 */
static void test_shared_column(void)
{
    cml_tf_ins ins[32];
    for (uint32_t w = 0; w < 32; w++) {
        ins[w] = warp_ins(CML_TF_SHARED, CML_TF_LOAD, 4, w);
        for (unsigned l = 0; l < 32; l++)
            ins[w].addr[l] = 128u * l + 4u * w;
    }
    cml_wi_list wi;
    cml_traffic site;
    if (whatif_of(ins, 32, 1024, &wi, &site) != 0)
        return;
    CHECK_EQ_U64(site.wavefronts, 1024);
    CHECK_EQ_U64(wi.n, 1);
    const cml_wi *p = &wi.item[0];
    CHECK_EQ_U64(p->kind, CML_WI_PAD);
    CHECK_EQ_U64(p->k, 1);
    CHECK_EQ_U64(p->lanes, 1);
    CHECK_EQ_U64(p->stride, 128);
    CHECK_EQ_U64(p->warps, 32);
    CHECK_EQ_U64(p->of, 32);
    CHECK_EQ_U64(p->before.requests, 32);
    CHECK_EQ_U64(p->before.wavefronts, 1024);
    CHECK_EQ_U64(p->before.bank_conflicts, 992);
    CHECK_EQ_U64(p->after.requests, 32);
    CHECK_EQ_U64(p->after.wavefronts, 32);
    CHECK_EQ_U64(p->after.bank_conflicts, 0);
    CHECK_EQ_U64(p->waste_before, 126976);
    CHECK_EQ_U64(p->waste_after, 0);
    CHECK_EQ_I64(cml_wi_saved(p), 126976);
    char buf[160];
    cml_wi_describe(p, 4, buf, sizeof buf);
    CHECK_STR_EQ(buf, "pad each row of 128 B by 1 element (4 B)");
}

/*
 * Rows of two lanes: lanes 2r and 2r + 1 read words 32 r and 32 r + 1 of a
 * 32-word-pitch tile (a 16 x 2 corner of it): banks 0 and 1, 16 distinct
 * words each: 16 wavefronts, 15 conflicts. Pad 1 (pitch 33 words): row r's
 * words in banks r and r + 1, so bank b holds rows b - 1 and b: 2
 * wavefronts, 1 conflict. Pad 2 (pitch 34): banks 2r and 2r + 1, all 32
 * different: 1 wavefront. So both are shown: k = 1 and the smallest clean
 * k = 2. One warp: 15 * 128 = 1920 bytes wasted, 128 after pad 1, 0 after
 * pad 2.
 */
static void test_shared_pairs(void)
{
    cml_tf_ins r = warp_ins(CML_TF_SHARED, CML_TF_LOAD, 4, 0);
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = 128u * (l / 2u) + 4u * (l % 2u);
    cml_wi_list wi;
    cml_traffic site;
    if (whatif_of(&r, 1, 32, &wi, &site) != 0)
        return;
    CHECK_EQ_U64(site.wavefronts, 16);
    CHECK_EQ_U64(wi.n, 2);
    if (wi.n != 2)
        return;
    CHECK_EQ_U64(wi.item[0].kind, CML_WI_PAD);
    CHECK_EQ_U64(wi.item[0].k, 1);
    CHECK_EQ_U64(wi.item[0].lanes, 2);
    CHECK_EQ_U64(wi.item[0].after.wavefronts, 2);
    CHECK_EQ_U64(wi.item[0].after.bank_conflicts, 1);
    CHECK_EQ_I64(cml_wi_saved(&wi.item[0]), 1920 - 128);
    CHECK_EQ_U64(wi.item[1].kind, CML_WI_PAD);
    CHECK_EQ_U64(wi.item[1].k, 2);
    CHECK_EQ_U64(wi.item[1].after.wavefronts, 1);
    CHECK_EQ_U64(wi.item[1].after.bank_conflicts, 0);
    CHECK_EQ_I64(cml_wi_saved(&wi.item[1]), 1920);
}

/*
 * An array of 16-byte structures, each lane reading the 4-byte field at
 * offset 4: lane l at BASE + 4 + 16 l, 512 bytes from BASE + 4: sectors
 * 0..15, 16 a request for 128 bytes asked (25%), 384 wasted. Two warps
 * (the second 512 bytes on): 32 sectors, 768 wasted. The field's own array:
 * lane l at its warp's line + 4 l, 4 sectors (100%): 8 sectors, nothing
 * wasted. Nothing else applies (a stride under a line is a structure's,
 * not a row's, in global memory).
 */
static void test_aos(void)
{
    cml_tf_ins ins[2];
    for (uint32_t w = 0; w < 2; w++) {
        ins[w] = warp_ins(CML_TF_GLOBAL, CML_TF_LOAD, 4, w);
        for (unsigned l = 0; l < 32; l++)
            ins[w].addr[l] = BASE + 512u * w + 4u + 16u * l;
    }
    cml_wi_list wi;
    cml_traffic site;
    if (whatif_of(ins, 2, 64, &wi, &site) != 0)
        return;
    CHECK_EQ_U64(site.sectors, 32);
    CHECK_EQ_U64(wi.n, 1);
    const cml_wi *s = &wi.item[0];
    CHECK_EQ_U64(s->kind, CML_WI_SOA);
    CHECK_EQ_U64(s->stride, 16);
    CHECK_EQ_U64(s->warps, 2);
    CHECK_EQ_U64(s->before.requests, 2);
    CHECK_EQ_U64(s->before.sectors, 32);
    CHECK_EQ_U64(s->before.requested_bytes, 256);
    CHECK_NEAR(cml_traffic_efficiency(&s->before), 0.25, 1e-12);
    CHECK_EQ_U64(s->after.requests, 2);
    CHECK_EQ_U64(s->after.sectors, 8);
    CHECK_NEAR(cml_traffic_efficiency(&s->after), 1.0, 1e-12);
    CHECK_EQ_U64(s->waste_before, 768);
    CHECK_EQ_U64(s->waste_after, 0);
    CHECK_EQ_I64(cml_wi_saved(s), 768);
}

/*
 * Float loads, 8 warps reading 8 consecutive runs of 128 bytes from
 * BASE + off: with off = 0, 4 sectors a request, 8 requests, 32 sectors.
 * 8-byte lanes: runs joined in pairs (bases 0, 256, 512, 768 start them):
 * 4 requests of 256 bytes, 8 sectors each, 32 sectors. 16-byte lanes: 2
 * requests of 16 sectors: requests / 4, the same sectors. With off = 8
 * (each run 5 sectors: 40, 256 bytes wasted): 8-byte lanes still align
 * (256 j + 8 is a multiple of 8): 4 requests of 256 bytes from offset 8, 9
 * sectors each, 36 sectors, 128 bytes wasted; 16-byte lanes cannot start
 * at an offset of 8: not shown.
 */
static void test_vector(void)
{
    for (unsigned off = 0; off <= 8u; off += 8u) {
        cml_tf_ins ins[8];
        for (uint32_t w = 0; w < 8; w++) {
            ins[w] = warp_ins(CML_TF_GLOBAL, CML_TF_LOAD, 4, w);
            for (unsigned l = 0; l < 32; l++)
                ins[w].addr[l] = BASE + off + 128u * w + 4u * l;
        }
        cml_wi_list wi;
        cml_traffic site;
        if (whatif_of(ins, 8, 256, &wi, &site) != 0)
            return;
        CHECK_EQ_U64(site.sectors, off ? 40 : 32);
        CHECK_EQ_U64(wi.n, off ? 1 : 2);
        if (wi.n < 1)
            continue;
        const cml_wi *v8 = &wi.item[0];
        CHECK_EQ_U64(v8->kind, CML_WI_VECTOR);
        CHECK_EQ_U64(v8->k, 8);
        CHECK_EQ_U64(v8->warps, 8);
        CHECK_EQ_U64(v8->before.requests, 8);
        CHECK_EQ_U64(v8->after.requests, 4);
        CHECK_EQ_U64(v8->after.sectors, off ? 36 : 32);
        CHECK_EQ_U64(v8->after.requested_bytes, 1024);
        CHECK_EQ_I64(cml_wi_saved(v8), off ? 128 : 0);
        if (off || wi.n < 2)
            continue;
        const cml_wi *v16 = &wi.item[1];
        CHECK_EQ_U64(v16->k, 16);
        CHECK_EQ_U64(v16->after.requests, 2);
        CHECK_EQ_U64(v16->after.sectors, 32);
        char buf[160];
        cml_wi_describe(v16, 4, buf, sizeof buf);
        CHECK_STR_EQ(buf, "16-byte accesses (4 elements a lane)");
    }
}

/*
 * Runs that cannot all be joined: bases 0, 128, 256 (three float runs):
 * 8-byte lanes join 0 + 128, and 256 passes as recorded (its partner is
 * missing): 2 requests, 12 sectors; 16-byte lanes need four: none joined,
 * not shown. A warp that is not the example's pattern (every lane on one
 * address) passes unchanged and is counted in both.
 */
static void test_vector_partial(void)
{
    cml_tf_ins ins[4];
    for (uint32_t w = 0; w < 4; w++) {
        ins[w] = warp_ins(CML_TF_GLOBAL, CML_TF_LOAD, 4, w);
        for (unsigned l = 0; l < 32; l++)
            ins[w].addr[l] = w == 3 ? BASE + 4096u : BASE + 128u * w + 4u * l;
    }
    cml_wi_list wi;
    cml_traffic site;
    if (whatif_of(ins, 4, 128, &wi, &site) != 0)
        return;
    CHECK_EQ_U64(site.requests, 4);
    CHECK_EQ_U64(site.sectors, 13);
    CHECK_EQ_U64(wi.n, 1);
    CHECK_EQ_U64(wi.item[0].k, 8);
    CHECK_EQ_U64(wi.item[0].warps, 2);
    CHECK_EQ_U64(wi.item[0].of, 4);
    CHECK_EQ_U64(wi.item[0].after.requests, 3);
    CHECK_EQ_U64(wi.item[0].after.sectors, 13);
}

/* Nothing applies: a coalesced warp of 16-byte lanes, an atomic, a warp of
 * scattered lanes. */
static void test_none(void)
{
    cml_tf_ins r = warp_ins(CML_TF_GLOBAL, CML_TF_LOAD, 16, 0);
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = BASE + 16u * l;
    cml_wi_list wi;
    cml_traffic site;
    if (whatif_of(&r, 1, 32, &wi, &site) == 0)
        CHECK_EQ_U64(wi.n, 0);
    r.op = CML_TF_ATOMIC;
    r.size = 4;
    if (whatif_of(&r, 1, 32, &wi, &site) == 0)
        CHECK_EQ_U64(wi.n, 0);
    r.op = CML_TF_LOAD;
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = BASE + 4u * ((l * 7u) % 32u) * 33u;
    if (whatif_of(&r, 1, 32, &wi, &site) == 0)
        CHECK_EQ_U64(wi.n, 0);
}

/*
 * The committed traces (tests/data/trace/, test_trace_model.c derives
 * their figures). shared-banks-col: the column load of a 32 x 32 word tile, 2 blocks of 32
 * warps, 64 requests of 32 wavefronts (1984 conflicts, 253952 bytes): pad
 * 1 makes them 64 wavefronts, no conflict, all 253952 bytes saved.
 */
static void test_committed_banks(void)
{
    cml_trace t;
    cml_tf_model m;
    if (trace_committed("shared-banks-col.trace", &t, &m) != 0)
        return;
    cml_wi_list wi;
    CHECK_EQ_I64(cml_wi_site(&t.kernel[0], &m.sites[0], &wi), CML_OK);
    CHECK_EQ_U64(wi.n, 1);
    if (wi.n) {
        CHECK_EQ_U64(wi.item[0].kind, CML_WI_PAD);
        CHECK_EQ_U64(wi.item[0].k, 1);
        CHECK_EQ_U64(wi.item[0].warps, 64);
        CHECK_EQ_U64(wi.item[0].before.wavefronts, 2048);
        CHECK_EQ_U64(wi.item[0].after.wavefronts, 64);
        CHECK_EQ_U64(wi.item[0].after.bank_conflicts, 0);
        CHECK_EQ_I64(cml_wi_saved(&wi.item[0]), 253952);
    }
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

/*
 * transpose naive-row, 32 x 32 floats: the store's lanes 128 bytes apart
 * (one row of out each): pad 1 puts them 132 apart, still a sector each:
 * 1024 sectors, nothing saved (the model says padding does not help a
 * column of global memory) and no pad removes them, so one transform. The
 * load: 32 rows of 128 bytes one after another: 8-byte lanes 16 requests,
 * 16-byte lanes 8, 128 sectors either way.
 */
static void test_committed_transpose(void)
{
    cml_trace t;
    cml_tf_model m;
    if (trace_committed("transpose-naive-row.trace", &t, &m) != 0)
        return;
    cml_wi_list wi;
    CHECK_EQ_U64(m.nsites, 2);
    CHECK_EQ_I64(cml_wi_site(&t.kernel[0], &m.sites[0], &wi), CML_OK);
    CHECK_EQ_U64(wi.n, 1);
    if (wi.n) {
        CHECK_EQ_U64(wi.item[0].kind, CML_WI_PAD);
        CHECK_EQ_U64(wi.item[0].stride, 128);
        CHECK_EQ_U64(wi.item[0].before.sectors, 1024);
        CHECK_EQ_U64(wi.item[0].after.sectors, 1024);
        CHECK_EQ_I64(cml_wi_saved(&wi.item[0]), 0);
    }
    CHECK_EQ_I64(cml_wi_site(&t.kernel[0], &m.sites[1], &wi), CML_OK);
    CHECK_EQ_U64(wi.n, 2);
    if (wi.n == 2) {
        CHECK_EQ_U64(wi.item[0].after.requests, 16);
        CHECK_EQ_U64(wi.item[1].after.requests, 8);
        CHECK_EQ_U64(wi.item[0].after.sectors, 128);
        CHECK_EQ_U64(wi.item[1].after.sectors, 128);
    }
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

int main(void)
{
    test_shared_column();
    test_shared_pairs();
    test_aos();
    test_vector();
    test_vector_partial();
    test_none();
    test_committed_banks();
    test_committed_transpose();
    return cml_test_summary("test_trace_whatif");
}

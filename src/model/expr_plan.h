/*
 * The generated kernel of an index expression (include/cumemlab/expr_kernel.h)
 * described once: its plan. Both the CUDA C text that NVRTC compiles
 * (cml_expr_kernel_source, expr_codegen.c) and the model's mirror of that
 * kernel (the expr experiment's, through cml_expr_plan_walk) are walks of
 * the same plan, so they cannot differ: the generator prints each access of
 * each statement where the mirror emits it, with the site, space, load or
 * store, cache operator and width the plan names. This is the generated
 * kernels' form of one source per kernel (gpu/kernel_body.h, whose bodies
 * nvcc and the C compiler both compile): a kernel made at run time has no
 * body to compile twice, so the one source is this description.
 *
 * A plan is a list of phases in the kernel's order, each one statement
 * `array[index] = value` whose value is a load of another array, the
 * element's value(index) or the poison:
 *
 *   fill   every thread of the block, for j = t; j < tile_len; j += block:
 *          the shared tile from src (loads) or poisoned (stores)
 *   main   threads i < threads whose idx (and, copying, s) lie in 0..n-1:
 *          the expression's own access, and a load's 8-byte result
 *   copy   after a barrier, the same loop as fill: the tile of a shared
 *          store out to the block's tile of dst
 *
 * (global and constant kernels have the main phase alone). Site numbers
 * live here only (expr_plan.c).
 */
#ifndef CML_MODEL_EXPR_PLAN_H
#define CML_MODEL_EXPR_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/expr_kernel.h"
#include "cumemlab/model.h"

/* The arrays a generated kernel reaches. The global ones are its first
 * three arguments, in this order, so the mirror finds argument k at
 * cml_array_base(k). */
typedef enum cml_expr_array {
    CML_XA_SRC,   /* const T *src: elements of `elem` bytes */
    CML_XA_DST,   /* T *dst */
    CML_XA_OUT,   /* unsigned long long *out: a load's 8-byte result per thread */
    CML_XA_TILE,  /* the block's shared tile (extern __shared__ T tile[]) */
    CML_XA_CONST, /* the __constant__ array (CML_EXPR_CONST_NAME) */
    CML_XA_COUNT
} cml_expr_array;

/* The index of an access. */
typedef enum cml_expr_index {
    CML_XI_J,      /* j: a tile loop's element */
    CML_XI_IDX,    /* idx: the index expression's value */
    CML_XI_S,      /* s: the copy's source (the --src expression, else i) */
    CML_XI_I,      /* i: the thread's index in the grid */
    CML_XI_TILE_J, /* element j of the block's tile in dst: (by * gdx + bx) * tile_len + j */
    CML_XI_COUNT
} cml_expr_index;

/* What a statement stores. */
typedef enum cml_expr_value {
    CML_XV_LOAD,   /* the element its load reads (folded to 64 bits into out) */
    CML_XV_VALUE,  /* cml_value(the stored element's index): every writer the same */
    CML_XV_POISON, /* every bit set: a shared store's tile before the stores */
} cml_expr_value;

typedef enum cml_expr_phase_kind { CML_XP_FILL, CML_XP_MAIN, CML_XP_COPY } cml_expr_phase_kind;

/* One access of the kernel: one instruction per thread, two for a 16-byte
 * constant element (LDC moves at most 8 bytes: two 8-byte loads, at site
 * and site_hi, the second 8 bytes further). */
typedef struct cml_expr_access {
    uint8_t array;   /* cml_expr_array */
    uint8_t index;   /* cml_expr_index */
    uint8_t site;    /* the model's site of the (first) instruction */
    uint8_t site_hi; /* split: the site of the upper 8 bytes */
    uint8_t split;   /* a 16-byte constant element: two 8-byte LDC */
    uint8_t hinted;  /* spelled through the path's cache-hint intrinsic (__ldcg(&a[x]),
                        __stcs(&a[x], v)); a store's default path (wb) has none and is
                        plain. Unhinted accesses are plain and CML_CACHE_CA. */
    cml_space space;
    cml_op op;
    cml_cache cache; /* the operator the model sees */
    unsigned width;  /* bytes of the element */
} cml_expr_access;

/* One statement: st.array[st.index] = value. */
typedef struct cml_expr_stmt {
    cml_expr_value value;
    int fold;           /* CML_XV_LOAD: the element folded to 64 bits (cml_fold) */
    cml_expr_access ld; /* CML_XV_LOAD: the load, before the store */
    cml_expr_access st;
} cml_expr_stmt;

typedef struct cml_expr_phase {
    cml_expr_phase_kind kind;
    cml_expr_stmt stmt;
} cml_expr_phase;

#define CML_EXPR_PLAN_PHASES 3

typedef struct cml_expr_plan {
    cml_expr_kernel k;  /* what it was made from (the expressions are borrowed) */
    size_t nphases;
    size_t main;        /* the main phase's place in phase[] */
    int tile;           /* a shared kernel: the block's tile, its loops, its barriers */
    int uses_s;         /* the main phase computes s (and guards it) */
    cml_expr_phase phase[CML_EXPR_PLAN_PHASES];
} cml_expr_plan;

/* The plan of kernel k; CML_EINVAL where cml_expr_kernel_check refuses k. */
cml_status cml_expr_plan_make(const cml_expr_kernel *k, cml_expr_plan *out);

/* One thread of the launch, as the mirror walks it. */
typedef struct cml_expr_plan_thread {
    uint64_t i;        /* the thread's index in the grid */
    uint64_t t;        /* its index in its block */
    uint64_t b;        /* its block's index in the grid */
    uint64_t block;    /* threads per block */
    uint64_t threads;  /* the launch's `threads`: only i < threads run the main phase */
    uint64_t n;        /* the launch's `n`: elements of each indexed array */
    uint64_t tile_len; /* elements of a block's tile */
    uint64_t base;     /* byte offset of src and dst from their arrays' base */
    uint64_t it0, it1; /* a tile loop's iterations this walk covers */
    /* thread i's value of expression e (an error: anything outside 0..n-1) */
    int64_t (*eval)(const void *ctx, const cml_expr *e, uint64_t i);
    const void *ctx;
} cml_expr_plan_thread;

/*
 * The model's mirror of phase `phase` of the plan for thread th: every
 * access it makes, in the kernel's order, emitted into e (cml_emit) with
 * the plan's site, space, op, cache and width. Global arrays are at
 * cml_array_base(argument) (+ th->base for src and dst), the tile and the
 * constant array at byte offset 0 of their spaces.
 */
void cml_expr_plan_walk(const cml_expr_plan *pl, size_t phase, const cml_expr_plan_thread *th,
                        cml_emitter *e);

/* One instruction a warp of the main phase issues once per thread (the
 * sampled model's bounds: lab/trace_sample.h's kinds). */
typedef struct cml_expr_plan_insn {
    cml_space space;
    cml_op op;
    unsigned width;
} cml_expr_plan_insn;

/* The most instructions a thread's main phase issues (a 16-byte constant
 * element's two LDC, then the result's store). */
#define CML_EXPR_PLAN_INSNS 3

/* The main phase's instructions, in order, into out (room for
 * CML_EXPR_PLAN_INSNS); their count. */
size_t cml_expr_plan_main_insns(const cml_expr_plan *pl, cml_expr_plan_insn *out);

#endif

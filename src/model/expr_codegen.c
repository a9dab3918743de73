/*
 * CUDA C from a compiled index expression (include/cumemlab/expr_kernel.h).
 *
 * The postfix program (expr_program.h) is walked with a stack of C
 * sub-expressions, each fully parenthesised, so the generated text has the
 * program's meaning whatever C's precedence: only numbers the parser
 * produced, the kernel's own variable names, operators and cml_* helpers
 * ever reach the source. The meaning of every operation is the model's
 * (expr.c): '/' and '%' truncate toward zero as in C; '>>' is arithmetic
 * (cml_shr, since C++ before 20 leaves a negative operand's shift to the
 * implementation); min and max are helpers. Overflow, division by zero
 * and bad shift counts cannot happen in the kernel: the lab evaluates the
 * expression for every launched thread on the host (the model's trace)
 * and refuses the expression before anything is compiled.
 *
 * The kernel around the expression is printed from its plan (expr_plan.h):
 * the phases, their loops and guards, and each statement's accesses, the
 * same plan the model's mirror walks, so the two cannot drift apart.
 */
#include "cumemlab/expr_kernel.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/expr_plan.h"
#include "model/expr_program.h"

/* A growable string. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_vadd(sbuf *b, const char *fmt, va_list ap)
{
    if (b->oom)
        return;
    va_list again;
    va_copy(again, ap);
    int w = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    if (w < 0) {
        b->oom = 1;
        return;
    }
    if (b->len + (size_t)w + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + (size_t)w + 1 > cap)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    b->len += (size_t)w;
}

static void sb_add(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vadd(b, fmt, ap);
    va_end(ap);
}

/* The kernel's name for the variable at offset `off` of cml_expr_vars. */
static const char *var_name(uint16_t off)
{
    static const struct {
        size_t off;
        const char *name;
    } vars[] = {
        {offsetof(cml_expr_vars, i), "i"},       {offsetof(cml_expr_vars, tx), "tx"},
        {offsetof(cml_expr_vars, ty), "ty"},     {offsetof(cml_expr_vars, bx), "bx"},
        {offsetof(cml_expr_vars, by), "by"},     {offsetof(cml_expr_vars, bdx), "bdx"},
        {offsetof(cml_expr_vars, bdy), "bdy"},   {offsetof(cml_expr_vars, gdx), "gdx"},
        {offsetof(cml_expr_vars, gdy), "gdy"},   {offsetof(cml_expr_vars, lane), "lane"},
        {offsetof(cml_expr_vars, n), "n"},
    };
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
        if (vars[k].off == off)
            return vars[k].name;
    return NULL;
}

/* A constant as a C long long literal (INT64_MIN has none). */
static void add_const(sbuf *b, int64_t k)
{
    if (k == INT64_MIN)
        sb_add(b, "(-9223372036854775807LL - 1LL)");
    else if (k < 0)
        sb_add(b, "(-%" PRId64 "LL)", -k);
    else
        sb_add(b, "%" PRId64 "LL", k);
}

/* Append operator op (OP_ADD..OP_MAX) applied to the texts a and b; k_rhs:
 * b is the constant k (the K forms), else any expression. */
static void add_binary(sbuf *b, unsigned op, const char *a, const char *bt, int k_rhs, int64_t k)
{
    static const char *const infix[] = {"+", "-", "*", "/", "%", "<<", NULL, "&", "|", "^"};
    switch (op) {
    case OP_MOD:
        /* C leaves INT64_MIN % -1 undefined; the model (and cml_mod) gives 0. A
         * constant divisor other than -1 cannot meet it. */
        if (!k_rhs || k == -1) {
            sb_add(b, "cml_mod(%s, %s)", a, bt);
            return;
        }
        break;
    case OP_SHR: sb_add(b, "cml_shr(%s, %s)", a, bt); return;
    case OP_MIN: sb_add(b, "cml_min(%s, %s)", a, bt); return;
    case OP_MAX: sb_add(b, "cml_max(%s, %s)", a, bt); return;
    default: break;
    }
    sb_add(b, "(%s %s %s)", a, infix[op - OP_ADD], bt);
}

cml_status cml_expr_c_text(const cml_expr *e, char **out)
{
    if (!e || !out || e->n == 0)
        return CML_EINVAL;
    char **st = calloc(e->n, sizeof *st);
    if (!st)
        return CML_ENOMEM;
    size_t sp = 0;
    cml_status status = CML_OK;
    for (size_t k = 0; k < e->n && status == CML_OK; k++) {
        const cml_insn *p = &e->code[k];
        sbuf b = {0};
        char kbuf[48];
        switch (p->op) {
        case OP_CONST: add_const(&b, p->k); break;
        case OP_VAR: {
            const char *name = var_name(p->off);
            if (!name) {
                status = CML_EINVAL;
                break;
            }
            sb_add(&b, "%s", name);
            break;
        }
        case OP_NEG: sb_add(&b, "(-%s)", st[sp - 1]); break;
        case OP_NOT: sb_add(&b, "(~%s)", st[sp - 1]); break;
        case OP_DIVP2:
        case OP_MODP2: {
            sbuf kb = {kbuf, 0, sizeof kbuf, 0};
            add_const(&kb, p->k);
            sb_add(&b, "(%s %s %s)", st[sp - 1], p->op == OP_DIVP2 ? "/" : "%", kbuf);
            break;
        }
        default:
            if (p->op >= OP_ADD && p->op <= OP_MAX) {
                add_binary(&b, p->op, st[sp - 2], st[sp - 1], 0, 0);
            } else if (p->op >= OP_ADDK && p->op <= OP_MAXK) {
                sbuf kb = {kbuf, 0, sizeof kbuf, 0};
                add_const(&kb, p->k);
                add_binary(&b, (unsigned)(p->op - OP_K_DELTA), st[sp - 1], kbuf, 1, p->k);
            } else {
                status = CML_EINVAL;
            }
        }
        if (b.oom)
            status = CML_ENOMEM;
        if (status != CML_OK) {
            free(b.s);
            break;
        }
        /* pop the operands, push the result */
        size_t pops = p->op == OP_CONST || p->op == OP_VAR                          ? 0
                      : (p->op >= OP_ADD && p->op <= OP_MAX)                         ? 2
                                                                                     : 1;
        for (size_t q = 0; q < pops; q++)
            free(st[--sp]);
        st[sp++] = b.s;
    }
    if (status == CML_OK && sp != 1)
        status = CML_EINVAL;
    if (status == CML_OK)
        *out = st[0];
    else
        while (sp)
            free(st[--sp]);
    free(st);
    return status;
}

cml_status cml_expr_kernel_check(const cml_expr_kernel *k, char *err, size_t errlen)
{
    const char *why = NULL;
    if (!k || !k->index)
        why = "no index expression";
    else if (k->elem != 1 && k->elem != 2 && k->elem != 4 && k->elem != 8 && k->elem != 16)
        why = "--elem: element size must be 1, 2, 4, 8 or 16 bytes";
    else if (k->space != CML_SPACE_GLOBAL && k->space != CML_SPACE_SHARED &&
             k->space != CML_SPACE_CONSTANT)
        why = "--space: a kernel is generated for global, shared or constant memory";
    else if (k->space == CML_SPACE_CONSTANT && k->op != CML_EXPR_LOAD)
        why = "--op: constant memory is read-only in kernels (only --op load)";
    else if (k->space == CML_SPACE_SHARED && k->op == CML_EXPR_COPY)
        why = "--op copy: a global-memory operation (use load or store in shared memory)";
    else if (k->src && k->op != CML_EXPR_COPY)
        why = "--src: only with --op copy";
    else if (k->op == CML_EXPR_LOAD && k->cache == CML_CACHE_CA && 0)
        why = NULL;
    else if (k->op == CML_EXPR_STORE && k->cache == CML_CACHE_NC)
        why = "--path nc: the read-only path has no stores (wb, cg or cs)";
    if (why && err && errlen)
        snprintf(err, errlen, "%s", why);
    return why ? CML_EINVAL : CML_OK;
}

/* The element type of each size: 16 bytes is CUDA's uint4. */
static const char *elem_type(unsigned elem)
{
    switch (elem) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    case 8: return "unsigned long long";
    default: return "uint4";
    }
}

/* The load and store through the path asked for (CUDA's cache-hint
 * intrinsics; a plain access for the default paths). */
static const char *load_fn(cml_cache c)
{
    static const char *const f[] = {"__ldca", "__ldcg", "__ldg", "__ldcs"};
    return (unsigned)c < 4 ? f[c] : "__ldca";
}

static const char *store_fn(cml_cache c)
{
    return c == CML_CACHE_CG ? "__stcg" : c == CML_CACHE_CS ? "__stcs" : NULL;
}

static const char *const preamble =
    "typedef long long cml_i64;\n"
    "__device__ __forceinline__ cml_i64 cml_min(cml_i64 a, cml_i64 b) { return a < b ? a : b; }\n"
    "__device__ __forceinline__ cml_i64 cml_max(cml_i64 a, cml_i64 b) { return a > b ? a : b; }\n"
    "/* a % b as the model computes it: INT64_MIN % -1 is 0, not undefined */\n"
    "__device__ __forceinline__ cml_i64 cml_mod(cml_i64 a, cml_i64 b) { return b == -1 ? 0 : a % b; }\n"
    "/* arithmetic shift, as the model computes it, for any operand sign */\n"
    "__device__ __forceinline__ cml_i64 cml_shr(cml_i64 a, cml_i64 b)\n"
    "{\n"
    "    return a >= 0 ? (cml_i64)((unsigned long long)a >> b)\n"
    "                  : (cml_i64)~(~(unsigned long long)a >> b);\n"
    "}\n";

/* fold(v): the element's bits as 64 bits; value(j): what a store writes
 * at element j (the same for every writer of one element). */
static void add_type_helpers(sbuf *b, unsigned elem)
{
    if (elem == 16) {
        sb_add(b, "__device__ __forceinline__ unsigned long long cml_fold(uint4 v)\n"
                  "{\n"
                  "    return ((unsigned long long)v.y << 32 | v.x) ^\n"
                  "           ((unsigned long long)v.w << 32 | v.z);\n"
                  "}\n"
                  "__device__ __forceinline__ uint4 cml_value(cml_i64 j)\n"
                  "{\n"
                  "    unsigned long long h = (unsigned long long)j * 0x9E3779B97F4A7C15ull + 1;\n"
                  "    return make_uint4((unsigned)h, (unsigned)(h >> 32), (unsigned)~h,\n"
                  "                      (unsigned)(j + 1));\n"
                  "}\n");
        return;
    }
    sb_add(b,
           "__device__ __forceinline__ unsigned long long cml_fold(%s v)\n"
           "{\n"
           "    return (unsigned long long)v;\n"
           "}\n"
           "__device__ __forceinline__ %s cml_value(cml_i64 j)\n"
           "{\n"
           "    return (%s)((unsigned long long)j * 0x9E3779B97F4A7C15ull + 1);\n"
           "}\n",
           elem_type(elem), elem_type(elem), elem_type(elem));
}

/* The kernel's spelling of each array and index of the plan. */
static const char *array_name(unsigned a)
{
    static const char *const names[] = {"src", "dst", "out", "tile", CML_EXPR_CONST_NAME};
    return names[a];
}

static const char *index_text(unsigned x)
{
    static const char *const texts[] = {"j", "idx", "s", "i",
                                        "(by * gdx + bx) * tile_len + j"};
    return texts[x];
}

/* A load as an expression: "a[x]", or "__ldcg(&a[x])" through its path. */
static void add_load(sbuf *b, const cml_expr_access *a)
{
    if (a->hinted)
        sb_add(b, "%s(&%s[%s])", load_fn(a->cache), array_name(a->array), index_text(a->index));
    else
        sb_add(b, "%s[%s]", array_name(a->array), index_text(a->index));
}

/* One statement of the plan, on a line of its own. */
static void add_stmt(sbuf *b, const char *indent, const cml_expr_stmt *s, unsigned elem)
{
    sbuf v = {0};
    switch (s->value) {
    case CML_XV_LOAD:
        if (s->fold)
            sb_add(&v, "cml_fold(");
        add_load(&v, &s->ld);
        if (s->fold)
            sb_add(&v, ")");
        break;
    case CML_XV_VALUE: sb_add(&v, "cml_value(%s)", index_text(s->st.index)); break;
    case CML_XV_POISON:
        if (elem == 16)
            sb_add(&v, "make_uint4(~0u, ~0u, ~0u, ~0u)");
        else
            sb_add(&v, "(%s)~0ull", elem_type(elem));
        break;
    }
    if (v.oom) {
        b->oom = 1;
        free(v.s);
        return;
    }
    const cml_expr_access *st = &s->st;
    const char *sf = st->hinted ? store_fn(st->cache) : NULL;
    if (sf)
        sb_add(b, "%s%s(&%s[%s], %s);\n", indent, sf, array_name(st->array),
               index_text(st->index), v.s);
    else
        sb_add(b, "%s%s[%s] = %s;\n", indent, array_name(st->array), index_text(st->index), v.s);
    free(v.s);
}

/* The tile loops' header: every thread of the block, its elements of the tile. */
static const char *const tile_loop = "    for (cml_i64 j = t; j < tile_len; j += bdx * bdy)\n";

/* Phase `ph` of the plan: its statement inside the loop or the guards that
 * decide which threads run it (expr_plan.h); idx and src the expressions'
 * C text. */
static void add_phase(sbuf *b, const cml_expr_plan *pl, const cml_expr_phase *ph,
                      const char *idx, const char *src)
{
    const unsigned elem = pl->k.elem;
    switch (ph->kind) {
    case CML_XP_FILL:
        /* The tile: filled or poisoned by the whole block, before any thread
         * may return. */
        sb_add(b, "    extern __shared__ %s tile[];\n%s", elem_type(elem), tile_loop);
        add_stmt(b, "        ", &ph->stmt, elem);
        sb_add(b, "    __syncthreads();\n");
        return;
    case CML_XP_COPY:
        sb_add(b, "    __syncthreads();\n%s", tile_loop);
        add_stmt(b, "        ", &ph->stmt, elem);
        return;
    case CML_XP_MAIN: break;
    }
    if (pl->tile) {
        /* no return: the block's barriers are still ahead */
        sb_add(b, "    if (i < threads) {\n"
                  "        const cml_i64 idx = %s;\n"
                  "        if (idx >= 0 && idx < n) {\n",
               idx);
        add_stmt(b, "            ", &ph->stmt, elem);
        sb_add(b, "        }\n    }\n");
        return;
    }
    sb_add(b, "    if (i >= threads)\n"
              "        return;\n"
              "    const cml_i64 idx = %s;\n"
              "    if (idx < 0 || idx >= n)\n"
              "        return;\n",
           idx);
    if (pl->uses_s)
        sb_add(b,
               "    const cml_i64 s = %s;\n"
               "    if (s < 0 || s >= n)\n"
               "        return;\n",
               src ? src : "i");
    add_stmt(b, "    ", &ph->stmt, elem);
}

cml_status cml_expr_kernel_source(const cml_expr_kernel *k, char **out)
{
    cml_expr_plan pl;
    if (!out || cml_expr_plan_make(k, &pl) != CML_OK)
        return CML_EINVAL;
    char *idx = NULL, *src = NULL;
    cml_status st = cml_expr_c_text(k->index, &idx);
    if (st == CML_OK && k->src)
        st = cml_expr_c_text(k->src, &src);
    if (st != CML_OK) {
        free(idx);
        return st;
    }
    const char *T = elem_type(k->elem);
    static const char *const ops[] = {"load", "store", "copy"};
    static const char *const spaces[] = {"global", "local", "shared", "constant"};
    static const char *const paths[] = {"ca", "cg", "nc", "cs"};
    sbuf b = {0};
    sb_add(&b,
           "/* Generated by cumemlab: --op %s --space %s --path %s --elem %u.\n"
           " * Each thread i computes idx below; threads with idx outside 0..n-1 are\n"
           " * guarded off, as the model treats them. */\n",
           ops[k->op], spaces[k->space],
           k->op == CML_EXPR_STORE && k->cache == CML_CACHE_CA ? "wb" : paths[k->cache],
           k->elem);
    sb_add(&b, "%s", preamble);
    add_type_helpers(&b, k->elem);
    if (k->space == CML_SPACE_CONSTANT)
        sb_add(&b, "__constant__ %s %s[%u];\n", T, CML_EXPR_CONST_NAME,
               CML_EXPR_CONST_BYTES / k->elem);
    sb_add(&b,
           "\nextern \"C\" __global__ void %s(const %s *__restrict__ src, %s *__restrict__ dst,\n"
           "    unsigned long long *__restrict__ out, cml_i64 n, cml_i64 threads,\n"
           "    cml_i64 tile_len)\n"
           "{\n"
           "    const cml_i64 tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x,\n"
           "                  by = blockIdx.y, bdx = blockDim.x, bdy = blockDim.y,\n"
           "                  gdx = gridDim.x, gdy = gridDim.y;\n"
           "    const cml_i64 t = ty * bdx + tx; /* thread in its block */\n"
           "    const cml_i64 i = (by * gdx + bx) * bdx * bdy + t;\n"
           "    const cml_i64 lane = t & 31;\n"
           "    /* the variables the expression may use; the others are unused */\n"
           "    (void)tx; (void)ty; (void)bx; (void)by; (void)gdy; (void)lane;\n"
           "    (void)src; (void)dst; (void)out; (void)tile_len;\n",
           CML_EXPR_KERNEL_NAME, T, T);
    for (size_t q = 0; q < pl.nphases; q++)
        add_phase(&b, &pl, &pl.phase[q], idx, src);
    sb_add(&b, "}\n");
    free(idx);
    free(src);
    if (b.oom) {
        free(b.s);
        return CML_ENOMEM;
    }
    *out = b.s;
    return CML_OK;
}

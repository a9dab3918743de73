/*
 * The book's programs (book.h): the table, the reading of their positional
 * arguments, and what their print functions and records share.
 */
#include "book/book.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "book/programs.h"
#include "gpu/gpu.h"
#include "lab/common.h"

/* Chapter 4, then chapter 5, in the book's order of presentation. */
static const cml_book_program *const programs[] = {
    &cml_book_read_segment,      &cml_book_read_segment_unroll, &cml_book_write_segment,
    &cml_book_simple_math_aos,   &cml_book_simple_math_soa,     &cml_book_transpose,
    &cml_book_sum_array_zerocpy, &cml_book_sum_matrix_managed,  &cml_book_sum_matrix_manual,
    &cml_book_check_smem_square, &cml_book_check_smem_rectangle, &cml_book_constant_stencil,
    &cml_book_constant_read_only, &cml_book_reduce_integer_shfl, &cml_book_simple_shfl,
};

size_t cml_book_count(void)
{
    return sizeof programs / sizeof programs[0];
}

const cml_book_program *cml_book_at(size_t i)
{
    return i < cml_book_count() ? programs[i] : NULL;
}

const cml_book_program *cml_book_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < cml_book_count(); i++)
        if (!strcmp(programs[i]->name, name) ||
            (programs[i]->alias && !strcmp(programs[i]->alias, name)))
            return programs[i];
    return NULL;
}

const cml_param_def *cml_book_arg_def(const cml_book_program *p, int k)
{
    if (k < 0 || k >= CML_BOOK_MAX_ARGS || !p->positional[k])
        return NULL;
    for (size_t i = 0; i < p->row->noptions; i++)
        if (!strcmp(p->row->options[i].name, p->positional[k]))
            return &p->row->options[i];
    return NULL;
}

/* A whole decimal integer (an optional sign, digits, nothing else): what
 * the book's atoi() reads correctly; "11abc", "1e3", "" and overflow are
 * refused instead of read as 11, 1 or 0. */
static int whole_integer(const char *s, int64_t *out)
{
    if (!s || !*s)
        return 0;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (*p < '0' || *p > '9')
        return 0;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno || !end || *end)
        return 0;
    *out = (int64_t)v;
    return 1;
}

cml_status cml_book_parse_args(const cml_book_program *p, const char *const *argv, int nargs,
                               int64_t *args, char *settings, size_t settings_len, char *err,
                               size_t errlen)
{
    int nposit = 0;
    while (nposit < CML_BOOK_MAX_ARGS && p->positional[nposit])
        nposit++;
    if (nargs > nposit) {
        snprintf(err, errlen, "%s: %d argument%s given, the program reads %d (usage: %s %s)",
                 p->name, nargs, nargs == 1 ? "" : "s", nposit, p->name, p->args_usage);
        return CML_EINVAL;
    }
    size_t used = 0;
    if (settings_len)
        settings[0] = '\0';
    for (int k = 0; k < nposit; k++) {
        const cml_param_def *d = cml_book_arg_def(p, k);
        if (!d) {
            snprintf(err, errlen, "%s: argument %d names no option of the program (a bug)",
                     p->name, k + 1);
            return CML_EINVAL;
        }
        int64_t v = 0;
        if (k < nargs) {
            int is_int = whole_integer(argv[k], &v);
            if (!is_int || v < d->min || v > d->max) {
                snprintf(err, errlen,
                         "%s: argument %d (%s): '%s' is %s (allowed %lld..%lld, the book's "
                         "default %s; usage: %s %s)",
                         p->name, k + 1, d->name, argv[k],
                         is_int ? "out of range" : "not an integer", (long long)d->min,
                         (long long)d->max, d->def, p->name, p->args_usage);
                return CML_EINVAL;
            }
        } else if (!whole_integer(d->def, &v)) {
            snprintf(err, errlen, "%s: argument %d (%s) has no default (a bug)", p->name, k + 1,
                     d->name);
            return CML_EINVAL;
        }
        args[k] = v;
        int w = snprintf(settings + used, settings_len - used, "%s%s=%lld", used ? " " : "",
                         d->name, (long long)v);
        if (w < 0 || (size_t)w >= settings_len - used) {
            snprintf(err, errlen, "%s: arguments too long", p->name);
            return CML_EINVAL;
        }
        used += (size_t)w;
    }
    if (p->check_args && p->check_args(args, err, errlen)) {
        char why[384];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "%s: %s (usage: %s %s)", p->name, why, p->name, p->args_usage);
        return CML_EINVAL;
    }
    return CML_OK;
}

const cml_record *cml_book_record(const cml_book_output *o, const char *launch)
{
    for (size_t i = o->first; i < o->first + o->count && i < o->results->count; i++) {
        const cml_record_param *pr = cml_record_find_param(&o->results->items[i], "launch");
        if (pr && !strcmp(pr->label, launch))
            return &o->results->items[i];
    }
    return NULL;
}

void cml_book_elapsed(const cml_record *rec, char *buf, size_t len)
{
    if (rec && rec->measured)
        snprintf(buf, len, "%f", rec->timing.median_ms * 1e-3);
    else
        snprintf(buf, len, "n/a");
}

const char *cml_book_device_name(const cml_book_output *o)
{
    return o->dev ? o->dev->name : "(no GPU: the model alone)";
}

int64_t cml_book_param(const cml_record *rec, const char *name)
{
    const cml_record_param *pr = rec ? cml_record_find_param(rec, name) : NULL;
    return pr ? pr->value : 0;
}

void cml_book_quote(cml_record *rec, const char *name, double book_value, const char *unit)
{
    cml_record_add_extra(rec, name, book_value, unit);
}

uint32_t cml_book_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float cml_book_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

cml_status cml_book_compare(cml_gpu *g, const void *dptr, const uint32_t *want, size_t words,
                            double tol, unsigned long long *d_counters)
{
    uint32_t *got = malloc(words ? words * sizeof *got : 1);
    if (!got)
        return CML_ENOMEM;
    cml_dbuf src = {(void *)(uintptr_t)dptr, words * sizeof *got, 0};
    cml_status st = cml_gpu_download(g, got, &src, words * sizeof *got);
    unsigned long long counts[2] = {0, ~0ull};
    for (size_t q = 0; st == CML_OK && q < words; q++) {
        int ok = got[q] == want[q];
        if (!ok && tol > 0 && want[q] != CML_BOOK_POISON && got[q] != CML_BOOK_POISON) {
            double a = cml_book_float(got[q]), b = cml_book_float(want[q]);
            ok = fabs(a - b) <= tol; /* NaN never passes */
        }
        if (!ok && counts[0]++ == 0)
            counts[1] = q;
    }
    free(got);
    if (st != CML_OK)
        return st;
    cml_dbuf dst = {d_counters, sizeof counts, 0};
    return cml_gpu_upload(g, &dst, counts, sizeof counts);
}

/* One block of a 2-D grid traced alone, believing it is block `at`. */
typedef struct one_block {
    cml_thread_fn fn;
    const void *args;
    cml_dim3 at, grid;
} one_block;

static void one_block_shim(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const one_block *b = vargs;
    cml_thread real = *t;
    real.bid = b->at;
    real.gdim = b->grid;
    b->fn(&real, b->args, e);
}

static void scale_traffic(cml_kernel_traffic *k, uint64_t n)
{
    for (int c = 0; c < CML_CLASS_COUNT; c++) {
        cml_traffic *t = &k->cls[c];
        uint64_t *f[] = {&t->instructions,     &t->requests,         &t->sectors,
                         &t->lines,            &t->transactions,     &t->transaction_bytes,
                         &t->efficiency_bytes, &t->requested_bytes,  &t->lane_bytes,
                         &t->wavefronts,       &t->ideal_wavefronts, &t->bank_conflicts,
                         &t->serialized};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            *f[i] *= n;
    }
}

cml_status cml_book_trace_uniform_2d(cml_record *rec, cml_dim3 grid, cml_dim3 block,
                                     cml_thread_fn fn, const void *args)
{
    const cml_dim3 at[] = {{0, 0, 0}, {grid.x - 1, 0, 0}, {0, grid.y - 1, 0},
                           {grid.x - 1, grid.y - 1, 0}, {grid.x / 2, grid.y / 2, 0}};
    for (int r = 0; r < CML_RULES_COUNT; r++) {
        cml_kernel_traffic first, cur;
        for (size_t s = 0; s < sizeof at / sizeof at[0]; s++) {
            one_block ob = {fn, args, at[s], grid};
            cml_kernel_traffic *dst = s ? &cur : &first;
            memset(dst, 0, sizeof *dst);
            cml_status st = cml_trace_kernel((cml_rules)r, cml_dim1(1), block, one_block_shim,
                                             &ob, dst);
            if (st == CML_OK && s && memcmp(&first, &cur, sizeof cur) != 0) {
                cml_record_note(rec, "model: block (%u,%u) differs from block (0,0): the "
                                "uniform-block claim is wrong (a bug)", at[s].x, at[s].y);
                st = CML_EINVAL;
            }
            if (st) {
                rec->state = CML_REC_FAILED;
                if (!rec->note[0])
                    cml_record_note(rec, "model: %s", cml_status_str(st));
                return st;
            }
        }
        scale_traffic(&first, (uint64_t)grid.x * grid.y);
        rec->model[r] = first;
    }
    rec->has_model = 1;
    rec->grid = (uint64_t)grid.x * grid.y;
    rec->block = (uint64_t)block.x * block.y * block.z;
    return CML_OK;
}

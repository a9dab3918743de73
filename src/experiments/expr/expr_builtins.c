/*
 * The expr experiment's built-in set (expr.h), the patterns it runs when no
 * --expr is given: data that the options (expr.c) and the bounds rule
 * (expr_bounds.c) both read, in a file of its own so that those two do
 * not call each other.
 */
#include "experiments/expr/expr.h"

enum { SP_GLOBAL = CML_EXPR_SP_GLOBAL, SP_SHARED = CML_EXPR_SP_SHARED,
       SP_CONSTANT = CML_EXPR_SP_CONSTANT };

/* The built-in set: the patterns `validate` compares with the counters,
 * each with its own operation, space and block. */
static const cml_expr_builtin builtins[] = {
    {"contiguous", "i", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"offset 11", "i + 11", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 2", "i*2", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 4", "i*4", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 8", "i*8", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 16", "i*16", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 32", "i*32", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"padded 33", "(i%32)*33", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"broadcast", "0", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"transposed store", "ty + tx*bdy", CML_EXPR_STORE, SP_GLOBAL, 32, 8},
    {"contiguous store", "i", CML_EXPR_STORE, SP_GLOBAL, 256, 1},
    {"copy to stride 2", "i*2", CML_EXPR_COPY, SP_GLOBAL, 256, 1},
    {"shared column", "tx*32", CML_EXPR_LOAD, SP_SHARED, 32, 8},
    {"shared padded column", "tx*33", CML_EXPR_LOAD, SP_SHARED, 32, 8},
    {"shared column store", "tx*32", CML_EXPR_STORE, SP_SHARED, 32, 8},
    {"constant broadcast", "0", CML_EXPR_LOAD, SP_CONSTANT, 256, 1},
    {"constant per lane", "lane", CML_EXPR_LOAD, SP_CONSTANT, 256, 1},
};

size_t cml_expr_builtin_count(void)
{
    return CML_COUNT(builtins);
}

const cml_expr_builtin *cml_expr_builtin_at(size_t k)
{
    return k < CML_COUNT(builtins) ? &builtins[k] : NULL;
}

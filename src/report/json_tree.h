/*
 * The parsed tree's storage, shared by the parser (json_parse.c) and the
 * tree's functions (json_tree.c); nothing else includes it. The tree lives
 * in an arena: one free for the whole document, and a scratch arena that
 * the parser resets after each element of a streamed array.
 */
#ifndef CML_JSON_TREE_H
#define CML_JSON_TREE_H

#include <stddef.h>

#include "report/json_read.h"

typedef struct cml_arena_block cml_arena_block;

typedef struct cml_arena {
    cml_arena_block *blocks;   /* newest first */
} cml_arena;

/* n bytes, 16-byte aligned; NULL on out of memory. */
void *cml_arena_alloc(cml_arena *a, size_t n);
/* Everything allocated is gone; one standard block is kept for reuse, so
 * an arena reset after each record does not go back to malloc each time. */
void cml_arena_reset(cml_arena *a);
void cml_arena_free(cml_arena *a);

struct cml_jdoc {
    cml_arena arena;
    cml_jval root;
};

#endif

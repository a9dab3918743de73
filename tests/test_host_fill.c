/*
 * The host passes of src/gpu/host_fill.c, split over threads: the result
 * never depends on the split (fill against the element-by-element
 * generator, at sizes around one part and with a partial last float),
 * compare finds the first differing byte, and cml_host_parallel covers
 * [0, n) exactly once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "gpu/host_fill.h"
#include "test_util.h"

static void test_fill_and_compare(size_t bytes)
{
    unsigned char *a = malloc(bytes + 1), *b = malloc(bytes + 1);
    CHECK(a && b);
    if (!a || !b)
        return;
    cml_host_fill_random(a, bytes, 77);
    /* the same, element by element */
    size_t whole = bytes / 4;
    for (size_t i = 0; i < whole; i++) {
        float f = cml_random_f32(77, i);
        memcpy(b + 4 * i, &f, 4);
    }
    if (bytes % 4) {
        float f = cml_random_f32(77, whole);
        memcpy(b + 4 * whole, &f, bytes % 4);
    }
    size_t bad = 0;
    CHECK(cml_host_same(a, b, bytes, &bad) == 1);
    if (bytes > 5) {
        b[bytes - 2] ^= 1;
        b[5] ^= 1;
        CHECK(cml_host_same(a, b, bytes, &bad) == 0);
        CHECK_EQ_U64(bad, 5);
    }
    cml_host_poison(a, bytes);
    size_t ff = 0;
    for (size_t i = 0; i < bytes; i++)
        ff += a[i] == 0xFF;
    CHECK_EQ_U64(ff, bytes);
    free(a);
    free(b);
}

typedef struct cover {
    unsigned char *seen;
    size_t calls[CML_HOST_MAX_PARTS];
} cover;

static void mark(void *user, size_t part, size_t lo, size_t hi)
{
    cover *c = user;
    c->calls[part]++;
    for (size_t i = lo; i < hi; i++)
        c->seen[i]++;
}

static void test_parallel_covers(size_t n, size_t min_per_part)
{
    cover c;
    memset(&c, 0, sizeof c);
    c.seen = calloc(n + 1, 1);
    CHECK(c.seen != NULL);
    if (!c.seen)
        return;
    size_t parts = cml_host_parallel(n, min_per_part, mark, &c);
    CHECK(parts >= 1 && parts <= CML_HOST_MAX_PARTS);
    size_t once = 0;
    for (size_t i = 0; i < n; i++)
        once += c.seen[i] == 1;
    CHECK_EQ_U64(once, n);
    for (size_t k = 0; k < parts; k++)
        CHECK_EQ_U64(c.calls[k], 1);
    free(c.seen);
}

int main(void)
{
    const size_t sizes[] = {0, 1, 3, 4, 5, 4096, (32u << 20) + 3, (96u << 20) + 2};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        test_fill_and_compare(sizes[i]);
    test_parallel_covers(0, 1);
    test_parallel_covers(1, 1);
    test_parallel_covers(1000, 1);
    test_parallel_covers(1000003, 1000);
    test_parallel_covers(17, 0);
    return cml_test_summary("test_host_fill");
}

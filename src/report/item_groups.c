/* Grouping equal items in linear time (item_groups.h). */
#include "report/item_groups.h"

#include <stdlib.h>

static size_t table_work;

size_t cml_report_table_work(void) { return table_work; }

int cml_report_table_count(void)
{
    table_work++;
    return 1;
}

uint64_t cml_fnv(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

int cml_group_first(const void *items, size_t n, cml_item_hash_fn hash, cml_item_eq_fn eq,
                    int (*use)(const void *items, size_t i), size_t *first)
{
    size_t cap = 16;
    while (cap < 2 * n) {
        if (cap > SIZE_MAX / 4 / sizeof(size_t))
            return -1;
        cap *= 2;
    }
    size_t *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return -1;
    for (size_t k = 0; k < cap; k++)
        slot[k] = CML_NO_INDEX;
    for (size_t i = 0; i < n; i++) {
        first[i] = CML_NO_INDEX;
        if (use && !use(items, i))
            continue;
        size_t h = (size_t)hash(items, i) & (cap - 1);
        while (slot[h] != CML_NO_INDEX) {
            table_work++;
            if (eq(items, slot[h], i))
                break;
            h = (h + 1) & (cap - 1);
        }
        if (slot[h] == CML_NO_INDEX)
            slot[h] = i;
        first[i] = slot[h];
    }
    free(slot);
    return 0;
}

/*
 * Grouping equal items in linear time (the terminal tables: rows named by
 * their parameters, each finding printed once). Comparing every pair made
 * a 24,000-record table take 3.8 s and 100,000 records minutes; a hash
 * table of item indices groups equal ones in one pass instead.
 */
#ifndef CML_REPORT_ITEM_GROUPS_H
#define CML_REPORT_ITEM_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#define CML_NO_INDEX ((size_t)-1)

/* FNV-1a, continued from h over n bytes (start from CML_FNV_START). */
#define CML_FNV_START 0xcbf29ce484222325ull
uint64_t cml_fnv(uint64_t h, const void *bytes, size_t n);

typedef uint64_t (*cml_item_hash_fn)(const void *items, size_t i);
typedef int (*cml_item_eq_fn)(const void *items, size_t i, size_t j);

/*
 * first[i] := the smallest index j with item j equal to item i (i itself
 * when it is the first of its kind), for the items i < n with use(i) true
 * (all when use is NULL); CML_NO_INDEX for the others. Linear in n
 * expected (open addressing, at most half full). -1 when out of memory.
 */
int cml_group_first(const void *items, size_t n, cml_item_hash_fn hash, cml_item_eq_fn eq,
                    int (*use)(const void *items, size_t i), size_t *first);

/* Item-to-item comparisons made so far: the tests render tables of n and
 * 4n records and check that this grows linearly (tests/test_report_table.c). */
size_t cml_report_table_work(void);
/* One more comparison counted; returns 1 (usable inside a loop's condition). */
int cml_report_table_count(void);

#endif

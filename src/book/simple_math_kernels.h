/*
 * extern "C" launchers of simple_math.cu: the kernels of the book's
 * chapter04/simpleMathAoS.cu and simpleMathSoA.cu.
 */
#ifndef CML_BOOK_SIMPLE_MATH_KERNELS_H
#define CML_BOOK_SIMPLE_MATH_KERNELS_H

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The book's LEN: 1 << 22 structs (AoS) or floats per field (SoA). */
#define CML_BOOK_MATH_LEN (1u << 22)

typedef enum cml_book_math_kernel {
    CML_MATH_AOS_WARMUP = 0, /* simpleMathAoS.cu warmup */
    CML_MATH_AOS_STRUCT,     /* testInnerStruct */
    CML_MATH_SOA_WARMUP2,    /* simpleMathSoA.cu warmup2 */
    CML_MATH_SOA_ARRAY,      /* testInnerArray */
    CML_MATH_KERNEL_COUNT
} cml_book_math_kernel;

/* kernel<<<grid, block>>>(data, result, n): data and result point to
 * 2 * LEN floats, as innerStruct[LEN] or as one InnerArray. */
typedef struct cml_book_math_launch {
    void *data, *result;
    int n;
    unsigned grid, block;
    int kernel; /* cml_book_math_kernel */
} cml_book_math_launch;

CML_LAUNCHER cml_status cml_book_math_launch_fn(void *args);
CML_LAUNCHER const void *cml_book_math_kernel_fn(int kernel);

#ifdef __cplusplus
}
#endif
#endif

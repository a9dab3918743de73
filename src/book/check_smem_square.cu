/*
 * The kernels of the book's chapter05/checkSmemSquare.cu, as the book
 * writes them: a 32 x 32 block writes its thread indices into a shared
 * tile by rows or by columns and reads them back by rows or by columns,
 * with a static or a dynamic tile, unpadded or padded by IPAD = 1 word per
 * row. The C mirror in check_smem.c emits exactly their accesses.
 */
#include <cuda_runtime.h>

#include "book/check_smem_kernels.h"
#include "gpu/gpu_internal.h"

#define BDIMX 32
#define BDIMY 32
#define IPAD  1

static __global__ void setRowReadRow (int *out)
{
    // static shared memory
    __shared__ int tile[BDIMY][BDIMX];

    // mapping from thread index to global memory index
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    // shared memory store operation
    tile[threadIdx.y][threadIdx.x] = idx;

    // wait for all threads to complete
    __syncthreads();

    // shared memory load operation
    out[idx] = tile[threadIdx.y][threadIdx.x] ;
}

static __global__ void setColReadCol (int *out)
{
    // static shared memory
    __shared__ int tile[BDIMX][BDIMY];

    // mapping from thread index to global memory index
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    // shared memory store operation
    tile[threadIdx.x][threadIdx.y] = idx;

    // wait for all threads to complete
    __syncthreads();

    // shared memory load operation
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

static __global__ void setRowReadCol(int *out)
{
    // static shared memory
    __shared__ int tile[BDIMY][BDIMX];

    // mapping from thread index to global memory index
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    // shared memory store operation
    tile[threadIdx.y][threadIdx.x] = idx;

    // wait for all threads to complete
    __syncthreads();

    // shared memory load operation
    out[idx] = tile[threadIdx.x][threadIdx.y];
}


static __global__ void setRowReadColDyn(int *out)
{
    // dynamic shared memory
    extern  __shared__ int tile[];

    // mapping from thread index to global memory index
    unsigned int row_idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int col_idx = threadIdx.x * blockDim.y + threadIdx.y;

    // shared memory store operation
    tile[row_idx] = row_idx;

    // wait for all threads to complete
    __syncthreads();

    // shared memory load operation
    out[row_idx] = tile[col_idx];
}

static __global__ void setRowReadColPad(int *out)
{
    // static shared memory
    __shared__ int tile[BDIMY][BDIMX + IPAD];

    // mapping from thread index to global memory offset
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    // shared memory store operation
    tile[threadIdx.y][threadIdx.x] = idx;

    // wait for all threads to complete
    __syncthreads();

    // shared memory load operation
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

static __global__ void setRowReadColDynPad(int *out)
{
    // dynamic shared memory
    extern  __shared__ int tile[];

    // mapping from thread index to global memory index
    unsigned int row_idx = threadIdx.y * (blockDim.x + IPAD) + threadIdx.x;
    unsigned int col_idx = threadIdx.x * (blockDim.x + IPAD) + threadIdx.y;

    unsigned int g_idx = threadIdx.y * blockDim.x + threadIdx.x;

    // shared memory store operation
    tile[row_idx] = g_idx;

    // wait for all threads to complete
    __syncthreads();

    // shared memory load operation
    out[g_idx] = tile[col_idx];
}

typedef void (*smem_kernel)(int *);

static smem_kernel pick(int kernel, size_t *smem)
{
    *smem = 0;
    switch (kernel) {
    case CML_SQ_ROW_ROW: return setRowReadRow;
    case CML_SQ_COL_COL: return setColReadCol;
    case CML_SQ_ROW_COL: return setRowReadCol;
    case CML_SQ_ROW_COL_DYN: *smem = BDIMX * BDIMY * sizeof(int); return setRowReadColDyn;
    case CML_SQ_ROW_COL_PAD: return setRowReadColPad;
    case CML_SQ_ROW_COL_DYN_PAD:
        *smem = (BDIMX + IPAD) * BDIMY * sizeof(int);
        return setRowReadColDynPad;
    default: return NULL;
    }
}

extern "C" const void *cml_book_smem_square_kernel(int kernel)
{
    size_t smem;
    return (const void *)pick(kernel, &smem);
}

extern "C" cml_status cml_book_smem_square_launch(void *vctx)
{
    const cml_book_smem_launch *a = (const cml_book_smem_launch *)vctx;
    size_t smem;
    smem_kernel k = pick(a->kernel, &smem);
    if (!k || smem != a->smem)
        return CML_EINVAL;
    dim3 block (BDIMX, BDIMY);
    dim3 grid  (1, 1);
    k<<<grid, block, smem>>>(a->out);
    CML_CU_LAUNCH();
    return CML_OK;
}

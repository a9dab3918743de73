/*
 * The kernels of the book's chapter04/transpose.cu, as the book writes
 * them: warmup and the eight kernels its main() selects by number (0
 * copyRow ... 7 transposeDiagonalCol), with the book's names, parameter
 * types, unsigned index arithmetic and guards. The C mirror in
 * transpose_book.c emits exactly their accesses; keep the two in step.
 */
#include <cuda_runtime.h>

#include "book/transpose_book_kernels.h"
#include "gpu/gpu_internal.h"

static __global__ void warmup(float *out, float *in, const int nx, const int ny)
{
    unsigned int ix = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int iy = blockDim.y * blockIdx.y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[iy * nx + ix] = in[iy * nx + ix];
    }
}

// case 0 copy kernel: access data in rows
static __global__ void copyRow(float *out, float *in, const int nx, const int ny)
{
    unsigned int ix = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int iy = blockDim.y * blockIdx.y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[iy * nx + ix] = in[iy * nx + ix];
    }
}

// case 1 copy kernel: access data in columns
static __global__ void copyCol(float *out, float *in, const int nx, const int ny)
{
    unsigned int ix = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int iy = blockDim.y * blockIdx.y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[ix * ny + iy] = in[ix * ny + iy];
    }
}

// case 2 transpose kernel: read in rows and write in columns
static __global__ void transposeNaiveRow(float *out, float *in, const int nx,
                                         const int ny)
{
    unsigned int ix = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int iy = blockDim.y * blockIdx.y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[ix * ny + iy] = in[iy * nx + ix];
    }
}

// case 3 transpose kernel: read in columns and write in rows
static __global__ void transposeNaiveCol(float *out, float *in, const int nx,
                                         const int ny)
{
    unsigned int ix = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int iy = blockDim.y * blockIdx.y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[iy * nx + ix] = in[ix * ny + iy];
    }
}

// case 4 transpose kernel: read in rows and write in columns + unroll 4 blocks
static __global__ void transposeUnroll4Row(float *out, float *in, const int nx,
                                           const int ny)
{
    unsigned int ix = blockDim.x * blockIdx.x * 4 + threadIdx.x;
    unsigned int iy = blockDim.y * blockIdx.y + threadIdx.y;

    unsigned int ti = iy * nx + ix; // access in rows
    unsigned int to = ix * ny + iy; // access in columns

    if (ix + 3 * blockDim.x < nx && iy < ny)
    {
        out[to]                   = in[ti];
        out[to + ny * blockDim.x]   = in[ti + blockDim.x];
        out[to + ny * 2 * blockDim.x] = in[ti + 2 * blockDim.x];
        out[to + ny * 3 * blockDim.x] = in[ti + 3 * blockDim.x];
    }
}

// case 5 transpose kernel: read in columns and write in rows + unroll 4 blocks
static __global__ void transposeUnroll4Col(float *out, float *in, const int nx,
                                           const int ny)
{
    unsigned int ix = blockDim.x * blockIdx.x * 4 + threadIdx.x;
    unsigned int iy = blockDim.y * blockIdx.y + threadIdx.y;

    unsigned int ti = iy * nx + ix; // access in rows
    unsigned int to = ix * ny + iy; // access in columns

    if (ix + 3 * blockDim.x < nx && iy < ny)
    {
        out[ti]                = in[to];
        out[ti +   blockDim.x] = in[to +   blockDim.x * ny];
        out[ti + 2 * blockDim.x] = in[to + 2 * blockDim.x * ny];
        out[ti + 3 * blockDim.x] = in[to + 3 * blockDim.x * ny];
    }
}

/*
 * case 6 :  transpose kernel: read in rows and write in colunms + diagonal
 * coordinate transform
 */
static __global__ void transposeDiagonalRow(float *out, float *in, const int nx,
                                            const int ny)
{
    unsigned int blk_y = blockIdx.x;
    unsigned int blk_x = (blockIdx.x + blockIdx.y) % gridDim.x;

    unsigned int ix = blockDim.x * blk_x + threadIdx.x;
    unsigned int iy = blockDim.y * blk_y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[ix * ny + iy] = in[iy * nx + ix];
    }
}

/*
 * case 7 :  transpose kernel: read in columns and write in row + diagonal
 * coordinate transform.
 */
static __global__ void transposeDiagonalCol(float *out, float *in, const int nx,
                                            const int ny)
{
    unsigned int blk_y = blockIdx.x;
    unsigned int blk_x = (blockIdx.x + blockIdx.y) % gridDim.x;

    unsigned int ix = blockDim.x * blk_x + threadIdx.x;
    unsigned int iy = blockDim.y * blk_y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[iy * nx + ix] = in[ix * ny + iy];
    }
}

typedef void (*tr_kernel)(float *, float *, int, int);

static tr_kernel pick(int kernel)
{
    static const tr_kernel k[CML_BTR_KERNEL_COUNT] = {
        copyRow, copyCol, transposeNaiveRow, transposeNaiveCol, transposeUnroll4Row,
        transposeUnroll4Col, transposeDiagonalRow, transposeDiagonalCol, warmup,
    };
    return kernel >= 0 && kernel < CML_BTR_KERNEL_COUNT ? k[kernel] : NULL;
}

extern "C" const void *cml_book_tr_kernel_fn(int kernel)
{
    return (const void *)pick(kernel);
}

extern "C" cml_status cml_book_tr_launch_fn(void *vctx)
{
    const cml_book_tr_launch *a = (const cml_book_tr_launch *)vctx;
    tr_kernel k = pick(a->kernel);
    if (!k || !a->gx || !a->gy || !a->bx || !a->by || a->bx * a->by > 1024 || a->gy > 65535)
        return CML_EINVAL;
    dim3 grid(a->gx, a->gy), block(a->bx, a->by);
    k<<<grid, block>>>(a->out, a->in, a->nx, a->ny);
    CML_CU_LAUNCH();
    return CML_OK;
}

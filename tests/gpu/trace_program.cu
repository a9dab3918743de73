/*
 * A program of its own for `cumemlab trace` (tests/gpu/trace_gpu.sh): not
 * the lab's, not the book's. Several kernels on two streams, a Thrust sort
 * (CUB's kernels, launched by a library) and, where the toolkit has it, a
 * cuBLAS SGEMM; every result checked against the host, one line each, and
 * exit 0. With the argument `fault`, the first two kernels run and then a
 * kernel writes through a bad pointer: the program says so and exits 3.
 * Traced, its output and exit status must be what they are untraced, and
 * the trace must hold what ran before the fault.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#ifdef CML_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            printf("trace_program: %s: %s\n", #call, cudaGetErrorString(e_));         \
            return 3;                                                                 \
        }                                                                             \
    } while (0)

/* Coalesced: lane i reads and writes float i of its warp's 128 bytes. */
__global__ void scale(const float *in, float *out, int n, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = k * in[i];
}

/* Every `stride`-th float: a warp's loads span 32 * stride floats. */
__global__ void gather(const float *in, float *out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[(long long)i * stride % n];
}

/* A 32 x 32 tile through shared memory, read by column: 32-way conflicts. */
__global__ void tile_columns(const float *in, float *out, int width)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}

/* Writes through the pointer it is given (a bad one in `fault`). */
__global__ void wild(float *p)
{
    p[threadIdx.x * 4096] = 1.0f;
}

static float value(int i) { return (float)((i * 2654435761u) % 1000u) / 7.0f; }

int main(int argc, char **argv)
{
    const int fault = argc > 1 && !strcmp(argv[1], "fault");
    const int n = 1 << 20, w = 512;
    std::vector<float> h(n), r(n);
    for (int i = 0; i < n; i++)
        h[i] = value(i);
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * sizeof(float)));
    CHECK(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));

    scale<<<n / 256, 256, 0, s1>>>(a, b, n, 2.0f);
    gather<<<n / 256, 256, 0, s2>>>(a, c, n, 2);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(r.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += r[i] != 2.0f * h[i];
    printf("trace_program: scale %s\n", bad ? "WRONG" : "ok");
    CHECK(cudaMemcpy(r.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++)
        bad += r[i] != h[(long long)i * 2 % n];
    printf("trace_program: gather %s\n", bad ? "WRONG" : "ok");

    if (fault) {
        wild<<<1, 32, 0, s1>>>((float *)(uintptr_t)0x1000);
        cudaError_t e = cudaDeviceSynchronize();
        printf("trace_program: fault: %s\n", cudaGetErrorString(e));
        return 3;
    }

    tile_columns<<<dim3(w / 32, w / 32), dim3(32, 32), 0, s1>>>(a, b, w);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(r.data(), b, w * w * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int y = 0; y < w; y++)
        for (int x = 0; x < w; x++) {
            /* thread (tx, ty) of block (bx, by) writes tile[tx][ty], which
             * thread (ty, tx) loaded from in[(by*32+tx)*w + bx*32+ty] */
            int bx = x / 32, by = y / 32, tx = x % 32, ty = y % 32;
            bad += r[y * w + x] != h[(by * 32 + tx) * w + bx * 32 + ty];
        }
    printf("trace_program: tile_columns %s\n", bad ? "WRONG" : "ok");

    /* A library's kernels: Thrust's sort (CUB's radix sort) on stream s2. */
    const int m = 1 << 16;
    std::vector<int> keys(m), sorted(m);
    for (int i = 0; i < m; i++)
        keys[i] = (int)((i * 2654435761u) >> 8);
    int *d;
    CHECK(cudaMalloc(&d, m * sizeof(int)));
    CHECK(cudaMemcpy(d, keys.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    thrust::sort(thrust::cuda::par.on(s2), thrust::device_ptr<int>(d),
                 thrust::device_ptr<int>(d) + m);
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaMemcpy(sorted.data(), d, m * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> want(keys);
    std::sort(want.begin(), want.end());
    printf("trace_program: sort %s\n", sorted == want ? "ok" : "WRONG");
    bad = sorted != want;

#ifdef CML_HAVE_CUBLAS
    /* 64 x 64 SGEMM: C = A * B, column-major, against the host's product. */
    const int g = 64;
    cublasHandle_t hb;
    if (cublasCreate(&hb) != CUBLAS_STATUS_SUCCESS) {
        printf("trace_program: cublasCreate failed\n");
        return 3;
    }
    cublasSetStream(hb, s1);
    const float one = 1.0f, zero = 0.0f;
    if (cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, g, g, g, &one, a, g, a + g * g, g, &zero, c,
                    g) != CUBLAS_STATUS_SUCCESS) {
        printf("trace_program: cublasSgemm failed\n");
        return 3;
    }
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(r.data(), c, g * g * sizeof(float), cudaMemcpyDeviceToHost));
    int far = 0;
    for (int j = 0; j < g; j++)
        for (int i = 0; i < g; i++) {
            double s = 0;
            for (int k = 0; k < g; k++)
                s += (double)h[k * g + i] * h[g * g + j * g + k];
            far += fabs(r[j * g + i] - s) > 1e-3 * fabs(s) + 1e-3;
        }
    printf("trace_program: sgemm %s\n", far ? "WRONG" : "ok");
    bad += far != 0;
    cublasDestroy(hb);
#else
    printf("trace_program: sgemm not built (no cuBLAS)\n");
#endif
    CHECK(cudaFree(d));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    return bad ? 1 : 0;
}

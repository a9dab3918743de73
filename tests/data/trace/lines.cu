// Two kernels of the lab's patterns, compiled with -lineinfo into
// lines.cubin (tests/test_trace_lines.c reads its line table).
extern "C" __global__ void naiveRow(float *out, const float *in, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny)
        out[x * ny + y] = in[y * nx + x];
}

extern "C" __global__ void readOffset(float *C, const float *A, const float *B, int n,
                                      int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = i + offset;
    if (k < n)
        C[i] = A[k] + B[k];
}

// Probe: how does a TFLOAT32 tensor map round FP32 on its way into shared memory?
// Compares, bit for bit, with cvt.rna.tf32.f32 (ties away) and cvt.rn.tf32.f32 (ties to even).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <random>

constexpr int kCols = 32, kRows = 8;  // one box: 32 floats x 8 rows = 1 KB
__global__ void probe(const __grid_constant__ CUtensorMap map, float* out, int boxes) {
  __shared__ alignas(1024) float tile[kRows * kCols];
  __shared__ alignas(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar), t = (unsigned)__cvta_generic_to_shared(tile);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  for (int box = 0; box < boxes; ++box) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(kRows * kCols * 4) : "memory");
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   ::"r"(t), "l"((unsigned long long)&map), "r"(0), "r"(box * kRows), "r"(b) : "memory");
    }
    unsigned done = 0;
    while (!done)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(b), "r"(box & 1) : "memory");
    for (int i = threadIdx.x; i < kRows * kCols; i += blockDim.x) out[box * kRows * kCols + i] = tile[i];
    __syncthreads();
  }
}
__global__ void cvt(const float* in, unsigned* rna, unsigned* rn, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a, c;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a) : "f"(in[i]));
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(c) : "f"(in[i]));
  rna[i] = a; rn[i] = c;
}
int main() {
  const int boxes = 4096, n = boxes * kRows * kCols;
  std::vector<unsigned> bits(n);
  std::mt19937 rng(1);
  const char* cls[] = {"random", "tie, bit13=0", "tie, bit13=1", "near tie +-1", "denormal", "special"};
  const int per = n / 6;
  for (int i = 0; i < n; ++i) {
    unsigned r = rng();
    int c = i / per; if (c > 5) c = 0;
    unsigned e = (r >> 23) % 200 + 27, sign = (r & 1u) << 31, man = rng() & 0x7fffffu;
    switch (c) {
      case 0: bits[i] = sign | (e << 23) | man; break;
      case 1: bits[i] = sign | (e << 23) | ((man & ~0x3fffu) | 0x1000u); break;
      case 2: bits[i] = sign | (e << 23) | ((man & ~0x3fffu) | 0x2000u | 0x1000u); break;
      case 3: bits[i] = sign | (e << 23) | ((man & ~0x1fffu) | (0x1000u + ((r >> 9) & 1 ? 1 : -1))); break;
      case 4: bits[i] = sign | (man & 0x7fffffu); break;
      default: { unsigned sp[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f7fffffu, 0x7f7ff000u, 0x00000000u, 0x80000000u, 0x7f7fefffu};
                 bits[i] = sp[r % 8]; }
    }
  }
  float *d_in, *d_out; unsigned *d_rna, *d_rn;
  cudaMalloc(&d_in, n * 4); cudaMalloc(&d_out, n * 4); cudaMalloc(&d_rna, n * 4); cudaMalloc(&d_rn, n * 4);
  cudaMemcpy(d_in, bits.data(), n * 4, cudaMemcpyHostToDevice);
  void* fn = nullptr; cudaDriverEntryPointQueryResult q{};
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
  CUtensorMap map;
  cuuint64_t dims[2] = {kCols, cuuint64_t(boxes * kRows)}; cuuint64_t strides[1] = {kCols * 4};
  cuuint32_t box[2] = {kCols, kRows}, es[2] = {1, 1};
  CUresult res = ((PFN_cuTensorMapEncodeTiled_v12000)fn)(&map, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 2, d_in, dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("encode %d\n", int(res));
  probe<<<1, 128>>>(map, d_out, boxes);
  cvt<<<(n + 255) / 256, 256>>>(d_in, d_rna, d_rn, n);
  printf("sync %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  std::vector<unsigned> tma(n), rna(n), rn(n);
  cudaMemcpy(tma.data(), d_out, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(rna.data(), d_rna, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(rn.data(), d_rn, n * 4, cudaMemcpyDeviceToHost);
  for (int c = 0; c < 6; ++c) {
    int neq_rna = 0, neq_rn = 0, neq_trunc = 0, shown = 0;
    for (int i = c * per; i < (c + 1) * per; ++i) {
      neq_rna += tma[i] != rna[i]; neq_rn += tma[i] != rn[i]; neq_trunc += tma[i] != (bits[i] & 0xffffe000u);
      if ((tma[i] != rna[i] || c == 5) && shown < 4) { printf("  %-14s in %08x tma %08x rna %08x rn %08x\n", cls[c], bits[i], tma[i], rna[i], rn[i]); ++shown; }
    }
    printf("%-14s n=%d  tma!=rna %d  tma!=rn %d  tma!=trunc %d\n", cls[c], per, neq_rna, neq_rn, neq_trunc);
  }
}

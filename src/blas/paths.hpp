// The pieces behind the BLAS entry points (blas.cpp): one checked SGEMM on host memory and the
// places it can run. Everything here is hidden inside libsgemm_blas.so.
#pragma once

#include <cstddef>

namespace sgemm_blas {

// One SGEMM as reference BLAS sees it: column-major, every argument valid, not a quick return.
// Fortran INTEGER is 32 bits (LP64 BLAS, as Debian's libblas.so.3).
struct Call {
  bool trans_a = false, trans_b = false;
  int m = 0, n = 0, k = 0;
  float alpha = 0;
  const float* a = nullptr;
  int lda = 1;
  const float* b = nullptr;
  int ldb = 1;
  float beta = 0;
  float* c = nullptr;
  int ldc = 1;
};

// gpu.cpp: runs the call through sgemm::gemm. True when C holds the result; false when it could
// not, with C untouched and the reason in `why` ("no GPU: ..." when there is no usable device).
bool run_on_gpu(const Call& call, char* why, std::size_t why_size) noexcept;

// cpu.cpp: runs the call on the system BLAS behind this library, or on reference_sgemm when
// there is none (or when that BLAS called sgemm_ back).
enum class CpuPath { System, Reference };
CpuPath run_on_cpu(const Call& call) noexcept;

// XERBLA with the Fortran ABI: routine name, INFO, the name's hidden length.
using XerblaFn = void(const char* name, const int* info, std::size_t name_len);
XerblaFn* system_xerbla() noexcept;  // the dlopened system BLAS's XERBLA, or null

// reference.cpp: reference SGEMM's loops, in its order of operations; the last resort.
void reference_sgemm(const Call& call) noexcept;

}  // namespace sgemm_blas

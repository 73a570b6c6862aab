// The verification harness the bench and the GPU tests share: a case (one gemm call), its
// device buffers with guard bands, random inputs, the float64 reference and the verdict.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "sgemm/sgemm.hpp"

#ifdef __CUDACC__
#define SGEMM_HOST_DEVICE __host__ __device__
#else
#define SGEMM_HOST_DEVICE
#endif

namespace sgemm::ref {

struct GemmCase {
  Layout layout = Layout::RowMajor;
  Op op_a = Op::N, op_b = Op::N;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  std::int64_t lda = 0, ldb = 0, ldc = 0;  // 0: the tightest legal value
  bool unaligned = false;                  // A, B and C each start one float past 16 bytes
};

// How a matrix of `rows x cols` (of op(X) before the op is undone) lies in memory: `vecs`
// vectors of `lead` contiguous elements, `ld` apart.
struct Storage {
  std::int64_t lead, vecs, ld;
  SGEMM_HOST_DEVICE std::int64_t elements() const { return vecs == 0 ? 0 : (vecs - 1) * ld + lead; }
};
Storage storage_a(const GemmCase& c);
Storage storage_b(const GemmCase& c);
Storage storage_c(const GemmCase& c);
GemmCase with_tight_lds(GemmCase c);  // fills the 0 leading dimensions

std::string describe(const GemmCase& c);  // "RowMajor NT 33x17x5 alpha=1 beta=0 ld=(5,5,17)"

// Values every guard band and padding element holds. A and B get NaN there (a kernel that
// reads outside the matrix and uses what it read produces NaN); C gets a bit pattern no
// arithmetic produces, and must come back with it intact.
inline constexpr std::uint32_t kCSentinelBits = 0x7fbadbadu;
inline constexpr std::int64_t kGuard = 64;  // elements of guard band before and after

struct Verdict {
  bool pass = false;
  double rel_fro = 0;      // ||C - C_ref||_F / ||C_ref||_F over the finite reference values
  double worst = 0;        // max over elements of |C - C_ref| / bound (inf for a wrong NaN/Inf)
  std::int64_t bad = 0;    // elements over their bound or with the wrong special value
  std::int64_t guard_hits = 0;  // guard-band or padding elements of C that changed
  std::string detail;      // the first failure, readable
};

// What fill_random writes into A and B: uniform values in [-1, 1], or such values cut to 12
// significant bits with the last one set, each exactly halfway between two TF32 numbers (where
// two roundings that break ties differently disagree), or normal N(0, 1) values (which, unlike
// the uniform ones, come arbitrarily close to zero); uniform values times 2^e with e uniform in
// [-40, 40] (WideExponent); subnormal values, each element with probability 1/2, the others
// uniform times 2^-100 (Subnormal); uniform values with about one element in 64 replaced by 0,
// +-Inf or NaN (Special).
enum class Values { Uniform, Tf32Ties, Normal, WideExponent, Subnormal, Special };

// Device buffers for one case. Fill once with fresh random values in [-1, 1]; then any number
// of `reset_c` + run + `verify` rounds.
class CaseBuffers {
 public:
  explicit CaseBuffers(const GemmCase& c);  // throws std::runtime_error on CUDA failure
  ~CaseBuffers();
  CaseBuffers(const CaseBuffers&) = delete;
  CaseBuffers& operator=(const CaseBuffers&) = delete;

  const GemmCase& gemm_case() const { return case_; }
  const float* a() const { return a_; }
  const float* b() const { return b_; }
  float* c() { return c_; }

  void fill_random(std::uint64_t seed, Values values = Values::Uniform);
  // Writes `value` into element (row, col) of op(A) (operand 0) or op(B) (operand 1).
  void poke(int operand, std::int64_t row, std::int64_t col, float value);
  // Multiplies every element of A (operand 0) or B (operand 1) by 2^exponent (exact unless the
  // result leaves the float range).
  void scale(int operand, int exponent);
  // C back to its initial values; with beta == 0 the valid region is NaN-poisoned instead.
  void reset_c();
  // Runs the float64 reference (cuBLAS DGEMM on float64 copies) for the current A, B, C0.
  void compute_reference(cublasHandle_t handle);
  // Checks C against the reference: elementwise bound with unit roundoff `u` and underflow unit
  // `eta` (see bound_of), special values, and the untouched guard band and padding.
  Verdict verify(double u, double eta) const;
  Verdict verify(Math math) const;  // with the math's u and eta
  // True when C (valid region, padding and guard band) is exactly as reset_c() left it.
  bool c_untouched() const;

 private:
  GemmCase case_;
  Storage sa_, sb_, sc_;
  float *a_alloc_ = nullptr, *b_alloc_ = nullptr, *c_alloc_ = nullptr, *c0_ = nullptr;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  double *ref_ = nullptr, *abs_ref_ = nullptr;
  double* sum_ref_ = nullptr;  // op(A) op(B), for a case whose alpha is not finite
  double* stats_ = nullptr;  // device scratch for the verdict's reductions
  bool has_reference_ = false;
};

// The elementwise bound (docs/design.md, "Verification") for C(i, j) is
//   (k + 2) (u (|alpha| (|A||B|)ij + |beta| |C0ij|) + eta (|alpha| + 1)),
// u the math's unit roundoff, eta the absolute error a result below the normal range may take
// per rounding: 2^-149 where subnormals are kept (FP32 arithmetic; 3xTF32, which sends operands
// whose products the tensor cores would flush to FP32 arithmetic), 2^-126 in Tf32 (the tensor
// cores may flush products below the normal range).
double unit_roundoff(Math math);
double underflow_unit(Math math);

// x[0, count) uniform in [-1, 1) from `seed`, on the default stream: what the suites and the
// convolution reference fill dense buffers with.
void fill_uniform(float* x, std::int64_t count, std::uint64_t seed);

// cuBLAS SGEMM (CUBLAS_COMPUTE_32F, or CUBLAS_COMPUTE_32F_FAST_TF32 when `tf32`) for a case.
cublasStatus_t cublas_sgemm(cublasHandle_t handle, const GemmCase& c, const float* a,
                            const float* b, float* cmat, bool tf32 = false);

}  // namespace sgemm::ref

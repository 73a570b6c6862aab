#include "reference/harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace sgemm::ref {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}
void check(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(st)));
}

Storage storage_of(Layout layout, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  const std::int64_t lead = layout == Layout::RowMajor ? cols : rows;
  const std::int64_t vecs = layout == Layout::RowMajor ? rows : cols;
  return {lead, vecs, ld ? ld : std::max<std::int64_t>(1, lead)};
}

__host__ __device__ bool is_valid(const Storage& s, std::int64_t pos) {
  return pos >= 0 && pos < s.elements() && pos % s.ld < s.lead;
}

// splitmix64: a counter-based generator, so a value depends only on (seed, counter).
__device__ std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t counter) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * counter;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__device__ float uniform_pm1(std::uint64_t seed, std::int64_t pos) {
  return float(splitmix64(seed, pos + 1) >> 40) * 0x1p-23f - 1.0f;  // 24 random bits, in [-1, 1)
}

// The distributions of Values beyond Uniform, Tf32Ties and Normal, from a uniform value u and a
// second draw r of the same position.
__device__ float widened(Values values, float u, std::uint64_t r) {
  switch (values) {
    case Values::WideExponent: return ldexpf(u, int(r % 81) - 40);
    case Values::Subnormal:
      if (r & 1) return __uint_as_float(std::uint32_t(r >> 8) % 0x007fffffu + 1u | (r & 2 ? 0x80000000u : 0u));
      return ldexpf(u, -100);
    case Values::Special:
      switch (r % 256) {
        case 0: return 0.0f;
        case 1: return __int_as_float(0x7f800000);
        case 2: return __int_as_float(int(0xff800000u));
        case 3: return __int_as_float(0x7fc00000);
        default: return u;
      }
    default: return u;
  }
}

// N(0, 1) by Box-Muller in double from two 53-bit uniforms, so values near zero keep their
// true density down to ~2^-53.
__device__ float normal01(std::uint64_t seed, std::int64_t pos) {
  const std::uint64_t z1 = splitmix64(seed, 2 * pos + 1), z2 = splitmix64(seed, 2 * pos + 2);
  const double u1 = double((z1 >> 11) + 1) * 0x1p-53, u2 = double(z2 >> 11) * 0x1p-53;
  return float(sqrt(-2.0 * log(u1)) * cospi(2.0 * u2));
}

// Fills an allocation: random values at the matrix's positions, `outside` everywhere else.
// Tf32Ties keeps 12 significant bits of each value and sets the 12th, so that every value lies
// exactly halfway between two TF32 numbers.
__global__ void fill_kernel(float* alloc, std::int64_t total, std::int64_t offset, Storage s,
                            std::uint64_t seed, std::uint32_t outside_bits, Values values) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const std::int64_t pos = i - offset;
    float v = __uint_as_float(outside_bits);
    if (is_valid(s, pos)) {
      v = values == Values::Normal ? normal01(seed, pos) : uniform_pm1(seed, pos);
      if (values == Values::Tf32Ties)
        v = __uint_as_float((__float_as_uint(v) & 0xffffe000u) | 0x1000u);
      v = widened(values, v, splitmix64(seed ^ 0x5bd1e995u, pos + 1));
    }
    alloc[i] = v;
  }
}

__global__ void scale_kernel(float* x, Storage s, int exponent) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < s.elements(); i += step)
    if (is_valid(s, i)) x[i] = ldexpf(x[i], exponent);
}

// The valid region of C set to NaN (beta == 0 runs must not read it).
__global__ void poison_kernel(float* c, Storage s) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < s.elements(); i += step)
    if (is_valid(s, i)) c[i] = __uint_as_float(0x7fc00000u);
}

// float -> double over a matrix's positions (0 elsewhere), optionally |x|.
__global__ void widen_kernel(const float* x, double* y, Storage s, bool absolute) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < s.elements(); i += step) {
    const double v = is_valid(s, i) ? double(x[i]) : 0.0;
    y[i] = absolute ? fabs(v) : v;
  }
}

enum Stat { kWorst, kDiff2, kRef2, kBad, kGuardHits, kFirstBad, kStatCount };

__device__ void atomic_max_nonneg(double* addr, double v) {
  // Non-negative doubles order like their bit patterns.
  atomicMax(reinterpret_cast<unsigned long long*>(addr), __double_as_longlong(v));
}

// sum_ref: op(A) op(B) alone, when alpha is not finite (else null). alpha * sum is then +-Inf
// with the sign of the sum, or NaN when the sum is zero, so an element's expected value depends on
// the sign of a sum the kernel computes only to within its bound: where the reference sum stands
// clear of its bound the kernel's must be alpha times its sign exactly, elsewhere any Inf or NaN.
__global__ void verify_kernel(const float* c_alloc, std::int64_t total, std::int64_t offset,
                              Storage s, const double* ref, const double* abs_ab,
                              const double* sum_ref, const float* c0, double alpha, double beta,
                              double k_plus_2_u, double k_plus_2_eta, double* stats) {
  double worst = 0, diff2 = 0, ref2 = 0;
  unsigned long long bad = 0, hits = 0, first_bad = ~0ull;
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const std::int64_t pos = i - offset;
    const float out = c_alloc[i];
    if (!is_valid(s, pos)) {
      hits += __float_as_uint(out) != kCSentinelBits;
      continue;
    }
    const double r = ref[pos];
    // With alpha == 0 A and B are not read: their values do not enter the bound.
    const double ab_term = alpha == 0 ? 0.0 : fabs(alpha) * abs_ab[pos];
    bool ok;
    double ratio = 0;
    if (sum_ref != nullptr && !isnan(alpha)) {
      const double sum = sum_ref[pos];
      const double sum_bound = k_plus_2_u * abs_ab[pos] + k_plus_2_eta;
      if (isnan(sum) || fabs(sum) > sum_bound) {
        const double want = alpha * sum + beta * double(c0[pos]);
        ok = isnan(want) ? isnan(out) : double(out) == want;
      } else {
        ok = !isfinite(out);
      }
    } else if (isnan(r)) {
      ok = isnan(out);
    } else if (isinf(r)) {
      ok = double(out) == r;
    } else {
      const double bound = k_plus_2_u * (ab_term + fabs(beta) * fabs(double(c0[pos]))) +
                           k_plus_2_eta * (fabs(alpha) + 1.0);
      const double diff = fabs(double(out) - r);
      ok = isfinite(out) && diff <= bound;
      ratio = bound > 0 ? diff / bound : (diff == 0 ? 0 : INFINITY);
      if (isfinite(out)) {
        diff2 += diff * diff;
        ref2 += r * r;
      }
    }
    if (!ok) {
      ratio = isfinite(ratio) && ratio > 1 ? ratio : INFINITY;
      ++bad;
      first_bad = min(first_bad, (unsigned long long)pos);
    }
    worst = fmax(worst, ratio);
  }
  atomic_max_nonneg(&stats[kWorst], worst);
  atomicAdd(&stats[kDiff2], diff2);
  atomicAdd(&stats[kRef2], ref2);
  atomicAdd(reinterpret_cast<unsigned long long*>(&stats[kBad]), bad);
  atomicAdd(reinterpret_cast<unsigned long long*>(&stats[kGuardHits]), hits);
  atomicMin(reinterpret_cast<unsigned long long*>(&stats[kFirstBad]), first_bad);
}

constexpr int kThreads = 256;
unsigned blocks_for(std::int64_t n) {
  return unsigned(std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, 4096));
}

// The column-major cuBLAS call that computes a case in either layout: a row-major C is the
// column-major C^T = op(B)^T op(A)^T.
template <typename F>
cublasStatus_t col_major_call(const GemmCase& c, F&& call) {
  const cublasOperation_t ta = c.op_a == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t tb = c.op_b == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
  if (c.layout == Layout::ColMajor) return call(ta, tb, c.m, c.n, false);
  return call(tb, ta, c.n, c.m, true);
}

}  // namespace

Storage storage_a(const GemmCase& c) {
  return c.op_a == Op::N ? storage_of(c.layout, c.m, c.k, c.lda) : storage_of(c.layout, c.k, c.m, c.lda);
}
Storage storage_b(const GemmCase& c) {
  return c.op_b == Op::N ? storage_of(c.layout, c.k, c.n, c.ldb) : storage_of(c.layout, c.n, c.k, c.ldb);
}
Storage storage_c(const GemmCase& c) { return storage_of(c.layout, c.m, c.n, c.ldc); }

GemmCase with_tight_lds(GemmCase c) {
  c.lda = storage_a(c).ld;
  c.ldb = storage_b(c).ld;
  c.ldc = storage_c(c).ld;
  return c;
}

std::string describe(const GemmCase& c) {
  std::ostringstream os;
  os << (c.layout == Layout::RowMajor ? "RowMajor " : "ColMajor ") << (c.op_a == Op::N ? 'N' : 'T')
     << (c.op_b == Op::N ? 'N' : 'T') << ' ' << c.m << 'x' << c.n << 'x' << c.k
     << " alpha=" << c.alpha << " beta=" << c.beta << " ld=(" << c.lda << ',' << c.ldb << ','
     << c.ldc << ')' << (c.unaligned ? " unaligned" : "");
  return os.str();
}

double underflow_unit(Math math) { return math == Math::Tf32 ? 0x1p-126 : 0x1p-149; }

double unit_roundoff(Math math) {
  switch (math) {
    case Math::Fp32: return 0x1p-24;
    case Math::Fp32Tf32x3: return 0x1p-21;
    case Math::Tf32: return 0x1p-11;
  }
  return 0x1p-24;
}

CaseBuffers::CaseBuffers(const GemmCase& c) : case_(with_tight_lds(c)) {
  sa_ = storage_a(case_);
  sb_ = storage_b(case_);
  sc_ = storage_c(case_);
  const std::int64_t shift = kGuard + (case_.unaligned ? 1 : 0);
  auto alloc = [&](float** p, const Storage& s) {
    check(cudaMalloc(p, sizeof(float) * (s.elements() + 2 * kGuard + 4)), "cudaMalloc");
  };
  alloc(&a_alloc_, sa_);
  alloc(&b_alloc_, sb_);
  alloc(&c_alloc_, sc_);
  alloc(&c0_, sc_);
  check(cudaMalloc(&stats_, sizeof(double) * kStatCount), "cudaMalloc");
  a_ = a_alloc_ + shift;
  b_ = b_alloc_ + shift;
  c_ = c_alloc_ + shift;
}

CaseBuffers::~CaseBuffers() {
  for (void* p : {(void*)a_alloc_, (void*)b_alloc_, (void*)c_alloc_, (void*)c0_, (void*)ref_,
                  (void*)abs_ref_, (void*)sum_ref_, (void*)stats_})
    if (p) cudaFree(p);
}

void CaseBuffers::fill_random(std::uint64_t seed, Values values) {
  const std::int64_t shift = kGuard + (case_.unaligned ? 1 : 0);
  auto fill = [&](float* alloc, const Storage& s, std::uint64_t salt, std::uint32_t outside,
                  Values v) {
    const std::int64_t total = s.elements() + 2 * kGuard + 4;
    fill_kernel<<<blocks_for(total), kThreads>>>(alloc, total, shift, s, seed * 4 + salt, outside,
                                                 v);
  };
  fill(a_alloc_, sa_, 1, 0x7fc00000u, values);
  fill(b_alloc_, sb_, 2, 0x7fc00000u, values);
  fill(c0_, sc_, 3, kCSentinelBits, Values::Uniform);  // C is not rounded to TF32
  check(cudaGetLastError(), "fill");
  has_reference_ = false;
}

void CaseBuffers::poke(int operand, std::int64_t row, std::int64_t col, float value) {
  const bool is_a = operand == 0;
  const bool transposed = (is_a ? case_.op_a : case_.op_b) == Op::T;
  const Storage& s = is_a ? sa_ : sb_;
  const std::int64_t sr = transposed ? col : row, sc = transposed ? row : col;
  const std::int64_t pos = case_.layout == Layout::RowMajor ? sr * s.ld + sc : sr + sc * s.ld;
  check(cudaMemcpy((is_a ? a_ : b_) + pos, &value, sizeof value, cudaMemcpyHostToDevice), "poke");
  has_reference_ = false;
}

void CaseBuffers::scale(int operand, int exponent) {
  const Storage& s = operand == 0 ? sa_ : sb_;
  scale_kernel<<<blocks_for(s.elements()), kThreads>>>(operand == 0 ? a_ : b_, s, exponent);
  check(cudaGetLastError(), "scale");
  has_reference_ = false;
}

void CaseBuffers::reset_c() {
  const std::int64_t total = sc_.elements() + 2 * kGuard + 4;
  check(cudaMemcpy(c_alloc_, c0_, sizeof(float) * total, cudaMemcpyDeviceToDevice), "reset C");
  if (case_.beta == 0.0f) poison_kernel<<<blocks_for(sc_.elements()), kThreads>>>(c_, sc_);
  check(cudaGetLastError(), "poison C");
  // Done before the call, whatever stream it runs on (a non-blocking stream does not wait for
  // the legacy default stream).
  check(cudaDeviceSynchronize(), "poison C");
}

void CaseBuffers::compute_reference(cublasHandle_t handle) {
  if (!ref_) {
    check(cudaMalloc(&ref_, sizeof(double) * std::max<std::int64_t>(1, sc_.elements())), "cudaMalloc");
    check(cudaMalloc(&abs_ref_, sizeof(double) * std::max<std::int64_t>(1, sc_.elements())), "cudaMalloc");
  }
  double *da = nullptr, *db = nullptr, *dabs_a = nullptr, *dabs_b = nullptr;
  const std::int64_t ea = std::max<std::int64_t>(1, sa_.elements());
  const std::int64_t eb = std::max<std::int64_t>(1, sb_.elements());
  check(cudaMalloc(&da, sizeof(double) * ea), "cudaMalloc");
  check(cudaMalloc(&db, sizeof(double) * eb), "cudaMalloc");
  check(cudaMalloc(&dabs_a, sizeof(double) * ea), "cudaMalloc");
  check(cudaMalloc(&dabs_b, sizeof(double) * eb), "cudaMalloc");
  const std::int64_t shift = kGuard + (case_.unaligned ? 1 : 0);
  widen_kernel<<<blocks_for(sa_.elements()), kThreads>>>(a_, da, sa_, false);
  widen_kernel<<<blocks_for(sb_.elements()), kThreads>>>(b_, db, sb_, false);
  widen_kernel<<<blocks_for(sa_.elements()), kThreads>>>(a_, dabs_a, sa_, true);
  widen_kernel<<<blocks_for(sb_.elements()), kThreads>>>(b_, dabs_b, sb_, true);
  widen_kernel<<<blocks_for(sc_.elements()), kThreads>>>(c0_ + shift, ref_, sc_, false);
  check(cudaGetLastError(), "widen");
  check(cublasSetStream(handle, nullptr), "cublasSetStream");
  const double alpha = case_.alpha, beta = case_.beta, one = 1, zero = 0;
  const GemmCase& c = case_;
  auto run = [&](const double* al, const double* x, const double* y, const double* be, double* out) {
    return col_major_call(c, [&](cublasOperation_t t1, cublasOperation_t t2, std::int64_t rows,
                                 std::int64_t cols, bool swapped) {
      return cublasDgemm(handle, t1, t2, int(rows), int(cols), int(c.k), al, swapped ? y : x,
                         int(swapped ? c.ldb : c.lda), swapped ? x : y, int(swapped ? c.lda : c.ldb),
                         be, out, int(c.ldc));
    });
  };
  if (c.m > 0 && c.n > 0) {
    check(run(&alpha, da, db, &beta, ref_), "cublasDgemm");
    check(run(&one, dabs_a, dabs_b, &zero, abs_ref_), "cublasDgemm |A||B|");
    if (!std::isfinite(alpha)) {
      if (!sum_ref_)
        check(cudaMalloc(&sum_ref_, sizeof(double) * std::max<std::int64_t>(1, sc_.elements())),
              "cudaMalloc");
      check(run(&one, da, db, &zero, sum_ref_), "cublasDgemm op(A) op(B)");
    }
  }
  check(cudaDeviceSynchronize(), "reference");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dabs_a);
  cudaFree(dabs_b);
  has_reference_ = true;
}

Verdict CaseBuffers::verify(double u, double eta) const {
  if (!has_reference_) throw std::logic_error("verify() before compute_reference()");
  const double init[kStatCount] = {0, 0, 0, 0, 0, 0};
  check(cudaMemcpy(stats_, init, sizeof init, cudaMemcpyHostToDevice), "stats");
  check(cudaMemset(stats_ + kFirstBad, 0xff, sizeof(double)), "stats");
  const std::int64_t total = sc_.elements() + 2 * kGuard + 4;
  const std::int64_t shift = kGuard + (case_.unaligned ? 1 : 0);
  verify_kernel<<<blocks_for(total), kThreads>>>(c_alloc_, total, shift, sc_, ref_, abs_ref_,
                                                 std::isfinite(case_.alpha) ? nullptr : sum_ref_,
                                                 c0_ + shift, case_.alpha, case_.beta,
                                                 double(case_.k + 2) * u,
                                                 double(case_.k + 2) * eta, stats_);
  check(cudaGetLastError(), "verify");
  double stats[kStatCount];
  check(cudaMemcpy(stats, stats_, sizeof stats, cudaMemcpyDeviceToHost), "verify");
  std::uint64_t bad, hits, first;
  std::memcpy(&bad, &stats[kBad], 8);
  std::memcpy(&hits, &stats[kGuardHits], 8);
  std::memcpy(&first, &stats[kFirstBad], 8);
  Verdict v;
  v.worst = stats[kWorst];
  v.rel_fro = stats[kRef2] > 0 ? std::sqrt(stats[kDiff2] / stats[kRef2]) : std::sqrt(stats[kDiff2]);
  v.bad = std::int64_t(bad);
  v.guard_hits = std::int64_t(hits);
  v.pass = bad == 0 && hits == 0;
  if (bad) {
    float out;
    double r;
    check(cudaMemcpy(&out, c_ + first, sizeof out, cudaMemcpyDeviceToHost), "verify");
    check(cudaMemcpy(&r, ref_ + first, sizeof r, cudaMemcpyDeviceToHost), "verify");
    const std::int64_t vec = std::int64_t(first) / sc_.ld, along = std::int64_t(first) % sc_.ld;
    const std::int64_t row = case_.layout == Layout::RowMajor ? vec : along;
    const std::int64_t col = case_.layout == Layout::RowMajor ? along : vec;
    std::ostringstream os;
    os << bad << " element(s) wrong; first C(" << row << ',' << col << ") = " << out
       << ", reference " << r << ", worst error/bound " << v.worst;
    v.detail = os.str();
  }
  if (hits) v.detail += (v.detail.empty() ? "" : "; ") + std::to_string(hits) +
                        " guard-band/padding element(s) of C overwritten";
  return v;
}

Verdict CaseBuffers::verify(Math math) const {
  return verify(unit_roundoff(math), underflow_unit(math));
}

bool CaseBuffers::c_untouched() const {
  const std::int64_t total = sc_.elements() + 2 * kGuard + 4;
  const std::int64_t shift = kGuard + (case_.unaligned ? 1 : 0);
  std::vector<std::uint32_t> now(total), before(total);
  check(cudaMemcpy(now.data(), c_alloc_, 4 * total, cudaMemcpyDeviceToHost), "copy C");
  check(cudaMemcpy(before.data(), c0_, 4 * total, cudaMemcpyDeviceToHost), "copy C0");
  for (std::int64_t i = 0; i < total; ++i) {
    const bool poisoned = case_.beta == 0.0f && is_valid(sc_, i - shift);
    if (now[i] != (poisoned ? 0x7fc00000u : before[i])) return false;
  }
  return true;
}

namespace {
__global__ void fill_uniform_kernel(float* x, std::int64_t count, std::uint64_t seed) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    x[i] = uniform_pm1(seed, i);
}
}  // namespace

void fill_uniform(float* x, std::int64_t count, std::uint64_t seed) {
  if (count == 0) return;
  fill_uniform_kernel<<<blocks_for(count), kThreads>>>(x, count, seed);
  check(cudaGetLastError(), "fill_uniform");
}

cublasStatus_t cublas_sgemm(cublasHandle_t handle, const GemmCase& c, const float* a,
                            const float* b, float* cmat, bool tf32) {
  const GemmCase t = with_tight_lds(c);
  const cublasComputeType_t compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  return col_major_call(t, [&](cublasOperation_t t1, cublasOperation_t t2, std::int64_t rows,
                               std::int64_t cols, bool swapped) {
    return cublasGemmEx(handle, t1, t2, int(rows), int(cols), int(t.k), &t.alpha, swapped ? b : a,
                        CUDA_R_32F, int(swapped ? t.ldb : t.lda), swapped ? a : b, CUDA_R_32F,
                        int(swapped ? t.lda : t.ldb), &t.beta, cmat, CUDA_R_32F, int(t.ldc), compute,
                        CUBLAS_GEMM_DEFAULT);
  });
}

}  // namespace sgemm::ref

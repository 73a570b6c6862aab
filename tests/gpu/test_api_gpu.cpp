// gemm() behaviour on a device: auto's choice and fallbacks, the quick returns, asynchrony,
// concurrent callers, and the accuracy rule of the 3xTF32 mode.
#include <cuda_runtime_api.h>

#include <limits>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "gpu_test.hpp"

namespace sgemm::test {
namespace {

bool has_kernel_for(Math math) {
  for (const KernelInfo& k : kernels())
    if (k.math == math) return true;
  return false;
}

// auto must pick a kernel whose requirements the call meets: pointers one float past 16-byte
// alignment and odd leading dimensions rule out every float4 / TMA kernel.
TEST(Api, AutoHandlesUnalignedPointers) {
  std::uint64_t seed = 1;
  for (Math math : {Math::Fp32, Math::Fp32Tf32x3, Math::Tf32}) {
    if (!has_kernel_for(math)) continue;
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (auto [m, n, k] : {std::array<std::int64_t, 3>{129, 67, 45}, {1000, 999, 1001}}) {
        ref::GemmCase c{layout, Op::N, Op::T, m, n, k, 1.0f, 0.75f};
        c.unaligned = true;
        Options o;
        o.math = math;
        run_case(c, o, seed++);
      }
  }
}

// Fp32 `auto` runs large unaligned calls on rung 13 over aligned copies of A and B, adding the
// product into C with alpha and beta (`sgemm-bench --explain` shows it): every layout and op.
TEST(Api, AutoStagesUnalignedCalls) {
  std::uint64_t seed = 200;
  for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
    for (Op op_a : {Op::N, Op::T})
      for (Op op_b : {Op::N, Op::T}) {
        ref::GemmCase c{layout, op_a, op_b, 2000, 2400, 100, -0.5f, 0.75f};
        c.unaligned = true;
        Options o;
        o.math = Math::Fp32;
        run_case(c, o, seed++);
        if (HasFailure()) return;
      }
}

// Fp32 `auto` cuts a long k over few tiles into ranges that a batched grid runs as one batch
// (rung 15 up to 64 x 64, rung 10 above; `sgemm-bench --explain` shows the cut), with a shorter
// last range, and adds the ranges into C with alpha and beta: every layout, odd sizes, both
// scalars in play.
TEST(Api, AutoSplitsLongK) {
  std::uint64_t seed = 300;
  for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
    for (Op op : {Op::N, Op::T})
      for (auto [m, n, k] : {std::array<std::int64_t, 3>{64, 64, 20000},
                             std::array<std::int64_t, 3>{48, 40, 9999},
                             std::array<std::int64_t, 3>{128, 128, 5000},
                             std::array<std::int64_t, 3>{100, 60, 9999}}) {
        ref::GemmCase c{layout, op, Op::N, m, n, k, -0.5f, 0.75f};
        Options o;
        o.math = Math::Fp32;
        run_case(c, o, seed++);
        if (HasFailure()) return;
      }
}

// The same in Tf32 and 3xTF32, where tc-03 runs the ranges as one batch (its maps' third
// dimension): A in place or packed, B in both majornesses, a shorter last range.
TEST(Api, AutoSplitsLongKOnTensorCores) {
  std::uint64_t seed = 400;
  for (Math math : {Math::Tf32, Math::Fp32Tf32x3})
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (Op op_a : {Op::N, Op::T})
        for (Op op_b : {Op::N, Op::T})
          for (auto [m, n, k] : {std::array<std::int64_t, 3>{300, 300, 5001},
                                 std::array<std::int64_t, 3>{130, 520, 4100}}) {
            ref::GemmCase c{layout, op_a, op_b, m, n, k, -0.5f, 0.75f};
            Options o;
            o.math = math;
            run_case(c, o, seed++);
            if (HasFailure()) return;
          }
}

// A kernel asked for by name refuses a call it cannot compute, says why, and touches nothing.
TEST(Api, NamedKernelRefusesUnsupportedCall) {
  for (const KernelInfo& k : kernels()) {
    ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 65, 33, 17, 1.0f, 0.0f};
    c.unaligned = true;
    ref::CaseBuffers buf(c);
    const ref::GemmCase& t = buf.gemm_case();
    const Problem p{t.layout, t.op_a, t.op_b, t.m, t.n, t.k, buf.a(), t.lda, buf.b(), t.ldb, buf.c(), t.ldc};
    std::string why;
    if (k.supports(p, &why)) continue;
    buf.fill_random(3);
    buf.reset_c();
    Options o;
    o.kernel = k.slug;
    o.math = k.math;
    EXPECT_EQ(gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda, buf.b(), t.ldb,
                   t.beta, buf.c(), t.ldc, nullptr, o),
              Status::NotSupported)
        << k.slug;
    EXPECT_NE(last_error().find(why), std::string_view::npos) << last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(buf.c_untouched()) << k.slug;
  }
}

// alpha == 0 and k == 0: C = beta * C without reading A or B (they hold NaN here); beta == 0:
// C = 0 without reading C (it holds NaN); m == 0: nothing at all.
TEST(Api, QuickReturns) {
  const int m = 37, n = 23, k = 11;
  float *a, *b, *c;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&a), m * k * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b), k * n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&c), m * n * 4), cudaSuccess);
  const std::vector<float> nan(m * n * 4, std::numeric_limits<float>::quiet_NaN());
  cudaMemcpy(a, nan.data(), m * k * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, nan.data(), k * n * 4, cudaMemcpyHostToDevice);
  std::vector<float> host(m * n);
  auto fill_c = [&](float v) {
    std::vector<float> h(m * n, v);
    cudaMemcpy(c, h.data(), m * n * 4, cudaMemcpyHostToDevice);
  };
  auto read_c = [&] { cudaMemcpy(host.data(), c, m * n * 4, cudaMemcpyDeviceToHost); };

  fill_c(2.0f);
  ASSERT_EQ(gemm(Layout::RowMajor, Op::N, Op::N, m, n, k, 0.0f, a, k, b, n, 0.5f, c, n), Status::Success);
  read_c();
  for (float v : host) ASSERT_EQ(v, 1.0f);  // alpha == 0: 0.5 * 2, A and B (NaN) not read

  fill_c(std::numeric_limits<float>::quiet_NaN());
  ASSERT_EQ(gemm(Layout::ColMajor, Op::T, Op::N, m, n, 0, 1.0f, a, 1, b, 1, 0.0f, c, m), Status::Success);
  read_c();
  for (float v : host) ASSERT_EQ(v, 0.0f);  // k == 0, beta == 0: zeros, C (NaN) not read

  fill_c(3.0f);
  ASSERT_EQ(gemm(Layout::RowMajor, Op::N, Op::N, 0, n, k, 1.0f, a, k, b, n, 0.0f, c, n), Status::Success);
  ASSERT_EQ(gemm(Layout::RowMajor, Op::N, Op::N, m, n, k, 0.0f, a, k, b, n, 1.0f, c, n), Status::Success);
  read_c();
  for (float v : host) ASSERT_EQ(v, 3.0f);  // m == 0, and alpha == 0 with beta == 1: untouched
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

// gemm() only enqueues: it returns while the product still runs on the stream.
TEST(Api, DoesNotSynchronize) {
  ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 4096, 4096, 4096, 1.0f, 0.0f};
  ref::CaseBuffers buf(c);
  buf.fill_random(9);
  const ref::GemmCase& t = buf.gemm_case();
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda, buf.b(), t.ldb,
                   t.beta, buf.c(), t.ldc, stream),
              Status::Success);
  EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaStreamDestroy(stream);
}

// Several host threads, each on its own stream, get correct results.
TEST(Api, ConcurrentCallers) {
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<ref::CaseBuffers>> bufs;
  for (int i = 0; i < kThreads; ++i) {
    ref::GemmCase c{i % 2 ? Layout::ColMajor : Layout::RowMajor, Op::N, Op::T, 300 + i, 200 + 3 * i, 150, 1.0f, 0.0f};
    bufs.push_back(std::make_unique<ref::CaseBuffers>(c));
    bufs.back()->fill_random(100 + i);
    bufs.back()->compute_reference(cublas());
    bufs.back()->reset_c();
  }
  std::vector<Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      cudaStream_t s;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      ref::CaseBuffers& b = *bufs[i];
      const ref::GemmCase& t = b.gemm_case();
      for (int rep = 0; rep < 8 && results[i] == Status::Success; ++rep)
        results[i] = gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, b.a(), t.lda, b.b(), t.ldb,
                          t.beta, b.c(), t.ldc, s);
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(results[i], Status::Success);
    const ref::Verdict v = bufs[i]->verify(Math::Fp32);
    EXPECT_TRUE(v.pass) << v.detail;
  }
}

// The kernel and cuBLAS (SGEMM, or TF32 when `cublas_tf32`) on the same random inputs, each
// checked against the float64 reference. Fatal failures are left for the caller to see.
// `ran` is false (and nothing runs) when the kernel does not support the call.
void against_cublas(const KernelInfo& kinfo, const ref::GemmCase& c, std::uint64_t seed,
                    bool cublas_tf32, ref::Verdict& ours, double& cublas_err, bool& ran,
                    ref::Values values = ref::Values::Uniform) {
  ref::CaseBuffers buf(c);
  const ref::GemmCase& t = buf.gemm_case();
  ran = kinfo.supports({t.layout, t.op_a, t.op_b, t.m, t.n, t.k, buf.a(), t.lda, buf.b(), t.ldb,
                        buf.c(), t.ldc});
  if (!ran) return;
  buf.fill_random(seed, values);
  buf.compute_reference(cublas());
  buf.reset_c();
  ASSERT_EQ(ref::cublas_sgemm(cublas(), t, buf.a(), buf.b(), buf.c(), cublas_tf32),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cublas_err = buf.verify(cublas_tf32 ? Math::Tf32 : Math::Fp32).rel_fro;
  buf.reset_c();
  Options o;
  o.kernel = kinfo.slug;
  o.math = kinfo.math;
  ASSERT_EQ(gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda, buf.b(), t.ldb,
                 t.beta, buf.c(), t.ldc, nullptr, o),
            Status::Success)
      << last_error();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ours = buf.verify(kinfo.math);
}

// The 3xTF32 rule: relative Frobenius error at most 2x cuBLAS SGEMM's on the same inputs, and
// at most cuBLAS SGEMM's once K >= 1024. Checked for every 3xTF32 kernel.
// The second shape is small M in nn.Linear's layout (tc-05).
TEST(Api, Tf32x3AccuracyAgainstCublasSgemm) {
  for (const KernelInfo& kinfo : kernels()) {
    if (kinfo.math != Math::Fp32Tf32x3) continue;
    for (const auto& [op_b, m, n] : {std::tuple{Op::N, 512, 384}, std::tuple{Op::T, 16, 1536}})
    for (std::int64_t k : {64, 256, 1024, 4096, 16384}) {
      ref::Verdict v;
      double cublas_err = 0;
      bool ran = false;
      against_cublas(kinfo, {Layout::RowMajor, Op::N, op_b, m, n, k, 1.0f, 0.0f}, k,
                     /*cublas_tf32=*/false, v, cublas_err, ran);
      if (HasFatalFailure()) return;
      if (!ran) continue;
      EXPECT_TRUE(v.pass) << kinfo.slug << " " << m << "x" << n << "x" << k << ": " << v.detail;
      const double limit = (k >= 1024 ? 1.0 : 2.0) * cublas_err;
      EXPECT_LE(v.rel_fro, limit) << kinfo.slug << " " << m << "x" << n << "x" << k
                                  << ": rel. Frobenius error "
                                  << v.rel_fro << " vs cuBLAS SGEMM " << cublas_err;
      std::printf("[accuracy] %s %dx%dx%lld: %.3e (cuBLAS SGEMM %.3e)\n",
                  std::string(kinfo.slug).c_str(), m, n, (long long)k, v.rel_fro, cublas_err);
    }
  }
}

// The 3xTF32 split is exact only when the big part the tensor cores see is the one the small
// part was computed from. Where a rung reads the big part through a TFLOAT32 tensor map and
// packs the small part with to_tf32 (tc-03), the two roundings must agree on ties too. With
// every input a tie, a disagreement leaves about half of A off by 2^-11 of itself, ~1e3 times
// cuBLAS SGEMM's error. RowMajor NN reads A in place (where tc-03 can), TN packs both parts.
TEST(Api, Tf32x3SplitExactOnTies) {
  for (const KernelInfo& kinfo : kernels()) {
    if (kinfo.math != Math::Fp32Tf32x3) continue;
    for (Op op_a : {Op::N, Op::T}) {
      const char* ops = op_a == Op::N ? "NN" : "TN";
      ref::Verdict v;
      double cublas_err = 0;
      bool ran = false;
      against_cublas(kinfo, {Layout::RowMajor, op_a, Op::N, 512, 384, 1024, 1.0f, 0.0f}, 7,
                     /*cublas_tf32=*/false, v, cublas_err, ran, ref::Values::Tf32Ties);
      if (HasFatalFailure()) return;
      if (!ran) continue;
      EXPECT_TRUE(v.pass) << kinfo.slug << " " << ops << ": " << v.detail;
      EXPECT_LE(v.rel_fro, 2.0 * cublas_err)
          << kinfo.slug << " " << ops << " on TF32 ties: rel. Frobenius error " << v.rel_fro
          << " vs cuBLAS SGEMM " << cublas_err;
      std::printf("[accuracy] %s %s, every input a TF32 tie: %.3e (cuBLAS SGEMM %.3e)\n",
                  std::string(kinfo.slug).c_str(), ops, v.rel_fro, cublas_err);
    }
  }
}

// Every Tf32 kernel against cuBLAS TF32 on the same inputs: relative Frobenius error within 2x.
// Tf32's elementwise bound, (k + 2) 2^-11 (|A||B|)ij, is loose at large k (above |A||B| itself
// from k = 2047), so this is the check that catches a Tf32 kernel wrong by a little everywhere.
// The second shape has more output tiles than the GPU has SMs: persistent kernels walk several.
// The third has rows longer than tc-04's row cache (8192 values): its scaling pass reads the rest
// of each row of A twice. The fourth is small M (tc-05). A kernel that declines a shape skips it.
TEST(Api, Tf32AccuracyAgainstCublasTf32) {
  for (const KernelInfo& kinfo : kernels()) {
    if (kinfo.math != Math::Tf32) continue;
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{512, 384, 4096},
                           std::array<std::int64_t, 3>{4096, 2048, 256},
                           std::array<std::int64_t, 3>{256, 192, 8320},
                           std::array<std::int64_t, 3>{32, 2048, 4096}}) {
      ref::Verdict v;
      double cublas_err = 0;
      bool ran = false;
      against_cublas(kinfo, {Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, 0.0f}, k,
                     /*cublas_tf32=*/true, v, cublas_err, ran);
      if (HasFatalFailure()) return;
      if (!ran) continue;
      EXPECT_TRUE(v.pass) << kinfo.slug << " " << m << "x" << n << "x" << k << ": " << v.detail;
      EXPECT_LE(v.rel_fro, 2.0 * cublas_err)
          << kinfo.slug << " " << m << "x" << n << "x" << k << ": rel. Frobenius error "
          << v.rel_fro << " vs cuBLAS TF32 " << cublas_err;
      std::printf("[accuracy] %s %lldx%lldx%lld: %.3e (cuBLAS TF32 %.3e)\n",
                  std::string(kinfo.slug).c_str(), (long long)m, (long long)n, (long long)k,
                  v.rel_fro, cublas_err);
    }
  }
}

// Operands whose values span more binades than FP16 holds: rows of A with 2^40 at k = 0 (B's
// row 0 zero, so it adds nothing to C) and columns of B with 2^40 at k = 1 (A's column 1 zero).
// Their other values, in [-1, 1], then sit 2^40 to 2^63 below their row's or column's maximum.
// A tensor-core kernel that scales operands into FP16 (tc-04, both modes) must keep their bits
// some other way and still meet its mode's bound: scaled into FP16 they would fall below its
// smallest subnormal, and C would lose every term (on an H200, at 2^30 a build that never raised
// its flag still passed, since the bound at k = 96 forgives 7-bit operands). With the huge value
// in every row and column there are too many such values to set aside (tc-04 hands the call to
// tc-03); in two rows and two columns tc-04 sets them aside and corrects C after its tile
// kernel; one of the two rows has 2^70 and, elsewhere, values near 2^-100, which its scaling by
// 2^-56 takes to zero in FP32 (they must be set aside all the same). Both with beta = 0 (C
// poisoned: nothing may read it) and beta = 0.5 (nothing may write C twice).
TEST(Api, WideRangeOperands) {
  constexpr float kHuge = 0x1p40f;
  for (const KernelInfo& kinfo : kernels()) {
    if (kinfo.math == Math::Fp32) continue;
    for (auto [op_a, op_b, every, beta] :
         {std::tuple{Op::N, Op::N, true, 0.0f}, std::tuple{Op::T, Op::T, true, 0.5f},
          std::tuple{Op::N, Op::N, false, 0.5f}, std::tuple{Op::T, Op::T, false, 0.0f}}) {
      const std::int64_t m = 200, n = 160, k = 96;
      ref::CaseBuffers buf({Layout::RowMajor, op_a, op_b, m, n, k, 1.0f, beta});
      buf.fill_random(21);
      auto huge_here = [&](std::int64_t x, std::int64_t a, std::int64_t b) {
        return every || x == a || x == b;
      };
      for (std::int64_t i = 0; i < m; ++i) {
        if (huge_here(i, 3, 101)) buf.poke(0, i, 0, i % 2 ? -kHuge : kHuge);
        buf.poke(0, i, 1, 0.0f);
      }
      if (!every) {
        buf.poke(0, 101, 0, 0x1p70f);
        for (std::int64_t p = 2; p < k; ++p)
          buf.poke(0, 101, p, (p % 2 ? -0x1p-100f : 0x1p-100f) * float(1 + p % 7));
      }
      for (std::int64_t j = 0; j < n; ++j) {
        buf.poke(1, 0, j, 0.0f);
        if (huge_here(j, 7, 150)) buf.poke(1, 1, j, j % 2 ? kHuge : -kHuge);
      }
      buf.compute_reference(cublas());
      buf.reset_c();
      const ref::GemmCase& t = buf.gemm_case();
      Options o;
      o.kernel = kinfo.slug;
      o.math = kinfo.math;
      const Status status = gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda,
                                 buf.b(), t.ldb, t.beta, buf.c(), t.ldc, nullptr, o);
      if (status == Status::NotSupported) continue;  // this layout is another kernel's
      ASSERT_EQ(status, Status::Success) << last_error();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const ref::Verdict v = buf.verify(kinfo.math);
      EXPECT_TRUE(v.pass) << kinfo.slug << (op_a == Op::N ? " NN" : " TT")
                          << (every ? " every row: " : " two rows: ") << v.detail;
    }
  }
}

}  // namespace
}  // namespace sgemm::test

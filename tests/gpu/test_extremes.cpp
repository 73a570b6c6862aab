// Calls at the edges of what is legal: huge leading dimensions, k beyond a million, alpha near
// the float range, operands near zero and near FLT_MAX; the statuses such calls return; the
// caller's pending errors; the caller's workspace; determinism; several devices.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "gpu_test.hpp"

namespace sgemm::test {
namespace {

Options named(const KernelInfo& k) {
  Options o;
  o.kernel = k.slug;
  o.math = k.math;
  return o;
}

// A legal call gets Success (then a correct C) or, from a kernel asked for by name,
// NotSupported; never CudaError.
void expect_legal_status(Status s, const std::string& who) {
  EXPECT_TRUE(s == Status::Success || s == Status::NotSupported)
      << who << ": " << to_string(s) << ": " << last_error();
}

// Row-major C (1 x n) = A (1 x k, lda = 2^38) B (k x n): one stored row of A, its leading
// dimension far past what a TMA row stride can hold. Checked on the host in double.
TEST(Extremes, HugeLeadingDimension) {
  constexpr std::int64_t k = 96, n = 100, lda = std::int64_t(1) << 38;
  std::vector<float> a(k), b(k * n), c0(n, 0.25f);
  for (std::int64_t i = 0; i < k; ++i) a[i] = float((i * 37) % 17) / 8.0f - 1.0f;
  for (std::int64_t i = 0; i < k * n; ++i) b[i] = float((i * 13) % 23) / 11.0f - 1.0f;
  float *da, *db, *dc;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), 4 * k), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), 4 * k * n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), 4 * n), cudaSuccess);
  cudaMemcpy(da, a.data(), 4 * k, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), 4 * k * n, cudaMemcpyHostToDevice);
  auto check_result = [&](const std::string& who, Math math) {
    std::vector<float> c(n);
    ASSERT_EQ(cudaMemcpy(c.data(), dc, 4 * n, cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0, abs_sum = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        sum += double(a[p]) * b[p * n + j];
        abs_sum += std::fabs(double(a[p]) * b[p * n + j]);
      }
      const double want = -0.5 * sum + 0.5 * 0.25;
      const double bound = (k + 2) * ref::unit_roundoff(math) * (0.5 * abs_sum + 0.5 * 0.25);
      ASSERT_LE(std::fabs(c[j] - want), bound) << who << ": C(0, " << j << ")";
    }
  };
  auto run = [&](const Options& o) {
    cudaMemcpy(dc, c0.data(), 4 * n, cudaMemcpyHostToDevice);
    const Status s = gemm(Layout::RowMajor, Op::N, Op::N, 1, n, k, -0.5f, da, lda, db, n, 0.5f,
                          dc, n, nullptr, o);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return s;
  };
  for (const KernelInfo& kinfo : kernels()) {
    const Status s = run(named(kinfo));
    expect_legal_status(s, std::string(kinfo.slug));
    if (s == Status::Success) check_result(std::string(kinfo.slug), kinfo.math);
  }
  for (Math math : built_maths()) {
    Options o;
    o.math = math;
    ASSERT_EQ(run(o), Status::Success) << to_string(math) << ": " << last_error();
    check_result(std::string("auto ") + to_string(math), math);
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

// k past 2^22 (beyond the packing passes' old grid) with a small C, in every math.
TEST(Extremes, LongK) {
  const ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 8, 24, (std::int64_t(1) << 22) + 37, 1.0f,
                        0.5f};
  ref::CaseBuffers buf(c);
  buf.fill_random(8100);
  buf.compute_reference(cublas());
  for (Math math : built_maths()) {
    Options o;
    o.math = math;
    buf.reset_c();
    ASSERT_EQ(call(buf, nullptr, o), Status::Success) << to_string(math) << ": " << last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const ref::Verdict v = buf.verify(math);
    EXPECT_TRUE(v.pass) << "auto " << to_string(math) << ": " << v.detail;
  }
  for (const KernelInfo& k : kernels()) {
    if (k.track != Track::TensorCore) continue;
    buf.reset_c();
    const Status s = call(buf, nullptr, named(k));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_legal_status(s, std::string(k.slug));
    if (s != Status::Success) continue;
    const ref::Verdict v = buf.verify(k.math);
    EXPECT_TRUE(v.pass) << k.slug << ": " << v.detail;
  }
}

// alpha multiplies the whole sum once. Row 0 of A is [1, 2^-29, 1, 0, ...] and column 0 of B is
// [0, 2^49, -2^21, ...]: tc-04 sets A(0, 1) aside (29 binades below its row's maximum), so C(0, 0)
// = alpha (2^-29 2^49 - 2^21) = -alpha 2^20 comes from a tile sum of -2^21 and a set-aside term
// of 2^20. With alpha = 2^107, alpha times the tile sum alone overflows to -Inf; the true
// result, -2^127, is a float. A's columns 1 and 2 are zero below row 0, so that no other element
// of C meets B's large values.
TEST(Extremes, AlphaAppliedOnce) {
  const ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 64, 48, 64, 0x1p107f, 0.0f};
  ref::CaseBuffers buf(c);
  buf.fill_random(8200);
  for (std::int64_t i = 1; i < c.m; ++i) {
    buf.poke(0, i, 1, 0.0f);
    buf.poke(0, i, 2, 0.0f);
  }
  const float row0[] = {1.0f, 0x1p-29f, 1.0f};
  for (std::int64_t p = 0; p < c.k; ++p) buf.poke(0, 0, p, p < 3 ? row0[p] : 0.0f);
  buf.poke(1, 0, 0, 0.0f);
  buf.poke(1, 1, 0, 0x1p49f);
  buf.poke(1, 2, 0, -0x1p21f);
  buf.compute_reference(cublas());
  for (const KernelInfo& k : kernels()) {
    buf.reset_c();
    const Status s = call(buf, nullptr, named(k));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_legal_status(s, std::string(k.slug));
    if (s != Status::Success) continue;
    float c00;
    ASSERT_EQ(cudaMemcpy(&c00, buf.c(), 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(c00, -0x1p127f) << k.slug;
  }
}

// 3xTF32 keeps FP32's accuracy where the split's small part would fall below TF32's normal range
// (A near 2^-120 against B near 2^100) and for subnormal operands (A below 2^-126 against B near
// 2^110), as FP32 arithmetic does.
TEST(Extremes, TinyOperandsKeepFp32Accuracy) {
  std::uint64_t seed = 8300;
  for (auto [a_exp, b_exp] : {std::pair{-120, 100}, {-135, 110}, {-70, -70}})
    for (const KernelInfo& k : kernels()) {
      if (k.math == Math::Tf32) continue;
      ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 130, 70, 300, 1.0f, 0.0f};
      const Problem p{c.layout, c.op_a, c.op_b, c.m, c.n, c.k, reinterpret_cast<const float*>(256),
                      c.k, reinterpret_cast<const float*>(256), c.n, reinterpret_cast<float*>(256), c.n};
      if (!k.supports(p)) continue;
      ref::CaseBuffers buf(c);
      buf.fill_random(seed++);
      buf.scale(0, a_exp);
      buf.scale(1, b_exp);
      buf.compute_reference(cublas());
      buf.reset_c();
      ASSERT_EQ(call(buf, nullptr, named(k)), Status::Success) << k.slug << ": " << last_error();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const ref::Verdict v = buf.verify(k.math);
      EXPECT_TRUE(v.pass) << k.slug << ", A 2^" << a_exp << ", B 2^" << b_exp << ": " << v.detail;
    }
}

// Tf32 near FLT_MAX: an operand that rounds to Inf as TF32 (bits >= 0x7F7FF000) gives what cuBLAS
// TF32 gives, element by element: Inf or NaN where cuBLAS has them, finite and close where not.
TEST(Extremes, Tf32NearFltMaxAsCublasTf32) {
  const ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 40, 36, 64, 1.0f, 0.0f};
  ref::CaseBuffers buf(c);
  buf.fill_random(8400);
  float huge, below;
  const std::uint32_t huge_bits = 0x7F7FF000u, below_bits = 0x7F7FEFFFu;
  std::memcpy(&huge, &huge_bits, 4);
  std::memcpy(&below, &below_bits, 4);
  buf.poke(0, 0, 0, huge);
  buf.poke(0, 1, 0, -huge);
  buf.poke(0, 2, 0, below);
  for (std::int64_t j = 0; j < c.n; ++j) buf.poke(1, 0, j, j % 2 ? 0.5f : -0.25f);
  const std::int64_t elements = c.m * c.n;
  std::vector<float> want(elements), got(elements);
  buf.reset_c();
  ASSERT_EQ(ref::cublas_sgemm(cublas(), buf.gemm_case(), buf.a(), buf.b(), buf.c(), true),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cudaMemcpy(want.data(), buf.c(), 4 * elements, cudaMemcpyDeviceToHost), cudaSuccess);
  auto compare = [&](const std::string& who) {
    ASSERT_EQ(cudaMemcpy(got.data(), buf.c(), 4 * elements, cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::int64_t e = 0; e < elements; ++e) {
      if (std::isnan(want[e]) || std::isinf(want[e])) {
        EXPECT_TRUE(std::isnan(want[e]) ? std::isnan(got[e]) : got[e] == want[e])
            << who << ": C element " << e << " is " << got[e] << ", cuBLAS TF32 " << want[e];
      } else {
        EXPECT_LE(std::fabs(got[e] - want[e]), 1e-2f * std::max(1.0f, std::fabs(want[e])))
            << who << ": C element " << e;
      }
    }
  };
  for (const KernelInfo& k : kernels()) {
    if (k.math != Math::Tf32) continue;
    buf.reset_c();
    const Status s = call(buf, nullptr, named(k));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_legal_status(s, std::string(k.slug));
    if (s == Status::Success) compare(std::string(k.slug));
  }
}

// A call leaves the caller's pending error in place: cudaGetLastError still returns it after.
TEST(Statuses, CallerPendingErrorKept) {
  const ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 300, 200, 100, 1.0f, 0.0f};
  ref::CaseBuffers buf(c);
  buf.fill_random(8500);
  buf.reset_c();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  for (Math math : built_maths()) {
    ASSERT_EQ(cudaSetDevice(count + 3), cudaErrorInvalidDevice);  // leaves a pending error
    Options o;
    o.math = math;
    EXPECT_EQ(call(buf, nullptr, o), Status::Success) << last_error();
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice) << "the caller's pending error was lost";
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// The workspace size a call reports is what it takes: with exactly that much of the caller's
// memory every kernel computes correctly; with less, a named kernel says so and touches nothing,
// and auto finds one that fits.
TEST(Statuses, CallerWorkspace) {
  std::uint64_t seed = 8600;
  for (const KernelInfo& k : kernels()) {
    ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 300, 200, 3000, 1.0f, 0.5f};
    ref::CaseBuffers buf(c);
    const ref::GemmCase& t = buf.gemm_case();
    Options o = named(k);
    std::size_t bytes = 0;
    const Status q = gemm_workspace_size(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(),
                                         t.lda, buf.b(), t.ldb, t.beta, buf.c(), t.ldc, &bytes,
                                         nullptr, o);
    expect_legal_status(q, std::string(k.slug));
    if (q != Status::Success) continue;
    buf.fill_random(seed++);
    buf.compute_reference(cublas());
    void* workspace = nullptr;
    ASSERT_EQ(cudaMalloc(&workspace, bytes + 256), cudaSuccess);
    o.workspace = workspace;
    o.workspace_bytes = bytes;
    buf.reset_c();
    ASSERT_EQ(call(buf, nullptr, o), Status::Success) << k.slug << ": " << last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const ref::Verdict v = buf.verify(k.math);
    EXPECT_TRUE(v.pass) << k.slug << " in " << bytes << " bytes of workspace: " << v.detail;
    if (bytes > 0) {
      o.workspace_bytes = bytes - 1;
      buf.reset_c();
      EXPECT_EQ(call(buf, nullptr, o), Status::NotSupported) << k.slug;
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_TRUE(buf.c_untouched()) << k.slug;
    }
    o.workspace = static_cast<char*>(workspace) + 4;  // misaligned
    o.workspace_bytes = bytes;
    EXPECT_EQ(call(buf, nullptr, o), Status::InvalidValue) << k.slug;
    cudaFree(workspace);
  }
}

// The pool keeps at most the cache limit of freed workspace after a synchronization, and
// release_workspace_cache gives back the rest.
TEST(Statuses, WorkspaceCacheTrims) {
  const ref::GemmCase c{Layout::RowMajor, Op::T, Op::N, 4096, 4096, 4096, 1.0f, 0.0f};
  ref::CaseBuffers buf(c);
  buf.fill_random(8700);
  std::size_t free_before, free_after, total;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(release_workspace_cache(), Status::Success);
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  set_workspace_cache_limit(0);
  Options o;
  o.math = Math::Fp32Tf32x3;
  ASSERT_EQ(call(buf, nullptr, o), Status::Success) << last_error();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_LE(free_before - std::min(free_before, free_after), std::size_t(32) << 20)
      << "the pool kept memory above a limit of 0";
  set_workspace_cache_limit(std::size_t(1) << 30);
}

// The same call on the same device gives the same bits, tail splits and their separate sums
// included, for every kernel and auto (the second, larger shape leaves out rungs 01-03, which
// would take seconds on it).
TEST(Determinism, BitIdenticalRuns) {
  std::uint64_t seed = 8800;
  for (const ref::GemmCase& c :
       {ref::GemmCase{Layout::RowMajor, Op::N, Op::N, 260, 600, 2900, -0.5f, 0.75f},
        ref::GemmCase{Layout::RowMajor, Op::N, Op::N, 2100, 2200, 2401, 1.0f, 0.0f}}) {
    const bool large = c.m > 1000;
    ref::CaseBuffers buf(c);
    buf.fill_random(seed++);
    const std::int64_t elements = ref::storage_c(buf.gemm_case()).elements();
    std::vector<std::uint32_t> first(elements), again(elements);
    auto run = [&](const Options& o, std::vector<std::uint32_t>& out) {
      buf.reset_c();
      const Status s = call(buf, nullptr, o);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      if (s == Status::Success)
        EXPECT_EQ(cudaMemcpy(out.data(), buf.c(), 4 * elements, cudaMemcpyDeviceToHost), cudaSuccess);
      return s;
    };
    std::vector<Options> options;
    for (const KernelInfo& k : kernels())
      if (!large || k.track != Track::Simt || k.rung >= 4) options.push_back(named(k));
    for (Math math : built_maths()) {
      Options o;
      o.math = math;
      options.push_back(o);
    }
    for (const Options& o : options) {
      if (run(o, first) != Status::Success) continue;
      ASSERT_EQ(run(o, again), Status::Success);
      EXPECT_EQ(std::memcmp(first.data(), again.data(), 4 * elements), 0)
          << o.kernel << " " << to_string(o.math) << " on " << ref::describe(c)
          << ": two runs differ";
    }
  }
}

// Several host threads, each on its own stream, in every math, all get correct results.
TEST(Threads, ConcurrentCallersEveryMath) {
  const std::vector<Math> maths = built_maths();
  constexpr int kThreads = 6;
  std::vector<std::unique_ptr<ref::CaseBuffers>> bufs;
  for (int i = 0; i < kThreads; ++i) {
    ref::GemmCase c{i % 2 ? Layout::ColMajor : Layout::RowMajor, Op::N, Op::T, 700 + 13 * i,
                    500 + 7 * i, 900, 1.0f, 0.0f};
    bufs.push_back(std::make_unique<ref::CaseBuffers>(c));
    bufs.back()->fill_random(8900 + i);
    bufs.back()->compute_reference(cublas());
    bufs.back()->reset_c();
  }
  std::vector<Status> results(kThreads, Status::Success);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      cudaStream_t s;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      Options o;
      o.math = maths[i % maths.size()];
      for (int rep = 0; rep < 8 && results[i] == Status::Success; ++rep)
        results[i] = call(*bufs[i], s, o);
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(results[i], Status::Success);
    const ref::Verdict v = bufs[i]->verify(maths[i % maths.size()]);
    EXPECT_TRUE(v.pass) << "thread " << i << ": " << v.detail;
  }
}

// A call runs on the device of its stream, whichever device is current, and leaves the current
// device as it was.
TEST(Devices, StreamDeviceNotCurrentDevice) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << count;
  for (Math math : built_maths()) {
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    const ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 1500, 1300, 1100, 1.0f, 0.0f};
    ref::CaseBuffers buf(c);  // on device 1
    buf.fill_random(9000);
    cublasHandle_t handle;
    ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
    buf.compute_reference(handle);
    cublasDestroy(handle);
    buf.reset_c();
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    Options o;
    o.math = math;
    ASSERT_EQ(call(buf, s, o), Status::Success) << last_error();
    int current = -1;
    ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(current, 0);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    const ref::Verdict v = buf.verify(math);
    EXPECT_TRUE(v.pass) << to_string(math) << ": " << v.detail;
    cudaStreamDestroy(s);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
}

}  // namespace
}  // namespace sgemm::test

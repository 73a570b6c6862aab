// gemm_strided_batched() for every registered kernel and for `auto` in every math: stacked,
// padded, broadcast and interleaved batches, checked matrix by matrix against a float64 CPU
// reference, with every float of C outside the batch's matrices left as it was.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.hpp"

namespace sgemm::test {
namespace {

struct BatchCase {
  Layout layout;
  Op op_a, op_b;
  std::int64_t m, n, k;
  float alpha, beta;
  std::int64_t lda, ldb, ldc;
  std::int64_t stride_a, stride_b, stride_c, batch;
  std::string what;
  float last_b_scale = 1.0f;  // scales the last matrix's B (subnormal values for 3xTF32's checks)
};

// Element (r, col) of a stored operand or result: row r, column col of op(X) as the call sees it.
std::int64_t at(Layout layout, Op op, std::int64_t r, std::int64_t col, std::int64_t ld) {
  const bool rows_contiguous = (layout == Layout::RowMajor) == (op == Op::N);
  return rows_contiguous ? r * ld + col : col * ld + r;
}

// Floats one stored matrix spans: `lines` lines of `length`, ld apart.
std::int64_t span_of(Layout layout, Op op, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  const bool rows_contiguous = (layout == Layout::RowMajor) == (op == Op::N);
  const std::int64_t lines = rows_contiguous ? rows : cols, length = rows_contiguous ? cols : rows;
  return (lines - 1) * ld + length;
}

std::int64_t buffer_size(std::int64_t span, std::int64_t stride, std::int64_t batch) {
  return (batch - 1) * stride + span;
}

// Tight leading dimensions rounded up to 4 and strides that keep every matrix 16-byte aligned,
// so that the float4 and TMA kernels take the cases; `gap` floats between stacked matrices.
BatchCase stacked(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                  std::int64_t k, std::int64_t batch, std::int64_t gap) {
  auto round4 = [](std::int64_t x) { return (x + 3) / 4 * 4; };
  const bool row = layout == Layout::RowMajor;
  BatchCase c{layout, op_a, op_b, m, n, k, 1.0f, 0.0f, 0, 0, 0, 0, 0, 0, batch, "stacked"};
  c.lda = round4(row == (op_a == Op::N) ? k : m);
  c.ldb = round4(row == (op_b == Op::N) ? n : k);
  c.ldc = round4(row ? n : m);
  c.stride_a = round4(span_of(layout, op_a, m, k, c.lda) + gap);
  c.stride_b = round4(span_of(layout, op_b, k, n, c.ldb) + gap);
  c.stride_c = round4(span_of(layout, Op::N, m, n, c.ldc) + gap);
  return c;
}

std::vector<BatchCase> batch_cases() {
  std::vector<BatchCase> cases;
  const Layout R = Layout::RowMajor, C = Layout::ColMajor;
  cases.push_back(stacked(R, Op::N, Op::N, 33, 17, 9, 5, 4));
  cases.push_back(stacked(R, Op::T, Op::N, 65, 130, 31, 3, 0));
  cases.push_back(stacked(C, Op::N, Op::T, 20, 31, 16, 4, 8));
  cases.push_back(stacked(C, Op::T, Op::T, 129, 7, 70, 2, 0));
  {  // B broadcast, A and C stacked: one product of batch * m rows (fold_batch)
    BatchCase c = stacked(R, Op::N, Op::T, 24, 40, 36, 6, 0);
    c.stride_a = c.m * c.lda, c.stride_b = 0, c.stride_c = c.m * c.ldc;
    c.what = "B broadcast, A and C stacked";
    cases.push_back(c);
  }
  {  // A broadcast, B and C interleaved within their rows: one product of batch * n columns
    BatchCase c = stacked(R, Op::N, Op::N, 37, 12, 20, 4, 0);
    c.ldb = c.ldc = c.n * c.batch;
    c.stride_a = 0, c.stride_b = c.n, c.stride_c = c.n;
    c.what = "A broadcast, B and C interleaved";
    cases.push_back(c);
  }
  {  // A broadcast, B and C stacked with a gap: no fold, matrix 0 of A for every product
    BatchCase c = stacked(R, Op::N, Op::T, 40, 36, 48, 3, 4);
    c.stride_a = 0;
    c.what = "A broadcast";
    cases.push_back(c);
  }
  {  // B broadcast, A and C stacked with a gap: no fold
    BatchCase c = stacked(R, Op::T, Op::N, 44, 20, 40, 3, 4);
    c.stride_b = 0;
    c.alpha = 1.5f, c.beta = -1.0f;
    c.what = "B broadcast, beta";
    cases.push_back(c);
  }
  {  // interleaved C (heads of one activation), each product its own: no fold
    BatchCase c = stacked(C, Op::N, Op::N, 16, 40, 24, 3, 0);
    c.ldc = c.m * c.batch;
    c.stride_c = c.m;
    c.alpha = -0.5f, c.beta = 0.75f;
    c.what = "C interleaved, beta";
    cases.push_back(c);
  }
  {  // unaligned strides: the float4 and TMA kernels must decline, the others compute it
    BatchCase c = stacked(R, Op::N, Op::N, 19, 23, 13, 3, 0);
    c.stride_a += 1, c.stride_b += 3, c.stride_c += 5;
    c.alpha = 2.0f, c.beta = 1.0f;
    c.what = "odd strides, beta 1";
    cases.push_back(c);
  }
  {  // C = beta * C only
    BatchCase c = stacked(R, Op::N, Op::N, 9, 11, 5, 3, 2);
    c.alpha = 0.0f, c.beta = -2.0f;
    c.what = "alpha 0";
    cases.push_back(c);
  }
  return cases;
}

std::string describe(const BatchCase& c) {
  return std::string(c.layout == Layout::RowMajor ? "RowMajor " : "ColMajor ") +
         (c.op_a == Op::N ? "N" : "T") + (c.op_b == Op::N ? "N " : "T ") + std::to_string(c.m) +
         "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " batch " +
         std::to_string(c.batch) + " strides (" + std::to_string(c.stride_a) + "," +
         std::to_string(c.stride_b) + "," + std::to_string(c.stride_c) + ") " + c.what;
}

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* d = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), host.size() * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
            cudaSuccess);
  return d;
}

// Runs the case; returns the call's status. On Success C is checked against the float64
// reference with the math's bound (docs/design.md, "Verification"); on any other status C must
// be untouched.
Status run_batch(const BatchCase& c, const Options& options, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const std::int64_t span_c = span_of(c.layout, Op::N, c.m, c.n, c.ldc);
  std::vector<float> a(buffer_size(span_of(c.layout, c.op_a, c.m, c.k, c.lda), c.stride_a, c.batch));
  std::vector<float> b(buffer_size(span_of(c.layout, c.op_b, c.k, c.n, c.ldb), c.stride_b, c.batch));
  std::vector<float> c0(buffer_size(span_c, c.stride_c, c.batch) + 4);
  for (float& x : a) x = uniform(rng);
  for (float& x : b) x = uniform(rng);
  for (float& x : c0) x = uniform(rng);
  for (std::int64_t e = (c.batch - 1) * c.stride_b; e < std::int64_t(b.size()); ++e)
    b[e] *= c.last_b_scale;
  float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c0);
  const Status s = gemm_strided_batched(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da,
                                        c.lda, c.stride_a, db, c.ldb, c.stride_b, c.beta, dc,
                                        c.ldc, c.stride_c, c.batch, nullptr, options);
  const std::string error(s == Status::Success ? "" : last_error());
  const cudaError_t sync = cudaDeviceSynchronize();
  EXPECT_EQ(sync, cudaSuccess) << cudaGetErrorString(sync) << " after " << options.kernel
                               << " on " << describe(c);
  if (sync != cudaSuccess) std::abort();  // a fault poisons the context for every later test
  std::vector<float> out(c0.size());
  EXPECT_EQ(cudaMemcpy(out.data(), dc, out.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(da), cudaFree(db), cudaFree(dc);
  if (s != Status::Success) {
    EXPECT_EQ(std::memcmp(out.data(), c0.data(), out.size() * 4), 0)
        << options.kernel << " returned " << to_string(s) << " and changed C on " << describe(c);
    return s;
  }

  const double u = ref::unit_roundoff(options.math), eta = ref::underflow_unit(options.math);
  std::vector<bool> inside(out.size(), false);
  std::int64_t bad = 0;
  std::string first;
  for (std::int64_t i = 0; i < c.batch; ++i)
    for (std::int64_t r = 0; r < c.m; ++r)
      for (std::int64_t col = 0; col < c.n; ++col) {
        double sum = 0, abs_sum = 0;
        for (std::int64_t p = 0; p < c.k; ++p) {
          const double x = a[i * c.stride_a + at(c.layout, c.op_a, r, p, c.lda)];
          const double y = b[i * c.stride_b + at(c.layout, c.op_b, p, col, c.ldb)];
          sum += x * y;
          abs_sum += std::abs(x * y);
        }
        const std::int64_t e = i * c.stride_c + at(c.layout, Op::N, r, col, c.ldc);
        inside[e] = true;
        const double c_in = c0[e];
        const double want = (c.alpha == 0 ? 0.0 : c.alpha * sum) + (c.beta == 0 ? 0.0 : c.beta * c_in);
        const double bound = (c.k + 2) * (u * (std::abs(c.alpha) * abs_sum + std::abs(c.beta * c_in)) +
                                          eta * (std::abs(c.alpha) + 1));
        if (!(std::abs(out[e] - want) <= bound) && bad++ == 0)
          first = "matrix " + std::to_string(i) + " (" + std::to_string(r) + ", " +
                  std::to_string(col) + "): " + std::to_string(out[e]) + ", float64 " +
                  std::to_string(want);
      }
  std::int64_t outside_changed = 0;
  for (std::size_t e = 0; e < out.size(); ++e)
    if (!inside[e] && std::memcmp(&out[e], &c0[e], 4) != 0) ++outside_changed;
  EXPECT_EQ(bad, 0) << options.kernel << " " << to_string(options.math) << " on " << describe(c)
                    << ": " << bad << " elements outside the bound, first " << first;
  EXPECT_EQ(outside_changed, 0) << options.kernel << " on " << describe(c) << " wrote "
                                << outside_changed << " floats outside the batch's matrices";
  return s;
}

class Batched : public ::testing::TestWithParam<std::string> {};

// A named kernel computes every case it accepts; a refusal must be NotSupported, must leave C
// as it was, and may come only from an unaligned stride or pointer (every case has aligned
// leading dimensions and in-range sizes).
TEST_P(Batched, Cases) {
  const std::string slug = GetParam();
  Options options;
  options.kernel = slug;
  for (const KernelInfo& k : kernels())
    if (k.slug == slug) options.math = k.math;
  std::uint64_t seed = 11;
  for (const BatchCase& c : batch_cases()) {
    const Status s = run_batch(c, options, seed++);
    EXPECT_TRUE(s == Status::Success || s == Status::NotSupported)
        << slug << " on " << describe(c) << ": " << to_string(s) << " " << last_error();
    const bool aligned = c.stride_a % 4 == 0 && c.stride_b % 4 == 0 && c.stride_c % 4 == 0;
    if (s == Status::NotSupported && aligned && c.alpha != 0.0f) {
      std::string why;
      const Problem first{c.layout, c.op_a, c.op_b, c.m, c.n, c.k, nullptr, c.lda,
                          nullptr,  c.ldb,  nullptr, c.ldc};
      bool declines_one = false;
      for (const KernelInfo& k : kernels())
        if (k.slug == slug) declines_one = !k.supports(first, &why);
      EXPECT_TRUE(declines_one) << slug << " declined the batch " << describe(c)
                                << " but supports its matrices one by one: " << last_error();
    }
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Batched, ::testing::ValuesIn(all_slugs()), test_name);

// `auto` takes every case in every math.
TEST(AutoBatched, EveryMath) {
  std::uint64_t seed = 101;
  for (Math math : built_maths()) {
    Options options;
    options.math = math;
    for (const BatchCase& c : batch_cases()) {
      EXPECT_EQ(run_batch(c, options, seed++), Status::Success)
          << "auto " << to_string(math) << " on " << describe(c) << ": " << last_error();
      if (HasFailure()) return;
    }
  }
}

// Many small matrices: the natively batched kernels' grids, against the same reference.
TEST(AutoBatched, ManySmallMatrices) {
  for (Math math : built_maths()) {
    Options options;
    options.math = math;
    BatchCase c = stacked(Layout::RowMajor, Op::N, Op::T, 32, 48, 40, 700, 0);
    run_batch(c, options, 7);
    if (HasFailure()) return;
  }
}

// 3xTF32 cannot split subnormal values (the tensor cores flush them): a batch whose last matrix
// of B holds only such values must still be computed within the bound, by the FP32 fallback,
// whether the tile kernel checks B itself (beta 0) or a scan does (beta != 0).
TEST(AutoBatched, Tf32x3UnsplittableInLastMatrix) {
  for (const char* kernel : {"auto", "tc-03-wgmma-rs-tf32x3"})
    for (float beta : {0.0f, 0.5f}) {
      Options options;
      options.math = Math::Fp32Tf32x3;
      options.kernel = kernel;
      BatchCase c = stacked(Layout::RowMajor, Op::N, Op::N, 64, 64, 64, 3, 0);
      c.beta = beta;
      c.last_b_scale = 1e-39f;
      c.what = "subnormal B in the last matrix";
      const Status s = run_batch(c, options, 23);
      if (s == Status::NotSupported) continue;  // a kernel not built for this device
      EXPECT_EQ(s, Status::Success) << kernel << ": " << last_error();
      if (HasFailure()) return;
    }
}

// A strided batch inside a CUDA graph: the batched grid (many small matrices) and the per-matrix
// launches of a non-batched kernel (large ones), replayed twice against the reference.
TEST(AutoBatched, GraphCapture) {
  const BatchCase cases[] = {stacked(Layout::RowMajor, Op::N, Op::T, 48, 40, 24, 64, 0),
                             stacked(Layout::RowMajor, Op::N, Op::N, 1536, 1536, 64, 2, 0)};
  for (Math math : built_maths())
    for (const BatchCase& c : cases) {
      SCOPED_TRACE(describe(c) + " " + to_string(math));
      std::mt19937_64 rng(9);
      std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
      std::vector<float> a(buffer_size(span_of(c.layout, c.op_a, c.m, c.k, c.lda), c.stride_a, c.batch));
      std::vector<float> b(buffer_size(span_of(c.layout, c.op_b, c.k, c.n, c.ldb), c.stride_b, c.batch));
      for (float& x : a) x = uniform(rng);
      for (float& x : b) x = uniform(rng);
      const std::int64_t c_size = buffer_size(span_of(c.layout, Op::N, c.m, c.n, c.ldc), c.stride_c, c.batch);
      float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(std::vector<float>(c_size));
      cudaStream_t stream;
      ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
      Options options;
      options.math = math;
      cudaGraph_t graph = nullptr;
      ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
      const Status s = gemm_strided_batched(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, 1.0f, da,
                                            c.lda, c.stride_a, db, c.ldb, c.stride_b, 0.0f, dc,
                                            c.ldc, c.stride_c, c.batch, stream, options);
      const std::string message(s == Status::Success ? "" : last_error());
      ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
      ASSERT_EQ(s, Status::Success) << message;
      cudaGraphExec_t exec = nullptr;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
      // The graph's result against an eager call of the same product (checked against float64
      // by AutoBatched.EveryMath): both must be the same bits, the library being deterministic.
      float* eager = device_copy(std::vector<float>(c_size));
      ASSERT_EQ(gemm_strided_batched(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, 1.0f, da, c.lda,
                                     c.stride_a, db, c.ldb, c.stride_b, 0.0f, eager, c.ldc,
                                     c.stride_c, c.batch, stream, options),
                Status::Success);
      std::vector<float> want(c_size), got(c_size);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(want.data(), eager, 4 * c_size, cudaMemcpyDeviceToHost), cudaSuccess);
      for (int r = 0; r < 2; ++r) {
        ASSERT_EQ(cudaMemset(dc, 0xff, 4 * c_size), cudaSuccess);
        ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(got.data(), dc, 4 * c_size, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), 4 * c_size), 0) << "replay " << r;
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
      cudaStreamDestroy(stream);
      cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(eager);
      if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace sgemm::test

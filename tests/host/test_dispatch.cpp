// auto's choices, pinned: for a table of calls on an H100 (detail::kH100, no GPU needed), the
// kernel `auto` picks in each math, compared with tests/host/dispatch_golden.tsv. A change of the
// dispatch policy shows up as a diff of that file: regenerate it with
//   SGEMM_UPDATE_DISPATCH_GOLDEN=1 build/release/tests/sgemm-host-tests --gtest_filter='Dispatch.*'
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/registry.hpp"
#include "dispatch/dispatch.hpp"

namespace sgemm {
namespace {

struct Call {
  Layout layout;
  Op op_a, op_b;
  std::int64_t m, n, k;
  bool aligned = true;  // A, B, C 16-byte aligned with leading dimensions multiples of 4
  std::int64_t batch = 1;  // a strided batch of matrices one after another
};

std::vector<Call> calls() {
  std::vector<Call> v;
  const Layout row = Layout::RowMajor, col = Layout::ColMajor;
  for (std::int64_t s : {256, 512, 1024, 2048, 4096, 8192, 16384}) v.push_back({row, Op::N, Op::N, s, s, s});
  for (std::int64_t s : {2048, 4096, 8192, 16384}) v.push_back({row, Op::N, Op::N, s, s, 1024});
  for (std::int64_t m : {1, 2, 4, 8, 16, 32, 64})
    for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{4096, 4096}, {11008, 4096}, {4096, 11008}, {28672, 4096}})
      v.push_back({row, Op::N, Op::T, m, n, k});
  for (std::int64_t s : {32, 64, 128, 256}) {
    v.push_back({row, Op::N, Op::N, 8192, s, 8192});
    v.push_back({row, Op::N, Op::N, s, 8192, 8192});
  }
  for (std::int64_t s : {32, 64, 128, 256}) v.push_back({row, Op::N, Op::N, s, s, 65536});
  v.push_back({row, Op::N, Op::T, 32, 32, 65536});  // both K-major: rung 14 in Fp32
  v.push_back({row, Op::N, Op::N, 128, 64, 128, true, 512});  // rung 15's tiles pad less
  v.push_back({row, Op::N, Op::N, 4095, 4097, 4093});
  v.push_back({row, Op::N, Op::N, 4095, 4097, 4093, false});
  v.push_back({row, Op::N, Op::N, 1000, 999, 1001, false});
  for (Layout l : {row, col})
    for (Op a : {Op::N, Op::T})
      for (Op b : {Op::N, Op::T}) v.push_back({l, a, b, 4096, 4096, 4096});
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 1, 1}, {7, 13, 11}, {64, 64, 64}, {128, 128, 128}, {512, 512, 128}})
    v.push_back({row, Op::N, Op::N, m, n, k});
  v.push_back({row, Op::N, Op::N, 128, 128, std::int64_t(1) << 22});
  v.push_back({row, Op::N, Op::N, 1, 64, 4096});
  // Strided batches: attention-like, many small matrices, large matrices.
  for (auto [b, m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>{64, 197, 768, 768},
                            {512, 128, 128, 64}, {96, 512, 64, 512}, {1024, 64, 64, 64}, {4096, 16, 16, 16},
                            {32, 1024, 1024, 1024}, {16, 2048, 2048, 2048}})
    v.push_back({row, Op::N, Op::N, m, n, k, true, b});
  return v;
}

std::string describe(const Call& c) {
  std::ostringstream o;
  o << (c.layout == Layout::RowMajor ? "row" : "col") << ' ' << (c.op_a == Op::N ? 'N' : 'T')
    << (c.op_b == Op::N ? 'N' : 'T') << ' ' << c.m << 'x' << c.n << 'x' << c.k
    << (c.aligned ? "" : " unaligned") << (c.batch > 1 ? " batch " + std::to_string(c.batch) : "");
  return o.str();
}

// The problem as gemm() hands it to the dispatch, with tight leading dimensions (rounded up to
// multiples of 4 for aligned calls) and fake device pointers.
detail::Canonical canonical(const Call& c) {
  const bool row = c.layout == Layout::RowMajor;
  auto lead = [&](std::int64_t rows, std::int64_t cols) {  // the stored extent along ld
    const std::int64_t l = std::max<std::int64_t>(1, row ? cols : rows);
    return c.aligned ? (l + 3) / 4 * 4 : l | 1;
  };
  const std::int64_t lda = c.op_a == Op::N ? lead(c.m, c.k) : lead(c.k, c.m);
  const std::int64_t ldb = c.op_b == Op::N ? lead(c.k, c.n) : lead(c.n, c.k);
  const std::int64_t ldc = lead(c.m, c.n);
  const auto base = std::uintptr_t(1) << 30;
  const auto* a = reinterpret_cast<const float*>(base + (c.aligned ? 0 : 4));
  const Problem p{c.layout, c.op_a, c.op_b, c.m, c.n, c.k, a, lda, a, ldb, const_cast<float*>(a), ldc};
  detail::Canonical q = detail::to_canonical(p, 1.0f, 0.0f);
  if (c.batch > 1) {  // matrices one after another (row-major, as the batch rows are)
    q.batch = c.batch;
    q.stride_a = q.m * q.lda, q.stride_b = q.k * q.ldb, q.stride_c = q.m * q.ldc;
  }
  return q;
}

std::string golden_path() { return std::string(SGEMM_SOURCE_DIR) + "/tests/host/dispatch_golden.tsv"; }

std::string current_table() {
  std::ostringstream out;
  out << "call\tfp32\ttf32x3\ttf32\n";
  for (const Call& c : calls()) {
    out << describe(c);
    for (Math math : {Math::Fp32, Math::Fp32Tf32x3, Math::Tf32}) {
      Options o;
      o.math = math;
      detail::Decision d;
      std::string message;
      const Status s = detail::choose(canonical(c), o, detail::kH100, SIZE_MAX, &d, &message);
      if (s != Status::Success) out << "\tERROR " << message;
      else out << '\t' << d.kernel->info.slug;
      if (s == Status::Success && d.k_ranges > 1) out << " in " << d.k_ranges << " k ranges";
      if (s == Status::Success && d.staged) out << " on aligned copies";
    }
    out << '\n';
  }
  return out.str();
}

TEST(Dispatch, GoldenChoicesOnH100) {
  const std::string table = current_table();
  if (std::getenv("SGEMM_UPDATE_DISPATCH_GOLDEN")) {
    std::ofstream(golden_path()) << table;
    GTEST_SKIP() << "wrote " << golden_path();
  }
  std::ifstream in(golden_path());
  ASSERT_TRUE(in) << "missing " << golden_path();
  std::stringstream golden;
  golden << in.rdbuf();
  std::istringstream want(golden.str()), got(table);
  for (int line = 1; want || got; ++line) {
    std::string w, g;
    std::getline(want, w);
    std::getline(got, g);
    EXPECT_EQ(g, w) << "line " << line << " of " << golden_path()
                    << " (a policy change? regenerate it as the file's header comment says)";
  }
}

// `auto` finds a kernel for every legal call in every math, whatever the alignment, shape or k,
// also where no tensor-core or TMA kernel can run (a device without them).
// A batch that is one larger product runs as that product.
TEST(Batch, FoldsStackedAndSideBySideBatches) {
  detail::Canonical p{};
  p.m = 16, p.n = 64, p.k = 32, p.lda = 32, p.ldb = 32, p.ldc = 64;
  p.a_k_major = true, p.b_k_major = true;
  p.batch = 8, p.stride_a = 16 * 32, p.stride_b = 0, p.stride_c = 16 * 64;
  detail::Canonical q = detail::fold_batch(p);
  EXPECT_EQ(q.batch, 1);
  EXPECT_EQ(q.m, 128);  // 8 stacked 16-row matrices
  p.stride_b = 64 * 32;  // B no longer shared: eight products
  EXPECT_EQ(detail::fold_batch(p).batch, 8);
  // A shared; B (N-major) and C interleaved within their rows.
  p.stride_a = 0, p.b_k_major = false, p.ldb = 8 * 64, p.ldc = 8 * 64, p.stride_b = 64,
  p.stride_c = 64;
  q = detail::fold_batch(p);
  EXPECT_EQ(q.batch, 1);
  EXPECT_EQ(q.n, 8 * 64);
  p.ldb = 64;  // B's rows cannot hold eight matrices side by side: no fold
  EXPECT_EQ(detail::fold_batch(p).batch, 8);
}

// Many small matrices go to a kernel that runs them in one launch; matrices that fill the GPU
// alone go to the single-call kernels, launched once each, in FP32 (tc-03, which runs a batch in
// one persistent launch, takes both in the tensor-core maths).
TEST(Batch, AutoChoosesByMatrixSize) {
  auto chosen = [](std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, Math math) {
    const Call c{Layout::RowMajor, Op::N, Op::N, m, n, k};
    detail::Canonical p = canonical(c);
    p.batch = batch;
    p.stride_a = m * p.lda, p.stride_b = k * p.ldb, p.stride_c = m * p.ldc;
    Options o;
    o.math = math;
    detail::Decision d;
    std::string message;
    EXPECT_EQ(detail::choose(p, o, detail::kH100, SIZE_MAX, &d, &message), Status::Success) << message;
    return d.kernel ? d.kernel->batched : false;
  };
  for (Math math : {Math::Fp32, Math::Fp32Tf32x3, Math::Tf32}) {
    EXPECT_TRUE(chosen(128, 128, 64, 512, math)) << to_string(math);
    EXPECT_TRUE(chosen(197, 768, 768, 64, math)) << to_string(math);
    EXPECT_EQ(chosen(2048, 2048, 2048, 16, math), math != Math::Fp32) << to_string(math);
  }
}

TEST(Dispatch, AutoAlwaysFindsAKernel) {
  detail::Device old_gpu{0, 75, 40, false, 64 * 1024};
  for (const detail::Device& device : {detail::kH100, old_gpu})
    for (Call c : calls())
      for (bool aligned : {true, false}) {
        c.aligned = aligned;
        for (Math math : {Math::Fp32, Math::Fp32Tf32x3, Math::Tf32}) {
          Options o;
          o.math = math;
          detail::Decision d;
          std::string message;
          EXPECT_EQ(detail::choose(canonical(c), o, device, SIZE_MAX, &d, &message), Status::Success)
              << describe(c) << " " << to_string(math) << ": " << message;
        }
      }
}

// With a caller's workspace too small for the fastest kernel, auto passes it over for one that
// fits, and a named kernel says how much it needs.
TEST(Dispatch, WorkspaceLimit) {
  const detail::Canonical p = canonical({Layout::RowMajor, Op::N, Op::N, 8192, 8192, 8192});
  Options o;
  o.math = Math::Fp32Tf32x3;
  detail::Decision full, none;
  std::string message;
  ASSERT_EQ(detail::choose(p, o, detail::kH100, SIZE_MAX, &full, &message), Status::Success);
  ASSERT_GT(full.workspace_bytes, 0u);
  ASSERT_EQ(detail::choose(p, o, detail::kH100, 0, &none, &message), Status::Success) << message;
  EXPECT_EQ(none.workspace_bytes, 0u);
  EXPECT_NE(none.kernel, full.kernel);
  o.kernel = full.kernel->info.slug;
  EXPECT_EQ(detail::choose(p, o, detail::kH100, 1024, &none, &message), Status::NotSupported);
  EXPECT_NE(message.find("workspace"), std::string::npos) << message;
}

// A kernel that hands calls over gets a handoff that honours run_if and supports the call.
TEST(Dispatch, HandoffsSupportTheCall) {
  for (const Call& c : calls())
    for (Math math : {Math::Fp32Tf32x3, Math::Tf32}) {
      Options o;
      o.math = math;
      detail::Decision d;
      std::string message;
      ASSERT_EQ(detail::choose(canonical(c), o, detail::kH100, SIZE_MAX, &d, &message), Status::Success);
      if (!d.kernel->needs_handoff) continue;
      ASSERT_NE(d.handoff, nullptr) << describe(c);
      EXPECT_TRUE(d.handoff->accepts_run_if) << d.handoff->info.slug;
      EXPECT_TRUE(d.handoff->why_not(canonical(c), detail::kH100).empty()) << d.handoff->info.slug;
    }
}

}  // namespace
}  // namespace sgemm

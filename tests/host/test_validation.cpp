// Argument validation and the reference-BLAS quick returns, without a GPU: an invalid call must
// be refused before any CUDA call, so these pass on a machine that has none.
#include <gtest/gtest.h>

#include "api/gemm.hpp"
#include "sgemm/sgemm.h"
#include "sgemm/sgemm.hpp"

namespace sgemm {
namespace {

// Distinct non-null fake device pointers: validation never dereferences them.
const float* const kA = reinterpret_cast<const float*>(0x1000);
const float* const kB = reinterpret_cast<const float*>(0x2000);
float* const kC = reinterpret_cast<float*>(0x3000);

struct Call {
  Layout layout = Layout::RowMajor;
  Op op_a = Op::N, op_b = Op::N;
  std::int64_t m = 4, n = 5, k = 6;
  float alpha = 1, beta = 0;
  const float* a = kA;
  std::int64_t lda = 6;
  const float* b = kB;
  std::int64_t ldb = 5;
  float* c = kC;
  std::int64_t ldc = 5;
  Options options{};
  Status run() const {
    return gemm(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nullptr, options);
  }
};

void expect_invalid(const Call& call, const std::string& names) {
  EXPECT_EQ(call.run(), Status::InvalidValue);
  EXPECT_NE(last_error().find(names), std::string_view::npos)
      << "message '" << last_error() << "' does not name " << names;
}

TEST(Validation, NegativeSizes) {
  Call c;
  c.m = -1;
  expect_invalid(c, "m = -1");
  c = {};
  c.n = -3;
  expect_invalid(c, "n = -3");
  c = {};
  c.k = -2;
  expect_invalid(c, "k = -2");
}

// Leading dimensions follow BLAS (column-major) and CBLAS (row-major): at least max(1, extent of
// the contiguous dimension of the matrix as stored).
TEST(Validation, LeadingDimensionsRowMajor) {
  Call c;  // A 4x6 (lda >= 6), B 6x5 (ldb >= 5), C 4x5 (ldc >= 5)
  c.lda = 5;
  expect_invalid(c, "lda = 5");
  c = {};
  c.ldb = 4;
  expect_invalid(c, "ldb = 4");
  c = {};
  c.ldc = 4;
  expect_invalid(c, "ldc = 4");
  c = {};
  c.op_a = Op::T;  // A stored 6x4: lda >= 4
  c.lda = 4;
  c.options.kernel = "no-such-kernel";  // passes validation, then fails on the name
  EXPECT_EQ(c.run(), Status::InvalidValue);
  EXPECT_NE(last_error().find("options.kernel"), std::string_view::npos) << last_error();
  c.lda = 3;
  expect_invalid(c, "lda = 3");
  c = {};
  c.op_b = Op::T;  // B stored 5x6: ldb >= 6
  c.ldb = 5;
  expect_invalid(c, "ldb = 5");
}

TEST(Validation, LeadingDimensionsColMajor) {
  Call c;
  c.layout = Layout::ColMajor;  // A 4x6: lda >= 4; B 6x5: ldb >= 6; C 4x5: ldc >= 4
  c.lda = 3;
  c.ldb = 6;
  c.ldc = 4;
  expect_invalid(c, "lda = 3");
  c.lda = 4;
  c.ldb = 5;
  expect_invalid(c, "ldb = 5");
  c.ldb = 6;
  c.ldc = 3;
  expect_invalid(c, "ldc = 3");
  c.ldc = 4;
  c.op_a = Op::T;  // A stored 6x4: lda >= 6
  expect_invalid(c, "lda = 4");
}

TEST(Validation, LeadingDimensionAtLeastOneForEmptyMatrices) {
  Call c;
  c.m = 0;
  c.lda = 0;  // even an empty matrix needs ld >= 1
  expect_invalid(c, "lda = 0");
}

TEST(Validation, NullPointersOnlyWhereRead) {
  Call c;
  c.a = nullptr;
  expect_invalid(c, "a is null");
  c = {};
  c.b = nullptr;
  expect_invalid(c, "b is null");
  c = {};
  c.c = nullptr;
  expect_invalid(c, "c is null");
  c = {};
  c.m = 0;  // nothing to do: no pointer is read
  c.a = nullptr;
  c.b = nullptr;
  c.c = nullptr;
  EXPECT_EQ(c.run(), Status::Success);
}

TEST(Validation, EnumsOutOfRange) {
  Call c;
  c.layout = static_cast<Layout>(7);
  expect_invalid(c, "layout");
  c = {};
  c.op_a = static_cast<Op>(2);
  expect_invalid(c, "op_a");
  c = {};
  c.op_b = static_cast<Op>(-1);
  expect_invalid(c, "op_b");
  c = {};
  c.options.math = static_cast<Math>(9);
  expect_invalid(c, "options.math");
}

TEST(Validation, KernelNameAndMathMustAgree) {
  Call c;
  c.options.kernel = "simt-01-naive";
  c.options.math = Math::Tf32;
  expect_invalid(c, "options.kernel");
}

// Reference BLAS: m or n == 0 does nothing; alpha == 0 or k == 0 scales C (nothing at all when
// beta == 1); everything else multiplies.
TEST(QuickReturn, Plan) {
  using detail::plan;
  using detail::Work;
  EXPECT_EQ(plan(0, 5, 5, 1, 0), Work::None);
  EXPECT_EQ(plan(5, 0, 5, 1, 0), Work::None);
  EXPECT_EQ(plan(5, 5, 0, 1, 1), Work::None);
  EXPECT_EQ(plan(5, 5, 5, 0, 1), Work::None);
  EXPECT_EQ(plan(5, 5, 0, 1, 0), Work::ScaleC);
  EXPECT_EQ(plan(5, 5, 0, 1, 0.5f), Work::ScaleC);
  EXPECT_EQ(plan(5, 5, 5, 0, 0), Work::ScaleC);
  EXPECT_EQ(plan(5, 5, 5, 0, 2), Work::ScaleC);
  EXPECT_EQ(plan(5, 5, 5, 1, 0), Work::Multiply);
  EXPECT_EQ(plan(1, 1, 1, -0.5f, 0.75f), Work::Multiply);
}

// A valid call with nothing to do succeeds without touching the device (none here).
TEST(QuickReturn, NothingToDoNeedsNoDevice) {
  Call c;
  c.n = 0;
  EXPECT_EQ(c.run(), Status::Success);
  c = {};
  c.alpha = 0;
  c.beta = 1;
  EXPECT_EQ(c.run(), Status::Success);
}

// The canonical form: a column-major C is the row-major C^T = op(B)^T op(A)^T.
TEST(Canonical, LayoutMapping) {
  using detail::to_canonical;
  Problem p{Layout::RowMajor, Op::N, Op::T, 4, 5, 6, kA, 6, kB, 6, kC, 5};
  auto r = to_canonical(p, 2, 3);
  EXPECT_EQ(r.m, 4);
  EXPECT_EQ(r.n, 5);
  EXPECT_EQ(r.a, kA);
  EXPECT_TRUE(r.a_k_major);   // row-major A, op N: A(i, p) = a[i * lda + p]
  EXPECT_TRUE(r.b_k_major);   // row-major B stored n x k (op T): B(p, j) = b[j * ldb + p]
  EXPECT_EQ(r.alpha, 2);
  EXPECT_EQ(r.beta, 3);
  p.layout = Layout::ColMajor;
  p.op_a = Op::N;
  p.op_b = Op::N;
  auto c = to_canonical(p);
  EXPECT_EQ(c.m, 5);  // C^T is n x m
  EXPECT_EQ(c.n, 4);
  EXPECT_EQ(c.a, kB);
  EXPECT_TRUE(c.a_k_major);   // B^T(j, p) = b[p + j * ldb]
  EXPECT_EQ(c.b, kA);
  EXPECT_FALSE(c.b_k_major);  // A^T(p, i) = a[i + p * lda]
}

TEST(CApi, MirrorsTheCppApi) {
  EXPECT_EQ(sgemm_gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 4, 5, 6, 1.0f, kA, 5, kB, 5, 0.0f,
                       kC, 5, nullptr, nullptr, SGEMM_MATH_FP32),
            SGEMM_INVALID_VALUE);
  EXPECT_NE(std::string(sgemm_last_error()).find("lda = 5"), std::string::npos);
  EXPECT_STREQ(sgemm_status_string(SGEMM_NOT_SUPPORTED), "NotSupported");
  EXPECT_EQ(sgemm_gemm(SGEMM_COL_MAJOR, SGEMM_OP_T, SGEMM_OP_T, 0, 5, 6, 1.0f, nullptr, 6, nullptr,
                       5, 0.0f, nullptr, 1, nullptr, "auto", SGEMM_MATH_FP32),
            SGEMM_SUCCESS);
}

// gemm_strided_batched's own arguments, checked before any CUDA call.
Status batched(std::int64_t stride_a, std::int64_t stride_b, std::int64_t stride_c,
               std::int64_t batch, std::int64_t ldc = 5, Layout layout = Layout::RowMajor) {
  // m = 4, n = 5, k = 6 with tight leading dimensions for the layout.
  const bool row = layout == Layout::RowMajor;
  return gemm_strided_batched(layout, Op::N, Op::N, 4, 5, 6, 1.0f, kA, row ? 6 : 4, stride_a, kB,
                              row ? 5 : 6, stride_b, 0.0f, kC, ldc, stride_c, batch);
}

TEST(Batched, ArgumentsChecked) {
  EXPECT_EQ(batched(24, 30, 20, -1), Status::InvalidValue);
  EXPECT_NE(last_error().find("batch = -1"), std::string_view::npos) << last_error();
  EXPECT_EQ(batched(-24, 30, 20, 2), Status::InvalidValue);
  EXPECT_NE(last_error().find("stride_a"), std::string_view::npos) << last_error();
  EXPECT_EQ(batched(24, -1, 20, 2), Status::InvalidValue);
  EXPECT_EQ(batched(24, 30, -20, 2), Status::InvalidValue);
  EXPECT_EQ(batched(24, 30, 20, 0), Status::Success);  // nothing to do, no device needed
}

TEST(Batched, OverlappingCRejected) {
  // A row-major 4 x 5 C with ldc 5 spans 20 floats: a stride of 19 overlaps the next matrix.
  EXPECT_EQ(batched(24, 30, 19, 2), Status::InvalidValue);
  EXPECT_NE(last_error().find("overlap"), std::string_view::npos) << last_error();
  EXPECT_EQ(batched(24, 30, 0, 2), Status::InvalidValue);  // every product into one C
  // Interleaved within the rows: ldc 15 holds three 5-wide rows side by side.
  std::string message;
  EXPECT_EQ(detail::validate_batch(Layout::RowMajor, 4, 5, 15, 0, 0, 5, 3, &message),
            Status::Success);
  EXPECT_EQ(detail::validate_batch(Layout::RowMajor, 4, 5, 15, 0, 0, 5, 4, &message),
            Status::InvalidValue);  // the fourth would run past ldc into the next row
  EXPECT_EQ(detail::validate_batch(Layout::RowMajor, 4, 5, 15, 0, 0, 4, 3, &message),
            Status::InvalidValue);  // 4 apart: 5-wide rows overlap
  // Column-major: 5 columns of 4, ldc 4: one matrix spans 20 floats.
  EXPECT_EQ(detail::validate_batch(Layout::ColMajor, 4, 5, 4, 0, 0, 20, 2, &message),
            Status::Success);
  EXPECT_EQ(detail::validate_batch(Layout::ColMajor, 4, 5, 4, 0, 0, 19, 2, &message),
            Status::InvalidValue);
  // A and B may be shared (stride 0), and one matrix has nothing to overlap.
  EXPECT_EQ(detail::validate_batch(Layout::RowMajor, 4, 5, 5, 0, 0, 0, 1, &message),
            Status::Success);
}

TEST(Batched, OverlapTestDoesNotWrap) {
  // (batch - 1) * stride_c = 2^64: in 64 bits it wraps to 0 and "interleaves" within ldc.
  std::string message;
  EXPECT_EQ(detail::validate_batch(Layout::RowMajor, 2, 1, std::int64_t(1) << 40, 0, 0,
                                   std::int64_t(1) << 31, (std::int64_t(1) << 33) + 1, &message),
            Status::InvalidValue);
}

TEST(Batched, CApiMirrors) {
  EXPECT_EQ(sgemm_gemm_strided_batched(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 4, 5, 6, 1.0f, kA,
                                       6, 24, kB, 5, 30, 0.0f, kC, 5, 10, 2, nullptr, nullptr,
                                       SGEMM_MATH_FP32),
            SGEMM_INVALID_VALUE);
  EXPECT_NE(std::string(sgemm_last_error()).find("overlap"), std::string::npos);
}

TEST(Status, Strings) {
  EXPECT_STREQ(to_string(Status::Success), "Success");
  EXPECT_STREQ(to_string(Status::InvalidValue), "InvalidValue");
  EXPECT_STREQ(to_string(Status::OutOfMemory), "OutOfMemory");
  EXPECT_STREQ(to_string(Math::Fp32Tf32x3), "Fp32Tf32x3");
}

}  // namespace
}  // namespace sgemm

// The CPU reference against a plain triple loop, in every layout and op combination.
#include <gtest/gtest.h>

#include <random>

#include "reference/cpu_reference.hpp"

namespace sgemm::ref {
namespace {

TEST(CpuReference, MatchesTripleLoopEverywhere) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
    for (Op oa : {Op::N, Op::T})
      for (Op ob : {Op::N, Op::T})
        for (auto [alpha, beta] : {std::pair(1.0f, 0.0f), std::pair(-0.5f, 0.75f), std::pair(0.0f, 2.0f)}) {
          GemmCase c{layout, oa, ob, 37, 70, 301, alpha, beta};
          c.lda = storage_a(c).ld + 3;  // padded
          c = with_tight_lds(c);
          std::vector<float> a(storage_a(c).elements()), b(storage_b(c).elements()), c0(storage_c(c).elements());
          for (auto* v : {&a, &b, &c0})
            for (float& x : *v) x = dist(rng);
          const std::vector<double> got = cpu_gemm(c, a.data(), b.data(), c0.data(), 3);
          auto A = [&](std::int64_t i, std::int64_t p) {
            const bool t = oa == Op::T;
            const std::int64_t r = t ? p : i, col = t ? i : p;
            return double(layout == Layout::RowMajor ? a[r * c.lda + col] : a[r + col * c.lda]);
          };
          auto B = [&](std::int64_t p, std::int64_t j) {
            const bool t = ob == Op::T;
            const std::int64_t r = t ? j : p, col = t ? p : j;
            return double(layout == Layout::RowMajor ? b[r * c.ldb + col] : b[r + col * c.ldb]);
          };
          for (std::int64_t i = 0; i < c.m; ++i)
            for (std::int64_t j = 0; j < c.n; ++j) {
              double sum = 0;
              for (std::int64_t p = 0; p < c.k; ++p) sum += A(i, p) * B(p, j);
              const std::int64_t at = layout == Layout::RowMajor ? i * c.ldc + j : i + j * c.ldc;
              const double want = (alpha == 0 ? 0.0 : alpha * sum) + (beta == 0 ? 0.0 : beta * double(c0[at]));
              ASSERT_NEAR(got[at], want, 1e-12) << describe(c) << " at (" << i << "," << j << ")";
            }
        }
}

// beta == 0 never reads C: NaN there does not leak.
TEST(CpuReference, BetaZeroIgnoresC) {
  GemmCase c = with_tight_lds({Layout::RowMajor, Op::N, Op::N, 5, 6, 7, 1.0f, 0.0f});
  std::vector<float> a(35, 1.0f), b(42, 2.0f), c0(30, std::numeric_limits<float>::quiet_NaN());
  for (double v : cpu_gemm(c, a.data(), b.data(), c0.data())) EXPECT_EQ(v, 14.0);
}

}  // namespace
}  // namespace sgemm::ref

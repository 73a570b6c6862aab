// The CPU path of last resort, for a machine without a system BLAS: reference SGEMM's loops in
// its order of operations, so that results round as netlib's do.
#include <cstddef>

#include "blas/paths.hpp"

namespace sgemm_blas {

void reference_sgemm(const Call& call) noexcept {
  const auto [trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc] = call;
  auto A = [&](int i, int l) { return a[i + std::size_t(l) * lda]; };
  auto B = [&](int l, int j) { return b[l + std::size_t(j) * ldb]; };
  auto C = [&](int i, int j) -> float& { return c[i + std::size_t(j) * ldc]; };

  if (alpha == 0.0f) {  // neither A nor B is read; beta == 0 clears C even where it holds NaN
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) C(i, j) = beta == 0.0f ? 0.0f : beta * C(i, j);
    return;
  }
  for (int j = 0; j < n; ++j) {
    if (!trans_a) {  // C(:, j) = beta * C(:, j) + sum over l of (alpha * op(B)(l, j)) * A(:, l)
      if (beta != 1.0f)
        for (int i = 0; i < m; ++i) C(i, j) = beta == 0.0f ? 0.0f : beta * C(i, j);
      for (int l = 0; l < k; ++l) {
        const float temp = alpha * (trans_b ? B(j, l) : B(l, j));
        for (int i = 0; i < m; ++i) C(i, j) += temp * A(i, l);
      }
    } else {  // C(i, j) = alpha * (column i of A . column j of op(B)) + beta * C(i, j)
      for (int i = 0; i < m; ++i) {
        float temp = 0.0f;
        for (int l = 0; l < k; ++l) temp += A(l, i) * (trans_b ? B(j, l) : B(l, j));
        C(i, j) = beta == 0.0f ? alpha * temp : alpha * temp + beta * C(i, j);
      }
    }
  }
}

}  // namespace sgemm_blas

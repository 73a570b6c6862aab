#include "reference/cpu_reference.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace sgemm::ref {
namespace {

// X(r, c) = p[r * rs + c * cs]
struct View {
  const float* p;
  std::int64_t rs, cs;
  double operator()(std::int64_t r, std::int64_t c) const { return p[r * rs + c * cs]; }
};

View view(const float* p, Layout layout, Op op, std::int64_t ld) {
  // Stored element (r, c) of the matrix as stored; op T swaps the roles.
  std::int64_t rs = layout == Layout::RowMajor ? ld : 1;
  std::int64_t cs = layout == Layout::RowMajor ? 1 : ld;
  if (op == Op::T) std::swap(rs, cs);
  return {p, rs, cs};
}

}  // namespace

std::vector<double> cpu_gemm(const GemmCase& given, const float* a, const float* b,
                             const float* c0, unsigned threads) {
  const GemmCase c = with_tight_lds(given);
  const Storage sc = storage_c(c);
  std::vector<double> out(std::max<std::int64_t>(sc.elements(), 0), 0.0);
  const View A = view(a, c.layout, c.op_a, c.lda), B = view(b, c.layout, c.op_b, c.ldb);
  auto at = [&](std::int64_t i, std::int64_t j) {
    return c.layout == Layout::RowMajor ? i * c.ldc + j : i + j * c.ldc;
  };
  constexpr std::int64_t kBlockM = 32, kBlockN = 64, kBlockK = 256;
  const std::int64_t tiles_m = (c.m + kBlockM - 1) / kBlockM, tiles_n = (c.n + kBlockN - 1) / kBlockN;
  std::atomic<std::int64_t> next{0};
  auto worker = [&] {
    std::vector<double> acc(kBlockM * kBlockN);
    for (std::int64_t t; (t = next++) < tiles_m * tiles_n;) {
      const std::int64_t i0 = (t / tiles_n) * kBlockM, j0 = (t % tiles_n) * kBlockN;
      const std::int64_t i1 = std::min(c.m, i0 + kBlockM), j1 = std::min(c.n, j0 + kBlockN);
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t p0 = 0; p0 < c.k; p0 += kBlockK) {
        const std::int64_t p1 = std::min(c.k, p0 + kBlockK);
        for (std::int64_t i = i0; i < i1; ++i)
          for (std::int64_t p = p0; p < p1; ++p) {
            const double aip = A(i, p);
            double* row = &acc[(i - i0) * kBlockN];
            for (std::int64_t j = j0; j < j1; ++j) row[j - j0] += aip * B(p, j);
          }
      }
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) {
          // Reference BLAS: alpha == 0 or k == 0 leaves C = beta * C; beta == 0 never reads C.
          const double prod = (c.alpha == 0.0f || c.k == 0) ? 0.0 : double(c.alpha) * acc[(i - i0) * kBlockN + (j - j0)];
          out[at(i, j)] = c.beta == 0.0f ? prod : prod + double(c.beta) * double(c0[at(i, j)]);
        }
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<std::int64_t>(threads, std::max<std::int64_t>(1, tiles_m * tiles_n)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace sgemm::ref

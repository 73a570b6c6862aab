// The BLAS entry points of libsgemm_blas.so, sgemm_ (Fortran ABI) and cblas_sgemm, on host
// memory. Each call is checked as reference BLAS checks it, then runs on the GPU when it is large
// enough to pay for the copies, else on the system BLAS behind this library (README.md).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "blas/paths.hpp"

// The program's XERBLA, bound as any undefined symbol is (the executable's own first, as
// xblat3s needs), but weak: without one the library still loads, and reports errors itself.
extern "C" __attribute__((weak, visibility("default"))) void xerbla_(const char* name,
                                                                     const int* info,
                                                                     std::size_t name_len);

namespace sgemm_blas {
namespace {

// Environment variables are read on every call, so a program (or a test) may change them.
bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

// Calls with m * n * k below this stay on the CPU: for them, copying the operands to the device
// and back costs more than the GPU saves.
double gpu_min_flops() {
  constexpr double kDefault = 1 << 24;
  const char* value = std::getenv("SGEMM_BLAS_GPU_MIN_FLOPS");
  if (value == nullptr || *value == '\0') return kDefault;
  char* end = nullptr;
  const double parsed = std::strtod(value, &end);
  return *end == '\0' && parsed >= 0 ? parsed : kDefault;
}

// SGEMM_BLAS_TRACE=1: one line per call on stderr, saying where it ran (run_xblat3s.sh counts
// them). It shows the column-major call, after cblas_sgemm's row-major mapping.
void trace(const char* entry, const Call& call, const char* path, const char* why = nullptr) {
  if (!env_flag("SGEMM_BLAS_TRACE")) return;
  std::fprintf(stderr, "sgemm_blas: %s %c%c m=%d n=%d k=%d -> %s%s%s%s\n", entry,
               call.trans_a ? 'T' : 'N', call.trans_b ? 'T' : 'N', call.m, call.n, call.k, path,
               why ? " (" : "", why ? why : "", why ? ")" : "");
}

void report_invalid(const char* entry, const char* routine, int info) {
  if (env_flag("SGEMM_BLAS_TRACE"))
    std::fprintf(stderr, "sgemm_blas: %s -> xerbla %d\n", entry, info);
  XerblaFn* xerbla = &xerbla_ ? &xerbla_ : system_xerbla();
  if (xerbla) return xerbla(routine, &info, std::strlen(routine));
  // No XERBLA anywhere: say what reference XERBLA says, and return, as Debian's does.
  std::fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", routine,
               info);
}

// LSAME: the first character, either case. Only it is read, so C callers that leave out the
// hidden string lengths work too.
bool same(char arg, char upper) { return arg == upper || arg == upper - 'A' + 'a'; }

// Reference SGEMM's checks, in its order: 0, or INFO, the position of the first bad argument.
int check(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc) {
  const bool nota = same(transa, 'N'), notb = same(transb, 'N');
  const int rows_a = nota ? m : k, rows_b = notb ? k : n;
  auto at_least_1 = [](int v) { return v > 1 ? v : 1; };
  if (!nota && !same(transa, 'T') && !same(transa, 'C')) return 1;
  if (!notb && !same(transb, 'T') && !same(transb, 'C')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < at_least_1(rows_a)) return 8;
  if (ldb < at_least_1(rows_b)) return 10;
  if (ldc < at_least_1(m)) return 13;
  return 0;
}

// A checked call: the quick returns of reference BLAS, then the GPU or the CPU.
void run(const char* entry, const Call& call) {
  if (call.m == 0 || call.n == 0 || ((call.alpha == 0.0f || call.k == 0) && call.beta == 1.0f))
    return trace(entry, call, "quick return");
  const bool gpu =
      !env_flag("SGEMM_BLAS_FORCE_CPU") &&
      (env_flag("SGEMM_BLAS_FORCE_GPU") || double(call.m) * call.n * call.k >= gpu_min_flops());
  char why[256] = "";
  if (gpu && run_on_gpu(call, why, sizeof why)) return trace(entry, call, "gpu");
  const CpuPath path = run_on_cpu(call);
  trace(entry, call, path == CpuPath::System ? "system" : "reference", gpu ? why : nullptr);
}

}  // namespace
}  // namespace sgemm_blas

extern "C" __attribute__((visibility("default"))) void sgemm_(
    const char* transa, const char* transb, const int* m, const int* n, const int* k,
    const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
    const float* beta, float* c, const int* ldc, std::size_t /*transa_len*/,
    std::size_t /*transb_len*/) noexcept {
  using namespace sgemm_blas;
  if (int info = check(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc))
    return report_invalid("sgemm_", "SGEMM ", info);
  run("sgemm_", {!same(*transa, 'N'), !same(*transb, 'N'), *m, *n, *k, *alpha, a, *lda, b, *ldb,
                 *beta, c, *ldc});
}

// CBLAS' enums are ints in the ABI: CblasRowMajor = 101, CblasColMajor = 102, CblasNoTrans = 111,
// CblasTrans = 112, CblasConjTrans = 113 (the same as CblasTrans for real matrices).
extern "C" __attribute__((visibility("default"))) void cblas_sgemm(
    int layout, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a, int lda,
    const float* b, int ldb, float beta, float* c, int ldc) noexcept {
  using namespace sgemm_blas;
  auto fortran = [](int trans) {
    return trans == 111 ? 'N' : trans == 112 || trans == 113 ? 'T' : '?';
  };
  const char ta = fortran(trans_a), tb = fortran(trans_b);
  // Reference CBLAS' positions: layout, then TransA, then TransB (LAPACK 3.11 says 2 for a bad
  // TransB in row-major, a slip later releases fixed: it is argument 3).
  if (layout != 101 && layout != 102) return report_invalid("cblas_sgemm", "cblas_sgemm", 1);
  if (ta == '?') return report_invalid("cblas_sgemm", "cblas_sgemm", 2);
  if (tb == '?') return report_invalid("cblas_sgemm", "cblas_sgemm", 3);
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands, m and n.
  const bool row = layout == 101;
  const Call call = row ? Call{tb == 'T', ta == 'T', n, m, k, alpha, b, ldb, a, lda, beta, c, ldc}
                        : Call{ta == 'T', tb == 'T', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  // Reference CBLAS runs the Fortran SGEMM on the mapped call and numbers its INFO in
  // cblas_sgemm's own argument list: one more (the layout comes first), with row-major's swaps.
  if (int info = check(call.trans_a ? 'T' : 'N', call.trans_b ? 'T' : 'N', call.m, call.n, call.k,
                       call.lda, call.ldb, call.ldc)) {
    int position = info + 1;
    if (row) {
      constexpr int kSwapped[][2] = {{4, 5}, {5, 4}, {9, 11}, {11, 9}};  // m <-> n, lda <-> ldb
      for (const auto& [from, to] : kSwapped)
        if (position == from) {
          position = to;
          break;
        }
    }
    return report_invalid("cblas_sgemm", "cblas_sgemm", position);
  }
  run("cblas_sgemm", call);
}

// Prints auto's choice for each call given as LAYOUT OPS MxNxK, FP32 unless --math tf32x3 | tf32
// comes first (not part of the project).
#include <cstdio>
#include <cstdlib>
#include <string>
#include "api/gemm.hpp"
#include "api/registry.hpp"
#include "sgemm/sgemm.hpp"
using namespace sgemm;
int main(int argc, char** argv) {
  Options options;  // --math tf32x3 | tf32 first, else FP32
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--math") {
    options.math = std::string(argv[2]) == "tf32" ? Math::Tf32 : Math::Fp32Tf32x3;
    first = 3;
  }
  for (int i = first; i + 2 < argc; i += 3) {
    const bool row = std::string(argv[i]) == "row";
    const Op a = argv[i + 1][0] == 'T' ? Op::T : Op::N, b = argv[i + 1][1] == 'T' ? Op::T : Op::N;
    long m, n, k;
    std::sscanf(argv[i + 2], "%ldx%ldx%ld", &m, &n, &k);
    const long lda = row ? (a == Op::N ? k : m) : (a == Op::N ? m : k);
    const long ldb = row ? (b == Op::N ? n : k) : (b == Op::N ? k : n);
    const long ldc = row ? n : m;
    const auto* base = reinterpret_cast<const float*>(std::uintptr_t(1) << 20);
    Problem p{row ? Layout::RowMajor : Layout::ColMajor, a, b, m, n, k, base, lda, base, ldb,
              const_cast<float*>(base), ldc};
    const detail::Canonical c = detail::to_canonical(p, 1, 0);
    const detail::KernelEntry* chosen = nullptr;
    std::string message;
    const Status s = detail::select_kernel(c, options, &chosen, &message);
    std::printf("%s %s %s: %s\n", argv[i], argv[i + 1], argv[i + 2],
                s == Status::Success ? std::string(chosen->info.slug).c_str() : message.c_str());
  }
}

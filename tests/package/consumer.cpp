#include <sgemm/sgemm.hpp>

#include <cstdio>

// Links against the installed library and calls into it; needs no GPU (m == 0 does nothing).
int main() {
  const sgemm::Status s = sgemm::gemm(sgemm::Layout::RowMajor, sgemm::Op::N, sgemm::Op::N, 0, 4, 4,
                                      1.0f, nullptr, 4, nullptr, 4, 0.0f, nullptr, 4);
  std::printf("%s, %zu kernels registered\n", sgemm::to_string(s), sgemm::kernels().size());
  return s == sgemm::Status::Success && !sgemm::kernels().empty() ? 0 : 1;
}

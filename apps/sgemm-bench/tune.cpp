#include "tune.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/simt/autotune.hpp"
#include "reference/harness.hpp"
#include "timer.hpp"

namespace sgemm::bench {

int run_tuning(const BenchOptions& options, const std::string& device_name) {
  namespace at = detail::autotune;
  cublasHandle_t cublas = nullptr;
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "sgemm-bench: cublasCreate failed\n");
    return 1;
  }
  int l2_bytes = 0;
  check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, options.device), "L2 size");
  Timer timer{std::size_t(l2_bytes)};  // the bench's timing: events, median, L2 flushed if it fits
  std::vector<std::pair<int, int>> winners;
  bool failed = false;
  std::printf("tuning rung 09 on %s: %zu configurations x %zu shape classes, median of %d runs\n",
              device_name.c_str(), at::configs().size(), at::shape_classes().size(), options.reps);
  for (std::size_t cls = 0; cls < at::shape_classes().size(); ++cls) {
    const at::ShapeClass& sc = at::shape_classes()[cls];
    ref::GemmCase gc{Layout::RowMajor, Op::N, Op::N, sc.m, sc.n, sc.k, 1.0f, 0.0f};
    ref::CaseBuffers buf(gc);
    buf.fill_random(cls + 1);
    buf.compute_reference(cublas);
    const ref::GemmCase& c = buf.gemm_case();
    const detail::Canonical p = detail::to_canonical(
        {c.layout, c.op_a, c.op_b, c.m, c.n, c.k, buf.a(), c.lda, buf.b(), c.ldb, buf.c(), c.ldc},
        c.alpha, c.beta);
    const double working_set = 4.0 * double(ref::storage_a(c).elements() +
                                            ref::storage_b(c).elements() +
                                            ref::storage_c(c).elements());
    const bool flush = working_set < 2.0 * l2_bytes;
    int best = -1;
    double best_ms = 0;
    std::printf("\n%s (%lld x %lld x %lld)\n", std::string(sc.name).c_str(), (long long)sc.m,
                (long long)sc.n, (long long)sc.k);
    for (std::size_t i = 0; i < at::configs().size(); ++i) {
      const at::Config& cfg = at::configs()[i];
      if (!cfg.why_not(p).empty()) continue;
      buf.reset_c();
      if (cfg.launch(p, nullptr) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        std::fprintf(stderr, "  %s: launch failed\n", std::string(cfg.name).c_str());
        failed = true;
        continue;
      }
      const ref::Verdict v = buf.verify(Math::Fp32);
      if (!v.pass) {
        std::fprintf(stderr, "  %s: FAIL %s\n", std::string(cfg.name).c_str(), v.detail.c_str());
        failed = true;
        continue;
      }
      const std::string label(cfg.name);
      const double ms = timer.measure([&] { cfg.launch(p, nullptr); }, label.c_str(), flush, options).ms;
      if (ms <= 0) {
        std::printf("  %-28s too slow to time within --budget\n", std::string(cfg.name).c_str());
        continue;
      }
      std::printf("  %-28s %8.3f ms %7.2f TFLOPS\n", std::string(cfg.name).c_str(), ms,
                  2.0 * sc.m * sc.n * sc.k / (ms * 1e-3) / 1e12);
      if (best < 0 || ms < best_ms) best = int(i), best_ms = ms;
    }
    if (best >= 0) winners.emplace_back(int(cls), best);
  }
  cublasDestroy(cublas);
  const std::string path = at::cache_path();
  if (path.empty()) {
    std::fprintf(stderr, "sgemm-bench: no place for the tuning cache: set SGEMM_TUNING_CACHE or HOME\n");
    return 1;
  }
  std::string message;
  if (!at::save_cache(path, device_name, winners, &message)) {
    std::fprintf(stderr, "sgemm-bench: cannot write the tuning cache %s: %s\n", path.c_str(), message.c_str());
    return 1;
  }
  std::printf("\nwrote %s\n", path.c_str());
  return failed ? 1 : 0;
}

}  // namespace sgemm::bench

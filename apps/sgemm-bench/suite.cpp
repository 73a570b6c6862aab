#include "suite.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "bandwidth.hpp"
#include "device_facts.hpp"
#include "dispatch/dispatch.hpp"
#include "pairs.hpp"
#include "reference/harness.hpp"
#include "runtime/device.hpp"

namespace sgemm::bench {

namespace {

struct SuiteRow {
  SuiteCall call;
  Math math;
  std::string kernel;  // auto's choice
  double ours_ms = 0, cublas_ms = 0, ratio = 0, err_ours = 0, err_cublas = 0;
  double read_tbs = 0;  // operand bytes / our time, for the memory-bound calls
  bool memory_bound = false, pass = false;
  std::string status;
};

}  // namespace

int run_suite(const BenchOptions& o, const DeviceFacts& facts) {
  cublasHandle_t cublas = nullptr;
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) throw CudaFailure("cublasCreate failed");
  Timer timer(facts.l2_bytes);
  detail::Device device;
  check(detail::device_facts(o.device, &device), "device facts");
  const double read_tbs = measure_read_bandwidth();
  const std::vector<Math> maths =
      o.math ? std::vector<Math>{*o.math} : std::vector<Math>{Math::Fp32, Math::Fp32Tf32x3, Math::Tf32};
  std::printf("device: %s (sm_%d, %d SMs, SM clock %d MHz), CUDA runtime %s, driver %s, %s\n",
              facts.name.c_str(), facts.cc, facts.sms, facts.clock_mhz, version(facts.runtime).c_str(),
              version(facts.driver).c_str(), today().c_str());
  std::printf("suite: auto against cuBLAS (Fp32 and Fp32Tf32x3: CUBLAS_COMPUTE_32F; Tf32: "
              "CUBLAS_COMPUTE_32F_FAST_TF32), the median of %d per-pair ratios (cuBLAS time / ours), "
              "calls alternating; device read bandwidth %.2f TB/s (a 2 GiB read)\n",
              o.pairs, read_tbs);
  std::vector<SuiteRow> rows;
  bool failed = false;
  const std::vector<SuiteCall> calls = suite_calls();
  for (std::size_t ci = 0; ci < calls.size(); ++ci) {
    const SuiteCall& sc = calls[ci];
    ref::GemmCase gc{sc.layout, sc.op_a, sc.op_b, sc.m, sc.n, sc.k, 1.0f, 0.0f};
    gc = ref::with_tight_lds(gc);
    gc.lda += sc.pad, gc.ldb += sc.pad, gc.ldc += sc.pad;
    gc.unaligned = sc.unaligned;
    ref::CaseBuffers buf(gc);
    buf.fill_random(0x5017e000u + ci);
    buf.compute_reference(cublas);
    const ref::GemmCase& c = buf.gemm_case();
    const double bytes = 4.0 * double(ref::storage_a(c).elements() + ref::storage_b(c).elements() +
                                      ref::storage_c(c).elements());
    const bool flush = bytes < 2.0 * double(facts.l2_bytes);
    for (Math math : maths) {
      SuiteRow r{sc, math};
      Options opt;
      opt.math = math;
      const detail::Canonical p = detail::to_canonical(
          {c.layout, c.op_a, c.op_b, c.m, c.n, c.k, buf.a(), c.lda, buf.b(), c.ldb, buf.c(), c.ldc},
          c.alpha, c.beta);
      detail::Decision decision;
      std::string message;
      if (detail::choose(p, opt, device, SIZE_MAX, &decision, &message) == Status::Success)
        r.kernel = std::string(decision.kernel->info.slug) +
                   (decision.k_ranges > 1 ? " in " + std::to_string(decision.k_ranges) + " k ranges"
                                          : "") +
                   (decision.staged ? " on aligned copies" : "");
      const bool tf32 = math == Math::Tf32;
      auto ours = [&] {
        gemm(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, buf.a(), c.lda, buf.b(), c.ldb,
             c.beta, buf.c(), c.ldc, nullptr, opt);
      };
      auto theirs = [&] { ref::cublas_sgemm(cublas, c, buf.a(), buf.b(), buf.c(), tf32); };
      buf.reset_c();
      theirs();
      check(cudaDeviceSynchronize(), "cuBLAS");
      r.err_cublas = buf.verify(tf32 ? Math::Tf32 : Math::Fp32).rel_fro;
      buf.reset_c();
      const Status s = gemm(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, buf.a(), c.lda,
                            buf.b(), c.ldb, c.beta, buf.c(), c.ldc, nullptr, opt);
      check(cudaDeviceSynchronize(), "sgemm");
      if (s != Status::Success) {
        r.status = std::string("ERROR ") + to_string(s) + ": " + std::string(last_error());
        failed = true;
        rows.push_back(r);
        continue;
      }
      const ref::Verdict v = buf.verify(math);
      r.err_ours = v.rel_fro;
      r.pass = v.pass && (math != Math::Fp32Tf32x3 || r.err_ours <= 2 * r.err_cublas);
      r.status = r.pass ? "PASS" : "FAIL " + v.detail;
      failed |= !r.pass;
      const PairTimes t = time_pairs(timer, theirs, ours, o.pairs, flush);
      r.ratio = t.ratio, r.ours_ms = t.ours_ms, r.cublas_ms = t.theirs_ms;
      r.memory_bound = std::min(sc.m, sc.n) <= 16 && std::max(sc.m, sc.n) >= 1024 && sc.k >= 1024;
      const double operand_bytes =
          4.0 * double(ref::storage_a(c).elements() + ref::storage_b(c).elements());
      r.read_tbs = operand_bytes / (r.ours_ms * 1e-3) / 1e12;
      rows.push_back(r);
      std::fprintf(stderr, "   %-8s %-30s %-7s %-24s %8.4f\n", sc.group.c_str(), describe(sc).c_str(),
                   math_flag(math), r.kernel.c_str(), r.ratio);
    }
  }
  std::printf("\n%-8s %-32s %-7s %-24s %9s %9s %8s %9s %9s %s\n", "group", "call", "math", "auto chose",
              "ms", "cuBLAS ms", "ratio", "rel err", "cuBLAS", "status");
  for (const SuiteRow& r : rows) {
    std::printf("%-8s %-32s %-7s %-24s %9.4f %9.4f %8.4f %9.2e %9.2e %s", r.call.group.c_str(),
                describe(r.call).c_str(), math_flag(r.math), r.kernel.c_str(), r.ours_ms,
                r.cublas_ms, r.ratio, r.err_ours, r.err_cublas, r.status.c_str());
    if (r.memory_bound)
      std::printf("  [reads %.2f TB/s, %.0f%% of %.2f]", r.read_tbs, 100 * r.read_tbs / read_tbs,
                  read_tbs);
    std::printf("\n");
  }
  std::vector<Ratio> ratios;
  for (const SuiteRow& r : rows) ratios.push_back({r.math, r.ratio, describe(r.call)});
  print_means(ratios, maths, "calls", "call");
  if (!o.csv_path.empty()) {
    std::ofstream out(o.csv_path);
    out << "device,date,group,layout,op_a,op_b,m,n,k,pad,unaligned,math,auto_kernel,ms,cublas_ms,"
           "ratio_median,rel_err,cublas_rel_err,memory_bound,read_tbs,device_read_tbs,status\n";
    for (const SuiteRow& r : rows)
      out << facts.name << ',' << today() << ',' << r.call.group << ','
          << (r.call.layout == Layout::RowMajor ? "row" : "col") << ','
          << (r.call.op_a == Op::N ? 'N' : 'T') << ',' << (r.call.op_b == Op::N ? 'N' : 'T') << ','
          << r.call.m << ',' << r.call.n << ',' << r.call.k << ',' << r.call.pad << ','
          << r.call.unaligned << ',' << math_flag(r.math) << ',' << r.kernel << ',' << r.ours_ms
          << ',' << r.cublas_ms << ',' << r.ratio << ',' << r.err_ours << ',' << r.err_cublas << ','
          << r.memory_bound << ',' << r.read_tbs << ',' << read_tbs << ",\"" << r.status << "\"\n";
  }
  cublasDestroy(cublas);
  return failed ? 1 : 0;
}

}  // namespace sgemm::bench

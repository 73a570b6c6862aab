// sgemm-bench: times kernels against cuBLAS SGEMM in one run and checks every result against a
// float64 reference. See `sgemm-bench --help` and docs/design.md ("Measuring").
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device_facts.hpp"
#include "explain.hpp"
#include "reference/cpu_reference.hpp"
#include "roofline.hpp"
#include "batched.hpp"
#include "conv.hpp"
#include "suite.hpp"
#include "reference/harness.hpp"
#include "report.hpp"
#include "dispatch/dispatch.hpp"
#include "runtime/device.hpp"
#include "timer.hpp"
#include "tune.hpp"

namespace sgemm::bench {
namespace {

// One thing to time: a registry kernel, auto in one math, or cuBLAS.
struct Contender {
  std::string name;
  int rung;
  Math math;
  Unit unit;
  bool is_cublas, cublas_tf32, is_auto = false;
};

struct Row {
  std::string kernel;
  int rung;
  Math math;
  Unit unit;
  Shape shape;
  Op op_a, op_b;
  double ms = -1, tflops = 0, ratio = 0, pct_peak = 0, rel_fro = 0, worst = 0;
  Roofline roof;
  double pct_roof = 0;  // the roofline's time bound as a percentage of the measured time
  int warmup = 0, reps = 0;  // what the timer did (fewer reps than asked when --budget cut them)
  std::string status;  // PASS, FAIL, SKIP (...), ERROR (...)
};

const char* math_name(Math m) {
  return m == Math::Fp32 ? "fp32" : m == Math::Fp32Tf32x3 ? "tf32x3" : "tf32";
}

std::string fmt(double v, int precision, bool sci = false) {
  char buf[64];
  std::snprintf(buf, sizeof buf, sci ? "%.*e" : "%.*f", precision, v);
  return buf;
}

// The units auto's choice for `c` runs on (its kernel's), for the %peak of an auto row.
Unit auto_unit(const ref::GemmCase& c, Math math) {
  int device = 0;
  detail::Device facts;
  if (cudaGetDevice(&device) != cudaSuccess || detail::device_facts(device, &facts) != cudaSuccess)
    return Unit::Fp32Core;
  const auto* ptr = reinterpret_cast<const float*>(std::uintptr_t(1) << 30);
  const detail::Canonical p = detail::to_canonical(
      {c.layout, c.op_a, c.op_b, c.m, c.n, c.k, ptr, c.lda, ptr, c.ldb, const_cast<float*>(ptr), c.ldc},
      c.alpha, c.beta);
  Options o;
  o.math = math;
  detail::Decision d;
  std::string message;
  if (detail::choose(p, o, facts, SIZE_MAX, &d, &message) != Status::Success) return Unit::Fp32Core;
  return d.kernel->info.unit;
}

class Bench {
 public:
  Bench(const BenchOptions& o, DeviceFacts facts)
      : o_(o), facts_(std::move(facts)), timer_(facts_.l2_bytes) {
    if (cublasCreate(&cublas_) != CUBLAS_STATUS_SUCCESS) throw CudaFailure("cublasCreate failed");
  }
  ~Bench() { cublasDestroy(cublas_); }

  std::vector<Row> run_all() {
    std::vector<Contender> contenders{{"cublas-sgemm", 0, Math::Fp32, Unit::Fp32Core, true, false}};
    if (o_.cublas_tf32)
      contenders.push_back({"cublas-tf32", 0, Math::Tf32, Unit::Tf32Tensor, true, true});
    for (Math math : {Math::Fp32, Math::Fp32Tf32x3, Math::Tf32})
      if (kernel_selected(o_, "auto") && (!o_.math || *o_.math == math))
        contenders.push_back({std::string("auto-") + math_name(math), 0, math, Unit::Fp32Core,
                              false, false, true});
    for (const KernelInfo& k : kernels())
      if (kernel_selected(o_, k.slug) && (!o_.math || *o_.math == k.math))
        contenders.push_back({std::string(k.slug), k.rung, k.math, k.unit, false, false});
    std::vector<Row> rows;
    for (const Shape& shape : o_.shapes)
      for (auto [op_a, op_b] : o_.ops) run_shape(shape, op_a, op_b, contenders, rows);
    return rows;
  }

 private:
  void run_shape(const Shape& shape, Op op_a, Op op_b, const std::vector<Contender>& contenders,
                 std::vector<Row>& rows) {
    ref::GemmCase gc;
    gc.layout = o_.layout;
    gc.op_a = op_a;
    gc.op_b = op_b;
    gc.m = shape.m;
    gc.n = shape.n;
    gc.k = shape.k;
    gc.alpha = o_.alpha;
    gc.beta = o_.beta;
    ref::CaseBuffers buffers(gc);
    buffers.fill_random(0x5eed0000u + rows.size(),
                        o_.normal_values ? ref::Values::Normal : ref::Values::Uniform);
    buffers.compute_reference(cublas_);
    const ref::GemmCase c = buffers.gemm_case();
    const double flops = 2.0 * double(c.m) * double(c.n) * double(c.k);
    const double working_set = 4.0 * double(ref::storage_a(c).elements() +
                                            ref::storage_b(c).elements() +
                                            ref::storage_c(c).elements());
    const bool flush = working_set < 2.0 * double(facts_.l2_bytes);
    std::fprintf(stderr, "== %s\n", ref::describe(c).c_str());
    double cublas_ms = -1;
    const std::size_t first_row = rows.size();
    for (const Contender& who : contenders) {
      Row row{who.name, who.rung, who.math, who.unit, shape, op_a, op_b};
      if (who.is_auto) row.unit = auto_unit(c, who.math);
      auto run = [&]() -> std::string {
        if (who.is_cublas) {
          if (ref::cublas_sgemm(cublas_, c, buffers.a(), buffers.b(), buffers.c(), who.cublas_tf32) != CUBLAS_STATUS_SUCCESS)
            return "cuBLAS failed";
          return {};
        }
        Options opt;
        opt.kernel = who.is_auto ? std::string_view("auto") : std::string_view(who.name);
        opt.math = who.math;
        const Status s = gemm(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, buffers.a(), c.lda,
                              buffers.b(), c.ldb, c.beta, buffers.c(), c.ldc, nullptr, opt);
        if (s == Status::Success) return {};
        return std::string(to_string(s)) + ": " + std::string(last_error());
      };
      try {
        // The verification run; the timer's sizing run follows it.
        buffers.reset_c();
        check(cublasSetStream(cublas_, nullptr) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown, "cublasSetStream");
        if (std::string err = run(); !err.empty()) {
          row.status = err.starts_with("NotSupported") ? "SKIP (" + err.substr(14) + ")" : "ERROR (" + err + ")";
          rows.push_back(row);
          print_progress(row);
          continue;
        }
        check(cudaDeviceSynchronize(), who.name.c_str());
        const ref::Verdict v = buffers.verify(who.math);
        row.rel_fro = v.rel_fro;
        row.worst = v.worst;
        row.status = v.pass ? "PASS" : "FAIL";
        if (!v.pass) std::fprintf(stderr, "   %s FAIL: %s\n", who.name.c_str(), v.detail.c_str());
        const Timing t = timer_.measure([&] { run(); }, who.name.c_str(), flush, o_);
        check(cudaDeviceSynchronize(), who.name.c_str());
        row.ms = t.ms;
        row.warmup = t.plan.warmup;
        row.reps = t.plan.reps;
        if (row.ms > 0) {
          row.tflops = flops / (row.ms * 1e-3) / 1e12;
          row.pct_peak = 100.0 * row.tflops / unit_peak_tflops(facts_.peaks, row.unit);
          row.roof = roofline(facts_.peaks, row.unit, c.m, c.n, c.k, c.beta != 0.0f);
          row.pct_roof = 100.0 * row.roof.bound_ms / row.ms;
          if (t.plan.cut) row.status += " (median of " + std::to_string(row.reps) + " runs: --budget)";
        } else {
          row.status += " (too slow to time within --budget)";
        }
        if (who.is_cublas && !who.cublas_tf32) cublas_ms = row.ms;
      } catch (const CudaFailure& e) {
        row.status = std::string("ERROR (") + e.what() + ")";
        rows.push_back(row);
        print_progress(row);
        throw;  // the context may be unusable after a kernel fault
      }
      rows.push_back(row);
      print_progress(row);
    }
    for (std::size_t i = first_row; i < rows.size(); ++i)
      if (cublas_ms > 0 && rows[i].ms > 0) rows[i].ratio = cublas_ms / rows[i].ms;
    if (o_.cpu) time_cpu(buffers, c, flops);
  }

  void time_cpu(const ref::CaseBuffers& buffers, const ref::GemmCase& c, double flops) {
    auto host = [](const float* d, std::int64_t n) {
      std::vector<float> h(std::max<std::int64_t>(n, 1));
      check(cudaMemcpy(h.data(), d, sizeof(float) * n, cudaMemcpyDeviceToHost), "copy to host");
      return h;
    };
    const auto a = host(buffers.a(), ref::storage_a(c).elements());
    const auto b = host(buffers.b(), ref::storage_b(c).elements());
    std::vector<float> c0(std::max<std::int64_t>(ref::storage_c(c).elements(), 1), 0.0f);
    const auto t0 = std::chrono::steady_clock::now();
    ref::cpu_gemm(c, a.data(), b.data(), c0.data());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "   cpu reference (float64, %u threads): %.1f ms, %.1f GFLOPS\n",
                 std::max(1u, std::thread::hardware_concurrency()), ms, flops / (ms * 1e-3) / 1e9);
  }

  void print_progress(const Row& r) {
    std::fprintf(stderr, "   %-24s %s\n", r.kernel.c_str(), r.status.c_str());
  }

  const BenchOptions& o_;
  DeviceFacts facts_;
  Timer timer_;
  cublasHandle_t cublas_ = nullptr;
};

void print_table(const std::vector<Row>& rows, const DeviceFacts& f, const BenchOptions& o) {
  std::printf("device: %s (sm_%d, %d SMs, SM clock %d MHz, memory clock %d MHz), CUDA runtime %s, driver %s, %s\n",
              f.name.c_str(), f.cc, f.sms, f.clock_mhz, f.mem_clock_mhz, version(f.runtime).c_str(),
              version(f.driver).c_str(), today().c_str());
  std::printf("peaks: FP32 cores %.1f, TF32 tensor %.1f, FP16 tensor %.1f TFLOPS (dense, at the SM "
              "clock); memory %.2f TB/s; layout %s, alpha %g, beta %g\n",
              f.peaks.fp32_core, f.peaks.tf32_tensor, f.peaks.fp16_tensor, f.peaks.memory_tbs,
              o.layout == Layout::RowMajor ? "row" : "col", o.alpha, o.beta);
  std::printf("%%peak: against the peak of the units the kernel runs on; AI: FLOPs per byte of A, B "
              "and C moved once; C/M: compute- or memory-bound on this device; %%roof: the "
              "roofline's time bound as a share of the measured time\n");
  if (o.normal_values) std::printf("A and B drawn from N(0, 1)\n");
  std::printf("each row: the median of %d timed runs after %d warm-up runs", o.reps, std::max(o.warmup, 1));
  if (o.warmup_ms > 0) std::printf(" or more, at least %g ms of them", o.warmup_ms);
  if (o.cooldown_ms > 0) std::printf(", each kernel after %g ms idle", o.cooldown_ms);
  std::printf(" (unless its status says otherwise)\n");
  Shape last{-1, -1, -1};
  for (const Row& r : rows) {
    if (!(r.shape == last)) {
      std::printf("\n%lld x %lld x %lld\n", (long long)r.shape.m, (long long)r.shape.n, (long long)r.shape.k);
      std::printf("%-24s %4s %-6s %2s %9s %8s %8s %6s %7s %3s %6s %9s %9s  %s\n", "kernel", "rung",
                  "math", "op", "ms", "TFLOPS", "x cuBLAS", "%peak", "AI", "C/M", "%roof",
                  "rel err", "err/bound", "status");
      last = r.shape;
    }
    const std::string op = std::string(r.op_a == Op::N ? "N" : "T") + (r.op_b == Op::N ? "N" : "T");
    if (r.ms > 0)
      std::printf("%-24s %4d %-6s %2s %9.3f %8.2f %8.4f %6.1f %7.1f %3s %6.1f %9.2e %9.3f  %s\n",
                  r.kernel.c_str(), r.rung, math_name(r.math), op.c_str(), r.ms, r.tflops, r.ratio,
                  r.pct_peak, r.roof.intensity, r.roof.compute_bound ? "C" : "M", r.pct_roof,
                  r.rel_fro, r.worst, r.status.c_str());
    else
      std::printf("%-24s %4d %-6s %2s %9s %8s %8s %6s %7s %3s %6s %9s %9s  %s\n", r.kernel.c_str(),
                  r.rung, math_name(r.math), op.c_str(), "-", "-", "-", "-", "-", "-", "-",
                  r.status.starts_with("PASS") || r.status.starts_with("FAIL") ? fmt(r.rel_fro, 2, true).c_str() : "-",
                  r.status.starts_with("PASS") || r.status.starts_with("FAIL") ? fmt(r.worst, 3).c_str() : "-",
                  r.status.c_str());
  }
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

void write_files(const std::vector<Row>& rows, const DeviceFacts& f, const BenchOptions& o) {
  const std::string date = today();
  auto field_values = [&](const Row& r) {
    return std::vector<std::string>{
        f.name, date, version(f.runtime), version(f.driver), std::to_string(f.clock_mhz), r.kernel,
        std::to_string(r.rung), math_name(r.math), o.layout == Layout::RowMajor ? "row" : "col",
        r.op_a == Op::N ? "N" : "T", r.op_b == Op::N ? "N" : "T", std::to_string(r.shape.m),
        std::to_string(r.shape.n), std::to_string(r.shape.k), fmt(o.alpha, 6), fmt(o.beta, 6),
        fmt(r.ms, 5), fmt(r.tflops, 4), fmt(r.ratio, 4), to_string(r.unit), fmt(r.pct_peak, 2),
        fmt(r.roof.intensity, 3), r.roof.compute_bound ? "compute" : "memory",
        fmt(r.roof.bound_ms, 5), fmt(r.pct_roof, 2), fmt(r.rel_fro, 4, true), fmt(r.worst, 5),
        r.status, std::to_string(r.warmup), std::to_string(r.reps)};
  };
  static const char* kFields[] = {"device", "date", "cuda", "driver", "sm_clock_mhz", "kernel", "rung",
                                  "math", "layout", "op_a", "op_b", "m", "n", "k", "alpha", "beta",
                                  "ms_median", "tflops", "ratio_cublas", "unit", "pct_peak",
                                  "intensity", "bound_by", "roofline_ms", "pct_roofline",
                                  "rel_fro_err", "worst_over_bound", "status", "warmup_runs",
                                  "timed_runs"};
  if (!o.csv_path.empty()) {
    std::ofstream out(o.csv_path);
    for (std::size_t i = 0; i < std::size(kFields); ++i) out << (i ? "," : "") << kFields[i];
    out << '\n';
    for (const Row& r : rows) {
      const auto v = field_values(r);
      for (std::size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << csv_escape(v[i]);
      out << '\n';
    }
    if (!out) throw std::runtime_error("cannot write " + o.csv_path);
  }
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    auto quote = [](const std::string& s) {
      std::string q = "\"";
      for (char ch : s) q += (ch == '"' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
      return q + "\"";
    };
    out << "[\n";
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto v = field_values(rows[r]);
      out << "  {";
      for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << quote(kFields[i]) << ": " << quote(v[i]);
      out << (r + 1 < rows.size() ? "},\n" : "}\n");
    }
    out << "]\n";
    if (!out) throw std::runtime_error("cannot write " + o.json_path);
  }
}

}  // namespace
}  // namespace sgemm::bench

int main(int argc, char** argv) {
  using namespace sgemm::bench;
  BenchOptions options;
  try {
    options = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const CliError& e) {
    std::fprintf(stderr, "sgemm-bench: error: %s\n%s", e.what(), usage());
    return 2;
  }
  if (options.help) {
    std::fputs(usage(), stdout);
    return 0;
  }
  if (options.list) {
    print_registry(std::cout);
    return 0;
  }
  if (options.explain) return run_explain(options, std::cout);
  int count = 0;
  if (cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess || count == 0) {
    std::fprintf(stderr, "sgemm-bench: no CUDA device available (%s)\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    return 1;
  }
  if (options.device >= count) {
    std::fprintf(stderr, "sgemm-bench: error: --device %d but only %d device(s)\n%s", options.device, count, usage());
    return 2;
  }
  try {
    check(cudaSetDevice(options.device), "cudaSetDevice");
    const DeviceFacts facts = read_device_facts(options.device);
    if (options.tune) return run_tuning(options, facts.name);
    if (options.suite) return run_suite(options, facts);
    if (options.batched) return run_batched_suite(options, facts);
    if (options.conv_suite || !options.convs.empty()) return run_conv_suite(options, facts);
    Bench bench(options, facts);
    const std::vector<Row> rows = bench.run_all();
    print_table(rows, facts, options);
    write_files(rows, facts, options);
    const bool failed = std::any_of(rows.begin(), rows.end(), [](const Row& r) {
      return r.status.starts_with("FAIL") || r.status.starts_with("ERROR");
    });
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm-bench: %s\n", e.what());
    return 1;
  }
}

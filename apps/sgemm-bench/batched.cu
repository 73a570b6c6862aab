// `sgemm-bench --batched` (batched.hpp).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "batched.hpp"
#include "device_facts.hpp"
#include "dispatch/dispatch.hpp"
#include "pairs.hpp"
#include "reference/harness.hpp"
#include "runtime/device.hpp"

namespace sgemm::bench {
namespace {

__global__ void widen(const float* x, double* wide, double* abs_wide, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x)
    wide[i] = x[i], abs_wide[i] = std::fabs(double(x[i]));
}

// Elements of C outside the bound (k + 2) (u |A||B| + eta), and the squared error and reference
// sums of the relative Frobenius error.
__global__ void judge(const float* c, const double* ref, const double* abs_ref, std::int64_t count,
                      double k, double u, double eta, unsigned long long* bad, double* sums) {
  double diff2 = 0, ref2 = 0;
  unsigned long long over = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const double d = double(c[i]) - ref[i];
    diff2 += d * d, ref2 += ref[i] * ref[i];
    if (!(std::fabs(d) <= (k + 2) * (u * abs_ref[i] + eta))) ++over;
  }
  atomicAdd(bad, over);
  atomicAdd(&sums[0], diff2);
  atomicAdd(&sums[1], ref2);
}

constexpr int kBlocks = 1024, kThreads = 256;

struct Buffers {
  std::int64_t a_count, b_count, c_count;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  double *ref = nullptr, *abs_ref = nullptr;
  unsigned long long* bad = nullptr;
  double* sums = nullptr;
  ~Buffers() {
    for (void* p : {(void*)a, (void*)b, (void*)c, (void*)ref, (void*)abs_ref, (void*)bad, (void*)sums})
      cudaFree(p);
  }
};

struct Verdict {
  double rel_fro;
  unsigned long long bad;
};

Verdict judge_c(Buffers& buf, const BatchedCall& call, Math math) {
  check(cudaMemset(buf.bad, 0, sizeof *buf.bad), "memset");
  check(cudaMemset(buf.sums, 0, 2 * sizeof *buf.sums), "memset");
  judge<<<kBlocks, kThreads>>>(buf.c, buf.ref, buf.abs_ref, buf.c_count, double(call.k),
                               ref::unit_roundoff(math), ref::underflow_unit(math), buf.bad,
                               buf.sums);
  double sums[2];
  Verdict v{};
  check(cudaMemcpy(sums, buf.sums, sizeof sums, cudaMemcpyDeviceToHost), "copy");
  check(cudaMemcpy(&v.bad, buf.bad, sizeof v.bad, cudaMemcpyDeviceToHost), "copy");
  v.rel_fro = std::sqrt(sums[0] / sums[1]);
  return v;
}

cublasOperation_t cublas_op(Op op) { return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

}  // namespace

int run_batched_suite(const BenchOptions& o, const DeviceFacts& facts) {
  cublasHandle_t cublas = nullptr;
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) throw CudaFailure("cublasCreate failed");
  Timer timer(facts.l2_bytes);
  detail::Device device;
  check(detail::device_facts(o.device, &device), "device facts");
  const std::vector<Math> maths =
      o.math ? std::vector<Math>{*o.math} : std::vector<Math>{Math::Fp32, Math::Fp32Tf32x3, Math::Tf32};
  std::printf("device: %s (sm_%d, %d SMs), CUDA runtime %s, %s\n", facts.name.c_str(), facts.cc,
              facts.sms, version(facts.runtime).c_str(), today().c_str());
  std::printf("batched: gemm_strided_batched auto against cublasGemmStridedBatchedEx (Fp32, "
              "Fp32Tf32x3: CUBLAS_COMPUTE_32F; Tf32: CUBLAS_COMPUTE_32F_FAST_TF32), row-major, "
              "the median of %d per-pair ratios (cuBLAS time / ours)\n", o.pairs);
  std::printf("\n%-36s %-7s %-24s %9s %9s %8s %9s %9s %s\n", "call", "math", "auto chose", "ms",
              "cuBLAS ms", "ratio", "rel err", "cuBLAS", "status");
  struct Row {
    BatchedCall call;
    Math math;
    std::string kernel, status;
    double ms, cublas_ms, ratio, err, cublas_err;
  };
  std::vector<Row> rows;
  bool failed = false;
  const std::vector<BatchedCall> calls = batched_calls();
  for (std::size_t ci = 0; ci < calls.size(); ++ci) {
    const BatchedCall& bc = calls[ci];
    const std::int64_t lda = bc.op_a == Op::N ? bc.k : bc.m, ldb = bc.op_b == Op::N ? bc.n : bc.k;
    const std::int64_t stride_a = bc.m * bc.k, stride_b = bc.shared_b ? 0 : bc.k * bc.n;
    const std::int64_t stride_c = bc.m * bc.n;
    Buffers buf{stride_a * bc.batch, bc.shared_b ? stride_b + bc.k * bc.n : stride_b * bc.batch,
                stride_c * bc.batch};
    check(cudaMalloc(&buf.a, 4 * buf.a_count), "cudaMalloc");
    check(cudaMalloc(&buf.b, 4 * buf.b_count), "cudaMalloc");
    check(cudaMalloc(&buf.c, 4 * buf.c_count), "cudaMalloc");
    check(cudaMalloc(&buf.ref, 8 * buf.c_count), "cudaMalloc");
    check(cudaMalloc(&buf.abs_ref, 8 * buf.c_count), "cudaMalloc");
    check(cudaMalloc(&buf.bad, sizeof *buf.bad), "cudaMalloc");
    check(cudaMalloc(&buf.sums, 2 * sizeof *buf.sums), "cudaMalloc");
    ref::fill_uniform(buf.a, buf.a_count, 0xa0 + ci);
    ref::fill_uniform(buf.b, buf.b_count, 0xb0 + ci);
    {  // the float64 reference, and |A||B| for the bound
      double *a64, *b64, *abs_a, *abs_b;
      check(cudaMalloc(&a64, 8 * buf.a_count), "cudaMalloc");
      check(cudaMalloc(&abs_a, 8 * buf.a_count), "cudaMalloc");
      check(cudaMalloc(&b64, 8 * buf.b_count), "cudaMalloc");
      check(cudaMalloc(&abs_b, 8 * buf.b_count), "cudaMalloc");
      widen<<<kBlocks, kThreads>>>(buf.a, a64, abs_a, buf.a_count);
      widen<<<kBlocks, kThreads>>>(buf.b, b64, abs_b, buf.b_count);
      const double one = 1, zero = 0;
      for (auto [x, y, out] : {std::tuple{a64, b64, buf.ref}, std::tuple{abs_a, abs_b, buf.abs_ref}})
        if (cublasDgemmStridedBatched(cublas, cublas_op(bc.op_b), cublas_op(bc.op_a), bc.n, bc.m,
                                      bc.k, &one, y, ldb, stride_b, x, lda, stride_a, &zero, out,
                                      bc.n, stride_c, bc.batch) != CUBLAS_STATUS_SUCCESS)
          throw CudaFailure("cublasDgemmStridedBatched failed");
      check(cudaDeviceSynchronize(), "float64 reference");
      for (double* p : {a64, b64, abs_a, abs_b}) cudaFree(p);
    }
    const bool flush = 4.0 * double(buf.a_count + buf.b_count + buf.c_count) < 2.0 * facts.l2_bytes;
    // auto in each math, then each kernel --kernels names (rows of their own, outside the means).
    std::vector<std::pair<Math, std::string_view>> runs;
    for (Math math : maths) {
      runs.push_back({math, "auto"});
      for (const KernelInfo& k : kernels())
        if (!o.kernels.empty() && k.math == math && kernel_selected(o, k.slug))
          runs.push_back({math, k.slug});
    }
    for (auto [math, slug] : runs) {
      Row r{bc, math};
      Options opt;
      opt.math = math;
      opt.kernel = slug;
      const bool named = slug != "auto";
      const float alpha = 1, beta = 0;
      auto ours = [&] {
        return gemm_strided_batched(Layout::RowMajor, bc.op_a, bc.op_b, bc.m, bc.n, bc.k, alpha,
                                    buf.a, lda, stride_a, buf.b, ldb, stride_b, beta, buf.c,
                                    bc.n, stride_c, bc.batch, nullptr, opt);
      };
      auto theirs = [&] {
        if (cublasGemmStridedBatchedEx(
                cublas, cublas_op(bc.op_b), cublas_op(bc.op_a), bc.n, bc.m, bc.k, &alpha, buf.b,
                CUDA_R_32F, ldb, stride_b, buf.a, CUDA_R_32F, lda, stride_a, &beta, buf.c,
                CUDA_R_32F, bc.n, stride_c, bc.batch,
                math == Math::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
          throw CudaFailure("cublasGemmStridedBatchedEx failed");
      };
      if (named) r.kernel = "  " + std::string(slug);
      if (!named) {  // auto's choice, as gemm_strided_batched makes it
        detail::Canonical p = detail::to_canonical(
            {Layout::RowMajor, bc.op_a, bc.op_b, bc.m, bc.n, bc.k, buf.a, lda, buf.b, ldb, buf.c, bc.n});
        p.batch = bc.batch, p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
        detail::Decision d;
        std::string message;
        if (detail::choose(detail::fold_batch(p), opt, device, SIZE_MAX, &d, &message) == Status::Success)
          r.kernel = std::string(d.kernel->info.slug) + (detail::fold_batch(p).batch == 1 ? " (1 call)" : "");
      }
      theirs();
      check(cudaDeviceSynchronize(), "cuBLAS");
      r.cublas_err = judge_c(buf, bc, math == Math::Tf32 ? Math::Tf32 : Math::Fp32).rel_fro;
      check(cudaMemset(buf.c, 0xff, 4 * buf.c_count), "poison C");
      const Status s = ours();
      check(cudaDeviceSynchronize(), "sgemm");
      const Verdict v = judge_c(buf, bc, math);
      r.err = v.rel_fro;
      const bool pass = s == Status::Success && v.bad == 0 &&
                        (math != Math::Fp32Tf32x3 || r.err <= 2 * r.cublas_err);
      if (named && s == Status::NotSupported) continue;
      r.status = s != Status::Success ? std::string("ERROR ") + std::string(last_error())
                 : pass              ? "PASS"
                                     : "FAIL " + std::to_string(v.bad) + " elements over the bound";
      failed |= !pass;
      if (s == Status::Success) {
        const PairTimes t = time_pairs(timer, theirs, ours, o.pairs, flush);
        r.ratio = t.ratio, r.ms = t.ours_ms, r.cublas_ms = t.theirs_ms;
      }
      std::printf("%-36s %-7s %-24s %9.4f %9.4f %8.4f %9.2e %9.2e %s\n", describe(bc).c_str(),
                  math_flag(math), r.kernel.c_str(), r.ms, r.cublas_ms, r.ratio, r.err,
                  r.cublas_err, r.status.c_str());
      std::fflush(stdout);
      if (!named) rows.push_back(r);
    }
  }
  std::vector<Ratio> ratios;
  for (const Row& r : rows) ratios.push_back({r.math, r.ratio, describe(r.call)});
  print_means(ratios, maths, "calls", "call");
  if (!o.csv_path.empty()) {
    std::ofstream out(o.csv_path);
    out << "device,date,batch,op_a,op_b,m,n,k,shared_b,math,auto_kernel,ms,cublas_ms,ratio_median,"
           "rel_err,cublas_rel_err,status\n";
    for (const Row& r : rows)
      out << facts.name << ',' << today() << ',' << r.call.batch << ','
          << (r.call.op_a == Op::N ? 'N' : 'T') << ',' << (r.call.op_b == Op::N ? 'N' : 'T') << ','
          << r.call.m << ',' << r.call.n << ',' << r.call.k << ',' << r.call.shared_b << ','
          << math_flag(r.math) << ',' << r.kernel << ',' << r.ms << ',' << r.cublas_ms << ','
          << r.ratio << ',' << r.err << ',' << r.cublas_err << ",\"" << r.status << "\"\n";
  }
  cublasDestroy(cublas);
  return failed ? 1 : 0;
}

}  // namespace sgemm::bench

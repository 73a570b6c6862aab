// sgemm::gemm(): argument validation, reference-BLAS quick returns, kernel choice, launch.
#include "sgemm/sgemm.hpp"

#include <algorithm>
#include <string>

#include "api/gemm.hpp"
#include "api/registry.hpp"
#include "api/scale_c.hpp"
#include "dispatch/dispatch.hpp"
#include "kernels/epilogue/split_sum.hpp"
#include "runtime/device.hpp"
#include "runtime/workspace.hpp"

namespace sgemm {
using detail::fail;
using detail::from_cuda;

namespace {

thread_local std::string t_last_error;

bool valid(Layout l) { return l == Layout::RowMajor || l == Layout::ColMajor; }
bool valid(Op o) { return o == Op::N || o == Op::T; }
bool valid(Math m) { return m == Math::Fp32 || m == Math::Fp32Tf32x3 || m == Math::Tf32; }

}  // namespace

namespace detail {

bool valid_math(Math math) { return valid(math); }

Status fail(Status status, std::string message) {
  t_last_error = std::move(message);
  return status;
}

Status from_cuda(cudaError_t err, std::string_view what) {
  std::string msg = std::string(what) + ": " + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ")";
  switch (err) {
    case cudaErrorMemoryAllocation: return fail(Status::OutOfMemory, msg);
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice: return fail(Status::NoDevice, msg);
    default: return fail(Status::CudaError, msg);
  }
}

Canonical to_canonical(const Problem& p, float alpha, float beta) {
  // Row-major: A and B keep their places. op N on a row-major A (m x k) is K-major; op T on a
  // row-major B (stored n x k) is K-major.
  if (p.layout == Layout::RowMajor)
    return {p.m, p.n, p.k, alpha, beta, p.a, p.lda, p.op_a == Op::N, p.b, p.ldb,
            p.op_b == Op::T, p.c, p.ldc};
  // Column-major: C^T (row-major n x m) = op(B)^T op(A)^T. The new A is op(B)^T, whose element
  // (j, p) is op(B)(p, j): K-major when B is stored k x n column-major (op N).
  return {p.n, p.m, p.k, alpha, beta, p.b, p.ldb, p.op_b == Op::N, p.a, p.lda,
          p.op_a == Op::T, p.c, p.ldc};
}

Status validate(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                float beta, const float* c, std::int64_t ldc, const Options& options,
                std::string* message) {
  auto bad = [&](std::string text) {
    *message = std::move(text);
    return Status::InvalidValue;
  };
  if (!valid(layout)) return bad("layout: not RowMajor or ColMajor");
  if (!valid(op_a)) return bad("op_a: not N or T");
  if (!valid(op_b)) return bad("op_b: not N or T");
  if (!valid(options.math)) return bad("options.math: not a Math value");
  if (options.workspace != nullptr &&
      reinterpret_cast<std::uintptr_t>(options.workspace) % Workspace::kAlign != 0)
    return bad("options.workspace: not 256-byte aligned");
  if (options.workspace == nullptr && options.workspace_bytes != 0)
    return bad("options.workspace_bytes: nonzero without options.workspace");
  if (m < 0) return bad("m = " + std::to_string(m) + " < 0");
  if (n < 0) return bad("n = " + std::to_string(n) + " < 0");
  if (k < 0) return bad("k = " + std::to_string(k) + " < 0");
  // The extent of each matrix along its leading dimension, as stored.
  const bool row = layout == Layout::RowMajor;
  const std::int64_t a_lead = row ? (op_a == Op::N ? k : m) : (op_a == Op::N ? m : k);
  const std::int64_t b_lead = row ? (op_b == Op::N ? n : k) : (op_b == Op::N ? k : n);
  const std::int64_t c_lead = row ? n : m;
  auto check_ld = [&](const char* name, std::int64_t ld, std::int64_t lead) -> bool {
    if (ld >= std::max<std::int64_t>(1, lead)) return true;
    *message = std::string(name) + " = " + std::to_string(ld) + " < max(1, " +
               std::to_string(lead) + ")";
    return false;
  };
  if (!check_ld("lda", lda, a_lead) || !check_ld("ldb", ldb, b_lead) ||
      !check_ld("ldc", ldc, c_lead))
    return Status::InvalidValue;
  if (options.kernel != "auto") {
    const KernelEntry* e = find_kernel(options.kernel);
    if (!e) return bad("options.kernel: no kernel named '" + std::string(options.kernel) + "'");
    if (e->info.math != options.math)
      return bad("options.kernel: '" + std::string(e->info.slug) + "' computes " +
                 to_string(e->info.math) + " math but options.math is " + to_string(options.math));
  }
  const Work work = plan(m, n, k, alpha, beta);
  if (work == Work::Multiply && a == nullptr) return bad("a is null");
  if (work == Work::Multiply && b == nullptr) return bad("b is null");
  if (work != Work::None && c == nullptr) return bad("c is null");
  return Status::Success;
}

Status validate_batch(Layout layout, std::int64_t m, std::int64_t n, std::int64_t ldc,
                      std::int64_t stride_a, std::int64_t stride_b, std::int64_t stride_c,
                      std::int64_t batch, std::string* message) {
  auto bad = [&](std::string text) {
    *message = std::move(text);
    return Status::InvalidValue;
  };
  if (batch < 0) return bad("batch = " + std::to_string(batch) + " < 0");
  if (stride_a < 0) return bad("stride_a = " + std::to_string(stride_a) + " < 0");
  if (stride_b < 0) return bad("stride_b = " + std::to_string(stride_b) + " < 0");
  if (stride_c < 0) return bad("stride_c = " + std::to_string(stride_c) + " < 0");
  if (batch <= 1 || m == 0 || n == 0) return Status::Success;
  // C as stored: `lines` lines (rows, or columns in ColMajor) of `length` floats, ldc apart.
  const bool row = layout == Layout::RowMajor;
  const std::int64_t lines = row ? m : n, length = row ? n : m;
  // In 128 bits, so that no product of legal values wraps into a passing test.
  const __int128 extent = __int128(lines - 1) * ldc + length;
  const bool one_after_another = stride_c >= extent;
  const bool interleaved = stride_c >= length && __int128(batch - 1) * stride_c + length <= ldc;
  if (one_after_another || interleaved) return Status::Success;
  return bad("stride_c = " + std::to_string(stride_c) + ": C's matrices overlap (one spans " +
             std::to_string(std::int64_t(std::min<__int128>(extent, INT64_MAX))) + " floats, and " + std::to_string(batch) +
             " of them do not interleave within ldc = " + std::to_string(ldc) + ")");
}

Work plan(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, float beta) {
  if (m == 0 || n == 0) return Work::None;
  if (alpha == 0.0f || k == 0) return beta == 1.0f ? Work::None : Work::ScaleC;
  return Work::Multiply;
}

}  // namespace detail

namespace {

// What every entry point does first: checks the arguments, maps the call to the kernels' one
// problem, and finds the stream's device.
struct Call {
  detail::Canonical p;
  detail::Work work;
  detail::Device device;
};

// The batch of a strided-batched call; one matrix for gemm().
struct Batch {
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0, count = 1;
};

Status prepare(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
               float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
               float beta, const float* c, std::int64_t ldc, const Batch& batch,
               cudaStream_t stream, const Options& options, Call* call) {
  std::string message;
  if (Status s = detail::validate(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                  ldc, options, &message);
      s != Status::Success)
    return fail(s, std::move(message));
  if (Status s = detail::validate_batch(layout, m, n, ldc, batch.stride_a, batch.stride_b,
                                        batch.stride_c, batch.count, &message);
      s != Status::Success)
    return fail(s, std::move(message));
  call->p = detail::to_canonical(
      {layout, op_a, op_b, m, n, k, a, lda, b, ldb, const_cast<float*>(c), ldc}, alpha, beta);
  // Column-major calls swap A and B (to_canonical); their strides go with them.
  const bool swapped = layout == Layout::ColMajor;
  call->p.batch = batch.count;
  call->p.stride_a = swapped ? batch.stride_b : batch.stride_a;
  call->p.stride_b = swapped ? batch.stride_a : batch.stride_b;
  call->p.stride_c = batch.stride_c;
  call->work = batch.count == 0 ? detail::Work::None : detail::plan(m, n, k, alpha, beta);
  if (call->work == detail::Work::None) return Status::Success;
  call->p = detail::fold_batch(call->p);
  int ordinal = 0;
  if (cudaError_t err = detail::stream_device(stream, &ordinal)) return from_cuda(err, "the stream's device");
  if (cudaError_t err = detail::device_facts(ordinal, &call->device))
    return from_cuda(err, "the device's attributes");
  return Status::Success;
}

std::size_t workspace_limit(const Options& options) {
  return options.workspace ? options.workspace_bytes : SIZE_MAX;
}

// The kernel for a prepared call that multiplies.
Status decide(const detail::Canonical& p, const detail::Device& device, const Options& options,
              detail::Decision* decision) {
  std::string message;
  if (Status s = detail::choose(p, options, device, workspace_limit(options), decision, &message);
      s != Status::Success)
    return fail(s, std::move(message));
  return Status::Success;
}

// Copies A and B as they are stored into the staging buffers a and b (detail::Staging).
cudaError_t stage_operands(const detail::Canonical& p, const detail::Staging& s, float* a,
                           float* b, cudaStream_t stream) {
  cudaError_t err = cudaMemcpy2DAsync(a, s.lda * sizeof(float), p.a, p.lda * sizeof(float),
                                      s.a_length * sizeof(float), s.a_lines,
                                      cudaMemcpyDeviceToDevice, stream);
  if (err == cudaSuccess)
    err = cudaMemcpy2DAsync(b, s.ldb * sizeof(float), p.b, p.ldb * sizeof(float),
                            s.b_length * sizeof(float), s.b_lines, cudaMemcpyDeviceToDevice,
                            stream);
  return err;
}

}  // namespace

Status detail::enqueue_product(const Canonical& p, const Device& device, cudaStream_t stream,
                               const Options& options) {
  Decision decision;
  if (Status s = decide(p, device, options, &decision); s != Status::Success) return s;
  void* scratch = options.workspace;
  if (!scratch)
    if (cudaError_t err = take_pooled(device.ordinal, decision.workspace_bytes, stream, &scratch))
      return from_cuda(err, "taking the workspace");
  cudaError_t err = cudaSuccess;
  if (decision.staged) {
    // Aligned copies of A and B, the product into an aligned C, then C = alpha C' + beta C.
    Workspace workspace(scratch, decision.workspace_bytes);
    const Staging s = staging_of(p);
    float* a = workspace.take<float>(std::int64_t(s.a_bytes / sizeof(float)));
    float* b = workspace.take<float>(std::int64_t(s.b_bytes / sizeof(float)));
    float* c = workspace.take<float>(std::int64_t(s.c_bytes / sizeof(float)));
    err = a && b && c ? stage_operands(p, s, a, b, stream) : cudaErrorMemoryAllocation;
    if (err == cudaSuccess)
      err = decision.kernel->launch(staged_call(p, s, a, b, c),
                                    {stream, device, workspace, nullptr, decision.handoff});
    if (err == cudaSuccess)
      err = split_sum({c, s.ldc, 1, p.m, p.n, p.c, p.ldc, false, p.alpha, p.beta, nullptr}, device,
                      stream);
  } else if (decision.k_ranges > 1) {
    // The ranges of k as one batch (and the shorter last one), then their sum into C.
    Workspace workspace(scratch, decision.workspace_bytes);
    float* partial = workspace.take<float>(
        std::int64_t(k_ranges_bytes(p, decision.k_ranges) / sizeof(float)));
    if (!partial) err = cudaErrorMemoryAllocation;
    const KRanges split = k_ranges_of(p, decision.k_range, partial);
    for (const Canonical& part : {split.whole, split.rest}) {
      if (part.k == 0 || err != cudaSuccess) continue;
      const std::size_t mark = workspace.mark();
      err = decision.kernel->launch(part, {stream, device, workspace, nullptr, decision.handoff});
      workspace.release(mark);
    }
    if (err == cudaSuccess)
      err = split_sum({partial, k_ranges_ld(p), decision.k_ranges, p.m, p.n, p.c, p.ldc, false,
                       p.alpha, p.beta, nullptr},
                      device, stream);
  } else {
    // A kernel without `batched` runs the matrices one after another on the stream, each in the
    // same scratch.
    const bool one_launch = decision.kernel->batched || p.batch == 1;
    for (std::int64_t i = 0; i < (one_launch ? 1 : p.batch) && err == cudaSuccess; ++i) {
      Workspace workspace(scratch, decision.workspace_bytes);
      err = decision.kernel->launch(one_launch ? p : p.matrix(i),
                                    {stream, device, workspace, nullptr, decision.handoff});
    }
  }
  if (scratch && !options.workspace)
    if (cudaError_t free_err = cudaFreeAsync(scratch, stream); err == cudaSuccess) err = free_err;
  if (err) return from_cuda(err, std::string(decision.kernel->info.slug));
  return Status::Success;
}

namespace {

// Enqueues a prepared call that has work to do.
Status run(const Call& call, cudaStream_t stream, const Options& options) {
  const detail::CurrentDevice current(call.device.ordinal);
  if (current.error()) return from_cuda(current.error(), "making the stream's device current");
  if (call.work == detail::Work::ScaleC) {
    if (cudaError_t err = detail::scale_c(call.p.c, call.p.m, call.p.n, call.p.ldc, call.p.batch,
                                          call.p.stride_c, call.p.beta, stream))
      return from_cuda(err, "scaling C");
    return Status::Success;
  }
  return detail::enqueue_product(call.p, call.device, stream, options);
}

// The scratch bytes of a prepared call.
Status workspace_size(const Call& call, const Options& options, std::size_t* bytes) {
  if (call.work != detail::Work::Multiply) return Status::Success;
  detail::Decision decision;
  if (Status s = decide(call.p, call.device, options, &decision); s != Status::Success) return s;
  *bytes = decision.workspace_bytes;
  return Status::Success;
}

}  // namespace

Status gemm(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
            float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
            float beta, float* c, std::int64_t ldc, cudaStream_t stream, const Options& options) {
  Call call;
  if (Status s = prepare(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {},
                         stream, options, &call);
      s != Status::Success || call.work == detail::Work::None)
    return s;
  return run(call, stream, options);
}

Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                            std::int64_t k, float alpha, const float* a, std::int64_t lda,
                            std::int64_t stride_a, const float* b, std::int64_t ldb,
                            std::int64_t stride_b, float beta, float* c, std::int64_t ldc,
                            std::int64_t stride_c, std::int64_t batch, cudaStream_t stream,
                            const Options& options) {
  Call call;
  if (Status s = prepare(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                         {stride_a, stride_b, stride_c, batch}, stream, options, &call);
      s != Status::Success || call.work == detail::Work::None)
    return s;
  return run(call, stream, options);
}

Status gemm_workspace_size(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                           std::int64_t k, float alpha, const float* a, std::int64_t lda,
                           const float* b, std::int64_t ldb, float beta, const float* c,
                           std::int64_t ldc, std::size_t* bytes, cudaStream_t stream,
                           const Options& options) {
  if (bytes == nullptr) return fail(Status::InvalidValue, "bytes is null");
  *bytes = 0;
  Call call;
  if (Status s = prepare(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {},
                         stream, options, &call);
      s != Status::Success)
    return s;
  return workspace_size(call, options, bytes);
}

Status gemm_strided_batched_workspace_size(
    Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
    const float* a, std::int64_t lda, std::int64_t stride_a, const float* b, std::int64_t ldb,
    std::int64_t stride_b, float beta, const float* c, std::int64_t ldc, std::int64_t stride_c,
    std::int64_t batch, std::size_t* bytes, cudaStream_t stream, const Options& options) {
  if (bytes == nullptr) return fail(Status::InvalidValue, "bytes is null");
  *bytes = 0;
  Call call;
  if (Status s = prepare(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                         {stride_a, stride_b, stride_c, batch}, stream, options, &call);
      s != Status::Success)
    return s;
  return workspace_size(call, options, bytes);
}

void set_workspace_cache_limit(std::size_t bytes) { detail::set_pool_cache_limit(bytes); }

Status release_workspace_cache() {
  if (cudaError_t err = detail::trim_pools()) return from_cuda(err, "trimming the pools");
  return Status::Success;
}

const char* to_string(Status s) {
  switch (s) {
    case Status::Success: return "Success";
    case Status::InvalidValue: return "InvalidValue";
    case Status::NotSupported: return "NotSupported";
    case Status::NoDevice: return "NoDevice";
    case Status::CudaError: return "CudaError";
    case Status::OutOfMemory: return "OutOfMemory";
  }
  return "unknown Status";
}

const char* to_string(Math m) {
  switch (m) {
    case Math::Fp32: return "Fp32";
    case Math::Fp32Tf32x3: return "Fp32Tf32x3";
    case Math::Tf32: return "Tf32";
  }
  return "unknown Math";
}

const char* to_string(Track t) {
  switch (t) {
    case Track::Simt: return "simt";
    case Track::Cute: return "cute";
    case Track::TensorCore: return "tensorcore";
    case Track::Fallback: return "fallback";
    case Track::Conv: return "conv";
  }
  return "unknown Track";
}

const char* to_string(Unit u) {
  switch (u) {
    case Unit::Fp32Core: return "fp32-core";
    case Unit::Tf32Tensor: return "tf32-tensor";
    case Unit::Fp16Tensor: return "fp16-tensor";
  }
  return "unknown Unit";
}

std::string_view last_error() { return t_last_error; }

}  // namespace sgemm

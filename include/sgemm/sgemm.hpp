// sgemm: single-precision matrix multiplication on NVIDIA GPUs.
//
//   C = alpha * op(A) * op(B) + beta * C        (float32 in, float32 out)
//
// The semantics are those of reference BLAS (column-major) and CBLAS (row-major);
// docs/design.md in the repository holds the full contract.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace sgemm {

enum class Layout { RowMajor, ColMajor };  // storage order of A, B and C
enum class Op { N, T };                    // op(X) = X or X^T
enum class Math {
  Fp32,        // IEEE float32 FMA on CUDA cores (default; what cublasSgemm computes)
  Fp32Tf32x3,  // tensor cores, operands split into TF32 big+small parts; accuracy of Fp32
  Tf32,        // tensor cores, operands rounded to TF32 (fast, ~1e-3 relative error)
};
enum class Status { Success, InvalidValue, NotSupported, NoDevice, CudaError, OutOfMemory };
// The ladder a kernel belongs to; Fallback is the library's kernel of last resort.
enum class Track { Simt, Cute, TensorCore, Fallback, Conv };
// The arithmetic units a kernel's products run on (what the bench's %peak is taken against).
enum class Unit { Fp32Core, Tf32Tensor, Fp16Tensor };

struct Options {
  std::string_view kernel = "auto";  // a registry slug, or "auto"
  Math math = Math::Fp32;
  // Scratch memory the caller owns: with workspace set, the call takes its scratch from there
  // (256-byte aligned, at least gemm_workspace_size bytes for a named kernel; `auto` passes over
  // kernels that need more) and allocates nothing. Without it, the call takes scratch from a
  // per-device pool, stream-ordered (see set_workspace_cache_limit).
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// Enqueues C = alpha * op(A) * op(B) + beta * C on `stream`, on the stream's device. Never
// synchronizes, never throws; can be captured into a CUDA graph. Leading dimensions follow BLAS
// (ColMajor) and CBLAS (RowMajor): lda >= max(1, rows of A as stored in the given layout's
// sense), likewise ldb and ldc.
Status gemm(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
            float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
            float beta, float* c, std::int64_t ldc, cudaStream_t stream = nullptr,
            const Options& options = {});

// The scratch bytes the same call of gemm() would take, in *bytes (0 for most calls). The
// arguments are checked as gemm() checks them; the device is the stream's. Pass a workspace of
// this size in Options to make the call allocate nothing.
Status gemm_workspace_size(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                           std::int64_t k, float alpha, const float* a, std::int64_t lda,
                           const float* b, std::int64_t ldb, float beta, const float* c,
                           std::int64_t ldc, std::size_t* bytes, cudaStream_t stream = nullptr,
                           const Options& options = {});

// Enqueues `batch` independent products C_i = alpha * op(A_i) * op(B_i) + beta * C_i, where
// matrix i of X starts at x + i * stride_x (elements), with the arguments and statuses of gemm().
// A stride of 0 broadcasts A or B to every product; strides are >= 0. C's matrices must not
// overlap: either each one ends before the next starts (stride_c >= (rows - 1) * ldc + cols, as
// stored) or they interleave within the rows (stride_c >= cols, as stored, and
// (batch - 1) * stride_c + cols <= ldc); otherwise InvalidValue. With batch == 0 the call checks
// its arguments as gemm() does and then does nothing.
Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                            std::int64_t k, float alpha, const float* a, std::int64_t lda,
                            std::int64_t stride_a, const float* b, std::int64_t ldb,
                            std::int64_t stride_b, float beta, float* c, std::int64_t ldc,
                            std::int64_t stride_c, std::int64_t batch,
                            cudaStream_t stream = nullptr, const Options& options = {});

// The scratch bytes the same call of gemm_strided_batched() would take (see gemm_workspace_size).
Status gemm_strided_batched_workspace_size(
    Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
    const float* a, std::int64_t lda, std::int64_t stride_a, const float* b, std::int64_t ldb,
    std::int64_t stride_b, float beta, const float* c, std::int64_t ldc, std::int64_t stride_c,
    std::int64_t batch, std::size_t* bytes, cudaStream_t stream = nullptr,
    const Options& options = {});

// A forward 2-D convolution (cross-correlation, as PyTorch and cuDNN define it) on dense,
// channels-last tensors: input x is N x H x W x C (NHWC), filter w is K x R x S x (C / groups)
// (KRSC), output y is N x P x Q x K (NPQK) with
//   P = (H + 2 pad_h - dilation_h (R - 1) - 1) / stride_h + 1, likewise Q.
// With groups > 1, input channels [g C/G, (g+1) C/G) feed output channels [g K/G, (g+1) K/G).
// NCHW data converts by a transpose (in PyTorch: .to(memory_format=torch.channels_last)).
struct Conv2dShape {
  std::int64_t n = 0, h = 0, w = 0, c = 0;  // input
  std::int64_t k = 0, r = 0, s = 0;         // filter: K output channels of R x S
  std::int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t groups = 1;
  std::int64_t p() const;  // output height, as above (0 or less for an impossible shape)
  std::int64_t q() const;  // output width
};

// Enqueues y = alpha * conv(x, w) + beta * y on `stream`, like gemm(): validated (InvalidValue
// names the bad field), quick returns (an empty output does nothing; alpha == 0 scales y), never
// synchronizes. options.kernel names a conv kernel (conv_kernels() lists them) or "auto";
// options.math as for gemm.
Status conv2d(const Conv2dShape& shape, float alpha, const float* x, const float* w, float beta,
              float* y, cudaStream_t stream = nullptr, const Options& options = {});

// The per-device pools behind calls without Options::workspace keep up to this many bytes of
// freed scratch for later calls (1 GiB by default); at a synchronization they give the rest back.
void set_workspace_cache_limit(std::size_t bytes);
// Gives every pool's unused scratch back to the driver. Scratch of calls still in flight is
// returned once they complete and the caller synchronizes.
Status release_workspace_cache();

const char* to_string(Status);
const char* to_string(Math);
const char* to_string(Track);
const char* to_string(Unit);
std::string_view last_error();  // thread-local detail for the last non-Success status

// One call of gemm() as the registry sees it: what a kernel's requirements are judged on.
struct Problem {
  Layout layout = Layout::RowMajor;
  Op op_a = Op::N, op_b = Op::N;
  std::int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  std::int64_t lda = 1;
  const float* b = nullptr;
  std::int64_t ldb = 1;
  float* c = nullptr;
  std::int64_t ldc = 1;
};

struct KernelInfo {
  std::string_view slug;          // e.g. "simt-05-blocktile-2d": what Options::kernel names
  Track track;
  int rung;                       // position in its track's ladder (1-based)
  std::string_view title;         // one line: what makes this rung
  Math math;
  std::string_view source;        // the seed article and section the rung comes from
  std::string_view requirements;  // "none", or what a call must meet (alignment, ld, device)
  Unit unit = Unit::Fp32Core;

  // True when this kernel computes the call correctly; otherwise false and, if `reason` is
  // given, why not. Argument validity (ld >= rows, ...) is checked by gemm(), not here.
  bool supports(const Problem& problem, std::string* reason = nullptr) const;
};

std::span<const KernelInfo> kernels();  // the registry, in ladder order
// The convolution kernels conv2d's Options::kernel names (track Conv), in ladder order. A GEMM
// kernel's KernelInfo::supports judges GEMM problems only.
std::span<const KernelInfo> conv_kernels();

}  // namespace sgemm

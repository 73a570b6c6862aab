// `sgemm-bench --conv-suite` and `--conv` (conv.hpp).
#include "conv.hpp"

#include <cstdio>

#if SGEMM_BENCH_CUDNN
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "device_facts.hpp"
#include "dispatch/conv.hpp"
#include "dispatch/dispatch.hpp"
#include "pairs.hpp"
#include "reference/conv_reference.hpp"
#include "runtime/device.hpp"
#endif

namespace sgemm::bench {

#if SGEMM_BENCH_CUDNN
namespace {

// A cuDNN call that failed: its row says so, and the suite goes on with the next math.
struct CudnnFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void cudnn_check(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw CudnnFailure(std::string(what) + ": " + cudnnGetErrorString(status));
}

const char* algo_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "implicit-gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "precomp-gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "direct";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "fft";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "fft-tiling";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "winograd";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "winograd-nonfused";
    default: return "unknown";
  }
}

const char* math_type_name(cudnnMathType_t type) {
  switch (type) {
    case CUDNN_DEFAULT_MATH: return "default";
    case CUDNN_TENSOR_OP_MATH: return "tensor-op";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor-op-conversion";
    case CUDNN_FMA_MATH: return "fma";
    default: return "unknown";
  }
}

class CudnnHandle {
 public:
  CudnnHandle() { cudnn_check(cudnnCreate(&handle_), "cudnnCreate"); }
  ~CudnnHandle() { cudnnDestroy(handle_); }
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  operator cudnnHandle_t() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

// A cuDNN descriptor, destroyed with its owner.
template <typename T, cudnnStatus_t (*create)(T*), cudnnStatus_t (*destroy)(T)>
class Descriptor {
 public:
  Descriptor() { cudnn_check(create(&desc_), "creating a cuDNN descriptor"); }
  ~Descriptor() { destroy(desc_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  operator T() const { return desc_; }

 private:
  T desc_ = nullptr;
};
using TensorDescriptor =
    Descriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDescriptor =
    Descriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor = Descriptor<cudnnConvolutionDescriptor_t,
                                         cudnnCreateConvolutionDescriptor,
                                         cudnnDestroyConvolutionDescriptor>;

// One convolution in cuDNN, y = conv(x, w) on the default stream: NHWC x and y, the filter in
// cuDNN's NHWC filter format (K x R x S x C/G, which is KRSC), cross-correlation in float, with
// cuDNN's fastest forward algorithm among those the math allows and that algorithm's workspace.
class CudnnConv {
 public:
  CudnnConv(cudnnHandle_t handle, const Conv2dShape& s, Math math) : handle_(handle) {
    cudnn_check(cudnnSetTensor4dDescriptor(x_, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, int(s.n),
                                           int(s.c), int(s.h), int(s.w)),
                "x descriptor");
    cudnn_check(cudnnSetFilter4dDescriptor(w_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, int(s.k),
                                           int(s.c / s.groups), int(s.r), int(s.s)),
                "w descriptor");
    cudnn_check(cudnnSetConvolution2dDescriptor(conv_, int(s.pad_h), int(s.pad_w), int(s.stride_h),
                                                int(s.stride_w), int(s.dilation_h),
                                                int(s.dilation_w), CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT),
                "convolution descriptor");
    cudnn_check(cudnnSetConvolutionGroupCount(conv_, int(s.groups)), "group count");
    int n = 0, k = 0, p = 0, q = 0;
    cudnn_check(cudnnGetConvolution2dForwardOutputDim(conv_, x_, w_, &n, &k, &p, &q), "output size");
    if (p != s.p() || q != s.q())
      throw CudnnFailure("cuDNN's output is " + std::to_string(p) + "x" + std::to_string(q) +
                         ", conv2d's " + std::to_string(s.p()) + "x" + std::to_string(s.q()));
    cudnn_check(cudnnSetTensor4dDescriptor(y_, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, k, p, q),
                "y descriptor");
    choose_algorithm(math);
  }

  void run(const float* x, const float* w, float* y) const {
    const float alpha = 1, beta = 0;
    cudnn_check(cudnnConvolutionForward(handle_, &alpha, x_, x, w_, w, conv_, algo_,
                                        workspace_.get(), workspace_bytes_, &beta, y_, y),
                "cudnnConvolutionForward");
  }

  // "precomp-gemm/tensor-op": the algorithm and the math type it runs in.
  std::string algorithm() const {
    return std::string(algo_name(algo_)) + "/" + math_type_name(math_type_);
  }

 private:
  void choose_algorithm(Math math) {
    // For float data CUDNN_FMA_MATH keeps cuDNN on FP32 FMA kernels: the baseline of Fp32 and of
    // Fp32Tf32x3 (FP32's accuracy). CUDNN_TENSOR_OP_MATH lets it use tensor cores without
    // converting the data type, which for float is TF32 (CUDNN_DEFAULT_MATH also allows TF32 on
    // sm_80 and later): the baseline of Tf32. CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION would also let
    // it convert x and w to FP16, which is not TF32's arithmetic, so its results are passed over.
    const bool tf32 = math == Math::Tf32;
    cudnn_check(cudnnSetConvolutionMathType(conv_, tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
                "math type");
    auto allowed = [tf32](cudnnMathType_t type) {
      return tf32 ? type != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION : type == CUDNN_FMA_MATH;
    };
    int count = 0;
    cudnn_check(cudnnGetConvolutionForwardAlgorithmMaxCount(handle_, &count), "algorithm count");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> found(std::max(count, 1));
    int returned = 0;
    cudnn_check(cudnnFindConvolutionForwardAlgorithm(handle_, x_, w_, conv_, y_, count, &returned,
                                                     found.data()),
                "cudnnFindConvolutionForwardAlgorithm");
    // Find times every algorithm (in every math type the descriptor allows) and returns them
    // fastest first, each with the math type it ran in.
    const auto end = found.begin() + returned;
    const auto best = std::find_if(found.begin(), end, [&](const auto& perf) {
      return perf.status == CUDNN_STATUS_SUCCESS && allowed(perf.mathType);
    });
    if (best == end) throw CudnnFailure("no forward algorithm runs in this math");
    algo_ = best->algo;
    math_type_ = best->mathType;
    // The math type picks the algorithm's kernels as much as the algorithm does.
    cudnn_check(cudnnSetConvolutionMathType(conv_, math_type_), "math type");
    cudnn_check(cudnnGetConvolutionForwardWorkspaceSize(handle_, x_, w_, conv_, y_, algo_,
                                                        &workspace_bytes_),
                "workspace size");
    workspace_bytes_ = std::max(workspace_bytes_, best->memory);
    if (workspace_bytes_ > 0) {
      void* workspace = nullptr;
      check(cudaMalloc(&workspace, workspace_bytes_), "cudaMalloc (cuDNN workspace)");
      workspace_.reset(workspace);
    }
  }

  cudnnHandle_t handle_;
  TensorDescriptor x_, y_;
  FilterDescriptor w_;
  ConvolutionDescriptor conv_;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math_type_ = CUDNN_FMA_MATH;
  std::size_t workspace_bytes_ = 0;
  std::unique_ptr<void, cudaError_t (*)(void*)> workspace_{nullptr, cudaFree};
};

struct ConvRow {
  ConvLayer layer;
  Math math;
  std::string run;     // "auto", or the conv kernel --kernels named
  std::string kernel;  // what ran: auto's choice, or the named kernel
  std::string cudnn_algo = "-";
  double ms = 0, cudnn_ms = 0, ratio = 0, err = 0, cudnn_err = 0;
  std::string status;
};

double tflops(const Conv2dShape& shape, double ms) {
  return ms > 0 ? conv_flops(shape) / (ms * 1e-3) / 1e12 : 0;
}

// What conv2d's auto runs for the layer in `math`, as conv2d decides it: a conv rung's slug, or
// the GEMM kernel of the lowering, "(gemm)" on x itself or "(im2col)" on the patch matrix.
std::string auto_choice(ref::ConvBuffers& buf, Math math, const detail::Device& device) {
  const Conv2dShape& s = buf.shape();
  const detail::ConvProblem p{s, s.p(), s.q(), 1, 0, buf.x(), buf.w(), buf.y()};
  Options opt;
  opt.math = math;
  detail::ConvDecision conv;
  std::string message;
  if (detail::choose_conv(p, opt, device, &conv, &message) != Status::Success) return "-";
  if (conv.kernel) return std::string(conv.kernel->info.slug);
  // The patch matrix comes from the device's pool, aligned as x is (cudaMalloc's 256 bytes).
  const detail::Canonical product =
      detail::lowered_product(p, buf.x(), conv.im2col ? conv.cols_ld : s.c);
  detail::Decision gemm;
  if (detail::choose(product, opt, device, SIZE_MAX, &gemm, &message) != Status::Success) return "-";
  return std::string(gemm.kernel->info.slug) + (conv.im2col ? " (im2col)" : " (gemm)");
}

std::string csv_quote(const std::string& text) {
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string cudnn_version() {
  const std::size_t v = cudnnGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace

int run_conv_suite(const BenchOptions& o, const DeviceFacts& facts) {
  CudnnHandle cudnn_handle;
  Timer timer(facts.l2_bytes);
  detail::Device device;
  check(detail::device_facts(o.device, &device), "device facts");
  const std::vector<Math> maths =
      o.math ? std::vector<Math>{*o.math} : std::vector<Math>{Math::Fp32, Math::Fp32Tf32x3, Math::Tf32};
  std::vector<ConvLayer> layers = o.conv_suite ? conv_suite_calls() : std::vector<ConvLayer>{};
  for (const Conv2dShape& shape : o.convs) layers.push_back({"custom", shape});
  std::printf("device: %s (sm_%d, %d SMs, SM clock %d MHz), CUDA runtime %s, driver %s, cuDNN %s, %s\n",
              facts.name.c_str(), facts.cc, facts.sms, facts.clock_mhz, version(facts.runtime).c_str(),
              version(facts.driver).c_str(), cudnn_version().c_str(), today().c_str());
  std::printf("conv: conv2d auto against cuDNN's fastest forward algorithm by "
              "cudnnFindConvolutionForwardAlgorithm (Fp32, Fp32Tf32x3: CUDNN_FMA_MATH; Tf32: "
              "CUDNN_TENSOR_OP_MATH, TF32 tensor cores), x NHWC, w KRSC, y NPQK, alpha 1, beta 0; "
              "the median of %d per-pair ratios (cuDNN time / ours); TFLOPS count 2 N P Q K C/G R "
              "S for both\n", o.pairs);
  std::printf("\n%-12s %-28s %-7s %-30s %9s %9s %-22s %8s %8s %8s %9s %9s %s\n", "layer", "shape",
              "math", "auto chose", "ms", "cuDNN ms", "cuDNN algorithm", "TFLOPS", "cuDNN", "ratio",
              "rel err", "cuDNN", "status");
  std::vector<ConvRow> rows;
  bool failed = false;
  for (std::size_t li = 0; li < layers.size(); ++li) {
    const ConvLayer& layer = layers[li];
    ref::ConvBuffers buf(layer.shape);
    buf.fill_random(0xc0171000u + li);
    buf.compute_reference();
    const double bytes = 4.0 * double(buf.x_count() + buf.w_count() + buf.y_count());
    const bool flush = bytes < 2.0 * double(facts.l2_bytes);
    // cuDNN's baselines, found and checked once per layer: [0] FMA math (for Fp32 and
    // Fp32Tf32x3), [1] TF32 allowed (for Tf32).
    struct Baseline {
      bool tried = false;
      std::optional<CudnnConv> conv;
      std::string error;
      ref::ConvBuffers::Verdict verdict;
    };
    Baseline baselines[2];
    for (Math math : maths) {
      const Math cudnn_math = math == Math::Tf32 ? Math::Tf32 : Math::Fp32;
      Baseline& baseline = baselines[cudnn_math == Math::Tf32];
      if (!std::exchange(baseline.tried, true)) {
        try {
          baseline.conv.emplace(cudnn_handle, layer.shape, cudnn_math);
          buf.reset_y();
          baseline.conv->run(buf.x(), buf.w(), buf.y());
          check(cudaDeviceSynchronize(), "cuDNN");
          baseline.verdict = buf.verify(1, 0, cudnn_math);
        } catch (const CudnnFailure& e) {
          baseline.conv.reset();
          baseline.error = e.what();
        }
      }
      const std::optional<CudnnConv>& cudnn = baseline.conv;
      const ref::ConvBuffers::Verdict& cudnn_verdict = baseline.verdict;
      // auto, then each conv kernel --kernels names (rows of their own, outside the means).
      std::vector<std::string_view> slugs{"auto"};
      for (const KernelInfo& k : conv_kernels())
        if (!o.kernels.empty() && k.math == math && kernel_selected(o, k.slug))
          slugs.push_back(k.slug);
      for (std::string_view slug : slugs) {
        const bool named = slug != "auto";
        ConvRow r{layer, math, std::string(slug),
                  named ? std::string(slug) : auto_choice(buf, math, device)};
        Options opt;
        opt.math = math;
        opt.kernel = slug;
        auto ours = [&] {
          return conv2d(layer.shape, 1, buf.x(), buf.w(), 0, buf.y(), nullptr, opt);
        };
        auto theirs = [&] { cudnn->run(buf.x(), buf.w(), buf.y()); };
        buf.reset_y();
        const Status s = ours();
        check(cudaDeviceSynchronize(), "conv2d");
        if (named && s == Status::NotSupported) continue;
        if (s != Status::Success) {
          r.status = std::string("ERROR ") + to_string(s) + ": " + std::string(last_error());
        } else {
          const ref::ConvBuffers::Verdict v = buf.verify(1, 0, math);
          r.err = v.rel_fro;
          r.cudnn_err = cudnn_verdict.rel_fro;
          // Fp32Tf32x3 promises FP32's accuracy: no worse than twice cuDNN's FMA result.
          const bool as_accurate = math != Math::Fp32Tf32x3 || !cudnn || r.err <= 2 * r.cudnn_err;
          r.status = !v.pass        ? "FAIL " + v.detail
                     : as_accurate ? "PASS"
                                   : "FAIL rel err over twice cuDNN's";
        }
        failed |= !r.status.starts_with("PASS");
        if (cudnn) {
          r.cudnn_algo = cudnn->algorithm();
          // cuDNN's FFT and Winograd algorithms may round outside the direct sum's bound.
          if (!cudnn_verdict.pass) r.status += "; cuDNN over its bound: " + cudnn_verdict.detail;
        } else {
          r.status += "; cuDNN ERROR " + baseline.error;
          failed = true;
        }
        if (s == Status::Success) {
          if (cudnn) {
            const PairTimes t = time_pairs(timer, theirs, ours, o.pairs, flush);
            r.ratio = t.ratio, r.ms = t.ours_ms, r.cudnn_ms = t.theirs_ms;
          } else {  // no baseline: ours alone
            std::vector<double> ms;
            for (int i = 0; i < 2; ++i) ours();
            for (int i = 0; i < o.pairs; ++i) ms.push_back(timer.time(ours, flush));
            r.ms = median(ms);
          }
        }
        std::printf("%-12s %-28s %-7s %-30s %9.4f %9.4f %-22s %8.2f %8.2f %8.4f %9.2e %9.2e %s\n",
                    layer.name.c_str(), describe(layer.shape).c_str(), math_flag(math),
                    ((named ? "  " : "") + r.kernel).c_str(), r.ms, r.cudnn_ms,
                    r.cudnn_algo.c_str(), tflops(layer.shape, r.ms),
                    tflops(layer.shape, r.cudnn_ms), r.ratio, r.err, r.cudnn_err, r.status.c_str());
        std::fflush(stdout);
        rows.push_back(r);
      }
    }
  }
  std::vector<Ratio> ratios;  // auto's rows only
  for (const ConvRow& r : rows)
    if (r.run == "auto")
      ratios.push_back({r.math, r.ratio, r.layer.name + " " + describe(r.layer.shape)});
  print_means(ratios, maths, "layers", "layer");
  if (!o.csv_path.empty()) {
    std::ofstream out(o.csv_path);
    out << "device,date,cudnn,layer,n,h,w,c,k,r,s,pad_h,pad_w,stride_h,stride_w,dilation_h,"
           "dilation_w,groups,p,q,math,run,kernel,ms,cudnn_ms,cudnn_algo,tflops,cudnn_tflops,"
           "ratio_median,rel_err,cudnn_rel_err,status\n";
    for (const ConvRow& r : rows) {
      const Conv2dShape& s = r.layer.shape;
      out << facts.name << ',' << today() << ',' << cudnn_version() << ',' << r.layer.name << ','
          << s.n << ',' << s.h << ',' << s.w << ',' << s.c << ',' << s.k << ',' << s.r << ','
          << s.s << ',' << s.pad_h << ',' << s.pad_w << ',' << s.stride_h << ',' << s.stride_w
          << ',' << s.dilation_h << ',' << s.dilation_w << ',' << s.groups << ',' << s.p() << ','
          << s.q() << ',' << math_flag(r.math) << ',' << r.run << ',' << r.kernel << ','
          << r.ms << ',' << r.cudnn_ms << ',' << r.cudnn_algo << ',' << tflops(s, r.ms) << ','
          << tflops(s, r.cudnn_ms) << ',' << r.ratio << ',' << r.err << ',' << r.cudnn_err
          << ',' << csv_quote(r.status) << '\n';
    }
    if (!out) throw std::runtime_error("cannot write " + o.csv_path);
  }
  return failed ? 1 : 0;
}

#else

int run_conv_suite(const BenchOptions&, const DeviceFacts&) {
  std::fprintf(stderr, "sgemm-bench: built without cuDNN: --conv-suite and --conv need it "
                       "(CMake looks for libcudnn and cudnn.h in the CUDA toolkit and in "
                       "CUDNN_PATH)\n");
  return 1;
}

#endif

}  // namespace sgemm::bench

#include "explain.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "dispatch/conv.hpp"
#include "dispatch/dispatch.hpp"
#include "runtime/device.hpp"

namespace sgemm::bench {

namespace {

// The GEMM kernels `auto` looked at, and the one it chose.
int print_decision(const detail::Decision& d, Status status, const std::string& message, Math math,
                   std::ostream& out) {
  for (const detail::Considered& c : d.considered)
    out << "  " << (c.verdict == "chosen" ? "* " : "  ") << c.kernel->info.slug << ": "
        << c.verdict << '\n';
  const std::vector<std::string_view> order = detail::auto_order(math);
  for (std::size_t i = d.considered.size(); i < order.size(); ++i)
    out << "    " << order[i] << ": not tried (an earlier kernel was chosen)\n";
  if (status != Status::Success) {
    out << "  no kernel: " << message << '\n';
    return 1;
  }
  out << "  chosen: " << d.kernel->info.slug << " (" << d.kernel->info.title << "); " << d.detail
      << '\n';
  return 0;
}

// conv2d's choice for each --conv shape: a conv rung, or the lowering and then the GEMM's.
int explain_convs(const BenchOptions& o, const detail::Device& device,
                  const std::vector<Math>& maths, std::ostream& out) {
  float* const ptr = reinterpret_cast<float*>(std::uintptr_t(1) << 30);
  for (const Conv2dShape& s : o.convs)
    for (Math math : maths) {
      out << "\nconvolution " << s.n << " x " << s.h << " x " << s.w << " x " << s.c << ", " << s.k
          << " filters of " << s.r << " x " << s.s << ", pad " << s.pad_h << ", stride "
          << s.stride_h << ", dilation " << s.dilation_h << ", groups " << s.groups << ", "
          << to_string(math) << " math\n";
      const detail::ConvProblem p{s, s.p(), s.q(), o.alpha, o.beta, ptr, ptr, ptr};
      Options opt;
      opt.math = math;
      detail::ConvDecision cd;
      std::string message;
      if (detail::choose_conv(p, opt, device, &cd, &message) != Status::Success) {
        out << "  no kernel: " << message << '\n';
        return 1;
      }
      if (cd.kernel) {
        out << "  chosen: " << cd.kernel->info.slug << " (" << cd.kernel->info.title << ")\n";
        continue;
      }
      out << "  lowered to a GEMM: "
          << (cd.im2col ? "the patch matrix (im2col, " + std::to_string(cd.workspace_bytes >> 20) +
                              " MiB)"
                        : std::string("x itself (1 x 1, stride 1)"))
          << " times the filters transposed, groups as a batch\n";
      const detail::Canonical gemm = detail::lowered_product(p, ptr, cd.im2col ? cd.cols_ld : s.c);
      detail::Decision d;
      const Status status = detail::choose(gemm, opt, device, SIZE_MAX, &d, &message, true);
      if (print_decision(d, status, message, math, out) != 0) return 1;
    }
  return 0;
}

}  // namespace

int run_explain(const BenchOptions& o, std::ostream& out) {
  detail::Device device = detail::kH100;
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > o.device &&
      detail::device_facts(o.device, &device) == cudaSuccess) {
    out << "device " << o.device << ": compute capability " << device.cc / 10 << '.'
        << device.cc % 10 << ", " << device.sms << " SMs\n";
  } else {
    (void)cudaGetLastError();  // no device: not an error of the explanation
    out << "no CUDA device: explaining for an H100 (compute capability 9.0, 132 SMs)\n";
  }
  const std::vector<Math> maths =
      o.math ? std::vector<Math>{*o.math} : std::vector<Math>{Math::Fp32, Math::Fp32Tf32x3, Math::Tf32};
  if (!o.convs.empty()) return explain_convs(o, device, maths, out);
  for (const Shape& s : o.shapes)
    for (auto [op_a, op_b] : o.ops) {
      // Tight leading dimensions (rounded up to multiples of 4) and 256-byte aligned pointers,
      // as a framework's tensors usually are.
      const bool row = o.layout == Layout::RowMajor;
      auto ld = [&](std::int64_t rows, std::int64_t cols) {
        return (std::max<std::int64_t>(1, row ? cols : rows) + 3) / 4 * 4;
      };
      const std::int64_t lda = op_a == Op::N ? ld(s.m, s.k) : ld(s.k, s.m);
      const std::int64_t ldb = op_b == Op::N ? ld(s.k, s.n) : ld(s.n, s.k);
      const auto* ptr = reinterpret_cast<const float*>(std::uintptr_t(1) << 30);
      const Problem problem{o.layout, op_a, op_b, s.m, s.n, s.k, ptr, lda, ptr, ldb,
                            const_cast<float*>(ptr), ld(s.m, s.n)};
      detail::Canonical p = detail::to_canonical(problem, o.alpha, o.beta);
      if (o.batch > 1) {  // matrices one after another, as gemm_strided_batched would get them
        const std::int64_t stride_a = lda * (row == (op_a == Op::N) ? s.m : s.k);
        const std::int64_t stride_b = ldb * (row == (op_b == Op::N) ? s.k : s.n);
        p.batch = o.batch;
        p.stride_a = row ? stride_a : stride_b;  // a column-major call swaps A and B
        p.stride_b = row ? stride_b : stride_a;
        p.stride_c = ld(s.m, s.n) * (row ? s.m : s.n);
        p = detail::fold_batch(p);
      }
      for (Math math : maths) {
        out << '\n' << (row ? "row-major " : "column-major ") << (op_a == Op::N ? 'N' : 'T')
            << (op_b == Op::N ? 'N' : 'T') << ' ' << s.m << " x " << s.n << " x " << s.k;
        if (o.batch > 1)
          out << ", a batch of " << o.batch
              << (p.batch == 1 ? " (folded into one product)" : " one after another");
        out << ", " << to_string(math) << " math\n";
        Options opt;
        opt.math = math;
        detail::Decision d;
        std::string message;
        const Status status = detail::choose(p, opt, device, SIZE_MAX, &d, &message, true);
        if (print_decision(d, status, message, math, out) != 0) return 1;
      }
    }
  return 0;
}

}  // namespace sgemm::bench

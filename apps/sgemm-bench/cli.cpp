#include "cli.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace sgemm::bench {
namespace {

template <typename T>
T number(const std::string& text, const std::string& flag) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end)
    throw CliError(flag + ": '" + text + "' is not a valid number");
  return value;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, sep);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::int64_t dimension(const std::string& text, const std::string& what) {
  const auto v = number<std::int64_t>(text, what);
  if (v < 1) throw CliError(what + " must be >= 1, got " + text);
  return v;
}

Shape parse_shape(const std::string& text) {
  const auto parts = split(text, 'x');
  if (parts.size() != 3) throw CliError("--shapes: '" + text + "' is not MxNxK");
  return {dimension(parts[0], "M"), dimension(parts[1], "N"), dimension(parts[2], "K")};
}

// N,H,W,C,K,R,S,pad,stride,dilation[,groups]; pad, stride and dilation apply to both axes.
Conv2dShape parse_conv(const std::string& text) {
  const auto parts = split(text, ',');
  if (parts.size() != 10 && parts.size() != 11)
    throw CliError("--conv: '" + text + "' is not N,H,W,C,K,R,S,pad,stride,dilation[,groups]");
  Conv2dShape s;
  s.n = dimension(parts[0], "--conv N");
  s.h = dimension(parts[1], "--conv H");
  s.w = dimension(parts[2], "--conv W");
  s.c = dimension(parts[3], "--conv C");
  s.k = dimension(parts[4], "--conv K");
  s.r = dimension(parts[5], "--conv R");
  s.s = dimension(parts[6], "--conv S");
  s.pad_h = s.pad_w = number<std::int64_t>(parts[7], "--conv pad");
  if (s.pad_h < 0) throw CliError("--conv pad must be >= 0, got " + parts[7]);
  s.stride_h = s.stride_w = dimension(parts[8], "--conv stride");
  s.dilation_h = s.dilation_w = dimension(parts[9], "--conv dilation");
  if (parts.size() == 11) s.groups = dimension(parts[10], "--conv groups");
  if (s.c % s.groups != 0 || s.k % s.groups != 0)
    throw CliError("--conv: '" + text + "': groups must divide C and K");
  if (s.p() < 1 || s.q() < 1)
    throw CliError("--conv: '" + text + "' has an empty output (the filter is larger than the padded input)");
  return s;
}

}  // namespace

const char* usage() {
  return R"(usage: sgemm-bench [M N K] [options]
Times registered kernels and auto against cuBLAS SGEMM (CUBLAS_COMPUTE_32F) in one run and
checks every result against a float64 reference (cuBLAS DGEMM). Default: every kernel at
4096 x 4096 x 4096.
  M N K                 one shape
  --shapes LIST         shapes MxNxK, comma-separated
  --sweep NAME          square (1024..16384), k1024 (M=N 2048..16384, K=1024), odd, skinny,
                        llm (M 16..8192, N=11008, K=4096), or all
  --kernels LIST        slugs or prefixes ending in '*', or auto, comma-separated (default: all,
                        and auto in each math)
  --math MODE           only kernels of one math: fp32, tf32x3, tf32
  --layout row|col      storage order of A, B, C (default row)
  --ops LIST            op(A)op(B) combinations: NN,NT,TN,TT (default NN)
  --alpha X, --beta Y   scalars (default 1 and 0)
  --reps N              timed runs per kernel, >= 10 (default 20); the median is reported
  --warmup N            untimed runs first, at least the one that sizes the timing (default 3)
  --warmup-ms MS        and more untimed runs until MS milliseconds have passed (default 0);
                        at a power limit, ~2000 times each kernel in its own steady state
  --cooldown-ms MS      idle MS milliseconds before each kernel's warm-up (default 0): at a power
                        limit, every kernel then starts from the same state
  --values uniform|normal   A and B from uniform [-1, 1) (default) or normal N(0, 1) values;
                        normal data holds values far below their row's largest (tc-04 sets
                        those aside)
  --budget SECONDS      per kernel and shape: a kernel whose warm-up and timed runs would take
                        longer gets fewer timed runs (at least 10; its row says so), or no
                        timing at all (default 30)
  --cublas-tf32         also time cuBLAS with CUBLAS_COMPUTE_32F_FAST_TF32
  --cpu                 also time the CPU reference (float64, blocked, all cores)
  --csv FILE, --json FILE   write every row
  --device N            GPU to use (default 0)
  --suite               time auto in each math against cuBLAS on the public suite (small M,
                        skinny, long k, odd sizes, every layout, tiny calls): the median of
                        per-pair ratios per call, the geometric mean and worst per math
  --batched             time gemm_strided_batched's auto in each math against
                        cublasGemmStridedBatchedEx on batches of attention-like and small products
  --conv-suite          time conv2d's auto in each math against cuDNN's fastest forward
                        algorithm in the same math (Fp32, Fp32Tf32x3: CUDNN_FMA_MATH; Tf32: TF32
                        tensor cores allowed) on ResNet-50's convolutions at batch 32 and 64, NHWC;
                        --kernels adds rows for the conv kernels it names
  --conv N,H,W,C,K,R,S,PAD,STRIDE,DILATION[,GROUPS]
                        the same on one convolution (repeatable): input N x H x W x C, K filters of
                        R x S; pad, stride and dilation apply to both axes (default groups 1)
  --pairs N             --suite, --batched, --conv-suite, --conv: timed pairs per call and math
                        (default 15)
  --explain             print what auto decides for each shape, op combination and math: the
                        kernels it tried and why each was passed over (no GPU needed); with
                        --conv, what conv2d's auto decides for each convolution
  --batch N             --explain: a strided batch of N matrices, one after another
  --list                print the kernel registry with each kernel's resources (no GPU needed)
  --tune                time rung 09's configurations per shape class; write the tuning cache
  -h, --help            this text
Exit status: 0 all verified, 1 a verification failed or a CUDA error, 2 bad arguments.
)";
}

std::vector<Shape> named_sweep(const std::string& name) {
  std::vector<Shape> shapes;
  const bool all = name == "all";
  if (all || name == "square")
    for (std::int64_t s : {1024, 2048, 4096, 8192, 16384}) shapes.push_back({s, s, s});
  if (all || name == "k1024")
    for (std::int64_t s : {2048, 4096, 8192, 16384}) shapes.push_back({s, s, 1024});
  if (all || name == "odd") shapes.push_back({4095, 4097, 4093});
  if (all || name == "skinny") {
    shapes.push_back({16384, 16384, 128});
    shapes.push_back({128, 128, 65536});
    shapes.push_back({8192, 128, 8192});
  }
  if (all || name == "llm")
    for (std::int64_t m : {16, 128, 2048, 8192}) shapes.push_back({m, 11008, 4096});
  if (shapes.empty())
    throw CliError("--sweep: unknown sweep '" + name + "' (square, k1024, odd, skinny, llm, all)");
  return shapes;
}

BenchOptions parse_cli(const std::vector<std::string>& args) {
  BenchOptions o;
  std::vector<std::string> positional;
  bool sized = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw CliError(arg + " needs a value");
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      o.help = true;
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--tune") {
      o.tune = true;
    } else if (arg == "--explain") {
      o.explain = true;
    } else if (arg == "--batch") {
      o.batch = number<std::int64_t>(value(), arg);
      if (o.batch < 1) throw CliError("--batch must be >= 1");
    } else if (arg == "--suite") {
      o.suite = true;
    } else if (arg == "--batched") {
      o.batched = true;
    } else if (arg == "--conv-suite") {
      o.conv_suite = true;
    } else if (arg == "--conv") {
      o.convs.push_back(parse_conv(value()));
    } else if (arg == "--pairs") {
      o.pairs = number<int>(value(), arg);
      if (o.pairs < 3) throw CliError("--pairs must be >= 3");
    } else if (arg == "--cpu") {
      o.cpu = true;
    } else if (arg == "--cublas-tf32") {
      o.cublas_tf32 = true;
    } else if (arg == "--shapes") {
      for (const auto& s : split(value(), ',')) o.shapes.push_back(parse_shape(s));
      sized = true;
    } else if (arg == "--sweep") {
      for (const auto& s : named_sweep(value())) o.shapes.push_back(s);
      sized = true;
    } else if (arg == "--kernels" || arg == "-k") {
      for (const auto& s : split(value(), ',')) o.kernels.push_back(s);
    } else if (arg == "--math") {
      const std::string& m = value();
      if (m == "fp32") o.math = Math::Fp32;
      else if (m == "tf32x3") o.math = Math::Fp32Tf32x3;
      else if (m == "tf32") o.math = Math::Tf32;
      else throw CliError("--math: '" + m + "' is not fp32, tf32x3 or tf32");
    } else if (arg == "--layout") {
      const std::string& l = value();
      if (l == "row") o.layout = Layout::RowMajor;
      else if (l == "col") o.layout = Layout::ColMajor;
      else throw CliError("--layout: '" + l + "' is not row or col");
    } else if (arg == "--ops") {
      for (const auto& s : split(value(), ',')) {
        if (s.size() != 2 || (s[0] != 'N' && s[0] != 'T') || (s[1] != 'N' && s[1] != 'T'))
          throw CliError("--ops: '" + s + "' is not one of NN, NT, TN, TT");
        o.ops.emplace_back(s[0] == 'N' ? Op::N : Op::T, s[1] == 'N' ? Op::N : Op::T);
      }
    } else if (arg == "--alpha") {
      o.alpha = number<float>(value(), arg);
    } else if (arg == "--beta") {
      o.beta = number<float>(value(), arg);
    } else if (arg == "--reps") {
      o.reps = number<int>(value(), arg);
      if (o.reps < 10) throw CliError("--reps must be >= 10 (the median of at least 10 timed runs)");
    } else if (arg == "--warmup") {
      o.warmup = number<int>(value(), arg);
      if (o.warmup < 0) throw CliError("--warmup must be >= 0");
    } else if (arg == "--warmup-ms") {
      o.warmup_ms = number<double>(value(), arg);
      if (!(o.warmup_ms >= 0 && std::isfinite(o.warmup_ms))) throw CliError("--warmup-ms must be finite and >= 0");
    } else if (arg == "--cooldown-ms") {
      o.cooldown_ms = number<double>(value(), arg);
      if (!(o.cooldown_ms >= 0 && o.cooldown_ms <= 60e3))
        throw CliError("--cooldown-ms must be between 0 and 60000");
    } else if (arg == "--values") {
      const std::string v = value();
      if (v != "uniform" && v != "normal") throw CliError("--values must be uniform or normal");
      o.normal_values = v == "normal";
    } else if (arg == "--budget") {
      o.budget_s = number<double>(value(), arg);
      if (!(o.budget_s > 0)) throw CliError("--budget must be > 0");
    } else if (arg == "--csv") {
      o.csv_path = value();
    } else if (arg == "--json") {
      o.json_path = value();
    } else if (arg == "--device") {
      o.device = number<int>(value(), arg);
      if (o.device < 0) throw CliError("--device must be >= 0");
    } else if (!arg.empty() && arg[0] == '-' && !(arg.size() > 1 && std::isdigit(arg[1]))) {
      throw CliError("unknown option '" + arg + "'");
    } else {
      positional.push_back(arg);
    }
  }
  if (!positional.empty()) {
    if (positional.size() != 3)
      throw CliError("expected M N K (three sizes), got " + std::to_string(positional.size()) + " positional argument(s)");
    if (sized) throw CliError("M N K and --shapes/--sweep are exclusive");
    o.shapes.push_back({dimension(positional[0], "M"), dimension(positional[1], "N"),
                        dimension(positional[2], "K")});
  }
  if (o.warmup_ms >= o.budget_s * 1e3) throw CliError("--warmup-ms must be shorter than --budget");
  if (o.shapes.empty()) o.shapes.push_back({4096, 4096, 4096});
  if (o.ops.empty()) o.ops.emplace_back(Op::N, Op::N);
  return o;
}

bool kernel_selected(const BenchOptions& options, std::string_view slug) {
  if (options.kernels.empty() || (options.kernels.size() == 1 && options.kernels[0] == "all"))
    return true;
  for (const std::string& pattern : options.kernels) {
    if (!pattern.empty() && pattern.back() == '*') {
      if (slug.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1))) return true;
    } else if (slug == pattern) {
      return true;
    }
  }
  return false;
}

}  // namespace sgemm::bench

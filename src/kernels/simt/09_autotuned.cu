// Rung 09 — autotuning: a family of compiled tile configurations, the best one per shape class
// measured on the GPU at hand.
//
// Seed 000, kernel 9. The best block tile, thread tile, K-tile and thread count depend on the
// GPU and on the problem (a 128 x 128 tile leaves most of an H100 idle at 512 x 512; a 16-row
// problem wastes 7/8 of it). So rung 09 compiles a dozen configurations of rung 08's block tile
// (08_megengine.cuh) and picks one per call:
//
//  - the configurations are template instances; MegEngineTile and Vec4TileLoader
//    static_assert every constraint (whole 4 x 4 sub-tiles, whole warps, every thread moving the
//    same number of float4 chunks, shared memory within the static limit), so a configuration
//    that cannot work does not compile;
//  - `sgemm-bench --tune` times every configuration on each shape class's representative shape
//    and writes the winners to the tuning cache (autotune.hpp);
//  - a call is classified by its shape (shape_class_of) and runs the cached winner of its class
//    for the current device, or the class's default below when the cache has none. The cache is
//    read once per process and device, on the first call; later calls do no I/O.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "kernels/simt/08_megengine.cuh"
#include "kernels/simt/autotune.hpp"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

template <int BM, int BN, int BK, int TM, int TN, int MinBlocks, bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(MegEngineTile<BM, BN, BK, TM, TN>::kThreads, MinBlocks)
    simt_09_autotuned_kernel(Canonical p) {
  megengine_block_tile<BM, BN, BK, TM, TN, AKMajor, BKMajor>(p);
}

// "BMxBNxBK_TMxTN_<threads>t", built at compile time from the parameters it names.
template <int BM, int BN, int BK, int TM, int TN, int Threads>
constexpr std::array<char, 32> kConfigName = [] {
  std::array<char, 32> s{};
  std::size_t n = 0;
  auto number = [&](int v) {
    char digits[8];
    int count = 0;
    do {
      digits[count++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    while (count) s[n++] = digits[--count];
  };
  number(BM), s[n++] = 'x', number(BN), s[n++] = 'x', number(BK), s[n++] = '_';
  number(TM), s[n++] = 'x', number(TN), s[n++] = '_', number(Threads), s[n++] = 't';
  return s;
}();

// One configuration. Registers: TM * TN accumulators + 64 per thread, i.e. 128 for an 8 x 8
// thread tile like rung 08, less for smaller thread tiles so that more blocks share an SM.
template <int BM, int BN, int BK, int TM, int TN>
struct TileConfig {
  static constexpr int kThreads = MegEngineTile<BM, BN, BK, TM, TN>::kThreads;
  static constexpr int kRegisterBudget = TM * TN + 64;
  static constexpr int kMinBlocks =
      std::clamp(65536 / (kRegisterBudget * kThreads), 1, 2048 / kThreads);

  static std::string_view why_not(const Canonical& p) {
    if (auto reason = needs_vec4(p); !reason.empty()) return reason;
    return needs_grid(ceil_div(p.n, BN), ceil_div(p.m, BM));
  }
  static cudaError_t launch(const Canonical& p, cudaStream_t stream) {
    const dim3 grid(ceil_div(p.n, BN), ceil_div(p.m, BM));
    return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
      return launch_kernel(
          simt_09_autotuned_kernel<BM, BN, BK, TM, TN, kMinBlocks, AKMajor, BKMajor>, grid,
          kThreads, 0, stream, p);
    });
  }
  static constexpr autotune::Config config() {
    return {kConfigName<BM, BN, BK, TM, TN, kThreads>.data(), BM, BN, BK, TM, TN, kThreads,
            why_not, launch};
  }
};

// The family: square and rectangular 128-tiles with K-tiles of 8 and 16, large 256-tiles for big
// problems, 64-tiles for small ones, 32-wide tiles for skinny ones; 8 x 8, 8 x 4 and 4 x 4 thread
// tiles; 64 to 512 threads.
constexpr std::array kConfigs = {
    TileConfig<128, 128, 8, 8, 8>::config(),   TileConfig<128, 128, 16, 8, 8>::config(),
    TileConfig<128, 64, 16, 8, 8>::config(),   TileConfig<64, 128, 16, 8, 8>::config(),
    TileConfig<128, 64, 16, 8, 4>::config(),   TileConfig<64, 128, 16, 4, 8>::config(),
    TileConfig<256, 128, 16, 8, 8>::config(),  TileConfig<128, 256, 16, 8, 8>::config(),
    TileConfig<64, 64, 16, 4, 4>::config(),    TileConfig<64, 64, 16, 8, 8>::config(),
    TileConfig<32, 128, 16, 4, 8>::config(),   TileConfig<128, 32, 16, 8, 4>::config(),
};

enum Class { kSkinnyM, kSkinnyN, kDeepK, kShortK, kSmall, kMedium, kLarge, kNumClasses };

// Name, representative shape, and the configuration used when the cache has no entry.
struct ClassInfo {
  autotune::ShapeClass shape;
  std::string_view default_config;
};
constexpr std::array<ClassInfo, kNumClasses> kClasses = {{
    {{"skinny-m", 16, 11008, 4096}, "32x128x16_4x8_128t"},      // m <= 64
    {{"skinny-n", 11008, 16, 4096}, "128x32x16_8x4_128t"},      // n <= 64
    {{"deep-k", 256, 256, 65536}, "64x64x16_4x4_256t"},         // k >= 8 max(m, n), m n <= 1024^2
    {{"short-k", 4096, 4096, 128}, "128x128x8_8x8_256t"},       // k <= 256
    {{"small", 512, 512, 512}, "64x64x16_4x4_256t"},            // m n <= 512^2
    {{"medium", 2048, 2048, 2048}, "128x128x16_8x8_256t"},      // m n <= 2048^2
    {{"large", 4096, 4096, 4096}, "128x128x16_8x8_256t"},       // the rest
}};

constexpr int find_config(std::string_view name) {
  for (std::size_t i = 0; i < kConfigs.size(); ++i)
    if (kConfigs[i].name == name) return int(i);
  return -1;
}

constexpr int find_class(std::string_view name) {
  for (int c = 0; c < kNumClasses; ++c)
    if (kClasses[c].shape.name == name) return c;
  return -1;
}

static_assert(std::ranges::all_of(kClasses, [](const ClassInfo& c) {
  return find_config(c.default_config) >= 0;
}), "every class's default names a configuration of the family");

using Choice = std::array<int, kNumClasses>;  // configuration index per class

Choice default_choice() {
  Choice choice{};
  for (int c = 0; c < kNumClasses; ++c) choice[c] = find_config(kClasses[c].default_config);
  return choice;
}

// The fields of a cache line, split at tabs.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

// The defaults, overridden by the cache's lines for this device.
Choice read_choice(int device) {
  Choice choice = default_choice();
  cudaDeviceProp prop;
  const std::string path = autotune::cache_path();
  if (path.empty() || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return choice;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    const auto fields = fields_of(line);
    if (fields.size() != 3 || fields[0] != prop.name) continue;
    const int c = find_class(fields[1]), config = find_config(fields[2]);
    if (c >= 0 && config >= 0) choice[c] = config;
  }
  return choice;
}

// The choice for the current device, read from the cache on the first call on that device.
const Choice& current_choice() {
  constexpr int kMaxDevices = 64;
  struct PerDevice {
    std::once_flag once;
    Choice choice;
  };
  static PerDevice devices[kMaxDevices];
  static const Choice defaults = default_choice();
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return defaults;
  PerDevice& d = devices[device];
  std::call_once(d.once, [&] { d.choice = read_choice(device); });
  return d.choice;
}

// The configuration that runs `p`: its class's choice, or the class default if the choice
// cannot take this problem (the grid limits differ between tile sizes).
const autotune::Config& config_for(const Canonical& p) {
  const int c = autotune::shape_class_of(p);
  const autotune::Config& chosen = kConfigs[current_choice()[c]];
  if (chosen.why_not(p).empty()) return chosen;
  return kConfigs[find_config(kClasses[c].default_config)];
}

std::string_view why_not(const Canonical& p, const Device&) { return config_for(p).why_not(p); }

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return config_for(p).launch(p, args.stream);
}

}  // namespace

namespace autotune {

std::span<const Config> configs() { return kConfigs; }

std::span<const ShapeClass> shape_classes() {
  static const auto shapes = [] {
    std::array<ShapeClass, kNumClasses> s;
    for (int c = 0; c < kNumClasses; ++c) s[c] = kClasses[c].shape;
    return s;
  }();
  return shapes;
}

int shape_class_of(const Canonical& p) {
  const double mn = double(p.m) * double(p.n);
  if (p.m <= 64 && p.n > 64) return kSkinnyM;
  if (p.n <= 64 && p.m > 64) return kSkinnyN;
  if (p.k >= 8 * std::max(p.m, p.n) && mn <= 1024.0 * 1024.0) return kDeepK;
  if (p.k <= 256 && mn > 512.0 * 512.0) return kShortK;
  if (mn <= 512.0 * 512.0) return kSmall;
  if (mn <= 2048.0 * 2048.0) return kMedium;
  return kLarge;
}

std::string cache_path() {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? value : "";
  };
  if (std::string path = env("SGEMM_TUNING_CACHE"); !path.empty()) return path;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/sgemm/tuning.tsv";
  if (std::string home = env("HOME"); !home.empty()) return home + "/.cache/sgemm/tuning.tsv";
  return {};
}

bool save_cache(const std::string& path, std::string_view device_name,
                std::span<const std::pair<int, int>> class_to_config, std::string* message) {
  auto fail = [&](std::string why) {
    if (message) *message = std::move(why);
    return false;
  };
  if (path.empty())
    return fail("no tuning cache path: set SGEMM_TUNING_CACHE, XDG_CACHE_HOME or HOME");
  if (device_name.empty() || device_name.find_first_of("\t\r\n") != std::string_view::npos)
    return fail("invalid device name for the tuning cache");
  for (const auto& [c, config] : class_to_config)
    if (c < 0 || c >= kNumClasses || config < 0 || config >= int(kConfigs.size()))
      return fail("shape class or configuration index out of range");

  // Keep every line but the ones this call replaces: same device and class.
  std::vector<std::string> kept;
  {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line.front() == '#') continue;
      const auto fields = fields_of(line);
      const bool replaced =
          fields.size() >= 2 && fields[0] == device_name &&
          std::ranges::any_of(class_to_config, [&](const std::pair<int, int>& entry) {
            return kClasses[entry.first].shape.name == fields[1];
          });
      if (!replaced) kept.push_back(line);
    }
  }

  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code error;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), error);
  if (error) return fail("cannot create " + target.parent_path().string() + ": " + error.message());
  // Write a temporary file and rename it over the cache, so a reader never sees half a file.
  const fs::path temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << "# sgemm tuning cache (simt-09-autotuned): device\tshape class\tconfiguration\n";
    for (const std::string& line : kept) out << line << '\n';
    for (const auto& [c, config] : class_to_config)
      out << device_name << '\t' << kClasses[c].shape.name << '\t' << kConfigs[config].name << '\n';
    out.flush();
    if (!out) return fail("cannot write " + temporary.string());
  }
  fs::rename(temporary, target, error);
  if (error) return fail("cannot replace " + path + ": " + error.message());
  return true;
}

}  // namespace autotune

SGEMM_KERNEL_ENTRIES(simt_09_autotuned) {
  static const KernelEntry entries[] = {{
      {"simt-09-autotuned", Track::Simt, 9,
       "autotuned: 12 tile configurations, the fastest per shape class from a tuning cache",
       Math::Fp32, "seed 000, kernel 9 (autotuning)", kVec4Requirement},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail

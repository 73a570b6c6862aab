// The randomized differential test: random calls of every kernel and of `auto` in every math
// against the float64 reference with the design's error bounds, for as long as
// SGEMM_RANDOM_SECONDS says (default 20).
//
// Each case is drawn from its own seed: layouts, ops and leading dimensions; shapes from 1 to 5000,
// biased towards tile edges; aligned and unaligned pointers; alpha and beta including 0, 1, -1,
// NaN and Inf; values uniform, normal, of a wide exponent range, subnormal, or with zeros, Inf and
// NaN among them. A failure prints its seed; SGEMM_RANDOM_SEED=<seed> replays that case alone
// (with SGEMM_RANDOM_KERNEL=<slug>, on another kernel).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "gpu_test.hpp"

namespace sgemm::test {
namespace {

struct Draw {
  ref::GemmCase c;
  Options options;
  ref::Values values;
  std::string target;  // the kernel's slug, or "auto"
};

// Slow kernels get small problems, so that a case takes milliseconds.
bool slow(std::string_view slug) {
  return slug == "simt-01-naive" || slug == "simt-02-coalesced" || slug == "simt-03-smem" ||
         slug == "cute-01-tiled" || slug == "fallback-01-any";
}

Draw draw(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](auto... options) {
    const std::array<std::common_type_t<decltype(options)...>, sizeof...(options)> all{options...};
    return all[rng() % all.size()];
  };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  Draw d;
  const auto ks = kernels();
  const std::vector<Math> maths = built_maths();
  if (chance(0.4)) {
    d.target = "auto";
    d.options.math = maths[rng() % maths.size()];
  } else {
    const KernelInfo& k = ks[rng() % ks.size()];
    d.target = std::string(k.slug);
    d.options.math = k.math;
  }
  auto dim = [&]() -> std::int64_t {
    const double r = std::uniform_real_distribution<double>(0, 1)(rng);
    if (r < 0.1) return 1 + std::int64_t(rng() % 3);
    if (r < 0.4) return 1 + std::int64_t(rng() % 64);
    if (r < 0.7) {  // a tile edge: a multiple of a tile size, +-1
      const std::int64_t tile = pick(16, 32, 64, 128, 256);
      return std::max<std::int64_t>(1, tile * std::int64_t(1 + rng() % 20) + std::int64_t(rng() % 3) - 1);
    }
    return std::int64_t(std::exp(std::uniform_real_distribution<double>(0, std::log(5000.0))(rng)));
  };
  ref::GemmCase& c = d.c;
  c.layout = chance(0.5) ? Layout::RowMajor : Layout::ColMajor;
  c.op_a = chance(0.5) ? Op::N : Op::T;
  c.op_b = chance(0.5) ? Op::N : Op::T;
  const double cap = slow(d.target) ? 0x1p27 : 0x1p34;
  do {
    c.m = dim(), c.n = dim(), c.k = dim();
  } while (double(c.m) * double(c.n) * double(c.k) > cap);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float random = std::uniform_real_distribution<float>(-2, 2)(rng);
  c.alpha = chance(0.9) ? pick(1.0f, -1.0f, 0.5f, random, 0x1p20f, 0x1p-20f) : pick(0.0f, nan, inf, -inf);
  c.beta = chance(0.9) ? pick(0.0f, 0.0f, 1.0f, -1.0f, 0.75f, random) : pick(nan, inf);
  c = ref::with_tight_lds(c);
  auto pad = [&]() -> std::int64_t {
    if (chance(0.6)) return 0;
    return chance(0.75) ? std::int64_t(1 + rng() % 8) : std::int64_t(100 + rng() % 200);
  };
  c.lda += pad(), c.ldb += pad(), c.ldc += pad();
  c.unaligned = chance(0.25);
  d.values = pick(ref::Values::Uniform, ref::Values::Uniform, ref::Values::Normal,
                  ref::Values::WideExponent, ref::Values::Subnormal, ref::Values::Special,
                  ref::Values::Tf32Ties);
  // A replay may name another kernel for the drawn call (SGEMM_RANDOM_KERNEL=<slug>).
  if (const char* kernel = std::getenv("SGEMM_RANDOM_KERNEL")) {
    d.target = kernel;
    for (const KernelInfo& k : ks)
      if (k.slug == d.target) d.options.math = k.math;
  }
  d.options.kernel = d.target == "auto" ? std::string_view("auto") : std::string_view(
      std::find_if(ks.begin(), ks.end(), [&](const KernelInfo& k) { return k.slug == d.target; })->slug);
  return d;
}

const char* values_name(ref::Values v) {
  switch (v) {
    case ref::Values::Uniform: return "uniform";
    case ref::Values::Tf32Ties: return "tf32-ties";
    case ref::Values::Normal: return "normal";
    case ref::Values::WideExponent: return "wide-exponent";
    case ref::Values::Subnormal: return "subnormal";
    case ref::Values::Special: return "special";
  }
  return "?";
}

// Runs one drawn case; returns false (with a gtest failure naming the seed) when it fails.
// Counts what ran in `ran` by target.
bool run_one(std::uint64_t seed, std::map<std::string, int>& ran) {
  const Draw d = draw(seed);
  const ref::GemmCase& c = d.c;
  const std::string what = "seed " + std::to_string(seed) + ": " + d.target + " " +
                           to_string(d.options.math) + " on " + ref::describe(c) + ", values " +
                           values_name(d.values);
  ref::CaseBuffers buf(c);
  const ref::GemmCase& t = buf.gemm_case();
  if (d.target != "auto") {
    const Problem p{t.layout, t.op_a, t.op_b, t.m, t.n, t.k, buf.a(), t.lda, buf.b(), t.ldb, buf.c(), t.ldc};
    for (const KernelInfo& k : kernels())
      if (k.slug == d.target && !k.supports(p)) return true;  // not this kernel's call
  }
  buf.fill_random(seed, d.values);
  buf.compute_reference(cublas());
  buf.reset_c();
  const Status s = call(buf, nullptr, d.options);
  const cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    ADD_FAILURE() << what << ": " << cudaGetErrorString(sync);
    std::abort();  // the context is lost
  }
  if (s != Status::Success) {
    ADD_FAILURE() << what << ": " << to_string(s) << ": " << last_error();
    return false;
  }
  const ref::Verdict v = buf.verify(d.options.math);
  ++ran[d.target == "auto" ? std::string("auto ") + to_string(d.options.math) : d.target];
  if (!v.pass) ADD_FAILURE() << what << ": " << v.detail;
  return v.pass;
}

TEST(Random, DifferentialAgainstFloat64) {
  std::map<std::string, int> ran;
  if (const char* replay = std::getenv("SGEMM_RANDOM_SEED")) {
    run_one(std::strtoull(replay, nullptr, 10), ran);
    return;
  }
  const char* seconds_env = std::getenv("SGEMM_RANDOM_SECONDS");
  const double seconds = seconds_env ? std::atof(seconds_env) : 20.0;
  const std::uint64_t base =
      std::uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull * 1000;
  const auto start = std::chrono::steady_clock::now();
  int cases = 0, failures = 0;
  for (std::uint64_t i = 0;; ++i) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= seconds || failures >= 20) break;
    failures += !run_one(base + i, ran);
    ++cases;
  }
  int checked = 0;
  for (const auto& [target, count] : ran) checked += count;
  std::printf("[random] %d cases drawn, %d checked against float64, %d failed, %.0f s, seeds %llu..%llu\n",
              cases, checked, failures,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              (unsigned long long)base, (unsigned long long)(base + cases - 1));
  for (const auto& [target, count] : ran) std::printf("[random]   %-28s %d\n", target.c_str(), count);
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace sgemm::test

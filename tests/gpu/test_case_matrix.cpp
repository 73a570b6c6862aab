// The case matrix of docs/design.md, for every registered kernel, through sgemm::gemm with the
// kernel named explicitly.
#include <array>
#include <string>
#include <vector>

#include "gpu_test.hpp"

namespace sgemm::test {
namespace {

struct Combo {
  Layout layout;
  Op op_a, op_b;
};
constexpr std::array<Combo, 8> kCombos{{{Layout::RowMajor, Op::N, Op::N},
                                        {Layout::RowMajor, Op::N, Op::T},
                                        {Layout::RowMajor, Op::T, Op::N},
                                        {Layout::RowMajor, Op::T, Op::T},
                                        {Layout::ColMajor, Op::N, Op::N},
                                        {Layout::ColMajor, Op::N, Op::T},
                                        {Layout::ColMajor, Op::T, Op::N},
                                        {Layout::ColMajor, Op::T, Op::T}}};
constexpr std::array<float, 3> kAlphas{1.0f, -0.5f, 0.0f};
constexpr std::array<float, 3> kBetas{0.0f, 1.0f, 0.75f};

struct Dims {
  std::int64_t m, n, k;
};
// From 1x1x1 through primes and tile +-1 to a large odd shape.
const std::vector<Dims> kShapes{
    {1, 1, 1},       {1, 7, 3},       {5, 1, 9},       {2, 3, 1},         {7, 13, 11},
    {17, 19, 23},    {31, 33, 29},    {32, 32, 32},    {33, 31, 65},      {63, 65, 127},
    {64, 64, 64},    {65, 63, 129},   {127, 129, 257}, {128, 128, 128},   {129, 127, 63},
    {255, 257, 33},  {257, 255, 511}, {511, 513, 17},  {1000, 999, 1001}, {4095, 4097, 4093}};

std::int64_t round_up4(std::int64_t x) { return (x + 3) / 4 * 4; }

const KernelInfo& info(const std::string& slug) {
  for (const KernelInfo& k : kernels())
    if (k.slug == slug) return k;
  throw std::logic_error("unknown kernel " + slug);
}

Problem problem_of(const ref::GemmCase& c) {
  // Pointers as the harness will place them: aligned unless the case says otherwise.
  const auto base = reinterpret_cast<const float*>(std::uintptr_t(1) << 20);
  const float* p = c.unaligned ? base + 1 : base;
  return {c.layout, c.op_a, c.op_b, c.m, c.n, c.k, p, c.lda, p, c.ldb, const_cast<float*>(p), c.ldc};
}

// Leading dimensions for a case: tight, or padded by `pad`; rounded up to multiples of 4 when
// that is what the kernel requires, so that requirement-bound kernels meet odd shapes too.
ref::GemmCase with_lds(ref::GemmCase c, std::int64_t pad, const KernelInfo& k) {
  c = ref::with_tight_lds(c);
  c.lda += pad;
  c.ldb += pad;
  c.ldc += pad;
  if (!k.supports(problem_of(c))) {
    c.lda = round_up4(c.lda);
    c.ldb = round_up4(c.ldb);
    c.ldc = round_up4(c.ldc);
  }
  return c;
}

class CaseMatrix : public ::testing::TestWithParam<std::string> {
 protected:
  Options options() const {
    Options o;
    o.kernel = GetParam();
    o.math = info(GetParam()).math;
    return o;
  }
  // Runs a case the kernel supports, or checks its refusal when it does not.
  void check(const ref::GemmCase& c, std::uint64_t seed) {
    const KernelInfo& k = info(GetParam());
    std::string why;
    if (k.supports(problem_of(c), &why)) {
      run_case(c, options(), seed);
      return;
    }
    ref::CaseBuffers buf(c);
    buf.fill_random(seed);
    buf.reset_c();
    const ref::GemmCase& t = buf.gemm_case();
    const Status s = gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda,
                          buf.b(), t.ldb, t.beta, buf.c(), t.ldc, nullptr, options());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    // alpha == 0 never reaches a kernel: C = beta * C is the whole of the call.
    if (t.alpha != 0.0f) {
      EXPECT_EQ(s, Status::NotSupported) << GetParam() << " refused " << ref::describe(t) << " (" << why << ")";
      EXPECT_TRUE(buf.c_untouched()) << GetParam() << " wrote C although it refused the call";
    }
  }
};

// Every shape, each in every layout and op combination, with alpha, beta and padding rotating.
TEST_P(CaseMatrix, Shapes) {
  const KernelInfo& k = info(GetParam());
  std::uint64_t seed = 1;
  for (std::size_t s = 0; s < kShapes.size(); ++s) {
    const Dims d = kShapes[s];
    const bool large = d.m * d.n * d.k > (std::int64_t(1) << 30);
    for (std::size_t j = 0; j < kCombos.size(); ++j) {
      if (large && j % 4 != 0) continue;  // the large shape: RowMajor NN and ColMajor NN
      ref::GemmCase c;
      c.layout = kCombos[j].layout;
      c.op_a = kCombos[j].op_a;
      c.op_b = kCombos[j].op_b;
      c.m = d.m;
      c.n = d.n;
      c.k = d.k;
      c.alpha = kAlphas[(s + j) % 2];  // alpha == 0 never reaches the kernel: see AlphaBeta
      c.beta = kBetas[(s + 2 * j) % 3];
      check(with_lds(c, (s + j) % 3 == 2 ? 5 : 0, k), seed++);
      if (HasFailure()) return;
    }
  }
}

// Every layout x op x alpha x beta x (tight, padded ld) on two small odd shapes.
TEST_P(CaseMatrix, AlphaBeta) {
  const KernelInfo& k = info(GetParam());
  std::uint64_t seed = 1000;
  for (Dims d : {Dims{37, 29, 41}, Dims{130, 67, 19}})
    for (const Combo& combo : kCombos)
      for (float alpha : kAlphas)
        for (float beta : kBetas)
          for (std::int64_t pad : {0, 3}) {
            ref::GemmCase c{combo.layout, combo.op_a, combo.op_b, d.m, d.n, d.k, alpha, beta};
            check(with_lds(c, pad, k), seed++);
            if (HasFailure()) return;
          }
}

// NaN and Inf in A and B propagate as IEEE float32 arithmetic does (including Inf * 0 = NaN
// and Inf - Inf = NaN), in both layouts, with beta != 0 and beta == 0 (where C is not read and
// a kernel may find the values late: tc-03 tests B inside its tile kernel), in A and B, in B
// alone and in A alone (3xTF32 must find them in each operand: one found in B would hide a
// miss in A).
TEST_P(CaseMatrix, NanInfPropagation) {
  const KernelInfo& k = info(GetParam());
  enum class Where { AAndB, BOnly, AOnly };
  for (const Combo& combo : {kCombos[0], kCombos[7]})
    for (float beta : {0.5f, 0.0f})
      for (Where where : {Where::AAndB, Where::BOnly, Where::AOnly}) {
        ref::GemmCase c =
            with_lds({combo.layout, combo.op_a, combo.op_b, 67, 45, 33, 1.0f, beta}, 0, k);
        if (!k.supports(problem_of(c))) continue;
        ref::CaseBuffers buf(c);
        buf.fill_random(77);
        const float inf = std::numeric_limits<float>::infinity();
        if (where != Where::AOnly) {
          buf.poke(1, 7, 9, inf);    // column 9 of C: +-Inf
          buf.poke(1, 2, 11, inf);   // columns 11 and 12: +-Inf
          buf.poke(1, 2, 12, -inf);
          buf.poke(1, 2, 13, 0.0f);
        }
        if (where != Where::BOnly) {
          buf.poke(0, 3, 5, std::numeric_limits<float>::quiet_NaN());  // row 3 of C: NaN
          buf.poke(0, 10, 2, -inf);  // row 10: -Inf; with B as above C(10, 11) -Inf,
                                     // C(10, 12) +Inf, C(10, 13) = -Inf * 0 = NaN
          buf.poke(0, 20, 2, inf);   // C(20, 11): +Inf, and with
          buf.poke(0, 20, 7, -inf);  // B(7, 9) = Inf: C(20, 9) = Inf - Inf = NaN
        }
        buf.compute_reference(cublas());
        buf.reset_c();
        const ref::GemmCase& t = buf.gemm_case();
        ASSERT_EQ(gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda, buf.b(),
                       t.ldb, t.beta, buf.c(), t.ldc, nullptr, options()),
                  Status::Success)
            << last_error();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const ref::Verdict v = buf.verify(k.math);
        EXPECT_TRUE(v.pass) << GetParam() << " on " << ref::describe(t)
                            << (where == Where::AAndB  ? ", Inf/NaN in A and B: "
                                : where == Where::BOnly ? ", Inf in B only: "
                                                        : ", Inf/NaN in A only: ")
                            << v.detail;
        expect_rel_fro(v, k.math, GetParam() + " on " + ref::describe(t));
      }
}

// Small odd shapes for compute-sanitizer (scripts/gpu-check runs this filter under memcheck,
// racecheck, synccheck and initcheck): every edge path of every kernel, little time.
TEST_P(CaseMatrix, SanitizerShapes) {
  const KernelInfo& k = info(GetParam());
  std::uint64_t seed = 5000;
  for (Dims d : {Dims{37, 29, 41}, Dims{131, 67, 45}})
    for (const Combo& combo : {kCombos[0], kCombos[5]}) {
      ref::GemmCase c{combo.layout, combo.op_a, combo.op_b, d.m, d.n, d.k, -0.5f, 0.75f};
      check(with_lds(c, 1, k), seed++);
    }
  // beta == 0, tight and 16-byte aligned rows of C: tc-03 stages C in shared memory for TMA
  // stores on this path, and the sanitizers should see it too.
  const Combo& nn = kCombos[0];
  const ref::GemmCase aligned_c{nn.layout, nn.op_a, nn.op_b, 66, 72, 45, -0.5f, 0.0f};
  check(with_lds(aligned_c, 0, k), seed++);
}

// A row of tiles and a long k, for compute-sanitizer: rung 13 and tc-03 (both modes) cut them
// all along k over 132 SMs (pipeline/tail_split.cuh), with ranges that cross tiles' edges and
// fixups that add dozens of partial sums; beta == 0 with aligned rows sends tc-03's stores
// through TMA. The small-M kernels (rung 14, tc-05) split k over blocks on the same calls, whose
// last block adds the ranges (epilogue/split_sum.cuh); the second call, transposed with
// beta != 0, sends tc-05's 3xTF32 sums through split_sum instead. Every kernel runs them;
// scripts/gpu-check runs them under the sanitizers only for the kernels that split k (under
// racecheck, every tiled kernel together took 281 s on the first).
TEST_P(CaseMatrix, SanitizerTailShapes) {
  const KernelInfo& k = info(GetParam());
  const ref::GemmCase long_k{Layout::RowMajor, Op::N, Op::N, 8, 1400, 2700, -0.5f, 0.0f};
  check(with_lds(long_k, 0, k), 5100);
  const ref::GemmCase tall{Layout::RowMajor, Op::N, Op::T, 1400, 37, 2700, -0.5f, 0.75f};
  check(with_lds(tall, 0, k), 5101);
}

// The tail split (pipeline/tail_split.cuh) on 132 SMs (H100 SXM, H200), with whole tiles before
// it: RowMajor 2100 x 2200 is 153 of rung 13's 128 x 256 tiles (132 whole, 21 cut along k), 306
// of tc-03's 128 x 128 in 3xTF32 (264, 42) and 162 of its 256 x 128 in Tf32 (132, 30; ColMajor
// swaps m and n); k = 2401 is long enough for each to split and ends in a partial k-tile.
// 300 x 200 is a few tiles, all cut, with beta = 0 (tc-03 then stores C through TMA). 260 x 600
// is 9-10 of rung 13's tiles, all cut into ~15 slots each, which a separate kernel adds
// (kSeparateSumSlots), here with alpha and beta in play. The tail tiles include C's ragged
// edges. 50 x 1500 and 1500 x 50 run on rung 13's 64 x 512 and 512 x 64 tiles (tma_tiles.hpp)
// with panels of 256 rows, all cut along k. Every kernel runs them.
TEST_P(CaseMatrix, TailShapes) {
  const KernelInfo& k = info(GetParam());
  std::uint64_t seed = 6000;
  struct Shape {
    Dims d;
    float alpha, beta;
  };
  for (const Shape& s : {Shape{{2100, 2200, 2401}, 1.0f, 0.5f}, Shape{{300, 200, 3000}, 1.0f, 0.0f},
                         Shape{{260, 600, 2900}, -0.5f, 0.75f}, Shape{{50, 1500, 900}, 1.0f, 0.0f},
                         Shape{{1500, 50, 900}, -0.5f, 0.75f}})
    for (const Combo& combo : kCombos) {
      ref::GemmCase c{combo.layout, combo.op_a, combo.op_b, s.d.m, s.d.n, s.d.k, s.alpha, s.beta};
      check(with_lds(c, 0, k), seed++);
      if (HasFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, CaseMatrix, ::testing::ValuesIn(all_slugs()), test_name);

}  // namespace
}  // namespace sgemm::test

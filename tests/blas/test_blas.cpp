// Host tests of libsgemm_blas.so (src/blas), linked as a BLAS program links it: reference BLAS's
// argument checks and quick returns, the CPU path against a float64 reference, and calls sent to
// the GPU, which on a machine without one must fall back to the CPU and still be right.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "blas/paths.hpp"  // reference_sgemm: reference.cpp is compiled into this test too

extern "C" {
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, std::size_t transa_len,
            std::size_t transb_len);
void cblas_sgemm(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
}

namespace {

constexpr int kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113;

struct XerblaLog {
  int calls = 0;
  std::string name;
  int info = 0;
} g_xerbla;

}  // namespace

// The program's own XERBLA, as xblat3s has one: the library must call this one, not its BLAS's.
extern "C" void xerbla_(const char* name, const int* info, std::size_t name_len) {
  ++g_xerbla.calls;
  g_xerbla.name.assign(name, name_len);
  g_xerbla.info = *info;
}

namespace {

const char* const kEnv[] = {"SGEMM_BLAS_FORCE_GPU", "SGEMM_BLAS_FORCE_CPU",
                            "SGEMM_BLAS_GPU_MIN_FLOPS", "SGEMM_BLAS_TRACE"};

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Every test starts from the library's defaults, whatever the environment of the run says.
class Blas : public testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kEnv) unsetenv(name);
    g_xerbla = {};
  }
};

// A rows x cols matrix in either layout, with a leading dimension that may pad it; the padding
// holds values of its own, so that a write past the matrix shows.
struct Matrix {
  bool row_major = false;
  int rows = 0, cols = 0, ld = 1;
  std::vector<float> data;

  Matrix(bool row_major_, int rows_, int cols_, int pad, unsigned seed)
      : row_major(row_major_),
        rows(rows_),
        cols(cols_),
        ld(std::max(1, (row_major_ ? cols_ : rows_) + pad)),
        data(std::size_t(ld) * std::max(1, row_major_ ? rows_ : cols_)) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : data) x = dist(gen);
  }
  std::size_t index(int i, int j) const {
    return row_major ? std::size_t(i) * ld + j : i + std::size_t(j) * ld;
  }
  float at(int i, int j) const { return data[index(i, j)]; }
};

// op(X)(i, j), independently of the library's row-major mapping.
float op_at(const Matrix& x, bool trans, int i, int j) { return trans ? x.at(j, i) : x.at(i, j); }

// Checks c_out = alpha * op(A) * op(B) + beta * c_in against float64 with a bound of the
// accumulated rounding, and that C's padding is untouched.
void expect_product(bool ta, bool tb, float alpha, const Matrix& a, const Matrix& b, float beta,
                    const Matrix& c_in, const Matrix& c_out, int k) {
  const double eps = std::numeric_limits<float>::epsilon();
  int bad = 0;
  for (int i = 0; i < c_in.rows; ++i)
    for (int j = 0; j < c_in.cols; ++j) {
      double sum = 0, magnitude = 0;
      for (int l = 0; l < k; ++l) {
        const double p = double(op_at(a, ta, i, l)) * op_at(b, tb, l, j);
        sum += p;
        magnitude += std::abs(p);
      }
      double want = alpha * sum, bound = std::abs(alpha) * magnitude;
      if (beta != 0) {  // beta == 0: C is not read, even where it holds NaN
        want += double(beta) * c_in.at(i, j);
        bound += std::abs(double(beta) * c_in.at(i, j));
      }
      const double got = c_out.at(i, j);
      if (!(std::abs(got - want) <= 2 * (k + 2) * eps * bound + 1e-30) && ++bad <= 5)
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", want " << want;
    }
  for (std::size_t e = 0; e < c_in.data.size(); ++e) {
    const int major = int(e / c_in.ld), minor = int(e % c_in.ld);
    const bool inside = minor < (c_in.row_major ? c_in.cols : c_in.rows);
    if (!inside && std::memcmp(&c_in.data[e], &c_out.data[e], sizeof(float)) != 0 && ++bad <= 5)
      ADD_FAILURE() << "padding of C written at " << major << ", " << minor;
  }
  EXPECT_EQ(bad, 0);
}

struct Shape {
  int m, n, k;
};
struct Scalars {
  float alpha, beta;
};
constexpr Shape kShapes[] = {{1, 1, 1}, {3, 5, 7}, {17, 9, 33}, {64, 31, 5}, {4, 6, 0}};
constexpr Scalars kScalars[] = {{1.0f, 0.0f}, {0.7f, 1.3f}, {-1.5f, 1.0f}, {0.0f, 0.5f}};

// One sgemm_ call on fresh operands (C full of NaN when beta == 0: it must not be read), checked.
void check_sgemm(char ta, char tb, Shape s, Scalars x, int pad, unsigned seed) {
  SCOPED_TRACE(testing::Message() << ta << tb << " m=" << s.m << " n=" << s.n << " k=" << s.k
                                  << " alpha=" << x.alpha << " beta=" << x.beta << " pad=" << pad);
  const bool trans_a = ta != 'N' && ta != 'n', trans_b = tb != 'N' && tb != 'n';
  const Matrix a(false, trans_a ? s.k : s.m, trans_a ? s.m : s.k, pad, seed);
  const Matrix b(false, trans_b ? s.n : s.k, trans_b ? s.k : s.n, pad, seed + 1);
  Matrix c(false, s.m, s.n, pad, seed + 2);
  if (x.beta == 0)
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i < s.m; ++i) c.data[c.index(i, j)] = std::nanf("");
  Matrix out = c;
  sgemm_(&ta, &tb, &s.m, &s.n, &s.k, &x.alpha, a.data.data(), &a.ld, b.data.data(), &b.ld, &x.beta,
         out.data.data(), &out.ld, 1, 1);
  expect_product(trans_a, trans_b, x.alpha, a, b, x.beta, c, out, s.k);
}

void check_cblas(int layout, int ta, int tb, Shape s, Scalars x, int pad, unsigned seed) {
  SCOPED_TRACE(testing::Message() << "layout=" << layout << " " << ta << " " << tb << " m=" << s.m
                                  << " n=" << s.n << " k=" << s.k << " alpha=" << x.alpha
                                  << " beta=" << x.beta << " pad=" << pad);
  const bool row = layout == kRowMajor, trans_a = ta != kNoTrans, trans_b = tb != kNoTrans;
  const Matrix a(row, trans_a ? s.k : s.m, trans_a ? s.m : s.k, pad, seed);
  const Matrix b(row, trans_b ? s.n : s.k, trans_b ? s.k : s.n, pad, seed + 1);
  const Matrix c(row, s.m, s.n, pad, seed + 2);
  Matrix out = c;
  cblas_sgemm(layout, ta, tb, s.m, s.n, s.k, x.alpha, a.data.data(), a.ld, b.data.data(), b.ld,
              x.beta, out.data.data(), out.ld);
  expect_product(trans_a, trans_b, x.alpha, a, b, x.beta, c, out, s.k);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Argument checks: each bad argument reaches the program's XERBLA with its position, and C is
// left alone.

struct FortranArgs {
  char ta = 'N', tb = 'N';
  int m = 4, n = 5, k = 6, lda = 4, ldb = 6, ldc = 4;
};

TEST_F(Blas, SgemmReportsEachInvalidArgumentToXerbla) {
  struct Case {
    const char* what;
    std::function<void(FortranArgs&)> spoil;
    int info;
  };
  const Case cases[] = {
      {"transa", [](FortranArgs& x) { x.ta = 'X'; }, 1},
      {"transb", [](FortranArgs& x) { x.tb = 'x'; }, 2},
      {"transa and transb", [](FortranArgs& x) { x.ta = 'A', x.tb = 'B'; }, 1},
      {"m", [](FortranArgs& x) { x.m = -1; }, 3},
      {"n", [](FortranArgs& x) { x.n = -1; }, 4},
      {"k", [](FortranArgs& x) { x.k = -1; }, 5},
      {"m and n", [](FortranArgs& x) { x.m = x.n = -1; }, 3},
      {"lda < m", [](FortranArgs& x) { x.lda = 3; }, 8},
      {"lda < k with A^T", [](FortranArgs& x) { x.ta = 'T', x.lda = 5; }, 8},
      {"lda 0 with m 0", [](FortranArgs& x) { x.m = 0, x.lda = 0, x.ldc = 1; }, 8},
      {"ldb < k", [](FortranArgs& x) { x.ldb = 5; }, 10},
      {"ldb < n with B^T", [](FortranArgs& x) { x.tb = 'c', x.ldb = 4; }, 10},
      {"ldc < m", [](FortranArgs& x) { x.ldc = 3; }, 13},
      {"ldb and ldc", [](FortranArgs& x) { x.ldb = 1, x.ldc = 1; }, 10},
  };
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 7.0f);
  const float alpha = 1, beta = 0;
  for (const Case& test : cases) {
    SCOPED_TRACE(test.what);
    FortranArgs x;
    test.spoil(x);
    g_xerbla = {};
    sgemm_(&x.ta, &x.tb, &x.m, &x.n, &x.k, &alpha, a.data(), &x.lda, b.data(), &x.ldb, &beta,
           c.data(), &x.ldc, 1, 1);
    EXPECT_EQ(g_xerbla.calls, 1);
    EXPECT_EQ(g_xerbla.name, "SGEMM ");
    EXPECT_EQ(g_xerbla.info, test.info);
    EXPECT_EQ(c, std::vector<float>(64, 7.0f));
  }
}

TEST_F(Blas, SgemmAcceptsEveryTransposeSpelling) {
  for (char ta : {'N', 'n', 'T', 't', 'C', 'c'})
    for (char tb : {'N', 'n', 'T', 't', 'C', 'c'}) check_sgemm(ta, tb, {3, 4, 5}, {1, 0}, 1, 7);
  EXPECT_EQ(g_xerbla.calls, 0);
}

struct CblasArgs {
  int layout, ta = kNoTrans, tb = kNoTrans, m = 4, n = 5, k = 6, lda, ldb, ldc;
};
CblasArgs valid_cblas(int layout) {
  // A is m x k, B k x n, C m x n; their leading dimensions are the rows' length in row-major.
  return layout == kColMajor ? CblasArgs{layout, kNoTrans, kNoTrans, 4, 5, 6, 4, 6, 4}
                             : CblasArgs{layout, kNoTrans, kNoTrans, 4, 5, 6, 6, 5, 5};
}

// The positions reference CBLAS (LAPACK 3.11) reports through cblas_xerbla, checked against
// Debian's libblas.so.3, but for a bad TransB in row-major, which 3.11 calls argument 2: it is 3.
TEST_F(Blas, CblasReportsEachInvalidArgumentWithItsPosition) {
  struct Case {
    const char* what;
    std::function<void(CblasArgs&)> spoil;
    int col_major, row_major;  // the expected position in each layout
  };
  const Case cases[] = {
      {"layout", [](CblasArgs& x) { x.layout = 0; }, 1, 1},
      {"TransA", [](CblasArgs& x) { x.ta = 0; }, 2, 2},
      {"TransB", [](CblasArgs& x) { x.tb = 114; }, 3, 3},
      {"TransA and TransB", [](CblasArgs& x) { x.ta = x.tb = 110; }, 2, 2},
      {"M", [](CblasArgs& x) { x.m = -1; }, 4, 4},
      {"N", [](CblasArgs& x) { x.n = -1; }, 5, 5},
      {"K", [](CblasArgs& x) { x.k = -1; }, 6, 6},
      // Row-major runs column-major SGEMM on n x m: its first complaint is about N.
      {"M and N", [](CblasArgs& x) { x.m = x.n = -1; }, 4, 5},
      {"lda", [](CblasArgs& x) { --x.lda; }, 9, 9},
      {"lda with A^T", [](CblasArgs& x) { x.ta = kTrans, x.lda = x.layout == kColMajor ? 5 : 3; },
       9, 9},
      {"ldb", [](CblasArgs& x) { --x.ldb; }, 11, 11},
      {"ldb with B^T",
       [](CblasArgs& x) { x.tb = kConjTrans, x.ldb = x.layout == kColMajor ? 4 : 5; }, 11, 11},
      {"ldc", [](CblasArgs& x) { --x.ldc; }, 14, 14},
      // Likewise row-major checks B's leading dimension before A's.
      {"lda and ldb", [](CblasArgs& x) { x.lda = x.ldb = 1; }, 9, 11},
  };
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 7.0f);
  for (int layout : {kColMajor, kRowMajor})
    for (const Case& test : cases) {
      SCOPED_TRACE(testing::Message()
                   << test.what << (layout == kRowMajor ? " row" : " col") << "-major");
      CblasArgs x = valid_cblas(layout);
      test.spoil(x);
      g_xerbla = {};
      cblas_sgemm(x.layout, x.ta, x.tb, x.m, x.n, x.k, 1.0f, a.data(), x.lda, b.data(), x.ldb, 0.0f,
                  c.data(), x.ldc);
      EXPECT_EQ(g_xerbla.calls, 1);
      EXPECT_EQ(g_xerbla.name, "cblas_sgemm");
      EXPECT_EQ(g_xerbla.info, layout == kColMajor ? test.col_major : test.row_major);
      EXPECT_EQ(c, std::vector<float>(64, 7.0f));
    }
}

TEST_F(Blas, ValidCallsDoNotCallXerbla) {
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 0.0f);
  for (int layout : {kColMajor, kRowMajor}) {
    const CblasArgs x = valid_cblas(layout);
    cblas_sgemm(x.layout, x.ta, x.tb, x.m, x.n, x.k, 1.0f, a.data(), x.lda, b.data(), x.ldb, 0.0f,
                c.data(), x.ldc);
  }
  EXPECT_EQ(g_xerbla.calls, 0);
}

// ---------------------------------------------------------------------------------------------
// Quick returns: m == 0, n == 0, or (alpha == 0 or k == 0) with beta == 1 touch nothing, not even
// a NaN in C; A and B are not read (null here).

TEST_F(Blas, QuickReturnsLeaveCAlone) {
  struct Case {
    int m, n, k;
    float alpha, beta;
  };
  const Case cases[] = {{0, 3, 3, 1, 0}, {3, 0, 3, 1, 0}, {3, 3, 3, 0, 1}, {3, 3, 0, 1, 1}};
  std::vector<float> c(9, std::nanf(""));
  c[4] = 2.5f;
  const std::vector<float> before = c;
  ScopedEnv trace("SGEMM_BLAS_TRACE", "1");
  testing::internal::CaptureStderr();
  for (const Case& x : cases) {
    const int lda = 3, ldb = 3, ldc = 3;
    sgemm_("N", "N", &x.m, &x.n, &x.k, &x.alpha, nullptr, &lda, nullptr, &ldb, &x.beta, c.data(),
           &ldc, 1, 1);
    cblas_sgemm(kRowMajor, kNoTrans, kTrans, x.m, x.n, x.k, x.alpha, nullptr, 3, nullptr, 3, x.beta,
                c.data(), 3);
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::memcmp(c.data(), before.data(), c.size() * sizeof(float)), 0);
  EXPECT_EQ(g_xerbla.calls, 0);
  for (const std::string& line : lines(log)) EXPECT_TRUE(contains(line, "-> quick return")) << line;
  EXPECT_EQ(lines(log).size(), 8u);
}

TEST_F(Blas, ZeroAlphaOrKScalesCWithoutReadingAOrB) {
  std::vector<float> c = {1, 2, 3, 4}, zero_c = {std::nanf(""), 1, 2, 3};
  const int m = 2, n = 2, k = 0, three = 3, ld = 2;
  const float one = 1, zero = 0, two = 2;
  sgemm_("T", "N", &m, &n, &k, &one, nullptr, &ld, nullptr, &ld, &two, c.data(), &ld, 1, 1);
  EXPECT_EQ(c, (std::vector<float>{2, 4, 6, 8}));
  sgemm_("N", "N", &m, &n, &three, &zero, nullptr, &ld, nullptr, &three, &zero, zero_c.data(), &ld,
         1, 1);
  EXPECT_EQ(zero_c, (std::vector<float>{0, 0, 0, 0}));  // beta == 0 clears even NaN
}

// ---------------------------------------------------------------------------------------------
// The CPU path (forced, so that a machine with a GPU tests it too).

TEST_F(Blas, CpuPathSgemmAllTransposes) {
  ScopedEnv cpu("SGEMM_BLAS_FORCE_CPU", "1");
  unsigned seed = 1;
  for (char ta : {'N', 'T', 'C'})
    for (char tb : {'N', 'T', 'C'})
      for (Shape s : kShapes)
        for (Scalars x : kScalars)
          for (int pad : {0, 3}) check_sgemm(ta, tb, s, x, pad, seed += 3);
}

TEST_F(Blas, CpuPathCblasBothLayouts) {
  ScopedEnv cpu("SGEMM_BLAS_FORCE_CPU", "1");
  unsigned seed = 1;
  for (int layout : {kColMajor, kRowMajor})
    for (int ta : {kNoTrans, kTrans, kConjTrans})
      for (int tb : {kNoTrans, kTrans, kConjTrans})
        for (Shape s : kShapes)
          for (Scalars x : kScalars)
            for (int pad : {0, 2}) check_cblas(layout, ta, tb, s, x, pad, seed += 3);
}

// The built-in loops, the CPU path where no system BLAS exists.
TEST_F(Blas, ReferenceLoopsAllTransposes) {
  unsigned seed = 1;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (Shape s : kShapes)
        for (Scalars x : kScalars) {
          SCOPED_TRACE(testing::Message() << ta << tb << " m=" << s.m << " n=" << s.n << " k="
                                          << s.k << " alpha=" << x.alpha << " beta=" << x.beta);
          const Matrix a(false, ta ? s.k : s.m, ta ? s.m : s.k, 1, seed += 3);
          const Matrix b(false, tb ? s.n : s.k, tb ? s.k : s.n, 2, seed + 1);
          const Matrix c(false, s.m, s.n, 1, seed + 2);
          Matrix out = c;
          sgemm_blas::reference_sgemm({ta, tb, s.m, s.n, s.k, x.alpha, a.data.data(), a.ld,
                                       b.data.data(), b.ld, x.beta, out.data.data(), out.ld});
          expect_product(ta, tb, x.alpha, a, b, x.beta, c, out, s.k);
        }
}

TEST_F(Blas, TraceSaysWhereEachCallRan) {
  ScopedEnv trace("SGEMM_BLAS_TRACE", "1");
  std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 0.0f);
  const int two = 2, zero = 0, bad = -1;
  const float one = 1;
  testing::internal::CaptureStderr();
  sgemm_("N", "T", &two, &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two, 1,
         1);
  sgemm_("N", "N", &zero, &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two, 1,
         1);
  sgemm_("N", "N", &two, &bad, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two, 1,
         1);
  cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, 2, 2, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  const std::vector<std::string> log = lines(testing::internal::GetCapturedStderr());
  ASSERT_EQ(log.size(), 4u);
  // Debian's libblas3 is behind the library here (a dependency of libblas-test).
  EXPECT_EQ(log[0], "sgemm_blas: sgemm_ NT m=2 n=2 k=2 -> system");
  EXPECT_EQ(log[1], "sgemm_blas: sgemm_ NN m=0 n=2 k=2 -> quick return");
  EXPECT_EQ(log[2], "sgemm_blas: sgemm_ -> xerbla 4");
  EXPECT_EQ(log[3], "sgemm_blas: cblas_sgemm NN m=2 n=2 k=2 -> system");
}

// ---------------------------------------------------------------------------------------------
// Calls sent to the GPU. With one they run there; without one (CI) they must fall back to the CPU,
// say why in the trace, and leave a correct C: the GPU's failure must not cost the result.

// Each trace line says "-> gpu", or runs on the CPU and gives the GPU's reason in parentheses
// (or is a quick return, which never tries the GPU).
void expect_gpu_or_reason(const std::string& log, std::size_t calls) {
  const std::vector<std::string> traced = lines(log);
  EXPECT_EQ(traced.size(), calls);
  for (const std::string& line : traced)
    EXPECT_TRUE(contains(line, "-> gpu") || contains(line, "(no GPU: ") ||
                contains(line, "(GPU failed: ") || contains(line, "-> quick return"))
        << line;
}

TEST_F(Blas, ForcedGpuCallsAreRightWithOrWithoutAGpu) {
  ScopedEnv force("SGEMM_BLAS_FORCE_GPU", "1"), trace("SGEMM_BLAS_TRACE", "1");
  testing::internal::CaptureStderr();
  std::size_t calls = 0;
  unsigned seed = 100;
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'})
      for (Shape s : {Shape{67, 45, 129}, Shape{8, 8, 0}})
        for (Scalars x : kScalars) check_sgemm(ta, tb, s, x, 5, seed += 3), ++calls;
  for (int layout : {kColMajor, kRowMajor})
    check_cblas(layout, kTrans, kNoTrans, {33, 70, 41}, {0.5f, -2.0f}, 1, seed += 3), ++calls;
  expect_gpu_or_reason(testing::internal::GetCapturedStderr(), calls);
}

TEST_F(Blas, ThresholdDecidesWhichCallsTryTheGpu) {
  ScopedEnv trace("SGEMM_BLAS_TRACE", "1"), threshold("SGEMM_BLAS_GPU_MIN_FLOPS", "4096");
  testing::internal::CaptureStderr();
  check_sgemm('N', 'N', {16, 16, 15}, {1, 0}, 0, 1);  // 3840 < 4096: the CPU, no GPU tried
  const std::string small = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(small, "-> system\n") || contains(small, "-> reference\n")) << small;
  testing::internal::CaptureStderr();
  check_sgemm('N', 'N', {16, 16, 16}, {1, 0}, 0, 2);  // 4096: tries the GPU
  expect_gpu_or_reason(testing::internal::GetCapturedStderr(), 1);
}

TEST_F(Blas, DefaultThresholdSendsA256CubeToTheGpu) {
  ScopedEnv trace("SGEMM_BLAS_TRACE", "1");
  testing::internal::CaptureStderr();
  check_sgemm('T', 'N', {256, 256, 256}, {1.0f, 0.5f}, 0, 3);  // 2^24 multiply-adds
  expect_gpu_or_reason(testing::internal::GetCapturedStderr(), 1);
}

TEST_F(Blas, ForceCpuWinsOverForceGpu) {
  ScopedEnv gpu("SGEMM_BLAS_FORCE_GPU", "1"), cpu("SGEMM_BLAS_FORCE_CPU", "1"),
      trace("SGEMM_BLAS_TRACE", "1");
  testing::internal::CaptureStderr();
  check_sgemm('N', 'N', {8, 8, 8}, {1, 1}, 0, 4);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(log, "-> system\n") || contains(log, "-> reference\n")) << log;
}

// The GPU path is shared (buffers, stream); threads must take turns, not trample each other.
TEST_F(Blas, ConcurrentForcedGpuCallsFromThreads) {
  ScopedEnv force("SGEMM_BLAS_FORCE_GPU", "1");
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 3; ++i)
        check_sgemm(t % 2 ? 'T' : 'N', 'N', {40 + int(t), 30 + i, 50}, {1.0f, 0.5f}, 1, t * 10 + i);
    });
  for (std::thread& thread : threads) thread.join();
}

}  // namespace

// What each rung claims about its compiled code, checked on the SASS of libsgemm.a.
//
// tools/sass/resource_report.py turns `cuobjdump -res-usage -sass libsgemm.a` into one row per
// kernel instantiation and architecture (kernel_resources.tsv, made by every build). A claim
// covers every row whose slug starts with its rung ("simt-05" covers simt-05-blocktile-2d and
// all its instantiations). A rung whose file is not written yet is skipped; once the file
// exists, its kernels must be in the report, which catches a kernel that does not follow the
// naming rule `<slug with '-' as '_'>_kernel`.
#include <gtest/gtest.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#ifndef SGEMM_RESOURCES_TSV
#error "SGEMM_RESOURCES_TSV must name the build's kernel_resources.tsv"
#endif
#ifndef SGEMM_SOURCE_DIR
#error "SGEMM_SOURCE_DIR must name the source tree"
#endif

namespace {

enum Check : unsigned {
  kFfma = 1u << 0,        // FFMA present: the rung computes on CUDA cores
  kNoSpill = 1u << 1,     // no stack frame, no LDL/STL: the register tile fits
  kLds128 = 1u << 2,      // LDS.128 present: fragments come from shared memory as float4
  kHgmma = 1u << 3,       // HGMMA present: wgmma on Hopper tensor cores
  kHopperOnly = 1u << 4,  // built only for sm_90a: claims apply to its sm_90a rows only
  // No instruction writes a register holding the A operand of a wgmma still in flight (the
  // report's hgmma_a_clobbers): ptxas does not keep those registers apart by itself.
  kWgmmaARegisters = 1u << 5,
};

struct Claim {
  std::string_view rung;
  unsigned checks;
  int max_registers = 0;  // 0: no register budget claimed
  // The least share of FFMA among the main loop's instructions, in permille; 0: none claimed.
  int min_loop_ffma_permille = 0;
};

void PrintTo(const Claim& claim, std::ostream* os) { *os << claim.rung; }

// clang-format off
constexpr Claim kClaims[] = {
    {"simt-01", kFfma},
    {"simt-02", kFfma},
    {"simt-03", kFfma},
    {"simt-04", kFfma},
    {"simt-05", kFfma | kNoSpill},
    {"simt-06", kFfma | kNoSpill | kLds128, 128},  // __launch_bounds__(256, 2)
    {"simt-07", kFfma | kNoSpill | kLds128, 128},  // __launch_bounds__(256, 2)
    {"simt-08", kFfma | kNoSpill | kLds128, 128},  // __launch_bounds__(256, 2): 65536 / 512
    {"simt-09", kFfma | kNoSpill | kLds128},
    {"simt-10", kFfma | kNoSpill | kLds128},
    {"simt-11", kFfma | kNoSpill | kLds128},
    {"simt-12", kFfma | kNoSpill},
    // Rung 13's k-loop issues one instruction per cycle per scheduler, so every other
    // instruction in it costs an FFMA's time: 13 more (1109 for 1024 FFMA, 92.3%) made it 1.4%
    // slower (measured on an H200). Its instantiations have 1096-1102 (92.9-93.4%).
    {"simt-13", kFfma | kNoSpill | kHopperOnly, 0, 925},
    {"simt-14", kFfma | kNoSpill},
    {"cute-01", kNoSpill},
    {"cute-02", kNoSpill},
    {"tc-01",   kNoSpill},
    {"tc-02",   kNoSpill | kHgmma | kHopperOnly | kWgmmaARegisters},
    {"tc-03",   kNoSpill | kHgmma | kHopperOnly | kWgmmaARegisters},
    {"tc-04",   kNoSpill | kHgmma | kHopperOnly | kWgmmaARegisters},
    {"tc-05",   kNoSpill},
    {"conv-03", kNoSpill},
    {"conv-04", kNoSpill | kHgmma | kHopperOnly},
};
// clang-format on

constexpr std::string_view kHopper = "sm_90a";

struct Report {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::string error;  // why the file could not be read

  int column(std::string_view name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return static_cast<int>(i);
    ADD_FAILURE() << SGEMM_RESOURCES_TSV << " has no column '" << name << "'";
    return -1;
  }
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

const Report& report() {
  static const Report loaded = [] {
    Report r;
    std::ifstream in(SGEMM_RESOURCES_TSV);
    std::string line;
    if (!in) {
      r.error = "cannot open it (the build target sgemm_resources makes it)";
      return r;
    }
    if (!std::getline(in, line)) {
      r.error = "empty: python3 was not found when CMake configured the build";
      return r;
    }
    r.columns = split_tabs(line);
    while (std::getline(in, line)) {
      r.rows.push_back(split_tabs(line));
      if (r.rows.back().size() != r.columns.size()) {
        r.error = "row with " + std::to_string(r.rows.back().size()) + " fields, header has " +
                  std::to_string(r.columns.size()) + ": " + line;
        r.rows.clear();
        return r;
      }
    }
    return r;
  }();
  return loaded;
}

long long number(const std::vector<std::string>& row, int column) {
  long long value = -1;
  if (column < 0) return value;
  const std::string& field = row[column];
  std::from_chars(field.data(), field.data() + field.size(), value);
  return value;
}

bool covers(std::string_view rung, std::string_view slug) {
  return slug.starts_with(rung) && (slug.size() == rung.size() || slug[rung.size()] == '-');
}

// src/kernels/<folder>/NN_*.cu of a rung such as "simt-05" or "tc-02".
bool kernel_file_exists(std::string_view rung) {
  const std::string_view track = rung.substr(0, rung.find('-'));
  const std::string number(rung.substr(rung.find('-') + 1));
  const std::map<std::string_view, std::string_view> folder = {
      {"simt", "simt"}, {"cute", "cute"}, {"tc", "tensorcore"}};
  const std::filesystem::path dir =
      std::filesystem::path(SGEMM_SOURCE_DIR) / "src/kernels" / std::string(folder.at(track));
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(number + "_") && name.ends_with(".cu")) return true;
  }
  return false;
}

bool report_has(std::string_view prefix, int slug_column, int arch_column,
                std::string_view arch = {}) {
  for (const auto& row : report().rows)
    if (row[slug_column].starts_with(prefix) && (arch.empty() || row[arch_column] == arch))
      return true;
  return false;
}

constexpr const char* kEmptyReport =
    "kernel_resources.tsv lists no kernel: was cuobjdump found when CMake configured the build? "
    "(scripts/install-deps installs it; see the 'sgemm: cuobjdump' line of the CMake output)";

TEST(KernelResources, ReportListsTheKernels) {
  const Report& r = report();
  ASSERT_TRUE(r.error.empty()) << SGEMM_RESOURCES_TSV << ": " << r.error;
  EXPECT_FALSE(r.rows.empty()) << kEmptyReport;
}

class RungClaim : public testing::TestWithParam<Claim> {};

TEST_P(RungClaim, HoldsForEveryInstantiation) {
  const Claim& claim = GetParam();
  const Report& r = report();
  if (!r.error.empty() || r.rows.empty()) GTEST_SKIP() << "no report: see ReportListsTheKernels";

  const int slug = r.column("slug"), arch = r.column("arch"), symbol = r.column("symbol");
  const int registers = r.column("registers"), stack = r.column("stack_bytes");
  const int local = r.column("local_bytes"), ldl = r.column("ldl"), stl = r.column("stl");
  const int ffma = r.column("ffma"), lds128 = r.column("lds128"), hgmma = r.column("hgmma");
  const int clobbers = r.column("hgmma_a_clobbers");
  const int loop_instructions = r.column("loop_instructions"), loop_ffma = r.column("loop_ffma");
  ASSERT_FALSE(testing::Test::HasFailure()) << "the report's columns changed";

  const bool hopper_only = claim.checks & kHopperOnly;
  int checked = 0;
  for (const auto& row : r.rows) {
    if (!covers(claim.rung, row[slug]) || (hopper_only && row[arch] != kHopper)) continue;
    ++checked;
    const std::string where = row[slug] + " " + row[arch] + " " + row[symbol] + ": ";
    if (claim.checks & kFfma) {
      EXPECT_GT(number(row, ffma), 0) << where << "no FFMA";
      EXPECT_GT(number(row, loop_ffma), 0) << where << "no loop with FFMA (the report's main loop)";
    }
    if (claim.min_loop_ffma_permille > 0) {
      EXPECT_GE(number(row, loop_ffma) * 1000,
                claim.min_loop_ffma_permille * number(row, loop_instructions))
          << where << "main loop of " << row[loop_instructions] << " instructions for "
          << row[loop_ffma] << " FFMA: under " << claim.min_loop_ffma_permille / 10.0 << "% FFMA";
    }
    if (claim.checks & kNoSpill) {
      EXPECT_EQ(number(row, stack), 0) << where << "stack frame (spills or a local array)";
      EXPECT_EQ(number(row, local), 0) << where << "local memory";
      EXPECT_EQ(number(row, ldl) + number(row, stl), 0) << where << "LDL/STL in the SASS";
    }
    if (claim.checks & kLds128) {
      EXPECT_GT(number(row, lds128), 0) << where << "no LDS.128";
    }
    if (claim.checks & kHgmma) {
      EXPECT_GT(number(row, hgmma), 0) << where << "no HGMMA";
    }
    if (claim.checks & kWgmmaARegisters) {
      EXPECT_EQ(number(row, clobbers), 0)
          << where << "writes to the A registers of a wgmma in flight (see tools/sass/"
          << "resource_report.py, hgmma_a_clobbers)";
    }
    if (claim.max_registers > 0) {
      EXPECT_LE(number(row, registers), claim.max_registers) << where << "over its budget";
    }
  }

  if (checked > 0) return;
  if (!kernel_file_exists(claim.rung)) GTEST_SKIP() << claim.rung << ": no kernel file yet";
  // The CuTe track is built only when the CUTLASS headers are found; Hopper-only rungs only
  // when the build targets sm_90a.
  const std::string_view track = claim.rung.substr(0, claim.rung.find('-') + 1);
  if (!report_has(track, slug, arch)) GTEST_SKIP() << "no " << track << " kernel in this build";
  if (hopper_only && !report_has("", slug, arch, kHopper)) GTEST_SKIP() << "no sm_90a build";
  ADD_FAILURE() << claim.rung << ": its kernel file exists but no kernel of that slug is in "
                << SGEMM_RESOURCES_TSV << " (is the __global__ function named <slug>_kernel?)";
}

std::string rung_name(const testing::TestParamInfo<Claim>& info) {
  std::string name(info.param.rung);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Ladder, RungClaim, testing::ValuesIn(kClaims), rung_name);

}  // namespace

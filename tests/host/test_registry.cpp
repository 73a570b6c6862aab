// Registry invariants: what `auto`, the bench and the docs rely on.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "api/registry.hpp"
#include "sgemm/sgemm.hpp"

namespace sgemm {
namespace {

TEST(Registry, SlugsUniqueAndWellFormed) {
  std::set<std::string_view> seen;
  ASSERT_FALSE(kernels().empty());
  for (const KernelInfo& k : kernels()) {
    EXPECT_TRUE(seen.insert(k.slug).second) << "duplicate slug " << k.slug;
    for (char ch : k.slug) EXPECT_TRUE(std::islower(ch) || std::isdigit(ch) || ch == '-') << k.slug;
    EXPECT_FALSE(k.title.empty()) << k.slug;
    EXPECT_FALSE(k.source.empty()) << k.slug;
    EXPECT_FALSE(k.requirements.empty()) << k.slug << ": say \"none\" when there are none";
    EXPECT_GE(k.rung, 1) << k.slug;
  }
}

// Ladder order: by track, then by rung; rung numbers within a track form 1, 2, 3, ...
TEST(Registry, LadderOrder) {
  const auto ks = kernels();
  for (std::size_t i = 1; i < ks.size(); ++i) {
    const auto prev = std::pair(int(ks[i - 1].track), ks[i - 1].rung);
    const auto cur = std::pair(int(ks[i].track), ks[i].rung);
    EXPECT_LE(prev, cur) << ks[i - 1].slug << " before " << ks[i].slug;
    if (ks[i].track == ks[i - 1].track)
      EXPECT_LE(ks[i].rung - ks[i - 1].rung, 1) << "a gap in the ladder before " << ks[i].slug;
  }
}

// The slug names the track and rung: "simt-05-...", "cute-01-...", "tc-02-...".
TEST(Registry, SlugMatchesTrackAndRung) {
  for (const KernelInfo& k : kernels()) {
    const char* prefix = k.track == Track::Simt         ? "simt-"
                         : k.track == Track::Cute       ? "cute-"
                         : k.track == Track::TensorCore ? "tc-"
                                                        : "fallback-";
    char number[8];
    std::snprintf(number, sizeof number, "%02d-", k.rung);
    EXPECT_EQ(k.slug.substr(0, std::strlen(prefix)), prefix) << k.slug;
    EXPECT_EQ(k.slug.substr(std::strlen(prefix), 3), number) << k.slug;
  }
}

TEST(Registry, EveryRungOfTheFoundationIsThere) {
  for (const char* slug : {"simt-01-naive", "simt-02-coalesced", "simt-03-smem"})
    EXPECT_NE(detail::find_kernel(slug), nullptr) << slug;
}

TEST(Registry, SupportsExplainsRefusals) {
  for (const KernelInfo& k : kernels()) {
    Problem p{Layout::RowMajor, Op::N, Op::N, 64, 64, 64, reinterpret_cast<const float*>(4), 64,
              reinterpret_cast<const float*>(4), 64, reinterpret_cast<float*>(4), 64};
    std::string why;
    if (!k.supports(p, &why)) EXPECT_FALSE(why.empty()) << k.slug;
  }
}

}  // namespace
}  // namespace sgemm

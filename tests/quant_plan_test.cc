// Copyright synetk authors. SPDX-License-Identifier: MIT
// QuantizedShuffle's planner (quant_plan.h) without SIMD: which NHWC path
// serves a shape, for the capabilities of the targets that take each path.
#include "synetk/ops/quant_plan.h"

#include "harness.h"

namespace {

using synetk::detail::PlanShuffleNhwc;
using synetk::detail::ShuffleCaps;
using synetk::detail::ShuffleNhwcPath;
using synetk::detail::ShuffleRequants;

const char* Name(ShuffleNhwcPath p) {
  switch (p) {
    case ShuffleNhwcPath::kPermuteGroups: return "permute groups";
    case ShuffleNhwcPath::kPermutePixels: return "permute pixels";
    case ShuffleNhwcPath::kChunks: return "chunks";
    case ShuffleNhwcPath::kRows: return "rows";
  }
  return "?";
}

TEST_CASE("QuantizedShuffle's planner picks the NHWC path", "[quant][plan]") {
  const ShuffleCaps vbmi{true, false}, avx2{false, true}, other{false, false};
  const ShuffleRequants tables{true, false}, fixed{false, true}, formula{false, false};
  struct Case {
    const char* why;
    int type;
    size_t C0, C1;
    ShuffleRequants requants;
    ShuffleCaps caps;
    ShuffleNhwcPath path;
  };
  const Case cases[] = {
      {"VBMI, pixels of 32 bytes: groups", 0, 32, 32, tables, vbmi, ShuffleNhwcPath::kPermuteGroups},
      {"VBMI, type 1, pixels of 64 bytes: groups", 1, 64, 64, tables, vbmi,
       ShuffleNhwcPath::kPermuteGroups},
      {"VBMI, odd sizes, pixels of 10 bytes: groups", 0, 6, 14, tables, vbmi,
       ShuffleNhwcPath::kPermuteGroups},
      {"VBMI, an input pixel of 128 bytes: one at a time", 0, 128, 64, tables, vbmi,
       ShuffleNhwcPath::kPermutePixels},
      {"VBMI, type 1, an output pixel of 66 bytes: one at a time", 1, 66, 62, tables, vbmi,
       ShuffleNhwcPath::kPermutePixels},
      {"VBMI without byte tables (a short call): rows", 0, 32, 32, formula, vbmi,
       ShuffleNhwcPath::kRows},
      {"VBMI takes no chunks", 0, 64, 64, fixed, vbmi, ShuffleNhwcPath::kRows},
      {"AVX2, fixed point, whole chunks per input: chunks", 0, 64, 32, fixed, avx2,
       ShuffleNhwcPath::kChunks},
      {"AVX2, an input of 48 channels: rows", 0, 48, 16, fixed, avx2, ShuffleNhwcPath::kRows},
      {"AVX2, type 1, 32 pairs in one output: chunks", 1, 32, 32, fixed, avx2,
       ShuffleNhwcPath::kChunks},
      {"AVX2, type 1, C0/2 = 8 splits a chunk's pairs: rows", 1, 16, 48, fixed, avx2,
       ShuffleNhwcPath::kRows},
      {"AVX2 without fixed-point plans: rows", 1, 64, 64, formula, avx2, ShuffleNhwcPath::kRows},
      {"other targets: rows", 0, 64, 64, fixed, other, ShuffleNhwcPath::kRows},
  };
  for (const Case& c : cases) {
    INFO(c.why << ": type " << c.type << ", C0 " << c.C0 << ", C1 " << c.C1);
    const ShuffleNhwcPath got = PlanShuffleNhwc(c.type, c.C0, c.C1, c.requants, c.caps);
    CHECK(std::string(Name(got)) == Name(c.path));
  }
}

TEST_CASE("QuantizedShuffle's pixel sizes and the chunks' contract", "[quant][plan]") {
  using synetk::detail::ShuffleFitsChunks;
  using synetk::detail::ShufflePixelsOf;
  // Type 0 splits inputs of C0 and C1 channels into two outputs of (C0+C1)/2;
  // type 1 interleaves two inputs of (C0+C1)/2 into outputs of C0 and C1.
  const auto p0 = ShufflePixelsOf(0, 6, 10);
  CHECK((p0.inA == 6 && p0.inB == 10 && p0.out0 == 8 && p0.out1 == 8));
  const auto p1 = ShufflePixelsOf(1, 6, 10);
  CHECK((p1.inA == 8 && p1.inB == 8 && p1.out0 == 6 && p1.out1 == 10));
  CHECK(synetk::detail::ShuffleWidestPixel(p1) == 10);
  CHECK(ShuffleFitsChunks(0, 32, 96));
  CHECK_FALSE(ShuffleFitsChunks(0, 32, 80));
  CHECK(ShuffleFitsChunks(1, 96, 32));    // (C0+C1)/2 = 64, C0/2 = 48
  CHECK_FALSE(ShuffleFitsChunks(1, 40, 24));  // (C0+C1)/2 = 32, C0/2 = 20
}

}  // namespace

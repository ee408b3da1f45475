// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused type 9's planner (fused_plan.h) without SIMD: which NHWC path
// serves a shape, for the capabilities of the targets and element types
// that take each path.
#include "synetk/ops/fused_plan.h"

#include "harness.h"

namespace {

using synetk::detail::Fused9Caps;
using synetk::detail::Fused9Path;
using synetk::detail::PlanFused9Nhwc;

Fused9Caps Caps(size_t lanes, size_t elemBytes, bool groups, bool scalar = false,
                bool intel = false) {
  Fused9Caps c;
  c.lanes = lanes;
  c.elemBytes = elemBytes;
  c.groups = groups;
  c.scalar = scalar;
  c.intel = intel;
  return c;
}

const char* Name(Fused9Path p) {
  switch (p) {
    case Fused9Path::kInRegisters: return "in registers";
    case Fused9Path::kPixelGroups: return "pixel groups";
    case Fused9Path::kPixels: return "pixels";
    case Fused9Path::kBlocks: return "blocks";
  }
  return "?";
}

TEST_CASE("fused type 9's planner picks the NHWC path", "[fused][plan]") {
  const Fused9Caps avx512F32 = Caps(16, 4, false);  // run groups of 8: no pixel groups
  const Fused9Caps avx2F32 = Caps(8, 4, true);
  const Fused9Caps avx2Bf16 = Caps(8, 2, false);    // bf16 pairs: no pixel groups
  const Fused9Caps sse4F32 = Caps(4, 4, true);
  const Fused9Caps scalarF32 = Caps(1, 4, false, true);
  const Fused9Caps avx2F32Intel = Caps(8, 4, true, false, true);
  struct Case {
    const char* why;
    size_t C0, C1;
    bool cached;
    Fused9Caps caps;
    Fused9Path path;
  };
  const Case cases[] = {
      {"up to 4 vectors per input: in registers", 64, 64, true, avx512F32, Fused9Path::kInRegisters},
      {"a partial vector counts as one", 24, 40, true, avx512F32, Fused9Path::kInRegisters},
      {"5 vectors on AVX-512, 1 KiB pixels: one at a time", 80, 176, true, avx512F32,
       Fused9Path::kPixels},
      {"AVX-512, small pixels of many vectors: blocks", 80, 80, true, avx512F32,
       Fused9Path::kBlocks},
      {"AVX2, whole vectors from the cache: pixel groups", 256, 256, true, avx2F32,
       Fused9Path::kPixelGroups},
      {"AVX2, whole vectors beyond the cache, 2 KiB pixels: one at a time", 256, 256, false,
       avx2F32, Fused9Path::kPixels},
      {"AVX2, whole vectors beyond the cache, 512-byte pixels: one at a time", 64, 64, false, avx2F32,
       Fused9Path::kPixels},
      {"AVX2 on Intel, 2 KiB pixels from the cache: one at a time", 256, 256, true, avx2F32Intel,
       Fused9Path::kPixels},
      {"AVX2 on Intel, 1 KiB pixels from the cache: one at a time", 128, 128, true, avx2F32Intel,
       Fused9Path::kPixels},
      {"AVX2 on Intel, 384-byte pixels from the cache: pixel groups", 64, 32, true, avx2F32Intel,
       Fused9Path::kPixelGroups},
      {"AVX2, partial vectors: blocks", 36, 44, true, avx2F32, Fused9Path::kBlocks},
      {"AVX2 bf16 pairs: blocks, not groups", 64, 64, true, avx2Bf16, Fused9Path::kBlocks},
      {"SSE4, 4 vectors each: in registers", 16, 16, true, sse4F32, Fused9Path::kInRegisters},
      {"SSE4, 5 whole vectors from the cache: pixel groups", 20, 20, true, sse4F32,
       Fused9Path::kPixelGroups},
      {"SCALAR, few channels: blocks", 2, 2, true, scalarF32, Fused9Path::kBlocks},
      {"SCALAR, 1.2 KiB pixels: one at a time", 200, 100, true, scalarF32, Fused9Path::kPixels},
  };
  for (const Case& c : cases) {
    INFO(c.why);
    CHECK(std::string(Name(PlanFused9Nhwc(c.C0, c.C1, c.cached, c.caps))) == Name(c.path));
  }
  CHECK(synetk::detail::PixelBlockOf(64, 4) == 64);  // 256-byte pixels, 16 KiB blocks
  CHECK(synetk::detail::PixelBlockOf(256, 4) == 1);
}

TEST_CASE("fused type 9's planner reads beyond the cache pixel by pixel", "[fused][plan]") {
  const Fused9Caps avx512F32 = Caps(16, 4, false), avx2F32 = Caps(8, 4, true);
  const Fused9Caps sse4F32 = Caps(4, 4, true), avx2Bf16 = Caps(8, 2, false);
  struct Case {
    const char* why;
    size_t C0, C1;
    Fused9Caps caps;
    Fused9Path path;
  };
  const Case cases[] = {
      {"AVX2, 4 vectors each: pixels, not in registers", 32, 32, avx2F32, Fused9Path::kPixels},
      {"AVX2, 512-byte pixels: pixels, not blocks", 64, 64, avx2F32, Fused9Path::kPixels},
      {"AVX2, one input of 3 vectors: pixels", 24, 8, avx2F32, Fused9Path::kPixels},
      {"AVX2, 2 vectors each: still in registers", 16, 16, avx2F32, Fused9Path::kInRegisters},
      {"SSE4, 4 vectors each: pixels", 16, 16, sse4F32, Fused9Path::kPixels},
      {"AVX-512, 4 vectors each: pixels, not in registers", 64, 64, avx512F32,
       Fused9Path::kPixels},
      {"AVX-512, 5 vectors each: pixels, not blocks", 80, 80, avx512F32, Fused9Path::kPixels},
      {"AVX-512, 2 vectors each: still in registers", 32, 32, avx512F32,
       Fused9Path::kInRegisters},
      {"bf16 on AVX2: blocks", 64, 64, avx2Bf16, Fused9Path::kBlocks},
  };
  for (const Case& c : cases) {
    INFO(c.why);
    CHECK(std::string(Name(PlanFused9Nhwc(c.C0, c.C1, false, c.caps))) == Name(c.path));
  }
}

}  // namespace

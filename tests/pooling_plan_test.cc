// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling's planner (plain C++, no SIMD): which path serves a geometry for
// a given target and element type. Each case states why the path is the
// expected one; pooling_test.cc checks that the geometries of the suite
// reach every path on the targets that run.
#include "synetk/ops/pooling_plan.h"

#include "harness.h"

#include <sstream>
#include <string>

namespace {

using synetk::detail::PlanPool;
using synetk::detail::PoolCaps;
using synetk::detail::PoolPath;
using synetk::detail::PoolPlan;
using synetk::detail::PoolRowKind;
using synetk::detail::PoolShape;
using synetk::detail::PoolWidth;

// Capabilities of the targets and element types the cases use (as
// pooling-inl.h's PoolCapsOf fills them).
PoolCaps Caps(bool max, size_t laneBytes, size_t elemBytes, size_t lanes) {
  PoolCaps c;
  c.max = max;
  c.laneBytes = laneBytes;
  c.floatLanes = laneBytes == 4 && (!max || elemBytes == 4);
  c.elemBytes = elemBytes;
  c.lanes = lanes;
  c.stride1 = true;
  c.stride1MaxX = lanes >= 8 ? 5 : 0;
  return c;
}
PoolCaps Avx512F32(bool max) {
  PoolCaps c = Caps(max, 4, 4, 16);
  c.twoTables = true;
  return c;
}
PoolCaps Avx3DlU8Max() {
  PoolCaps c = Caps(true, 1, 1, 64);
  c.twoTables = true;  // vpermt2b
  return c;
}
PoolCaps Avx2F32(bool max) {
  PoolCaps c = Caps(max, 4, 4, 8);
  c.twoTables = true;  // two vpermps and a blend
  c.avx2 = true;
  return c;
}
PoolCaps Avx2Bf16Avg() {
  PoolCaps c = Caps(false, 4, 2, 8);
  c.twoTables = true;
  c.avx2 = true;
  c.bf16Pairs = true;
  c.stride1MaxX = 7;
  return c;
}
PoolCaps Avx2U8Max() {
  PoolCaps c = Caps(true, 1, 1, 32);
  c.avx2 = true;  // no byte two-table permutation
  return c;
}
PoolCaps Sse4F32(bool max) { return Caps(max, 4, 4, 4); }
PoolCaps ScalarF32Avg() {
  PoolCaps c = Caps(false, 4, 4, 1);
  c.scalar = true;
  c.stride1 = false;
  return c;
}
PoolCaps ScalableF32Avg() {  // SVE or RVV with 8 fp32 lanes
  PoolCaps c = Caps(false, 4, 4, 8);
  c.scalable = true;
  c.stride1 = false;
  return c;
}
PoolCaps Nhwc(PoolCaps c) {
  c.nhwc = true;
  return c;
}

// dst sizes in floor mode; `rows` output rows in the call's part.
PoolShape Shape(size_t C, size_t H, size_t W, size_t kY, size_t kX, size_t sY, size_t sX,
                size_t pY, size_t pX) {
  PoolShape s{};
  s.srcC = C;
  s.srcH = H;
  s.srcW = W;
  s.kY = kY;
  s.kX = kX;
  s.sY = sY;
  s.sX = sX;
  s.pY = pY;
  s.pX = pX;
  s.dstH = (H + 2 * pY - kY) / sY + 1;
  s.dstW = (W + 2 * pX - kX) / sX + 1;
  s.rowsInPart = s.dstH;
  return s;
}

struct PlanCase {
  const char* why;
  PoolShape shape;
  PoolCaps caps;
  PoolPath path;
  PoolRowKind rows;
};

std::string Name(PoolPath p) {
  static const char* const kNames[] = {"Direct",       "NchwPairs",      "NchwHalfWidth",
                                       "NchwGlobalAverage", "NchwGlobalMax", "NchwGlobalMaxTree",
                                       "NchwStride1",  "NchwStacked",    "NchwRows",
                                       "NhwcPairs",    "NhwcRows",       "NhwcGlobal"};
  return kNames[static_cast<size_t>(p)];
}

TEST_CASE("pooling planner picks the path for each geometry and target", "[pooling][plan]") {
  using R = PoolRowKind;
  PoolShape direct = Shape(3, 4, 3, 2, 2, 1, 1, 1, 1);
  direct.direct = true;
  PoolShape pool3d = Shape(16, 8, 8, 3, 3, 2, 2, 1, 1);
  pool3d.pool3d = true;
  PoolShape oneRow = Shape(64, 8, 8, 3, 3, 1, 1, 1, 1);
  oneRow.rowsInPart = 1;
  const PlanCase cases[] = {
      {"padding past the row buffers' bound", direct, Avx512F32(true), PoolPath::kDirect, R::kGeneric},
      {"2x2 s2 on even sizes", Shape(8, 14, 14, 2, 2, 2, 2, 0, 0), Avx512F32(true),
       PoolPath::kNchwPairs, R::kGeneric},
      {"NHWC 2x2 s2 with a vector of channels or more", Shape(64, 14, 14, 2, 2, 2, 2, 0, 0),
       Nhwc(Avx512F32(true)), PoolPath::kNhwcPairs, R::kGeneric},
      {"NHWC 2x2 s2 with fewer channels than lanes: whole pixels per vector",
       Shape(8, 14, 14, 2, 2, 2, 2, 0, 0), Nhwc(Avx512F32(true)), PoolPath::kNhwcRows, R::kPick},
      {"3x3 s2 p1 tiling even rows", Shape(3, 224, 224, 3, 3, 2, 2, 1, 1), Avx512F32(false),
       PoolPath::kNchwHalfWidth, R::kGeneric},
      {"one window over each plane, average", Shape(512, 7, 7, 7, 7, 1, 1, 0, 0),
       Avx512F32(false), PoolPath::kNchwGlobalAverage, R::kGeneric},
      {"global max of 8-bit keys: several planes per vector", Shape(512, 7, 7, 7, 7, 1, 1, 0, 0),
       Avx3DlU8Max(), PoolPath::kNchwGlobalMaxTree, R::kGeneric},
      {"global max of 8-bit keys on planes shorter than 128 bits", Shape(64, 3, 3, 3, 3, 1, 1, 0, 0),
       Avx3DlU8Max(), PoolPath::kNchwGlobalMax, R::kGeneric},
      {"global max of fp32", Shape(512, 7, 7, 7, 7, 1, 1, 0, 0), Avx512F32(true),
       PoolPath::kNchwGlobalMax, R::kGeneric},
      {"NHWC global: vectors of channels straight from src", Shape(512, 7, 7, 7, 7, 1, 1, 0, 0),
       Nhwc(Avx2U8Max()), PoolPath::kNhwcGlobal, R::kGeneric},
      {"NHWC global with fewer channels than lanes: flat rows", Shape(32, 7, 7, 7, 7, 1, 1, 0, 0),
       Nhwc(Avx3DlU8Max()), PoolPath::kNhwcRows, R::kFlat},
      {"NHWC global over padding: the row loop", Shape(512, 5, 5, 7, 7, 1, 1, 1, 1),
       Nhwc(Avx512F32(false)), PoolPath::kNhwcRows, R::kFlat},
      {"5x5 s1 p2 on rows of a block or more", Shape(32, 64, 64, 5, 5, 1, 1, 2, 2),
       Avx512F32(false), PoolPath::kNchwStride1, R::kGeneric},
      {"fp32 stride 1 on 4-lane targets: stacked rows are faster",
       Shape(32, 64, 64, 5, 5, 1, 1, 2, 2), Sse4F32(false), PoolPath::kNchwStacked, R::kGeneric},
      {"fp32 max stride 1 on rows shorter than 4 blocks: stacked",
       Shape(32, 32, 32, 5, 5, 1, 1, 2, 2), Avx512F32(true), PoolPath::kNchwStacked, R::kGeneric},
      {"bf16 averages take 7-wide windows straight from src", Shape(32, 64, 64, 7, 7, 1, 1, 3, 3),
       Avx2Bf16Avg(), PoolPath::kNchwStride1, R::kGeneric},
      {"no stride-1 path on scalable vectors", Shape(32, 64, 64, 5, 5, 1, 1, 2, 2),
       ScalableF32Avg(), PoolPath::kNchwStacked, R::kGeneric},
      {"kernels wider than the stacked rows unroll", Shape(4, 9, 80, 3, 33, 1, 1, 1, 16),
       Avx512F32(true), PoolPath::kNchwRows, R::kGeneric},
      {"NHWC 3 channels, 3x3 s2 p1: the carried tap fits a fifth pixel",
       Shape(3, 224, 224, 3, 3, 2, 2, 1, 1), Nhwc(Avx512F32(false)), PoolPath::kNhwcRows,
       R::kPick},
      {"NHWC 3 bytes, strided, no byte two-table permutation: byte shuffles",
       Shape(3, 224, 224, 3, 3, 2, 2, 1, 1), Nhwc(Avx2U8Max()), PoolPath::kNhwcRows, R::kStrided},
      {"NHWC 3 fp32 channels on SSE4: byte shuffles", Shape(3, 224, 224, 3, 3, 2, 2, 1, 1),
       Nhwc(Sse4F32(true)), PoolPath::kNhwcRows, R::kStrided},
      {"NHWC 16-bit averages of 3 channels on AVX2: pixel pairs",
       Shape(3, 224, 224, 3, 3, 2, 2, 1, 1), Nhwc(Avx2Bf16Avg()), PoolPath::kNhwcRows,
       R::kPixelPairs},
      {"NHWC fp32 averages of 3 channels on AVX2 keep the pick rows",
       Shape(3, 224, 224, 3, 3, 2, 2, 1, 1), Nhwc(Avx2F32(false)), PoolPath::kNhwcRows, R::kPick},
      {"NHWC 3 channels, windows too wide to pick: channel planes",
       Shape(3, 50, 97, 2, 9, 1, 5, 0, 4), Nhwc(Avx512F32(false)), PoolPath::kNhwcRows, R::kPlanar},
      {"NHWC 3 channels on SCALAR: channel planes", Shape(3, 50, 50, 3, 3, 2, 2, 1, 1),
       Nhwc(ScalarF32Avg()), PoolPath::kNhwcRows, R::kPlanar},
      {"NHWC stride 1, rows in pairs", Shape(64, 8, 8, 3, 3, 1, 1, 1, 1), Nhwc(Avx512F32(false)),
       PoolPath::kNhwcRows, R::kFlat},
      {"NHWC 3x3 s2 with many channels: stem rows", Shape(64, 56, 56, 3, 3, 2, 2, 1, 1),
       Nhwc(Avx512F32(true)), PoolPath::kNhwcRows, R::kStem},
      {"NHWC 5x5 s2: per pixel", Shape(64, 28, 28, 5, 5, 2, 2, 2, 2), Nhwc(Avx512F32(true)),
       PoolPath::kNhwcRows, R::kGeneric},
      {"NHWC 3D: per pixel", pool3d, Nhwc(Avx512F32(true)), PoolPath::kNhwcRows, R::kGeneric},
  };
  for (const PlanCase& c : cases) {
    INFO(c.why);
    const PoolPlan p = PlanPool(c.shape, c.caps);
    CHECK(Name(p.path) == Name(c.path));
    if (c.path == PoolPath::kNhwcRows) CHECK(static_cast<int>(p.rows) == static_cast<int>(c.rows));
  }
  // The plan's constants.
  const PoolPlan carry = PlanPool(Shape(3, 224, 224, 3, 3, 2, 2, 1, 1), Nhwc(Avx512F32(false)));
  CHECK(carry.pickPixels == 5);  // 4 without the carried tap
  CHECK(carry.pickCarry);
  const PoolPlan shuffles = PlanPool(Shape(3, 224, 224, 3, 3, 2, 2, 1, 1), Nhwc(Avx2U8Max()));
  CHECK(shuffles.stridedPhases == 3);  // 6-byte pixel pairs repeat every 3 vectors of 32
  CHECK(PlanPool(Shape(64, 8, 8, 3, 3, 1, 1, 1, 1), Nhwc(Avx512F32(false))).flatPairs);
  CHECK(!PlanPool(oneRow, Nhwc(Avx512F32(false))).flatPairs);  // one-row calls: no second buffer
  // Global widths: the widest vector that fits in a plane.
  const auto width = [](size_t H, size_t W, const PoolCaps& c) {
    return static_cast<int>(PlanPool(Shape(8, H, W, H, W, 1, 1, 0, 0), c).width);
  };
  CHECK(width(7, 7, Avx512F32(false)) == static_cast<int>(PoolWidth::kFull));
  CHECK(width(3, 3, Avx512F32(false)) == static_cast<int>(PoolWidth::k8Lanes));
  CHECK(width(2, 2, Avx512F32(false)) == static_cast<int>(PoolWidth::k128Bit));
  CHECK(width(1, 2, Avx512F32(false)) == static_cast<int>(PoolWidth::kOneLane));
  CHECK(width(7, 7, ScalarF32Avg()) == static_cast<int>(PoolWidth::kOneLane));
  CHECK(width(7, 7, ScalableF32Avg()) == static_cast<int>(PoolWidth::k128Bit));
  CHECK(width(7, 7, Avx3DlU8Max()) == static_cast<int>(PoolWidth::k256Bit));
  CHECK(width(9, 9, Avx3DlU8Max()) == static_cast<int>(PoolWidth::kFull));
  CHECK(width(4, 4, Avx512F32(true)) == static_cast<int>(PoolWidth::k128Bit));  // < 2 vectors
}

// The plans that can serve a geometry: the planner's, and every other path
// and row kind whose contract holds there (the path test forces each).
std::string Listed(const PoolShape& s, const PoolCaps& c) {
  const synetk::detail::PoolPlanList list = synetk::detail::PoolPlansServing(s, c);
  std::ostringstream out;
  for (size_t i = 0; i < list.count; ++i) {
    const PoolPlan& p = list.plans[i];
    out << Name(p.path);
    if (p.path == PoolPath::kNhwcRows) {
      out << "/" << static_cast<int>(p.rows) << (p.pickCarry ? "c" : "") << (p.flatPairs ? "p" : "");
    }
    out << " ";
  }
  return out.str();
}

TEST_CASE("pooling's paths state their contracts apart from the planner's preferences",
          "[pooling][plan]") {
  // 5x5 s1 max of fp32 rows of 20 columns: the planner stacks the rows
  // (short rows of wide lanes), stride 1 from src serves them as well.
  CHECK(Listed(Shape(8, 20, 20, 5, 5, 1, 1, 2, 2), Avx512F32(true)) ==
        "Direct NchwStride1 NchwStacked NchwRows ");
  // 2x2 s2 on even sizes: pairs, half width, the row paths.
  CHECK(Listed(Shape(8, 20, 20, 2, 2, 2, 2, 0, 0), Avx512F32(true)) ==
        "Direct NchwPairs NchwHalfWidth NchwStacked NchwRows ");
  // A global window: the planner's global path and the row paths.
  CHECK(Listed(Shape(8, 7, 7, 7, 7, 1, 1, 0, 0), Avx512F32(false)) ==
        "Direct NchwGlobalAverage NchwStacked NchwRows ");
  // NHWC global: straight from src, and the row loop's generic and flat rows.
  CHECK(Listed(Shape(64, 7, 7, 7, 7, 1, 1, 0, 0), Nhwc(Avx512F32(false))) ==
        "Direct NhwcGlobal NhwcRows/0 NhwcRows/5 NhwcRows/5p ");
  // NHWC 3 fp32 channels, 3x3 s2 p1: generic, stem, pick with and without
  // the carried tap, channel planes (rows: 0 generic, 1 stem, 2 pick,
  // 6 planar).
  CHECK(Listed(Shape(3, 20, 20, 3, 3, 2, 2, 1, 1), Nhwc(Avx512F32(false))) ==
        "Direct NhwcRows/0 NhwcRows/1 NhwcRows/2 NhwcRows/2c NhwcRows/6 ");
  // NHWC stride 1 on AVX2 with 3 rows: flat rows single and in pairs.
  CHECK(Listed(Shape(16, 8, 8, 3, 3, 1, 1, 1, 1), Nhwc(Avx2F32(true))) ==
        "Direct NhwcRows/0 NhwcRows/5 NhwcRows/5p ");
  // Padding past the row buffers' bound: only the direct loop.
  PoolShape wide = Shape(3, 4, 3, 2, 50, 1, 20, 1, 49);
  wide.direct = true;
  CHECK(Listed(wide, Nhwc(Avx512F32(true))) == "Direct ");
}

}  // namespace

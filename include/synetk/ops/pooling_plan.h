// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling's planner: which path serves a call. Plain C++ (no SIMD), so that
// every heuristic is in one place and a test can pin geometry -> path for
// any target without running it. The target and the element type come in
// as PoolCaps (pooling-inl.h's PoolCapsOf fills them per target);
// the paths are in pooling_nchw*-inl.h, pooling_nhwc*-inl.h and
// pooling_pairs-inl.h, and PoolKernel (pooling-inl.h) switches over the plan.
#ifndef SYNETK_OPS_POOLING_PLAN_H_
#define SYNETK_OPS_POOLING_PLAN_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>

namespace synetk {
namespace detail {

// The paths; docs/pooling.md describes each and the benchmark case that
// shows why it is there.
enum class PoolPath : uint8_t {
  kDirect,              // padding beyond the row buffers' bound: a plain loop
  kNchwPairs,           // 2x2 stride 2, no padding, inputs that pair up
  kNchwHalfWidth,       // stride 2 along W tiling even rows (3 wide pad 1, 2 wide pad 0)
  kNchwGlobalAverage,   // one window covering each plane: column sums
  kNchwGlobalMax,       // one window covering each plane: flat maximum
  kNchwGlobalMaxTree,   // the same for 8- and 16-bit keys, several planes per vector
  kNchwStride1,         // stride 1 along W, straight from src
  kNchwStacked,         // narrow rows stacked in one row buffer
  kNchwRows,            // the general row buffer, one row at a time
  kNhwcPairs,           // 2x2 stride 2 on channels of a vector or more
  kNhwcRows,            // the NHWC row loop (PoolRowKind says how each row runs)
  kNhwcGlobal,          // one unpadded window over the whole input, straight from src
};
inline constexpr size_t kPoolPathCount = 12;

// How PoolNhwc runs its rows (edge rows that a kind cannot take fall back
// to kGeneric).
enum class PoolRowKind : uint8_t {
  kGeneric,     // per output pixel through the row buffer (also 3D)
  kStem,        // 3-wide stride-2 windows of up to 3 rows, columns shared
  kPick,        // few channels, strided: whole pixels per vector (two tables)
  kStrided,     // up to 4 channels, strided, byte shuffles (no two tables)
  kPixelPairs,  // AVX2 16-bit averages of 3 or 4 channels, strided
  kFlat,        // stride 1: one flat pass over the row
  kPlanar,      // 3 channels, strided: channel planes
};

// The vector the NCHW global paths run on.
enum class PoolWidth : uint8_t { kFull, k8Lanes, k256Bit, k128Bit, kOneLane };

// What the planner needs to know of the target and the element type.
struct PoolCaps {
  bool max = true;          // max pooling (else average)
  bool nhwc = false;        // the format
  size_t laneBytes = 4;     // the lane type the kernels compute in (PoolOps::L)
  bool floatLanes = true;   // whether that lane type is float
  size_t elemBytes = 4;     // the element type
  bool bf16Pairs = false;   // bf16 averages read channel pairs (PoolOps::kBF16Pairs)
  size_t lanes = 1;         // lanes of a full vector of L
  bool scalar = false;      // HWY_SCALAR: one lane, no shuffles
  bool scalable = false;    // HWY_HAVE_SCALABLE
  bool twoTables = false;   // two-table permutations of L (kFastTwoTables)
  bool avx2 = false;        // the AVX2 target (its pixel-pair rows)
  bool stride1 = false;     // PoolNchwStride1 has an instance (kPoolStride1Type)
  size_t stride1MaxX = 0;   // its widest window (kPoolStride1MaxX)
};

struct PoolPlan {
  PoolPath path = PoolPath::kDirect;
  PoolWidth width = PoolWidth::kFull;  // the global paths
  // kNhwcRows:
  PoolRowKind rows = PoolRowKind::kGeneric;
  size_t pickPixels = 0;     // kPick: output pixels per vector
  bool pickCarry = false;    // kPick: each window's first tap carried over
  size_t stridedPhases = 0;  // kStrided: vectors before the lane pattern repeats
  bool flatPairs = false;    // kFlat: two output rows per vertical pass
};

// The geometry the planner reads (PoolArgs' sizes, normalized).
struct PoolShape {
  size_t srcC, srcH, srcW, dstH, dstW;
  size_t kY, kX, sY, sX, pY, pX;
  bool pool3d, direct;
  size_t rowsInPart;  // output rows the call runs (NHWC: end - begin)
};

// The largest kernelX of the stacked NCHW rows and of the NHWC flat and
// planar rows (their taps are unrolled or looped over a padded row buffer).
inline constexpr size_t kPoolStackedMaxKernel = 32;
// The most window rows PoolNchwStride1 serves.
inline constexpr size_t kPoolStride1MaxRows = 16;

inline bool PoolIsPairs(const PoolShape& s) {
  return !s.pool3d && s.kY == 2 && s.kX == 2 && s.sY == 2 && s.sX == 2 && s.pY == 0 &&
         s.pX == 0 && s.srcH == 2 * s.dstH && s.srcW == 2 * s.dstW;
}

inline bool PoolIsHalfWidth(const PoolShape& s) {
  return !s.pool3d && s.sX == 2 && s.srcW == 2 * s.dstW &&
         ((s.kX == 3 && s.pX == 1) || (s.kX == 2 && s.pX == 0));
}

inline bool PoolIsGlobal(const PoolShape& s) {
  return !s.pool3d && s.dstH == 1 && s.dstW == 1 && s.kY - s.pY >= s.srcH &&
         s.kX - s.pX >= s.srcW;
}

// PoolNchwStride1's contract: stride 1 along W, windows of up to
// stride1MaxX columns padded by 0 or kX / 2 and up to kPoolStride1MaxRows
// rows, input and output rows of a block (B lanes) or more.
inline bool PoolFitsStride1(const PoolShape& s, const PoolCaps& c) {
  if (!c.stride1) return false;
  const size_t B = (c.bf16Pairs ? 2 : 1) * c.lanes;
  return !s.pool3d && s.sX == 1 && s.kX <= c.stride1MaxX && (s.pX == 0 || s.pX == s.kX / 2) &&
         s.kY <= kPoolStride1MaxRows && s.srcW >= B && s.dstW >= B;
}

// Where the planner takes PoolNchwStride1: max of 16- and 32-bit keys only
// on input rows of 4 blocks or more, as short rows of wider lanes pool
// faster stacked, several per pass. bench:
// BM_Pooling<uint8_t>/avg:0/C:32/HW:64/k:5/s:1/p:2/nhwc:0.
inline bool PoolIsStride1(const PoolShape& s, const PoolCaps& c) {
  const size_t B = (c.bf16Pairs ? 2 : 1) * c.lanes;
  return PoolFitsStride1(s, c) && !(c.max && c.laneBytes > 1 && s.srcW < 4 * B);
}

// PoolNhwcGlobal's contract: NHWC, one unpadded 2D window over the whole
// input, stride 1 along W (the inputs the flat rows served, whose order it
// keeps), a vector of channels or more.
inline bool PoolIsNhwcGlobal(const PoolShape& s, const PoolCaps& c) {
  return !s.pool3d && s.dstH == 1 && s.dstW == 1 && s.kY == s.srcH && s.kX == s.srcW &&
         s.pY == 0 && s.pX == 0 && s.sX == 1 && s.srcC >= c.lanes;
}

// The global paths' vector: the widest that fits in a plane.
inline PoolPlan PlanPoolGlobal(const PoolShape& s, const PoolCaps& c) {
  const size_t plane = s.srcH * s.srcW, N = c.lanes;
  const size_t q = std::min(N, 16 / c.laneBytes);  // a 128-bit vector's lanes
  PoolPlan p;
  if (!c.max) {
    p.path = PoolPath::kNchwGlobalAverage;
    if (c.scalar) {
      p.width = PoolWidth::kOneLane;
    } else if (!c.scalable && plane >= N) {
      p.width = PoolWidth::kFull;
    } else if (!c.scalable && plane >= std::min<size_t>(N, 8)) {
      p.width = PoolWidth::k8Lanes;
    } else {
      p.width = plane >= q ? PoolWidth::k128Bit : PoolWidth::kOneLane;
    }
  } else if (!c.floatLanes && !c.scalar) {
    // 8- and 16-bit keys: several planes per vector (7x7 planes of 8-bit
    // types on AVX-512: 256 bits); scalable targets fold no blocks, so 128.
    p.path = PoolPath::kNchwGlobalMaxTree;
    if (!c.scalable && plane >= N) {
      p.width = PoolWidth::kFull;
    } else if (!c.scalable && plane >= std::min(N, 32 / c.laneBytes)) {
      p.width = PoolWidth::k256Bit;
    } else if (plane >= q) {
      p.width = PoolWidth::k128Bit;
    } else {
      p.path = PoolPath::kNchwGlobalMax;
      p.width = PoolWidth::k128Bit;
    }
  } else {
    // Small planes: 128-bit vectors waste fewer lanes.
    p.path = PoolPath::kNchwGlobalMax;
    p.width = plane >= 2 * N ? PoolWidth::kFull : PoolWidth::k128Bit;
  }
  return p;
}

// The NHWC row kinds' contracts: each returns whether its rows can serve s
// on a target with caps c and, if so, sets p.rows and the kind's constants.
// (PlanPoolNhwcRows picks the first in its order; the tests force each.)

// Few channels, strided: whole output pixels per vector, from 2N lanes of
// window starts (the last pixel's last tap is lane (P - 1)*sX*C + kX*C - 1
// < 2N; carried: (kX - 1)*C instead of kX*C), two pixels or more. `carry`:
// 3-wide windows of stride 2 with padding, each output's first tap the
// previous output's last (a chunk's lanes then hold only taps 1 and 2).
inline bool PoolRowsPick(const PoolShape& s, const PoolCaps& c, bool carry, PoolPlan& p) {
  const size_t C = s.srcC, N = c.lanes, kX = s.kX, sX = s.sX;
  if (s.pool3d || !c.twoTables || sX < 2 || kX > 7 || kX * C > 2 * N) return false;
  if (std::min(N / C, (2 * N - kX * C) / (sX * C) + 1) < 2) return false;
  if (carry && (kX != 3 || sX != 2 || s.pX < 1)) return false;
  const size_t taps = carry ? kX - 1 : kX;
  p.rows = PoolRowKind::kPick;
  p.pickPixels = std::min(N / C, (2 * N - taps * C) / (sX * C) + 1);
  p.pickCarry = carry;
  return true;
}

// At most 4 channels, strided, where no two-table permutation serves the
// lanes, on vectors of one or two 128-bit blocks: the pattern repeats
// every stridedPhases vectors.
inline bool PoolRowsStrided(const PoolShape& s, const PoolCaps& c, PoolPlan& p) {
  const size_t C = s.srcC, N = c.lanes, vectorBytes = N * c.laneBytes;
  if (s.pool3d || c.twoTables || c.scalar || C > 4 || s.sX < 2 || s.sX > 4 || s.kX > 7 ||
      (vectorBytes != 16 && vectorBytes != 32)) {
    return false;
  }
  p.rows = PoolRowKind::kStrided;
  p.stridedPhases = s.sX * C / std::gcd(N, s.sX * C);
  return true;
}

// 16-bit averages of 3 or 4 channels, strided, on AVX2 (fp32 lanes).
inline bool PoolRowsPixelPairs(const PoolShape& s, const PoolCaps& c, PoolPlan& p) {
  if (s.pool3d || !c.avx2 || c.laneBytes != 4 || c.elemBytes != 2 ||
      (s.srcC != 3 && s.srcC != 4) || s.sX < 2 || s.kX > 7) {
    return false;
  }
  p.rows = PoolRowKind::kPixelPairs;
  return true;
}

// 3 channels, strided: the row split into channel planes, each pooled like
// an NCHW row, N output pixels per vector.
inline bool PoolRowsPlanar(const PoolShape& s, PoolPlan& p) {
  if (s.pool3d || s.srcC != 3 || s.sX == 1 || s.kX > kPoolStackedMaxKernel) return false;
  p.rows = PoolRowKind::kPlanar;
  return true;
}

// Stride 1: output element j of a row reads R[j + k*C], so the row is one
// flat pass however few channels there are. `pairs`: rows one input row
// apart with windows of 2 to 7 rows, two per vertical pass.
inline bool PoolRowsFlat(const PoolShape& s, bool pairs, PoolPlan& p) {
  if (s.pool3d || s.sX != 1 || s.kX > kPoolStackedMaxKernel) return false;
  if (pairs && !(s.sY == 1 && s.kY >= 2 && s.kY <= 7)) return false;
  p.rows = PoolRowKind::kFlat;
  p.flatPairs = pairs;
  return true;
}

// 3-wide stride-2 windows of up to 3 rows, columns shared.
inline bool PoolRowsStem(const PoolShape& s, PoolPlan& p) {
  if (s.pool3d || s.kX != 3 || s.sX != 2 || s.kY > 3) return false;
  p.rows = PoolRowKind::kStem;
  return true;
}

// How the NHWC row loop runs its rows: the first kind that serves, in this
// order, else generic rows (3D pooling too).
inline PoolPlan PlanPoolNhwcRows(const PoolShape& s, const PoolCaps& c) {
  PoolPlan p;
  p.path = PoolPath::kNhwcRows;
  if (PoolRowsStrided(s, c, p)) return p;
  // AVX2's 16-bit averages: fp32 keeps the pick rows, which read src
  // directly and are faster for the max. bench:
  // BM_Pooling<float>/avg:0/C:3/HW:224/k:3/s:2/p:1/nhwc:1 on AVX2.
  if (PoolRowsPixelPairs(s, c, p)) return p;
  if (PoolRowsPick(s, c, false, p)) {
    // The carry where that adds an eighth or more pixels (3 channels, fp32
    // lanes on AVX-512: 4 -> 5 per chunk): its permutation waits for tap 2,
    // which fewer added pixels do not repay (u8 3 channels: 20 -> 21
    // pixels). bench: BM_Pooling<float>/avg:1/C:3/HW:224/k:3/s:2/p:1/nhwc:1.
    PoolPlan carried = p;
    if (PoolRowsPick(s, c, true, carried) && 8 * carried.pickPixels >= 9 * p.pickPixels) {
      return carried;
    }
    return p;
  }
  if (PoolRowsPlanar(s, p)) return p;
  // Flat rows in pairs for calls of two rows or more (one-row calls would
  // pay for the second buffer. bench:
  // BM_Pooling<float>/avg:1/C:512/HW:7/k:7/s:1/p:0/nhwc:1).
  if (PoolRowsFlat(s, s.rowsInPart >= 2, p) || PoolRowsFlat(s, false, p)) return p;
  PoolRowsStem(s, p);
  return p;
}

// The plan for a call of shape s on a target and element type with caps c.
inline PoolPlan PlanPool(const PoolShape& s, const PoolCaps& c) {
  PoolPlan p;
  if (s.direct) return p;  // kDirect
  const bool pairs = PoolIsPairs(s);
  if (c.nhwc) {
    if (PoolIsNhwcGlobal(s, c)) {
      p.path = PoolPath::kNhwcGlobal;
      return p;
    }
    if (pairs && s.srcC >= c.lanes) {
      p.path = PoolPath::kNhwcPairs;
      return p;
    }
    return PlanPoolNhwcRows(s, c);
  }
  if (pairs) {
    p.path = PoolPath::kNchwPairs;
  } else if (PoolIsHalfWidth(s)) {
    p.path = PoolPath::kNchwHalfWidth;
  } else if (PoolIsGlobal(s)) {
    return PlanPoolGlobal(s, c);
  } else if (PoolIsStride1(s, c)) {
    p.path = PoolPath::kNchwStride1;
  } else if (s.kX <= kPoolStackedMaxKernel) {
    p.path = PoolPath::kNchwStacked;
  } else {
    p.path = PoolPath::kNchwRows;
  }
  return p;
}

// The plans that can serve a call of shape s on a target with caps c: every
// path's and row kind's contract, without the planner's preferences.
// PlanPool's plan is one of them; the tests force each (PoolArgs::planIn)
// and compare it with the reference.
struct PoolPlanList {
  PoolPlan plans[16];
  size_t count = 0;
  void Add(const PoolPlan& p) { plans[count++] = p; }
};

inline PoolPlanList PoolPlansServing(const PoolShape& s, const PoolCaps& c) {
  PoolPlanList list;
  PoolPlan p;
  list.Add(p);  // kDirect: any geometry
  if (s.direct) return list;
  if (c.nhwc) {
    if (PoolIsPairs(s) && s.srcC >= c.lanes) {
      p.path = PoolPath::kNhwcPairs;
      list.Add(p);
    }
    if (PoolIsNhwcGlobal(s, c)) {
      p.path = PoolPath::kNhwcGlobal;
      list.Add(p);
    }
    p.path = PoolPath::kNhwcRows;
    list.Add(p);  // generic rows
    PoolPlan k = p;
    if (PoolRowsStem(s, k)) list.Add(k);
    for (const bool carry : {false, true}) {
      k = p;
      if (PoolRowsPick(s, c, carry, k)) list.Add(k);
    }
    k = p;
    if (PoolRowsStrided(s, c, k)) list.Add(k);
    k = p;
    if (PoolRowsPixelPairs(s, c, k)) list.Add(k);
    for (const bool pairs : {false, true}) {
      k = p;
      if (PoolRowsFlat(s, pairs, k)) list.Add(k);
    }
    k = p;
    if (PoolRowsPlanar(s, k)) list.Add(k);
    return list;
  }
  const auto add = [&](PoolPath path) {
    p.path = path;
    list.Add(p);
  };
  if (PoolIsPairs(s)) add(PoolPath::kNchwPairs);
  if (PoolIsHalfWidth(s)) add(PoolPath::kNchwHalfWidth);
  if (PoolIsGlobal(s)) list.Add(PlanPoolGlobal(s, c));
  if (PoolFitsStride1(s, c)) add(PoolPath::kNchwStride1);
  if (s.kX <= kPoolStackedMaxKernel) add(PoolPath::kNchwStacked);
  add(PoolPath::kNchwRows);
  return list;
}

// Whether a path takes scratch memory (the others need no workspace).
inline bool PoolPathTakesScratch(PoolPath path) {
  switch (path) {
    case PoolPath::kNchwHalfWidth:
    case PoolPath::kNchwStride1:
    case PoolPath::kNchwStacked:
    case PoolPath::kNchwRows:
    case PoolPath::kNhwcRows:
      return true;
    default:
      return false;
  }
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_OPS_POOLING_PLAN_H_

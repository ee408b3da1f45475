// Copyright synetk authors. SPDX-License-Identifier: MIT
// Quantization layers (DequantizeLinear, QuantizeLinear, QuantizedConcat,
// QuantizedScale, QuantizedShuffle types 0 and 1): per-target kernels. One
// body serves every target, element type and format. Public functors are in
// quant.h; the arithmetic is described in docs/quant.md.

#ifndef SYNETK_OPS_QUANT_ARGS_
#define SYNETK_OPS_QUANT_ARGS_
#include <cstddef>
#include <cstdint>

#include "synetk/format.h"

namespace synetk {
namespace detail {

// Everything a kernel needs, validated by the front-end. Scalars that the
// seed passes by pointer (norm[0], scale[0], ...) arrive by value.
template <typename Q, typename F>
struct DequantArgs {
  const Q* src = nullptr;
  size_t size = 0;
  int32_t bias = 0;
  float norm = 0.0f;
  F* dst = nullptr;
  bool stream = false;  // non-temporal stores (larger than the cache)
};

template <typename F, typename Q>
struct QuantArgs {
  const F* src = nullptr;
  size_t size = 0;
  float norm = 0.0f;
  int32_t zero = 0;
  Q* dst = nullptr;
};

struct ConcatArgs {
  size_t count = 0, num = 0, total = 0;  // total: sum of size[]
  size_t begin = 0, end = 0;             // the blocks [begin, end) of num
  const uint8_t* const* src = nullptr;
  const size_t* size = nullptr;
  const int32_t* bias = nullptr;
  const float* norm = nullptr;
  float scale = 0.0f;
  int32_t zero = 0;
  uint8_t* dst = nullptr;
};

// QuantizedScale's fixed-point plans (see "QuantizedScale through verified
// fixed point" in quant_scale-inl.h), per channel in channel order. Each plan
// is checked on all 256 inputs with integer arithmetic that every target
// computes alike, so one set serves every target (a QuantizedScaleContext
// keeps one).
constexpr size_t kScaleFixedMaxC = 512;   // channels planned
constexpr size_t kScaleFixedW = 64;       // bytes per chunk: 2 * Lanes(int16), at most
constexpr size_t kScaleFixedPatches = 8;  // NHWC channels without a plan, fixed up per pixel
// (alignas, not HWY_ALIGN: that follows the target being compiled, and this
// type is shared by every target and every translation unit.)
struct ScaleFixedPlans {
  static constexpr size_t kSize = kScaleFixedMaxC + kScaleFixedW;  // padded to whole chunks
  alignas(64) int16_t m[kSize], b[kSize], p[kSize];  // p = 2^(16 - s)
  alignas(64) uint8_t e0x[kSize], e0y[kSize], e1x[kSize], e1y[kSize];
  int shift[kSize];
  uint8_t exceptions[kSize];  // how many of the two are used
  bool ok[kSize];
  // Channels below the planner's patchLimit without a plan: how many, and
  // the first kScaleFixedPatches of them (in channel order) with their maps.
  size_t failed = 0;
  size_t patchC[kScaleFixedPatches];
  uint8_t patchMap[kScaleFixedPatches][256];
  // The NHWC kernel's per-chunk constants, worked out with the plans (their
  // lane order is the planning target's: laneLayout, 0 for none) for the
  // whole chunks below laneChannels, so that kept plans do not redo them at
  // every call: M, B and P in each chunk's lane order, and at each chunk's
  // first channel the shift its plans share (-1: per lane) and the most
  // exceptions they use.
  int laneLayout = 0;
  size_t laneChannels = 0;
  size_t lanePlanless = 0;  // channels below laneChannels without a plan
  alignas(64) int16_t laneM[kSize], laneB[kSize], laneP[kSize];
  int8_t chunkShift[kSize];
  uint8_t chunkExceptions[kSize];
};

// What a QuantizedScaleContext worked out once: each channel's byte map
// (maps[c].t[x] is the output for input x; the fp32 formula's bytes; NCHW
// only) and, where the planner ran, the plans. Null: none (per-call work).
struct ByteMap;
struct ScalePrepared {
  const ByteMap* maps = nullptr;
  const ScaleFixedPlans* plans = nullptr;
};

struct ScaleArgs {
  ScalePrepared prepared;
  const uint8_t* src = nullptr;
  int32_t srcZero = 0;
  float srcScale = 0.0f;
  const float* scale = nullptr;  // per channel
  const float* bias = nullptr;   // per channel, null: no bias
  size_t channels = 0, spatial = 0;
  size_t sBegin = 0, sEnd = 0;  // the positions [sBegin, sEnd) of spatial
  float invDstScale = 0.0f;  // 1.0f / dstScale[0], rounded to fp32
  int32_t dstZero = 0;
  uint8_t* dst = nullptr;
};

struct ShuffleArgs {
  const uint8_t* src0 = nullptr;
  const uint8_t* src1 = nullptr;
  int32_t bias0 = 0, bias1 = 0;
  float norm0 = 0.0f, norm1 = 0.0f;
  size_t srcC0 = 0, srcC1 = 0, spatial = 0;
  size_t sBegin = 0, sEnd = 0;  // the positions [sBegin, sEnd) of spatial
  uint8_t* dst0 = nullptr;
  uint8_t* dst1 = nullptr;
  float scale = 0.0f;
  int32_t zero = 0;
};

template <typename Q, typename F>
struct DequantCfg {
  using Quant = Q;
  using Float = F;
};
template <typename F, typename Q>
struct QuantCfg {
  using Quant = Q;
  using Float = F;
};
struct ConcatCfg {};
template <class Format, bool kHasBias>
struct ScaleCfg {
  using Fmt = Format;
  static constexpr bool hasBias = kHasBias;
};
template <class Format, int kType>
struct ShuffleCfg {
  using Fmt = Format;
  static constexpr int type = kType;
};

}  // namespace detail
}  // namespace synetk
#endif  // SYNETK_OPS_QUANT_ARGS_

#if defined(SYNETK_OPS_QUANT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_QUANT_INL_H_
#undef SYNETK_OPS_QUANT_INL_H_
#else
#define SYNETK_OPS_QUANT_INL_H_
#endif

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/byte_map-inl.h"
#include "synetk/detail/elements-inl.h"
#include "synetk/detail/quant_ops-inl.h"
#include "synetk/ops/quant_plan.h"

HWY_BEFORE_NAMESPACE();
// Integer outputs must be the same on every target, so `a*b + c` must never
// become an FMA on the targets that have one. g++ contracts the intrinsics'
// vector expressions even in ISO mode; HWY_AFTER_NAMESPACE pops this again.
#if HWY_COMPILER_GCC_ACTUAL
#pragma GCC optimize("fp-contract=off")
#endif
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// fp32 lanes v -> int32 lanes clamp(RoundHalfEven(v) + zero, qmin, qmax).
// v is clamped in fp32 to [qmin - zero, qmax - zero] first (exact: these are
// small integers, and rounding commutes with clamping to integers), so huge
// values and infinities saturate. NaN lanes become 0 (output: zero) when
// kNaN; callers whose values cannot be NaN skip that test. The rounding adds
// and subtracts 1.5*2^23 in fp32, which every target's Add does to nearest
// even (Highway 1.0.3's scalar Round/NearestInt round some values wrongly).
// Parameters are kept as scalars (no vector members: SVE vectors are sizeless).
struct QuantizeParams {
  float lo, hi;
  int32_t offset;
};
constexpr int32_t kMagicBits = 0x4B400000;  // bits of 1.5f * 2^23
constexpr float kMagic = 12582912.0f;
// Below this magnitude the rounding by kMagic is exact without a clamp.
constexpr float kUnclampedLimit = 4194304.0f;  // 2^22

HWY_INLINE QuantizeParams MakeQuantize(int32_t zero, int32_t qmin, int32_t qmax) {
  return {static_cast<float>(qmin - zero), static_cast<float>(qmax - zero), kMagicBits - zero};
}

// kClamp false: the caller knows |v| < 2^22 (no NaN), where the rounding is
// exact without the clamp, and stores through StoreQ4 on a target whose
// narrowing saturates (kStoreQ4Saturates), which then does the clamping.
template <bool kNaN, bool kClamp = true, class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> Quantize(DF df, hn::Vec<DF> v,
                                                     const QuantizeParams& q) {
  const hn::RebindToSigned<DF> di;
  if constexpr (kNaN) v = hn::IfThenElseZero(hn::Eq(v, v), v);
  if constexpr (kClamp) v = hn::Min(hn::Max(v, hn::Set(df, q.lo)), hn::Set(df, q.hi));
  return hn::Sub(hn::BitCast(di, hn::Add(v, hn::Set(df, kMagic))), hn::Set(di, q.offset));
}

template <typename Q>
struct QuantLimits {
  static constexpr int32_t kMin = std::numeric_limits<Q>::min();
  static constexpr int32_t kMax = std::numeric_limits<Q>::max();
};

// Lanes(di) quantized elements <-> int32 lanes (full vectors and tails).
template <typename Q, class DI>
HWY_INLINE hn::Vec<DI> LoadQ(DI di, const Q* HWY_RESTRICT p) {
  const hn::Rebind<Q, DI> dq;
  return hn::PromoteTo(di, hn::LoadU(dq, p));
}
template <typename Q, class DI>
HWY_INLINE hn::Vec<DI> LoadQPartial(DI di, const Q* HWY_RESTRICT p, size_t count) {
  return hn::PromoteTo(di, LoadLanesPartial(hn::Rebind<Q, DI>(), p, count));
}
template <typename Q, class DI>
HWY_INLINE hn::Vec<DI> LoadQRun(DI di, const Q* p, size_t count) {
  return count == hn::Lanes(di) ? LoadQ(di, p) : LoadQPartial(di, p, count);
}
// StoreQ4's narrowing saturates (the x86 packs, SYNETK_HAS_BLOCK_PACKS).
constexpr bool kStoreQ4Saturates = kHasBlockPacks;

#if SYNETK_HAS_BLOCK_PACKS

// QuantizeLinear's plain blocks on x86: four vectors rounded by NearestOrMin
// and narrowed by StoreQ4's saturating packs, the zero point added between
// them in saturating 16-bit lanes (half as many adds as in int32 lanes; r
// beyond int16 stays beyond Q's range after the add). Returns false,
// storing nothing, where a lane packs to -32768: every INT_MIN lane (NaN,
// |v| >= 2^31) and any value at or below -32768, which the caller's general
// path clamps to the same byte. The test on the packed 16-bit lanes (one
// min and one compare per block) replaced one on the four int32 vectors
// (three mins and a compare): QuantizeLinear from bf16 and f16 is bound by
// its operations. kEvenOdd: see StoreQ4.
template <typename Q, bool kEvenOdd = false, class DF>
HWY_INLINE bool StoreQ4Rounded(DF df, hn::Vec<DF> v0, hn::Vec<DF> v1, hn::Vec<DF> v2,
                               hn::Vec<DF> v3, int32_t zero, Q* HWY_RESTRICT p) {
  const hn::RebindToSigned<DF> di;
  using VI = hn::Vec<decltype(di)>;
  (void)df;
  const VI r0 = NearestOrMin(df, v0), r1 = NearestOrMin(df, v1);
  const VI r2 = NearestOrMin(df, v2), r3 = NearestOrMin(df, v3);
  return StoreQ4<Q, true, kEvenOdd, true>(di, r0, r1, r2, r3, p, static_cast<int16_t>(zero));
}
#endif

template <typename Q, class DI>
HWY_INLINE void StoreQRun(DI di, hn::Vec<DI> r, Q* p, size_t count) {
  if (count == hn::Lanes(di)) {
    StoreQ(di, r, p);
  } else {
    StoreLanesPartial(hn::Rebind<Q, DI>(), NarrowQ<Q>(di, r), p, count);
  }
}

// The requantization of one input: float(x + bias) * norm * scale, two fp32
// multiplications left to right.
struct RequantParams {
  int32_t bias;
  float norm, scale;
};

template <class DF>
HWY_INLINE hn::Vec<DF> Requantize(DF df, hn::Vec<hn::RebindToSigned<DF>> x,
                                  const RequantParams& r) {
  const hn::RebindToSigned<DF> di;
  const auto t = hn::ConvertTo(df, hn::Add(x, hn::Set(di, r.bias)));
  return hn::Mul(hn::Mul(t, hn::Set(df, r.norm)), hn::Set(df, r.scale));
}

// One requantized vector: Lanes(df) bytes.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> RequantVec(DF df, const uint8_t* p,
                                                      const RequantParams& r,
                                                      const QuantizeParams& q) {
  const hn::RebindToSigned<DF> di;
  return Quantize<false>(df, Requantize(df, LoadQ(di, p), r), q);
}

// n bytes of src requantized into dst. (bias, norm, scale) are finite and
// non-zero and |x + bias| <= 510, so no lane is NaN.
template <class DF>
HWY_INLINE void RequantRow(DF df, const uint8_t* src, size_t n, const RequantParams& r,
                           const QuantizeParams& q, uint8_t* dst) {
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto r0 = RequantVec(df, src + i, r, q);
    const auto r1 = RequantVec(df, src + i + N, r, q);
    const auto r2 = RequantVec(df, src + i + 2 * N, r, q);
    const auto r3 = RequantVec(df, src + i + 3 * N, r, q);
    StoreQ4(di, r0, r1, r2, r3, dst + i);
  }
  for (; i + N <= n; i += N) StoreQ(di, RequantVec(df, src + i, r, q), dst + i);
  if (i < n) {
    const size_t count = n - i;
    const auto x = LoadQPartial(di, src + i, count);
    StoreQRun(di, Quantize<false>(df, Requantize(df, x, r), q), dst + i, count);
  }
}

// ---- Requantization through verified 16-bit fixed point ----------------------
// A requantization maps each of the 256 input bytes to one output byte. When
// that map equals, for all 256 inputs,
//   y = clamp(((MulHigh((x - 128) << 8, M) + B) >> s), 0, 255)      (int16 lanes)
// (checked exhaustively against the fp32 formula, so the output stays bit
// for bit the same), rows run in 16-bit lanes at four times the fp32 rate.
// Maps that no such (M, B, s) reproduces, ties at .5 for instance, keep the
// fp32 path. The input is centred, (x - 128) << 8, because on x86 that is
// one XOR before the byte interleave (see CenteredBlockLanes).
struct FixedPlan {
  bool fast = false;
  int16_t M = 0, B = 0;
  int s = 0;
};

// Minimum row length for which planning pays off.
constexpr size_t kPlanMinBytes = 2048;

// x in int16 lanes (0..255) -> (x - 128) << 8.
template <class D16>
HWY_INLINE hn::Vec<D16> CenteredLanes(D16 d16, hn::Vec<D16> x) {
  return hn::ShiftLeft<8>(hn::Sub(x, hn::Set(d16, 128)));
}

// xc: the centred input, (x - 128) << 8.
template <class D16>
HWY_INLINE hn::Vec<D16> FixedRequantCentered(D16 d16, hn::Vec<D16> xc, const FixedPlan& p) {
  const auto g = hn::MulHigh(xc, hn::Set(d16, p.M));
  return ShiftRightBy(d16, hn::Add(g, hn::Set(d16, p.B)), p.s);
}
template <class D16>
HWY_INLINE hn::Vec<D16> FixedRequant(D16 d16, hn::Vec<D16> x, const FixedPlan& p) {
  return FixedRequantCentered(d16, CenteredLanes(d16, x), p);
}

#if SYNETK_HAS_BLOCK_PACKS
// x86: a full vector of bytes as centred int16 lanes without crossing
// 128-bit blocks: lo gets bytes 0-7 of every block, hi bytes 8-15, which is
// the order PackBlocks puts back. A zero byte interleaved below each byte
// makes x << 8, and flipping the byte's top bit first makes the high byte
// x - 128 as a signed byte: no lane-crossing widening or narrowing (on AVX2
// a third of the work) and no shift.
using BytesVec = hn::Vec<hn::ScalableTag<uint8_t>>;
using Int16Vec = hn::Vec<hn::ScalableTag<int16_t>>;
HWY_INLINE void CenteredBlockLanes(BytesVec x, Int16Vec& lo, Int16Vec& hi) {
  const hn::ScalableTag<uint8_t> d8;
  const hn::ScalableTag<int16_t> d16;
  const auto zero = hn::Zero(d8);
  const auto flipped = hn::Xor(x, hn::Set(d8, 0x80));
  lo = hn::BitCast(d16, hn::InterleaveLower(d8, zero, flipped));
  hi = hn::BitCast(d16, hn::InterleaveUpper(d8, zero, flipped));
}

// The even and odd bytes of x as centred int16 lanes: one shift and one AND
// in place of the two interleaves (shifts and byte shuffles share two ports
// on AMD Zen).
HWY_INLINE void CenteredEvenOddLanes(BytesVec x, Int16Vec& even, Int16Vec& odd) {
  const hn::ScalableTag<uint8_t> d8;
  const hn::ScalableTag<int16_t> d16;
  const auto flipped = hn::BitCast(d16, hn::Xor(x, hn::Set(d8, 0x80)));
  even = hn::ShiftLeft<8>(flipped);
  odd = hn::And(flipped, hn::Set(d16, static_cast<int16_t>(-256)));  // 0xFF00
}

// Requantized bytes of x, split per 128-bit block: the block's 8 even bytes,
// then its 8 odd ones.
HWY_INLINE BytesVec FixedBlockEvenOdd(BytesVec x, const FixedPlan& p) {
  const hn::ScalableTag<int16_t> d16;
  Int16Vec even, odd;
  CenteredEvenOddLanes(x, even, odd);
  return PackBlocks<uint8_t>(d16, FixedRequantCentered(d16, even, p),
                             FixedRequantCentered(d16, odd, p));
}

HWY_INLINE BytesVec FixedBlockBytes(BytesVec x, const FixedPlan& p) {
  const hn::ScalableTag<int16_t> d16;
  Int16Vec lo, hi;
  CenteredBlockLanes(x, lo, hi);
  return PackBlocks<uint8_t>(d16, FixedRequantCentered(d16, lo, p),
                             FixedRequantCentered(d16, hi, p));
}
#endif

HWY_INLINE void FixedRow(const uint8_t* src, size_t n, const FixedPlan& p, uint8_t* dst) {
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<uint8_t, decltype(d16)> d8;
  const size_t N = hn::Lanes(d16);
  size_t i = 0;
#if SYNETK_HAS_BLOCK_PACKS
  const hn::ScalableTag<uint8_t> dbytes;
  for (; i + 2 * N <= n; i += 2 * N) {
    hn::StoreU(FixedBlockBytes(hn::LoadU(dbytes, src + i), p), dbytes, dst + i);
  }
#endif
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto y0 = FixedRequant(d16, hn::PromoteTo(d16, hn::LoadU(d8, src + i)), p);
    const auto y1 = FixedRequant(d16, hn::PromoteTo(d16, hn::LoadU(d8, src + i + N)), p);
    hn::StoreU(hn::DemoteTo(d8, y0), d8, dst + i);
    hn::StoreU(hn::DemoteTo(d8, y1), d8, dst + i + N);
  }
  for (; i + N <= n; i += N) {
    const auto y = FixedRequant(d16, hn::PromoteTo(d16, hn::LoadU(d8, src + i)), p);
    hn::StoreU(hn::DemoteTo(d8, y), d8, dst + i);
  }
  if (i < n) {
    const size_t count = n - i;
    const auto y = FixedRequant(d16, hn::PromoteTo(d16, LoadLanesPartial(d8, src + i, count)), p);
    StoreLanesPartial(d8, hn::DemoteTo(d8, y), dst + i, count);
  }
}

// The map comes from the fp32 path's own vector code; for each candidate
// (M, s) the range of B that puts every y on its byte is two vector
// reductions over the 256 inputs (in int32 lanes, where (x - 128) << 8 times M is
// exact: MulHigh's floor is the arithmetic shift), and the plan is then run
// through FixedRow itself on all 256 bytes before it is trusted.
template <class DF>
HWY_INLINE FixedPlan PlanRequant(DF df, const RequantParams& r, const QuantizeParams& q) {
  FixedPlan plan;
  const double a = static_cast<double>(r.norm) * static_cast<double>(r.scale);
  if (!(std::fabs(a) > 1e-6 && std::fabs(a) < 32.0)) return plan;
  const uint8_t* const bytes = detail::kByteIdentity.t;
  HWY_ALIGN uint8_t table[256];
  RequantRow(df, bytes, 256, r, q, table);
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(di);
  int sMax = 0;
  while (sMax < 14 && std::fabs(a) * 256.0 * static_cast<double>(int64_t{1} << (sMax + 1)) <= 32767.0) ++sMax;
  for (int tries = 0; tries < 9; ++tries) {
    const int sh = sMax - tries / 3;  // the finest scale first, M rounded then -1, +1
    if (sh < 0) break;
    const double m = std::nearbyint(a * 256.0 * static_cast<double>(int64_t{1} << sh)) +
                     (tries % 3 == 1 ? -1.0 : tries % 3 == 2 ? 1.0 : 0.0);
    if (std::fabs(m) > 32767.0) continue;
    const auto M = hn::Set(di, static_cast<int32_t>(m));
    const auto zero = hn::Zero(di), top = hn::Set(di, 255);
    const auto below = hn::Set(di, (int32_t{1} << sh) - 1);
    auto lo = hn::Set(di, INT32_MIN), hi = hn::Set(di, INT32_MAX);
    auto gMin = hi, gMax = lo;
    for (size_t x = 0; x < 256; x += N) {
      const auto g = hn::ShiftRight<16>(hn::Mul(CenteredLanes(di, LoadQ(di, bytes + x)), M));
      const auto t = LoadQ(di, table + x);
      const auto ts = hn::ShiftLeftSame(t, sh);
      // t << s <= g + B (unless t is 0), g + B <= (t << s) + 2^s - 1 (unless 255).
      lo = hn::Max(lo, hn::IfThenElse(hn::Gt(t, zero), hn::Sub(ts, g), lo));
      hi = hn::Min(hi, hn::IfThenElse(hn::Lt(t, top), hn::Sub(hn::Add(ts, below), g), hi));
      gMin = hn::Min(gMin, g);
      gMax = hn::Max(gMax, g);
    }
    // g + B must stay in int16.
    const int64_t bLo = HWY_MAX(int64_t{hn::GetLane(hn::MaxOfLanes(di, lo))},
                                int64_t{-32768} - hn::GetLane(hn::MinOfLanes(di, gMin)));
    const int64_t bHi = HWY_MIN(int64_t{hn::GetLane(hn::MinOfLanes(di, hi))},
                                int64_t{32767} - hn::GetLane(hn::MaxOfLanes(di, gMax)));
    if (bLo > bHi) continue;
    FixedPlan candidate;
    candidate.fast = true;
    candidate.M = static_cast<int16_t>(m);
    candidate.B = static_cast<int16_t>(bLo);
    candidate.s = sh;
    HWY_ALIGN uint8_t check[256];
    FixedRow(bytes, 256, candidate, check);
    if (std::memcmp(check, table, 256) == 0) return candidate;
  }
  return plan;
}

// How the rows of one input are requantized: through a byte table where this
// target looks bytes up fast (the table is the fp32 formula evaluated by the
// vector code below, so the bytes are the same), else through verified fixed
// point when it reproduces the map, else the fp32 formula per byte.
struct RowRequant {
  RequantParams r;
  QuantizeParams q;
  FixedPlan plan;
  bool table = false;
  detail::ByteMap map;
};

// Minimum bytes for which a table (256/Lanes vector evaluations) pays off.
constexpr size_t kTableMinBytes = 512;

// Prepares op for `bytes` bytes in all, split in rows of any length.
template <class DF>
HWY_INLINE void PrepareRequant(DF df, const RequantParams& r, const QuantizeParams& q,
                               size_t bytes, RowRequant& op) {
  op.r = r;
  op.q = q;
  if constexpr (kByteLookup) {
    if (bytes < kTableMinBytes) return;
    RequantRow(df, detail::kByteIdentity.t, 256, r, q, op.map.t);  // the fp32 path's own bytes
    op.table = true;
  } else {
    if (bytes >= kPlanMinBytes) op.plan = PlanRequant(df, r, q);
  }
}

// `rows` rows of n bytes: src + r*srcStride -> dst + r*dstStride.
template <class DF>
HWY_INLINE void RequantRowsWith(DF df, const RowRequant& op, const uint8_t* src, size_t srcStride,
                                size_t n, size_t rows, uint8_t* dst, size_t dstStride) {
  if (kByteLookup && op.table) {
    MapByteRows(op.map, src, srcStride, n, rows, dst, dstStride);
    return;
  }
  if (op.plan.fast) {
    // A local copy: the byte stores could alias op, whose constants would
    // then be reloaded and broadcast again for every row (NHWC concat rows
    // are one pixel's channels of an input, often one or two vectors).
    const FixedPlan plan = op.plan;
#if SYNETK_HAS_BLOCK_PACKS
    // Rows of whole vectors (NHWC concat of 32 or 64 channels) without
    // FixedRow's tail loops, whose tests cost as much as a short row.
    const hn::ScalableTag<uint8_t> d8;
    const size_t L = hn::Lanes(d8);
    if (n % L == 0) {
      for (size_t r = 0; r < rows; ++r) {
        const uint8_t* s = src + r * srcStride;
        uint8_t* d = dst + r * dstStride;
        for (size_t i = 0; i < n; i += L) {
          hn::StoreU(FixedBlockBytes(hn::LoadU(d8, s + i), plan), d8, d + i);
        }
      }
      return;
    }
    // Longer rows of part vectors (NCHW planes such as 7x7 = 49 bytes): the
    // last vector ends at the row's end, overlapping the one before it, and
    // writes some bytes again with the same values (each output byte depends
    // on its input byte alone, and outputs never overlap inputs), in place
    // of FixedRow's narrower and buffered tails. bench:
    // BM_QuantVsSimd/fn:5/C:512/HW:49/nhwc:0 on AVX2.
    if (n > L) {
      for (size_t r = 0; r < rows; ++r) {
        const uint8_t* s = src + r * srcStride;
        uint8_t* d = dst + r * dstStride;
        for (size_t i = 0; i + L < n; i += L) {
          hn::StoreU(FixedBlockBytes(hn::LoadU(d8, s + i), plan), d8, d + i);
        }
        hn::StoreU(FixedBlockBytes(hn::LoadU(d8, s + n - L), plan), d8, d + n - L);
      }
      return;
    }
    // Contiguous rows of 16 or 32 bytes, shorter than the vector, go several
    // to a vector rather than row by row (AVX2 takes it for 16-byte rows).
    // bench: BM_QuantConcat/C:64/HW:3136/nhwc:1.
    size_t r = 0;
    if (n >= 16 && n < L && L % n == 0 && srcStride == n) {
      for (; r + L / n <= rows; r += L / n) {
        StoreVectorRows(d8, FixedBlockBytes(hn::LoadU(d8, src + r * n), plan), n,
                        dst + r * dstStride, dstStride);
      }
    }
    for (; r < rows; ++r) FixedRow(src + r * srcStride, n, plan, dst + r * dstStride);
#else
    for (size_t i = 0; i < rows; ++i) FixedRow(src + i * srcStride, n, plan, dst + i * dstStride);
#endif
    return;
  }
  for (size_t i = 0; i < rows; ++i) {
    RequantRow(df, src + i * srcStride, n, op.r, op.q, dst + i * dstStride);
  }
}

// Two sets of rows in alternation (see MapByteRowPairs): row r of A through
// opA, then row r of B through opB.
template <class DF>
HWY_INLINE void RequantRowPairs(DF df, const RowRequant& opA, const uint8_t* srcA, uint8_t* dstA,
                                const RowRequant& opB, const uint8_t* srcB, uint8_t* dstB,
                                size_t srcStride, size_t n, size_t rows, size_t dstStride) {
  if (kByteLookup && opA.table && opB.table) {
    MapByteRowPairs(opA.map, srcA, dstA, opB.map, srcB, dstB, srcStride, n, rows, dstStride);
    return;
  }
  for (size_t r = 0; r < rows; ++r) {
    RequantRowsWith(df, opA, srcA + r * srcStride, n, n, 1, dstA + r * dstStride, n);
    RequantRowsWith(df, opB, srcB + r * srcStride, n, n, 1, dstB + r * dstStride, n);
  }
}

template <class DF>
HWY_INLINE void RequantRowWith(DF df, const RowRequant& op, const uint8_t* src, size_t n,
                               uint8_t* dst) {
  RequantRowsWith(df, op, src, n, n, 1, dst, n);
}

// ---- DequantizeLinear: dst = float(src + bias) * norm ------------------------
template <class DF>
HWY_INLINE hn::Vec<DF> Dequantize(DF df, hn::Vec<hn::RebindToSigned<DF>> x, int32_t bias,
                                  float norm) {
  const hn::RebindToSigned<DF> di;
  return hn::Mul(hn::ConvertTo(df, hn::Add(x, hn::Set(di, bias))), hn::Set(df, norm));
}

// dst[i] = Dequantize(src[i]) for i < size, the formula per element (kPlain
// as StoreF32Streaming's).
template <bool kPlain, typename Q, typename F>
HWY_INLINE void DequantFormula(const Q* HWY_RESTRICT src, size_t size, int32_t bias, float norm,
                               bool stream, F* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t N = hn::Lanes(df);
  // The instance that streams also prefetches where the CPU wants it (a
  // streaming call is far above detail::kPrefetchMinBytes).
  const size_t pfEnd = PrefetchBound(size, !kPlain && detail::softwarePrefetch);
  size_t i = 0;
  for (; i + 4 * N <= size; i += 4 * N) {
    PrefetchAheadLines<kPlain>(src, i, 4 * N, pfEnd);
    const auto v0 = Dequantize(df, LoadQ(di, src + i), bias, norm);
    const auto v1 = Dequantize(df, LoadQ(di, src + i + N), bias, norm);
    const auto v2 = Dequantize(df, LoadQ(di, src + i + 2 * N), bias, norm);
    const auto v3 = Dequantize(df, LoadQ(di, src + i + 3 * N), bias, norm);
    if constexpr (kBF16PairStore && std::is_same_v<F, hwy::bfloat16_t>) {
      // Dequantized values are never NaN (an integer times a finite norm).
      StoreBF16Pair(df, v0, v1, dst + i);
      StoreBF16Pair(df, v2, v3, dst + i + 2 * N);
      continue;
    }
    StoreF32Streaming<kPlain>(df, v0, dst + i, stream);
    StoreF32Streaming<kPlain>(df, v1, dst + i + N, stream);
    StoreF32Streaming<kPlain>(df, v2, dst + i + 2 * N, stream);
    StoreF32Streaming<kPlain>(df, v3, dst + i + 3 * N, stream);
  }
  for (; i + N <= size; i += N) {
    StoreF32Streaming<kPlain>(df, Dequantize(df, LoadQ(di, src + i), bias, norm), dst + i, stream);
  }
  if (i < size) {
    const size_t count = size - i;
    const auto x = LoadQPartial(di, src + i, count);
    StoreF32Partial(df, Dequantize(df, x, bias, norm), dst + i, count);
  }
}

#if SYNETK_HAS_VBMI_PERMUTE
// 8-bit inputs to 16-bit floats: every output is one of 256 patterns, so
// the formula runs once on the 256 input bytes (the same code, so the same
// bits) and two byte maps give each output's low and high byte. 64 inputs
// take a vpermb, four vpermt2b, two blends and two interleaves; the formula
// took about twice that (four widenings, conversions and multiplications,
// then four roundings to 16 bits). Returns the elements done (whole
// vectors); only calls of at least kDequantLookupMin elements build maps.
constexpr size_t kDequantLookupMin = 512;

template <typename Q, typename F>
HWY_INLINE size_t DequantLookup16(const Q* HWY_RESTRICT src, size_t size, int32_t bias,
                                  float norm, F* HWY_RESTRICT dst) {
  static_assert(sizeof(Q) == 1 && sizeof(F) == 2);
  if (size < kDequantLookupMin) return 0;
  HWY_ALIGN F image[256];
  DequantFormula<true>(reinterpret_cast<const Q*>(detail::kByteIdentity.t), 256, bias, norm, false,
                       image);
  detail::ByteMap low, high;
  for (size_t x = 0; x < 256; ++x) {
    uint16_t bits;
    std::memcpy(&bits, &image[x], 2);
    low.t[x] = static_cast<uint8_t>(bits & 0xFF);
    high.t[x] = static_cast<uint8_t>(bits >> 8);
  }
  const ByteMapRegs lookLow(low), lookHigh(high);
  // Inputs 8b..8b+7 into bytes 0-7 of block b and inputs 32+8b..32+8b+7
  // into its bytes 8-15, so that the in-block interleaves of the two maps'
  // bytes give outputs 0-31 and 32-63 in order.
  alignas(64) static constexpr std::array<uint8_t, 64> kSpread = [] {
    std::array<uint8_t, 64> order{};
    for (size_t l = 0; l < 64; ++l) {
      const size_t b = l / 16, j = l % 16;
      order[l] = static_cast<uint8_t>(j < 8 ? 8 * b + j : 32 + 8 * b + (j - 8));
    }
    return order;
  }();
  const hn::Full512<uint8_t> d8;
  const auto spread = hn::Load(d8, kSpread.data());
  const uint8_t* const in = reinterpret_cast<const uint8_t*>(src);
  uint8_t* const out = reinterpret_cast<uint8_t*>(dst);
  size_t i = 0;
  for (; i + 64 <= size; i += 64) {
    const auto x = PermuteBytes(d8, hn::LoadU(d8, in + i), spread);
    const auto lo = lookLow(x), hi = lookHigh(x);
    hn::StoreU(hn::InterleaveLower(d8, lo, hi), d8, out + 2 * i);
    hn::StoreU(hn::InterleaveUpper(d8, lo, hi), d8, out + 2 * i + 64);
  }
  return i;
}
#endif

template <class Cfg>
void DequantKernel(const detail::DequantArgs<typename Cfg::Quant, typename Cfg::Float>& a) {
  size_t done = 0;
#if SYNETK_HAS_VBMI_PERMUTE
  using F = typename Cfg::Float;
  if constexpr (sizeof(F) == 2 && (ElementTraits<F>::kEncoding == Encoding::kBFloat16 ||
                                   ElementTraits<F>::kEncoding == Encoding::kFloat16)) {
    done = DequantLookup16(a.src, a.size, a.bias, a.norm, a.dst);
  }
#endif
  const bool prefetch = detail::PrefetchCall(a.size * (sizeof(typename Cfg::Quant) +
                                                       sizeof(typename Cfg::Float)));
  WithPlainInstance(a.stream, prefetch, [&](auto plain) HWY_ATTR {
    DequantFormula<decltype(plain)::value>(a.src + done, a.size - done, a.bias, a.norm, a.stream,
                                           a.dst + done);
  });
  if (a.stream) hwy::FlushStream();  // non-temporal stores are weakly ordered
}

// ---- QuantizeLinear: dst = clamp(Round(src * norm) + zero) --------------------
// kPlain: without software prefetch (StoreF32Streaming's kPlain).
template <bool kPlain, class Cfg>
HWY_INLINE void QuantLinear(const detail::QuantArgs<typename Cfg::Float, typename Cfg::Quant>& a) {
  using Q = typename Cfg::Quant;
  using D = hn::ScalableTag<float>;
  const D df;
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(df);
  const QuantizeParams q = MakeQuantize(a.zero, QuantLimits<Q>::kMin, QuantLimits<Q>::kMax);
  // Locals: stores through dst (8-bit) could alias the fields of a, which the
  // compiler would otherwise reload after every store.
  const float norm = a.norm;
  [[maybe_unused]] const int32_t zero = a.zero;
  const typename Cfg::Float* HWY_RESTRICT const src = a.src;
  Q* HWY_RESTRICT const dst = a.dst;
  const size_t size = a.size, pfEnd = PrefetchBound(size, !kPlain);
  const auto scale = [&](hn::Vec<D> x) HWY_ATTR { return hn::Mul(x, hn::Set(df, norm)); };
  // Blocks of four vectors go through StoreQ4Rounded, and only those with a
  // NaN or |v| >= 2^31 through Quantize's NaN test and clamp: the common
  // block costs a conversion, three packs and one test. binary16 sources
  // too. bench: BM_QuantQuantize<float, uint8_t>/C:64/HW:3136/nhwc:0 and
  // BM_QuantQuantize<float16_t, int8_t>/C:64/HW:3136/nhwc:0.
  // bf16 sources on AVX3_DL: 2N elements as N 32-bit lanes, whose halves
  // shifted or masked in place are the even and odd elements as fp32
  // (BF16LanesToF32: no widening shuffles); the packs' final byte
  // permutation puts them back in order. bench:
  // BM_QuantQuantize<bfloat16_t, uint8_t>/C:64/HW:3136/nhwc:0.
  [[maybe_unused]] constexpr bool kEvenOdd =
      SYNETK_HAS_VBMI_PERMUTE &&
      ElementTraits<typename Cfg::Float>::kEncoding == Encoding::kBFloat16 &&
      sizeof(typename Cfg::Float) == 2;
  size_t i = 0;
  for (; i + 4 * N <= size; i += 4 * N) {
    PrefetchAheadLines<kPlain>(src, i, 4 * N, pfEnd);
#if SYNETK_HAS_VBMI_PERMUTE
    if constexpr (kEvenOdd) {
      hn::Vec<D> e0, o0, e1, o1;
      LoadBF16Pair(df, src + i, e0, o0);
      LoadBF16Pair(df, src + i + 2 * N, e1, o1);
      const bool stored = StoreQ4Rounded<Q, true>(df, scale(e0), scale(o0), scale(e1),
                                                  scale(o1), zero, dst + i);
      if (HWY_LIKELY(stored)) continue;
    }
#endif
    const auto v0 = scale(LoadF32(df, src + i)), v1 = scale(LoadF32(df, src + i + N));
    const auto v2 = scale(LoadF32(df, src + i + 2 * N)), v3 = scale(LoadF32(df, src + i + 3 * N));
#if SYNETK_HAS_BLOCK_PACKS
    if constexpr (!kEvenOdd) {
      if (HWY_LIKELY(StoreQ4Rounded(df, v0, v1, v2, v3, zero, dst + i))) continue;
    }
#endif
    StoreQ4(di, Quantize<true>(df, v0, q), Quantize<true>(df, v1, q), Quantize<true>(df, v2, q),
            Quantize<true>(df, v3, q), dst + i);
  }
  for (; i + N <= size; i += N) {
    StoreQ(di, Quantize<true>(df, scale(LoadF32(df, src + i)), q), dst + i);
  }
  if (i < size) {
    const size_t count = size - i;
    StoreQRun(di, Quantize<true>(df, scale(LoadF32Partial(df, src + i, count)), q), dst + i, count);
  }
}

template <class Cfg>
void QuantKernel(const detail::QuantArgs<typename Cfg::Float, typename Cfg::Quant>& a) {
  const bool prefetch = detail::PrefetchCall(a.size * (sizeof(typename Cfg::Float) +
                                                       sizeof(typename Cfg::Quant)));
  WithPlainInstance(false, prefetch, [&](auto plain) HWY_ATTR {
    QuantLinear<decltype(plain)::value, Cfg>(a);
  });
}

// ---- QuantizedConcat -----------------------------------------------------------
// Inputs go in groups of up to kConcatGroup, each group in bands of blocks of
// about kConcatBand output bytes: the group's pieces of a band's dst blocks are
// all written while those lines are in L1. (Input by input over all blocks,
// the second 32-channel half of each 64-byte NHWC pixel meets its line back
// in L2. bench: BM_QuantConcat/C:64/HW:3136/nhwc:1.)
constexpr size_t kConcatGroup = 8;
constexpr size_t kConcatBand = 16384;

#if SYNETK_HAS_VBMI_PERMUTE
// Two inputs of n = 8, 16 or 32 bytes per block (NHWC concat of equal halves),
// byte-mapped by tables: each step maps 64 bytes (64/n blocks) of each input
// and two vpermt2b put them together as whole output blocks of 2n bytes, one
// full-vector store per 64 output bytes, instead of one row of n bytes per
// block and input. bench: BM_QuantConcat/C:64/HW:3136/nhwc:1.
// Reads only the blocks [0, blocks) of a and b; returns the blocks done.
HWY_INLINE size_t ConcatEqualPairs(const RowRequant& op0, const RowRequant& op1, const uint8_t* a,
                                   const uint8_t* b, size_t n, size_t blocks, uint8_t* dst,
                                   size_t total) {
  // Output byte `at` of a step: block at / 2n, byte q of it (2n is a power of
  // two: shifts, not 128 divisions a call).
  const size_t shift = hwy::Num0BitsBelowLS1Bit_Nonzero64(2 * n);
  HWY_ALIGN uint8_t idx[2][64];
  for (size_t at = 0; at < 128; ++at) {
    const size_t block = at >> shift, q = at & (2 * n - 1);
    idx[at / 64][at % 64] = static_cast<uint8_t>(q < n ? block * n + q : 64 + block * n + q - n);
  }
  const hn::Full512<uint8_t> d8;
  const auto idx0 = hn::Load(d8, idx[0]), idx1 = hn::Load(d8, idx[1]);
  const ByteMapRegs lookA(op0.map), lookB(op1.map);
  const size_t per = 64 / n, half = per / 2;  // blocks per step, per output vector
  size_t k = 0;
  for (; k + per <= blocks; k += per) {
    const auto ya = lookA(hn::LoadU(d8, a + k * n));
    const auto yb = lookB(hn::LoadU(d8, b + k * n));
    const auto lo = TwoTables(d8, ya, yb, idx0);
    const auto hi = TwoTables(d8, ya, yb, idx1);
    if (total == 2 * n) {
      hn::StoreU(lo, d8, dst + k * total);
      hn::StoreU(hi, d8, dst + k * total + 64);
    } else {
      StoreVectorRows(d8, lo, 2 * n, dst + k * total, total);
      StoreVectorRows(d8, hi, 2 * n, dst + (k + half) * total, total);
    }
  }
  return k;
}
#endif

template <class Cfg>
void ConcatKernel(const detail::ConcatArgs& a) {
  const hn::ScalableTag<float> df;
  const QuantizeParams q = MakeQuantize(a.zero, 0, 255);
  const size_t blocks = a.end - a.begin, total = a.total;
  RowRequant ops[kConcatGroup];
  for (size_t s0 = 0, offset0 = 0; s0 < a.count; s0 += kConcatGroup) {
    const size_t group = HWY_MIN(kConcatGroup, a.count - s0);
    size_t width = 0;  // the group's bytes per block
    for (size_t j = 0; j < group; ++j) {
      const size_t s = s0 + j, n = a.size[s];
      PrepareRequant(df, RequantParams{a.bias[s], a.norm[s], a.scale}, q, n * blocks, ops[j]);
      width += n;
    }
    const size_t band = HWY_MAX(size_t{1}, kConcatBand / width);
    size_t first = a.begin;  // blocks before it: done by the pair path
#if SYNETK_HAS_VBMI_PERMUTE
    const size_t n0 = a.size[s0];
    if (group == 2 && a.size[s0 + 1] == n0 && ops[0].table && ops[1].table) {
      const uint8_t* const srcA = a.src[s0] + first * n0;
      const uint8_t* const srcB = a.src[s0 + 1] + first * n0;
      uint8_t* const out = a.dst + first * total + offset0;
      if (n0 == 8 || n0 == 16 || n0 == 32) {
        first += ConcatEqualPairs(ops[0], ops[1], srcA, srcB, n0, a.end - first, out, total);
      } else if (n0 >= 64 && n0 <= 1024) {
        // Pieces of a vector or more (NHWC pixels): both inputs block by
        // block, so that dst is one stream; long NCHW rows stay in bands,
        // which are faster for them. bench: BM_QuantConcat/C:256/HW:784/nhwc:1.
        MapByteRowPairs(ops[0].map, srcA, out, ops[1].map, srcB, out + n0, n0, n0, a.end - first,
                        total);
        first = a.end;
      }
    }
#endif
    for (size_t b = first; b < a.end; b += band) {
      const size_t rows = HWY_MIN(band, a.end - b);
      for (size_t j = 0, offset = offset0; j < group; offset += a.size[s0 + j], ++j) {
        const size_t n = a.size[s0 + j];
        RequantRowsWith(df, ops[j], a.src[s0 + j] + b * n, n, n, rows, a.dst + b * total + offset,
                        total);
      }
    }
    offset0 += width;
  }
}

// ---- QuantizedShuffle ---------------------------------------------------------------
// NHWC: the inputs are requantized in long rows (blocks of whole pixels) into
// a stack buffer and (de)interleaved there as one flat row; then each pixel's
// runs of bytes are copied into place.
constexpr size_t kShuffleTmp = 4096;

// dA[i] = src[2i], dB[i] = src[2i + 1], i < pairs.
HWY_INLINE void Deinterleave(const uint8_t* src, size_t pairs, uint8_t* dA, uint8_t* dB) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t L = hn::Lanes(d8);
  size_t i = 0;
  for (; i + L <= pairs; i += L) {
    hn::Vec<decltype(d8)> a, b;
    hn::LoadInterleaved2(d8, src + 2 * i, a, b);
    hn::StoreU(a, d8, dA + i);
    hn::StoreU(b, d8, dB + i);
  }
  for (; i < pairs; ++i) {
    dA[i] = src[2 * i];
    dB[i] = src[2 * i + 1];
  }
}

// dst[2i] = a[i], dst[2i + 1] = b[i], i < pairs.
HWY_INLINE void Interleave(const uint8_t* a, const uint8_t* b, size_t pairs, uint8_t* dst) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t L = hn::Lanes(d8);
  size_t i = 0;
  for (; i + L <= pairs; i += L) {
    hn::StoreInterleaved2(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i), d8, dst + 2 * i);
  }
  for (; i < pairs; ++i) {
    dst[2 * i] = a[i];
    dst[2 * i + 1] = b[i];
  }
}

// Runs of a compile-time length: the compiler emits plain vector moves.
template <size_t kN>
HWY_INLINE void CopyRunsOf(const uint8_t* src, size_t srcStride, size_t rows, uint8_t* dst,
                           size_t dstStride) {
  for (size_t r = 0; r < rows; ++r) std::memcpy(dst + r * dstStride, src + r * srcStride, kN);
}

// rows runs of n bytes: src + r*srcStride -> dst + r*dstStride.
HWY_INLINE void CopyRuns(const uint8_t* src, size_t srcStride, size_t n, size_t rows,
                         uint8_t* dst, size_t dstStride) {
  switch (n) {  // half a pixel of common channel counts
    case 8: return CopyRunsOf<8>(src, srcStride, rows, dst, dstStride);
    case 16: return CopyRunsOf<16>(src, srcStride, rows, dst, dstStride);
    case 32: return CopyRunsOf<32>(src, srcStride, rows, dst, dstStride);
    case 64: return CopyRunsOf<64>(src, srcStride, rows, dst, dstStride);
    default: break;
  }
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * srcStride;
    uint8_t* d = dst + r * dstStride;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) std::memcpy(d + i, s + i, 64);
    for (; i + 16 <= n; i += 16) std::memcpy(d + i, s + i, 16);
    if (i < n) std::memcpy(d + i, s + i, n - i);
  }
}

// Type 0, NHWC, one input of Cs channels (even): pixel s's even channels go
// to dst0 + s*Ch + offset, its odd ones to dst1 + s*Ch + offset.
template <class DF>
HWY_INLINE void SplitNhwc(DF df, const uint8_t* src, size_t Cs, size_t S, const RowRequant& op,
                          uint8_t* dst0, uint8_t* dst1, size_t Ch, size_t offset) {
  HWY_ALIGN uint8_t tmp[kShuffleTmp];
  if (Cs <= kShuffleTmp) {
    HWY_ALIGN uint8_t even[kShuffleTmp / 2];
    HWY_ALIGN uint8_t odd[kShuffleTmp / 2];
    const size_t P = kShuffleTmp / Cs, h = Cs / 2;
    for (size_t s0 = 0; s0 < S; s0 += P) {
      const size_t p = S - s0 < P ? S - s0 : P;
      RequantRowWith(df, op, src + s0 * Cs, p * Cs, tmp);
      Deinterleave(tmp, p * h, even, odd);  // Cs is even: pixel i's halves are at i*h
      CopyRuns(even, h, h, p, dst0 + s0 * Ch + offset, Ch);
      CopyRuns(odd, h, h, p, dst1 + s0 * Ch + offset, Ch);
    }
  } else {
    for (size_t s = 0; s < S; ++s) {
      for (size_t c = 0; c < Cs; c += kShuffleTmp) {
        const size_t m = Cs - c < kShuffleTmp ? Cs - c : kShuffleTmp;  // even
        RequantRowWith(df, op, src + s * Cs + c, m, tmp);
        const size_t o = s * Ch + offset + c / 2;
        Deinterleave(tmp, m / 2, dst0 + o, dst1 + o);
      }
    }
  }
}

// Type 1, NHWC: src0 and src1 have Ch channels; pixel s of dst0 (C0
// channels) is interleave(src0[0, C0/2), src1[0, C0/2)), of dst1 the rest.
template <class DF>
HWY_INLINE void InterleaveNhwc(DF df, const detail::ShuffleArgs& a, const RowRequant& op0,
                               const RowRequant& op1) {
  const size_t C0 = a.srcC0, C1 = a.srcC1, S = a.spatial, Ch = (C0 + C1) / 2;
  const size_t h0 = C0 / 2;
  HWY_ALIGN uint8_t tmpA[kShuffleTmp / 2];
  HWY_ALIGN uint8_t tmpB[kShuffleTmp / 2];
  constexpr size_t kHalf = kShuffleTmp / 2;
  if (Ch <= kHalf) {
    // Interleaved, pixel i's 2*Ch bytes are at 2*i*Ch: C0 of them for dst0, then C1.
    HWY_ALIGN uint8_t both[kShuffleTmp];
    const size_t P = kHalf / Ch;
    for (size_t s0 = 0; s0 < S; s0 += P) {
      const size_t p = S - s0 < P ? S - s0 : P;
      RequantRowWith(df, op0, a.src0 + s0 * Ch, p * Ch, tmpA);
      RequantRowWith(df, op1, a.src1 + s0 * Ch, p * Ch, tmpB);
      Interleave(tmpA, tmpB, p * Ch, both);
      CopyRuns(both, 2 * Ch, C0, p, a.dst0 + s0 * C0, C0);
      CopyRuns(both + C0, 2 * Ch, C1, p, a.dst1 + s0 * C1, C1);
    }
  } else {
    for (size_t s = 0; s < S; ++s) {
      // Channel pairs [c, c + m) of the pixel; pair k goes to dst0 below h0.
      for (size_t c = 0; c < Ch; c += kHalf) {
        const size_t m = Ch - c < kHalf ? Ch - c : kHalf;
        RequantRowWith(df, op0, a.src0 + s * Ch + c, m, tmpA);
        RequantRowWith(df, op1, a.src1 + s * Ch + c, m, tmpB);
        const size_t in0 = c < h0 ? (h0 - c < m ? h0 - c : m) : 0;  // pairs for dst0
        if (in0 > 0) Interleave(tmpA, tmpB, in0, a.dst0 + s * C0 + 2 * c);
        if (in0 < m) {
          Interleave(tmpA + in0, tmpB + in0, m - in0, a.dst1 + s * C1 + 2 * (c + in0 - h0));
        }
      }
    }
  }
}

#if SYNETK_HAS_BLOCK_PACKS
// ShuffleNhwcPath::kChunks (ShuffleFitsChunks; the target's vectors are 32
// bytes, kShuffleCaps.chunks): both inputs requantized by fixed point, each
// 32-byte chunk in a register, reaching its output places by one byte
// shuffle or unpack and GatherBlockHalves, pixel by pixel for both inputs (no
// staging row, no run copies, and each output pixel's lines are written
// while in L1).
template <int kType>
HWY_INLINE void ShuffleNhwcChunks(const detail::ShuffleArgs& a, const RowRequant& op0,
                                  const RowRequant& op1) {
  const size_t C0 = a.srcC0, C1 = a.srcC1, S = a.spatial, Ch = (C0 + C1) / 2;
  const hn::ScalableTag<uint8_t> d8;
  const hn::Half<decltype(d8)> dh;
  HWY_DASSERT(hn::Lanes(d8) == 32 && op0.plan.fast && op1.plan.fast);
  const FixedPlan p0 = op0.plan, p1 = op1.plan;
  const uint8_t* const src0 = a.src0;
  const uint8_t* const src1 = a.src1;
  uint8_t* const dst0 = a.dst0;
  uint8_t* const dst1 = a.dst1;
  if constexpr (kType == 0) {
    // Chunk c of an input pixel: its even bytes go to dst0, its odd ones to
    // dst1, both at the pixel's offset + c/2. Per 128-bit block the even
    // bytes come low, the odd ones high; GatherBlockHalves then makes 16 even
    // bytes, 16 odd bytes.
    const auto part = [&](const uint8_t* in, const FixedPlan& p, size_t o) HWY_ATTR {
      const auto q = GatherBlockHalves(d8, FixedBlockEvenOdd(hn::LoadU(d8, in), p));
      hn::StoreU(hn::LowerHalf(dh, q), dh, dst0 + o);
      hn::StoreU(hn::UpperHalf(dh, q), dh, dst1 + o);
    };
    // Pixels [s0, end) of one input of Cs channels; its part of output pixel s
    // starts at s * Ch + off.
    const auto pass = [&](const uint8_t* in, size_t Cs, const FixedPlan& p, size_t off, size_t s0,
                          size_t end) HWY_ATTR {
      if (Cs == 32) {  // one chunk per pixel: no inner loop
        for (size_t s = s0; s < end; ++s) part(in + s * 32, p, s * Ch + off);
        return;
      }
      for (size_t s = s0; s < end; ++s) {
        for (size_t c = 0; c < Cs; c += 32) part(in + s * Cs + c, p, s * Ch + off + c / 2);
      }
    };
    // Blocks of about 2 KiB of each output, src0's parts first, then src1's:
    // one input stream at a time instead of two, and the output lines stay in
    // L1 between the two passes. bench: BM_QuantShuffle<0>/C:64/HW:3136/nhwc:1
    // on AVX2.
    const size_t P = HWY_MAX(size_t{1}, 2048 / Ch);
    for (size_t s0 = 0; s0 < S; s0 += P) {
      const size_t end = S - s0 < P ? S : s0 + P;
      pass(src0, C0, p0, 0, s0, end);
      pass(src1, C1, p1, C0 / 2, s0, end);
    }
  } else {
    // Chunk c of both inputs: pairs c .. c+15 and c+16 .. c+31 of
    // Y = interleave(src0, src1), each wholly in dst0 (pairs below C0/2) or dst1.
    const size_t h0 = C0 / 2;
    const auto at = [&](size_t s, size_t k) HWY_ATTR {
      return k < h0 ? dst0 + s * C0 + 2 * k : dst1 + s * C1 + 2 * (k - h0);
    };
    for (size_t s = 0; s < S; ++s) {
      for (size_t c = 0; c < Ch; c += 32) {
        const auto x = FixedBlockBytes(hn::LoadU(d8, src0 + s * Ch + c), p0);
        const auto y = FixedBlockBytes(hn::LoadU(d8, src1 + s * Ch + c), p1);
        // Bytes 0-7 and 16-23 in block 0, 8-15 and 24-31 in block 1.
        const auto xp = GatherBlockHalves(d8, x), yp = GatherBlockHalves(d8, y);
        hn::StoreU(hn::InterleaveLower(d8, xp, yp), d8, at(s, c));
        hn::StoreU(hn::InterleaveUpper(d8, xp, yp), d8, at(s, c + 16));
      }
    }
  }
}
#endif

#if SYNETK_HAS_VBMI_PERMUTE
// The permute paths (ShuffleNhwcPath::kPermute*; both inputs have byte
// tables): the requantized bytes stay in registers and a two-source byte
// permute moves them to their output places. Output byte j of a pixel of dst
// k (0 or 1) comes from input A (src0) or B (src1):
//   type 0: X[2j + k], X = A ++ B (A has C0 channels);
//   type 1: Y[j + k*C0], Y[2i] = A[i], Y[2i + 1] = B[i].
// Partial vectors take MaskedLoad and BlendedStore, which on AVX-512 touch no
// byte outside the mask.

// kPermuteGroups: pixels of at most 64 bytes in every tensor, in groups of
// P pixels: one (masked) vector per input and output and one permute per
// output.
template <int kType>
HWY_INLINE void ShuffleNhwcGroups(const detail::ShuffleArgs& a, const RowRequant& op0,
                                  const RowRequant& op1, const detail::ShufflePixels& px) {
  const hn::Full512<uint8_t> d8;
  using M = hn::Mask<decltype(d8)>;
  const size_t P = 64 / detail::ShuffleWidestPixel(px), C0 = a.srcC0;
  HWY_ALIGN uint8_t idx[2][64] = {};
  for (size_t k = 0; k < 2; ++k) {
    const size_t out = k == 0 ? px.out0 : px.out1;
    // Group i, channel j of output position o = i*out + j, counted, not
    // divided: a division per position is a visible share of a short call.
    size_t i = 0, j = 0;
    for (size_t o = 0; o < P * out; ++o) {
      const size_t x = kType == 0 ? 2 * j + k : j + k * C0;  // position in X or Y
      const bool fromB = kType == 0 ? x >= C0 : (x & 1) != 0;
      const size_t ch = kType == 0 ? (fromB ? x - C0 : x) : x / 2;
      idx[k][o] = static_cast<uint8_t>(fromB ? 64 + i * px.inB + ch : i * px.inA + ch);
      if (++j == out) {
        j = 0;
        ++i;
      }
    }
  }
  const auto idx0 = hn::Load(d8, idx[0]), idx1 = hn::Load(d8, idx[1]);
  const ByteMapRegs lookA(op0.map), lookB(op1.map);
  const uint8_t* const srcA = a.src0;
  const uint8_t* const srcB = a.src1;
  uint8_t* const dst0 = a.dst0;
  uint8_t* const dst1 = a.dst1;
  const size_t S = a.spatial;
  const size_t inA = px.inA, inB = px.inB, out0 = px.out0, out1 = px.out1;
  // By value (tables and indices in registers; see ShuffleNhwcPixels).
  const auto group = [=](size_t s, M kA, M kB, M k0, M k1) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const auto x = lookA(hn::MaskedLoad(kA, d8, srcA + s * inA));
    const auto y = lookB(hn::MaskedLoad(kB, d8, srcB + s * inB));
    hn::BlendedStore(TwoTables(d8, x, y, idx0), k0, d8, dst0 + s * out0);
    hn::BlendedStore(TwoTables(d8, x, y, idx1), k1, d8, dst1 + s * out1);
  };
  const M kA = hn::FirstN(d8, P * inA), kB = hn::FirstN(d8, P * inB);
  const M k0 = hn::FirstN(d8, P * out0), k1 = hn::FirstN(d8, P * out1);
  size_t s = 0;
  for (; s + P <= S; s += P) group(s, kA, kB, k0, k1);
  if (s < S) {
    const size_t p = S - s;
    group(s, hn::FirstN(d8, p * inA), hn::FirstN(d8, p * inB), hn::FirstN(d8, p * out0),
          hn::FirstN(d8, p * out1));
  }
}

// kPermutePixels: wider pixels, one at a time. Type 0: each input's part of
// a pixel separately (its channel count is even), 128 bytes at a time
// permuted into 64 even and 64 odd bytes. Type 1: channels [0, C0/2) of A
// and B interleave into dst0, the rest into dst1, 64 of each at a time.
template <int kType>
HWY_INLINE void ShuffleNhwcPixels(const detail::ShuffleArgs& a, const RowRequant& op0,
                                  const RowRequant& op1, const detail::ShufflePixels& px) {
  const hn::Full512<uint8_t> d8;
  HWY_ALIGN uint8_t idx[2][64];
  for (size_t t = 0; t < 64; ++t) {
    // type 0: even and odd bytes of two vectors; type 1: lane t/2 of A (even
    // t) or B (odd t), from the low (idx[0]) or high (idx[1]) 32 lanes.
    idx[0][t] = static_cast<uint8_t>(kType == 0 ? 2 * t : (t & 1) * 64 + t / 2);
    idx[1][t] = static_cast<uint8_t>(kType == 0 ? 2 * t + 1 : (t & 1) * 64 + 32 + t / 2);
  }
  const auto idx0 = hn::Load(d8, idx[0]), idx1 = hn::Load(d8, idx[1]);
  const ByteMapRegs lookA(op0.map), lookB(op1.map);
  // The lambdas take the tables and indices by value and are forced
  // inline: through references, and called once per pixel, type 1 reloads
  // its tables from memory for every 64 bytes. bench:
  // BM_QuantShuffle<1>/C:256/HW:784/nhwc:1.
  // n (even) bytes of in -> n/2 even ones at d0, n/2 odd ones at d1.
  const auto split = [=](const ByteMapRegs look, const uint8_t* in, size_t n, uint8_t* d0,
                         uint8_t* d1) HWY_ATTR SYNETK_LAMBDA_INLINE {
    size_t c = 0;
    for (; c + 128 <= n; c += 128) {
      const auto u = look(hn::LoadU(d8, in + c));
      const auto v = look(hn::LoadU(d8, in + c + 64));
      hn::StoreU(TwoTables(d8, u, v, idx0), d8, d0 + c / 2);
      hn::StoreU(TwoTables(d8, u, v, idx1), d8, d1 + c / 2);
    }
    if (c < n) {
      const size_t m = n - c;
      const auto u = look(hn::MaskedLoad(hn::FirstN(d8, m), d8, in + c));
      const auto v = m > 64 ? look(hn::MaskedLoad(hn::FirstN(d8, m - 64), d8, in + c + 64))
                            : hn::Zero(d8);
      hn::BlendedStore(TwoTables(d8, u, v, idx0), hn::FirstN(d8, m / 2), d8, d0 + c / 2);
      hn::BlendedStore(TwoTables(d8, u, v, idx1), hn::FirstN(d8, m / 2), d8, d1 + c / 2);
    }
  };
  // d[2i] = A[i], d[2i + 1] = B[i], i < n.
  const auto interleave = [=](const uint8_t* A, const uint8_t* B, size_t n,
                              uint8_t* d) HWY_ATTR SYNETK_LAMBDA_INLINE {
    size_t c = 0;
    for (; c + 64 <= n; c += 64) {
      const auto u = lookA(hn::LoadU(d8, A + c));
      const auto v = lookB(hn::LoadU(d8, B + c));
      hn::StoreU(TwoTables(d8, u, v, idx0), d8, d + 2 * c);
      hn::StoreU(TwoTables(d8, u, v, idx1), d8, d + 2 * c + 64);
    }
    if (c < n) {
      const size_t m = n - c;
      const auto u = lookA(hn::MaskedLoad(hn::FirstN(d8, m), d8, A + c));
      const auto v = lookB(hn::MaskedLoad(hn::FirstN(d8, m), d8, B + c));
      hn::BlendedStore(TwoTables(d8, u, v, idx0), hn::FirstN(d8, 2 * m), d8, d + 2 * c);
      if (m > 32) {
        hn::BlendedStore(TwoTables(d8, u, v, idx1), hn::FirstN(d8, 2 * m - 64), d8,
                         d + 2 * c + 64);
      }
    }
  };
  const size_t h0 = a.srcC0 / 2, S = a.spatial;
  for (size_t s = 0; s < S; ++s) {
    const uint8_t* const A = a.src0 + s * px.inA;
    const uint8_t* const B = a.src1 + s * px.inB;
    uint8_t* const d0 = a.dst0 + s * px.out0;
    uint8_t* const d1 = a.dst1 + s * px.out1;
    if constexpr (kType == 0) {
      split(lookA, A, px.inA, d0, d1);
      split(lookB, B, px.inB, d0 + h0, d1 + h0);
    } else {
      interleave(A, B, h0, d0);
      interleave(A + h0, B + h0, px.inA - h0, d1);
    }
  }
}
#endif

// What this target offers PlanShuffleNhwc.
inline constexpr detail::ShuffleCaps kShuffleCaps{SYNETK_HAS_VBMI_PERMUTE != 0,
                                                  SYNETK_IS_X86_AVX2 != 0};

// An NHWC shuffle (a: the part, pointers shifted) by the path
// PlanShuffleNhwc picks.
template <int kType, class DF>
HWY_INLINE void ShuffleNhwc(DF df, const detail::ShuffleArgs& a, const RowRequant& op0,
                            const RowRequant& op1) {
  using detail::ShuffleNhwcPath;
  const size_t C0 = a.srcC0, C1 = a.srcC1;
  const detail::ShuffleRequants requants{op0.table && op1.table, op0.plan.fast && op1.plan.fast};
  switch (detail::PlanShuffleNhwc(kType, C0, C1, requants, kShuffleCaps)) {
    case ShuffleNhwcPath::kPermuteGroups:
#if SYNETK_HAS_VBMI_PERMUTE
      return ShuffleNhwcGroups<kType>(a, op0, op1, detail::ShufflePixelsOf(kType, C0, C1));
#endif
    case ShuffleNhwcPath::kPermutePixels:
#if SYNETK_HAS_VBMI_PERMUTE
      return ShuffleNhwcPixels<kType>(a, op0, op1, detail::ShufflePixelsOf(kType, C0, C1));
#endif
    case ShuffleNhwcPath::kChunks:
#if SYNETK_HAS_BLOCK_PACKS
      if constexpr (kShuffleCaps.chunks) return ShuffleNhwcChunks<kType>(a, op0, op1);
#endif
      [[fallthrough]];
    case ShuffleNhwcPath::kRows:
      break;
  }
  if constexpr (kType == 0) {
    SplitNhwc(df, a.src0, C0, a.spatial, op0, a.dst0, a.dst1, (C0 + C1) / 2, 0);
    SplitNhwc(df, a.src1, C1, a.spatial, op1, a.dst0, a.dst1, (C0 + C1) / 2, C0 / 2);
  } else {
    InterleaveNhwc(df, a, op0, op1);
  }
}

template <class Cfg>
void ShuffleKernel(const detail::ShuffleArgs& whole) {
  using D = hn::ScalableTag<float>;
  const D df;
  const QuantizeParams qz = MakeQuantize(whole.zero, 0, 255);
  const size_t C0 = whole.srcC0, C1 = whole.srcC1, S = whole.spatial;
  const size_t Ch = (C0 + C1) / 2;  // channels of each output (type 0) / input (type 1)
  const size_t sBegin = whole.sBegin, len = whole.sEnd - whole.sBegin;
  // The part [sBegin, sEnd): NHWC pixels are contiguous, so the part is the
  // whole call on shifted pointers; NCHW rows keep their stride S.
  detail::ShuffleArgs a = whole;
  if constexpr (std::is_same_v<typename Cfg::Fmt, Nhwc>) {
    const size_t in0 = Cfg::type == 0 ? C0 : Ch, in1 = Cfg::type == 0 ? C1 : Ch;
    const size_t out0 = Cfg::type == 0 ? Ch : C0, out1 = Cfg::type == 0 ? Ch : C1;
    a.src0 += sBegin * in0;
    a.src1 += sBegin * in1;
    a.dst0 += sBegin * out0;
    a.dst1 += sBegin * out1;
    a.spatial = len;
  }
  const size_t bytes0 = (Cfg::type == 0 ? C0 : Ch) * len, bytes1 = (Cfg::type == 0 ? C1 : Ch) * len;
  RowRequant op0, op1;
  PrepareRequant(df, RequantParams{a.bias0, a.norm0, a.scale}, qz, bytes0, op0);
  PrepareRequant(df, RequantParams{a.bias1, a.norm1, a.scale}, qz, bytes1, op1);
  if constexpr (std::is_same_v<typename Cfg::Fmt, Nchw>) {
    // Four sets of rows with constant strides (C0 and C1 are even).
    const uint8_t* s0 = a.src0 + sBegin;
    const uint8_t* s1 = a.src1 + sBegin;
    uint8_t* d0 = a.dst0 + sBegin;
    uint8_t* d1 = a.dst1 + sBegin;
    const size_t h0 = C0 / 2, h1 = C1 / 2;
    // Plane pairs in order, so that one side is read or written as one
    // stream (each input for type 0, each output for type 1), rather than
    // four passes, each over every other plane. bench:
    // BM_QuantShuffle<0>/C:64/HW:3136/nhwc:0.
    if constexpr (Cfg::type == 0) {
      // dst0 channel j = X[2j], dst1 channel j = X[2j + 1], X = src0 ++ src1.
      RequantRowPairs(df, op0, s0, d0, op0, s0 + S, d1, 2 * S, len, h0, S);
      RequantRowPairs(df, op1, s1, d0 + h0 * S, op1, s1 + S, d1 + h0 * S, 2 * S, len, h1, S);
    } else {
      // Y[2i] = src0 channel i, Y[2i + 1] = src1 channel i; dst0 = Y[0, C0).
      RequantRowPairs(df, op0, s0, d0, op1, s1, d0 + S, S, len, h0, 2 * S);
      RequantRowPairs(df, op0, s0 + h0 * S, d1, op1, s1 + h0 * S, d1 + S, S, len, h1, 2 * S);
    }
  } else {
    ShuffleNhwc<Cfg::type>(df, a, op0, op1);
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

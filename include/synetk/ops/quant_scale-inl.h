// Copyright synetk authors. SPDX-License-Identifier: MIT
// QuantizedScale: per-target kernels (one body for every target and format;
// the functor is in quant.h, the arithmetic in docs/quant.md). Uses the
// quantization helpers of quant-inl.h, which synetk-inl.h includes first.

#if defined(SYNETK_OPS_QUANT_SCALE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_QUANT_SCALE_INL_H_
#undef SYNETK_OPS_QUANT_SCALE_INL_H_
#else
#define SYNETK_OPS_QUANT_SCALE_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <cstring>

#include <hwy/highway.h>

#include "synetk/detail/fused_mul_add-inl.h"
#include "synetk/ops/quant-inl.h"

HWY_BEFORE_NAMESPACE();
// As in quant-inl.h: no FMA contraction (integer outputs are bit-identical
// on every target).
#if HWY_COMPILER_GCC_ACTUAL
#pragma GCC optimize("fp-contract=off")
#endif
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- QuantizedScale --------------------------------------------------------------
// v = float(src - srcZero) * srcScale; v = v*scale[c] + bias[c] rounded once
// (FusedMulAdd, as the original library computes it; v*scale[c] without a
// bias); dst = clamp(Round(v * invDstScale) + dstZero).
// scale[c] may be 0 while float(src - srcZero)*srcScale overflows: NaN.
struct ScaleParams {
  int32_t srcZero;
  float srcScale, invDstScale;
};

// The per-tensor half: float(src - srcZero) * srcScale.
template <class DF>
HWY_INLINE hn::Vec<DF> ScaleSource(DF df, hn::Vec<hn::RebindToSigned<DF>> x, const ScaleParams& k) {
  const hn::RebindToSigned<DF> di;
  const auto t = hn::ConvertTo(df, hn::Sub(x, hn::Set(di, k.srcZero)));
  return hn::Mul(t, hn::Set(df, k.srcScale));
}

// The per-channel half before rounding.
template <bool kHasBias, class DF>
HWY_INLINE hn::Vec<DF> ScaleChannel(DF df, hn::Vec<DF> t, hn::Vec<DF> scale, hn::Vec<DF> bias,
                                    const ScaleParams& k) {
  const auto v = kHasBias ? FusedMulAdd(df, t, scale, bias) : hn::Mul(t, scale);
  return hn::Mul(v, hn::Set(df, k.invDstScale));
}

// The per-channel half. kNaN: whether a lane can be NaN (inf * 0); kClamp:
// see Quantize.
template <bool kHasBias, bool kNaN, bool kClamp = true, class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> ScaleFinish(DF df, hn::Vec<DF> t, hn::Vec<DF> scale,
                                                       hn::Vec<DF> bias, const ScaleParams& k,
                                                       const QuantizeParams& q) {
  return Quantize<kNaN, kClamp>(df, ScaleChannel<kHasBias>(df, t, scale, bias, k), q);
}

// What a call's values need before rounding, decided once per call from the
// ends x = 0 and x = 255 (every fp32 step is monotone in x, so the ends bound
// the rest):
// - kNaN: float(x - srcZero) * srcScale can be infinite, so a lane can be
//   inf * 0 (the only source of NaN) and needs the NaN test;
// - kClamp: finite, clamped in fp32 before rounding;
// - kSaturate: |v| < 2^22 for every byte and channel, so the rounding is
//   exact unclamped and a saturating StoreQ4 clamps (kStoreQ4Saturates only).
enum class ScaleMode { kNaN, kClamp, kSaturate };

template <bool kHasBias>
HWY_INLINE ScaleMode ScaleModeFor(const detail::ScaleArgs& a, const ScaleParams& k) {
  const float lo = static_cast<float>(0 - k.srcZero) * k.srcScale;
  const float hi = static_cast<float>(255 - k.srcZero) * k.srcScale;
  if (!(std::fabs(lo) < HUGE_VALF && std::fabs(hi) < HUGE_VALF)) return ScaleMode::kNaN;
  if (!kStoreQ4Saturates) return ScaleMode::kClamp;
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const auto vlo = hn::Set(df, lo), vhi = hn::Set(df, hi);
  const auto limit = hn::Set(df, kUnclampedLimit);
  auto ok = hn::Eq(vlo, vlo);
  for (size_t c = 0; c < a.channels; c += N) {
    const size_t count = HWY_MIN(N, a.channels - c);
    const auto sc = LoadParam(df, a.scale + c, count);
    const auto bi = kHasBias ? LoadParam(df, a.bias + c, count) : hn::Zero(df);
    ok = hn::And(ok, hn::Lt(hn::Abs(ScaleChannel<kHasBias>(df, vlo, sc, bi, k)), limit));
    ok = hn::And(ok, hn::Lt(hn::Abs(ScaleChannel<kHasBias>(df, vhi, sc, bi, k)), limit));
  }
  return hn::AllTrue(df, ok) ? ScaleMode::kSaturate : ScaleMode::kClamp;  // NaN fails the test
}

template <bool kHasBias, bool kNaN = true, bool kClamp = true, class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> ScaleValues(DF df, hn::Vec<hn::RebindToSigned<DF>> x,
                                                       hn::Vec<DF> scale, hn::Vec<DF> bias,
                                                       const ScaleParams& k,
                                                       const QuantizeParams& q) {
  return ScaleFinish<kHasBias, kNaN, kClamp>(df, ScaleSource(df, x, k), scale, bias, k, q);
}

// u[x] = float(x - srcZero) * srcScale for all 256 inputs: the per-tensor
// half, once per call, for the tables and the fixed-point planner.
HWY_INLINE void ScaleSourceTable(const ScaleParams& k, float* HWY_RESTRICT u) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  for (size_t x = 0; x < 256; x += hn::Lanes(df)) {
    hn::Store(ScaleSource(df, LoadQ(di, detail::kByteIdentity.t + x), k), df, u + x);
  }
}

// One channel's table from u[x] = float(x - srcZero) * srcScale.
template <bool kHasBias, bool kNaN, bool kClamp, class DF>
HWY_INLINE void ScaleTable(DF df, const float* HWY_RESTRICT u, hn::Vec<DF> sc, hn::Vec<DF> bi,
                           const ScaleParams& k, const QuantizeParams& q, detail::ByteMap& map) {
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(df);
  for (size_t i = 0; i < 256; i += 4 * N) {  // 4*N divides 256 on every target
    const auto r0 = ScaleFinish<kHasBias, kNaN, kClamp>(df, hn::Load(df, u + i), sc, bi, k, q);
    const auto r1 = ScaleFinish<kHasBias, kNaN, kClamp>(df, hn::Load(df, u + i + N), sc, bi, k, q);
    const auto r2 = ScaleFinish<kHasBias, kNaN, kClamp>(df, hn::Load(df, u + i + 2 * N), sc, bi, k, q);
    const auto r3 = ScaleFinish<kHasBias, kNaN, kClamp>(df, hn::Load(df, u + i + 3 * N), sc, bi, k, q);
    StoreQ4(di, r0, r1, r2, r3, map.t + i);
  }
}

// Calls f(kNaN, kClamp), as std::bool_constant, with the variant for mode;
// kSaturate only exists where kStoreQ4Saturates.
template <class F>
HWY_INLINE void WithScaleMode(ScaleMode mode, const F& f) {
  if (mode == ScaleMode::kNaN) {
    f(std::true_type(), std::true_type());
  } else if (mode == ScaleMode::kClamp) {
    f(std::false_type(), std::true_type());
  } else if constexpr (kStoreQ4Saturates) {
    f(std::false_type(), std::false_type());
  }
}

// Channel c's table (ScaleTable) from u = ScaleSourceTable.
template <bool kHasBias, bool kNaN, bool kClamp, class DF>
HWY_INLINE void ScaleChannelTable(DF df, const float* HWY_RESTRICT u, const float* scale,
                                  const float* bias, size_t c, const ScaleParams& k,
                                  const QuantizeParams& q, detail::ByteMap& map) {
  const auto sc = hn::Set(df, scale[c]);
  const auto bi = hn::Set(df, kHasBias ? bias[c] : 0.0f);
  ScaleTable<kHasBias, kNaN, kClamp>(df, u, sc, bi, k, q, map);
}

// Every channel's table into maps[0, C): what a QuantizedScaleContext works
// out once.
template <bool kHasBias, bool kNaN, bool kClamp>
HWY_INLINE void ScaleChannelTables(const detail::ScaleArgs& a, const ScaleParams& k,
                                   const QuantizeParams& q, detail::ByteMap* maps) {
  const hn::ScalableTag<float> df;
  HWY_ALIGN float u[256];
  ScaleSourceTable(k, u);
  for (size_t c = 0; c < a.channels; ++c) {
    ScaleChannelTable<kHasBias, kNaN, kClamp>(df, u, a.scale, a.bias, c, k, q, maps[c]);
  }
}

// NCHW with a byte table per channel: the per-tensor half of all 256 inputs
// once per call (u), the per-channel half per table. Same operations, same
// bytes as ScaleValues.
template <bool kHasBias, bool kNaN, bool kClamp>
HWY_INLINE void ScaleNchwTables(const detail::ScaleArgs& a, const ScaleParams& k,
                                const QuantizeParams& q) {
  const hn::ScalableTag<float> df;
  HWY_ALIGN float u[256];
  ScaleSourceTable(k, u);
  // Locals: the table stores (uint8_t) could alias the fields of a.
  const size_t C = a.channels, S = a.spatial, len = a.sEnd - a.sBegin;
  const float* const scale = a.scale;
  const float* const bias = a.bias;
  const uint8_t* const src = a.src + a.sBegin;
  uint8_t* const dst = a.dst + a.sBegin;
  detail::ByteMap map;
  for (size_t c = 0; c < C; ++c) {
    ScaleChannelTable<kHasBias, kNaN, kClamp>(df, u, scale, bias, c, k, q, map);
    MapBytes(map, src + c * S, len, dst + c * S);
  }
}

// The row and pixel functions below take k and q by value: through
// references, every byte store could change them, and each vector reloaded
// and broadcast them again (bench: BM_QuantVsSimd/fn:3/C:512/HW:49/nhwc:0).
//
// ScaleRow for rows of more than four vectors but not of whole ones (NCHW
// planes such as 7x7 = 49 bytes): the last four vectors end at the row's end
// and overlap the ones before, rewriting some bytes with the same values, in
// place of the tail's single vectors and buffered partial ones. Their input
// bytes are kept before any store, for dst == src. bench:
// BM_QuantVsSimd/fn:3/C:512/HW:49/nhwc:0 on AVX2.
template <bool kHasBias, bool kNaN, bool kClamp4, class DF>
HWY_INLINE void ScaleRowOverlapped(DF df, const uint8_t* src, size_t n, hn::Vec<DF> sc,
                                   hn::Vec<DF> bi, ScaleParams k, QuantizeParams q,
                                   uint8_t* dst) {
  const hn::RebindToSigned<DF> di;
  const hn::Repartition<uint8_t, DF> d8;  // 4 * N lanes
  const size_t N = hn::Lanes(df);
  HWY_ALIGN uint8_t last[kMaxLanes<uint8_t>];
  hn::Store(hn::LoadU(d8, src + n - 4 * N), d8, last);
  const auto at = [&](const uint8_t* p) HWY_ATTR {
    return ScaleValues<kHasBias, kNaN, kClamp4>(df, LoadQ(di, p), sc, bi, k, q);
  };
  for (size_t s = 0; s + 4 * N <= n; s += 4 * N) {
    StoreQ4(di, at(src + s), at(src + s + N), at(src + s + 2 * N), at(src + s + 3 * N), dst + s);
  }
  StoreQ4(di, at(last), at(last + N), at(last + 2 * N), at(last + 3 * N), dst + n - 4 * N);
}

// One channel's row of n bytes in the per-byte fp32 formula, four vectors
// per step (the only store that may leave the clamping to saturation:
// kClamp4).
template <bool kHasBias, bool kNaN, bool kClamp4, class DF>
HWY_INLINE void ScaleRow(DF df, const uint8_t* src, size_t n, hn::Vec<DF> sc, hn::Vec<DF> bi,
                         ScaleParams k, QuantizeParams q, uint8_t* dst) {
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(df);
  const auto scaled = [&](hn::Vec<decltype(di)> x) HWY_ATTR {
    return ScaleValues<kHasBias, kNaN, kClamp4>(df, x, sc, bi, k, q);
  };
  const auto at = [&](size_t s) HWY_ATTR { return scaled(LoadQ(di, src + s)); };
  size_t s = 0;
  using D8 = hn::Repartition<uint8_t, DF>;  // 4 * N lanes
  if constexpr (SYNETK_HAS_MULTI_LANE && hn::MaxLanes(D8()) == 4 * hn::MaxLanes(DF())) {
    if (n > 4 * N && n % (4 * N) != 0) {
      return ScaleRowOverlapped<kHasBias, kNaN, kClamp4>(df, src, n, sc, bi, k, q, dst);
    }
  }
  // A row of more than one vector but less than four (NCHW 7x7 planes)
  // where LoadQ4Partial and StoreQ4Partial are one masked load and store:
  // one four-vector step instead of a single-vector narrowing store per
  // Lanes bytes and a partial one (bench:
  // BM_QuantVsSimd/fn:3/C:512/HW:49/nhwc:0 on AVX-512). The lanes past n
  // compute on zeros and are not stored.
  if (kQ4PartialInRegisters && n > N && n < 4 * N) {
    hn::Vec<decltype(di)> r0, r1, r2, r3;
    LoadQ4Partial(di, src, n, r0, r1, r2, r3);
    StoreQ4Partial(di, scaled(r0), scaled(r1), scaled(r2), scaled(r3), dst, n);
    return;
  }
  for (; s + 4 * N <= n; s += 4 * N) {
    StoreQ4(di, at(s), at(s + N), at(s + 2 * N), at(s + 3 * N), dst + s);
  }
  for (; s < n; s += N) {
    const size_t count = n - s < N ? n - s : N;
    const auto r = ScaleValues<kHasBias, kNaN>(df, LoadQRun(di, src + s, count), sc, bi, k, q);
    StoreQRun(di, r, dst + s, count);
  }
}

// Channels [c, C) of one NHWC pixel (s -> d) in the per-byte fp32 formula;
// each lane has its own channel's scale and bias. Four vectors (4*Lanes
// bytes) per step share one narrowing store, the only store that may leave
// the clamping to saturation (kClamp4).
template <bool kHasBias, bool kNaN, bool kClamp4, class DF>
HWY_INLINE void ScalePixel(DF df, const uint8_t* s, uint8_t* d, size_t c, size_t C,
                           const float* scale, const float* bias, ScaleParams k,
                           QuantizeParams q) {
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(df);
  // Lanes [c, c + N); kClamp: see Quantize.
  const auto lanes = [&](size_t at, auto clamp) HWY_ATTR {
    const auto bi = kHasBias ? hn::LoadU(df, bias + at) : hn::Zero(df);
    return ScaleValues<kHasBias, kNaN, decltype(clamp)::value>(df, LoadQ(di, s + at),
                                                               hn::LoadU(df, scale + at), bi, k, q);
  };
  const std::bool_constant<kClamp4> clamp4;
  for (; c + 4 * N <= C; c += 4 * N) {
    StoreQ4(di, lanes(c, clamp4), lanes(c + N, clamp4), lanes(c + 2 * N, clamp4),
            lanes(c + 3 * N, clamp4), d + c);
  }
  for (; c + N <= C; c += N) StoreQ(di, lanes(c, std::true_type()), d + c);
  if (c < C) {
    const size_t count = C - c;
    const auto sc = LoadParamPartial(df, scale + c, count);
    const auto bi = kHasBias ? LoadParamPartial(df, bias + c, count) : hn::Zero(df);
    const auto x = LoadQPartial(di, s + c, count);
    StoreQRun(di, ScaleValues<kHasBias, kNaN>(df, x, sc, bi, k, q), d + c, count);
  }
}

// ---- QuantizedScale through verified fixed point ------------------------------
// Each channel maps the 256 input bytes to output bytes. Where that map
// equals, for every input x but at most two (the exceptions),
//   y = clamp(SaturatedAdd(MulHigh((x - 128) << 8, M), B) >> s, 0, 255)
// in int16 lanes with 2 <= s <= 7, the channel runs in 16-bit lanes, and a
// byte compare and blend per exception puts the listed x's bytes in. The
// saturating add lets the line leave int16 where its bytes clamp anyway
// (32767 >> 7 is still above 255), so s depends on the slope alone. x86 has
// no per-lane 16-bit shift: NCHW shifts each channel's vectors by its s, and
// NHWC shifts a chunk of channels whose plans share one s (the usual case:
// s is 7 wherever |slope| < 1) by it, and other chunks' lanes by MulHigh by
// P = 2^(16 - s) (exact; a second multiply). The map is computed by the
// fp32 code above and every plan is checked on all 256 inputs, so the bytes
// are those of the fp32 formula. Planning costs about as much as the fp32
// formula on 300-400 bytes per channel, so only calls of at least
// kScaleFixedMinLen positions plan.
// (The plans' limits and layout, kScaleFixedMaxC, kScaleFixedW,
// kScaleFixedPatches and ScaleFixedPlans, are in quant-inl.h: a
// QuantizedScaleContext keeps one set for every target.)
using detail::kScaleFixedMaxC;
using detail::kScaleFixedPatches;
using detail::kScaleFixedW;
using detail::ScaleFixedPlans;
constexpr size_t kScaleFixedMinLen = 1024;  // positions per call
constexpr int kScaleFixedMaxShift = 7;      // the largest s for which saturation still clamps
constexpr size_t kScaleNhwcBlockBytes = 8192;  // NHWC: bytes of pixels per block, about
constexpr size_t kScaleNhwcBlockPixels = 64;   // and at most this many pixels

// Whether this target plans calls of kNaN's variant: not where a lane can be
// NaN, nor on SCALAR (the planner's chunks are four fp32 vectors:
// 2 * Lanes(int16)).
template <bool kNaN>
inline constexpr bool kScalePlannable = !kNaN && SYNETK_HAS_MULTI_LANE;

// Whether the plans' arrays hold this target's chunks and the call's channels.
HWY_INLINE bool ScalePlanFits(size_t channels) {
  return 2 * hn::Lanes(hn::ScalableTag<int16_t>()) <= kScaleFixedW && channels <= kScaleFixedMaxC;
}

// The constants of one vector of bytes: per lane from arrays (NHWC; M, B
// and P in the chunk's lane order, see FixedLaneChannel; exceptions in byte
// order) or one channel's, broadcast (NCHW, which never needs P).
struct FixedLaneArrays {
  const int16_t *m, *b, *p;
  const uint8_t *e0x, *e0y, *e1x, *e1y;
  template <class D> HWY_INLINE hn::Vec<D> M(D d, size_t i) const { return hn::LoadU(d, m + i); }
  template <class D> HWY_INLINE hn::Vec<D> B(D d, size_t i) const { return hn::LoadU(d, b + i); }
  template <class D> HWY_INLINE hn::Vec<D> P(D d, size_t i) const { return hn::LoadU(d, p + i); }
  template <class D> HWY_INLINE hn::Vec<D> E0X(D d, size_t i) const { return hn::LoadU(d, e0x + i); }
  template <class D> HWY_INLINE hn::Vec<D> E0Y(D d, size_t i) const { return hn::LoadU(d, e0y + i); }
  template <class D> HWY_INLINE hn::Vec<D> E1X(D d, size_t i) const { return hn::LoadU(d, e1x + i); }
  template <class D> HWY_INLINE hn::Vec<D> E1Y(D d, size_t i) const { return hn::LoadU(d, e1y + i); }
};
struct FixedChannel {
  int16_t m, b;
  uint8_t e0x, e0y, e1x, e1y;
  template <class D> HWY_INLINE hn::Vec<D> M(D d, size_t) const { return hn::Set(d, m); }
  template <class D> HWY_INLINE hn::Vec<D> B(D d, size_t) const { return hn::Set(d, b); }
  template <class D> HWY_INLINE hn::Vec<D> E0X(D d, size_t) const { return hn::Set(d, e0x); }
  template <class D> HWY_INLINE hn::Vec<D> E0Y(D d, size_t) const { return hn::Set(d, e0y); }
  template <class D> HWY_INLINE hn::Vec<D> E1X(D d, size_t) const { return hn::Set(d, e1x); }
  template <class D> HWY_INLINE hn::Vec<D> E1Y(D d, size_t) const { return hn::Set(d, e1y); }
};

// Whether NHWC per-lane shifts shift each lane by its count s (`vpsravw`,
// AVX-512) rather than take MulHigh by P = 2^(16 - s) (the same bits): the
// variable shift costs about what the shared immediate shift does, the
// second multiply more. bench: BM_QuantScale<true>/C:256/HW:784/nhwc:1.
constexpr bool kScaleLaneCounts = kFastLaneShifts16;

// xc: the centred input, (x - 128) << 8; constants of k at offset i; the
// shift by `shift`, or per lane (kLaneShift) by k's P: the multiplier
// 2^(16 - s), or s itself where kScaleLaneCounts (ScaleNhwcFixed's arrays).
template <bool kLaneShift, class D16, class Params>
HWY_INLINE hn::Vec<D16> FixedLanes(D16 d16, hn::Vec<D16> xc, const Params& k, size_t i,
                                   int shift) {
  const auto v = hn::SaturatedAdd(hn::MulHigh(xc, k.M(d16, i)), k.B(d16, i));
  if constexpr (kLaneShift && kScaleLaneCounts) {
    return hn::Shr(v, k.P(d16, i));
  } else if constexpr (kLaneShift) {
    return hn::MulHigh(v, k.P(d16, i));
  } else {
    return ShiftRightBy(d16, v, shift);
  }
}

// The channel (offset in the chunk) of int16 lane `lane` of a chunk's two
// vectors (low half's lanes first). x86 widens within 128-bit blocks (see
// CenteredBlockLanes): the low vector holds bytes 0-7 of every block.
HWY_INLINE size_t FixedLaneChannel(size_t lane, size_t N16) {
#if SYNETK_HAS_BLOCK_PACKS
  const size_t half = lane / N16, i = lane % N16;
  return i / 8 * 16 + i % 8 + 8 * half;
#else
  (void)N16;
  return lane;
#endif
}

// A chunk's M, B and P (its 2 * n16 channels from c0) in its lanes' order
// (FixedLaneChannel), for FixedLaneArrays and the planner's check.
HWY_INLINE void FixedLaneConstants(const ScaleFixedPlans& p, size_t c0, size_t n16, int16_t* m,
                                   int16_t* b, int16_t* pw) {
  for (size_t lane = 0; lane < 2 * n16; ++lane) {
    const size_t c = c0 + FixedLaneChannel(lane, n16);
    m[lane] = p.m[c];
    b[lane] = p.b[c];
    pw[lane] = p.p[c];
  }
}

// This target's lane order of NHWC chunks (FixedLaneChannel) as a number
// for ScaleFixedPlans::laneLayout: int16 lanes per vector, and whether the
// lanes follow x86's per-block packs.
HWY_INLINE int FixedLaneLayout() {
  return static_cast<int>(2 * hn::Lanes(hn::ScalableTag<int16_t>()) + SYNETK_HAS_BLOCK_PACKS);
}

// ScaleNhwcFixed's constants for the whole chunks [0, Cf) of plans p: M, B
// and P in each chunk's lane order, and at each chunk's first channel the
// shift its planned channels share (-1 if they differ: per-lane shifts) and
// the most exceptions they use. Channels without a plan are patched,
// whatever their lanes hold.
HWY_INLINE void FixedNhwcChunkConstants(const ScaleFixedPlans& p, size_t Cf, int16_t* m,
                                        int16_t* b, int16_t* pw, int8_t* shifts,
                                        uint8_t* exceptions) {
  const size_t N16 = hn::Lanes(hn::ScalableTag<int16_t>()), W = 2 * N16;
  for (size_t c0 = 0; c0 < Cf; c0 += W) {
    int shared = kScaleFixedMaxShift;
    uint8_t used = 0;
    bool first = true;
    FixedLaneConstants(p, c0, N16, m + c0, b + c0, pw + c0);
    for (size_t c = c0; c < c0 + W; ++c) {
      if (!p.ok[c]) continue;
      used = static_cast<uint8_t>(HWY_MAX(used, p.exceptions[c]));
      if (first || shared == p.shift[c]) {
        shared = p.shift[c];
      } else {
        shared = -1;
      }
      first = false;
    }
    shifts[c0] = static_cast<int8_t>(shared);
    exceptions[c0] = used;
  }
}

// Puts the bytes of the exceptions (x, y) of k at offset i into y; kExceptions
// of them are used.
template <int kExceptions, class D8, class Params>
HWY_INLINE hn::Vec<D8> FixedExceptions(D8 d8, hn::Vec<D8> x, hn::Vec<D8> y, const Params& k,
                                       size_t i) {
  if constexpr (kExceptions >= 1) y = hn::IfThenElse(hn::Eq(x, k.E0X(d8, i)), k.E0Y(d8, i), y);
  if constexpr (kExceptions >= 2) y = hn::IfThenElse(hn::Eq(x, k.E1X(d8, i)), k.E1Y(d8, i), y);
  return y;
}

#if SYNETK_HAS_BLOCK_PACKS
// The bytes of a chunk's vector x, constants at offset i.
template <int kExceptions, bool kLaneShift, class Params>
HWY_INLINE BytesVec FixedScaleBytes(BytesVec x, const Params& k, size_t i, int shift) {
  x = InRegister(x);  // (one load for the lanes and the exceptions' compare)
  const hn::ScalableTag<int16_t> d16;
  const hn::ScalableTag<uint8_t> d8;
  Int16Vec xlo, xhi;
  CenteredBlockLanes(x, xlo, xhi);
  const auto lo = FixedLanes<kLaneShift>(d16, xlo, k, i, shift);
  const auto hi = FixedLanes<kLaneShift>(d16, xhi, k, i + hn::Lanes(d16), shift);
  if constexpr (kExceptions == 1) {
    // One exception: PackBlocksU8Except (on AVX-512 a masked pack, without
    // a byte blend after it). bench: BM_QuantScale<true>/C:256/HW:784/nhwc:1.
    return PackBlocksU8Except(d16, lo, hi, x, k.E0X(d8, i), k.E0Y(d8, i));
  }
  return FixedExceptions<kExceptions>(d8, x, PackBlocks<uint8_t>(d16, lo, hi), k, i);
}

// FixedScaleChunk for the chunk of `pixels` >= 8 pixels C bytes apart, each
// group of four loaded before the group before it is stored: where the
// output runs 1 to 4 pixels ahead of the input modulo 4 KiB, a pixel's load
// otherwise waits on an earlier pixel's store by their low 12 address bits
// (4K aliasing); grouped, such calls run as fast as with the output
// elsewhere. bench: BM_QuantScale<true>/C:64/HW:3136/nhwc:1.
template <int kExceptions, bool kLaneShift, class Params>
HWY_INLINE void FixedScalePixelsAhead(const uint8_t* s, uint8_t* d, size_t C, size_t pixels,
                                      const Params& k, size_t i, int shift) {
  const hn::ScalableTag<uint8_t> d8;
  auto x0 = hn::LoadU(d8, s), x1 = hn::LoadU(d8, s + C);
  auto x2 = hn::LoadU(d8, s + 2 * C), x3 = hn::LoadU(d8, s + 3 * C);
  size_t r = 0;
  for (; r + 8 <= pixels; r += 4) {
    const uint8_t* next = s + (r + 4) * C;
    const auto y0 = hn::LoadU(d8, next), y1 = hn::LoadU(d8, next + C);
    const auto y2 = hn::LoadU(d8, next + 2 * C), y3 = hn::LoadU(d8, next + 3 * C);
    uint8_t* out = d + r * C;
    hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x0, k, i, shift), d8, out);
    hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x1, k, i, shift), d8, out + C);
    hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x2, k, i, shift), d8, out + 2 * C);
    hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x3, k, i, shift), d8, out + 3 * C);
    x0 = y0;
    x1 = y1;
    x2 = y2;
    x3 = y3;
  }
  uint8_t* out = d + r * C;
  hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x0, k, i, shift), d8, out);
  hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x1, k, i, shift), d8, out + C);
  hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x2, k, i, shift), d8, out + 2 * C);
  hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(x3, k, i, shift), d8, out + 3 * C);
  for (r += 4; r < pixels; ++r) {
    hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(hn::LoadU(d8, s + r * C), k, i, shift),
               d8, d + r * C);
  }
}
#endif

// 2 * Lanes(int16) bytes s -> d (may be the same), constants at offset i.
template <int kExceptions, bool kLaneShift, class Params>
HWY_INLINE void FixedScaleChunk(const uint8_t* s, uint8_t* d, const Params& k, size_t i,
                                int shift) {
#if SYNETK_HAS_BLOCK_PACKS
  const hn::ScalableTag<uint8_t> d8;
  hn::StoreU(FixedScaleBytes<kExceptions, kLaneShift>(hn::LoadU(d8, s), k, i, shift), d8, d);
#else
  const hn::ScalableTag<int16_t> d16;
  const size_t N16 = hn::Lanes(d16);
  const hn::Rebind<uint8_t, decltype(d16)> d8;
  for (size_t h = 0; h < 2 * N16; h += N16) {
    const auto x = hn::LoadU(d8, s + h);
    const auto xc = CenteredLanes(d16, hn::PromoteTo(d16, x));
    const auto y = hn::DemoteTo(d8, FixedLanes<kLaneShift>(d16, xc, k, i + h, shift));
    hn::StoreU(FixedExceptions<kExceptions>(d8, x, y, k, i + h), d8, d + h);
  }
#endif
}

// The bytes of a chunk's two int16 vectors in the kernel's order: x86 packs
// per 128-bit block (lanes in FixedLaneChannel order come out in channel
// order), other targets narrow each half.
template <class D16>
HWY_INLINE hn::Vec<hn::Repartition<uint8_t, D16>> FixedChunkBytes(D16 d16, hn::Vec<D16> lo,
                                                                  hn::Vec<D16> hi) {
  (void)d16;
#if SYNETK_HAS_BLOCK_PACKS
  return PackBlocks<uint8_t>(d16, lo, hi);
#elif !SYNETK_HAS_MULTI_LANE  // never plans (ScaleFixed), and has no Combine
  (void)hi;
  return hn::DemoteTo(hn::Rebind<uint8_t, D16>(), lo);
#else
  const hn::Rebind<uint8_t, D16> d8h;
  return hn::Combine(hn::Repartition<uint8_t, D16>(), hn::DemoteTo(d8h, hi),
                     hn::DemoteTo(d8h, lo));
#endif
}

// For every input x, which channels of a chunk (bit j: channel j of the
// chunk) the plans with B and with B + 1 miss: bits0[x], bits1[x]. The plans
// run as in the kernel, the per-lane shift as MulHigh by 2^(16 - s) (exact).
template <class D16>
HWY_INLINE void FixedChunkMisses(D16 d16, const int16_t* m, const int16_t* b, const int16_t* pw,
                                 const uint8_t* map, size_t W, uint64_t* bits0, uint64_t* bits1) {
  const hn::Repartition<uint8_t, D16> d8;
  const size_t N16 = hn::Lanes(d16);
  const auto Mlo = hn::Load(d16, m), Mhi = hn::Load(d16, m + N16);
  const auto Plo = hn::Load(d16, pw), Phi = hn::Load(d16, pw + N16);
  const auto B0lo = hn::Load(d16, b), B0hi = hn::Load(d16, b + N16);
  const auto one = hn::Set(d16, 1);
  const auto B1lo = hn::Add(B0lo, one), B1hi = hn::Add(B0hi, one);
  HWY_ALIGN uint8_t mask[kScaleFixedW / 8];
  for (size_t x = 0; x < 256; ++x) {
    const auto xc = hn::Set(d16, static_cast<int16_t>((static_cast<int>(x) - 128) * 256));
    const auto glo = hn::MulHigh(xc, Mlo), ghi = hn::MulHigh(xc, Mhi);
    const auto want = hn::Load(d8, map + x * W);
    const auto y0 = FixedChunkBytes(d16, hn::MulHigh(hn::SaturatedAdd(glo, B0lo), Plo),
                                    hn::MulHigh(hn::SaturatedAdd(ghi, B0hi), Phi));
    const auto y1 = FixedChunkBytes(d16, hn::MulHigh(hn::SaturatedAdd(glo, B1lo), Plo),
                                    hn::MulHigh(hn::SaturatedAdd(ghi, B1hi), Phi));
    uint64_t w0 = 0, w1 = 0;
    hn::StoreMaskBits(d8, hn::Not(hn::Eq(y0, want)), mask);
    std::memcpy(&w0, mask, W / 8);
    hn::StoreMaskBits(d8, hn::Not(hn::Eq(y1, want)), mask);
    std::memcpy(&w1, mask, W / 8);
    bits0[x] = w0;
    bits1[x] = w1;
  }
}

// The misses of channel plan fc (exceptions unused) at shift s against
// want[x] over the 256 inputs x: the kernel's own line (FixedLanes), clamped
// to bytes as its narrowing does. With ys, also stores the line's bytes.
template <class D16>
HWY_INLINE size_t FixedChannelMisses(D16 d16, const FixedChannel& fc, int s, const int16_t* want,
                                     int16_t* ys = nullptr) {
  const size_t N16 = hn::Lanes(d16);
  const auto lo = hn::Zero(d16), hi = hn::Set(d16, 255);
  size_t misses = 0;
  for (size_t x = 0; x < 256; x += N16) {
    const auto xc = CenteredLanes(d16, hn::Iota(d16, static_cast<int16_t>(x)));
    const auto y = hn::Min(hn::Max(FixedLanes<false>(d16, xc, fc, 0, s), lo), hi);
    misses += hn::CountTrue(d16, hn::Ne(y, hn::Load(d16, want + x)));
    if (ys != nullptr) hn::Store(y, d16, ys + x);
  }
  return misses;
}

// A second chance for a channel whose candidates (M, B or B + 1) miss more
// than twice: M - 3..M + 3 with B - 4..B + 5 at the same shift, the first
// with the fewest misses. want: the channel's map. Leaves that plan in m, b
// and its first two misses (if it has at most two) in x0, x1; returns its
// misses. With the benchmark's parameters and scales in [-2, 2], about one
// channel in a hundred misses more than twice without bias and about one in
// five hundred after the search. NHWC patches each channel that stays
// without a plan per pixel, in scalar code, so every channel the search
// plans saves that work. bench: BM_QuantScale<false>/C:64/HW:3136/nhwc:1.
template <class D16>
HWY_INLINE size_t FixedChannelSearch(D16 d16, const int16_t* want, int s, int16_t& m, int16_t& b,
                                     uint8_t& x0, uint8_t& x1) {
  size_t best = 257;
  FixedChannel fc{};
  int16_t bestM = m, bestB = b;
  for (int M = HWY_MAX(m - 3, -32767); M <= HWY_MIN(m + 3, 32767); ++M) {
    for (int B = HWY_MAX(b - 4, -32768); B <= HWY_MIN(b + 5, 32766); ++B) {
      fc.m = static_cast<int16_t>(M);
      fc.b = static_cast<int16_t>(B);
      const size_t misses = FixedChannelMisses(d16, fc, s, want);
      if (misses < best) {
        best = misses;
        bestM = fc.m;
        bestB = fc.b;
      }
    }
  }
  m = bestM;
  b = bestB;
  if (best <= 2) {
    fc.m = m;
    fc.b = b;
    HWY_ALIGN int16_t ys[256];
    FixedChannelMisses(d16, fc, s, want, ys);
    uint8_t at[2] = {0, 0};
    size_t found = 0;
    for (size_t x = 0; x < 256 && found < best; ++x) {
      if (ys[x] != want[x]) at[found++] = static_cast<uint8_t>(x);
    }
    x0 = at[0];
    x1 = at[1];
  }
  return best;
}

// Lanes [c, c + n) of a chunk's plans: which of B and B + 1 misses fewer
// inputs (from the bits of FixedChunkMisses), its first two misses as the
// exceptions (unused ones: (0, map[0])), and the channels with more than two
// misses left without a plan; the first kScaleFixedPatches such channels
// below patchLimit keep their maps. Channels with more than searchAbove
// misses search nearby lines (FixedChannelSearch).
HWY_INLINE void FixedChunkExceptions(const uint8_t* map, size_t W, size_t c, size_t n,
                                     const uint64_t* bits0, const uint64_t* bits1,
                                     size_t patchLimit, size_t searchAbove, ScaleFixedPlans& p) {
  uint16_t count[2][kScaleFixedW] = {};
  uint8_t first[2][kScaleFixedW][2] = {};
  for (size_t x = 0; x < 256; ++x) {
    for (int j = 0; j < 2; ++j) {
      for (uint64_t w = j ? bits1[x] : bits0[x]; w != 0; w &= w - 1) {
        const size_t lane = static_cast<size_t>(hwy::Num0BitsBelowLS1Bit_Nonzero64(w));
        if (count[j][lane] < 2) first[j][lane][count[j][lane]] = static_cast<uint8_t>(x);
        ++count[j][lane];
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const int j = count[1][i] < count[0][i] ? 1 : 0;
    size_t misses = count[j][i];
    uint8_t x0 = misses >= 1 ? first[j][i][0] : 0, x1 = misses >= 2 ? first[j][i][1] : 0;
    const size_t ch = c + i;
    p.b[ch] = static_cast<int16_t>(p.b[ch] + j);
    if (misses > searchAbove && p.ok[ch]) {
      const hn::ScalableTag<int16_t> d16;
      HWY_ALIGN int16_t want[256];
      for (size_t x = 0; x < 256; ++x) want[x] = map[x * W + i];
      misses = FixedChannelSearch(d16, want, p.shift[ch], p.m[ch], p.b[ch], x0, x1);
    }
    p.e0x[ch] = x0;
    p.e0y[ch] = map[x0 * W + i];
    p.e1x[ch] = x1;
    p.e1y[ch] = map[x1 * W + i];
    p.ok[ch] = p.ok[ch] && misses <= 2;
    p.exceptions[ch] = static_cast<uint8_t>(HWY_MIN(misses, size_t{2}));
    if (p.ok[ch] || ch >= patchLimit) continue;
    if (p.failed < kScaleFixedPatches) {
      p.patchC[p.failed] = ch;
      for (size_t x = 0; x < 256; ++x) p.patchMap[p.failed][x] = map[x * W + i];
    }
    ++p.failed;
  }
}

// Plans every channel of the call into p (natural channel order). Channels
// below patchLimit without a plan are counted, and the first
// kScaleFixedPatches keep their maps (NHWC fixes them up per pixel).
// Channels with two exceptions search nearby lines too (FixedChunkExceptions'
// searchAbove 1), since one such channel makes its NHWC chunk blend two per
// vector: a context keeps its plans for every later call, so the search is
// paid once per parameter set (a stateless call plans only when it is long). bench: BM_QuantScale<true>/C:256/HW:784/nhwc:1.
template <bool kHasBias, bool kClamp4>
HWY_NOINLINE void PlanScaleFixed(const detail::ScaleArgs& a, const ScaleParams& k,
                                 const QuantizeParams& q, size_t patchLimit, ScaleFixedPlans& p) {
  constexpr size_t searchAbove = 1;
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t N = hn::Lanes(df), N16 = hn::Lanes(hn::ScalableTag<int16_t>()), W = 2 * N16;
  const size_t C = a.channels, Cpad = (C + W - 1) / W * W;
  // Candidates from the real line y = floor(slope * (x - 128) + centre): the
  // largest s that keeps M within int16; B or B + 1.
  const double ss = k.srcScale, inv = k.invDstScale;
  for (size_t c = 0; c < Cpad; ++c) {
    double slope = 0.0, centre = 0.0;
    if (c < C) {
      const double sc = a.scale[c], bi = kHasBias ? a.bias[c] : 0.0;
      slope = ss * sc * inv;
      centre = (static_cast<double>(128 - k.srcZero) * ss * sc + bi) * inv + a.dstZero + 0.5;
    }
    // false for NaN and infinities; |slope| < 32 keeps s >= 2 (P in int16)
    const bool ok = c < C && std::fabs(slope) < 31.99 && std::fabs(centre) < 1e6;
    int sh = kScaleFixedMaxShift;
    if (ok && slope != 0.0) sh = HWY_MIN(sh, std::ilogb(127.99 / std::fabs(slope)));
    const double unit = static_cast<double>(1 << sh);
    const double b = std::floor(centre * unit);
    p.m[c] = ok ? static_cast<int16_t>(std::nearbyint(slope * 256.0 * unit)) : 0;
    p.b[c] = ok ? static_cast<int16_t>(HWY_MIN(HWY_MAX(b, -32768.0), 32766.0)) : 0;
    p.p[c] = static_cast<int16_t>(1 << (16 - sh));
    p.shift[c] = sh;
    p.ok[c] = ok;
  }
  // The maps, a chunk of W channels at a time: map[x * W + lane], by the
  // call's own fp32 variant (never NaN here: ScaleFixed), so the same bytes.
  HWY_ALIGN float u[256];
  ScaleSourceTable(k, u);
  HWY_ALIGN uint8_t map[256 * kScaleFixedW];
  HWY_ALIGN float scb[kScaleFixedW], bib[kScaleFixedW];
  HWY_ALIGN int16_t lm[kScaleFixedW], lb[kScaleFixedW], lp[kScaleFixedW];  // lane order
  uint64_t bits0[256], bits1[256];
  p.failed = 0;
  for (size_t c0 = 0; c0 < C; c0 += W) {
    for (size_t i = 0; i < W; ++i) {
      scb[i] = c0 + i < C ? a.scale[c0 + i] : 0.0f;
      bib[i] = kHasBias && c0 + i < C ? a.bias[c0 + i] : 0.0f;
    }
    FixedLaneConstants(p, c0, N16, lm, lb, lp);
    const auto sc0 = hn::Load(df, scb), sc1 = hn::Load(df, scb + N);
    const auto sc2 = hn::Load(df, scb + 2 * N), sc3 = hn::Load(df, scb + 3 * N);
    const auto bi0 = hn::Load(df, bib), bi1 = hn::Load(df, bib + N);
    const auto bi2 = hn::Load(df, bib + 2 * N), bi3 = hn::Load(df, bib + 3 * N);
    for (size_t x = 0; x < 256; ++x) {  // 4 * N = W
      const auto t = hn::Set(df, u[x]);
      StoreQ4(di, ScaleFinish<kHasBias, false, kClamp4>(df, t, sc0, bi0, k, q),
              ScaleFinish<kHasBias, false, kClamp4>(df, t, sc1, bi1, k, q),
              ScaleFinish<kHasBias, false, kClamp4>(df, t, sc2, bi2, k, q),
              ScaleFinish<kHasBias, false, kClamp4>(df, t, sc3, bi3, k, q), map + x * W);
    }
    FixedChunkMisses(hn::ScalableTag<int16_t>(), lm, lb, lp, map, W, bits0, bits1);
    FixedChunkExceptions(map, W, c0, HWY_MIN(W, C - c0), bits0, bits1, patchLimit, searchAbove, p);
  }
  p.laneChannels = C / W * W;
  FixedNhwcChunkConstants(p, p.laneChannels, p.laneM, p.laneB, p.laneP, p.chunkShift,
                          p.chunkExceptions);
  p.lanePlanless = 0;
  for (size_t c = 0; c < p.laneChannels; ++c) p.lanePlanless += p.ok[c] ? 0 : 1;
  p.laneLayout = FixedLaneLayout();
}

// How many channels below Cf have no plan (they are p's first patches:
// PlanScaleFixed lists them in channel order); false where more than
// kScaleFixedPatches do.
HWY_INLINE bool ScalePatchesBelow(const ScaleFixedPlans& p, size_t Cf, size_t& patches) {
  size_t failed = 0;
  if (Cf == p.laneChannels) {  // counted when planned
    failed = p.lanePlanless;
  } else {
    for (size_t c = 0; c < Cf; ++c) failed += p.ok[c] ? 0 : 1;
  }
  patches = failed;
  return failed <= kScaleFixedPatches;
}

// NCHW without byte tables, row by row: channels with a plan in p in fixed
// point (blending only the exceptions a channel has), the others (all of
// them without p) in the fp32 formula.
template <bool kHasBias, bool kNaN, bool kClamp4>
HWY_INLINE void ScaleNchwRows(const detail::ScaleArgs& a, const ScaleParams& k,
                              const QuantizeParams& q, const ScaleFixedPlans* plans) {
  const hn::ScalableTag<float> df;
  const size_t W = 2 * hn::Lanes(hn::ScalableTag<int16_t>());
  // Locals: stores through dst (uint8_t) could alias the fields of a and p.
  const float* const scale = a.scale;
  const float* const bias = a.bias;
  const size_t C = a.channels, S = a.spatial, len = a.sEnd - a.sBegin;
  const uint8_t* const src0 = a.src + a.sBegin;
  uint8_t* const dst0 = a.dst + a.sBegin;
  for (size_t c = 0; c < C; ++c) {
    const uint8_t* src = src0 + c * S;
    uint8_t* dst = dst0 + c * S;
    if (plans == nullptr || !plans->ok[c]) {
      ScaleRow<kHasBias, kNaN, kClamp4>(df, src, len, hn::Set(df, scale[c]),
                                        hn::Set(df, kHasBias ? bias[c] : 0.0f), k, q, dst);
      continue;
    }
    const ScaleFixedPlans& p = *plans;
    const FixedChannel fc{p.m[c], p.b[c], p.e0x[c], p.e0y[c], p.e1x[c], p.e1y[c]};
    const int shift = p.shift[c];
    const auto row = [&](auto exceptions) HWY_ATTR {
      constexpr int kExceptions = decltype(exceptions)::value;
      size_t i = 0;
      for (; i + W <= len; i += W) {
        FixedScaleChunk<kExceptions, false>(src + i, dst + i, fc, 0, shift);
      }
      if (i < len) {
        HWY_ALIGN uint8_t buf[kScaleFixedW] = {};
        CopyBytesPartial(src + i, buf, len - i);
        FixedScaleChunk<kExceptions, false>(buf, buf, fc, 0, shift);
        CopyBytesPartial(buf, dst + i, len - i);
      }
    };
    if (p.exceptions[c] == 0) {
      row(std::integral_constant<int, 0>());
    } else if (p.exceptions[c] == 1) {
      row(std::integral_constant<int, 1>());
    } else {
      row(std::integral_constant<int, 2>());
    }
  }
}

// NHWC: channels [0, Cf) (whole chunks) in fixed point, per lane; the rest of
// each pixel in fp32; channels without a plan (the first `patches` of p.patchC) from their
// maps, by the bytes read before the pixel is written (in place works).
template <bool kHasBias, bool kNaN, bool kClamp4>
HWY_NOINLINE void ScaleNhwcFixed(const detail::ScaleArgs& a, const ScaleParams& k,
                                 const QuantizeParams& q, const ScaleFixedPlans& p, size_t Cf,
                                 size_t patches) {
  const hn::ScalableTag<float> df;
  const size_t N16 = hn::Lanes(hn::ScalableTag<int16_t>()), W = 2 * N16;
  // The constants in the chunks' lane order, in locals (which the byte
  // stores cannot alias, so that a group's loads are shared): copied from
  // the plans where they hold this target's, instead of computing them per
  // call (FixedNhwcChunkConstants), a fixed cost that small calls notice.
  HWY_ALIGN int16_t km[kScaleFixedMaxC], kb[kScaleFixedMaxC], kp[kScaleFixedMaxC];
  HWY_ALIGN uint8_t ke[4][kScaleFixedMaxC];
  int8_t ks[kScaleFixedMaxC];   // per chunk: the shared shift, or -1
  uint8_t kx[kScaleFixedMaxC];  // per chunk: the exceptions to blend
  if (p.laneLayout == FixedLaneLayout() && Cf <= p.laneChannels) {
    std::memcpy(km, p.laneM, Cf * sizeof(int16_t));
    std::memcpy(kb, p.laneB, Cf * sizeof(int16_t));
    std::memcpy(kp, p.laneP, Cf * sizeof(int16_t));
    std::memcpy(ks, p.chunkShift, Cf);
    std::memcpy(kx, p.chunkExceptions, Cf);
  } else {
    FixedNhwcChunkConstants(p, Cf, km, kb, kp, ks, kx);
  }
  if constexpr (kScaleLaneCounts) {
    // P = 2^(16 - s) -> s (FixedLanes), in the chunks that shift per lane
    // only: the others never read P.
    for (size_t c0 = 0; c0 < Cf; c0 += W) {
      if (ks[c0] >= 0) continue;
      for (size_t c = c0; c < c0 + W; ++c) {
        const uint32_t pw = static_cast<uint32_t>(kp[c]);
        kp[c] = static_cast<int16_t>(16 - static_cast<int>(hwy::Num0BitsBelowLS1Bit_Nonzero32(pw)));
      }
    }
  }
  std::memcpy(ke[0], p.e0x, Cf);
  std::memcpy(ke[1], p.e0y, Cf);
  std::memcpy(ke[2], p.e1x, Cf);
  std::memcpy(ke[3], p.e1y, Cf);
  const FixedLaneArrays arr{km, kb, kp, ke[0], ke[1], ke[2], ke[3]};
  size_t patchC[kScaleFixedPatches];
  for (size_t j = 0; j < patches; ++j) patchC[j] = p.patchC[j];
  const float* const scale = a.scale;
  const float* const bias = a.bias;
  const size_t C = a.channels;
  const uint8_t* const src = a.src + a.sBegin * C;
  uint8_t* const dst = a.dst + a.sBegin * C;
  const size_t pixels = a.sEnd - a.sBegin;
  // Whether a pixel's store lies 1 to 4 pixels ahead of the input by the
  // low 12 address bits (within a chunk's W bytes), so that a later pixel's
  // load would wait on it (4K aliasing): FixedScalePixelsAhead.
  const size_t gap = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) % 4096;
  [[maybe_unused]] const bool ahead = gap + W > C && gap < 4 * C + W;
  // Blocks of pixels, chunk by chunk: a chunk's constant vectors (eight, ten
  // with P) stay in registers for the block's pixels, and the blends run only
  // as many exceptions as the chunk's channels use.
  const size_t block = HWY_MIN(kScaleNhwcBlockPixels, HWY_MAX(size_t{1}, kScaleNhwcBlockBytes / C));
  // Captures by value (pointers to the arrays), as the other hot lambdas do:
  // byte stores may alias anything a reference reaches, which the compiler
  // would reload after every store. bench: BM_QuantScale<false>/C:64/HW:3136/nhwc:1.
  const int8_t* const shifts = ks;
  const uint8_t* const chunkExceptions = kx;
  const size_t* const patchAt = patchC;
  const ScaleFixedPlans* const plans = &p;
  for (size_t i0 = 0; i0 < pixels; i0 += block) {
    const size_t g = HWY_MIN(block, pixels - i0);
    const uint8_t* s = src + i0 * C;
    uint8_t* d = dst + i0 * C;
    uint8_t saved[kScaleNhwcBlockPixels][kScaleFixedPatches];
    for (size_t j = 0; j < patches; ++j) {
      for (size_t r = 0; r < g; ++r) saved[r][j] = s[r * C + patchAt[j]];
    }
    for (size_t c = 0; c < Cf; c += W) {
      const int shift = shifts[c];
      const auto pixelsOf = [=](auto exceptions, auto laneShift) HWY_ATTR {
        constexpr int kExceptions = decltype(exceptions)::value;
        constexpr bool kLaneShift = decltype(laneShift)::value;
#if SYNETK_HAS_BLOCK_PACKS
        if (ahead && g >= 8) {
          FixedScalePixelsAhead<kExceptions, kLaneShift>(s + c, d + c, C, g, arr, c, shift);
          return;
        }
#endif
        for (size_t r = 0; r < g; ++r) {
          FixedScaleChunk<kExceptions, kLaneShift>(s + r * C + c, d + r * C + c, arr, c, shift);
        }
      };
      const auto withShift = [&](auto exceptions) HWY_ATTR {
        if (shift >= 0) {
          pixelsOf(exceptions, std::false_type());
        } else {
          pixelsOf(exceptions, std::true_type());
        }
      };
      if (chunkExceptions[c] == 0) {
        withShift(std::integral_constant<int, 0>());
      } else if (chunkExceptions[c] == 1) {
        withShift(std::integral_constant<int, 1>());
      } else {
        withShift(std::integral_constant<int, 2>());
      }
    }
    if (Cf < C) {
      for (size_t r = 0; r < g; ++r) {
        ScalePixel<kHasBias, kNaN, kClamp4>(df, s + r * C, d + r * C, Cf, C, scale, bias, k, q);
      }
    }
    for (size_t j = 0; j < patches; ++j) {
      for (size_t r = 0; r < g; ++r) d[r * C + patchAt[j]] = plans->patchMap[j][saved[r][j]];
    }
  }
}

// The fixed-point path where it applies and pays: returns false to leave the
// call to the fp32 (or table) kernels.
template <bool kHasBias, bool kNaN, bool kClamp4, class Format>
HWY_NOINLINE bool ScaleFixed(const detail::ScaleArgs& a, const ScaleParams& k,
                             const QuantizeParams& q) {
  constexpr bool kNhwc = std::is_same_v<Format, Nhwc>;
  // Not for NCHW where byte tables are fast.
  if constexpr (!kScalePlannable<kNaN> || (!kNhwc && kByteLookup)) {
    return false;
  } else {
    const size_t W = 2 * hn::Lanes(hn::ScalableTag<int16_t>());
    // Stored plans cost nothing to plan, so they pay at any length.
    const bool stored = a.prepared.plans != nullptr;
    const bool shortCall = a.sEnd - a.sBegin < kScaleFixedMinLen;
    if (!ScalePlanFits(a.channels)) return false;
    const size_t Cf = kNhwc ? a.channels / W * W : 0;
    if (kNhwc && Cf == 0) return false;
    // The planner's stack copy, or the context's plans (made for all
    // channels: the patches below Cf are the first of their list).
    const auto run = [&](const ScaleFixedPlans& plans) HWY_ATTR {
      if constexpr (kNhwc) {
        size_t patches = 0;
        if (!ScalePatchesBelow(plans, Cf, patches)) return false;
        ScaleNhwcFixed<kHasBias, kNaN, kClamp4>(a, k, q, plans, Cf, patches);
      } else {
        ScaleNchwRows<kHasBias, kNaN, kClamp4>(a, k, q, &plans);
      }
      return true;
    };
    if (stored) return run(*a.prepared.plans);
    // A stateless call plans for itself where that pays: only long calls
    // (kScaleFixedMinLen).
    if (shortCall) return false;
    ScaleFixedPlans plans;
    PlanScaleFixed<kHasBias, kClamp4>(a, k, q, Cf, plans);
    return run(plans);
  }
}

// NCHW: every channel's part [sBegin, sEnd) through its byte map; whole
// planes (the usual call) are one contiguous pass (MapPlanes).
HWY_INLINE void ScaleNchwMaps(const detail::ScaleArgs& a, const detail::ByteMap* maps) {
  const size_t C = a.channels, S = a.spatial, len = a.sEnd - a.sBegin;
  const uint8_t* const src = a.src + a.sBegin;
  uint8_t* const dst = a.dst + a.sBegin;
  if (len == S) return MapPlanes(maps, src, C, S, dst);
  for (size_t c = 0; c < C; ++c) MapBytes(maps[c], src + c * S, len, dst + c * S);
}

// NCHW through a QuantizedScaleContext's stored byte maps.
HWY_INLINE void ScaleNchwStoredMaps(const detail::ScaleArgs& a) {
  ScaleNchwMaps(a, a.prepared.maps);
}

// NHWC pixels of C channels where C divides four vectors (1, 2, 4, ...,
// 4 * Lanes): the pixels as one flat row of n bytes, each step's four vectors
// with the same channels in the same lanes, so their scale and bias (cyclic
// copies, built once per call) stay in registers and a small pixel costs no
// single-vector or partial store (AVX-512 stored 32-channel pixels as two
// single vectors; bench: BM_QuantVsSimd/fn:3/C:32/HW:256/nhwc:1). Returns the
// bytes done: whole steps, a whole number of pixels.
template <bool kHasBias, bool kNaN, bool kClamp4, class DF>
HWY_INLINE size_t ScaleNhwcFlat(DF df, const uint8_t* src, uint8_t* dst, size_t n, size_t C,
                                const float* scale, const float* bias, ScaleParams k,
                                QuantizeParams q, size_t pfEnd) {
  const hn::RebindToSigned<DF> di;
  const size_t N = hn::Lanes(df);
  HWY_ALIGN float cyc[2][4 * kMaxLanes<float>];
  for (size_t i = 0; i < 4 * N; ++i) {
    cyc[0][i] = scale[i % C];
    cyc[1][i] = kHasBias ? bias[i % C] : 0.0f;
  }
  const auto sc0 = hn::Load(df, cyc[0]), sc1 = hn::Load(df, cyc[0] + N);
  const auto sc2 = hn::Load(df, cyc[0] + 2 * N), sc3 = hn::Load(df, cyc[0] + 3 * N);
  const auto bi0 = hn::Load(df, cyc[1]), bi1 = hn::Load(df, cyc[1] + N);
  const auto bi2 = hn::Load(df, cyc[1] + 2 * N), bi3 = hn::Load(df, cyc[1] + 3 * N);
  const auto at = [&](size_t i, hn::Vec<DF> sc, hn::Vec<DF> bi) HWY_ATTR {
    return ScaleValues<kHasBias, kNaN, kClamp4>(df, LoadQ(di, src + i), sc, bi, k, q);
  };
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    PrefetchAheadLines(src, i, 4 * N, pfEnd);
    StoreQ4(di, at(i, sc0, bi0), at(i + N, sc1, bi1), at(i + 2 * N, sc2, bi2),
            at(i + 3 * N, sc3, bi3), dst + i);
  }
  return i;
}

// NHWC in the fp32 formula, pixel by pixel (after ScaleNhwcFlat's steps
// where C divides four vectors).
template <bool kHasBias, bool kNaN, bool kClamp4>
HWY_INLINE void ScaleNhwc(const detail::ScaleArgs& a, const ScaleParams& k,
                          const QuantizeParams& q) {
  const hn::ScalableTag<float> df;
  // Locals: stores through dst (uint8_t) could alias the fields of a.
  const float* const scale = a.scale;
  const float* const bias = a.bias;
  const size_t C = a.channels;
  const uint8_t* const src = a.src + a.sBegin * C;
  uint8_t* const dst = a.dst + a.sBegin * C;
  const size_t n = (a.sEnd - a.sBegin) * C, pfEnd = PrefetchBound(n, detail::PrefetchCall(2 * n));
  size_t done = 0;
  if constexpr (SYNETK_HAS_MULTI_LANE) {
    if ((4 * hn::Lanes(df)) % C == 0) {
      done = ScaleNhwcFlat<kHasBias, kNaN, kClamp4>(df, src, dst, n, C, scale, bias, k, q, pfEnd);
    }
  }
  for (size_t i = done; i < n; i += C) {
    PrefetchAheadLines(src, i, C, pfEnd);
    ScalePixel<kHasBias, kNaN, kClamp4>(df, src + i, dst + i, 0, C, scale, bias, k, q);
  }
}

template <class Cfg>
void ScaleKernel(const detail::ScaleArgs& a) {
  constexpr bool kBias = Cfg::hasBias;
  const QuantizeParams q = MakeQuantize(a.dstZero, 0, 255);
  const ScaleParams k{a.srcZero, a.srcScale, a.invDstScale};
  WithScaleMode(ScaleModeFor<kBias>(a, k), [&](auto nan, auto clamp) HWY_ATTR {
    constexpr bool kNaN = decltype(nan)::value, kClamp = decltype(clamp)::value;
    if (ScaleFixed<kBias, kNaN, kClamp, typename Cfg::Fmt>(a, k, q)) return;
    if constexpr (std::is_same_v<typename Cfg::Fmt, Nchw>) {
      if (kByteLookup && a.prepared.maps != nullptr) {
        ScaleNchwStoredMaps(a);
      } else if (kByteLookup && a.sEnd - a.sBegin >= kTableMinBytes) {
        ScaleNchwTables<kBias, kNaN, kClamp>(a, k, q);
      } else {
        ScaleNchwRows<kBias, kNaN, kClamp>(a, k, q, nullptr);
      }
    } else {
      ScaleNhwc<kBias, kNaN, kClamp>(a, k, q);
    }
  });
}

// A QuantizedScaleContext's work done once: every channel's byte map (the
// fp32 formula's bytes, by the same vector code as ScaleTable) into maps[C]
// (unless null) and, where this target can plan and no lane can be NaN, every channel's
// fixed-point plan into plans (channels without one all listed as patches,
// up to kScaleFixedPatches). Returns whether plans were written.
template <class Cfg>
bool ScalePrepareKernel(const detail::ScaleArgs& a, detail::ByteMap* maps,
                        ScaleFixedPlans* plans) {
  constexpr bool kBias = Cfg::hasBias;
  const QuantizeParams q = MakeQuantize(a.dstZero, 0, 255);
  const ScaleParams k{a.srcZero, a.srcScale, a.invDstScale};
  bool planned = false;
  WithScaleMode(ScaleModeFor<kBias>(a, k), [&](auto nan, auto clamp) HWY_ATTR {
    constexpr bool kNaN = decltype(nan)::value, kClamp = decltype(clamp)::value;
    if (maps != nullptr) ScaleChannelTables<kBias, kNaN, kClamp>(a, k, q, maps);
    if constexpr (kScalePlannable<kNaN>) {
      if (!ScalePlanFits(a.channels)) return;
      PlanScaleFixed<kBias, kClamp>(a, k, q, a.channels, *plans);
      planned = true;
    }
  });
  return planned;
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

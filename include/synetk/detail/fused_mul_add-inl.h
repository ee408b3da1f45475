// Copyright synetk authors. SPDX-License-Identifier: MIT
// FusedMulAdd(df, a, b, c): a * b + c in fp32 rounded once, as IEEE 754's
// fusedMultiplyAdd and std::fma, with the same bits on every target. The
// quantized layers need it because the original library computes
// QuantizedScale's x * scale + bias as an FMA, and a rounded product can
// move a byte across a rounding tie.
// - Targets with an FMA instruction (HWY_NATIVE_FMA): Highway's MulAdd.
// - Other targets with fp64 lanes: FusedMulAddGeneric, exact through fp64.
// - The rest (fp32-only targets without FMA): std::fma per lane.

#if defined(SYNETK_DETAIL_FUSED_MUL_ADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_FUSED_MUL_ADD_INL_H_
#undef SYNETK_DETAIL_FUSED_MUL_ADD_INL_H_
#else
#define SYNETK_DETAIL_FUSED_MUL_ADD_INL_H_
#endif

#include <cmath>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// std::fma lane by lane: the body for targets without FMA or fp64 lanes,
// and for one-lane vectors.
template <class DF>
HWY_INLINE hn::Vec<DF> FusedMulAddLanes(DF df, hn::Vec<DF> a, hn::Vec<DF> b, hn::Vec<DF> c) {
  HWY_ALIGN float x[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float y[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float z[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(a, df, x);
  hn::Store(b, df, y);
  hn::Store(c, df, z);
  for (size_t i = 0; i < hn::Lanes(df); ++i) x[i] = std::fma(x[i], y[i], z[i]);
  return hn::Load(df, x);
}

#if HWY_HAVE_FLOAT64
// a * b + c for fp32 values held in fp64 lanes, rounded to odd: a * b is
// exact in fp64 (48 significant bits), the sum s = RN(p + c) and its error
// (TwoSum) are exact, and an inexact s with an even last bit moves one ulp
// towards the true sum. Rounding a round-to-odd fp64 value to fp32 gives the
// correctly rounded result (fp64 has more than fp32's 24 + 2 bits), so no
// double rounding occurs. NaN and infinite sums pass through unchanged.
template <class DD>
HWY_INLINE hn::Vec<DD> MulAddRoundToOdd(DD dd, hn::Vec<DD> a, hn::Vec<DD> b, hn::Vec<DD> c) {
  const hn::RebindToSigned<DD> di;
  const auto p = hn::Mul(a, b);
  const auto s = hn::Add(p, c);
  const auto bb = hn::Sub(s, p);
  const auto err = hn::Add(hn::Sub(p, hn::Sub(s, bb)), hn::Sub(c, bb));
  const auto zero = hn::Zero(dd);
  const auto bits = hn::BitCast(di, s);
  const auto even = hn::RebindMask(dd, hn::Eq(hn::And(bits, hn::Set(di, 1)), hn::Zero(di)));
  const auto inexact = hn::Gt(hn::Abs(err), zero);  // false for NaN
  // |true sum| > |s| when err has the sign of s: the odd neighbour is away
  // from zero (bits + 1), else towards it (bits - 1).
  const auto away = hn::RebindMask(di, hn::Gt(hn::Mul(s, err), zero));
  const auto step = hn::IfThenElse(away, hn::Set(di, 1), hn::Set(di, -1));
  const auto moved = hn::BitCast(dd, hn::Add(bits, step));
  return hn::IfThenElse(hn::And(inexact, even), moved, s);
}

// a * b + c rounded once, through fp64 lanes (vectors of two or more lanes).
// SCALAR has no vector halves: one lane goes through std::fma.
template <class DF>
HWY_INLINE hn::Vec<DF> FusedMulAddGeneric(DF df, hn::Vec<DF> a, hn::Vec<DF> b, hn::Vec<DF> c) {
#if HWY_TARGET == HWY_SCALAR
  return FusedMulAddLanes(df, a, b, c);
#else
  if constexpr (hn::MaxLanes(DF()) < 2) {
    return FusedMulAddLanes(df, a, b, c);
  } else {
    const hn::Half<DF> dh;
    const hn::Rebind<double, decltype(dh)> dd;
    const auto lo = MulAddRoundToOdd(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, a)),
                                     hn::PromoteTo(dd, hn::LowerHalf(dh, b)),
                                     hn::PromoteTo(dd, hn::LowerHalf(dh, c)));
    const auto hi = MulAddRoundToOdd(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, a)),
                                     hn::PromoteTo(dd, hn::UpperHalf(dh, b)),
                                     hn::PromoteTo(dd, hn::UpperHalf(dh, c)));
    return hn::Combine(df, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
  }
#endif
}
#endif  // HWY_HAVE_FLOAT64

template <class DF>
HWY_INLINE hn::Vec<DF> FusedMulAdd(DF df, hn::Vec<DF> a, hn::Vec<DF> b, hn::Vec<DF> c) {
#if HWY_NATIVE_FMA
  (void)df;
  return hn::MulAdd(a, b, c);
#elif HWY_HAVE_FLOAT64
  return FusedMulAddGeneric(df, a, b, c);
#else
  return FusedMulAddLanes(df, a, b, c);
#endif
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling's lane primitive: a window's tap from two vectors (PoolShiftIn),
// and kPoolPairsTwoAtOnce. PoolShiftIn has a generic body
// (the ...Generic functions, compiled for every target) beside the
// per-target ones, which give the same lanes; tests/primitives_test.cc checks
// them against a scalar reference on every target. Re-included once per
// Highway target.

#if defined(SYNETK_DETAIL_POOL_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_POOL_OPS_INL_H_
#undef SYNETK_DETAIL_POOL_OPS_INL_H_
#else
#define SYNETK_DETAIL_POOL_OPS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/elements-inl.h"
#include "synetk/detail/two_tables-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- PoolShiftIn: lanes shift .. shift + N - 1 of {lo, hi} -------------------
// The generic body goes through memory (the fast path of scalable vectors,
// and of fixed ones wider than a block without a lane shift).
template <class D>
HWY_INLINE hn::Vec<D> PoolShiftInGeneric(D d, hn::Vec<D> lo, hn::Vec<D> hi, size_t shift) {
  const size_t N = hn::Lanes(d);
  HWY_ALIGN hn::TFromD<D> buf[2 * kMaxLanes<hn::TFromD<D>>];
  hn::Store(lo, d, buf);
  hn::Store(hi, d, buf + N);
  return hn::LoadU(d, buf + shift);
}

// Lanes kShift .. kShift + N - 1 of the concatenation {lo, hi} (lo's lanes
// first), for 0 <= kShift <= N on targets of fixed width: a window's tap k
// from two aligned loads instead of one unaligned load per tap (on AVX-512
// every unaligned load splits a cache line).
template <size_t kShift, class D>
HWY_INLINE hn::Vec<D> PoolShiftIn(D d, hn::Vec<D> lo, hn::Vec<D> hi) {
  constexpr size_t kN = hn::MaxLanes(D());
  static_assert(kShift <= kN, "a shift within two vectors");
  if constexpr (kShift == 0) {
    (void)d;
    (void)hi;
    return lo;
  } else if constexpr (kShift == kN) {
    (void)d;
    (void)lo;
    return hi;
  } else {
    constexpr int kBytes = static_cast<int>(kShift * sizeof(hn::TFromD<D>));
    const hn::Repartition<uint8_t, D> d8;
    const auto l8 = hn::BitCast(d8, lo), h8 = hn::BitCast(d8, hi);
#if SYNETK_HAS_AVX512
    if constexpr (kBytes % 4 == 0) {  // whole 32-bit lanes: one valignd
      return hn::BitCast(d, hn::Vec512<uint8_t>{_mm512_alignr_epi32(h8.raw, l8.raw, kBytes / 4)});
    } else {
      // The 16-byte blocks kBytes / 16 and the next of {lo, hi}, then bytes
      // within each block.
      constexpr int kBlock = kBytes / 16;
      const __m512i a = kBlock == 0 ? l8.raw : _mm512_alignr_epi32(h8.raw, l8.raw, 4 * kBlock);
      const __m512i c = kBlock == 3 ? h8.raw : _mm512_alignr_epi32(h8.raw, l8.raw, 4 * kBlock + 4);
      return hn::BitCast(d, hn::Vec512<uint8_t>{_mm512_alignr_epi8(c, a, kBytes % 16)});
    }
#elif SYNETK_IS_X86_AVX2
    const auto mid = hn::ConcatLowerUpper(d8, h8, l8);  // {lo's upper block, hi's lower}
    const auto a = kBytes < 16 ? l8 : mid;
    const auto c = kBytes < 16 ? mid : h8;
    if constexpr (kBytes % 16 == 0) return hn::BitCast(d, a);
    return hn::BitCast(d, hn::CombineShiftRightBytes<kBytes % 16>(d8, c, a));
#elif SYNETK_HAS_MULTI_LANE  // (one lane: shifts are 0 or 1)
    if constexpr (kN * sizeof(hn::TFromD<D>) == 16) {  // one block: SSE, NEON, EMU128
      return hn::BitCast(d, hn::CombineShiftRightBytes<kBytes>(d8, h8, l8));
    } else {
      return PoolShiftInGeneric(d, lo, hi, kShift);
    }
#else
    (void)l8;
    (void)h8;
    return PoolShiftInGeneric(d, lo, hi, kShift);
#endif
  }
}

// NCHW 2x2 pooling of 16/32-bit rows of at most N columns takes two row
// pairs per vector through two TwoTables (vpermt2w / vpermt2d) on
// AVX-512; elsewhere one pair per vector is as fast. bench:
// BM_Pooling<hwy::bfloat16_t>/avg:0/C:256/HW:28/k:2/s:2/p:0/nhwc:0.
inline constexpr bool kPoolPairsTwoAtOnce = SYNETK_HAS_AVX512;

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NHWC (per target), few channels and strideX >= 2 where no
// two-table permutation serves: byte-shuffled strided rows
// (PoolRowKind::kStrided: 1-4 channels on vectors of one or two 128-bit
// blocks) and AVX2's 16-bit averages of 3-4 channels in pixel pairs
// (kPixelPairs). PoolNhwc (pooling_nhwc-inl.h) runs them.

#if defined(SYNETK_OPS_POOLING_NHWC_STRIDED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NHWC_STRIDED_INL_H_
#undef SYNETK_OPS_POOLING_NHWC_STRIDED_INL_H_
#else
#define SYNETK_OPS_POOLING_NHWC_STRIDED_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f(std::integral_constant<size_t, n>()) with n = kX for the 2- and 3-wide
// windows the strided and pixel-pair rows unroll, else n = 0 (their taps
// loop to kX): two instances each, not PoolWithTapCount's seven.
template <class F>
HWY_INLINE void PoolWithTaps23(size_t kX, const F& f) {
  if (kX == 3) {
    f(std::integral_constant<size_t, 3>());
  } else if (kX == 2) {
    f(std::integral_constant<size_t, 2>());
  } else {
    f(std::integral_constant<size_t, 0>());
  }
}

#if SYNETK_HAS_MULTI_LANE  // (no UpperHalf; not taken on 1-lane vectors)
// The keys of PoolNhwcStridedRow's max as elements' bits (16-bit floats'
// keys map back; the integers are their own).
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolKeyBits(D d, hn::Vec<D> v) {
  if constexpr (std::is_same_v<typename Ops::L, int16_t>) return Ops::Key16(d, v);
  return v;
}

// NHWC with at most 4 channels and strideX 2 to 4 where no two-table
// permutation serves the lanes (8- and 16-bit keys on AVX2, 32-bit lanes on
// 128-bit vectors), on vectors of one or two 128-bit blocks: the padded
// row's vertical step R is reduced flat, H[x] = R[x] (+) R[x + C] (+) ...
// (kX taps), and the outputs are the positions x with x % (sX*C) < C, in
// order (output (x / (sX*C))*C + x % (sX*C)). One byte shuffle moves each
// 128-bit block's outputs to its first lanes (idx, a vector per phase), and
// each block is stored whole at the next output: counts[2*phase + block] of
// its lanes are outputs, the lanes after them land on outputs written
// later. The pattern repeats every P vectors: cheaper than splitting the row
// into channel planes and interleaving them back (the planar rows). bench:
// BM_Pooling<uint8_t>/avg:0/C:3/HW:224/k:3/s:2/p:1/nhwc:1 on AVX2.
template <class Ops, size_t kTaps, class D, typename T>
HWY_NOINLINE void PoolNhwcStridedRow(D d, const typename Ops::L* HWY_RESTRICT R, size_t C,
                                     size_t kX, size_t positions, const uint8_t* idx,
                                     const uint8_t* counts, size_t P,
                                     const typename Ops::L* HWY_RESTRICT scales,
                                     typename Ops::L scale, T* HWY_RESTRICT out, size_t avail) {
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const hn::Repartition<uint8_t, D> d8;
  const hn::Half<D> dh;
  const size_t bytes = N * sizeof(L);
  const bool twoBlocks = bytes == 32;
  size_t o = 0, x = 0;
  while (x < positions) {
    for (size_t j = 0; j < P && x < positions; ++j, x += N) {
      V h = hn::LoadU(d, R + x);
      // Taps in order, as the other rows add them.
      const size_t taps = kTaps != 0 ? kTaps : kX;  // (0: kX, not unrolled)
      for (size_t k = 1; k < taps; ++k) h = Ops::Combine(h, hn::LoadU(d, R + x + k * C));
      h = hn::BitCast(d, hn::TableLookupBytes(hn::BitCast(d8, h), hn::LoadU(d8, idx + j * bytes)));
      const size_t o1 = o + counts[2 * j];
      if constexpr (sizeof(L) <= 2) {
        // Max keys (no scaling), both blocks stored at once where they fit
        // (o1 + N/2 <= o + N), converted once.
        if (twoBlocks && HWY_LIKELY(o + N <= avail)) {
          const V bits = PoolKeyBits<Ops>(d, h);
          hn::StoreU(bits, d, reinterpret_cast<L*>(out + o));
          hn::StoreU(hn::UpperHalf(dh, bits), dh, reinterpret_cast<L*>(out + o1));
          o = o1 + counts[2 * j + 1];
          continue;
        }
      }
      // Averages scale each block by its own outputs' scales: the upper
      // block is taken from h unscaled.
      V first = h;
      if constexpr (!Ops::kOrderFree) {
        first = PoolScale(d, h, scales ? hn::LoadU(d, scales + o) : hn::Set(d, scale));
      }
      PoolStoreDst<Ops>(d, first, out + o, avail - o);
      o = o1;
      // (The row's last vector counts positions past the row as outputs too:
      // past the call's last output, nothing is stored.)
      if (twoBlocks && o < avail) {
        auto u = hn::UpperHalf(dh, h);
        if constexpr (!Ops::kOrderFree) {
          u = PoolScale(dh, u, scales ? hn::LoadU(dh, scales + o) : hn::Set(dh, scale));
        }
        PoolStoreDst<Ops>(dh, u, out + o, avail - o);
        o += counts[2 * j + 1];
      }
    }
  }
}
#endif

#if SYNETK_HAS_MULTI_LANE
// NHWC bf16/f16 averages of 3 or 4 channels with strideX >= 2 on 8 fp32
// lanes (AVX2's vectors, where the planner takes it: PoolRowsPixelPairs), where a chunk of PoolNhwcPickRow holds 2 output pixels but
// takes kX two-table permutations (two vpermps and a blend each): each 128-bit
// half holds one output pixel, whose taps are 4-lane loads from the padded
// row's vertical step R (pixel p's window from R + p*sX*C on), and one
// permutation closes up 3 channels: 2 pixels per vector, as in the pick
// rows, with one vpermps in place of kX two-table permutations. bench:
// BM_Pooling<hwy::bfloat16_t>/avg:1/C:3/HW:224/k:3/s:2/p:1/nhwc:1 on AVX2.
template <class Ops, size_t kTaps, class D, typename T>
HWY_NOINLINE void PoolNhwcPixelPairRow(D d, const typename Ops::L* HWY_RESTRICT R, size_t C,
                                       size_t sX, size_t kX, size_t dstW,
                                       const typename Ops::L* HWY_RESTRICT scales,
                                       typename Ops::L scale, T* HWY_RESTRICT out,
                                       size_t avail) {
  using V = hn::Vec<D>;
  const hn::Half<D> dh;
  const size_t step = sX * C;  // from one output pixel's window to the next
  // 3 channels: lanes 0-2 and 4-6 to 0-5; 4: as they are.
  alignas(32) static constexpr int32_t kClose[2][8] = {{0, 1, 2, 4, 5, 6, 7, 7},
                                                       {0, 1, 2, 3, 4, 5, 6, 7}};
  const auto close = hn::SetTableIndices(d, kClose[C == 3 ? 0 : 1]);
  const V sc = hn::Set(d, scale);
  for (size_t p = 0; p < dstW; p += 2) {
    const typename Ops::L* r = R + p * step;
    const auto tap = [dh, d, r, step](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
      return hn::Combine(d, hn::LoadU(dh, r + step + k), hn::LoadU(dh, r + k));
    };
    V h = tap(0);
    const size_t taps = kTaps != 0 ? kTaps : kX;  // (0: kX, not unrolled)
    for (size_t k = 1; k < taps; ++k) h = Ops::Combine(h, tap(k * C));
    h = hn::TableLookupLanes(h, close);
    if constexpr (!Ops::kOrderFree) h = PoolScale(d, h, scales ? hn::LoadU(d, scales + p * C) : sc);
    // Lanes past the pixel pair land on outputs written later.
    PoolStoreDst<Ops>(d, h, out + p * C, avail - p * C);
  }
}
#endif

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NHWC (per target), rows from the row buffer R in one flat pass:
// stride-1 rows (PoolRowKind::kFlat: output element j reads R[j + k*C],
// however few channels there are) and 3-channel strided rows split into
// channel planes (kPlanar). PoolNhwc (pooling_nhwc-inl.h) runs them.

#if defined(SYNETK_OPS_POOLING_NHWC_FLAT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NHWC_FLAT_INL_H_
#undef SYNETK_OPS_POOLING_NHWC_FLAT_INL_H_
#else
#define SYNETK_OPS_POOLING_NHWC_FLAT_INL_H_
#endif

#include <cstddef>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// PoolNhwcFlatRow's pixels in pairs, with whole vectors of channels: pixel
// p + 1's window is pixel p's one pixel on (PoolWindowPair). One flat loop
// over the even pixels' `half` elements (a loop per pixel pair spent more
// on its bookkeeping than it saved). emit(j, v) for both; with kEvenOdd,
// emit(j, v, w) for the 2N elements from j, whose R holds v then w
// (PoolStackPairBF16's layout).
template <class Ops, size_t kTaps, bool kEvenOdd, class D, class Emit>
HWY_INLINE void PoolNhwcPixelPairs(D d, const typename Ops::L* HWY_RESTRICT R, size_t C,
                                   size_t half, const Emit& emit) {
  const size_t N = hn::Lanes(d), step = kEvenOdd ? 2 * N : N;
  size_t j = 0, c = 0;  // j: element of an even pixel, c: its channel
  for (size_t i = 0; i < half; i += step) {
    hn::Vec<D> first, second;
    const auto pair = [&](size_t at) HWY_ATTR SYNETK_LAMBDA_INLINE {
      PoolWindowPair<Ops, kTaps>(
          d, [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE { return hn::LoadU(d, R + at + k * C); },
          first, second);
    };
    pair(j);
    if constexpr (kEvenOdd) {
      const hn::Vec<D> first0 = first, second0 = second;
      pair(j + N);
      emit(j, first0, first);
      emit(j + C, second0, second);
    } else {
      emit(j, first);
      emit(j + C, second);
    }
    j += step;
    c += step;
    if (c == C) {  // on to the next even pixel
      c = 0;
      j += C;
    }
  }
}

// NHWC with stride 1 along W: output element j of the row reads R[j + k*C],
// so the row is one flat pass however few channels there are; with whole
// vectors of channels and 2 to 7 taps, output pixels go in pairs
// (PoolNhwcPixelPairs). Its own function: inside PoolNhwc, GCC spilled the
// tap offsets of this loop. kEvenOdd (bf16 averages, C a multiple of 2N):
// each 2N elements of R hold their block's even channels, then its odd
// ones (PoolStackPairBF16), stored as one vector of 32-bit lanes
// (StoreBF16Pair).
template <class Ops, bool kEvenOdd, class D, typename T>
HWY_NOINLINE void PoolNhwcFlatRow(D d, const typename Ops::L* HWY_RESTRICT R, size_t C,
                                  size_t kX, size_t rowOut,
                                  const typename Ops::L* HWY_RESTRICT scales,
                                  typename Ops::L scale, T* HWY_RESTRICT out, size_t avail) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  // Output element j from its window's combination v.
  const auto emit = [&](size_t j, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    // Averages: scales given with excludePad.
    v = PoolScaleAt<Ops>(d, v, scales, j, scale);
    // Lanes past the row land on outputs written later.
    PoolStoreDst<Ops>(d, v, out + j, avail - j);
  };
  // kEvenOdd: the 2N outputs from j, even channels v, odd ones w (a whole
  // block inside the pixel).
  const auto emitBlock = [&](size_t j, V v, V w) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (kEvenOdd) {
      StoreBF16Pair<true>(d, PoolScaleAt<Ops>(d, v, scales, j, scale),
                          PoolScaleAt<Ops>(d, w, scales, j + N, scale), out + j);
    } else {
      (void)j, (void)v, (void)w;
    }
  };
  size_t first = 0;  // outputs before it went in pixel pairs
  const size_t pixels = rowOut / C, half = (pixels / 2) * C;
  if (C % hn::Lanes(d) == 0 && kX >= 2 && half != 0 &&
      PoolWithTapCount(kX, [&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        // (1 tap is ruled out above; the bound keeps it compiling)
        constexpr size_t kTaps = HWY_MAX(decltype(k)::value, size_t{2});
        if constexpr (kEvenOdd) {
          PoolNhwcPixelPairs<Ops, kTaps, true>(d, R, C, half, emitBlock);
        } else {
          PoolNhwcPixelPairs<Ops, kTaps, false>(d, R, C, half, emit);
        }
      })) {
    first = 2 * half;
  }
  // The rest (an odd pixel; every pixel where no pairs apply). kEvenOdd:
  // blocks start at even multiples of N from `first`, emitted in order.
  V even = hn::Zero(d);
  PoolTaps<Ops>(
      d, kX, rowOut - first,
      [&](size_t j, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return hn::LoadU(d, R + first + j + k * C);
      },
      [&](size_t j, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
        if constexpr (kEvenOdd) {
          if ((j / N) % 2 == 0) {
            even = v;
          } else {
            emitBlock(first + j - N, even, v);
          }
        } else {
          emit(first + j, v);
        }
      });
}

// NHWC with 3 channels and strideX > 1 where PoolNhwcPickRow does not apply:
// the padded row R (identity past it) is split into 3 channel planes, each
// pooled like an NCHW row (N output pixels per vector), and the outputs
// interleaved back through outRow (3 planes of planeLen lanes, then the row)
// before one flat store pass. Its own function, so that the other NHWC paths
// do not change its code.
template <class Ops, class D, typename T>
HWY_NOINLINE void PoolNhwcPlanarRow(D d, const typename Ops::L* HWY_RESTRICT R, size_t pixels,
                                    typename Ops::L* HWY_RESTRICT planes, size_t planeLen,
                                    size_t kX, size_t sX, size_t dstW, size_t rowOut,
                                    const typename Ops::L* HWY_RESTRICT scales,
                                    typename Ops::L scale, T* HWY_RESTRICT out,
                                    size_t avail) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  typename Ops::L* outRow = planes + 3 * planeLen;
  for (size_t i = 0; i < pixels; i += N) {
    V c0, c1, c2;
    hn::LoadInterleaved3(d, R + 3 * i, c0, c1, c2);
    hn::StoreU(c0, d, planes + i);
    hn::StoreU(c1, d, planes + planeLen + i);
    hn::StoreU(c2, d, planes + 2 * planeLen + i);
  }
  for (size_t dx = 0; dx < dstW; dx += N) {
    V v0 = PoolRowStrided<Ops>(d, planes + dx * sX, 0, kX, sX);
    V v1 = PoolRowStrided<Ops>(d, planes + planeLen + dx * sX, 0, kX, sX);
    V v2 = PoolRowStrided<Ops>(d, planes + 2 * planeLen + dx * sX, 0, kX, sX);
    if constexpr (!Ops::kOrderFree) {  // average: scale by 1 / the window's area
      const V sc = scales ? hn::LoadU(d, scales + dx) : hn::Set(d, scale);
      v0 = PoolScale(d, v0, sc);
      v1 = PoolScale(d, v1, sc);
      v2 = PoolScale(d, v2, sc);
    }
    hn::StoreInterleaved3(v0, v1, v2, d, outRow + 3 * dx);
  }
  for (size_t j = 0; j < rowOut; j += N) {
    // Lanes past the row land on outputs written later.
    PoolStoreDst<Ops>(d, hn::LoadU(d, outRow + j), out + j, avail - j);
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

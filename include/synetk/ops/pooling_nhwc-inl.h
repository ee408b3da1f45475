// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NHWC (per target): flat rows (stride 1), 3-channel planar rows,
// strided and pixel-pair rows (few channels, stride >= 2, without two-table
// permutations), pick rows, the stem rows of 3-wide stride-2 windows, and
// the driver.

#if defined(SYNETK_OPS_POOLING_NHWC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NHWC_INL_H_
#undef SYNETK_OPS_POOLING_NHWC_INL_H_
#else
#define SYNETK_OPS_POOLING_NHWC_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

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

#if HWY_TARGET != HWY_SCALAR  // (no UpperHalf; not taken on 1-lane vectors)
// The keys of PoolNhwcStridedRow's max as elements' bits (16-bit floats'
// keys map back; the integers are their own).
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolKeyBits(D d, hn::Vec<D> v) {
  if constexpr (std::is_same_v<typename Ops::L, int16_t>) return Ops::Key16(d, v);
  return v;
}

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

#if SYNETK_IS_X86_AVX2
// NHWC bf16/f16 averages of 3 or 4 channels with strideX >= 2 on AVX2's 8
// fp32 lanes, where a chunk of PoolNhwcPickRow holds 2 output pixels but
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

// NHWC with few channels and strideX >= 2 (images: 3 channels), where
// kPoolHasTwoTables. Chunk c covers `step` = P*C outputs (P whole pixels,
// sX pixels apart) from the 2N lanes of the vertical step that start at its
// first window, x = c*advance - pad; one two-table permutation per tap
// (pick + k*C) gathers every output's tap k, so nothing goes through
// memory. With kRows rows at s (`stride` apart), the vertical step comes
// straight from src: chunks [c0, c1) lie inside the row; the others load the
// row's first or last 2N lanes instead, move their indices by as much, and
// take the identity element for the indices that leave those lanes (the
// padding). With kRows 0, R holds the padded row's vertical step (R[o] is
// window offset o) and every chunk reads it. One call does `count` output
// rows, srcStep input elements apart (count 1 with R): a call per row pays
// the call's setup and its caller's bookkeeping for every row. (Splitting
// the row into channel planes and interleaving the outputs back, or a flat
// pass over R and then one permutation, store the row and read it back at
// other offsets, which costs as much as the rest.) bench:
// BM_Pooling<uint8_t>/avg:0/C:3/HW:224/k:3/s:2/p:1/nhwc:1.
// With kCarry (3-wide windows of stride 2, where PoolNhwc finds that it
// pays), output p's tap 0 is output p - 1's tap 2, the same pixel: each
// chunk moves it in from the tap 2 it gathered and the previous chunk's (one
// two-table permutation, in place of the lookup), so the 2N lanes start at
// tap 1 (C lanes later) and hold more pixels' windows (3 channels of fp32
// lanes on AVX-512: 5 per chunk instead of 4).
template <class Ops, size_t kTaps, size_t kRows, bool kCarry, class D, typename T>
HWY_NOINLINE void PoolNhwcPickRow(D d, size_t kX, const T* HWY_RESTRICT s, size_t stride,
                                  size_t rowElems,
                                  const typename Ops::L* HWY_RESTRICT R, size_t pad, size_t c0,
                                  size_t c1, size_t chunks, size_t step, size_t sX, size_t C,
                                  const hn::TFromD<hn::RebindToUnsigned<D>>* pickLanes,
                                  const typename Ops::L* HWY_RESTRICT scales,
                                  typename Ops::L scale, T* HWY_RESTRICT out, size_t avail,
                                  size_t count, size_t srcStep, size_t outStep) {
  using V = hn::Vec<D>;
  const hn::RebindToUnsigned<D> du;
  using U = hn::TFromD<decltype(du)>;
  using VU = hn::Vec<decltype(du)>;
  const size_t N = hn::Lanes(d), advance = step * sX;
  const V ident = Ops::Identity(d);
  const VU pick = hn::Load(du, pickLanes), lanes2N = hn::Set(du, static_cast<U>(2 * N));
  // With kCarry the 2N lanes start at tap 1: C lanes less padding before
  // them (pad >= C: PoolNhwc carries only with padding).
  const size_t skip = kCarry ? C : 0;
  pad -= skip;
  // Tap 0 from {previous chunk's tap 2, this chunk's}: the previous chunk's
  // last pixel, then this chunk's pixels but its last.
  const VU iota = hn::Iota(du, 0);
  const VU shiftIn = hn::IfThenElse(hn::Lt(iota, hn::Set(du, static_cast<U>(C))),
                                    hn::Add(iota, hn::Set(du, static_cast<U>(step - C))),
                                    hn::Add(iota, hn::Set(du, static_cast<U>(N - C))));
  // bf16 averages on AVX-512 read the rows' 2N elements as N 32-bit lanes
  // whose halves are the even and odd elements (BF16LanesToF32): no
  // promotion shuffles. Element i of the 2N is then lane i / 2 of the even
  // vector or of the odd one (evenOdd), which the two-table lookups take
  // instead of i. Not on AVX2, whose lookups are two permutations and a
  // blend: there the promotion is no dearer. bench:
  // BM_Pooling<hwy::bfloat16_t>/avg:1/C:3/HW:224/k:3/s:2/p:1/nhwc:1.
  constexpr bool kEvenOdd = kRows > 0 && Ops::kDivides &&
                            ElementTraits<T>::kEncoding == Encoding::kBFloat16 &&
                            SYNETK_HAS_AVX512;
  const auto evenOdd = [&](VU i) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (kEvenOdd) {
      return hn::Add(hn::ShiftRight<1>(i),
                     hn::IfThenElseZero(hn::TestBit(i, hn::Set(du, U{1})),
                                        hn::Set(du, static_cast<U>(N))));
    } else {
      return i;
    }
  };
  VU taps[kTaps == 0 ? 7 : kTaps];
  for (size_t k = 0; k < (kTaps == 0 ? kX : kTaps); ++k) {  // (kCarry: taps[0] unused)
    taps[k] = hn::Add(pick, hn::Set(du, static_cast<U>(k * C - skip)));
  }
  // The lookups of whole chunks, in the vertical step's lanes.
  VU looks[kTaps == 0 ? 7 : kTaps];
  for (size_t k = 0; k < (kTaps == 0 ? kX : kTaps); ++k) looks[k] = evenOdd(taps[k]);
  const auto emit = [&](size_t c, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const size_t j = c * step;
    v = PoolScaleAt<Ops>(d, v, scales, j, scale);  // averages: scales given with excludePad
    // Lanes past `step` land on outputs written later.
    PoolStoreDst<Ops>(d, v, out + j, avail - j);
  };
  V prev = ident;  // kCarry: the previous chunk's tap 2 (at first, padding)
  // kCarry: this chunk's tap 0 from the previous chunk's tap 2 and this
  // chunk's, t2, which becomes the carry.
  const auto tapZero = [&](V t2) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const V t0 = PoolTwoTables(d, prev, t2, shiftIn);
    prev = t2;
    return t0;
  };
  // The taps in PoolTapSum's order, tapAt(k) giving tap k (with kCarry,
  // taps 1 and 2 only).
  const auto sumTaps = [&](const auto& tapAt) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (kCarry && kTaps == 3) {
      const V t2 = tapAt(2), t0 = tapZero(t2), t1 = tapAt(1);
      return PoolTapSum<Ops, 3>([&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return k == 0 ? t0 : k == 1 ? t1 : t2;
      });
    } else {
      return PoolTapSum<Ops, kTaps>(tapAt);
    }
  };
  const auto gather = [&](V lo, V hi) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return sumTaps([&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
      return PoolTwoTables(d, lo, hi, looks[k]);
    });
  };
  // `count` output rows, srcStep input and outStep output elements apart
  // (the pointers move only between rows: never past the tensors).
  for (size_t y = 0; y < count; ++y) {
    if (y != 0) {
      s += srcStep;
      out += outStep;
      avail -= outStep;
    }
    prev = ident;
    if constexpr (kRows == 0) {  // any kX <= 7, taps in a loop
      for (size_t c = 0; c < chunks; ++c) {
        const auto* r = R + c * advance + skip;
        const V lo = hn::LoadU(d, r), hi = hn::LoadU(d, r + N);
        V v;
        if constexpr (kCarry) {  // kX == 3; the taps in this loop's order
          const V t2 = PoolTwoTables(d, lo, hi, taps[2]), t0 = tapZero(t2);
          v = Ops::Combine(Ops::Combine(t0, PoolTwoTables(d, lo, hi, taps[1])), t2);
        } else {
          v = PoolTwoTables(d, lo, hi, taps[0]);
          for (size_t k = 1; k < kX; ++k) v = Ops::Combine(v, PoolTwoTables(d, lo, hi, taps[k]));
        }
        emit(c, v);
      }
    } else {
      // The vertical step at row offset x (x + 2N <= rowElems), in PoolRows'
      // order (the rows in order; the average's +0 comes in emit): elements
      // x .. x + 2N - 1 as lo, hi, or (kEvenOdd) the even and odd ones.
      const auto vertical = [&](size_t x, V& lo, V& hi) HWY_ATTR SYNETK_LAMBDA_INLINE {
        if constexpr (kEvenOdd) {
          PoolBF16LaneRows<Ops, kRows>(d, s + x, stride, lo, hi);  // x may be odd
        } else {
          lo = PoolColumn<Ops, kRows>(d, s + x, stride);
          hi = PoolColumn<Ops, kRows>(d, s + x + N, stride);
        }
      };
      // A chunk at the row's edge: its x clamped to [0, rowElems - 2N].
      const auto edge = [&](size_t c) HWY_ATTR SYNETK_LAMBDA_INLINE {
        const size_t x = c * advance, b = HWY_MIN(x > pad ? x - pad : 0, rowElems - 2 * N);
        const VU shift = hn::Set(du, static_cast<U>(x - pad - b));  // modulo 2^bits
        V lo, hi;
        vertical(b, lo, hi);
        const auto tapAt = [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
          const VU at = hn::Add(taps[k], shift);  // past the 2N lanes: padding
          return hn::IfThenElse(hn::RebindMask(d, hn::Lt(at, lanes2N)),
                                PoolTwoTables(d, lo, hi, evenOdd(at)), ident);
        };
        emit(c, sumTaps(tapAt));
      };
      size_t c = 0;
      for (; c < HWY_MIN(c0, chunks); ++c) edge(c);
      for (; c < c1; ++c) {
        V lo, hi;
        vertical(c * advance - pad, lo, hi);
        emit(c, gather(lo, hi));
      }
      for (; c < chunks; ++c) edge(c);
    }
  }
}

// NHWC, 3-wide windows of stride 2 along W (the ResNet stem's 3x3 s2 p1),
// one output row whose kRows input rows at s are all inside src: no row
// buffer. Output pixel dx combines the vertical steps of input columns
// 2dx - pX .. 2dx - pX + 2, each the rows' combination in order (as PoolRows
// computes them); adjacent
// outputs share a column, which `carry` keeps per channel. Columns outside
// the row are the identity element (+0 or the lowest key: the same sums and
// maxima as leaving them out).
template <class Ops, size_t kRows, bool kOneVector, class D, typename T>
HWY_NOINLINE void PoolNhwcStemRow(D d, const T* HWY_RESTRICT s, size_t rowElems, size_t C,
                                  size_t W, size_t pX, size_t dstW, float hy, float scale,
                                  bool excludePad, T* HWY_RESTRICT out, size_t avail,
                                  typename Ops::L* HWY_RESTRICT carry) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  // The lambdas below take every scalar by value and make their vectors
  // (Ops::Identity, the scale) themselves: a capture by reference is an
  // address, reloaded after each vector store. bench:
  // BM_Pooling<hwy::bfloat16_t>/avg:1/C:64/HW:112/k:3/s:2/p:1/nhwc:1.

  // The vertical step of the column at p (inside the row).
  const size_t pitch = rowElems;
  auto colAt = [d, pitch](const T* p) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return PoolColumn<Ops, kRows>(d, p, pitch);
  };
  // Input column x outside [0, W) (never for kInside: the interior pixels).
  auto outside = [W](ptrdiff_t x, auto inside) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return !decltype(inside)::value && (x < 0 || x >= static_cast<ptrdiff_t>(W));
  };
  // The vertical step of input column x, lanes c..
  auto col = [=](ptrdiff_t x, size_t c, auto inside) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if (outside(x, inside)) return Ops::Identity(d);
    return colAt(s + static_cast<size_t>(x) * C + c);
  };
  // bf16 averages of whole pairs of vectors of channels (Ops::kBF16Pairs):
  // summed as two fp32 vectors, even and odd channels (`carry` keeps them in
  // that order), and stored as one, with no promotion or narrowing shuffles.
  const bool pairs = Ops::kBF16Pairs && C % (2 * N) == 0;
  // The vertical step of input column x's channels c .. c + 2N, even and odd.
  auto colPairs = [=](ptrdiff_t x, size_t c, V& e, V& o, auto inside) HWY_ATTR
                      SYNETK_LAMBDA_INLINE {
    if constexpr (Ops::kBF16Pairs) {
      if (outside(x, inside)) {
        e = o = Ops::Identity(d);
        return;
      }
      PoolBF16LaneRows<Ops, kRows>(d, s + static_cast<size_t>(x) * C + c, pitch, e, o);
    } else {
      (void)x, (void)c, (void)e, (void)o, (void)inside;
    }
  };
  // Any pixel: columns outside the row are the identity, the shared column
  // goes through `carry`. kInside (the interior pixels, after the first, all
  // three columns inside the row): no column tests, the whole window's scale.
  // Averages: the scale of a window of all 3 columns, computed once; the
  // clipped windows at the row's ends (excludePad) take their own.
  const float scaleWhole = excludePad ? 1.0f / (hy * 3.0f) : scale;
  auto scaleOf = [=](size_t dx, auto inside) HWY_ATTR SYNETK_LAMBDA_INLINE {
    float pixelScale = scaleWhole;
    if (!decltype(inside)::value && !Ops::kOrderFree && excludePad) {
      const ptrdiff_t x0 = static_cast<ptrdiff_t>(2 * dx) - static_cast<ptrdiff_t>(pX);
      const ptrdiff_t lo = HWY_MAX(x0, ptrdiff_t{0});
      const ptrdiff_t hi = HWY_MIN(x0 + 3, static_cast<ptrdiff_t>(W));
      if (hi - lo != 3) pixelScale = 1.0f / (hy * static_cast<float>(hi - lo));
    }
    return hn::Set(d, static_cast<typename Ops::L>(pixelScale));
  };
  // Output pixel dx, whole pairs of vectors of channels (bf16 averages).
  auto pairsPixel = [=](size_t dx, auto inside) HWY_ATTR SYNETK_LAMBDA_INLINE {
    constexpr bool kInside = decltype(inside)::value;
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(2 * dx) - static_cast<ptrdiff_t>(pX);
    const V sc = scaleOf(dx, inside);
    for (size_t c = 0; c < C; c += 2 * N) {
      V e0, o0, e1, o1, e2, o2;
      if (!kInside && dx == 0) {
        colPairs(x0, c, e0, o0, inside);
      } else {
        e0 = hn::LoadU(d, carry + c);
        o0 = hn::LoadU(d, carry + c + N);
      }
      colPairs(x0 + 1, c, e1, o1, inside);
      colPairs(x0 + 2, c, e2, o2, inside);
      hn::StoreU(e2, d, carry + c);
      hn::StoreU(o2, d, carry + c + N);
      const V ae = PoolScale(d, Ops::Combine(Ops::Combine(e0, e1), e2), sc);
      const V ao = PoolScale(d, Ops::Combine(Ops::Combine(o0, o1), o2), sc);
      // Whole pairs of channels: the store stays inside the pixel.
      StoreBF16Pair<true>(d, ae, ao, out + dx * C + c);
    }
  };
  // Output pixel dx, a vector of channels at a time.
  auto vectorPixel = [=](size_t dx, auto inside) HWY_ATTR SYNETK_LAMBDA_INLINE {
    constexpr bool kInside = decltype(inside)::value;
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(2 * dx) - static_cast<ptrdiff_t>(pX);
    const V sc = scaleOf(dx, inside);
    for (size_t c = 0; c < C; c += N) {
      const V v0 = !kInside && dx == 0 ? col(x0, c, inside) : hn::LoadU(d, carry + c);
      const V v2 = col(x0 + 2, c, inside);
      V acc = Ops::Combine(Ops::Combine(v0, col(x0 + 1, c, inside)), v2);
      hn::StoreU(v2, d, carry + c);
      if constexpr (!Ops::kOrderFree) acc = PoolScale(d, acc, sc);
      // Lanes past C land in the next pixel, which is written later.
      const size_t o = dx * C + c;
      PoolStoreDst<Ops>(d, acc, out + o, avail - o);
    }
  };
  // Pixels [from, to): the pairs test once per run of pixels, not per pixel.
  auto pixels = [=](size_t from, size_t to, auto inside) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (Ops::kBF16Pairs) {
      if (pairs) {
        for (size_t dx = from; dx < to; ++dx) pairsPixel(dx, inside);
        return;
      }
    }
    for (size_t dx = from; dx < to; ++dx) vectorPixel(dx, inside);
  };
  // Pixels [a, b) (after the first) have all three columns inside the row.
  const size_t a = HWY_MAX(size_t{1}, (pX + 1) / 2);
  const size_t b = HWY_MAX(a, HWY_MIN(dstW, W + pX >= 1 ? (W + pX - 1) / 2 : 0));
  using Edge = std::false_type;
  size_t dx = HWY_MIN(a, dstW);
  pixels(0, dx, Edge());
  if constexpr (!kOneVector) {
    // Several vectors of channels: the shared column goes through `carry`.
    // The interior runs without the column tests (kInside), which cost a
    // few cycles per vector. bench:
    // BM_Pooling<hwy::float16_t>/avg:1/C:64/HW:112/k:3/s:2/p:1/nhwc:1.
    pixels(dx, HWY_MAX(dx, b), std::true_type());
    pixels(HWY_MAX(dx, b), dstW, Edge());
    return;
  }
  if (dx < b) {
    // One vector of channels: the shared column stays in a register rather
    // than going through `carry` (with two to four registers, 16-bit keys
    // and fp32 spill). Its own instance: added to the generic loop's, it
    // slows that loop. bench:
    // BM_Pooling<uint8_t>/avg:0/C:64/HW:112/k:3/s:2/p:1/nhwc:1.
    V k = hn::LoadU(d, carry);
    const V sc = hn::Set(d, static_cast<typename Ops::L>(scaleWhole));
    for (; dx < b; ++dx) {
      const T* q = s + (2 * dx - pX + 1) * C;
      const V v2 = colAt(q + C);
      V acc = Ops::Combine(Ops::Combine(k, colAt(q)), v2);
      k = v2;
      if constexpr (!Ops::kOrderFree) acc = PoolScale(d, acc, sc);
      PoolStoreDst<Ops>(d, acc, out + dx * C, avail - dx * C);
    }
    hn::StoreU(k, d, carry);
  }
  pixels(dx, dstW, Edge());
}

template <class Cfg, class D>
void PoolNhwc(D d, const detail::PoolArgs<typename Cfg::Elem>& a, const detail::PoolPlan& plan) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using T = typename Cfg::Elem;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t C = a.srcC, W = a.srcW, rowElems = W * C;
  // Locals, not a's fields: vector stores may alias anything, so the
  // compiler would reload every field after each store.
  const size_t kX = a.kX, sX = a.sX, pX = a.pX, dstW = a.dstW, dstC = a.dstC;
  const bool excludePad = a.excludePad, pool3d = a.pool3d;
  typename Cfg::Elem* const dst = a.dst;
  // Stores may spill past a row onto outputs written later, never past the part.
  const size_t srcTotal = a.srcH * rowElems, dstTotal = a.end * dstW * dstC;
  const size_t pixels = pX + W + dstW * sX + kX;
  // How the rows run (PlanPoolNhwcRows; edge rows that a kind cannot take
  // run as generic rows).
  using detail::PoolRowKind;
  const size_t pickPixels = plan.pickPixels, stridedPhases = plan.stridedPhases;
  const bool pickCarry = plan.pickCarry;
  const bool pick = plan.rows == PoolRowKind::kPick;
  const bool strided = plan.rows == PoolRowKind::kStrided;
  const bool pixelPairs = plan.rows == PoolRowKind::kPixelPairs;
  const bool planar = plan.rows == PoolRowKind::kPlanar;
  const bool flat = plan.rows == PoolRowKind::kFlat;
  const bool flatPairs = plan.flatPairs;
  const bool stem = plan.rows == PoolRowKind::kStem;
  const size_t rowOut = dstW * C;
  const size_t rowLen = pixels * C + PoolRoundUp(rowElems, N) - rowElems + 6 * N;
  // Average with excludePad: clipped width per element (flat and pick rows)
  // or per pixel (planar rows), widthsLen of them.
  const size_t dxUp = PoolRoundUp(dstW, N);
  const bool widthPerElement =
      !Cfg::isMax && excludePad && (flat || pick || strided || pixelPairs);
  const bool widthPerPixel = !Cfg::isMax && excludePad && planar;
  const size_t widthsLen =
      widthPerElement ? PoolRoundUp(rowOut + N, N) : widthPerPixel ? dxUp : 0;
  // PoolNhwcStridedRow's byte shuffle of each phase (a vector) and the
  // output count of each of its blocks.
  const size_t stridedBytes = N * sizeof(L), blockLanes = 16 / sizeof(L);
  const size_t planeLen = planar ? PoolRoundUp(HWY_MAX(pixels, dxUp * sX + kX), N) + N : 0;
  // The stem rows' shared columns; their loads reach this far past a row.
  // Every buffer of the call, taken before anything is written.
  L* R = PoolAlignLanes(PoolTake<L>(a, (flatPairs ? 2 * rowLen + N : rowLen) + 2 * N), N);
  L* pix = pool3d ? PoolTake<L>(a, PoolRoundUp(C, N) + N) : nullptr;
  L* widths = widthPerElement ? PoolTake<L>(a, rowOut + 2 * N)
              : widthPerPixel ? PoolTake<L>(a, dxUp) : nullptr;
  uint8_t* stridedIdx = strided ? PoolTake<uint8_t>(a, stridedPhases * (stridedBytes + 2)) : nullptr;
  L* planes = planar ? PoolTake<L>(a, 3 * planeLen + 3 * dxUp + 3 * N) : nullptr;
  // 1 / (rows * widths[j]) for windows of `rows` rows (PoolScale), or null
  // without excludePad. Computed when the row count changes, a few times per
  // call (the clipped rows at the top and bottom), not once per row.
  L* scales = widthsLen != 0 ? PoolTake<L>(a, widthsLen) : nullptr;
  L* carry = stem ? PoolTake<L>(a, PoolRoundUp(C, N)) : nullptr;
  if (!a.scratch->Fits()) return;  // sizing, or too little memory: nothing written

  L* R2 = flatPairs ? PoolAlignLanes(R + rowLen, N) : nullptr;
  const V ident = Ops::Identity(d);
  for (L* buf : {R, R2}) {
    if (buf == nullptr) break;
    for (size_t i = 0; i + N <= rowLen; i += N) hn::StoreU(ident, d, buf + i);
    hn::StoreU(ident, d, buf + rowLen - N);
  }
  if constexpr (!Cfg::isMax) {
    if (widthPerElement) {
      PoolWidthsPerElement(d, widths, rowOut, C, [&](size_t dx) {
        return detail::PoolWindow(dx, sX, pX, kX, W).Size();
      });
    }
  }
  const hn::RebindToUnsigned<D> du;
  using U = hn::TFromD<decltype(du)>;
  HWY_ALIGN U pickLanes[kMaxLanes<U>] = {};
  // PoolNhwcPickRow: `step` outputs per chunk, window starts `advance`
  // apart; chunks [c0, pickC1) lie inside the row (2- or 3-wide windows),
  // their 2N lanes from pad - skip before the window start on.
  const size_t step = HWY_MAX(pickPixels, size_t{1}) * C, advance = step * sX, pad = pX * C;
  const size_t lead = pad - (pickCarry ? C : 0);
  const size_t c0 = (lead + advance - 1) / advance, chunks = (rowOut + step - 1) / step;
  const bool pickDirect = (kX == 2 || kX == 3) && rowElems >= 2 * N;
  const size_t pickC1 =
      pickDirect ? HWY_MIN((rowElems - 2 * N + lead) / advance + 1, chunks) : 0;
  if (pick) {  // lane m: channel m % C of the window of pixel m / C
    for (size_t p = 0, m = 0; p < pickPixels; ++p) {  // (no divisions: a few per call
      for (size_t c = 0; c < C; ++c) {             // cost as much as a row)
        pickLanes[m++] = static_cast<U>(p * sX * C + c);
      }
    }
  }
  uint8_t* stridedCounts = strided ? stridedIdx + stridedPhases * stridedBytes : nullptr;
  for (size_t j = 0; j < stridedPhases; ++j) {
    for (size_t b = 0; b * 16 < stridedBytes; ++b) {
      uint8_t* blockIdx = stridedIdx + j * stridedBytes + b * 16;
      size_t n = 0;
      for (size_t i = 0; i < blockLanes; ++i) {
        if ((j * N + b * blockLanes + i) % (sX * C) >= C) continue;
        for (size_t t = 0; t < sizeof(L); ++t) {
          blockIdx[n * sizeof(L) + t] = static_cast<uint8_t>(i * sizeof(L) + t);
        }
        ++n;
      }
      stridedCounts[2 * j + b] = static_cast<uint8_t>(n);
      std::fill(blockIdx + n * sizeof(L), blockIdx + 16, uint8_t{0});
    }
  }
  if (planar) {
    for (size_t i = 0; i + N <= 3 * planeLen; i += N) hn::StoreU(ident, d, planes + i);
    if (widthPerPixel) {
      for (size_t dx = 0; dx < dxUp; ++dx) {
        widths[dx] = dx < dstW
            ? static_cast<L>(detail::PoolWindow(dx, sX, pX, kX, W).Size()) : L(1);
      }
    }
  }
  size_t scalesRows = 0;
  const auto scalesFor = [&](size_t rows) HWY_ATTR -> const L* {
    if constexpr (!Cfg::isMax) {
      if (scales != nullptr && rows != scalesRows) {
        PoolScaleRows(d, scales, 1, widthsLen, widthsLen, widths,
                      a.kY * a.kX < (size_t{1} << 24), [rows](size_t) { return rows; });
        scalesRows = rows;
      }
    }
    return scales;
  };
  L* row = R + pX * C;
  const hn::CappedTag<L, 1> d1;
  const size_t stemReach = rowElems - C + PoolRoundUp(C, N);
  for (size_t dy = a.begin; dy < a.end; ++dy) {
    const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, a.srcH);
    if (stem && (wy.end - 1) * rowElems + stemReach <= srcTotal) {
      const T* s = a.src + wy.begin * rowElems;
      const size_t o = dy * rowOut;
      const float hy = static_cast<float>(wy.Size());
      const auto stemRow = [&](auto rows, auto oneVector) HWY_ATTR {
        PoolNhwcStemRow<Ops, decltype(rows)::value, decltype(oneVector)::value>(
            d, s, rowElems, C, W, pX, dstW, hy, a.scale, excludePad, dst + o, dstTotal - o,
            carry);
      };
      using One = std::true_type;
      using Generic = std::false_type;
      if (wy.Size() == 3 && C <= N) {
        stemRow(std::integral_constant<size_t, 3>(), One());
      } else if (wy.Size() == 3) {
        stemRow(std::integral_constant<size_t, 3>(), Generic());
      } else if (wy.Size() == 2) {
        stemRow(std::integral_constant<size_t, 2>(), Generic());
      } else {
        stemRow(std::integral_constant<size_t, 1>(), Generic());
      }
      continue;
    }
    // The row's vertical step into R, then identity past it.
    const auto vertical = [&]() HWY_ATTR SYNETK_LAMBDA_INLINE {
      if ((wy.end - 1) * rowElems + PoolRoundUp(rowElems, N) <= srcTotal) {
        PoolRows<Ops>(d, a.src + wy.begin * rowElems, rowElems, wy.Size(), rowElems, row, false);
        hn::StoreU(ident, d, row + rowElems);
        return;
      }
      for (size_t j = 0; j < rowElems; j += N) {  // bounds-checked loads
        V acc = ident;
        for (size_t y = wy.begin; y < wy.end; ++y) {
          const size_t o = y * rowElems + j;
          acc = Ops::Combine(acc, PoolLoadSrc<Ops>(d, a.src + o, srcTotal - o));
        }
        hn::StoreU(acc, d, row + j);
      }
      hn::StoreU(ident, d, row + rowElems);
    };
    if constexpr (kPoolHasTwoTables<L>) {
      if (pick) {
        // 2 or 3 rows, 2- or 3-wide windows: straight from src; the others
        // through R.
        const size_t rows = wy.Size(), base = dy * rowOut;
        const T* s = a.src + wy.begin * rowElems;
        const L* sc = scalesFor(rows);
        // The next output rows whose windows have as many rows, sY input
        // rows further each, go in the same call (direct rows only: the row
        // buffer holds one row).
        size_t count = 1;
        if (pickDirect && (rows == 2 || rows == 3)) {
          for (; dy + count < a.end; ++count) {
            const detail::PoolWindow next(dy + count, a.sY, a.pY, a.kY, a.srcH);
            if (next.Size() != rows || next.begin != wy.begin + count * a.sY) break;
          }
        }
        const auto pickRow = [&](auto taps, auto rowCount) HWY_ATTR {
          constexpr size_t kTaps = decltype(taps)::value, kRows = decltype(rowCount)::value;
          const auto run = [&](auto carried) HWY_ATTR {
            PoolNhwcPickRow<Ops, kTaps, kRows, decltype(carried)::value>(
                d, kX, s, rowElems, rowElems, R, pad, c0, pickC1, chunks, step, sX, C,
                pickLanes, sc, a.scale, dst + base, dstTotal - base, count,
                a.sY * rowElems, rowOut);
          };
          if constexpr (kTaps == 2) {  // (pickCarry needs 3-wide windows)
            run(std::false_type());
          } else {
            pickCarry ? run(std::true_type()) : run(std::false_type());
          }
        };
        using K0 = std::integral_constant<size_t, 0>;
        using K2 = std::integral_constant<size_t, 2>;
        using K3 = std::integral_constant<size_t, 3>;
        if (pickDirect && rows == 3) {
          kX == 3 ? pickRow(K3(), K3()) : pickRow(K2(), K3());
        } else if (pickDirect && rows == 2) {
          kX == 3 ? pickRow(K3(), K2()) : pickRow(K2(), K2());
        } else {
          vertical();
          pickRow(K0(), K0());
        }
        dy += count - 1;
        continue;
      }
    }
    // evenOdd: R's channels in PoolStackPairBF16's order (PoolNhwcFlatRow).
    const auto flatRow = [&](const L* buf, size_t y, auto evenOdd) HWY_ATTR {
      const size_t base = y * rowOut;
      PoolNhwcFlatRow<Ops, decltype(evenOdd)::value>(d, buf, C, kX, rowOut, scalesFor(wy.Size()),
                                                     a.scale, dst + base, dstTotal - base);
    };
    using Natural = std::false_type;
    // Row dy + 1's window is wy one row down, whole and inside src too.
    if (flatPairs && dy + 1 < a.end && wy.Size() == a.kY && wy.end < a.srcH &&
        wy.end * rowElems + PoolRoundUp(rowElems, N) <= srcTotal) {
      const T* s = a.src + wy.begin * rowElems;
      L* const outs[2] = {row, R2 + pX * C};
      const auto store = [=](size_t r, size_t x, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
        hn::StoreU(v, d, outs[r] + x);
      };
      // bf16 averages with whole blocks of 2N channels: the rows read as
      // 32-bit lanes, even and odd channels apart, until the store.
      bool evenOdd = false;
      if constexpr (Ops::kBF16Pairs) {
        evenOdd = C % (2 * N) == 0 && PoolWithTapCount(a.kY, [&](auto k) HWY_ATTR {
          PoolStackPairBF16<Ops, HWY_MAX(decltype(k)::value, size_t{2})>(
              d, rowElems,
              [=](size_t i) HWY_ATTR SYNETK_LAMBDA_INLINE { return s + i * rowElems; }, store);
        });
      }
      if (!evenOdd) {
        PoolStackPairsOf<Ops>(
            d, a.kY, 2, rowElems,
            [=](size_t i, size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
              return Ops::Load(d, s + i * rowElems + x);
            },
            store);
      }
      for (L* out : outs) hn::StoreU(ident, d, out + rowElems);
      if (evenOdd) {
        if constexpr (Ops::kBF16Pairs) {
          flatRow(R, dy, std::true_type());
          flatRow(R2, dy + 1, std::true_type());
        }
      } else {
        flatRow(R, dy, Natural());
        flatRow(R2, dy + 1, Natural());
      }
      ++dy;
      continue;
    }
    vertical();
#if SYNETK_IS_X86_AVX2
    if constexpr (sizeof(L) == 4) {
      if (pixelPairs) {
        const size_t base = dy * rowOut;
        const auto run = [&](auto taps) HWY_ATTR {
          PoolNhwcPixelPairRow<Ops, decltype(taps)::value>(
              d, R, C, sX, kX, dstW, scalesFor(wy.Size()), static_cast<L>(a.scale), dst + base,
              dstTotal - base);
        };
        PoolWithTaps23(kX, run);
        continue;
      }
    }
#endif
#if HWY_TARGET != HWY_SCALAR
    {
      if (strided) {
        const size_t base = dy * rowOut;
        const auto run = [&](auto taps) HWY_ATTR {
          PoolNhwcStridedRow<Ops, decltype(taps)::value>(
              d, R, C, kX, (dstW - 1) * sX * C + C, stridedIdx, stridedCounts, stridedPhases,
              scalesFor(wy.Size()), static_cast<L>(a.scale), dst + base, dstTotal - base);
        };
        PoolWithTaps23(kX, run);
        continue;
      }
    }
#endif
    if (flat) {
      flatRow(R, dy, Natural());
      continue;
    }
    if (planar) {
      const size_t base = dy * rowOut;
      PoolNhwcPlanarRow<Ops>(d, R, pixels, planes, planeLen, kX, sX, dstW, rowOut,
                             scalesFor(wy.Size()), a.scale, dst + base, dstTotal - base);
      continue;
    }
    for (size_t dx = 0; dx < dstW; ++dx) {
      const L* r = R + dx * sX * C;
      float scale = a.scale;
      if (!Cfg::isMax && excludePad) {
        scale = 1.0f / static_cast<float>(wy.Size() * detail::PoolWindow(dx, sX, pX, kX, W).Size());
      }
      const size_t base = (dy * dstW + dx) * dstC;
      // The window's offsets that reach input columns.
      const size_t kBegin = pX > dx * sX ? pX - dx * sX : 0;
      const size_t kEnd = HWY_MIN(kX, pX + W - dx * sX);
      if (kBegin == 0 && kEnd == kX && !pool3d) {  // the whole window: taps unrolled
        const V sc = hn::Set(d, static_cast<L>(scale));
        PoolTaps<Ops>(
            d, kX, C,
            [&](size_t c, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
              return hn::LoadU(d, r + k * C + c);
            },
            [&](size_t c, V acc) HWY_ATTR SYNETK_LAMBDA_INLINE {
              if constexpr (!Cfg::isMax) acc = PoolScale(d, acc, sc);
              // Lanes past C land in the next pixel, which is written later.
              PoolStoreDst<Ops>(d, acc, dst + base + c, dstTotal - (base + c));
            });
        continue;
      }
      for (size_t c = 0; c < C; c += N) {
        V acc = hn::LoadU(d, r + kBegin * C + c);
        for (size_t k = kBegin + 1; k < kEnd; ++k) acc = Ops::Combine(acc, hn::LoadU(d, r + k * C + c));
        if (pool3d) {
          hn::StoreU(acc, d, pix + c);
          continue;
        }
        if constexpr (!Cfg::isMax) acc = PoolScale(d, acc, hn::Set(d, static_cast<L>(scale)));
        // Lanes past C land in the next pixel, which is written later.
        PoolStoreDst<Ops>(d, acc, dst + base + c, dstTotal - (base + c));
      }
      if (pool3d) {
        for (size_t dc = 0; dc < dstC; ++dc) {
          const detail::PoolWindow wc(dc, a.sC, a.pC, a.kC, C);
          auto m = hn::LoadU(d1, pix + wc.begin);
          for (size_t c = wc.begin + 1; c < wc.end; ++c) m = Ops::Combine(m, hn::LoadU(d1, pix + c));
          Ops::Store(d1, m, dst + base + dc);
        }
      }
    }
  }
}


}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

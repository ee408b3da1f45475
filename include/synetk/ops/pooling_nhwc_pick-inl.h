// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NHWC (per target), few channels and strideX >= 2 where a
// two-table permutation exists (PoolRowKind::kPick): whole output pixels per
// vector, picked from 2N lanes of window starts, straight from src for 2- or
// 3-wide windows of 2 or 3 rows. PoolNhwc (pooling_nhwc-inl.h) runs them.

#if defined(SYNETK_OPS_POOLING_NHWC_PICK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NHWC_PICK_INL_H_
#undef SYNETK_OPS_POOLING_NHWC_PICK_INL_H_
#else
#define SYNETK_OPS_POOLING_NHWC_PICK_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// What the chunks of one PoolNhwcPickRow call share: the tap indices into
// the 2N lanes of a chunk's vertical step (taps, and looks: the lookups of
// whole chunks, EvenOdd of taps), the chunk geometry (step outputs, advance
// input elements apart; pad, less skip, before the first), the identity and
// the averages' scales. Rows from R (kRows 0) and straight from src
// (RowFromSrc) carry `prev`, the previous chunk's tap 2 (kCarry), from
// chunk to chunk.
template <class Ops, size_t kTaps, size_t kRows, bool kCarry, class D, typename T>
struct PoolPickChunks {
  using V = hn::Vec<D>;
  using DU = hn::RebindToUnsigned<D>;
  using U = hn::TFromD<DU>;
  using VU = hn::Vec<DU>;
  using L = typename Ops::L;
  // bf16 averages on AVX-512 read the rows' 2N elements as N 32-bit lanes
  // whose halves are the even and odd elements (BF16LanesToF32): no
  // promotion shuffles. Element i of the 2N is then lane i / 2 of the even
  // vector or of the odd one (EvenOdd), which the two-table lookups take
  // instead of i. Not on AVX2, whose lookups are two permutations and a
  // blend: there the promotion is no dearer. bench:
  // BM_Pooling<hwy::bfloat16_t>/avg:1/C:3/HW:224/k:3/s:2/p:1/nhwc:1.
  static constexpr bool kEvenOdd = kRows > 0 && Ops::kDivides &&
                                   ElementTraits<T>::kEncoding == Encoding::kBFloat16 &&
                                   SYNETK_HAS_AVX512;
  D d;
  DU du;
  size_t N, step, advance, skip, pad;
  V ident;
  VU lanes2N, shiftIn;
  const VU* taps;
  const VU* looks;
  const L* scales;
  L scale;

  // Lane i of the 2N as the two-table lookups take it.
  HWY_INLINE VU EvenOdd(VU i) const {
    if constexpr (kEvenOdd) {
      return hn::Add(hn::ShiftRight<1>(i),
                     hn::IfThenElseZero(hn::TestBit(i, hn::Set(du, U{1})),
                                        hn::Set(du, static_cast<U>(N))));
    } else {
      return i;
    }
  }
  // Chunk c's outputs v, scaled (averages: scales given with excludePad),
  // stored at out (`avail` writable).
  HWY_INLINE void Emit(T* out, size_t avail, size_t c, V v) const {
    const size_t j = c * step;
    v = PoolScaleAt<Ops>(d, v, scales, j, scale);
    // Lanes past `step` land on outputs written later.
    PoolStoreDst<Ops>(d, v, out + j, avail - j);
  }
  // kCarry: this chunk's tap 0 from the previous chunk's tap 2 (prev) and
  // this chunk's, t2, which becomes prev.
  HWY_INLINE V TapZero(V& prev, V t2) const {
    const V t0 = TwoTables(d, prev, t2, shiftIn);
    prev = t2;
    return t0;
  }
  // The taps in PoolTapSum's order, tapAt(k) giving tap k (with kCarry,
  // taps 1 and 2 only).
  template <class TapAt>
  HWY_INLINE V SumTaps(V& prev, const TapAt& tapAt) const {
    if constexpr (kCarry && kTaps == 3) {
      const V t2 = tapAt(2), t0 = TapZero(prev, t2), t1 = tapAt(1);
      return PoolTapSum<Ops, 3>([&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return k == 0 ? t0 : k == 1 ? t1 : t2;
      });
    } else {
      return PoolTapSum<Ops, kTaps>(tapAt);
    }
  }
  // A whole chunk's outputs from its vertical step lo, hi.
  HWY_INLINE V Gather(V& prev, V lo, V hi) const {
    return SumTaps(prev, [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
      return TwoTables(d, lo, hi, looks[k]);
    });
  }
  // One output row from R, the padded row's vertical step (kRows 0): any
  // kX <= 7, taps in a loop.
  HWY_INLINE void RowFromR(const L* R, size_t kX, size_t chunks,
                           T* out, size_t avail) const {
    V prev = ident;  // kCarry: the previous chunk's tap 2 (at first, padding)
    for (size_t c = 0; c < chunks; ++c) {
      const auto* r = R + c * advance + skip;
      const V lo = hn::LoadU(d, r), hi = hn::LoadU(d, r + N);
      V v;
      if constexpr (kCarry) {  // kX == 3; the taps in this loop's order
        const V t2 = TwoTables(d, lo, hi, taps[2]), t0 = TapZero(prev, t2);
        v = Ops::Combine(Ops::Combine(t0, TwoTables(d, lo, hi, taps[1])), t2);
      } else {
        v = TwoTables(d, lo, hi, taps[0]);
        for (size_t k = 1; k < kX; ++k) v = Ops::Combine(v, TwoTables(d, lo, hi, taps[k]));
      }
      Emit(out, avail, c, v);
    }
  }
  // The vertical step of the kRows rows at s (`stride` apart) at row offset
  // x (x + 2N <= the row's elements), in PoolRows' order (the rows in order;
  // the average's +0 comes in Emit): elements x .. x + 2N - 1 as lo, hi,
  // or (kEvenOdd) the even and odd ones.
  HWY_INLINE void Vertical(const T* s, size_t stride, size_t x, V& lo,
                           V& hi) const {
    if constexpr (kEvenOdd) {
      PoolBF16LaneRows<Ops, kRows>(d, s + x, stride, lo, hi);  // x may be odd
    } else {
      lo = PoolColumn<Ops, kRows>(d, s + x, stride);
      hi = PoolColumn<Ops, kRows>(d, s + x + N, stride);
    }
  }
  // Chunk c at the row's edge: its x clamped to [0, rowElems - 2N], the
  // taps that leave the 2N lanes the padding.
  HWY_INLINE void Edge(V& prev, const T* s, size_t stride, size_t rowElems,
                       size_t c, T* out, size_t avail) const {
    const size_t x = c * advance, b = HWY_MIN(x > pad ? x - pad : 0, rowElems - 2 * N);
    const VU shift = hn::Set(du, static_cast<U>(x - pad - b));  // modulo 2^bits
    V lo, hi;
    Vertical(s, stride, b, lo, hi);
    const auto tapAt = [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
      const VU at = hn::Add(taps[k], shift);  // past the 2N lanes: padding
      return hn::IfThenElse(hn::RebindMask(d, hn::Lt(at, lanes2N)),
                            TwoTables(d, lo, hi, EvenOdd(at)), ident);
    };
    Emit(out, avail, c, SumTaps(prev, tapAt));
  }
  // One output row straight from the kRows rows at s: chunks [c0, c1)
  // inside the row, the others at its edges (Edge).
  HWY_INLINE void RowFromSrc(const T* s, size_t stride, size_t rowElems, size_t c0,
                             size_t c1, size_t chunks, T* out, size_t avail) const {
    V prev = ident;  // kCarry: the previous chunk's tap 2 (at first, padding)
    size_t c = 0;
    for (; c < HWY_MIN(c0, chunks); ++c) Edge(prev, s, stride, rowElems, c, out, avail);
    for (; c < c1; ++c) {
      V lo, hi;
      Vertical(s, stride, c * advance - pad, lo, hi);
      Emit(out, avail, c, Gather(prev, lo, hi));
    }
    for (; c < chunks; ++c) Edge(prev, s, stride, rowElems, c, out, avail);
  }
};

// NHWC with few channels and strideX >= 2 (images: 3 channels), where
// kFastTwoTables. Chunk c covers `step` = P*C outputs (P whole pixels,
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
// With kCarry (3-wide windows of stride 2, where PlanPoolNhwcRows finds it
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
  using Chunks = PoolPickChunks<Ops, kTaps, kRows, kCarry, D, T>;
  using U = typename Chunks::U;
  using VU = typename Chunks::VU;
  const typename Chunks::DU du;
  const size_t N = hn::Lanes(d), advance = step * sX;
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
  VU taps[kTaps == 0 ? 7 : kTaps];
  VU looks[kTaps == 0 ? 7 : kTaps];  // the lookups of whole chunks
  const Chunks chunk{d,       du,      N,    step,  advance, skip,  pad, Ops::Identity(d),
                     lanes2N, shiftIn, taps, looks, scales,  scale};
  for (size_t k = 0; k < (kTaps == 0 ? kX : kTaps); ++k) {  // (kCarry: taps[0] unused)
    taps[k] = hn::Add(pick, hn::Set(du, static_cast<U>(k * C - skip)));
  }
  for (size_t k = 0; k < (kTaps == 0 ? kX : kTaps); ++k) looks[k] = chunk.EvenOdd(taps[k]);
  // `count` output rows, srcStep input and outStep output elements apart
  // (the pointers move only between rows: never past the tensors).
  for (size_t y = 0; y < count; ++y) {
    if (y != 0) {
      s += srcStep;
      out += outStep;
      avail -= outStep;
    }
    if constexpr (kRows == 0) {
      chunk.RowFromR(R, kX, chunks, out, avail);
    } else {
      chunk.RowFromSrc(s, stride, rowElems, c0, c1, chunks, out, avail);
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

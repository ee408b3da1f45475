// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NHWC (per target), 3-wide windows of stride 2 along W of up to
// 3 rows (PoolRowKind::kStem, the ResNet stem's 3x3 s2 p1): straight from
// src, adjacent outputs sharing a column. PoolNhwc (pooling_nhwc-inl.h) runs
// them.

#if defined(SYNETK_OPS_POOLING_NHWC_STEM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NHWC_STEM_INL_H_
#undef SYNETK_OPS_POOLING_NHWC_STEM_INL_H_
#else
#define SYNETK_OPS_POOLING_NHWC_STEM_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One output row of PoolNhwcStemRow: kRows input rows at s (pitch apart) of
// W pixels of C channels, padded by pX; outputs at out, of which `avail`
// may be written; `carry` holds the column adjacent outputs share. Its
// members are all values, and its methods make their vectors
// (Ops::Identity, the scale) themselves: a member held by reference is an
// address, reloaded after each vector store. bench:
// BM_Pooling<hwy::bfloat16_t>/avg:1/C:64/HW:112/k:3/s:2/p:1/nhwc:1.
// Methods taking `inside` (std::true_type: kInside, the interior pixels,
// after the first, all three columns inside the row) skip the column tests
// and take the whole window's scale.
template <class Ops, size_t kRows, class D, typename T>
struct PoolStemRow {
  using V = hn::Vec<D>;
  D d;
  const T* HWY_RESTRICT s;
  size_t pitch, C, W, pX;
  // Averages: the scale of a window of all 3 columns (computed once), the
  // window's rows (hy) for the clipped windows at the row's ends
  // (excludePad), which take their own.
  float scaleWhole, hy;
  bool excludePad;
  // bf16 averages of whole pairs of vectors of channels (Ops::kBF16Pairs):
  // summed as two fp32 vectors, even and odd channels (`carry` keeps them in
  // that order), and stored as one, with no promotion or narrowing shuffles.
  bool pairs;
  T* HWY_RESTRICT out;
  size_t avail;
  typename Ops::L* HWY_RESTRICT carry;

  // The vertical step of the column at p (inside the row).
  HWY_INLINE V ColAt(const T* p) const { return PoolColumn<Ops, kRows>(d, p, pitch); }
  // Input column x outside [0, W) (never for kInside).
  template <class Inside>
  HWY_INLINE bool Outside(ptrdiff_t x, Inside) const {
    return !Inside::value && (x < 0 || x >= static_cast<ptrdiff_t>(W));
  }
  // The vertical step of input column x, lanes c..
  template <class Inside>
  HWY_INLINE V Col(ptrdiff_t x, size_t c, Inside inside) const {
    if (Outside(x, inside)) return Ops::Identity(d);
    return ColAt(s + static_cast<size_t>(x) * C + c);
  }
  // The vertical step of input column x's channels c .. c + 2N, even and
  // odd (pairs).
  template <class Inside>
  HWY_INLINE void ColPairs(ptrdiff_t x, size_t c, V& e, V& o, Inside inside) const {
    if constexpr (Ops::kBF16Pairs) {
      if (Outside(x, inside)) {
        e = o = Ops::Identity(d);
        return;
      }
      PoolBF16LaneRows<Ops, kRows>(d, s + static_cast<size_t>(x) * C + c, pitch, e, o);
    } else {
      (void)x, (void)c, (void)e, (void)o, (void)inside;
    }
  }
  // Output pixel dx's scale (averages).
  template <class Inside>
  HWY_INLINE V ScaleOf(size_t dx, Inside) const {
    float pixelScale = scaleWhole;
    if (!Inside::value && !Ops::kOrderFree && excludePad) {
      const ptrdiff_t x0 = static_cast<ptrdiff_t>(2 * dx) - static_cast<ptrdiff_t>(pX);
      const ptrdiff_t lo = HWY_MAX(x0, ptrdiff_t{0});
      const ptrdiff_t hi = HWY_MIN(x0 + 3, static_cast<ptrdiff_t>(W));
      if (hi - lo != 3) pixelScale = 1.0f / (hy * static_cast<float>(hi - lo));
    }
    return hn::Set(d, static_cast<typename Ops::L>(pixelScale));
  }
  // Output pixel dx, whole pairs of vectors of channels (bf16 averages).
  template <class Inside>
  HWY_INLINE void PairsPixel(size_t dx, Inside inside) const {
    const size_t N = hn::Lanes(d);
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(2 * dx) - static_cast<ptrdiff_t>(pX);
    const V sc = ScaleOf(dx, inside);
    for (size_t c = 0; c < C; c += 2 * N) {
      V e0, o0, e1, o1, e2, o2;
      if (!Inside::value && dx == 0) {
        ColPairs(x0, c, e0, o0, inside);
      } else {
        e0 = hn::LoadU(d, carry + c);
        o0 = hn::LoadU(d, carry + c + N);
      }
      ColPairs(x0 + 1, c, e1, o1, inside);
      ColPairs(x0 + 2, c, e2, o2, inside);
      hn::StoreU(e2, d, carry + c);
      hn::StoreU(o2, d, carry + c + N);
      const V ae = PoolScale(d, Ops::Combine(Ops::Combine(e0, e1), e2), sc);
      const V ao = PoolScale(d, Ops::Combine(Ops::Combine(o0, o1), o2), sc);
      // Whole pairs of channels: the store stays inside the pixel.
      StoreBF16Pair<true>(d, ae, ao, out + dx * C + c);
    }
  }
  // Output pixel dx, a vector of channels at a time.
  template <class Inside>
  HWY_INLINE void VectorPixel(size_t dx, Inside inside) const {
    const size_t N = hn::Lanes(d);
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(2 * dx) - static_cast<ptrdiff_t>(pX);
    const V sc = ScaleOf(dx, inside);
    for (size_t c = 0; c < C; c += N) {
      const V v0 = !Inside::value && dx == 0 ? Col(x0, c, inside) : hn::LoadU(d, carry + c);
      const V v2 = Col(x0 + 2, c, inside);
      V acc = Ops::Combine(Ops::Combine(v0, Col(x0 + 1, c, inside)), v2);
      hn::StoreU(v2, d, carry + c);
      if constexpr (!Ops::kOrderFree) acc = PoolScale(d, acc, sc);
      // Lanes past C land in the next pixel, which is written later.
      const size_t o = dx * C + c;
      PoolStoreDst<Ops>(d, acc, out + o, avail - o);
    }
  }
  // Pixels [from, to): the pairs test once per run of pixels, not per pixel.
  template <class Inside>
  HWY_INLINE void Pixels(size_t from, size_t to, Inside inside) const {
    if constexpr (Ops::kBF16Pairs) {
      if (pairs) {
        for (size_t dx = from; dx < to; ++dx) PairsPixel(dx, inside);
        return;
      }
    }
    for (size_t dx = from; dx < to; ++dx) VectorPixel(dx, inside);
  }
};

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
  const float scaleWhole = excludePad ? 1.0f / (hy * 3.0f) : scale;
  const bool pairs = Ops::kBF16Pairs && C % (2 * N) == 0;
  const PoolStemRow<Ops, kRows, D, T> row{
      d, s, rowElems, C, W, pX, scaleWhole, hy, excludePad, pairs, out, avail, carry};
  // Pixels [a, b) (after the first) have all three columns inside the row.
  const size_t a = HWY_MAX(size_t{1}, (pX + 1) / 2);
  const size_t b = HWY_MAX(a, HWY_MIN(dstW, W + pX >= 1 ? (W + pX - 1) / 2 : 0));
  using Edge = std::false_type;
  size_t dx = HWY_MIN(a, dstW);
  row.Pixels(0, dx, Edge());
  if constexpr (!kOneVector) {
    // Several vectors of channels: the shared column goes through `carry`.
    // The interior runs without the column tests (kInside), which cost a
    // few cycles per vector. bench:
    // BM_Pooling<hwy::float16_t>/avg:1/C:64/HW:112/k:3/s:2/p:1/nhwc:1.
    row.Pixels(dx, HWY_MAX(dx, b), std::true_type());
    row.Pixels(HWY_MAX(dx, b), dstW, Edge());
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
      const V v2 = row.ColAt(q + C);
      V acc = Ops::Combine(Ops::Combine(k, row.ColAt(q)), v2);
      k = v2;
      if constexpr (!Ops::kOrderFree) acc = PoolScale(d, acc, sc);
      PoolStoreDst<Ops>(d, acc, out + dx * C, avail - dx * C);
    }
    hn::StoreU(k, d, carry);
  }
  row.Pixels(dx, dstW, Edge());
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

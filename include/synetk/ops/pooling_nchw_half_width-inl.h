// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NCHW (per target), stride 2 along W tiling even rows: kernelX 3
// padX 1 or kernelX 2 padX 0 (PoolPath::kNchwHalfWidth): each output row
// reduced in registers, 2N columns at a time, straight from src. PoolKernel
// (pooling-inl.h) runs it.

#if defined(SYNETK_OPS_POOLING_NCHW_HALF_WIDTH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NCHW_HALF_WIDTH_INL_H_
#undef SYNETK_OPS_POOLING_NCHW_HALF_WIDTH_INL_H_
#else
#define SYNETK_OPS_POOLING_NCHW_HALF_WIDTH_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// NCHW windows of stride 2 along W that tile the row exactly: kernelX 3 with
// padX 1 (ResNet's 3x3 s2 p1) or kernelX 2 with padX 0, srcW == 2*dstW, 2D,
// any vertical geometry. Output j reads row columns 2j - padX .. 2j + 1, none
// of them past the row. Each output row is reduced in registers, 2N columns
// of the vertical step at a time: ConcatEven/ConcatOdd give columns 2j and
// 2j + 1, and the odd columns moved up one lane (the previous chunk's last
// one, or the identity element, coming in) give 2j - 1. Windows of 2 or 3
// rows inside src read src directly; the other rows (clipped at the plane's
// edges, more rows, or vectors past the end of src) take their vertical step
// through a buffer. (A block of rows written to a buffer and reduced in one
// flat pass, the shifted deinterleave included, costs twice the time on
// 112-byte u8 rows. bench: BM_Pooling<uint8_t>/avg:0/C:64/HW:112/k:3/s:2/p:1/nhwc:0.)
// Lanes {carry[N - 1], v[0], ..., v[N - 2]}: v moved up one lane, the lane
// coming in from carry.
template <class D>
HWY_INLINE hn::Vec<D> PoolSlideUp1(D d, hn::Vec<D> v, hn::Vec<D> carry) {
#if HWY_HAVE_SCALABLE
  return PoolShiftInGeneric(d, carry, v, hn::Lanes(d) - 1);
#else
  return PoolShiftIn<hn::MaxLanes(D()) - 1>(d, carry, v);
#endif
}

// The even and odd columns of [x, x + 2N) from vert(x), the vertical step at
// columns [x, x + N).
template <class D, class Vert>
HWY_INLINE void PoolSplitColumns(D d, const Vert& vert, size_t x, hn::Vec<D>& e, hn::Vec<D>& od) {
#if !SYNETK_HAS_MULTI_LANE
  (void)d;
  e = vert(x);
  od = vert(x + 1);
#else
  const size_t n = hn::Lanes(d);
  const hn::Vec<D> lo = vert(x), hi = vert(x + n);
  e = hn::ConcatEven(d, hi, lo);
  od = hn::ConcatOdd(d, hi, lo);
#endif
}

#if SYNETK_BF16_CONVERT_ASM
// bf16 averages: lo and hi (fp32) rounded to 2N consecutive outputs at p, of
// which `avail` may be written: one vcvtne2ps2bf16 (BF16ConvertPair) and one
// store where it serves, else each as PoolStoreDst stores it (same bits).
template <class Ops, class D, typename T>
HWY_INLINE void PoolStoreBF16Two(D d, hn::Vec<D> lo, hn::Vec<D> hi, T* p, size_t avail) {
  const size_t n = hn::Lanes(d);
  __m512i bits;
  if (HWY_LIKELY(avail >= 2 * n) && BF16ConvertPair(hi.raw, lo.raw, bits)) {
    const hn::Repartition<uint16_t, D> dw;
    hn::StoreU(hn::Vec<decltype(dw)>{bits}, dw, reinterpret_cast<uint16_t*>(p));
    return;
  }
  PoolStoreDst<Ops>(d, lo, p, avail);
  if (avail > n) PoolStoreDst<Ops>(d, hi, p + n, avail - n);
}
#endif

// One output row of PoolNchwHalfWidth: w2 outputs at out (of which `avail`
// may be written) from columns(x, e, od), the vertical step's even and odd
// columns of [x, x + 2N); ahead(x) prefetches. kx3 (a bool, or a
// std::bool_constant where the caller has an instance per value): windows
// of 3 columns (2k - 1 .. 2k + 1), else 2 (2k, 2k + 1). Averages scale by
// rowScales[k] (1 / clipped areas) or scaleAll.
template <class Ops, class D, typename T, class Columns, class Ahead, class X3>
HWY_INLINE void PoolHalfWidthRow(D d, const Columns& columns, const Ahead& ahead, T* out,
                                 size_t avail, size_t w2, X3 kx3,
                                 const typename Ops::L* rowScales, typename Ops::L scaleAll) {
  using V = hn::Vec<D>;
  const size_t n = hn::Lanes(d);
  V carry = Ops::Identity(d);  // column 2k - 1 of the chunk's first output k
  const auto chunk = [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const size_t x = 2 * k;
    ahead(x);
    V e, od;
    columns(x, e, od);
    V acc;
    if (kx3) {
      const V prev = PoolSlideUp1(d, od, carry);
      carry = od;
      // Averages in the buffered paths' order, (prev + e) + o, then +0.
      acc = Ops::Combine(Ops::Combine(prev, e), od);
    } else {
      acc = Ops::Combine(e, od);
    }
    return PoolScaleAt<Ops>(d, acc, rowScales, k, scaleAll);
  };
  // Lanes past the row land on outputs written later.
#if SYNETK_BF16_CONVERT_ASM
  if constexpr (Ops::kDivides && ElementTraits<T>::kEncoding == Encoding::kBFloat16 &&
                hn::MaxLanes(D()) == 16) {
    // bf16 averages where the CPU rounds in one instruction: two chunks
    // rounded by one vcvtne2ps2bf16 into one vector of 2N outputs, one
    // store (each chunk alone took a rounding, a denormal test and a store).
    for (size_t k = 0; k < w2; k += 2 * n) {
      const V lo = chunk(k);
      if (k + n >= w2) {  // the row's last chunk, alone
        PoolStoreDst<Ops>(d, lo, out + k, avail - k);
        break;
      }
      const V hi = chunk(k + n);
      PoolStoreBF16Two<Ops>(d, lo, hi, out + k, avail - k);
    }
    return;
  }
#endif
  if constexpr (Ops::kDivides && sizeof(T) == 2) {
    // 16-bit averages store each chunk after computing the next: the
    // store's chain (the scaling, then the rounding to 16 bits) then no
    // longer holds up the next chunk's loads; f32 is faster in plain order.
    // bench: BM_Pooling<hwy::float16_t>/avg:1/C:64/HW:112/k:3/s:2/p:1/nhwc:0.
    if (w2 == 0) return;
    V pending = chunk(0);
    size_t k = n;
    for (; k < w2; k += n) {
      const V acc = chunk(k);
      PoolStoreDst<Ops>(d, pending, out + k - n, avail - (k - n));
      pending = acc;
    }
    PoolStoreDst<Ops>(d, pending, out + k - n, avail - (k - n));
  } else {
    for (size_t k = 0; k < w2; k += n) PoolStoreDst<Ops>(d, chunk(k), out + k, avail - k);
  }
}

#if SYNETK_HAS_MULTI_LANE
// PoolHalfWidthDirect's 3-row windows of stride 2 on rows of kChunks (1 to 4)
// chunks: each window's last row is the next one's first, carried in
// registers, so each chunk of an output row takes four loads (and, for f16,
// conversions) instead of six. bench:
// BM_Pooling<uint8_t>/avg:0/C:64/HW:112/k:3/s:2/p:1/nhwc:0. Inline: out of
// line (HWY_NOINLINE) the fp32 averages on 28x28 planes run slower, for no
// reason found.
// kLastHalf: the last chunk's outputs fit in its first N columns (112-wide
// rows of four chunks of 32: 3.5), so it reads one vector per row, not two:
// 14 f16 conversions per output row instead of 16.
template <class Ops, bool kX3, size_t kChunks, bool kLastHalf, class D, typename T>
HWY_INLINE void PoolHalfWidthCarried(D d, const T* s, size_t pitch, T* out, size_t outStep,
                                     size_t avail, size_t rows, const typename Ops::L* rowScales,
                                     typename Ops::L scaleAll) {
  using V = hn::Vec<D>;
  const size_t n = hn::Lanes(d);
  const V ident = Ops::Identity(d);
  // The first row is loaded ahead of the loop: not at all for no rows (the
  // caller passes none where the next window would leave src).
  if (rows == 0) return;
  V t0 = Ops::Load(d, s), t1 = Ops::Load(d, s + n);
  V t2 = t0, t3 = t1, t4 = t0, t5 = t1, t6 = t0, t7 = t1;
  if constexpr (kChunks >= 2) t2 = Ops::Load(d, s + 2 * n), t3 = Ops::Load(d, s + 3 * n);
  if constexpr (kChunks >= 3) t4 = Ops::Load(d, s + 4 * n), t5 = Ops::Load(d, s + 5 * n);
  if constexpr (kChunks >= 4) t6 = Ops::Load(d, s + 6 * n);
  if constexpr (kChunks >= 4 && !kLastHalf) t7 = Ops::Load(d, s + 7 * n);
  for (size_t r = 0; r < rows; ++r, s += 2 * pitch, out += outStep, avail -= outStep) {
    const T* const m = s + pitch;
    const T* const b = s + 2 * pitch;
    V od = ident;  // the previous chunk's odd columns (the identity left of the row)
    // Chunk i's outputs [i N, (i + 1) N) from its window's rows: the carried
    // first row's two vectors tA, tB (replaced by the last row's) and the
    // rows at m and b; the previous chunk's odd columns move in (PoolSlideUp1).
    const auto chunk = [&](auto index, V& tA, V& tB) HWY_ATTR SYNETK_LAMBDA_INLINE {
      constexpr size_t i = decltype(index)::value;
      const size_t x = 2 * i * n;
      const V b0 = Ops::Load(d, b + x);
      const V lo = Ops::Combine(Ops::Combine(tA, Ops::Load(d, m + x)), b0);
      tA = b0;
      V hi = ident;  // (kLastHalf: columns past the row's outputs)
      if constexpr (!kLastHalf || i + 1 < kChunks) {
        const V b1 = Ops::Load(d, b + x + n);
        hi = Ops::Combine(Ops::Combine(tB, Ops::Load(d, m + x + n)), b1);
        tB = b1;
      }
      const V in = od;
      od = hn::ConcatOdd(d, hi, lo);
      const V e = hn::ConcatEven(d, hi, lo);
      V acc = Ops::Combine(e, od);
      if constexpr (kX3) {
        const V prev = PoolSlideUp1(d, od, in);
        // Averages add in PoolHalfWidthRow's order, (prev + e) + o.
        if constexpr (Ops::kDivides) {
          acc = Ops::Combine(Ops::Combine(prev, e), od);
        } else {
          acc = Ops::Combine(prev, acc);
        }
      }
      return PoolScaleAt<Ops>(d, acc, rowScales, i * n, scaleAll);
    };
    // Lanes past the row land on outputs written later.
    const auto put = [&](size_t i, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
      PoolStoreDst<Ops>(d, v, out + i * n, avail - i * n);
    };
    // Averages store after all the row's sums, not each after its own (f16:
    // the rounding to 16 bits would hold up the next chunk); maxima at once,
    // which is faster for them.
    constexpr bool kLate = Ops::kDivides;
    using I0 = std::integral_constant<size_t, 0>;
    using I1 = std::integral_constant<size_t, 1>;
    using I2 = std::integral_constant<size_t, 2>;
    using I3 = std::integral_constant<size_t, 3>;
    const V a0 = chunk(I0(), t0, t1);
    if constexpr (!kLate) put(0, a0);
    V a1 = ident, a2 = ident, a3 = ident;
    if constexpr (kChunks >= 2) {
      a1 = chunk(I1(), t2, t3);
      if constexpr (!kLate) put(1, a1);
    }
    if constexpr (kChunks >= 3) {
      a2 = chunk(I2(), t4, t5);
      if constexpr (!kLate) put(2, a2);
    }
    if constexpr (kChunks >= 4) {
      a3 = chunk(I3(), t6, t7);
      if constexpr (!kLate) put(3, a3);
    }
    if constexpr (kLate) {
      put(0, a0);
      if constexpr (kChunks >= 2) put(1, a1);
      if constexpr (kChunks >= 3) put(2, a2);
      if constexpr (kChunks >= 4) put(3, a3);
    }
  }
}
#endif

// `rows` consecutive output rows of one plane whose windows are kRows input
// rows inside src, read directly: the first from s (pitch W, the next row's
// rowStep further), written from out on (outStep apart; `avail` outputs may
// be written from out). Out of line with everything by value: inlined into
// the plane loop, the row reloaded a dozen captured values through their
// references after every 8-bit store. kX3 (windows of 3 columns) and
// kPrefetch (detail::softwarePrefetch) are instance parameters: tested per
// chunk, they cost a large share of these short loops. bench:
// BM_Pooling<float>/avg:1/C:64/HW:112/k:3/s:2/p:1/nhwc:0.
template <class Ops, size_t kRows, bool kX3, bool kPrefetch, class D, typename T>
HWY_NOINLINE void PoolHalfWidthDirect(D d, const T* s, size_t pitch, size_t rowStep, T* out,
                                      size_t outStep, size_t avail, size_t rows, size_t w2,
                                      const typename Ops::L* rowScales,
                                      typename Ops::L scaleAll) {
  using V = hn::Vec<D>;
  constexpr bool kBf16Avg = Ops::kDivides && ElementTraits<T>::kEncoding == Encoding::kBFloat16;
#if SYNETK_HAS_MULTI_LANE
  if constexpr (kRows == 3 && !kPrefetch && !kBf16Avg) {
    // Rows of up to four chunks where loads convert (f16 averages; fp32 runs
    // no faster) and the target has 32 registers for the eight carried
    // vectors, else up to two.
    constexpr size_t kMaxChunks = kPool32Registers && sizeof(T) < sizeof(typename Ops::L) ? 4 : 2;
    const size_t n = hn::Lanes(d);
    if (rowStep == 2 * pitch && w2 <= kMaxChunks * n) {
      const auto carried = [&](auto chunks, auto lastHalf) HWY_ATTR SYNETK_LAMBDA_INLINE {
        PoolHalfWidthCarried<Ops, kX3, decltype(chunks)::value, decltype(lastHalf)::value>(
            d, s, pitch, out, outStep, avail, rows, rowScales, scaleAll);
      };
      using Whole = std::false_type;
      if (w2 <= n) return carried(std::integral_constant<size_t, 1>(), Whole());
      if (kMaxChunks == 2 || w2 <= 2 * n) {
        return carried(std::integral_constant<size_t, 2>(), Whole());
      }
      if constexpr (kMaxChunks == 4) {
        if (w2 <= 3 * n) return carried(std::integral_constant<size_t, 3>(), Whole());
        if (2 * w2 <= 7 * n) return carried(std::integral_constant<size_t, 4>(), std::true_type());
        return carried(std::integral_constant<size_t, 4>(), Whole());
      }
    }
  }
#endif
  for (size_t r = 0; r < rows; ++r, s += rowStep, out += outStep, avail -= outStep) {
    // The new rows of the output row after next (stride 2): the next row's
    // were too close to cover L3 latency.
    const T* const ahead = s + (kRows + 2) * pitch;
    const T* const p0 = s;
    const auto vert = [p0, pitch, d](size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
      return PoolColumn<Ops, kRows>(d, p0 + x, pitch);
    };
    PoolHalfWidthRow<Ops>(
        d,
        [=](size_t x, V& e, V& od) HWY_ATTR SYNETK_LAMBDA_INLINE {
          if constexpr (kBf16Avg) {
            // Columns 2i and 2i + 1 as the halves of 32-bit lane i
            // (BF16LanesToF32): no promotion shuffles, no ConcatEven/Odd.
            PoolBF16LaneRows<Ops, kRows>(d, p0 + x, pitch, e, od);
          } else {
            PoolSplitColumns(d, vert, x, e, od);
          }
        },
        [=](size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
          if constexpr (kPrefetch) {
            const size_t n = hn::Lanes(d);
            hwy::Prefetch(ahead + x);
            hwy::Prefetch(ahead + x + n);
            hwy::Prefetch(ahead + pitch + x);
            hwy::Prefetch(ahead + pitch + x + n);
          } else {
            (void)x;
          }
        },
        out, avail, w2, std::bool_constant<kX3>(), rowScales, scaleAll);
  }
}

// PoolNchwHalfWidth's averages with excludePad: 1 / (row height times
// column width) for W2 outputs per row (PoolScaleRows; element by element,
// with a conversion each, they take as long as the pooling. bench:
// BM_Pooling<float>/avg:1/C:3/HW:224/k:3/s:2/p:1/nhwc:0), tableRows rows of
// them: per window height (byHeight, row r: r + 1 rows) or per output row;
// then N ones. widths: the outputs' column widths (wUp of them), left: the
// first output's window is clipped to 2 columns.
template <class D, typename T>
HWY_INLINE void PoolHalfWidthScales(D d, const detail::PoolArgs<T>& a, bool left, bool byHeight,
                                    size_t tableRows, size_t W2, size_t wUp,
                                    hn::TFromD<D>* scales, hn::TFromD<D>* widths) {
  using L = hn::TFromD<D>;
  for (size_t j = 0; j < wUp; ++j) widths[j] = static_cast<L>(left && j == 0 ? 2 : a.kX);
  PoolScaleRows(d, scales, tableRows, W2, W2, widths, a.kY * a.kX < (size_t{1} << 24),
                [&](size_t r) {
                  return byHeight ? r + 1
                                  : detail::PoolWindow(r, a.sY, a.pY, a.kY, a.srcH).Size();
                });
  std::fill(scales + tableRows * W2, scales + tableRows * W2 + hn::Lanes(d), L(1));
}

// PoolHalfWidthDirect's instance for windows of `rows` (2 or 3) input rows,
// of 3 columns (x3) or 2, with or without software prefetching
// (detail::softwarePrefetch); the other arguments as there.
template <class Ops, class D, typename T>
void PoolHalfWidthDirectRows(D d, size_t rows, bool x3, const T* s, size_t pitch, size_t rowStep,
                             T* out, size_t outStep, size_t avail, size_t count, size_t w2,
                             const typename Ops::L* rowScales, typename Ops::L scaleAll) {
  const auto run = [&](auto x3c, auto prefetch) HWY_ATTR {
    constexpr bool kX3 = decltype(x3c)::value, kPrefetch = decltype(prefetch)::value;
    if (rows == 3) {
      PoolHalfWidthDirect<Ops, 3, kX3, kPrefetch>(d, s, pitch, rowStep, out, outStep, avail,
                                                   count, w2, rowScales, scaleAll);
    } else {
      PoolHalfWidthDirect<Ops, 2, kX3, kPrefetch>(d, s, pitch, rowStep, out, outStep, avail,
                                                   count, w2, rowScales, scaleAll);
    }
  };
  const bool prefetch = detail::softwarePrefetch;
  if (x3) {
    prefetch ? run(std::true_type(), std::true_type())
             : run(std::true_type(), std::false_type());
  } else {
    prefetch ? run(std::false_type(), std::true_type())
             : run(std::false_type(), std::false_type());
  }
}

// PoolNchwHalfWidth's output row dy of channel dc, any row: its vertical
// step through the buffer Vr (bounds-checked where a load would leave src),
// w2 outputs at out (`avail` writable); windows of 3 columns (x3) or 2,
// averages scaled by rowScales or scaleAll.
template <class Ops, class D, typename T>
void PoolHalfWidthBuffered(D d, const detail::PoolArgs<T>& a, size_t dc, size_t dy,
                           typename Ops::L* Vr, T* out, size_t avail, size_t w2, bool x3,
                           const typename Ops::L* rowScales, typename Ops::L scaleAll) {
  using V = hn::Vec<D>;
  const detail::PoolWindow wc(dc, a.sC, a.pC, a.kC, a.srcC);
  PoolNchwColumns<Ops>(d, a, wc, dy, Vr, false);
  // Lanes from W on (to the end of the row's last chunk) only reach
  // outputs past the row.
  const typename Ops::L* const vr = Vr;
  const auto vert = [vr, d](size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return hn::LoadU(d, vr + x);
  };
  PoolHalfWidthRow<Ops>(
      d,
      [d, vert](size_t x, V& e, V& od) HWY_ATTR SYNETK_LAMBDA_INLINE {
        PoolSplitColumns(d, vert, x, e, od);
      },
      [](size_t) {}, out, avail, w2, x3, rowScales, scaleAll);
}

template <class Cfg, class D>
void PoolNchwHalfWidth(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using T = typename Cfg::Elem;
  const size_t N = hn::Lanes(d);
  const size_t H = a.srcH, W = a.srcW, W2 = a.dstW;
  const size_t plane = H * W, srcTotal = a.srcC * plane;
  const size_t dstTotal = a.end * a.dstH * W2;
  const size_t span = PoolRoundUp(W, 2 * N);  // columns the chunks of a row read
  const bool left = a.kX == 3;
  // Average with excludePad: 1 / clipped area per output of a row, one row
  // of scales per window height when there are no more heights than output
  // rows, else per output row. (A row per output row costs 3x224x224 16-bit
  // averages a visible share: 112 rows of scales for 3 planes.)
  const bool byHeight = a.kY <= a.dstH;
  const bool byArea = !Cfg::isMax && a.excludePad;
  const size_t wUp = PoolRoundUp(W2, N), tableRows = byHeight ? a.kY : a.dstH;
  L* Vr = PoolTake<L>(a, span);  // the buffered rows' vertical step
  L* scales = byArea ? PoolTake<L>(a, PoolRoundUp(tableRows * W2, N) + wUp) : nullptr;
  L* widths = byArea ? PoolTake<L>(a, wUp) : nullptr;
  if (!a.scratch->Fits()) return;  // sizing, or too little memory: nothing written
  std::fill(Vr, Vr + span, L());  // no stale lanes, whatever they feed
  if constexpr (!Cfg::isMax) {
    if (byArea) PoolHalfWidthScales(d, a, left, byHeight, tableRows, W2, wUp, scales, widths);
  }
  // The scales of output row dy (null: the average's one scale).
  const auto rowScalesAt = [&](size_t dy) -> const L* {
    if (scales == nullptr) return nullptr;
    return scales +
           (byHeight ? detail::PoolWindow(dy, a.sY, a.pY, a.kY, H).Size() - 1 : dy) * W2;
  };
  const T* const src = a.src;
  T* const dst = a.dst;
  const L scale = static_cast<L>(a.scale);
  // An edge row (its window clipped by the plane or near the end of src):
  // direct when its window has 2 or 3 rows whose loads stay inside src (the
  // first row of 3x3 s2 p1 has 2), else through the buffer.
  auto edge = [&](size_t dc, size_t dy) HWY_ATTR {
    const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, H);
    const size_t rows = wy.Size(), at = dc * plane + wy.begin * W;
    const size_t o = (dc * a.dstH + dy) * W2;
    const L* const rowScales = rowScalesAt(dy);
    if ((rows == 2 || rows == 3) && at + (rows - 1) * W + span <= srcTotal) {
      PoolHalfWidthDirectRows<Ops>(d, rows, left, src + at, W, 0, dst + o, 0, dstTotal - o, 1,
                                   W2, rowScales, scale);
    } else {
      PoolHalfWidthBuffered<Ops>(d, a, dc, dy, Vr, dst + o, dstTotal - o, W2, left, rowScales,
                                 scale);
    }
  };
  // Output rows [dyLo, dyHi) have windows of kY rows inside the plane.
  const size_t kY = a.kY, dstH = a.dstH;
  const size_t dyLo = HWY_MIN(dstH, (a.pY + a.sY - 1) / a.sY);
  const size_t dyHi = H + a.pY >= kY ? HWY_MIN(dstH, (H + a.pY - kY) / a.sY + 1) : 0;
  const bool interior = (kY == 2 || kY == 3) && dyLo < dyHi;
  const size_t rowStep = a.sY * W, firstRow = dyLo * a.sY - a.pY;
  const size_t reach = (kY - 1) * W + span;  // from a window's first row
  // Interior rows share one row of clipped scales (kY rows each).
  const L* const scalesInterior = interior ? rowScalesAt(dyLo) : nullptr;
  for (size_t dc = a.begin; dc < a.end; ++dc) {
    size_t dy = 0;
    if (interior) {
      for (; dy < dyLo; ++dy) edge(dc, dy);
      const size_t at = dc * plane + firstRow * W, o = (dc * dstH + dyLo) * W2;
      // Rows whose loads stay inside src.
      const size_t safe =
          at + reach <= srcTotal ? HWY_MIN(dyHi - dyLo, (srcTotal - reach - at) / rowStep + 1) : 0;
      PoolHalfWidthDirectRows<Ops>(d, kY, left, src + at, W, rowStep, dst + o, W2, dstTotal - o,
                                   safe, W2, scalesInterior, scale);
      dy = dyLo + safe;
    }
    for (; dy < dstH; ++dy) edge(dc, dy);
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NCHW (per target) through a row buffer: the stacked rows of
// small kernels (PoolPath::kNchwStacked, several output rows per pass) and
// the row path for any window (kNchwRows). Global pooling is in
// pooling_nchw_global-inl.h, stride-2 rows that tile the row in
// pooling_nchw_half_width-inl.h.

#if defined(SYNETK_OPS_POOLING_NCHW_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NCHW_INL_H_
#undef SYNETK_OPS_POOLING_NCHW_INL_H_
#else
#define SYNETK_OPS_POOLING_NCHW_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// PoolNchwStacked's vertical step of `rows` output rows whose n input rows
// (`stride` apart) lie inside src, the first at s + r*step for row r: into
// out + r*outStep, x < W, then the padding past W is restored. Its own
// function, like the horizontal step below: inside PoolNchwStacked, GCC
// kept the loop bounds on the stack.
template <class Ops, class D, typename T>
HWY_NOINLINE void PoolStackRows(D d, size_t n, size_t rows, const T* HWY_RESTRICT s,
                                size_t step, size_t stride, size_t W,
                                typename Ops::L* HWY_RESTRICT out, size_t outStep) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const auto emit = [=](size_t r, size_t x, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    typename Ops::L* seg = out + r * outStep;
    hn::StoreU(v, d, seg + x);
    if (x + N >= W) hn::StoreU(Ops::Identity(d), d, seg + W);
  };
  size_t first = 0;  // rows before it went in pairs
  // Row r's stores spill up to a vector past W: in pairs, that must not
  // reach row r + 1, written alongside.
  if (step == stride && n >= 2 && n <= 7 && rows >= 2 && outStep >= W + N) {
    // Input row i of the block at s + i*stride.
    const auto row = [=](size_t i, size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
      return Ops::Load(d, s + i * stride + x);
    };
    const size_t even = rows & ~size_t{1};
    PoolStackPairsOf<Ops>(d, n, even, W, row, emit);
    first = even;
  }
  // Rows [first, rows) one by one.
  PoolTapsRows<Ops>(
      d, n, rows - first, W,
      [=](size_t r, size_t x, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return Ops::Load(d, s + (first + r) * step + k * stride + x);
      },
      [=](size_t r, size_t x, V v) HWY_ATTR SYNETK_LAMBDA_INLINE { emit(first + r, x, v); });
}

// PoolSlideRows with aligned segments (Wseg and R whole vectors): output
// vector j of a row takes its kTaps taps from the aligned vectors at j and
// j + N, shifted in registers (one load per output vector, not kTaps).
// From 4 taps on, adjacent taps are combined once into pairs (P[x] = R[x]
// (+) R[x + 1]) and each output takes every other pair, P[x] (+) P[x + 2]
// (+) ..., then the last tap if kTaps is odd: 5 taps in 3 shifts and 3
// combines instead of 4 and 4. The pairs of vector j + 1 read vector j + 2,
// which the segments' slack holds (PoolNchwStacked). Only 32-bit lanes: the
// 8-bit max runs slower so, its shifts by 1 and 2 lanes taking two
// operations each. bench: BM_Pooling<uint8_t>/avg:0/C:32/HW:64/k:5/s:1/p:2/nhwc:0.
template <class Ops, size_t kTaps, class D, class Emit>
HWY_INLINE void PoolSlideAligned(D d, size_t rows, const typename Ops::L* HWY_RESTRICT R,
                                 size_t Wseg, size_t len, const Emit& emit) {
  using V = hn::Vec<D>;
  constexpr size_t kN = hn::MaxLanes(D());
  for (size_t r = 0; r < rows; ++r) {
    const typename Ops::L* const row = R + r * Wseg;
    V lo = hn::Load(d, row);
    if constexpr (kTaps >= 4 && sizeof(typename Ops::L) == 4) {
      V hi = hn::Load(d, row + kN);
      V pairsLo = Ops::Combine(lo, PoolShiftIn<1>(d, lo, hi));
      for (size_t j = 0; j < len; j += kN) {
        const V next = hn::Load(d, row + j + 2 * kN);
        const V pairsHi = Ops::Combine(hi, PoolShiftIn<1>(d, hi, next));
        V acc = PoolTapSum<Ops, kTaps / 2>([&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE {
          return PoolShiftIn<2 * decltype(k)::value>(d, pairsLo, pairsHi);
        });
        if constexpr (kTaps % 2 == 1) acc = Ops::Combine(acc, PoolShiftIn<kTaps - 1>(d, lo, hi));
        emit(r, j, acc);
        lo = hi;
        hi = next;
        pairsLo = pairsHi;
      }
    } else {
      for (size_t j = 0; j < len; j += kN) {
        const V hi = hn::Load(d, row + j + kN);
        emit(r, j, PoolTapSum<Ops, kTaps>([&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE {
               return PoolShiftIn<decltype(k)::value>(d, lo, hi);
             }));
        lo = hi;
      }
    }
  }
}

// PoolNchwStacked's horizontal step for stride 1 and rows of at least one
// vector: output row r (dstW outputs at dst + r*dstW, of which `avail` from
// dst on may be written) reduces kX taps of the segment at R + r*Wseg.
// Averages scale by scales[r*G + j] (excludePad) or else by `scale` (PoolScale).
template <class Ops, class D, typename T>
HWY_NOINLINE void PoolSlideRows(D d, size_t kX, size_t rows, const typename Ops::L* HWY_RESTRICT R,
                                size_t Wseg, T* HWY_RESTRICT dst, size_t dstW, size_t avail,
                                const typename Ops::L* HWY_RESTRICT scales, size_t G,
                                typename Ops::L scale) {
  using V = hn::Vec<D>;
  const auto emit = [=](size_t r, size_t j, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const size_t o = r * dstW + j;
    PoolStoreDst<Ops>(d, PoolScaleAt<Ops>(d, v, scales, r * G + j, scale), dst + o, avail - o);
  };
#if !HWY_HAVE_SCALABLE
  constexpr size_t kN = hn::MaxLanes(D());
  // AVX2 16-bit averages keep the loads: their stores already take two
  // shuffles per vector, and the shifted taps would add more on the same
  // port. bench: BM_Pooling<hwy::bfloat16_t>/avg:1/C:32/HW:64/k:5/s:1/p:2/nhwc:0
  // on AVX2.
  constexpr bool kShiftTaps = !(SYNETK_IS_X86_AVX2 && Ops::kDivides && sizeof(T) == 2);
  // PoolNchwStacked aligns R and makes Wseg whole vectors for these rows.
  HWY_DASSERT(Wseg % kN == 0 && reinterpret_cast<uintptr_t>(R) % (kN * sizeof(*R)) == 0);
  if (kShiftTaps && kX <= kN + 1 &&
      PoolWithTapCount(kX, [&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        // (taps past kN + 1 are ruled out above; the bound keeps them compiling)
        PoolSlideAligned<Ops, HWY_MIN(decltype(k)::value, kN + 1)>(d, rows, R, Wseg, dstW, emit);
      })) {
    return;
  }
#endif
  PoolTapsRows<Ops>(
      d, kX, rows, dstW,
      [=](size_t r, size_t j, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return hn::LoadU(d, R + r * Wseg + j + k);
      },
      emit);
}

// The row buffer R of one PoolNchwStacked call: the padded rows of a block
// of B output rows stacked in segments of Wseg = G*sX lanes (G >= dstW
// outputs, the extra ones unused), rowLen lanes with the slack past them.
// Stride-1 rows of at least one vector of outputs (PoolSlideRows) start on
// whole vectors, a vector or more apart from the end of one row to the
// start of the next (PoolStackPairs).
struct PoolStackedGeom {
  size_t G, Wseg;
  size_t B;       // output rows per block
  size_t flat;    // B*G rounded up to whole vectors of N lanes
  size_t rowLen;  // R's lanes
  bool direct;    // block outputs are contiguous in dst
  bool perRow;    // else rows of a vector or more go to dst one by one
};

// PoolStackedGeom of the call a on vectors of N lanes.
template <typename T>
inline PoolStackedGeom PoolStackedGeomOf(const detail::PoolArgs<T>& a, size_t N) {
  PoolStackedGeom s;
  const size_t W = a.srcW;
  const size_t need = HWY_MAX(a.pX + W, (a.dstW - 1) * a.sX + a.kX - a.pX);
  const size_t gMin = (need + a.sX - 1) / a.sX;
  s.G = a.sX == 1 && a.dstW >= N ? PoolRoundUp(HWY_MAX(gMin, W + N), N) : gMin;
  s.Wseg = s.G * a.sX;
  s.B = HWY_MAX(size_t{1}, HWY_MIN(a.dstH, 4096 / s.Wseg));
  s.flat = PoolRoundUp(s.B * s.G, N);
  s.rowLen = s.flat * a.sX + a.kX + (a.sX + 3) * N + s.Wseg + PoolRoundUp(W, N);
  s.direct = s.G == a.dstW;
  s.perRow = !s.direct && a.dstW >= N;
  return s;
}

// PoolNchwStacked's averages with excludePad: scales[dy*G + j] = 1 / (row
// height times column width) of output (dy, j) of a plane (PoolScaleRows;
// widths: the G outputs' widths, rounded up to whole vectors), then ones up
// to flat lanes past the outputs rounded up to whole vectors (what the last
// block reads).
template <class D, typename T>
HWY_INLINE void PoolStackedScales(D d, const detail::PoolArgs<T>& a, size_t G, size_t flat,
                                  hn::TFromD<D>* scales, hn::TFromD<D>* widths) {
  using L = hn::TFromD<D>;
  const size_t N = hn::Lanes(d), gUp = PoolRoundUp(G, N);
  for (size_t g = 0; g < gUp; ++g) {
    widths[g] =
        g < a.dstW ? static_cast<L>(detail::PoolWindow(g, a.sX, a.pX, a.kX, a.srcW).Size()) : L(1);
  }
  PoolScaleRows(d, scales, a.dstH, G, G, widths, a.kY * a.kX < (size_t{1} << 24),
                [&](size_t dy) { return detail::PoolWindow(dy, a.sY, a.pY, a.kY, a.srcH).Size(); });
  PoolFill(d, scales + a.dstH * G, PoolRoundUp(a.dstH * G, N) + flat - a.dstH * G, L(1));
}

// PoolNchwStacked's vertical step of one block: output rows dy0 .. dy0 + nb
// - 1 of channel window wc (its first plane at top), each into its segment
// of R (Wseg apart) from lane pX on, the padding past W restored. Rows
// [yLo, safeEnd) read their kY input rows unchecked.
template <class Ops, class D, typename T>
HWY_INLINE void PoolStackedVertical(D d, const detail::PoolArgs<T>& a,
                                    const detail::PoolWindow& wc, const T* top, size_t dy0,
                                    size_t nb, size_t yLo, size_t safeEnd,
                                    typename Ops::L* R, size_t Wseg) {
  const size_t W = a.srcW, kY = a.kY, sY = a.sY, pX = a.pX;
  // Interior rows [i0, i1) of the block in one tight loop; the clipped
  // ones (and those near the end of src) one by one.
  const size_t i0 = HWY_MIN(HWY_MAX(dy0, yLo), dy0 + nb);
  const size_t i1 = HWY_MAX(i0, HWY_MIN(dy0 + nb, safeEnd));
  for (size_t b = 0; b < nb; ++b) {
    if (dy0 + b == i0 && i1 > i0) {
      PoolStackRows<Ops>(d, kY, i1 - i0, top + (i0 * sY - a.pY) * W, sY * W, W, W,
                         R + (i0 - dy0) * Wseg + pX, Wseg);
      b = i1 - dy0 - 1;
      continue;
    }
    typename Ops::L* seg = R + b * Wseg + pX;
    PoolNchwColumns<Ops>(d, a, wc, dy0 + b, seg, detail::softwarePrefetch);
    hn::StoreU(Ops::Identity(d), d, seg + W);  // lanes past W: restore the padding
  }
}

// PoolNchwStacked's horizontal step of one block: nb output rows from dy0,
// their segments stacked in R (PoolStackedGeom s), kX taps sX apart, into
// dst from output `base` on (dstW per row); stores may spill up to output
// dstTotal. Averages scale by scales (excludePad: G per output row of the
// plane) or else by `scale`. Blocks of rows narrower than a vector whose
// outputs are not contiguous in dst go through O.
template <class Ops, class D, typename T>
HWY_INLINE void PoolStackedHorizontal(D d, PoolStackedGeom s, size_t kX, size_t sX,
                                      const typename Ops::L* R, T* O, size_t nb, size_t dy0,
                                      T* dst, size_t base, size_t dstW, size_t dstTotal,
                                      const typename Ops::L* scales, typename Ops::L scale) {
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d), G = s.G;
  // Horizontal step over len outputs of the stacked rows at r (forced inline:
  // as a call per row it is slower on 5x5 windows).
  auto horizontal = [&](const L* r, size_t len, const auto& emit) SYNETK_LAMBDA_INLINE {
    if (sX == 1) {
      PoolTaps<Ops>(d, kX, len, [&](size_t j, size_t k) { return hn::LoadU(d, r + j + k); }, emit);
    } else {
      for (size_t j = 0; j < len; j += N) emit(j, PoolRowStrided<Ops>(d, r + j * sX, 0, kX, sX));
    }
  };
  // Average: scale by 1 / the window's area (scales[i]: the vector's outputs).
  auto average = [=](V v, size_t i) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return PoolScaleAt<Ops>(d, v, scales, i, scale);
  };
  if (s.perRow && sX == 1) {
    // Wide rows: each output row straight into dst (lanes past the row
    // land on outputs written later).
    PoolSlideRows<Ops>(d, kX, nb, R, s.Wseg, dst + base, dstW, dstTotal - base,
                       scales ? scales + dy0 * G : nullptr, G, scale);
    return;
  }
  if (s.perRow) {
    for (size_t b = 0; b < nb; ++b) {
      const size_t ob = base + b * dstW;
      const size_t scaleRow = (dy0 + b) * G;
      horizontal(R + b * s.Wseg, dstW, [&](size_t j, V v) {
        PoolStoreDst<Ops>(d, average(v, scaleRow + j), dst + ob + j, dstTotal - (ob + j));
      });
    }
    return;
  }
  horizontal(R, nb * G, [&](size_t j, V v) {
    v = average(v, dy0 * G + j);
    if (s.direct) {
      // Lanes past the block land on outputs written later.
      PoolStoreDst<Ops>(d, v, dst + base + j, dstTotal - (base + j));
    } else {
      Ops::Store(d, v, O + j);
    }
  });
  if (!s.direct) {
    for (size_t b = 0; b < nb; ++b) {
      std::memcpy(static_cast<void*>(dst + base + b * dstW), O + b * G, dstW * sizeof(T));
    }
  }
}

// NCHW with small kernels: the padded rows of a block of output rows are
// stacked in R, each segment Wseg = G*sX lanes long (G >= dstW outputs, the
// extra ones unused), so that output j of the block reads R[j*sX + k]: one
// flat, vectorized horizontal pass per block however narrow the rows are.
// Reads of real outputs stay inside their segment or the next segment's left
// padding, which always holds identity elements.
template <class Cfg, class D>
void PoolNchwStacked(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using T = typename Cfg::Elem;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t H = a.srcH, W = a.srcW;
  // Stores may spill past a row onto outputs written later, never past the part.
  const size_t dstTotal = a.end * a.dstH * a.dstW;
  const PoolStackedGeom s = PoolStackedGeomOf(a, N);
  // Average with excludePad: 1 / the clipped area of every output of a plane.
  const bool byArea = !Cfg::isMax && a.excludePad;
  const size_t gUp = PoolRoundUp(s.G, N);
  L* R = PoolAlignLanes(PoolTake<L>(a, s.rowLen + N), N);
  T* O = s.direct || s.perRow ? nullptr : PoolTake<T>(a, s.flat);
  L* scales = byArea ? PoolTake<L>(a, PoolRoundUp(a.dstH * s.G, N) + s.flat + gUp) : nullptr;
  L* widths = byArea ? PoolTake<L>(a, gUp) : nullptr;
  if (!a.scratch->Fits()) return;  // sizing, or too little memory: nothing written
  const V ident = Ops::Identity(d);
  for (size_t i = 0; i + N <= s.rowLen; i += N) hn::StoreU(ident, d, R + i);
  hn::StoreU(ident, d, R + s.rowLen - N);
  if constexpr (!Cfg::isMax) {
    if (byArea) PoolStackedScales(d, a, s.G, s.flat, scales, widths);
  }
  // Locals, not a's fields: vector stores may alias anything, so the
  // compiler would reload every field after each store.
  const size_t kX = a.kX, sX = a.sX, dstW = a.dstW;
  T* const dst = a.dst;
  const L scale = static_cast<L>(a.scale);
  // Output rows [yLo, yEnd) read kY unclipped input rows; in plane p they
  // are read unchecked up to InteriorEnd(p) (vectors past W stay inside src).
  const size_t kY = a.kY, sY = a.sY;
  const size_t plane = H * W, srcTotal = a.srcC * plane, wUp = PoolRoundUp(W, N);
  const size_t yLo = (a.pY + sY - 1) / sY;
  const size_t yEnd = H + a.pY >= kY ? HWY_MIN(a.dstH, (H + a.pY - kY) / sY + 1) : 0;
  auto interiorEnd = [=](size_t p) {
    const size_t avail = srcTotal - p * plane;  // elements from the plane's start
    if (avail < wUp + (kY - 1) * W) return size_t{0};
    const size_t lastTop = (avail - wUp) / W - (kY - 1);  // input row of the last window's top
    return HWY_MIN(yEnd, (lastTop + a.pY) / sY + 1);
  };
  for (size_t dc = a.begin; dc < a.end; ++dc) {
    const detail::PoolWindow wc(dc, a.sC, a.pC, a.kC, a.srcC);
    const size_t safeEnd = wc.Size() == 1 ? interiorEnd(wc.begin) : 0;
    const T* const top = a.src + wc.begin * plane;  // input row 0 of the plane
    for (size_t dy0 = 0; dy0 < a.dstH; dy0 += s.B) {
      const size_t nb = HWY_MIN(s.B, a.dstH - dy0);
      PoolStackedVertical<Ops>(d, a, wc, top, dy0, nb, yLo, safeEnd, R, s.Wseg);
      PoolStackedHorizontal<Ops>(d, s, kX, sX, R, O, nb, dy0, dst, (dc * a.dstH + dy0) * dstW,
                                 dstW, dstTotal, scales, scale);
    }
  }
}

template <class Cfg, class D>
void PoolNchw(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t H = a.srcH, W = a.srcW, plane = H * W;
  // Stores may spill past a row onto outputs written later, never past the part.
  const size_t srcTotal = a.srcC * plane, dstTotal = a.end * a.dstH * a.dstW;
  const size_t nDx = PoolRoundUp(a.dstW, N), wUp = PoolRoundUp(W, N);
  const size_t rowLen = a.pX + wUp + nDx * a.sX + a.kX + (a.sX + 3) * N;
  // Average with excludePad: 1 / the clipped area of every output of a plane
  // (PoolScaleRows).
  const bool byArea = !Cfg::isMax && a.excludePad;
  L* R = PoolTake<L>(a, rowLen);
  L* widths = byArea ? PoolTake<L>(a, nDx) : nullptr;
  L* scales = byArea ? PoolTake<L>(a, a.dstH * nDx) : nullptr;
  if (!a.scratch->Fits()) return;  // sizing, or too little memory: nothing written
  const V ident = Ops::Identity(d);
  for (size_t i = 0; i + N <= rowLen; i += N) hn::StoreU(ident, d, R + i);
  hn::StoreU(ident, d, R + rowLen - N);
  if constexpr (!Cfg::isMax) {
    if (byArea) {
      for (size_t dx = 0; dx < nDx; ++dx) {
        widths[dx] =
            dx < a.dstW ? static_cast<L>(detail::PoolWindow(dx, a.sX, a.pX, a.kX, W).Size()) : L(1);
      }
      PoolScaleRows(d, scales, a.dstH, nDx, nDx, widths, a.kY * a.kX < (size_t{1} << 24),
                    [&](size_t dy) { return detail::PoolWindow(dy, a.sY, a.pY, a.kY, H).Size(); });
    }
  }
  L* row = R + a.pX;
  for (size_t dc = a.begin; dc < a.end; ++dc) {
    const detail::PoolWindow wc(dc, a.sC, a.pC, a.kC, a.srcC);
    for (size_t dy = 0; dy < a.dstH; ++dy) {
      const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, H);
      PoolColumnsChecked<Ops>(d, a.src, srcTotal, plane, W, wc, wy, row);
      hn::StoreU(ident, d, row + W);  // lanes past W came from the next row
      const size_t base = (dc * a.dstH + dy) * a.dstW;
      for (size_t dx = 0; dx < a.dstW; dx += N) {
        // Window offsets k that reach input columns in some lane.
        const size_t lastStart = (dx + N - 1) * a.sX;
        const size_t kBegin = a.pX > lastStart ? a.pX - lastStart : 0;
        const size_t kEnd = HWY_MIN(a.kX, a.pX + W - dx * a.sX);
        V v = PoolRowStrided<Ops>(d, R + dx * a.sX, kBegin, kEnd, a.sX);
        if constexpr (!Cfg::isMax) {  // average: scale by 1 / the window's area
          v = PoolScale(d, v, scales ? hn::LoadU(d, scales + dy * nDx + dx) : hn::Set(d, a.scale));
        }
        // Lanes past dstW land in the next row, which is written later.
        PoolStoreDst<Ops>(d, v, a.dst + base + dx, dstTotal - (base + dx));
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

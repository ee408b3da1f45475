// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NCHW (per target): the stacked rows of small kernels and the
// row-buffer path for any window, global pooling over whole planes, and the
// stride-2 rows that tile the row exactly (half width).

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
  const size_t need = HWY_MAX(a.pX + W, (a.dstW - 1) * a.sX + a.kX - a.pX);
  // Stride-1 rows of at least one vector of outputs (PoolSlideRows) start
  // on whole vectors, a vector or more apart from the end of one row to the
  // start of the next (PoolStackPairs).
  const size_t gMin = (need + a.sX - 1) / a.sX;
  const size_t G = a.sX == 1 && a.dstW >= N ? PoolRoundUp(HWY_MAX(gMin, W + N), N) : gMin;
  const size_t Wseg = G * a.sX;
  const size_t B = HWY_MAX(size_t{1}, HWY_MIN(a.dstH, 4096 / Wseg));  // rows per block
  const size_t flat = PoolRoundUp(B * G, N);
  const size_t rowLen = flat * a.sX + a.kX + (a.sX + 3) * N + Wseg + PoolRoundUp(W, N);
  const bool direct = G == a.dstW;  // block outputs are contiguous in dst
  const bool perRow = !direct && a.dstW >= N;
  // Average with excludePad: 1 / the clipped area of every output of a plane.
  const bool byArea = !Cfg::isMax && a.excludePad;
  const size_t gUp = PoolRoundUp(G, N);
  L* R = PoolAlignLanes(PoolTake<L>(a, rowLen + N), N);
  T* O = direct || perRow ? nullptr : PoolTake<T>(a, flat);
  L* scales = byArea ? PoolTake<L>(a, PoolRoundUp(a.dstH * G, N) + flat + gUp) : nullptr;
  L* widths = byArea ? PoolTake<L>(a, gUp) : nullptr;
  if (!a.scratch->Fits()) return;  // sizing, or too little memory: nothing written
  const V ident = Ops::Identity(d);
  for (size_t i = 0; i + N <= rowLen; i += N) hn::StoreU(ident, d, R + i);
  hn::StoreU(ident, d, R + rowLen - N);
  if constexpr (!Cfg::isMax) {
    if (byArea) {
      // 1 / (row height times column width) (PoolScaleRows).
      for (size_t g = 0; g < gUp; ++g) {
        widths[g] =
            g < a.dstW ? static_cast<L>(detail::PoolWindow(g, a.sX, a.pX, a.kX, W).Size()) : L(1);
      }
      PoolScaleRows(d, scales, a.dstH, G, G, widths, a.kY * a.kX < (size_t{1} << 24),
                    [&](size_t dy) { return detail::PoolWindow(dy, a.sY, a.pY, a.kY, H).Size(); });
      PoolFill(d, scales + a.dstH * G, PoolRoundUp(a.dstH * G, N) + flat - a.dstH * G, L(1));
    }
  }
  // Locals, not a's fields: vector stores may alias anything, so the
  // compiler would reload every field after each store.
  const size_t kX = a.kX, sX = a.sX, dstW = a.dstW;
  T* const dst = a.dst;
  const L scale = static_cast<L>(a.scale);
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
  // Output rows [yLo, yEnd) read kY unclipped input rows; in plane p they
  // are read unchecked up to InteriorEnd(p) (vectors past W stay inside src).
  const size_t kY = a.kY, sY = a.sY, pX = a.pX;
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
    for (size_t dy0 = 0; dy0 < a.dstH; dy0 += B) {
      const size_t nb = HWY_MIN(B, a.dstH - dy0);
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
        L* seg = R + b * Wseg + pX;
        PoolNchwColumns<Ops>(d, a, wc, dy0 + b, seg, detail::softwarePrefetch);
        hn::StoreU(ident, d, seg + W);  // lanes past W: restore the padding
      }
      const size_t base = (dc * a.dstH + dy0) * dstW;
      if (perRow && sX == 1) {
        // Wide rows: each output row straight into dst (lanes past the row
        // land on outputs written later).
        PoolSlideRows<Ops>(d, kX, nb, R, Wseg, dst + base, dstW, dstTotal - base,
                           scales ? scales + dy0 * G : nullptr, G, scale);
        continue;
      }
      if (perRow) {
        for (size_t b = 0; b < nb; ++b) {
          const size_t ob = base + b * dstW;
          const size_t scaleRow = (dy0 + b) * G;
          horizontal(R + b * Wseg, dstW, [&](size_t j, V v) {
            PoolStoreDst<Ops>(d, average(v, scaleRow + j), dst + ob + j, dstTotal - (ob + j));
          });
        }
        continue;
      }
      horizontal(R, nb * G, [&](size_t j, V v) {
        v = average(v, dy0 * G + j);
        if (direct) {
          // Lanes past the block land on outputs written later.
          PoolStoreDst<Ops>(d, v, dst + base + j, dstTotal - (base + j));
        } else {
          Ops::Store(d, v, O + j);
        }
      });
      if (!direct) {
        for (size_t b = 0; b < nb; ++b) {
          std::memcpy(static_cast<void*>(dst + base + b * dstW), O + b * G, dstW * sizeof(T));
        }
      }
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


// NCHW max over whole planes (global pooling): each plane is contiguous, so
// it is reduced flat, then across lanes.
template <class Cfg, class D>
void PoolNchwGlobalMax(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t plane = a.srcH * a.srcW, srcTotal = a.srcC * plane;
  const hn::CappedTag<L, 16 / sizeof(L)> dq;  // at most 128 bits: divides N
  const size_t NQ = hn::Lanes(dq);
  const hn::CappedTag<L, 1> d1;
  const V ident = Ops::Identity(d);
  HWY_ALIGN L buf[kMaxLanes<L>];
  for (size_t c = a.begin; c < a.end; ++c) {
    const size_t o = c * plane;
    V acc = ident;
    size_t i = 0;
    for (; i + N <= plane; i += N) acc = Ops::Combine(acc, Ops::Load(d, a.src + o + i));
    if (i < plane) {  // lanes past the plane belong to the next one
      const V t = PoolLoadSrc<Ops>(d, a.src + o + i, srcTotal - (o + i));
      acc = Ops::Combine(acc, hn::IfThenElse(hn::FirstN(d, plane - i), t, ident));
    }
    hn::Store(acc, d, buf);
    auto q = hn::Load(dq, buf);
    for (size_t j = NQ; j < N; j += NQ) q = Ops::Combine(q, hn::Load(dq, buf + j));
    if constexpr (std::is_same_v<L, float>) {  // lane by lane, as every other path combines NaN
      hn::Store(q, dq, buf);
      auto m = hn::Load(d1, buf);
      for (size_t j = 1; j < NQ; ++j) m = Ops::Combine(m, hn::Load(d1, buf + j));
      Ops::Store(d1, m, a.dst + c);
    } else {  // integer keys: a chain of 16 one-lane maxes per plane cost more than the loads
      Ops::Store(d1, hn::Set(d1, hn::GetLane(hn::MaxOfLanes(dq, q))), a.dst + c);
    }
  }
}

#if HWY_TARGET != HWY_SCALAR  // one-lane vectors: no interleaves, no halves
// Integer-key max of one contiguous plane of at least Lanes(d) elements: the
// last chunk overlaps the one before it (max is idempotent), so no lane
// needs masking and nothing past the plane is read.
template <class Ops, class D, typename T>
HWY_INLINE hn::Vec<D> PoolPlaneMax(D d, const T* p, size_t plane) {
  const size_t N = hn::Lanes(d);
  hn::Vec<D> acc = Ops::Load(d, p);
  size_t i = N;
  for (; i + N <= plane; i += N) acc = Ops::Combine(acc, Ops::Load(d, p + i));
  if (i < plane) acc = Ops::Combine(acc, Ops::Load(d, p + plane - N));
  return acc;
}

// The maxima of planes [c, c + 2^kLevel) (planeMax(c) gives plane c's
// vector) reduced together: two subtrees whose lanes hold groups of
// 2^(kLevel - 1) planes are interleaved group by group within each 128-bit
// block and combined, which halves the partial maxima per plane. At
// kLevel = log2(lanes per block), lane i of every block holds plane c + i.
// About three operations per plane, against a lane reduction each.
template <size_t kLevel, class Ops, class D, class PlaneMax>
HWY_INLINE hn::Vec<D> PoolPlaneTree(D d, const PlaneMax& planeMax, size_t c) {
  if constexpr (kLevel == 0) {
    return planeMax(c);
  } else {
    constexpr size_t kGroup = sizeof(hn::TFromD<D>) << (kLevel - 1);
    const hn::Repartition<hwy::UnsignedFromSize<kGroup>, D> du;
    const auto a = hn::BitCast(du, PoolPlaneTree<kLevel - 1, Ops>(d, planeMax, c));
    const auto b =
        hn::BitCast(du, PoolPlaneTree<kLevel - 1, Ops>(d, planeMax, c + (size_t{1} << (kLevel - 1))));
    return Ops::Combine(hn::BitCast(d, hn::InterleaveLower(du, a, b)),
                        hn::BitCast(d, hn::InterleaveUpper(du, a, b)));
  }
}

// Combines the 128-bit blocks of v into one.
template <class Ops, class D>
HWY_INLINE auto PoolFoldBlocks(D d, hn::Vec<D> v) {
  if constexpr (hn::MaxLanes(d) * sizeof(hn::TFromD<D>) > 16) {
    const hn::Half<D> dh;
    return PoolFoldBlocks<Ops>(dh, Ops::Combine(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)));
  } else {
    return v;
  }
}

// NCHW max over whole planes of at least Lanes(d) elements for integer keys
// (8- and 16-bit types; fp32 keeps PoolNchwGlobalMax's lane order for NaN):
// a block's worth of planes at a time through PoolPlaneTree, one store each.
// d has whole 128-bit blocks of known count (not SCALAR; on scalable
// targets the 128-bit tag).
template <class Cfg, class D>
void PoolNchwGlobalMaxTree(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  constexpr size_t kPerBlock = 16 / sizeof(L);
  constexpr size_t kLevels = hwy::FloorLog2(kPerBlock);
  const hn::CappedTag<L, kPerBlock> dq;  // the folded blocks
  const size_t plane = a.srcH * a.srcW;
  const hn::Vec<D> ident = Ops::Identity(d);
  for (size_t c0 = a.begin; c0 < a.end; c0 += kPerBlock) {
    const auto planeMax = [&](size_t c) HWY_ATTR -> hn::Vec<D> {
      if (c >= a.end) return ident;
      return PoolPlaneMax<Ops>(d, a.src + c * plane, plane);
    };
    PoolStoreDst<Ops>(dq, PoolFoldBlocks<Ops>(d, PoolPlaneTree<kLevels, Ops>(d, planeMax, c0)),
                      a.dst + c0, a.end - c0);
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

// NCHW average over whole planes (global pooling) of at least Lanes(d)
// elements: each plane is contiguous, so it is summed flat, four planes (a
// 128-bit block's worth of fp32 sums) in one pass with four independent
// chains of additions, then reduced together through PoolPlaneTree, scaled
// and stored at once. A plane's last chunk ends at the plane's end, its
// lanes that the whole chunks summed cleared, so nothing past the plane is
// read. Padding only adds +0, which changes no sum. (The separable paths'
// order, column sums over four planes and then their transposition, takes
// about 35 operations per 7x7 bf16 plane, this one about 16. bench:
// BM_Pooling<hwy::bfloat16_t>/avg:1/C:512/HW:7/k:7/s:1/p:0/nhwc:0.) One-lane
// vectors (planes of 1 to 3 elements, and the SCALAR target) go plane by
// plane.
template <class Cfg, class D>
void PoolNchwGlobalAverage(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  using T = typename Cfg::Elem;
  const size_t plane = a.srcH * a.srcW;
  const L scale = a.excludePad ? L(1) / static_cast<L>(plane) : static_cast<L>(a.scale);
#if HWY_TARGET != HWY_SCALAR
  if constexpr (hn::MaxLanes(D()) >= 4) {
    static_assert(std::is_same_v<L, float>, "4 sums per 128-bit block");
    const size_t N = hn::Lanes(d), body = plane / N * N;  // body: the whole chunks
    // The last chunk's lanes past the whole chunks.
    const auto fresh = hn::Not(hn::FirstN(d, body + N - plane));
    const hn::CappedTag<L, 4> dq;  // the folded blocks
    const hn::Vec<decltype(dq)> vscale = hn::Set(dq, scale);
    for (size_t c0 = a.begin; c0 < a.end; c0 += 4) {
      // Planes past the part repeat its last one; their sums are not stored.
      const size_t last = a.end - 1;
      const T* p0 = a.src + c0 * plane;
      const T* p1 = a.src + HWY_MIN(c0 + 1, last) * plane;
      const T* p2 = a.src + HWY_MIN(c0 + 2, last) * plane;
      const T* p3 = a.src + HWY_MIN(c0 + 3, last) * plane;
      V s0 = Ops::Load(d, p0), s1 = Ops::Load(d, p1), s2 = Ops::Load(d, p2), s3 = Ops::Load(d, p3);
      for (size_t i = N; i < body; i += N) {
        s0 = hn::Add(s0, Ops::Load(d, p0 + i));
        s1 = hn::Add(s1, Ops::Load(d, p1 + i));
        s2 = hn::Add(s2, Ops::Load(d, p2 + i));
        s3 = hn::Add(s3, Ops::Load(d, p3 + i));
      }
      if (body < plane) {
        const size_t t = plane - N;
        s0 = hn::Add(s0, hn::IfThenElseZero(fresh, Ops::Load(d, p0 + t)));
        s1 = hn::Add(s1, hn::IfThenElseZero(fresh, Ops::Load(d, p1 + t)));
        s2 = hn::Add(s2, hn::IfThenElseZero(fresh, Ops::Load(d, p2 + t)));
        s3 = hn::Add(s3, hn::IfThenElseZero(fresh, Ops::Load(d, p3 + t)));
      }
      const auto sumOfPlane = [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        if (k == 0) return s0;
        if (k == 1) return s1;
        if (k == 2) return s2;
        return s3;
      };
      const auto sums = PoolFoldBlocks<Ops>(d, PoolPlaneTree<2, Ops>(d, sumOfPlane, 0));
      PoolStoreDst<Ops>(dq, PoolScale(dq, sums, vscale), a.dst + c0, a.end - c0);
    }
  } else  // NOLINT(readability/braces)
#endif
  {
    static_assert(hn::MaxLanes(D()) == 1, "one lane: its sum is the plane's");
    const V vscale = hn::Set(d, scale);
    for (size_t c = a.begin; c < a.end; ++c) {
      const T* p = a.src + c * plane;
      V acc = Ops::Load(d, p);
      for (size_t i = 1; i < plane; ++i) acc = hn::Add(acc, Ops::Load(d, p + i));
      PoolStoreDst<Ops>(d, PoolScale(d, acc, vscale), a.dst + c, 1);
    }
  }
}

// NCHW windows of stride 2 along W that tile the row exactly: kernelX 3 with
// padX 1 (ResNet's 3x3 s2 p1) or kernelX 2 with padX 0, srcW == 2*dstW, 2D,
// any vertical geometry. Output j reads row columns 2j - padX .. 2j + 1, none
// of them past the row. Each output row is reduced in registers, 2N columns
// of the vertical step at a time: ConcatEven/ConcatOdd give columns 2j and
// 2j + 1, and the odd columns moved up one lane (the previous chunk's last
// one, or the identity element, coming in) give 2j - 1. Windows of 2 or 3
// rows inside src read src directly; the other rows (clipped at the plane's
// edges, more rows, or vectors past the end of src) take their vertical step
// through a buffer. (The path before wrote a block of rows to a buffer and
// reduced it in one flat pass: storing and reloading it, and the shifted
// deinterleave, cost twice the time on 112-byte u8 rows.)
// Lanes {carry[N - 1], v[0], ..., v[N - 2]}: v moved up one lane, the lane
// coming in from carry.
template <class D>
HWY_INLINE hn::Vec<D> PoolSlideUp1(D d, hn::Vec<D> v, hn::Vec<D> carry) {
#if HWY_HAVE_SCALABLE
  return PoolShiftInBuffered(d, carry, v, hn::Lanes(d) - 1);
#else
  return PoolShiftIn<hn::MaxLanes(D()) - 1>(d, carry, v);
#endif
}

// The even and odd columns of [x, x + 2N) from vert(x), the vertical step at
// columns [x, x + N).
template <class D, class Vert>
HWY_INLINE void PoolSplitColumns(D d, const Vert& vert, size_t x, hn::Vec<D>& e, hn::Vec<D>& od) {
#if HWY_TARGET == HWY_SCALAR
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

#if HWY_TARGET != HWY_SCALAR
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
#if HWY_TARGET != HWY_SCALAR
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

template <class Cfg, class D>
void PoolNchwHalfWidth(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using T = typename Cfg::Elem;
  using V = hn::Vec<D>;
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
    if (byArea) {
      // 1 / (row height times column width) (PoolScaleRows; element by
      // element, with a conversion each, they take as long as the pooling.
      // bench: BM_Pooling<float>/avg:1/C:3/HW:224/k:3/s:2/p:1/nhwc:0).
      for (size_t j = 0; j < wUp; ++j) widths[j] = static_cast<L>(left && j == 0 ? 2 : a.kX);
      PoolScaleRows(d, scales, tableRows, W2, W2, widths, a.kY * a.kX < (size_t{1} << 24),
                    [&](size_t r) {
                      return byHeight ? r + 1
                                      : detail::PoolWindow(r, a.sY, a.pY, a.kY, H).Size();
                    });
      std::fill(scales + tableRows * W2, scales + tableRows * W2 + N, L(1));
    }
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
  // Any row, its vertical step through the buffer (bounds-checked where a
  // load would leave src).
  auto buffered = [&](size_t dc, size_t dy) HWY_ATTR {
    const detail::PoolWindow wc(dc, a.sC, a.pC, a.kC, a.srcC);
    PoolNchwColumns<Ops>(d, a, wc, dy, Vr, false);
    // Lanes from W on (up to `span`, read by the last chunk) only reach
    // outputs past the row.
    const size_t o = (dc * a.dstH + dy) * W2;
    const L* const vr = Vr;
    const auto vert = [vr, d](size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE { return hn::LoadU(d, vr + x); };
    PoolHalfWidthRow<Ops>(
        d,
        [d, vert](size_t x, V& e, V& od) HWY_ATTR SYNETK_LAMBDA_INLINE {
          PoolSplitColumns(d, vert, x, e, od);
        },
        [](size_t) {}, dst + o, dstTotal - o, W2, left, rowScalesAt(dy), scale);
  };
  // `count` rows whose windows are `rows` (2 or 3) input rows inside src,
  // the first at s (PoolHalfWidthDirect).
  auto direct = [&](size_t rows, const T* s, size_t rowStep, T* out, size_t outStep,
                    size_t avail, size_t count, const L* rowScales) HWY_ATTR {
    const auto run = [&](auto x3, auto prefetch) HWY_ATTR {
      constexpr bool kX3 = decltype(x3)::value, kPrefetch = decltype(prefetch)::value;
      if (rows == 3) {
        PoolHalfWidthDirect<Ops, 3, kX3, kPrefetch>(d, s, W, rowStep, out, outStep, avail, count,
                                                     W2, rowScales, scale);
      } else {
        PoolHalfWidthDirect<Ops, 2, kX3, kPrefetch>(d, s, W, rowStep, out, outStep, avail, count,
                                                     W2, rowScales, scale);
      }
    };
    const bool prefetch = detail::softwarePrefetch;
    if (left) {
      prefetch ? run(std::true_type(), std::true_type())
               : run(std::true_type(), std::false_type());
    } else {
      prefetch ? run(std::false_type(), std::true_type())
               : run(std::false_type(), std::false_type());
    }
  };
  // An edge row (its window clipped by the plane or near the end of src):
  // direct when its window has 2 or 3 rows whose loads stay inside src (the
  // first row of 3x3 s2 p1 has 2), else through the buffer.
  auto edge = [&](size_t dc, size_t dy) HWY_ATTR {
    const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, H);
    const size_t rows = wy.Size(), at = dc * plane + wy.begin * W;
    const size_t o = (dc * a.dstH + dy) * W2;
    const L* const rowScales = rowScalesAt(dy);
    if ((rows == 2 || rows == 3) && at + (rows - 1) * W + span <= srcTotal) {
      direct(rows, src + at, 0, dst + o, 0, dstTotal - o, 1, rowScales);
    } else {
      buffered(dc, dy);
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
      direct(kY, src + at, rowStep, dst + o, W2, dstTotal - o, safe, scalesInterior);
      dy = dyLo + safe;
    }
    for (; dy < dstH; ++dy) edge(dc, dy);
  }
}


}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

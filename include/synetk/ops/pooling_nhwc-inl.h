// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NHWC (per target): the row loop (PoolNhwc), which takes the
// call's buffers and runs each output row as the plan's PoolRowKind says,
// with generic rows (per output pixel from the row buffer, 3D pooling too)
// for everything the row kinds in pooling_nhwc_*-inl.h do not take.

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
#include "synetk/ops/pooling_nhwc_flat-inl.h"
#include "synetk/ops/pooling_nhwc_pick-inl.h"
#include "synetk/ops/pooling_nhwc_stem-inl.h"
#include "synetk/ops/pooling_nhwc_strided-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// PoolNhwc's call: the geometry its rows need and its buffers, all taken
// (PoolNhwcCallOf) before anything is written. The row functions below copy
// the fields they use into locals: vector stores may alias anything, so the
// compiler would reload a field after each store.
template <class Cfg>
struct PoolNhwcCall {
  using L = typename PoolOps<Cfg>::L;
  using T = typename Cfg::Elem;
  size_t C, W, rowElems, kX, sX, pX, dstW, dstC;
  size_t srcTotal, dstTotal;  // stores may spill past a row, never past the part
  size_t pixels;              // a padded row's pixels in R
  size_t rowOut, rowLen, dxUp;
  size_t widthsLen;            // averages with excludePad: clipped widths, or 0
  size_t stridedBytes;         // PoolNhwcStridedRow's byte shuffle of a phase
  size_t planeLen;             // PoolNhwcPlanarRow's channel planes
  bool excludePad, pool3d;
  bool widthPerElement;  // clipped width per element (flat, pick, strided, pixel pairs)
  bool widthPerPixel;    // ... per pixel (planar rows)
  T* dst;
  L* R;       // the row buffer (R2: flat rows' second, in pairs)
  L* R2;
  L* pix;     // 3D: one pixel's channels before the channel window
  L* widths;  // clipped widths (widthPerElement, widthPerPixel)
  uint8_t* stridedIdx;
  uint8_t* stridedCounts;
  L* planes;
  // 1 / (rows * widths[j]) for windows of `rows` rows (PoolScale), or null
  // without excludePad; worked out when the row count changes, a few times
  // per call (the clipped rows at the top and bottom), not once per row.
  L* scales;
  L* carry;  // the stem rows' shared columns
};

// The call's geometry from its arguments and plan, and its buffers taken
// from a's scratch (sizing or too little memory: a.scratch->Fits() is false).
template <class Cfg, class D>
HWY_INLINE PoolNhwcCall<Cfg> PoolNhwcCallOf(D d, const detail::PoolArgs<typename Cfg::Elem>& a,
                                            const detail::PoolPlan& plan) {
  using L = typename PoolOps<Cfg>::L;
  using detail::PoolRowKind;
  const size_t N = hn::Lanes(d);
  PoolNhwcCall<Cfg> k;
  k.C = a.srcC;
  k.W = a.srcW;
  k.rowElems = k.W * k.C;
  k.kX = a.kX;
  k.sX = a.sX;
  k.pX = a.pX;
  k.dstW = a.dstW;
  k.dstC = a.dstC;
  k.excludePad = a.excludePad;
  k.pool3d = a.pool3d;
  k.dst = a.dst;
  k.srcTotal = a.srcH * k.rowElems;
  k.dstTotal = a.end * k.dstW * k.dstC;
  k.pixels = k.pX + k.W + k.dstW * k.sX + k.kX;
  k.rowOut = k.dstW * k.C;
  k.rowLen = k.pixels * k.C + PoolRoundUp(k.rowElems, N) - k.rowElems + 6 * N;
  k.dxUp = PoolRoundUp(k.dstW, N);
  const PoolRowKind rows = plan.rows;
  const bool planar = rows == PoolRowKind::kPlanar, strided = rows == PoolRowKind::kStrided;
  k.widthPerElement = !Cfg::isMax && k.excludePad &&
                      (rows == PoolRowKind::kFlat || rows == PoolRowKind::kPick || strided ||
                       rows == PoolRowKind::kPixelPairs);
  k.widthPerPixel = !Cfg::isMax && k.excludePad && planar;
  k.widthsLen = k.widthPerElement ? PoolRoundUp(k.rowOut + N, N)
                : k.widthPerPixel ? k.dxUp : 0;
  k.stridedBytes = N * sizeof(L);
  k.planeLen = planar ? PoolRoundUp(HWY_MAX(k.pixels, k.dxUp * k.sX + k.kX), N) + N : 0;
  const size_t phases = plan.stridedPhases;
  k.R = PoolAlignLanes(PoolTake<L>(a, (plan.flatPairs ? 2 * k.rowLen + N : k.rowLen) + 2 * N), N);
  k.pix = k.pool3d ? PoolTake<L>(a, PoolRoundUp(k.C, N) + N) : nullptr;
  k.widths = k.widthPerElement ? PoolTake<L>(a, k.rowOut + 2 * N)
             : k.widthPerPixel ? PoolTake<L>(a, k.dxUp) : nullptr;
  k.stridedIdx = strided ? PoolTake<uint8_t>(a, phases * (k.stridedBytes + 2)) : nullptr;
  k.stridedCounts = k.stridedIdx != nullptr ? k.stridedIdx + phases * k.stridedBytes : nullptr;
  k.planes = planar ? PoolTake<L>(a, 3 * k.planeLen + 3 * k.dxUp + 3 * N) : nullptr;
  k.scales = k.widthsLen != 0 ? PoolTake<L>(a, k.widthsLen) : nullptr;
  k.carry = rows == PoolRowKind::kStem ? PoolTake<L>(a, PoolRoundUp(k.C, N)) : nullptr;
  k.R2 = plan.flatPairs && k.R != nullptr ? PoolAlignLanes(k.R + k.rowLen, N) : nullptr;
  return k;
}

// PoolNhwcStridedRow's tables: for each of the `phases` vectors of a
// pattern, each 128-bit block's byte shuffle that packs its lanes of
// channels < C (of each sX*C lanes) to the front, and how many lanes those
// are.
template <typename L>
HWY_INLINE void PoolNhwcStridedTables(size_t N, size_t C, size_t sX, size_t phases,
                                      uint8_t* idx, uint8_t* counts) {
  const size_t bytes = N * sizeof(L), blockLanes = 16 / sizeof(L);
  for (size_t j = 0; j < phases; ++j) {
    for (size_t b = 0; b * 16 < bytes; ++b) {
      uint8_t* blockIdx = idx + j * bytes + b * 16;
      size_t n = 0;
      for (size_t i = 0; i < blockLanes; ++i) {
        if ((j * N + b * blockLanes + i) % (sX * C) >= C) continue;
        for (size_t t = 0; t < sizeof(L); ++t) {
          blockIdx[n * sizeof(L) + t] = static_cast<uint8_t>(i * sizeof(L) + t);
        }
        ++n;
      }
      counts[2 * j + b] = static_cast<uint8_t>(n);
      std::fill(blockIdx + n * sizeof(L), blockIdx + 16, uint8_t{0});
    }
  }
}

// Fills the call's buffers: identity in the row buffers and planes, the
// clipped widths, the strided rows' tables.
template <class Cfg, class D>
HWY_INLINE void PoolNhwcPrepare(D d, const PoolNhwcCall<Cfg>& k, const detail::PoolPlan& plan) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  const size_t N = hn::Lanes(d);
  const auto ident = Ops::Identity(d);
  for (L* buf : {k.R, k.R2}) {
    if (buf == nullptr) break;
    for (size_t i = 0; i + N <= k.rowLen; i += N) hn::StoreU(ident, d, buf + i);
    hn::StoreU(ident, d, buf + k.rowLen - N);
  }
  if constexpr (!Cfg::isMax) {
    if (k.widthPerElement) {
      const size_t sX = k.sX, pX = k.pX, kX = k.kX, W = k.W;
      PoolWidthsPerElement(d, k.widths, k.rowOut, k.C, [&](size_t dx) {
        return detail::PoolWindow(dx, sX, pX, kX, W).Size();
      });
    }
  }
  if (k.stridedIdx != nullptr) {
    PoolNhwcStridedTables<L>(N, k.C, k.sX, plan.stridedPhases, k.stridedIdx, k.stridedCounts);
  }
  if (k.planes != nullptr) {
    for (size_t i = 0; i + N <= 3 * k.planeLen; i += N) hn::StoreU(ident, d, k.planes + i);
    if (k.widthPerPixel) {
      for (size_t dx = 0; dx < k.dxUp; ++dx) {
        k.widths[dx] = dx < k.dstW
            ? static_cast<L>(detail::PoolWindow(dx, k.sX, k.pX, k.kX, k.W).Size()) : L(1);
      }
    }
  }
}

// The scales of windows of `rows` rows (null without excludePad), worked
// out again only when the row count changes (scalesRows: the last one).
template <class Cfg, class D>
HWY_INLINE const typename PoolOps<Cfg>::L* PoolNhwcScales(
    D d, const PoolNhwcCall<Cfg>& k, const detail::PoolArgs<typename Cfg::Elem>& a, size_t rows,
    size_t& scalesRows) {
  if constexpr (!Cfg::isMax) {
    if (k.scales != nullptr && rows != scalesRows) {
      PoolScaleRows(d, k.scales, 1, k.widthsLen, k.widthsLen, k.widths,
                    a.kY * a.kX < (size_t{1} << 24), [rows](size_t) { return rows; });
      scalesRows = rows;
    }
  }
  return k.scales;
}

// The vertical step of the window wy into R (at row = R + pX*C), then
// identity past it; rows that reach the end of src load bounds-checked.
template <class Cfg, class D>
HWY_INLINE void PoolNhwcVertical(D d, const PoolNhwcCall<Cfg>& k,
                                 const detail::PoolArgs<typename Cfg::Elem>& a,
                                 const detail::PoolWindow& wy) {
  using Ops = PoolOps<Cfg>;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d), rowElems = k.rowElems, srcTotal = k.srcTotal;
  typename Ops::L* row = k.R + k.pX * k.C;
  const V ident = Ops::Identity(d);
  if ((wy.end - 1) * rowElems + PoolRoundUp(rowElems, N) <= srcTotal) {
    PoolRows<Ops>(d, a.src + wy.begin * rowElems, rowElems, wy.Size(), rowElems, row, false);
    hn::StoreU(ident, d, row + rowElems);
    return;
  }
  for (size_t j = 0; j < rowElems; j += N) {
    V acc = ident;
    for (size_t y = wy.begin; y < wy.end; ++y) {
      const size_t o = y * rowElems + j;
      acc = Ops::Combine(acc, PoolLoadSrc<Ops>(d, a.src + o, srcTotal - o));
    }
    hn::StoreU(acc, d, row + j);
  }
  hn::StoreU(ident, d, row + rowElems);
}

// Output row dy as stem rows (3-wide stride-2 windows, wy's rows inside src).
template <class Cfg, class D>
HWY_INLINE void PoolNhwcStem(D d, const PoolNhwcCall<Cfg>& k,
                             const detail::PoolArgs<typename Cfg::Elem>& a, size_t dy,
                             const detail::PoolWindow& wy) {
  using Ops = PoolOps<Cfg>;
  const size_t N = hn::Lanes(d), C = k.C;
  const typename Cfg::Elem* s = a.src + wy.begin * k.rowElems;
  const size_t o = dy * k.rowOut;
  const float hy = static_cast<float>(wy.Size());
  const auto stemRow = [&](auto rows, auto oneVector) HWY_ATTR {
    PoolNhwcStemRow<Ops, decltype(rows)::value, decltype(oneVector)::value>(
        d, s, k.rowElems, C, k.W, k.pX, k.dstW, hy, a.scale, k.excludePad, k.dst + o,
        k.dstTotal - o, k.carry);
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
}

// PoolNhwcPickRow's layout of a call: `step` outputs per chunk, window
// starts `advance` apart; chunks [c0, c1) lie inside the row (2- or 3-wide
// windows, `direct`: read straight from src), their 2N lanes from
// pad - skip before the window start on; lanes[m]: channel m % C of the
// window of pixel m / C.
template <typename U>
struct PoolPickLayout {
  size_t step, advance, pad, c0, c1, chunks;
  bool direct;
  HWY_ALIGN U lanes[kMaxLanes<U>];
};

template <class Cfg, typename U>
HWY_INLINE void PoolPickLayoutOf(size_t N, const PoolNhwcCall<Cfg>& k, const detail::PoolPlan& plan,
                                 PoolPickLayout<U>& p) {
  const size_t C = k.C, sX = k.sX, kX = k.kX;
  p.step = HWY_MAX(plan.pickPixels, size_t{1}) * C;
  p.advance = p.step * sX;
  p.pad = k.pX * C;
  const size_t lead = p.pad - (plan.pickCarry ? C : 0);
  p.c0 = (lead + p.advance - 1) / p.advance;
  p.chunks = (k.rowOut + p.step - 1) / p.step;
  p.direct = (kX == 2 || kX == 3) && k.rowElems >= 2 * N;
  p.c1 = p.direct ? HWY_MIN((k.rowElems - 2 * N + lead) / p.advance + 1, p.chunks) : 0;
  std::fill(p.lanes, p.lanes + kMaxLanes<U>, U{0});
  for (size_t px = 0, m = 0; px < plan.pickPixels; ++px) {  // (no divisions: a few per
    for (size_t c = 0; c < C; ++c) {                       // call cost as much as a row)
      p.lanes[m++] = static_cast<U>(px * sX * C + c);
    }
  }
}

// Output row dy and the next ones whose windows have as many rows, sY input
// rows further each, as pick rows: 2 or 3 rows of 2- or 3-wide windows
// straight from src (several output rows per call), the others through R.
// Returns the output rows done.
template <class Cfg, class D, typename U>
HWY_INLINE size_t PoolNhwcPick(D d, const PoolNhwcCall<Cfg>& k,
                               const detail::PoolArgs<typename Cfg::Elem>& a,
                               const detail::PoolPlan& plan, const PoolPickLayout<U>& p,
                               size_t dy, const detail::PoolWindow& wy,
                               const typename PoolOps<Cfg>::L* sc) {
  using Ops = PoolOps<Cfg>;
  const size_t rows = wy.Size(), base = dy * k.rowOut, rowElems = k.rowElems;
  const typename Cfg::Elem* s = a.src + wy.begin * rowElems;
  size_t count = 1;
  if (p.direct && (rows == 2 || rows == 3)) {
    for (; dy + count < a.end; ++count) {
      const detail::PoolWindow next(dy + count, a.sY, a.pY, a.kY, a.srcH);
      if (next.Size() != rows || next.begin != wy.begin + count * a.sY) break;
    }
  }
  const auto pickRow = [&](auto taps, auto rowCount) HWY_ATTR {
    constexpr size_t kTaps = decltype(taps)::value, kRows = decltype(rowCount)::value;
    const auto run = [&](auto carried) HWY_ATTR {
      PoolNhwcPickRow<Ops, kTaps, kRows, decltype(carried)::value>(
          d, k.kX, s, rowElems, rowElems, k.R, p.pad, p.c0, p.c1, p.chunks, p.step, k.sX, k.C,
          p.lanes, sc, a.scale, k.dst + base, k.dstTotal - base, count, a.sY * rowElems,
          k.rowOut);
    };
    if constexpr (kTaps == 2) {  // (pickCarry needs 3-wide windows)
      run(std::false_type());
    } else {
      plan.pickCarry ? run(std::true_type()) : run(std::false_type());
    }
  };
  using K0 = std::integral_constant<size_t, 0>;
  using K2 = std::integral_constant<size_t, 2>;
  using K3 = std::integral_constant<size_t, 3>;
  if (p.direct && rows == 3) {
    k.kX == 3 ? pickRow(K3(), K3()) : pickRow(K2(), K3());
  } else if (p.direct && rows == 2) {
    k.kX == 3 ? pickRow(K3(), K2()) : pickRow(K2(), K2());
  } else {
    PoolNhwcVertical(d, k, a, wy);
    pickRow(K0(), K0());
  }
  return count;
}

// Output row dy from R (evenOdd: R's channels in PoolStackPairBF16's order).
template <class Cfg, class D, class EvenOdd>
HWY_INLINE void PoolNhwcFlat(D d, const PoolNhwcCall<Cfg>& k, float scale,
                             const typename PoolOps<Cfg>::L* R, size_t dy,
                             const typename PoolOps<Cfg>::L* sc, EvenOdd) {
  const size_t base = dy * k.rowOut;
  PoolNhwcFlatRow<PoolOps<Cfg>, EvenOdd::value>(d, R, k.C, k.kX, k.rowOut, sc, scale,
                                                k.dst + base, k.dstTotal - base);
}

// Output rows dy and dy + 1 as flat rows from one vertical pass, if row
// dy + 1's window is wy one row down, whole and inside src; false if not.
template <class Cfg, class D>
HWY_INLINE bool PoolNhwcFlatPair(D d, const PoolNhwcCall<Cfg>& k,
                                 const detail::PoolArgs<typename Cfg::Elem>& a, size_t dy,
                                 const detail::PoolWindow& wy, const typename PoolOps<Cfg>::L* sc) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  const size_t N = hn::Lanes(d), rowElems = k.rowElems;
  if (!(dy + 1 < a.end && wy.Size() == a.kY && wy.end < a.srcH &&
        wy.end * rowElems + PoolRoundUp(rowElems, N) <= k.srcTotal)) {
    return false;
  }
  const typename Cfg::Elem* s = a.src + wy.begin * rowElems;
  L* const outs[2] = {k.R + k.pX * k.C, k.R2 + k.pX * k.C};
  const auto store = [=](size_t r, size_t x, hn::Vec<D> v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    hn::StoreU(v, d, outs[r] + x);
  };
  // bf16 averages with whole blocks of 2N channels: the rows read as
  // 32-bit lanes, even and odd channels apart, until the store.
  bool evenOdd = false;
  if constexpr (Ops::kBF16Pairs) {
    evenOdd = k.C % (2 * N) == 0 && PoolWithTapCount(a.kY, [&](auto taps) HWY_ATTR {
      PoolStackPairBF16<Ops, HWY_MAX(decltype(taps)::value, size_t{2})>(
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
  for (L* out : outs) hn::StoreU(Ops::Identity(d), d, out + rowElems);
  if (evenOdd) {
    if constexpr (Ops::kBF16Pairs) {
      PoolNhwcFlat(d, k, a.scale, k.R, dy, sc, std::true_type());
      PoolNhwcFlat(d, k, a.scale, k.R2, dy + 1, sc, std::true_type());
    }
  } else {
    PoolNhwcFlat(d, k, a.scale, k.R, dy, sc, std::false_type());
    PoolNhwcFlat(d, k, a.scale, k.R2, dy + 1, sc, std::false_type());
  }
  return true;
}

// Output row dy from R pixel by pixel (any window; 3D pooling through pix).
template <class Cfg, class D>
HWY_INLINE void PoolNhwcGenericRow(D d, const PoolNhwcCall<Cfg>& k,
                                   const detail::PoolArgs<typename Cfg::Elem>& a, size_t dy,
                                   const detail::PoolWindow& wy) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t C = k.C, W = k.W, kX = k.kX, sX = k.sX, pX = k.pX, dstW = k.dstW, dstC = k.dstC;
  const size_t dstTotal = k.dstTotal;
  const bool excludePad = k.excludePad, pool3d = k.pool3d;
  typename Cfg::Elem* const dst = k.dst;
  const L* R = k.R;
  L* pix = k.pix;
  const hn::CappedTag<L, 1> d1;
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
          [&](size_t c, size_t tap) HWY_ATTR SYNETK_LAMBDA_INLINE {
            return hn::LoadU(d, r + tap * C + c);
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
      for (size_t t = kBegin + 1; t < kEnd; ++t) {
        acc = Ops::Combine(acc, hn::LoadU(d, r + t * C + c));
      }
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

// The NHWC row loop: each output row as the plan's row kind says
// (PlanPoolNhwcRows); edge rows that a kind cannot take run as generic rows.
template <class Cfg, class D>
void PoolNhwc(D d, const detail::PoolArgs<typename Cfg::Elem>& a, const detail::PoolPlan& plan) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using detail::PoolRowKind;
  const PoolNhwcCall<Cfg> k = PoolNhwcCallOf<Cfg>(d, a, plan);
  if (!a.scratch->Fits()) return;  // sizing, or too little memory: nothing written
  PoolNhwcPrepare(d, k, plan);
  using U = hn::TFromD<hn::RebindToUnsigned<D>>;
  PoolPickLayout<U> pick;
  PoolPickLayoutOf(hn::Lanes(d), k, plan, pick);
  const PoolRowKind rows = plan.rows;
  const size_t N = hn::Lanes(d), rowOut = k.rowOut;
  const size_t stemReach = k.rowElems - k.C + PoolRoundUp(k.C, N);
  size_t scalesRows = 0;
  for (size_t dy = a.begin; dy < a.end; ++dy) {
    const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, a.srcH);
    if (rows == PoolRowKind::kStem && (wy.end - 1) * k.rowElems + stemReach <= k.srcTotal) {
      PoolNhwcStem(d, k, a, dy, wy);
      continue;
    }
    if constexpr (kFastTwoTables<L>) {
      if (rows == PoolRowKind::kPick) {
        const L* sc = PoolNhwcScales(d, k, a, wy.Size(), scalesRows);
        dy += PoolNhwcPick(d, k, a, plan, pick, dy, wy, sc) - 1;
        continue;
      }
    }
    if (plan.flatPairs && PoolNhwcFlatPair(d, k, a, dy, wy,
                                           PoolNhwcScales(d, k, a, wy.Size(), scalesRows))) {
      ++dy;
      continue;
    }
    PoolNhwcVertical(d, k, a, wy);
    const size_t base = dy * rowOut;
#if SYNETK_HAS_MULTI_LANE
    if constexpr (sizeof(L) == 4 && hn::MaxLanes(D()) == 8) {  // (PoolRowsPixelPairs)
      if (rows == PoolRowKind::kPixelPairs) {
        const L* sc = PoolNhwcScales(d, k, a, wy.Size(), scalesRows);
        PoolWithTaps23(k.kX, [&](auto taps) HWY_ATTR {
          PoolNhwcPixelPairRow<Ops, decltype(taps)::value>(
              d, k.R, k.C, k.sX, k.kX, k.dstW, sc, static_cast<L>(a.scale), k.dst + base,
              k.dstTotal - base);
        });
        continue;
      }
    }
#endif
#if SYNETK_HAS_MULTI_LANE
    if (rows == PoolRowKind::kStrided) {
      const L* sc = PoolNhwcScales(d, k, a, wy.Size(), scalesRows);
      PoolWithTaps23(k.kX, [&](auto taps) HWY_ATTR {
        PoolNhwcStridedRow<Ops, decltype(taps)::value>(
            d, k.R, k.C, k.kX, (k.dstW - 1) * k.sX * k.C + k.C, k.stridedIdx, k.stridedCounts,
            plan.stridedPhases, sc, static_cast<L>(a.scale), k.dst + base, k.dstTotal - base);
      });
      continue;
    }
#endif
    if (rows == PoolRowKind::kFlat) {
      PoolNhwcFlat(d, k, a.scale, k.R, dy, PoolNhwcScales(d, k, a, wy.Size(), scalesRows),
                   std::false_type());
      continue;
    }
    if (rows == PoolRowKind::kPlanar) {
      PoolNhwcPlanarRow<Ops>(d, k.R, k.pixels, k.planes, k.planeLen, k.kX, k.sX, k.dstW, rowOut,
                             PoolNhwcScales(d, k, a, wy.Size(), scalesRows), a.scale,
                             k.dst + base, k.dstTotal - base);
      continue;
    }
    PoolNhwcGenericRow(d, k, a, dy, wy);
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

// Copyright synetk authors. SPDX-License-Identifier: MIT
// NCHW averages with stride 1 along W, straight from src (per target): no
// row buffer, rows summed in registers, two output rows at a time. fp32
// rows go in whole vectors; bf16 rows are read as 32-bit lanes whose halves
// are the even and odd columns, and stay in that form until the store.

#if defined(SYNETK_OPS_POOLING_NCHW_STRIDE1_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NCHW_STRIDE1_INL_H_
#undef SYNETK_OPS_POOLING_NCHW_STRIDE1_INL_H_
#else
#define SYNETK_OPS_POOLING_NCHW_STRIDE1_INL_H_
#endif

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Windows of more rows than this take the other paths.
inline constexpr size_t kPoolStride1MaxRows = 16;

// Element types with a PoolNchwStride1 path: fp32 in whole vectors, bf16 as
// column pairs (PoolOps::kBF16Pairs). (f16, through its promotions, ran
// slower than the stacked rows: 32x64x64 5x5 s1 p2 32 -> 41 us.)
template <class Cfg>
inline constexpr bool kPoolStride1Type =
    !Cfg::isMax && (PoolOps<Cfg>::kBF16Pairs || std::is_same_v<typename Cfg::Elem, float>) &&
    HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE;

// What every row of one PoolNchwStride1 call shares. Block b of a row is its
// columns [Bb, Bb + B): fp32, B = N, one vector; bf16, B = 2N, N 32-bit
// lanes (lane i: columns 2Nb + 2i and 2Nb + 2i + 1). The padded row's
// blocks (padded column i is column i - pX) are built from two of them.
struct PoolStride1Geom {
  size_t outBlocks;   // blocks of B outputs per output row
  size_t loadBlocks;  // blocks holding some input column (Bb < W)
  // The lanes of the tail block (loadBlocks - 1) that lie in the row (bf16:
  // the even columns', then the odd ones'): all ones, the others zero.
  const uint32_t* tailMask;
};

// bf16: the even and odd column sums of block b over n input rows (row r at
// base + r*pitch; reads up to the end of the last block are allowed),
// columns past the row zeroed. kTwo: two output rows whose windows share
// rows 1 .. n - 1 (rows 0 .. n in all): A sums rows [0, n), B rows [1, n].
template <bool kTwo, class D, typename T>
HWY_INLINE void PoolEvenOddBlock(D d, const T* base, size_t pitch, size_t n,
                                 const PoolStride1Geom& g, size_t b, hn::Vec<D>& eA,
                                 hn::Vec<D>& oA, hn::Vec<D>& eB, hn::Vec<D>& oB) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  if (b >= g.loadBlocks) {  // right padding only
    eA = oA = eB = oB = hn::Zero(d);
    return;
  }
  const T* p = base + 2 * N * b;
  if constexpr (kTwo) {
    V se, so, e, o;
    LoadBF16Pair(d, p + pitch, se, so);
    for (size_t r = 2; r < n; ++r) {
      LoadBF16Pair(d, p + r * pitch, e, o);
      se = hn::Add(se, e);
      so = hn::Add(so, o);
    }
    LoadBF16Pair(d, p, e, o);
    eA = hn::Add(e, se);
    oA = hn::Add(o, so);
    LoadBF16Pair(d, p + n * pitch, e, o);
    eB = hn::Add(se, e);
    oB = hn::Add(so, o);
  } else {
    V e, o;
    LoadBF16Pair(d, p, eA, oA);
    for (size_t r = 1; r < n; ++r) {
      LoadBF16Pair(d, p + r * pitch, e, o);
      eA = hn::Add(eA, e);
      oA = hn::Add(oA, o);
    }
  }
  if (b + 1 == g.loadBlocks) {
    // Lanes past the row came from the next one: zeroed, they are the
    // padding's +0 (a lane's sum involves only its own column).
    const hn::RebindToUnsigned<D> du;
    const V me = hn::BitCast(d, hn::Load(du, g.tailMask));
    const V mo = hn::BitCast(d, hn::Load(du, g.tailMask + N));
    eA = hn::And(eA, me);
    oA = hn::And(oA, mo);
    if constexpr (kTwo) {
      eB = hn::And(eB, me);
      oB = hn::And(oB, mo);
    }
  }
}

// Lanes moved up k: {prev, cur}'s lanes N - k .. 2N - k - 1.
template <size_t kK, class D>
HWY_INLINE hn::Vec<D> PoolEvenOddUp(D d, hn::Vec<D> prev, hn::Vec<D> cur) {
  return PoolShiftIn<hn::MaxLanes(D()) - kK>(d, prev, cur);
}

// Block b of the padded row (padded columns [2Nb, 2Nb + 2N), columns from
// 2Nb - kPX on) from blocks b - 1 and b of the row: with kPX = 2q its even
// and odd columns are the row's moved up q lanes, with kPX = 2q + 1 the
// odd ones moved up q + 1 and the even ones q. (Loading at 2Nb - pX
// instead put a block more per row through the vertical step, three for
// W = 64 with pX = 2, and split every load across cache lines: 32x64x64
// 5x5 s1 p2 on AVX3_DL, 34-37 us against 28.)
template <size_t kPX, class D>
HWY_INLINE void PoolEvenOddPadded(D d, hn::Vec<D> ePrev, hn::Vec<D> oPrev, hn::Vec<D> e,
                                  hn::Vec<D> o, hn::Vec<D>& pe, hn::Vec<D>& po) {
  if constexpr (kPX == 0) {
    (void)d;
    (void)ePrev;
    (void)oPrev;
    pe = e;
    po = o;
  } else if constexpr (kPX % 2 == 0) {
    pe = PoolEvenOddUp<kPX / 2>(d, ePrev, e);
    po = PoolEvenOddUp<kPX / 2>(d, oPrev, o);
  } else {
    pe = PoolEvenOddUp<kPX / 2 + 1>(d, oPrev, o);
    if constexpr (kPX == 1) {
      (void)ePrev;
      po = e;
    } else {
      po = PoolEvenOddUp<kPX / 2>(d, ePrev, e);
    }
  }
}

// f0 += P shifted by kJ (output 2m's window holds pair m + kJ while
// kJ < kX / 2), f1 likewise (output 2m + 1's while kJ <= (kX - 1) / 2).
template <size_t kX, size_t kJ, class D>
HWY_INLINE void PoolEvenOddPairTap(D d, hn::Vec<D> p, hn::Vec<D> pNext, hn::Vec<D>& f0,
                                   hn::Vec<D>& f1) {
  const hn::Vec<D> s = PoolShiftIn<kJ>(d, p, pNext);
  if constexpr (kJ < kX / 2) f0 = hn::Add(f0, s);
  if constexpr (kJ <= (kX - 1) / 2) f1 = hn::Add(f1, s);
}

template <size_t kX, class D, size_t... kJ>
HWY_INLINE void PoolEvenOddPairTaps(D d, hn::Vec<D> p, hn::Vec<D> pNext, hn::Vec<D>& f0,
                                    hn::Vec<D>& f1, std::index_sequence<kJ...>) {
  (PoolEvenOddPairTap<kX, kJ + 1>(d, p, pNext, f0, f1), ...);
}

// The kX-wide windows of outputs 2m (f0) and 2m + 1 (f1) of a block, from
// its padded column sums (e, o, and the pair sums p = e + o) and the next
// block's: output 2m takes P[m] .. P[m + kX/2 - 1] and, kX odd,
// E[m + kX/2]; output 2m + 1 takes O[m], P[m + 1] .. P[m + (kX-1)/2] and,
// kX even, E[m + kX/2]. 5 taps: 3 shifts and 4 additions per 2N outputs
// (and a pair sum), where the promoted rows took 6 and 6.
template <size_t kX, class D>
HWY_INLINE void PoolEvenOddTaps(D d, hn::Vec<D> e, hn::Vec<D> o, hn::Vec<D> p, hn::Vec<D> eNext,
                                hn::Vec<D> pNext, hn::Vec<D>& f0, hn::Vec<D>& f1) {
  if constexpr (kX == 1) {
    (void)d;
    (void)p;
    (void)eNext;
    (void)pNext;
    f0 = e;
    f1 = o;
  } else {
    f0 = p;
    f1 = o;
    PoolEvenOddPairTaps<kX>(d, p, pNext, f0, f1, std::make_index_sequence<(kX - 1) / 2>());
    const hn::Vec<D> last = PoolShiftIn<kX / 2>(d, e, eNext);
    if constexpr (kX % 2 == 1) {
      f0 = hn::Add(f0, last);
    } else {
      f1 = hn::Add(f1, last);
    }
  }
}

// Stores 2N bf16 outputs (N 32-bit lanes) at p, of which `avail` may be
// written.
template <class DU, typename T>
HWY_INLINE void PoolStoreLanePairs(DU du, hn::Vec<DU> v, T* p, size_t avail) {
  const size_t n = 2 * hn::Lanes(du);
  if (HWY_LIKELY(avail >= n)) {
    hn::StoreU(v, du, reinterpret_cast<uint32_t*>(p));
    return;
  }
  HWY_ALIGN uint32_t buf[kMaxLanes<uint32_t>];
  hn::Store(v, du, buf);
  std::memcpy(static_cast<void*>(p), buf, avail * sizeof(T));
}

// bf16: `groups` output rows at out (n input rows from base, pitch apart),
// or with kTwo pairs of rows (the second at out + dstW, n + 1 input rows);
// group g's input rows lie g*rowStep elements further, its outputs
// g*outStep; `avail` outputs may be written from out. Averages scale by tab
// (excludePad: block b's even outputs' 1 / area at tab + 2Nb, the odd ones'
// at tab + 2Nb + N) or else `scale`. Stores of whole blocks spill past a row
// onto outputs written later: with kTwo, row A's last block reaches into
// row B's first, so that one is stored last.
template <class Ops, size_t kX, size_t kPX, bool kTwo, class D, typename T>
HWY_NOINLINE void PoolEvenOddRows(D d, const T* base, size_t pitch, size_t n, size_t groups,
                                  size_t rowStep, const PoolStride1Geom& g,
                                  const typename Ops::L* tab, typename Ops::L scale, T* out,
                                  size_t dstW, size_t outStep, size_t avail) {
  using V = hn::Vec<D>;
  const hn::RebindToUnsigned<D> du;
  const size_t N = hn::Lanes(d);
  const V scaleAll = hn::Set(d, scale);
  const auto finish = [&](V f0, V f1, size_t o) HWY_ATTR SYNETK_LAMBDA_INLINE {
    f0 = PoolScale(d, f0, tab ? hn::LoadU(d, tab + o) : scaleAll);
    f1 = PoolScale(d, f1, tab ? hn::LoadU(d, tab + o + N) : scaleAll);
    return F32ToBF16Lanes<true>(d, f0, f1);
  };
  const V zero = hn::Zero(d);
  for (size_t grp = 0; grp < groups; ++grp, base += rowStep, out += outStep, avail -= outStep) {
    // Row blocks b (e, o) and padded blocks b (pe, po, pair sums pp) of
    // rows A and B.
    V eA, oA, eB, oB, peA, poA, ppA, peB, poB, ppB;
    PoolEvenOddBlock<kTwo>(d, base, pitch, n, g, 0, eA, oA, eB, oB);
    PoolEvenOddPadded<kPX>(d, zero, zero, eA, oA, peA, poA);
    ppA = hn::Add(peA, poA);
    if constexpr (kTwo) {
      PoolEvenOddPadded<kPX>(d, zero, zero, eB, oB, peB, poB);
      ppB = hn::Add(peB, poB);
    }
    auto firstB = hn::Zero(du);
    for (size_t b = 0; b < g.outBlocks; ++b) {
      V eA1, oA1, eB1, oB1, peA1, poA1, peB1, poB1;
      PoolEvenOddBlock<kTwo>(d, base, pitch, n, g, b + 1, eA1, oA1, eB1, oB1);
      PoolEvenOddPadded<kPX>(d, eA, oA, eA1, oA1, peA1, poA1);
      const V ppA1 = hn::Add(peA1, poA1);
      const size_t o = 2 * N * b;
      V f0, f1;
      PoolEvenOddTaps<kX>(d, peA, poA, ppA, peA1, ppA1, f0, f1);
      PoolStoreLanePairs(du, finish(f0, f1, o), out + o, avail - o);
      if constexpr (kTwo) {
        PoolEvenOddPadded<kPX>(d, eB, oB, eB1, oB1, peB1, poB1);
        const V ppB1 = hn::Add(peB1, poB1);
        PoolEvenOddTaps<kX>(d, peB, poB, ppB, peB1, ppB1, f0, f1);
        const auto packed = finish(f0, f1, o);
        if (b == 0) {
          firstB = packed;
        } else {
          PoolStoreLanePairs(du, packed, out + dstW + o, avail - dstW - o);
        }
        eB = eB1;
        oB = oB1;
        peB = peB1;
        poB = poB1;
        ppB = ppB1;
      }
      eA = eA1;
      oA = oA1;
      peA = peA1;
      poA = poA1;
      ppA = ppA1;
    }
    if constexpr (kTwo) PoolStoreLanePairs(du, firstB, out + dstW, avail - dstW);
  }
}

// fp32: the column sums of block b over n input rows, as PoolEvenOddBlock.
template <class Ops, bool kTwo, class D, typename T>
HWY_INLINE void PoolStride1Block(D d, const T* base, size_t pitch, size_t n,
                                 const PoolStride1Geom& g, size_t b, hn::Vec<D>& vA,
                                 hn::Vec<D>& vB) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  if (b >= g.loadBlocks) {  // right padding only
    vA = vB = hn::Zero(d);
    return;
  }
  const T* p = base + N * b;
  if constexpr (kTwo) {
    V s = Ops::Load(d, p + pitch);
    for (size_t r = 2; r < n; ++r) s = hn::Add(s, Ops::Load(d, p + r * pitch));
    vA = hn::Add(Ops::Load(d, p), s);
    vB = hn::Add(s, Ops::Load(d, p + n * pitch));
  } else {
    vA = Ops::Load(d, p);
    for (size_t r = 1; r < n; ++r) vA = hn::Add(vA, Ops::Load(d, p + r * pitch));
  }
  if (b + 1 == g.loadBlocks) {  // lanes past the row: +0, as in PoolEvenOddBlock
    const hn::RebindToUnsigned<D> du;
    const V m = hn::BitCast(d, hn::Load(du, g.tailMask));
    vA = hn::And(vA, m);
    if constexpr (kTwo) vB = hn::And(vB, m);
  }
}

// fp32: the kX taps of a block's outputs from its padded column sums and
// the next block's (kX <= N + 1).
template <size_t kX, class D, size_t... kK>
HWY_INLINE hn::Vec<D> PoolStride1Taps(D d, hn::Vec<D> cur, hn::Vec<D> next,
                                      std::index_sequence<kK...>) {
  hn::Vec<D> acc = cur;
  ((acc = hn::Add(acc, PoolShiftIn<kK + 1>(d, cur, next))), ...);
  return acc;
}

// fp32: PoolEvenOddRows with blocks of N columns; the padded row's block b
// is the row's blocks b - 1 and b moved up pX lanes.
template <class Ops, size_t kX, size_t kPX, bool kTwo, class D, typename T>
HWY_NOINLINE void PoolStride1Rows(D d, const T* base, size_t pitch, size_t n, size_t groups,
                                  size_t rowStep, const PoolStride1Geom& g,
                                  const typename Ops::L* tab, typename Ops::L scale, T* out,
                                  size_t dstW, size_t outStep, size_t avail) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const V scaleAll = hn::Set(d, scale);
  const V zero = hn::Zero(d);
  const auto padded = [&](V prev, V cur) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return PoolShiftIn<hn::MaxLanes(D()) - kPX>(d, prev, cur);
  };
  const auto window = [&](V cur, V next, size_t o) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const V sum = PoolStride1Taps<kX>(d, cur, next, std::make_index_sequence<kX - 1>());
    return PoolScale(d, sum, tab ? hn::LoadU(d, tab + o) : scaleAll);
  };
  for (size_t grp = 0; grp < groups; ++grp, base += rowStep, out += outStep, avail -= outStep) {
    V vA, vB, pA, pB;  // row blocks b and padded blocks b of rows A and B
    PoolStride1Block<Ops, kTwo>(d, base, pitch, n, g, 0, vA, vB);
    pA = padded(zero, vA);
    if constexpr (kTwo) pB = padded(zero, vB);
    V firstB = zero;
    for (size_t b = 0; b < g.outBlocks; ++b) {
      V vA1, vB1;
      PoolStride1Block<Ops, kTwo>(d, base, pitch, n, g, b + 1, vA1, vB1);
      const V pA1 = padded(vA, vA1);
      const size_t o = N * b;
      PoolStoreDst<Ops>(d, window(pA, pA1, o), out + o, avail - o);
      if constexpr (kTwo) {
        const V pB1 = padded(vB, vB1);
        const V r = window(pB, pB1, o);
        if (b == 0) {
          firstB = r;
        } else {
          PoolStoreDst<Ops>(d, r, out + dstW + o, avail - dstW - o);
        }
        vB = vB1;
        pB = pB1;
      }
      vA = vA1;
      pA = pA1;
    }
    if constexpr (kTwo) PoolStoreDst<Ops>(d, firstB, out + dstW, avail - dstW);
  }
}

template <bool kPairs, class Ops, size_t kX, size_t kPX, bool kTwo, class D, typename T>
HWY_INLINE void PoolStride1RowsOf(D d, const T* base, size_t pitch, size_t n, size_t groups,
                                  size_t rowStep, const PoolStride1Geom& g,
                                  const typename Ops::L* tab, typename Ops::L scale, T* out,
                                  size_t dstW, size_t outStep, size_t avail) {
  if constexpr (kPairs) {
    PoolEvenOddRows<Ops, kX, kPX, kTwo>(d, base, pitch, n, groups, rowStep, g, tab, scale, out,
                                        dstW, outStep, avail);
  } else {
    PoolStride1Rows<Ops, kX, kPX, kTwo>(d, base, pitch, n, groups, rowStep, g, tab, scale, out,
                                        dstW, outStep, avail);
  }
}

// The widest window PoolNchwStride1 takes on D: bf16 7 columns; fp32 5,
// with 8 lanes or more. (fp32 7x7 s1 p3 on AVX3_DL, one shift and one
// addition per tap, ran 67 -> 80 us against the stacked rows' pairs of
// taps; on 4-lane SSE4 every fp32 shape lost about 20%: 32x64x64 5x5 p2 57
// -> 71 us.)
template <class Cfg, class D>
inline constexpr size_t kPoolStride1MaxX =
    PoolOps<Cfg>::kBF16Pairs ? 7 : (hn::MaxLanes(D()) >= 8 ? 5 : 0);

// Whether PoolNchwStride1 serves a call: kPoolStride1Type, 2D, stride 1
// along W, windows of up to kPoolStride1MaxX columns padded by 0 or kX / 2
// (the instances) and up to kPoolStride1MaxRows rows, input and output rows
// of a block or more.
template <class Cfg, class D>
HWY_INLINE bool PoolNchwStride1Fits(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  if constexpr (kPoolStride1Type<Cfg>) {
    const size_t B = (PoolOps<Cfg>::kBF16Pairs ? 2 : 1) * hn::Lanes(d);
    return !a.pool3d && a.sX == 1 && a.kX <= kPoolStride1MaxX<Cfg, D> &&
           (a.pX == 0 || a.pX == a.kX / 2) && a.kY <= kPoolStride1MaxRows && a.srcW >= B &&
           a.dstW >= B;
  } else {
    (void)d;
    (void)a;
    return false;
  }
}

// NCHW averages with stride 1 along W, straight from src (no row buffer):
// each block of a window's rows is loaded (bf16: N 32-bit lanes split into
// even and odd columns by a shift and a mask, BF16LanesToF32), summed down
// the rows, then across (PoolStride1Taps, PoolEvenOddTaps), and stored
// (bf16: one vector of lanes, F32ToBF16Lanes). Stride-1 rows go two at a
// time, sharing the kY - 1 rows their windows have in common; one call runs
// all of a plane's unclipped rows. Windows with a row whose loads would
// leave src read zero-padded copies.
template <class Cfg, class D>
void PoolNchwStride1(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  if constexpr (kPoolStride1Type<Cfg>) {
    constexpr bool kPairs = PoolOps<Cfg>::kBF16Pairs;
    using Ops = PoolOps<Cfg>;
    using L = typename Ops::L;
    using T = typename Cfg::Elem;
    const size_t N = hn::Lanes(d), B = (kPairs ? 2 : 1) * N;  // block columns
    const size_t H = a.srcH, W = a.srcW, plane = H * W, srcTotal = a.srcC * plane;
    const size_t kY = a.kY, pX = a.pX, dstH = a.dstH, dstW = a.dstW;
    const size_t dstTotal = a.end * dstH * dstW;
    PoolStride1Geom g;
    g.outBlocks = (dstW + B - 1) / B;
    g.loadBlocks = (W + B - 1) / B;
    HWY_ALIGN uint32_t tailMask[2 * kMaxLanes<uint32_t>];
    for (size_t i = 0; i < B; ++i) {  // bf16: lane i % N of the even (i < N) or odd columns
      const size_t col = B * (g.loadBlocks - 1) + (kPairs ? 2 * (i % N) + i / N : i);
      tailMask[i] = col < W ? ~0u : 0u;
    }
    g.tailMask = tailMask;
    // Windows with a row whose loads (loadBlocks blocks) leave src read
    // copies of their rows, span apart, zeros past W.
    const size_t span = B * g.loadBlocks;
    T* const copies = PoolScratch<T, 2>(kPoolStride1MaxRows * span);  // (T may be L)
    const T* const src = a.src;
    const auto safe = [&](size_t start) { return start + span <= srcTotal; };
    // excludePad: per window height h, the outputs' 1 / area (bf16: in
    // blocks of even then odd outputs, PoolEvenOddRows), built when first
    // needed.
    const size_t tabLen = B * g.outBlocks;
    L* tabs = nullptr;
    L* widths = nullptr;
    bool built[kPoolStride1MaxRows + 1] = {};
    if (a.excludePad) {
      tabs = PoolScratch<L, 0>((kY + 1) * tabLen);
      widths = PoolScratch<L, 1>(tabLen);
      for (size_t j = 0; j < tabLen; ++j) {
        widths[j] = j < dstW ? static_cast<L>(detail::PoolWindow(j, 1, pX, a.kX, W).Size()) : L(1);
      }
    }
    const auto tabFor = [&](size_t h) -> const L* {
      if (tabs == nullptr) return nullptr;
      L* tab = tabs + (h - 1) * tabLen;
      if (!built[h]) {
        L* natural = tabs + kY * tabLen;
        PoolScaleRows(d, natural, 1, tabLen, tabLen, widths, true, [h](size_t) { return h; });
        for (size_t b = 0; b < tabLen; b += B) {
          for (size_t i = 0; i < N; ++i) {
            if constexpr (kPairs) {
              tab[b + i] = natural[b + 2 * i];
              tab[b + N + i] = natural[b + 2 * i + 1];
            } else {
              tab[b + i] = natural[b + i];
            }
          }
        }
        built[h] = true;
      }
      return tab;
    };
    const L scale = static_cast<L>(a.scale);
    T* const dst = a.dst;
    // Output rows [yLo, yEnd) have windows of kY rows inside the plane;
    // with stride 1 they go in pairs (kY >= 2), straight from src where
    // every row's loads stay inside it.
    const size_t yLo = HWY_MIN(dstH, (a.pY + a.sY - 1) / a.sY);
    const size_t yEnd = H + a.pY >= kY ? HWY_MIN(dstH, (H + a.pY - kY) / a.sY + 1) : 0;
    const bool pairs = a.sY == 1 && kY >= 2;
    // Compile-time kernel width and padding: pX 0 or kX / 2 (PoolNchwStride1Fits).
    const auto run = [&](auto kXc, auto kPXc) HWY_ATTR {
      constexpr size_t kX = decltype(kXc)::value, kPX = decltype(kPXc)::value;
      const auto single = [&](size_t dc, size_t dy) HWY_ATTR {
        const detail::PoolWindow wy(dy, a.sY, a.pY, kY, H);
        const size_t n = wy.Size(), o = (dc * dstH + dy) * dstW;
        const size_t start = dc * plane + wy.begin * W;
        const T* base = src + start;
        size_t pitch = W;
        if (!safe(start + (n - 1) * W)) {
          for (size_t i = 0; i < n; ++i) {
            std::memcpy(static_cast<void*>(copies + i * span), base + i * W, W * sizeof(T));
            std::memset(static_cast<void*>(copies + i * span + W), 0, (span - W) * sizeof(T));
          }
          base = copies;
          pitch = span;
        }
        PoolStride1RowsOf<kPairs, Ops, kX, kPX, false>(d, base, pitch, n, 1, 0, g, tabFor(n),
                                                       scale, dst + o, dstW, 0, dstTotal - o);
      };
      for (size_t dc = a.begin; dc < a.end; ++dc) {
        size_t dy = 0;
        for (; dy < yLo; ++dy) single(dc, dy);
        if (yEnd > yLo) {
          // Rows from yLo, their windows' first input row at `first`, in
          // one call (groups whose loads stay in src): pairs, or else rows
          // one by one.
          const size_t first = dc * plane + (yLo * a.sY - a.pY) * W;
          const size_t o = (dc * dstH + dy) * dstW;
          const size_t step = pairs ? 2 : 1;
          size_t count = (yEnd - yLo) / step;
          const auto lastRow = [&](size_t groups) {  // of the groups' last window
            return first + ((groups - 1) * step * a.sY + kY + step - 2) * W;
          };
          while (count > 0 && !safe(lastRow(count))) --count;
          if (count > 0 && pairs) {
            PoolStride1RowsOf<kPairs, Ops, kX, kPX, true>(d, src + first, W, kY, count, 2 * W,
                                                          g, tabFor(kY), scale, dst + o, dstW,
                                                          2 * dstW, dstTotal - o);
          } else if (count > 0) {
            PoolStride1RowsOf<kPairs, Ops, kX, kPX, false>(d, src + first, W, kY, count,
                                                           a.sY * W, g, tabFor(kY), scale,
                                                           dst + o, dstW, dstW, dstTotal - o);
          }
          dy += count * step;
        }
        for (; dy < dstH; ++dy) single(dc, dy);
      }
    };
    PoolWithTapCount(a.kX, [&](auto kXc) HWY_ATTR {
      constexpr size_t kX = decltype(kXc)::value;
      if constexpr (kX <= kPoolStride1MaxX<Cfg, D>) {
        if (pX == 0) {
          run(kXc, std::integral_constant<size_t, 0>());
        } else {
          run(kXc, std::integral_constant<size_t, kX / 2>());
        }
      }
    });
  } else {
    (void)d;
    (void)a;
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

// Copyright synetk authors. SPDX-License-Identifier: MIT
// NCHW averages and max with stride 1 along W, straight from src (per
// target): no row buffer, rows reduced in registers, four or two output rows
// at a time. Max keys and fp32 and f16 sums go in whole vectors; bf16
// averages' rows are read as 32-bit lanes whose halves are the even and odd
// columns, and stay in that form until the store.

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

// Windows of more rows than this take the other paths (pooling_plan.h).
using detail::kPoolStride1MaxRows;

// Element types with a PoolNchwStride1 path: every max key, fp32 and f16
// averages (promoted at every load) in whole vectors, bf16 averages as
// column pairs (PoolOps::kBF16Pairs). f16 gains here only because the fp32
// taps leave the row unmoved and rows go four at a time. bench:
// BM_Pooling<hwy::float16_t>/avg:1/C:32/HW:64/k:5/s:1/p:2/nhwc:0.
template <class Cfg>
inline constexpr bool kPoolStride1Type =
    (Cfg::isMax || PoolOps<Cfg>::kBF16Pairs || std::is_same_v<typename Cfg::Elem, float> ||
     std::is_same_v<typename Cfg::Elem, hwy::float16_t>) &&
    SYNETK_HAS_MULTI_LANE && !HWY_HAVE_SCALABLE;

// What every row of one PoolNchwStride1 call shares. Block b of a row is its
// columns [Bb, Bb + B): fp32, B = N, one vector; bf16, B = 2N, N 32-bit
// lanes (lane i: columns 2Nb + 2i and 2Nb + 2i + 1). The padded row's
// blocks (padded column i is column i - pX) are built from two of them.
struct PoolStride1Geom {
  size_t outBlocks;   // blocks of B outputs per output row
  size_t loadBlocks;  // blocks holding some input column (Bb < W)
  // The columns of the tail block (loadBlocks - 1) that lie in the row: whole
  // columns, the first tailLanes; column pairs (bf16), a mask of the even
  // columns' lanes, then the odd ones': all ones, the others zero.
  size_t tailLanes;
  const uint32_t* tailMask;
};

// Lanes moved up k: {prev, cur}'s lanes N - k .. 2N - k - 1.
template <size_t kK, class D>
HWY_INLINE hn::Vec<D> PoolLanesUp(D d, hn::Vec<D> prev, hn::Vec<D> cur) {
  return PoolShiftIn<hn::MaxLanes(D()) - kK>(d, prev, cur);
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

// The two forms of a block of column sums or maxima (PoolStride1Geom), each
// with Load (one row's block at p), Add, Identity, Clip
// (lanes outside the row to the identity: a lane's sum involves only its own
// column), Padded<kPX, kX> (the Pad, PadOf<kX, kPX>, of block b: what its
// outputs need of the padded row, from block b - 1's Pad and the row's
// blocks b - 1 and b; IdentityPad before the row), Window<kX, kPX> (the
// block's outputs from its Pad and the next, averages scaled by the lanes at
// tab or by scaleAll) and Store (Lanes * kVectors outputs, `avail`
// writable).

// Whole vectors (fp32 sums, max keys): N columns. Output x of block b sums
// the row's columns x + k - kPX, k < kX: lanes of the row's blocks b - 1, b
// and b + 1 moved by up to N lanes (kX <= N + 1), so the padded block
// carries those blocks instead of moving the row first. Symmetric windows of
// 4 or 5 columns add pair sums P[x] = R[x] + R[x + 1] (computed once per
// block) at the offsets up to 0, then the columns left: 5 taps in 3 moves
// and 3 additions, where moving to the padded row and then each tap takes 5
// and 4. bench: BM_Pooling<float>/avg:1/C:32/HW:64/k:5/s:1/p:2/nhwc:0.
template <class Ops, class D>
struct PoolWholeColumns {
  using V = hn::Vec<D>;
  struct Block {
    V v;
  };
  // For block b + 1: row block b (kPairSums: its pair sums) and b + 1.
  struct Pad {
    V keep, cur;
  };
  using Out = V;
  static constexpr size_t kVectors = 1;
  template <typename T>
  static HWY_INLINE Block Load(D d, const T* p) {
    return {Ops::Load(d, p)};
  }
  // Sums here stay additions, whatever Ops::kSumsOnFma says: these rows
  // add more than they convert, and their f16 averages are slower as FMAs.
  static HWY_INLINE V Sum(V a, V b) {
    if constexpr (Ops::kOrderFree) {
      return Ops::Combine(a, b);
    } else {
      return hn::Add(a, b);
    }
  }
  static HWY_INLINE Block Add(Block a, Block b) { return {Sum(a.v, b.v)}; }
  static HWY_INLINE Block Identity(D d) { return {Ops::Identity(d)}; }
  static HWY_INLINE Block Clip(D d, Block a, const PoolStride1Geom& g) {
    return {hn::IfThenElse(hn::FirstN(d, g.tailLanes), a.v, Ops::Identity(d))};
  }
  template <size_t kX, size_t kPX>
  static constexpr bool kPairSums = kPX == kX / 2 && (kX == 4 || kX == 5);
  template <size_t kX, size_t kPX>
  using PadOf = Pad;
  template <size_t kX, size_t kPX>
  static HWY_INLINE Pad IdentityPad(D d) {
    return {Ops::Identity(d), Ops::Identity(d)};
  }
  template <size_t kPX, size_t kX>
  static HWY_INLINE Pad Padded(D d, const Pad&, Block prev, Block cur) {
    if constexpr (kPairSums<kX, kPX>) {
      return {Sum(prev.v, PoolShiftIn<1>(d, prev.v, cur.v)), cur.v};
    } else {
      return {prev.v, cur.v};
    }
  }
  // R[x + kO] for the lanes x of block b, from blocks b - 1, b and b + 1.
  template <int kO>
  static HWY_INLINE V Tap(D d, V prev, V cur, V next) {
    if constexpr (kO < 0) {
      (void)next;
      return PoolLanesUp<static_cast<size_t>(-kO)>(d, prev, cur);
    } else {
      (void)prev;
      return PoolShiftIn<static_cast<size_t>(kO)>(d, cur, next);
    }
  }
  template <int kFirst, size_t... kK>
  static HWY_INLINE V Taps(D d, V acc, V prev, V cur, V next, std::index_sequence<kK...>) {
    (void)d;  // (no taps: 1-column windows)
    (void)prev;
    (void)cur;
    (void)next;
    ((acc = Sum(acc, Tap<kFirst + static_cast<int>(kK)>(d, prev, cur, next))), ...);
    return acc;
  }
  template <size_t kX, size_t kPX>
  static HWY_INLINE Out Window(D d, Pad cur, Pad next, const hn::TFromD<D>* tab, V scaleAll) {
    constexpr int kLo = -static_cast<int>(kPX);
    V sum;
    if constexpr (kPairSums<kX, kPX>) {
      // P at offsets kLo and kLo + 2 (the second is 0), then R at 2 if kX is 5.
      sum = Sum(Tap<kLo>(d, cur.keep, next.keep, next.keep), next.keep);
      if constexpr (kX == 5) sum = Sum(sum, Tap<2>(d, cur.keep, cur.cur, next.cur));
    } else {
      sum = Tap<kLo>(d, cur.keep, cur.cur, next.cur);
      sum = Taps<kLo + 1>(d, sum, cur.keep, cur.cur, next.cur, std::make_index_sequence<kX - 1>());
    }
    if constexpr (Ops::kDivides) return PoolScale(d, sum, tab ? hn::LoadU(d, tab) : scaleAll);
    (void)tab;
    (void)scaleAll;
    return sum;
  }
  static HWY_INLINE Out OutZero(D d) { return hn::Zero(d); }
  template <typename T>
  static HWY_INLINE void Store(D d, Out v, T* p, size_t avail) {
    PoolStoreDst<Ops>(d, v, p, avail);
  }
};

// bf16: 2N columns as N 32-bit lanes (BF16LanesToF32), e the even columns'
// sums and o the odd ones'; the outputs leave as one vector of lanes
// (F32ToBF16Lanes), the even outputs' scales at tab, the odd ones' at
// tab + N.
template <class Ops, class D>
struct PoolColumnPairs {
  using V = hn::Vec<D>;
  using DU = hn::RebindToUnsigned<D>;
  struct Block {
    V e, o;
  };
  using Out = hn::Vec<DU>;
  static constexpr size_t kVectors = 2;
  template <typename T>
  static HWY_INLINE Block Load(D d, const T* p) {
    V e, o;
    LoadBF16Pair(d, p, e, o);
    return {e, o};
  }
  static HWY_INLINE Block Add(Block a, Block b) { return {hn::Add(a.e, b.e), hn::Add(a.o, b.o)}; }
  static HWY_INLINE Block Identity(D d) { return {hn::Zero(d), hn::Zero(d)}; }
  static HWY_INLINE Block Clip(D d, Block a, const PoolStride1Geom& g) {
    const DU du;
    return {hn::And(a.e, hn::BitCast(d, hn::Load(du, g.tailMask))),
            hn::And(a.o, hn::BitCast(d, hn::Load(du, g.tailMask + hn::Lanes(d))))};
  }
  // With kPX = 2q the padded row's even and odd columns are the row's moved
  // up q lanes; with kPX = 2q + 1 its even ones are the row's odd ones moved
  // up q + 1, its odd ones the row's even ones moved up q. (Loading at
  // 2Nb - pX instead would put a block more per row through the vertical
  // step, three for W = 64 with pX = 2, and split every load across cache
  // lines. bench: BM_Pooling<hwy::bfloat16_t>/avg:1/C:32/HW:64/k:5/s:1/p:2/nhwc:0.)
  //
  // Odd windows padded by kX / 2 (kFold) keep the row unmoved instead: block
  // b's Pad holds its E, O, P and the previous block's P and O, and each
  // output takes its taps straight from those (Window). 5x5: 4 shifts and 5
  // additions per 2N outputs, where moving the row and summing the taps
  // took 5 and 6.
  template <size_t kX, size_t kPX>
  static constexpr bool kFold = kX % 2 == 1 && kX >= 3 && kPX == kX / 2;
  struct FoldPad {
    V e, o, p, pPrev, oPrev;
  };
  template <size_t kX, size_t kPX>
  using PadOf = std::conditional_t<kFold<kX, kPX>, FoldPad, Block>;
  template <size_t kX, size_t kPX>
  static HWY_INLINE PadOf<kX, kPX> IdentityPad(D d) {
    const V z = hn::Zero(d);
    if constexpr (kFold<kX, kPX>) {
      return {z, z, z, z, z};
    } else {
      return {z, z};
    }
  }
  template <size_t kPX, size_t kX>
  static HWY_INLINE PadOf<kX, kPX> Padded(D d, const PadOf<kX, kPX>& prevPad, Block prev,
                                          Block cur) {
    if constexpr (kFold<kX, kPX>) {
      return {cur.e, cur.o, hn::Add(cur.e, cur.o), prevPad.p, prev.o};
    } else {
      (void)prevPad;
      return Moved<kPX>(d, prev, cur);
    }
  }
  template <size_t kPX>
  static HWY_INLINE Block Moved(D d, Block prev, Block cur) {
    if constexpr (kPX == 0) {
      (void)d;
      (void)prev;
      return cur;
    } else if constexpr (kPX % 2 == 0) {
      return {PoolLanesUp<kPX / 2>(d, prev.e, cur.e), PoolLanesUp<kPX / 2>(d, prev.o, cur.o)};
    } else if constexpr (kPX == 1) {
      return {PoolLanesUp<1>(d, prev.o, cur.o), cur.e};
    } else {
      return {PoolLanesUp<kPX / 2 + 1>(d, prev.o, cur.o), PoolLanesUp<kPX / 2>(d, prev.e, cur.e)};
    }
  }
  // With pair sums P = E + O, output 2m takes P[m] .. P[m + kX/2 - 1] and,
  // kX odd, E[m + kX/2]; output 2m + 1 takes O[m], P[m + 1] ..
  // P[m + (kX-1)/2] and, kX even, E[m + kX/2]. 5 taps: 3 shifts and 4
  // additions per 2N outputs besides the pair sums, where the promoted rows
  // took 6 and 6.
  // Folded (kFold, h = kX / 2): P[m + j] from the pair sums of blocks b - 1,
  // b and b + 1 (PairAt), O[m - j] and E[m + j] likewise. h = 2k + 1: both
  // outputs share P[m - k] .. P[m + k], then output 2m adds O[m - k - 1]
  // and output 2m + 1 E[m + k + 1]; h = 2k: they share P[m - k + 1] ..
  // P[m + k - 1], then output 2m adds P[m - k] and E[m + k], output 2m + 1
  // P[m + k] and O[m - k].
  template <int kJ>
  static HWY_INLINE V PairAt(D d, const FoldPad& cur, const FoldPad& next) {
    if constexpr (kJ < 0) {
      (void)next;
      return PoolLanesUp<static_cast<size_t>(-kJ)>(d, cur.pPrev, cur.p);
    } else {
      return PoolShiftIn<static_cast<size_t>(kJ)>(d, cur.p, next.p);
    }
  }
  template <int kFirst, size_t... kJ>
  static HWY_INLINE V PairSum(D d, const FoldPad& cur, const FoldPad& next,
                              std::index_sequence<0, kJ...>) {
    V sum = PairAt<kFirst>(d, cur, next);
    ((sum = hn::Add(sum, PairAt<kFirst + static_cast<int>(kJ)>(d, cur, next))), ...);
    return sum;
  }
  template <size_t kX, size_t kPX>
  static HWY_INLINE Out Window(D d, const FoldPad& cur, const FoldPad& next, const float* tab,
                               V scaleAll) {
    constexpr int kH = static_cast<int>(kX / 2), kK = kH / 2;
    V f0, f1;
    if constexpr (kH % 2 == 1) {
      const V shared = PairSum<-kK>(d, cur, next, std::make_index_sequence<2 * kK + 1>());
      f0 = hn::Add(shared, PoolLanesUp<kK + 1>(d, cur.oPrev, cur.o));
      f1 = hn::Add(shared, PoolShiftIn<kK + 1>(d, cur.e, next.e));
    } else {
      const V shared = PairSum<1 - kK>(d, cur, next, std::make_index_sequence<2 * kK - 1>());
      f0 = hn::Add(hn::Add(shared, PairAt<-kK>(d, cur, next)),
                   PoolShiftIn<kK>(d, cur.e, next.e));
      f1 = hn::Add(hn::Add(shared, PairAt<kK>(d, cur, next)),
                   PoolLanesUp<kK>(d, cur.oPrev, cur.o));
    }
    f0 = PoolScale(d, f0, tab ? hn::LoadU(d, tab) : scaleAll);
    f1 = PoolScale(d, f1, tab ? hn::LoadU(d, tab + hn::Lanes(d)) : scaleAll);
    return F32ToBF16Lanes<true>(d, f0, f1);
  }
  template <size_t kX, size_t kPX>
  static HWY_INLINE Out Window(D d, const Block& cur, const Block& next, const float* tab,
                               V scaleAll) {
    V f0 = cur.e, f1 = cur.o;
    if constexpr (kX >= 2) {
      const V p = hn::Add(cur.e, cur.o);
      f0 = p;
      if constexpr (kX >= 3) {
        PoolEvenOddPairTaps<kX>(d, p, hn::Add(next.e, next.o), f0, f1,
                                std::make_index_sequence<(kX - 1) / 2>());
      }
      const V last = PoolShiftIn<kX / 2>(d, cur.e, next.e);
      if constexpr (kX % 2 == 1) {
        f0 = hn::Add(f0, last);
      } else {
        f1 = hn::Add(f1, last);
      }
    }
    f0 = PoolScale(d, f0, tab ? hn::LoadU(d, tab) : scaleAll);
    f1 = PoolScale(d, f1, tab ? hn::LoadU(d, tab + hn::Lanes(d)) : scaleAll);
    return F32ToBF16Lanes<true>(d, f0, f1);
  }
  static HWY_INLINE Out OutZero(D) { return hn::Zero(DU()); }
  template <typename T>
  static HWY_INLINE void Store(D, Out v, T* p, size_t avail) {
    const DU du;
    const size_t n = 2 * hn::Lanes(du);
    if (HWY_LIKELY(avail >= n)) {
      hn::StoreU(v, du, reinterpret_cast<uint32_t*>(p));
      return;
    }
    HWY_ALIGN uint32_t buf[kMaxLanes<uint32_t>];
    hn::Store(v, du, buf);
    std::memcpy(static_cast<void*>(p), buf, avail * sizeof(T));
  }
};

// The column sums of block b over n input rows (row r at base + r*pitch;
// reads up to the end of the last block are allowed), columns past the row
// cleared (Clip). kTwo: two output rows whose windows share rows 1 .. n - 1
// (rows 0 .. n in all): A sums rows [0, n), B rows [1, n].
template <class Layout, bool kTwo, class D, typename T>
HWY_INLINE void PoolStride1Block(D d, const T* base, size_t pitch, size_t n,
                                 const PoolStride1Geom& g, size_t b,
                                 typename Layout::Block& sumA, typename Layout::Block& sumB) {
  using Block = typename Layout::Block;
  if (b >= g.loadBlocks) {  // right padding only
    sumA = sumB = Layout::Identity(d);
    return;
  }
  const T* p = base + Layout::kVectors * hn::Lanes(d) * b;
  if constexpr (kTwo) {
    Block shared = Layout::Load(d, p + pitch);
    for (size_t r = 2; r < n; ++r) shared = Layout::Add(shared, Layout::Load(d, p + r * pitch));
    sumA = Layout::Add(Layout::Load(d, p), shared);
    sumB = Layout::Add(shared, Layout::Load(d, p + n * pitch));
  } else {
    sumA = Layout::Load(d, p);
    for (size_t r = 1; r < n; ++r) sumA = Layout::Add(sumA, Layout::Load(d, p + r * pitch));
  }
  if (b + 1 == g.loadBlocks) {  // lanes past the row came from the next one
    sumA = Layout::Clip(d, sumA, g);
    if constexpr (kTwo) sumB = Layout::Clip(d, sumB, g);
  }
}

// PoolStride1Block for four output rows whose windows (n >= 4 rows each)
// start one input row apart, rows 0 .. n + 2: C_j = rows j .. n - 1 (from
// C_3, rows 3 .. n - 1), then row j adds rows n .. n + j - 1. n + 4
// additions and n + 3 loads for four rows, where two pairs took 2n + 2 and
// 2n + 2.
template <class Layout, class D, typename T>
HWY_INLINE void PoolStride1Block4(D d, const T* base, size_t pitch, size_t n,
                                  const PoolStride1Geom& g, size_t b,
                                  typename Layout::Block& s0, typename Layout::Block& s1,
                                  typename Layout::Block& s2, typename Layout::Block& s3) {
  using Block = typename Layout::Block;
  if (b >= g.loadBlocks) {  // right padding only
    s0 = s1 = s2 = s3 = Layout::Identity(d);
    return;
  }
  const T* p = base + Layout::kVectors * hn::Lanes(d) * b;
  Block core = Layout::Load(d, p + 3 * pitch);
  for (size_t r = 4; r < n; ++r) core = Layout::Add(core, Layout::Load(d, p + r * pitch));
  const Block c2 = Layout::Add(Layout::Load(d, p + 2 * pitch), core);
  const Block c1 = Layout::Add(Layout::Load(d, p + pitch), c2);
  s0 = Layout::Add(Layout::Load(d, p), c1);
  const Block t1 = Layout::Load(d, p + n * pitch);
  s1 = Layout::Add(c1, t1);
  const Block t2 = Layout::Add(t1, Layout::Load(d, p + (n + 1) * pitch));
  s2 = Layout::Add(c2, t2);
  s3 = Layout::Add(core, Layout::Add(t2, Layout::Load(d, p + (n + 2) * pitch)));
  if (b + 1 == g.loadBlocks) {  // lanes past the row came from the next one
    s0 = Layout::Clip(d, s0, g);
    s1 = Layout::Clip(d, s1, g);
    s2 = Layout::Clip(d, s2, g);
    s3 = Layout::Clip(d, s3, g);
  }
}

// Layouts whose rows go four at a time (PoolStride1Rows, kRows 4): fewer
// loads and additions per row than pairs. bf16, whose blocks are two
// vectors, spills with 16 registers and keeps pairs off AVX-512. bench:
// BM_Pooling<float>/avg:1/C:32/HW:64/k:5/s:1/p:2/nhwc:0.
template <class Layout>
inline constexpr bool kPoolStride1Fours = Layout::kVectors == 1 || SYNETK_HAS_AVX512;

// What the row groups of one PoolStride1Rows call share: the identity
// blocks, the block width B and the averages' scales (excludePad: block b's
// at tab + Bb, else scaleAll). kAhead: the sums and padded blocks of block
// b + 1 come from step b - 1, so step b's windows wait on nothing it loads
// (block b + 2), and the loads go out first. Taken where the loads convert
// (f16 averages) and the target has 32 registers (with 16 it spills); fp32
// and the maxima run no faster so, and 8-bit maxima slower. bench:
// BM_Pooling<hwy::float16_t>/avg:1/C:32/HW:64/k:5/s:1/p:2/nhwc:0.
template <class Layout, size_t kX, size_t kPX, class D, typename T>
struct PoolStride1Pass {
  using Block = typename Layout::Block;
  using Pad = typename Layout::template PadOf<kX, kPX>;
  static constexpr bool kAhead =
      kPool32Registers && Layout::kVectors == 1 && sizeof(T) < sizeof(hn::TFromD<D>);
  D d;
  size_t B;  // block columns
  const hn::TFromD<D>* tab;
  hn::Vec<D> scaleAll;
  Block empty;   // Layout::Identity
  Pad emptyPad;  // Layout::IdentityPad, the padded block before the row

  // The padded block b + 1 of a row from its padded block b (prevPad) and
  // its row blocks b (prev) and b + 1 (cur).
  HWY_INLINE Pad Padded(const Pad& prevPad, const Block& prev, const Block& cur) const {
    return Layout::template Padded<kPX, kX>(d, prevPad, prev, cur);
  }
  // The outputs of one output row's block b (o = Bb) from its padded blocks
  // b (cur) and b + 1 (next).
  HWY_INLINE typename Layout::Out Window(const Pad& cur, const Pad& next, size_t o) const {
    return Layout::template Window<kX, kPX>(d, cur, next, tab ? tab + o : nullptr, scaleAll);
  }
  // One output row's state on to the next block: padded block b + 1 (q)
  // becomes the current one (pad) and, with kAhead, block b + 2's padded
  // block comes from the sums of b + 1 (next) and b + 2 (m); without it, m
  // becomes the row's sums (sums).
  HWY_INLINE void Advance(Pad& pad, Pad& q, Block& sums, Block& next, const Block& m) const {
    pad = q;
    if constexpr (kAhead) {
      q = Padded(q, next, m);
      next = m;
    } else {
      sums = m;
    }
  }
};

// One group of four output rows of PoolStride1Rows (kRows 4): row j at out
// + j*dstW, its window's n input rows from base + j*pitch, summed together
// (PoolStride1Block4); `avail` outputs may be written from out. Row 0's
// blocks are stored as they come, the first blocks of rows 1-3 last.
template <class Layout, size_t kX, size_t kPX, class D, typename T>
HWY_INLINE void PoolStride1FourRows(const PoolStride1Pass<Layout, kX, kPX, D, T>& pass,
                                    const T* base, size_t pitch, size_t n,
                                    const PoolStride1Geom& g, T* out, size_t dstW, size_t avail) {
  using Block = typename Layout::Block;
  using Pad = typename Layout::template PadOf<kX, kPX>;
  constexpr bool kAhead = PoolStride1Pass<Layout, kX, kPX, D, T>::kAhead;
  const D d = pass.d;
  const Block empty = pass.empty;
  // Rows 0-3 of the group (PoolStride1Block4).
  Block r0 = empty, r1 = empty, r2 = empty, r3 = empty;
  PoolStride1Block4<Layout>(d, base, pitch, n, g, 0, r0, r1, r2, r3);
  Pad p0 = pass.Padded(pass.emptyPad, empty, r0);
  Pad p1 = pass.Padded(pass.emptyPad, empty, r1);
  Pad p2 = pass.Padded(pass.emptyPad, empty, r2);
  Pad p3 = pass.Padded(pass.emptyPad, empty, r3);
  auto first1 = Layout::OutZero(d), first2 = first1, first3 = first1;
  // kAhead (PoolStride1Pass): the sums and padded blocks of block b + 1 (n,
  // q) from step b - 1.
  Block n0 = empty, n1 = empty, n2 = empty, n3 = empty;
  Pad q0 = p0, q1 = p1, q2 = p2, q3 = p3;
  if constexpr (kAhead) {
    PoolStride1Block4<Layout>(d, base, pitch, n, g, 1, n0, n1, n2, n3);
    q0 = pass.Padded(p0, r0, n0);
    q1 = pass.Padded(p1, r1, n1);
    q2 = pass.Padded(p2, r2, n2);
    q3 = pass.Padded(p3, r3, n3);
  }
  for (size_t b = 0; b < g.outBlocks; ++b) {
    Block m0 = empty, m1 = empty, m2 = empty, m3 = empty;
    PoolStride1Block4<Layout>(d, base, pitch, n, g, b + 1 + kAhead, m0, m1, m2, m3);
    // (Without kAhead, each padded block comes just before its window:
    // all four ahead of the windows is slower.)
    const size_t o = pass.B * b;
    if constexpr (!kAhead) q0 = pass.Padded(p0, r0, m0);
    Layout::Store(d, pass.Window(p0, q0, o), out + o, avail - o);
    if constexpr (!kAhead) q1 = pass.Padded(p1, r1, m1);
    const auto o1 = pass.Window(p1, q1, o);
    if constexpr (!kAhead) q2 = pass.Padded(p2, r2, m2);
    const auto o2 = pass.Window(p2, q2, o);
    if constexpr (!kAhead) q3 = pass.Padded(p3, r3, m3);
    const auto o3 = pass.Window(p3, q3, o);
    if (b == 0) {
      first1 = o1;
      first2 = o2;
      first3 = o3;
    } else {
      Layout::Store(d, o1, out + dstW + o, avail - dstW - o);
      Layout::Store(d, o2, out + 2 * dstW + o, avail - 2 * dstW - o);
      Layout::Store(d, o3, out + 3 * dstW + o, avail - 3 * dstW - o);
    }
    pass.Advance(p0, q0, r0, n0, m0);
    pass.Advance(p1, q1, r1, n1, m1);
    pass.Advance(p2, q2, r2, n2, m2);
    pass.Advance(p3, q3, r3, n3, m3);
  }
  Layout::Store(d, first1, out + dstW, avail - dstW);
  Layout::Store(d, first2, out + 2 * dstW, avail - 2 * dstW);
  Layout::Store(d, first3, out + 3 * dstW, avail - 3 * dstW);
}

// One group of kRows (1 or 2) output rows of PoolStride1Rows: rows A and B
// at out and out + dstW, their windows' n input rows from base and base +
// pitch (PoolStride1Block); `avail` outputs may be written from out. Row
// B's first block is stored last.
template <size_t kRows, class Layout, size_t kX, size_t kPX, class D, typename T>
HWY_INLINE void PoolStride1OneOrTwoRows(const PoolStride1Pass<Layout, kX, kPX, D, T>& pass,
                                        const T* base, size_t pitch, size_t n,
                                        const PoolStride1Geom& g, T* out, size_t dstW,
                                        size_t avail) {
  using Block = typename Layout::Block;
  using Pad = typename Layout::template PadOf<kX, kPX>;
  constexpr bool kAhead = PoolStride1Pass<Layout, kX, kPX, D, T>::kAhead;
  const D d = pass.d;
  const Block empty = pass.empty;
  // Row blocks b and padded blocks b (padA, padB) of rows A and B. (Every
  // Block starts as a copy: its implicit default constructor lies outside
  // the target's attributes, which NEON builds reject.)
  Block rowA = empty, rowB = empty;
  PoolStride1Block<Layout, kRows == 2>(d, base, pitch, n, g, 0, rowA, rowB);
  Pad padA = pass.Padded(pass.emptyPad, empty, rowA), padB = padA;
  if constexpr (kRows == 2) padB = pass.Padded(pass.emptyPad, empty, rowB);
  auto firstB = Layout::OutZero(d);
  // kAhead (PoolStride1Pass): block b + 1's sums (nA, nB) and padded blocks
  // (qA, qB) from step b - 1.
  Block nA = empty, nB = empty;
  Pad qA = padA, qB = padB;
  if constexpr (kAhead) {
    PoolStride1Block<Layout, kRows == 2>(d, base, pitch, n, g, 1, nA, nB);
    qA = pass.Padded(padA, rowA, nA);
    if constexpr (kRows == 2) qB = pass.Padded(padB, rowB, nB);
  }
  for (size_t b = 0; b < g.outBlocks; ++b) {
    Block mA = empty, mB = empty;
    PoolStride1Block<Layout, kRows == 2>(d, base, pitch, n, g, b + 1 + kAhead, mA, mB);
    if constexpr (!kAhead) qA = pass.Padded(padA, rowA, mA);
    const size_t o = pass.B * b;
    Layout::Store(d, pass.Window(padA, qA, o), out + o, avail - o);
    if constexpr (kRows == 2) {
      if constexpr (!kAhead) qB = pass.Padded(padB, rowB, mB);
      const auto outB = pass.Window(padB, qB, o);
      if (b == 0) {
        firstB = outB;
      } else {
        Layout::Store(d, outB, out + dstW + o, avail - dstW - o);
      }
      pass.Advance(padB, qB, rowB, nB, mB);
    }
    pass.Advance(padA, qA, rowA, nA, mA);
  }
  if constexpr (kRows == 2) Layout::Store(d, firstB, out + dstW, avail - dstW);
}

// `groups` groups of kRows output rows (1, 2 or 4; row j of a group at out
// + j*dstW, its window's first input row at base + j*pitch, n rows each);
// group g's input rows lie g*rowStep elements further, its outputs
// g*outStep; `avail` outputs may be written from out. Averages scale by tab
// (excludePad: block b's scales at tab + Bb, PoolNchwStride1) or else
// `scale`. Stores of whole blocks spill past a row onto outputs written
// later: a row's last block reaches into the next row's first, so the
// first blocks of rows 1 .. kRows - 1 are stored last.
template <class Layout, size_t kX, size_t kPX, size_t kRows, class D, typename T>
HWY_NOINLINE void PoolStride1Rows(D d, const T* base, size_t pitch, size_t n, size_t groups,
                                  size_t rowStep, const PoolStride1Geom& g,
                                  const hn::TFromD<D>* tab, hn::TFromD<D> scale, T* out,
                                  size_t dstW, size_t outStep, size_t avail) {
  const PoolStride1Pass<Layout, kX, kPX, D, T> pass{
      d, Layout::kVectors * hn::Lanes(d), tab, hn::Set(d, scale), Layout::Identity(d),
      Layout::template IdentityPad<kX, kPX>(d)};
  for (size_t grp = 0; grp < groups; ++grp, base += rowStep, out += outStep, avail -= outStep) {
    if constexpr (kRows == 4) {
      PoolStride1FourRows(pass, base, pitch, n, g, out, dstW, avail);
    } else {
      PoolStride1OneOrTwoRows<kRows>(pass, base, pitch, n, g, out, dstW, avail);
    }
  }
}

// The widest window PoolNchwStride1 takes on D: bf16 7 columns; fp32 5,
// with 8 lanes or more. (fp32 7x7, one shift and one addition per tap, is
// slower than the stacked rows' pairs of taps, and on 4-lane targets every
// fp32 shape is slower than stacked rows.)
template <class Cfg, class D>
inline constexpr size_t kPoolStride1MaxX =
    PoolOps<Cfg>::kBF16Pairs ? 7 : (hn::MaxLanes(D()) >= 8 ? 5 : 0);


// The blocks of one PoolNchwStride1 call's rows (PoolStride1Geom): W input
// columns, dstW outputs, B columns per block of N lanes. Column pairs
// (kPairs, bf16) fill tailMask, which the caller keeps.
template <bool kPairs>
inline PoolStride1Geom PoolStride1GeomOf(size_t N, size_t B, size_t W, size_t dstW,
                                         uint32_t* tailMask) {
  PoolStride1Geom g;
  g.outBlocks = (dstW + B - 1) / B;
  g.loadBlocks = (W + B - 1) / B;
  g.tailLanes = W - B * (g.loadBlocks - 1);
  if constexpr (kPairs) {
    for (size_t i = 0; i < B; ++i) {  // lane i % N of the even (i < N) or odd columns
      const size_t col = B * (g.loadBlocks - 1) + 2 * (i % N) + i / N;
      tailMask[i] = col < W ? ~0u : 0u;
    }
  }
  g.tailMask = tailMask;
  return g;
}

// excludePad's scales of one PoolNchwStride1 call: per window height h, the
// outputs' 1 / area, a table of tabLen (bf16: in blocks of B, even then odd
// outputs, PoolColumnPairs), built when first needed (For). tabs holds kY +
// 1 tables, the last one for the outputs in order; widths the outputs'
// clipped widths. Both null without excludePad.
template <class Cfg, class D>
struct PoolStride1Scales {
  using L = typename PoolOps<Cfg>::L;
  L* tabs;
  L* widths;
  size_t tabLen, kY, N, B;
  bool built[kPoolStride1MaxRows + 1];

  // widths[j]: output j's clipped width (dstW outputs of kX columns padded
  // by pX over W), 1 past dstW.
  void SetWidths(size_t dstW, size_t pX, size_t kX, size_t W) {
    for (size_t j = 0; j < tabLen; ++j) {
      widths[j] = j < dstW ? static_cast<L>(detail::PoolWindow(j, 1, pX, kX, W).Size()) : L(1);
    }
  }
  // The table of windows of h rows (null without excludePad).
  const L* For(D d, size_t h) {
    if (tabs == nullptr) return nullptr;
    L* tab = tabs + (h - 1) * tabLen;
    if constexpr (!Cfg::isMax) {
      if (!built[h]) {
        L* natural = tabs + kY * tabLen;
        PoolScaleRows(d, natural, 1, tabLen, tabLen, widths, true, [h](size_t) { return h; });
        for (size_t b = 0; b < tabLen; b += B) {
          for (size_t i = 0; i < N; ++i) {
            if constexpr (PoolOps<Cfg>::kBF16Pairs) {
              tab[b + i] = natural[b + 2 * i];
              tab[b + N + i] = natural[b + 2 * i + 1];
            } else {
              tab[b + i] = natural[b + i];
            }
          }
        }
        built[h] = true;
      }
    }
    return tab;
  }
};

// What the planes of one PoolNchwStride1 call share: its arguments, blocks
// and scales, and the copies of rows near the end of src. Output rows [yLo,
// yEnd) have windows of kY rows inside the plane; with stride 1 they go in
// fours (kY >= 4, kPoolStride1Fours) or pairs (kY >= 2, `pairs`), straight
// from src where every row's loads stay inside it; the rows left over one by
// one (Single).
template <class Cfg, class D, class Layout>
struct PoolStride1Planes {
  using T = typename Cfg::Elem;
  using L = typename PoolOps<Cfg>::L;
  D d;
  const detail::PoolArgs<T>& a;
  const PoolStride1Geom& g;
  PoolStride1Scales<Cfg, D>& scales;
  T* copies;  // kPoolStride1MaxRows rows, span apart
  size_t span;  // the elements a row's loads read (loadBlocks blocks)
  size_t plane, srcTotal, dstTotal, yLo, yEnd;
  bool pairs;
  L scale;

  // Whether loads of a row starting at src + start stay inside src.
  bool Safe(size_t start) const { return start + span <= srcTotal; }

  // Output row dy of plane dc on its own: from zero-padded copies of its
  // window's rows where some row's loads would leave src.
  template <size_t kX, size_t kPX>
  void Single(size_t dc, size_t dy) {
    const size_t W = a.srcW, dstW = a.dstW;
    const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, a.srcH);
    const size_t n = wy.Size(), o = (dc * a.dstH + dy) * dstW;
    const size_t start = dc * plane + wy.begin * W;
    const T* base = a.src + start;
    size_t pitch = W;
    if (!Safe(start + (n - 1) * W)) {
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(static_cast<void*>(copies + i * span), base + i * W, W * sizeof(T));
        std::memset(static_cast<void*>(copies + i * span + W), 0, (span - W) * sizeof(T));
      }
      base = copies;
      pitch = span;
    }
    PoolStride1Rows<Layout, kX, kPX, 1>(d, base, pitch, n, 1, 0, g, scales.For(d, n), scale,
                                        a.dst + o, dstW, 0, dstTotal - o);
  }

  // The output rows of plane dc: the clipped ones one by one, the rows from
  // yLo, their windows' first input row at `first`, in one call (groups
  // whose loads stay in src): fours, pairs, or else rows one by one.
  template <size_t kX, size_t kPX>
  HWY_INLINE void Plane(size_t dc) {
    const size_t W = a.srcW, kY = a.kY, dstH = a.dstH, dstW = a.dstW;
    const T* const src = a.src;
    T* const dst = a.dst;
    size_t dy = 0;
    for (; dy < yLo; ++dy) Single<kX, kPX>(dc, dy);
    if (yEnd > yLo) {
      const size_t first = dc * plane + (yLo * a.sY - a.pY) * W;
      const size_t o = (dc * dstH + dy) * dstW;
      bool fours = false;
      if constexpr (kPoolStride1Fours<Layout>) fours = pairs && kY >= 4;
      const size_t step = fours ? 4 : pairs ? 2 : 1;
      size_t count = (yEnd - yLo) / step;
      const auto lastRow = [&](size_t groups) {  // of the groups' last window
        return first + ((groups - 1) * step * a.sY + kY + step - 2) * W;
      };
      while (count > 0 && !Safe(lastRow(count))) --count;
      if (count > 0 && fours) {
        if constexpr (kPoolStride1Fours<Layout>) {
          PoolStride1Rows<Layout, kX, kPX, 4>(d, src + first, W, kY, count, 4 * W, g,
                                              scales.For(d, kY), scale, dst + o, dstW, 4 * dstW,
                                              dstTotal - o);
        }
      } else if (count > 0 && pairs) {
        PoolStride1Rows<Layout, kX, kPX, 2>(d, src + first, W, kY, count, 2 * W, g,
                                            scales.For(d, kY), scale, dst + o, dstW, 2 * dstW,
                                            dstTotal - o);
      } else if (count > 0) {
        PoolStride1Rows<Layout, kX, kPX, 1>(d, src + first, W, kY, count, a.sY * W, g,
                                            scales.For(d, kY), scale, dst + o, dstW, dstW,
                                            dstTotal - o);
      }
      dy += count * step;
    }
    for (; dy < dstH; ++dy) Single<kX, kPX>(dc, dy);
  }

  // Every plane of the call's part.
  template <size_t kX, size_t kPX>
  void Run() {
    for (size_t dc = a.begin; dc < a.end; ++dc) Plane<kX, kPX>(dc);
  }
};

// NCHW averages and max with stride 1 along W, straight from src (no row
// buffer): each block of a window's rows is loaded (bf16 averages: N 32-bit
// lanes split into even and odd columns by a shift and a mask,
// BF16LanesToF32), reduced down the rows, then across (PoolWholeColumns /
// PoolColumnPairs), and stored (bf16 averages: one vector of lanes,
// F32ToBF16Lanes). Stride-1 rows go four
// (PoolStride1Rows, kRows 4) or two at a time, sharing the rows their windows have
// in common; one call runs all of a plane's unclipped rows. Windows with a
// row whose loads would leave src read zero-padded copies.
template <class Cfg, class D>
void PoolNchwStride1(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  if constexpr (kPoolStride1Type<Cfg>) {
    constexpr bool kPairs = PoolOps<Cfg>::kBF16Pairs;
    using Ops = PoolOps<Cfg>;
    using Layout =
        std::conditional_t<kPairs, PoolColumnPairs<Ops, D>, PoolWholeColumns<Ops, D>>;
    using L = typename Ops::L;
    using T = typename Cfg::Elem;
    const size_t N = hn::Lanes(d), B = Layout::kVectors * N;  // block columns
    const size_t H = a.srcH, W = a.srcW, plane = H * W, srcTotal = a.srcC * plane;
    const size_t kY = a.kY, pX = a.pX, dstH = a.dstH, dstW = a.dstW;
    const size_t dstTotal = a.end * dstH * dstW;
    HWY_ALIGN uint32_t tailMask[2 * kMaxLanes<uint32_t>];
    const PoolStride1Geom g = PoolStride1GeomOf<kPairs>(N, B, W, dstW, tailMask);
    // Windows with a row whose loads (loadBlocks blocks) leave src read
    // copies of their rows, span apart, zeros past W.
    const size_t span = B * g.loadBlocks;
    const bool byArea = !Cfg::isMax && a.excludePad;
    const size_t tabLen = B * g.outBlocks;
    T* const copies = PoolTake<T>(a, kPoolStride1MaxRows * span);  // (T may be L)
    L* const tabs = byArea ? PoolTake<L>(a, (kY + 1) * tabLen) : nullptr;
    L* const widths = byArea ? PoolTake<L>(a, tabLen) : nullptr;
    if (!a.scratch->Fits()) return;  // sizing, or too little memory: nothing written
    PoolStride1Scales<Cfg, D> scales{tabs, widths, tabLen, kY, N, B, {}};
    if (byArea) scales.SetWidths(dstW, pX, a.kX, W);
    const size_t yLo = HWY_MIN(dstH, (a.pY + a.sY - 1) / a.sY);
    const size_t yEnd = H + a.pY >= kY ? HWY_MIN(dstH, (H + a.pY - kY) / a.sY + 1) : 0;
    const bool pairs = a.sY == 1 && kY >= 2;
    PoolStride1Planes<Cfg, D, Layout> planes{
        d, a, g, scales, copies, span, plane, srcTotal, dstTotal, yLo, yEnd, pairs,
        static_cast<L>(a.scale)};
    // Compile-time kernel width and padding: pX 0 or kX / 2 (PoolIsStride1).
    PoolWithTapCount(a.kX, [&](auto kXc) HWY_ATTR {
      constexpr size_t kX = decltype(kXc)::value;
      if constexpr (kX <= kPoolStride1MaxX<Cfg, D>) {
        if (pX == 0) {
          planes.template Run<kX, 0>();
        } else {
          planes.template Run<kX, kX / 2>();
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

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NCHW (per target), one window covering each whole plane
// (PoolPath::kNchwGlobalMax, kNchwGlobalMaxTree, kNchwGlobalAverage): each
// plane is contiguous and reduces flat, without a row buffer, on the vector
// PoolPlan::width names. PoolKernel (pooling-inl.h) runs them.

#if defined(SYNETK_OPS_POOLING_NCHW_GLOBAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NCHW_GLOBAL_INL_H_
#undef SYNETK_OPS_POOLING_NCHW_GLOBAL_INL_H_
#else
#define SYNETK_OPS_POOLING_NCHW_GLOBAL_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

#if SYNETK_HAS_MULTI_LANE  // one-lane vectors: no interleaves, no halves
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
#endif  // SYNETK_HAS_MULTI_LANE

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
#if SYNETK_HAS_MULTI_LANE
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

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

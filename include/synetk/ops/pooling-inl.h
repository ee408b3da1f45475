// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling layers (average, max 2D/3D): per-target kernels. One body serves
// every target, element type and format. Public functors are in pooling.h.
//
// Algorithm (separable, so overlapping windows share work):
//  1. vertical: for one output row, reduce the clipped input rows (and, in 3D
//     max pooling, the clipped channel window in NCHW) into a padded row
//     buffer R, vectorized along the contiguous axis (W in NCHW, W*C in NHWC);
//  2. horizontal: reduce kernelX entries of R per output, vectorized across
//     output columns in NCHW (stride 2..4 by LoadInterleaved, larger strides
//     by a small gather) and across channels in NHWC.
// R carries identity elements (-inf / lowest key / 0) in its padding, so the
// horizontal step never clips.
// Shortcuts: 2x2 stride-2 windows on inputs that pair up exactly skip R
// (PoolNchwPairs / PoolNhwcPairs), and so do NCHW stride-2 windows that tile
// even rows (PoolNchwHalfWidth) and NHWC 3-wide stride-2 windows
// (PoolNhwcStemRow), and NCHW averages and max of stride 1 along W
// (PoolNchwStride1: bf16 averages' rows split into even and odd columns); NHWC with 3
// channels and strideX > 1 pools channel planes split from R; NCHW global
// pooling reduces each plane without R
// (max: flat; average: column sums, then the columns in order), NHWC global
// pooling each vector of channels straight from src.
// Max pooling works on order-preserving keys of the stored bits (bf16/f16:
// sign-magnitude -> two's complement), so its output is always one of the
// inputs, bit for bit.

#if defined(SYNETK_OPS_POOLING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_INL_H_
#undef SYNETK_OPS_POOLING_INL_H_
#else
#define SYNETK_OPS_POOLING_INL_H_
#endif

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"
#include "synetk/ops/pooling_nchw-inl.h"
#include "synetk/ops/pooling_nchw_global-inl.h"
#include "synetk/ops/pooling_nchw_half_width-inl.h"
#include "synetk/ops/pooling_nchw_stride1-inl.h"
#include "synetk/ops/pooling_nhwc-inl.h"
#include "synetk/ops/pooling_nhwc_global-inl.h"
#include "synetk/ops/pooling_pairs-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// What the planner needs of this target and Cfg's element type.
template <class Cfg>
HWY_INLINE detail::PoolCaps PoolCapsOf() {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  const hn::ScalableTag<L> d;
  detail::PoolCaps c;
  c.max = Cfg::isMax;
  c.nhwc = std::is_same_v<typename Cfg::Fmt, Nhwc>;
  c.laneBytes = sizeof(L);
  c.floatLanes = std::is_same_v<L, float>;
  c.elemBytes = sizeof(typename Cfg::Elem);
  c.bf16Pairs = Ops::kBF16Pairs;
  c.lanes = hn::Lanes(d);
  c.scalar = !SYNETK_HAS_MULTI_LANE;
  c.scalable = HWY_HAVE_SCALABLE;
  c.twoTables = kFastTwoTables<L>;
  c.avx2 = SYNETK_IS_X86_AVX2;
  c.stride1 = kPoolStride1Type<Cfg>;
  c.stride1MaxX = kPoolStride1MaxX<Cfg, decltype(d)>;
  return c;
}

// NCHW global pooling on the plan's vector (only the widths PlanPoolGlobal
// picks on this target are instantiated).
template <class Cfg, class D>
HWY_INLINE void PoolNchwGlobal(D d, const detail::PoolArgs<typename Cfg::Elem>& a,
                               const detail::PoolPlan& plan) {
  using L = typename PoolOps<Cfg>::L;
  using detail::PoolWidth;
  const hn::CappedTag<L, 16 / sizeof(L)> dq;
  if constexpr (!Cfg::isMax) {
#if SYNETK_HAS_MULTI_LANE
    if constexpr (!HWY_HAVE_SCALABLE) {
      if (plan.width == PoolWidth::kFull) return PoolNchwGlobalAverage<Cfg>(d, a);
      if (plan.width == PoolWidth::k8Lanes) {
        return PoolNchwGlobalAverage<Cfg>(hn::CappedTag<L, 8>(), a);
      }
    }
    if (plan.width == PoolWidth::k128Bit) return PoolNchwGlobalAverage<Cfg>(dq, a);
#endif
    PoolNchwGlobalAverage<Cfg>(hn::CappedTag<L, 1>(), a);
#if SYNETK_HAS_MULTI_LANE  // (no tree: one lane)
  } else if constexpr (!std::is_same_v<L, float>) {
    if constexpr (!HWY_HAVE_SCALABLE) {
      if (plan.width == PoolWidth::kFull) return PoolNchwGlobalMaxTree<Cfg>(d, a);
      if (plan.width == PoolWidth::k256Bit) {
        return PoolNchwGlobalMaxTree<Cfg>(hn::CappedTag<L, 32 / sizeof(L)>(), a);
      }
    }
    if (plan.path == detail::PoolPath::kNchwGlobalMaxTree) {
      return PoolNchwGlobalMaxTree<Cfg>(dq, a);
    }
    PoolNchwGlobalMax<Cfg>(dq, a);
#endif
  } else if (plan.width == PoolWidth::kFull) {
    PoolNchwGlobalMax<Cfg>(d, a);
  } else {
    PoolNchwGlobalMax<Cfg>(dq, a);
  }
}

// The dispatched entry point, one instance per (operation, element, format):
// the planner's path (pooling_plan.h), each path instantiated only for the
// format it serves.
template <class Cfg>
void PoolKernel(const detail::PoolArgs<typename Cfg::Elem>& a) {
  using detail::PoolPath;
  const detail::PoolCaps caps = PoolCapsOf<Cfg>();
  const detail::PoolPlan plan =
      a.planIn != nullptr ? *a.planIn : detail::PlanPool(detail::PoolShapeOf(a), caps);
  if (a.planOut != nullptr) {
    *a.planOut = plan;
    if (a.capsOut != nullptr) *a.capsOut = caps;
    return;
  }
  // While the call is only sized (WorkspaceBytes), the paths that take no
  // scratch do not run; the others return after taking theirs.
  if (a.scratch->Sizing() && !detail::PoolPathTakesScratch(plan.path)) return;
  constexpr bool kNchw = std::is_same_v<typename Cfg::Fmt, Nchw>;
  const hn::ScalableTag<typename PoolOps<Cfg>::L> d;
  switch (plan.path) {
    case PoolPath::kDirect:
      return PoolDirect<Cfg>(a);
    case PoolPath::kNchwPairs:
      if constexpr (kNchw) PoolNchwPairs<Cfg>(d, a);
      return;
    case PoolPath::kNchwHalfWidth:
      if constexpr (kNchw) PoolNchwHalfWidth<Cfg>(d, a);
      return;
    case PoolPath::kNchwGlobalAverage:
    case PoolPath::kNchwGlobalMax:
    case PoolPath::kNchwGlobalMaxTree:
      if constexpr (kNchw) PoolNchwGlobal<Cfg>(d, a, plan);
      return;
    case PoolPath::kNchwStride1:
      if constexpr (kNchw) PoolNchwStride1<Cfg>(d, a);
      return;
    case PoolPath::kNchwStacked:
      if constexpr (kNchw) PoolNchwStacked<Cfg>(d, a);
      return;
    case PoolPath::kNchwRows:
      if constexpr (kNchw) PoolNchw<Cfg>(d, a);
      return;
    case PoolPath::kNhwcPairs:
      if constexpr (!kNchw) PoolNhwcPairs<Cfg>(d, a);
      return;
    case PoolPath::kNhwcRows:
      if constexpr (!kNchw) PoolNhwc<Cfg>(d, a, plan);
      return;
    case PoolPath::kNhwcGlobal:
      if constexpr (!kNchw) PoolNhwcGlobal<Cfg>(d, a);
      return;
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

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
// (max: flat; average: column sums, then the columns in order).
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
#include "synetk/ops/pooling_nchw_stride1-inl.h"
#include "synetk/ops/pooling_nhwc-inl.h"
#include "synetk/ops/pooling_pairs-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The dispatched entry point, one instance per (operation, element, format).
template <class Cfg>
void PoolKernel(const detail::PoolArgs<typename Cfg::Elem>& a) {
  using L = typename PoolOps<Cfg>::L;
  // While the call is only sized (WorkspaceBytes), the paths that take no
  // scratch do not run; the others return after taking theirs.
  const bool sizing = a.scratch->Sizing();
  if (a.direct) {
    if (!sizing) PoolDirect<Cfg>(a);
    return;
  }
  const hn::ScalableTag<L> d;
  const bool pairs = PoolIsPairs(a.kY, a.kX, a.sY, a.sX, a.pY, a.pX, a.srcH, a.srcW, a.dstH,
                                 a.dstW, a.pool3d);
  if constexpr (std::is_same_v<typename Cfg::Fmt, Nchw>) {
    if (pairs) {
      if (!sizing) PoolNchwPairs<Cfg>(d, a);
    } else if (PoolIsHalfWidth(a.kX, a.sX, a.pX, a.srcW, a.dstW, a.pool3d)) {
      PoolNchwHalfWidth<Cfg>(d, a);
    } else if (!a.pool3d && a.dstH == 1 && a.dstW == 1 && a.kY - a.pY >= a.srcH &&
        a.kX - a.pX >= a.srcW) {  // one window covering each whole plane
      if (sizing) return;
      const hn::CappedTag<L, 16 / sizeof(L)> dq;
      const size_t plane = a.srcH * a.srcW;
      if constexpr (!Cfg::isMax) {
        // The widest vectors that fit in a plane, as for the max below.
#if HWY_TARGET != HWY_SCALAR
        const hn::CappedTag<L, 8> d8;
        if constexpr (!HWY_HAVE_SCALABLE) {
          if (plane >= hn::Lanes(d)) return PoolNchwGlobalAverage<Cfg>(d, a);
          if (plane >= hn::Lanes(d8)) return PoolNchwGlobalAverage<Cfg>(d8, a);
        }
        if (plane >= hn::Lanes(dq)) return PoolNchwGlobalAverage<Cfg>(dq, a);
#endif
        PoolNchwGlobalAverage<Cfg>(hn::CappedTag<L, 1>(), a);
#if HWY_TARGET != HWY_SCALAR
      } else if constexpr (!std::is_same_v<L, float>) {
        // The widest vectors that fit in a plane (7x7 planes of 8-bit types
        // on AVX-512: 256 bits); scalable targets fold no blocks, so 128.
        const hn::CappedTag<L, 32 / sizeof(L)> dh;
        if constexpr (!HWY_HAVE_SCALABLE) {
          if (plane >= hn::Lanes(d)) return PoolNchwGlobalMaxTree<Cfg>(d, a);
          if (plane >= hn::Lanes(dh)) return PoolNchwGlobalMaxTree<Cfg>(dh, a);
        }
        if (plane >= hn::Lanes(dq)) {
          PoolNchwGlobalMaxTree<Cfg>(dq, a);
        } else {
          PoolNchwGlobalMax<Cfg>(dq, a);
        }
#endif
      } else if (plane >= 2 * hn::Lanes(d)) {
        PoolNchwGlobalMax<Cfg>(d, a);
      } else {  // small planes: 128-bit vectors waste fewer lanes
        PoolNchwGlobalMax<Cfg>(dq, a);
      }
    } else if (PoolNchwStride1Fits<Cfg>(d, a)) {
      PoolNchwStride1<Cfg>(d, a);
    } else if (a.kX <= kPoolStackedMaxKernel) {
      PoolNchwStacked<Cfg>(d, a);
    } else {
      PoolNchw<Cfg>(d, a);
    }
  } else {
    if (pairs && a.srcC >= hn::Lanes(d)) {
      if (!sizing) PoolNhwcPairs<Cfg>(d, a);
    } else {
      PoolNhwc<Cfg>(d, a);
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

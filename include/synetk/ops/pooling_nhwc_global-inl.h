// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling in NHWC (per target), one unpadded 2D window covering the whole
// input (PoolPath::kNhwcGlobal): each vector of channels is reduced straight
// from src, with no row buffer and no scratch. PoolKernel (pooling-inl.h)
// runs it.
//
// Contract (PoolIsNhwcGlobal): dstH == dstW == 1, kY == srcH, kX == srcW, no
// padding, stride 1 along W (where the planner took flat rows), at least one
// vector of channels (the last vector overlaps the one before it instead of
// running a partial one). Faster than the row loop
// there because src is read once and nothing else is written: the row loop
// stores the vertical step of every column to its row buffer and reads it
// back. bench: BM_PoolingVsSimd kind 3 (max u8), 512x7x7, nhwc.
//
// Order: the row loop's for flat rows, so that outputs are bit-identical to
// it (NaN and +0/-0 ties in fp32 max, the sums' rounding in averages): each
// column's rows in PoolRows' order, then the columns in tap order. The max
// of integer keys is the same in any order: pixels in memory order.

#if defined(SYNETK_OPS_POOLING_NHWC_GLOBAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_NHWC_GLOBAL_INL_H_
#undef SYNETK_OPS_POOLING_NHWC_GLOBAL_INL_H_
#else
#define SYNETK_OPS_POOLING_NHWC_GLOBAL_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Two vectors of channels at once: a = column(0, a) (+) ... (+)
// column(W - 1, a), b likewise, with column(x, va, vb) giving both vectors'
// vertical step of column x, in PoolTapSum's order for a count known only
// at run time (PoolTapsRows: W in 1..7 as PoolTapSum unrolls it, one chain
// beyond), without an instance per count. Each line of src a pass reads
// then serves both vectors (one vector per pass walks every line of the
// input twice, and the pixels' stride, a power of two for 512 channels,
// maps them to few L1 sets).
template <class Ops, class V, class Column>
HWY_INLINE void PoolColumnsSumPair(size_t W, const Column& column, V& a, V& b) {
  V ca, cb;
  column(0, a, b);
  if (Ops::kOrderFree && W >= 3 && W <= 7) {  // two chains, odd columns in the second
    V a2, b2;
    column(1, a2, b2);
    size_t x = 2;
    for (; x + 1 < W; x += 2) {
      column(x, ca, cb);
      a = Ops::Combine(a, ca);
      b = Ops::Combine(b, cb);
      column(x + 1, ca, cb);
      a2 = Ops::Combine(a2, ca);
      b2 = Ops::Combine(b2, cb);
    }
    if (x < W) {
      column(x, ca, cb);
      a = Ops::Combine(a, ca);
      b = Ops::Combine(b, cb);
    }
    a = Ops::Combine(a, a2);
    b = Ops::Combine(b, b2);
    return;
  }
  for (size_t x = 1; x < W; ++x) {
    column(x, ca, cb);
    a = Ops::Combine(a, ca);
    b = Ops::Combine(b, cb);
  }
}

// Every vector of channels, two per pass: the channels left after the
// whole pairs (under 2N) go as one more pair, its second vector ending at
// C and overlapping the first (C >= N). column(p, x) gives the vertical step
// of column x from p = src + c.
template <class Ops, class D, typename T, class Column>
HWY_INLINE void PoolNhwcGlobalChannels(D d, const T* HWY_RESTRICT src, size_t C, size_t W,
                                       hn::Vec<D> scale, T* HWY_RESTRICT dst,
                                       const Column& column) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const auto finish = [&](V v, size_t c) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (Ops::kDivides) v = PoolScale(d, v, scale);
    Ops::Store(d, v, dst + c);
  };
  const auto pair = [&](size_t c0, size_t c1) HWY_ATTR SYNETK_LAMBDA_INLINE {
    V a, b;
    PoolColumnsSumPair<Ops>(
        W,
        [&](size_t x, V& va, V& vb) HWY_ATTR SYNETK_LAMBDA_INLINE {
          va = column(src + c0 + x * C);
          vb = column(src + c1 + x * C);
        },
        a, b);
    finish(a, c0);
    finish(b, c1);
  };
  size_t c = 0;
  for (; c + 2 * N <= C; c += 2 * N) pair(c, c + N);
  if (c < C) pair(HWY_MIN(c, C - N), C - N);
}

// Max of integer keys (8-bit elements, 16-bit float keys): any order gives
// the same bits, so each vector of channels takes the pixels in memory
// order with one accumulator, four vectors per pass (a pass reads whole
// runs of lines, where two vectors read one line per pixel; bench:
// BM_PoolingVsSimd/kind:3/C:512/HW:7/k:7/s:1/p:0/nhwc:1), then one, the last
// one overlapping the one before it.
template <class Ops, class D, typename T>
HWY_INLINE void PoolNhwcGlobalKeys(D d, const T* HWY_RESTRICT src, size_t C, size_t pixels,
                                   T* HWY_RESTRICT dst) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  size_t c = 0;
  for (; c + 4 * N <= C; c += 4 * N) {
    const T* p = src + c;
    V a0 = Ops::Load(d, p), a1 = Ops::Load(d, p + N);
    V a2 = Ops::Load(d, p + 2 * N), a3 = Ops::Load(d, p + 3 * N);
    for (size_t i = 1; i < pixels; ++i) {
      p += C;
      a0 = Ops::Combine(a0, Ops::Load(d, p));
      a1 = Ops::Combine(a1, Ops::Load(d, p + N));
      a2 = Ops::Combine(a2, Ops::Load(d, p + 2 * N));
      a3 = Ops::Combine(a3, Ops::Load(d, p + 3 * N));
    }
    Ops::Store(d, a0, dst + c);
    Ops::Store(d, a1, dst + c + N);
    Ops::Store(d, a2, dst + c + 2 * N);
    Ops::Store(d, a3, dst + c + 3 * N);
  }
  const auto one = [&](size_t at) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const T* p = src + at;
    V acc = Ops::Load(d, p);
    for (size_t i = 1; i < pixels; ++i) acc = Ops::Combine(acc, Ops::Load(d, p + i * C));
    Ops::Store(d, acc, dst + at);
  };
  for (; c + N <= C; c += N) one(c);
  if (C % N != 0) one(C - N);
}

// fp32 max and averages, in the flat rows' order (PoolNhwcGlobalChannels).
template <class Ops, class D, typename T>
HWY_INLINE void PoolNhwcGlobalOrdered(D d, const detail::PoolArgs<T>& a) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d), C = a.srcC, H = a.srcH, W = a.srcW, rowElems = W * C;
  // Averages: by the kernel's area, or with excludePad by the input's (the
  // kernel may reach past it: a.kY, a.kX are clipped, a.scale is not), both
  // rounded once as the row loop's scales are.
  const float area = static_cast<float>(H * W);
  const V scale = hn::Set(d, static_cast<typename Ops::L>(a.excludePad ? 1.0f / area : a.scale));
  const auto run = [&](const auto& column) HWY_ATTR SYNETK_LAMBDA_INLINE {
    PoolNhwcGlobalChannels<Ops>(d, a.src, C, W, scale, a.dst, column);
  };
  // The vertical step in PoolRows' order: where a row is not a whole number
  // of vectors the row loop's vertical step runs one chain from the identity
  // (PoolNhwcVertical's bounds-checked loop); else PoolTapSum's, the rows
  // unrolled up to 7.
  if (rowElems % N != 0) {
    return run([&](const T* p) HWY_ATTR SYNETK_LAMBDA_INLINE {
      V acc = Ops::Identity(d);
      for (size_t y = 0; y < H; ++y) acc = Ops::Combine(acc, Ops::Load(d, p + y * rowElems));
      return acc;
    });
  }
  if (PoolWithTapCount(H, [&](auto rows) HWY_ATTR SYNETK_LAMBDA_INLINE {
        run([&](const T* p) HWY_ATTR SYNETK_LAMBDA_INLINE {
          const auto row = [&](size_t y) HWY_ATTR SYNETK_LAMBDA_INLINE {
            return Ops::Load(d, p + y * rowElems);
          };
          return PoolTapSum<Ops, decltype(rows)::value>(row);
        });
      })) {
    return;
  }
  run([&](const T* p) HWY_ATTR SYNETK_LAMBDA_INLINE {
    V acc = Ops::Load(d, p);
    for (size_t y = 1; y < H; ++y) acc = Ops::Combine(acc, Ops::Load(d, p + y * rowElems));
    return acc;
  });
}

template <class Cfg, class D>
HWY_NOINLINE void PoolNhwcGlobal(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  if (a.begin >= a.end) return;  // the one output row is not in the call's range
  if constexpr (Ops::kOrderFree && !std::is_floating_point_v<typename Ops::L>) {
    PoolNhwcGlobalKeys<Ops>(d, a.src, a.srcC, a.srcH * a.srcW, a.dst);
  } else {
    PoolNhwcGlobalOrdered<Ops>(d, a);
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

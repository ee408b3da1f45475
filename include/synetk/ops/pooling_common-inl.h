// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling: what every path shares (per target): the arguments, the
// per-operation element access (PoolOps), scratch rows, tap sums, lane
// shifts and two-table permutations. The paths are in pooling_nchw*-inl.h,
// pooling_nhwc*-inl.h and pooling_pairs-inl.h; the entry point and the
// algorithm's outline in pooling-inl.h.

#ifndef SYNETK_OPS_POOLING_ARGS_
#define SYNETK_OPS_POOLING_ARGS_
#include <cstddef>

#include "synetk/detail/scratch.h"
#include "synetk/format.h"
#include "synetk/ops/pooling_plan.h"

namespace synetk {
namespace detail {

// Everything a pooling kernel needs, validated and normalized by the
// front-end (see NormalizePoolAxis in pooling.h).
template <typename T>
struct PoolArgs {
  const T* src = nullptr;
  T* dst = nullptr;
  size_t srcC = 0, srcH = 0, srcW = 0;
  size_t dstC = 0, dstH = 0, dstW = 0;
  size_t kC = 1, kY = 1, kX = 1;
  size_t sC = 1, sY = 1, sX = 1;
  size_t pC = 0, pY = 0, pX = 0;
  bool pool3d = false;      // channels are pooled too (max only)
  bool excludePad = false;  // average: divide by the clipped area
  float scale = 1.0f;       // average without excludePad: 1 / (kernelY*kernelX)
  bool direct = false;      // geometry too large for row buffers: direct loop
  // The part to compute: output channels [begin, end) in NCHW, output rows
  // [begin, end) in NHWC (the outermost output axis, so a part's outputs are
  // one contiguous block of dst).
  size_t begin = 0, end = 0;
  // The call's scratch memory (never null in a kernel).
  ScratchArena* scratch = nullptr;
  // Tests: where planOut is non-null, the kernel writes its plan (and the
  // capabilities it planned with) there and runs nothing; where planIn is
  // non-null, the kernel runs that plan (one of PoolPlansServing's) instead
  // of the planner's.
  PoolPlan* planOut = nullptr;
  PoolCaps* capsOut = nullptr;
  const PoolPlan* planIn = nullptr;
};

// The geometry the planner reads.
template <typename T>
inline PoolShape PoolShapeOf(const PoolArgs<T>& a) {
  return {a.srcC, a.srcH, a.srcW, a.dstH, a.dstW, a.kY, a.kX, a.sY, a.sX, a.pY, a.pX,
          a.pool3d, a.direct, a.end - a.begin};
}

template <bool kMax, typename T, class Format>
struct PoolCfg {
  static constexpr bool isMax = kMax;
  using Elem = T;
  using Fmt = Format;
};

// Clipped window [begin, end) along one axis for output index d: the window
// starts at d*stride - pad (signed), spans `kernel`, and is clipped to
// [0, size). The front-end guarantees it is non-empty and d*stride fits.
struct PoolWindow {
  size_t begin, end;
  PoolWindow(size_t d, size_t stride, size_t pad, size_t kernel, size_t size) {
    const size_t s = d * stride;
    if (s >= pad) {
      begin = s - pad;
      end = kernel >= size - begin ? size : begin + kernel;
    } else {
      begin = 0;
      const size_t left = kernel - (pad - s);  // pad < kernel
      end = left < size ? left : size;
    }
  }
  size_t Size() const { return end - begin; }
};

}  // namespace detail
}  // namespace synetk
#endif  // SYNETK_OPS_POOLING_ARGS_

#if defined(SYNETK_OPS_POOLING_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_COMMON_INL_H_
#undef SYNETK_OPS_POOLING_COMMON_INL_H_
#else
#define SYNETK_OPS_POOLING_COMMON_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/elements-inl.h"
#include "synetk/detail/pool_ops-inl.h"
#include "synetk/element.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The lane type max pooling compares in: the stored bits, as keys whose
// integer order is the numeric order.
template <Encoding E>
struct MaxLaneOf;
template <>
struct MaxLaneOf<Encoding::kFloat32> {
  using type = float;
};
template <>
struct MaxLaneOf<Encoding::kBFloat16> {
  using type = int16_t;
};
template <>
struct MaxLaneOf<Encoding::kFloat16> {
  using type = int16_t;
};
template <>
struct MaxLaneOf<Encoding::kUint8> {
  using type = uint8_t;
};
template <>
struct MaxLaneOf<Encoding::kInt8> {
  using type = int8_t;
};

// Per-operation element access and reduction. L is the lane type of the row
// buffers; Load/Store convert between T in memory and L lanes.
template <class Cfg>
struct PoolOps;

template <typename T, class Format>
struct PoolOps<detail::PoolCfg<true, T, Format>> {
  static constexpr Encoding kEnc = ElementTraits<T>::kEncoding;
  using L = typename MaxLaneOf<kEnc>::type;
  static constexpr bool kOrderFree = true;  // Combine is associative and commutative
  static constexpr bool kDivides = false;   // averages divide the sum by the window's area

  // Sign-magnitude 16-bit floats -> two's complement keys (negative values
  // get their magnitude bits flipped); the map is its own inverse.
  template <class D>
  static HWY_INLINE hn::Vec<D> Key16(D d, hn::Vec<D> x) {
    return hn::Xor(x, hn::And(hn::ShiftRight<15>(x), hn::Set(d, int16_t{0x7FFF})));
  }
  template <class D>
  static HWY_INLINE hn::Vec<D> Identity(D d) {
    if constexpr (std::is_same_v<L, float>) {
      return hn::Set(d, -std::numeric_limits<float>::infinity());
    } else {
      return hn::Set(d, std::numeric_limits<L>::lowest());
    }
  }
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const T* p) {
    const hn::Vec<D> v = hn::LoadU(d, reinterpret_cast<const L*>(p));
    if constexpr (std::is_same_v<L, int16_t>) {
      return Key16(d, InRegister(v));  // (one load for the shift and the mask)
    } else {
      return v;
    }
  }
  template <class D>
  static HWY_INLINE void Store(D d, hn::Vec<D> v, T* p) {
    if constexpr (std::is_same_v<L, int16_t>) v = Key16(d, v);
    hn::StoreU(v, d, reinterpret_cast<L*>(p));
  }
  template <class V>
  static HWY_INLINE V Combine(V a, V b) {
    return hn::Max(a, b);
  }
  static constexpr bool kBF16Pairs = false;  // see the averages' ops
};

// Targets with 32 vector registers (x86 from AVX-512 on; NEON and SVE), where
// loops may keep more vectors live (the NCHW carried rows and stride-1 rows
// ahead).
inline constexpr bool kPool32Registers = !HWY_ARCH_X86 || SYNETK_HAS_AVX512;

// Targets whose MulAdd is one instruction (PoolPairFinish).
inline constexpr bool kPoolNativeFma = SYNETK_HAS_AVX2;

template <typename T, class Format>
struct PoolOps<detail::PoolCfg<false, T, Format>> {
  using L = float;
  static constexpr bool kOrderFree = false;  // fp32 sums: in the order each path states
  static constexpr bool kDivides = true;
  template <class D>
  static HWY_INLINE hn::Vec<D> Identity(D d) {
    return hn::Zero(d);
  }
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const T* p) {
    return LoadF32(d, p);
  }
  template <class D>
  static HWY_INLINE void Store(D d, hn::Vec<D> v, T* p) {
    if constexpr (ElementTraits<T>::kEncoding == Encoding::kBFloat16) {
      // Averages of bf16 values: no NaN test (BF16InUpperHalf).
      const hn::Rebind<uint16_t, D> du16;
      hn::StoreU(F32ToBF16Bits<true>(d, v), du16, reinterpret_cast<uint16_t*>(p));
    } else {
      StoreF32(d, v, p);
    }
  }
  // f16 sums on AVX-512 as b * 1 + a (the same bits): f16 conversions can
  // share the pipes that add, and the FMA pipes are free. fp32 and bf16
  // sums, which convert nothing or with shifts, are faster with additions.
  // bench: BM_Pooling<hwy::float16_t>/avg:1/C:256/HW:28/k:2/s:2/p:0/nhwc:0.
  static constexpr bool kSumsOnFma = ElementTraits<T>::kEncoding == Encoding::kFloat16 &&
                                     SYNETK_HAS_AVX512;
  template <class V>
  static HWY_INLINE V Combine(V a, V b) {
    if constexpr (kSumsOnFma) {
      return hn::MulAdd(b, hn::Set(hn::DFromV<V>(), 1.0f), a);
    } else {
      return hn::Add(a, b);
    }
  }
  // bf16 averages may read whole pairs of vectors of channels as 32-bit
  // lanes (LoadBF16Pair: even and odd channels as two fp32 vectors) and
  // store them as one (StoreBF16Pair): the NHWC stem rows and 2x2 pairs.
  static constexpr bool kBF16Pairs =
      ElementTraits<T>::kEncoding == Encoding::kBFloat16 && SYNETK_HAS_MULTI_LANE;
};

// Loads Lanes(d) elements at p, of which only `avail` (>= 1) may be read;
// lanes past `avail` are unspecified.
template <class Ops, class D, typename T>
HWY_INLINE hn::Vec<D> PoolLoadSrc(D d, const T* p, size_t avail) {
  const size_t N = hn::Lanes(d);
  if (HWY_LIKELY(avail >= N)) return Ops::Load(d, p);
  HWY_ALIGN T buf[kMaxLanes<typename Ops::L>] = {};
  std::memcpy(static_cast<void*>(buf), p, avail * sizeof(T));
  return Ops::Load(d, buf);
}

// Stores Lanes(d) elements at p, of which only `avail` (>= 1) may be written.
template <class Ops, class D, typename T>
HWY_INLINE void PoolStoreDst(D d, hn::Vec<D> v, T* p, size_t avail) {
  const size_t N = hn::Lanes(d);
  if (HWY_LIKELY(avail >= N)) {
    Ops::Store(d, v, p);
    return;
  }
  HWY_ALIGN T buf[kMaxLanes<typename Ops::L>];
  Ops::Store(d, v, buf);
  std::memcpy(static_cast<void*>(p), buf, avail * sizeof(T));
}

// n elements of L from the call's scratch arena (detail/scratch.h): null
// while the call is only sized or its memory is short, so a path takes all
// its buffers first and returns before writing if !a.scratch->Fits().
template <typename L, typename T>
HWY_INLINE L* PoolTake(const detail::PoolArgs<T>& a, size_t n) {
  return a.scratch->template Take<L>(n);
}

inline size_t PoolRoundUp(size_t x, size_t n) { return (x + n - 1) / n * n; }

// p moved up to a multiple of n lanes' bytes (p holds n - 1 more lanes).
template <typename L>
HWY_INLINE L* PoolAlignLanes(L* p, size_t n) {
  const uintptr_t bytes = n * sizeof(L), at = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<L*>((at + bytes - 1) / bytes * bytes);
}

// p[0, n) = v, a vector at a time: std::fill of a value other than zero is
// an element loop at -O2 (4096 stores per call in the stacked NCHW
// averages). Writes up to Lanes(d) - 1 elements past p + n.
template <class D>
HWY_INLINE void PoolFill(D d, hn::TFromD<D>* p, size_t n, hn::TFromD<D> v) {
  const auto vv = hn::Set(d, v);
  for (size_t i = 0; i < n; i += hn::Lanes(d)) hn::StoreU(vv, d, p + i);
}

// NHWC averages with excludePad: the clipped width of each output element's
// window, pixel by pixel (len / C pixels of C elements, width(dx) each; a
// division per element, j / C, cost as much as pooling the row), then 2N
// more elements of 1 (PoolNhwc reads whole vectors of them): widths holds
// len + 2N elements.
template <class D, class Width>
HWY_INLINE void PoolWidthsPerElement(D d, hn::TFromD<D>* widths, size_t len, size_t C,
                                     const Width& width) {
  using L = hn::TFromD<D>;
  for (size_t dx = 0; dx * C < len; ++dx) {
    PoolFill(d, widths + dx * C, C, static_cast<L>(width(dx)));  // spills onto dx + 1
  }
  PoolFill(d, widths + len, 2 * hn::Lanes(d), L(1));
}

// Horizontal step in NCHW: lane i of the result reduces r[i*sX + k] for
// kBegin <= k < kEnd (r points at the first output column's padded window
// start; the k outside [kBegin, kEnd) read padding in every lane).
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolRowStrided(D d, const typename Ops::L* r, size_t kBegin,
                                     size_t kEnd, size_t sX) {
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  if (sX == 1) {
    V acc = hn::LoadU(d, r + kBegin);
    if constexpr (Ops::kOrderFree) {  // two chains: max does not care about order
      if (kEnd - kBegin >= 2) {
        V acc2 = hn::LoadU(d, r + kBegin + 1);
        size_t k = kBegin + 2;
        for (; k + 2 <= kEnd; k += 2) {
          acc = Ops::Combine(acc, hn::LoadU(d, r + k));
          acc2 = Ops::Combine(acc2, hn::LoadU(d, r + k + 1));
        }
        if (k < kEnd) acc = Ops::Combine(acc, hn::LoadU(d, r + k));
        return Ops::Combine(acc, acc2);
      }
    }
    for (size_t k = kBegin + 1; k < kEnd; ++k) acc = Ops::Combine(acc, hn::LoadU(d, r + k));
    return acc;
  }
  V acc = Ops::Identity(d);
  if (sX == 2) {
    for (size_t k = kBegin; k < kEnd; k += 2) {
      V a, b;
      hn::LoadInterleaved2(d, r + k, a, b);
      acc = Ops::Combine(acc, a);
      if (k + 1 < kEnd) acc = Ops::Combine(acc, b);
    }
  } else if (sX == 3) {
    for (size_t k = kBegin; k < kEnd; k += 3) {
      V a, b, c;
      hn::LoadInterleaved3(d, r + k, a, b, c);
      acc = Ops::Combine(acc, a);
      if (k + 1 < kEnd) acc = Ops::Combine(acc, b);
      if (k + 2 < kEnd) acc = Ops::Combine(acc, c);
    }
  } else if (sX == 4) {
    for (size_t k = kBegin; k < kEnd; k += 4) {
      V a, b, c, e;
      hn::LoadInterleaved4(d, r + k, a, b, c, e);
      acc = Ops::Combine(acc, a);
      if (k + 1 < kEnd) acc = Ops::Combine(acc, b);
      if (k + 2 < kEnd) acc = Ops::Combine(acc, c);
      if (k + 3 < kEnd) acc = Ops::Combine(acc, e);
    }
  } else {
    const size_t N = hn::Lanes(d);
    HWY_ALIGN L buf[kMaxLanes<L>];
    for (size_t k = kBegin; k < kEnd; ++k) {
      for (size_t i = 0; i < N; ++i) buf[i] = r[i * sX + k];
      acc = Ops::Combine(acc, hn::Load(d, buf));
    }
  }
  return acc;
}

// An average's last step: its window's sum times the reciprocal of the
// window's area (computed once per call, not per output: a vector division
// costs several times a multiplication's throughput), plus +0 in the same
// fused operation. The +0 is the
// reference's starting term: a window of -0 sums to -0 here, since no other
// step adds +0, and ends as +0. One rounding of sum * (1 / area) after that
// of 1 / area: within an ulp of sum / area (see docs/pooling.md, Tolerance).
template <class D>
HWY_INLINE hn::Vec<D> PoolScale(D d, hn::Vec<D> sum, hn::Vec<D> scale) {
  return hn::MulAdd(sum, scale, hn::Zero(d));
}

// Direct evaluation, one output at a time, for geometry whose row buffers
// would be out of proportion to the tensors (huge padding).
template <class Cfg>
void PoolDirect(const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  constexpr bool kNhwc = std::is_same_v<typename Cfg::Fmt, Nhwc>;
  const hn::CappedTag<L, 1> d1;
  const size_t C = a.srcC, H = a.srcH, W = a.srcW;
  auto srcAt = [&](size_t c, size_t y, size_t x) {
    return kNhwc ? (y * W + x) * C + c : (c * H + y) * W + x;
  };
  const size_t c0 = kNhwc ? 0 : a.begin, c1 = kNhwc ? a.dstC : a.end;
  const size_t y0 = kNhwc ? a.begin : 0, y1 = kNhwc ? a.end : a.dstH;
  for (size_t dc = c0; dc < c1; ++dc) {
    const detail::PoolWindow wc(dc, a.sC, a.pC, a.kC, C);
    for (size_t dy = y0; dy < y1; ++dy) {
      const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, H);
      for (size_t dx = 0; dx < a.dstW; ++dx) {
        const detail::PoolWindow wx(dx, a.sX, a.pX, a.kX, W);
        auto acc = Ops::Identity(d1);
        for (size_t c = wc.begin; c < wc.end; ++c)
          for (size_t y = wy.begin; y < wy.end; ++y)
            for (size_t x = wx.begin; x < wx.end; ++x)
              acc = Ops::Combine(acc, Ops::Load(d1, a.src + srcAt(c, y, x)));
        if constexpr (!Cfg::isMax) {  // average
          const float scale =
              a.excludePad ? 1.0f / static_cast<float>(wy.Size() * wx.Size()) : a.scale;
          acc = PoolScale(d1, acc, hn::Set(d1, scale));
        }
        const size_t o = kNhwc ? (dy * a.dstW + dx) * a.dstC + dc : (dc * a.dstH + dy) * a.dstW + dx;
        Ops::Store(d1, acc, a.dst + o);
      }
    }
  }
}

// NCHW vertical step with bounds-checked loads: out[x] for x < W (whole
// vectors) reduces the clipped channel window wc and row window wy.
template <class Ops, class D, typename T>
HWY_INLINE void PoolColumnsChecked(D d, const T* src, size_t srcTotal, size_t plane, size_t W,
                                   const detail::PoolWindow& wc, const detail::PoolWindow& wy,
                                   typename Ops::L* out) {
  const size_t N = hn::Lanes(d);
  for (size_t x = 0; x < W; x += N) {
    auto acc = Ops::Identity(d);
    for (size_t c = wc.begin; c < wc.end; ++c) {
      for (size_t y = wy.begin; y < wy.end; ++y) {
        const size_t o = c * plane + y * W + x;
        acc = Ops::Combine(acc, PoolLoadSrc<Ops>(d, src + o, srcTotal - o));
      }
    }
    hn::StoreU(acc, d, out + x);
  }
}

// PoolScale by scales[i] (excludePad: each output's 1 / clipped area) or,
// with no scales, by `scale` (1 / (kernelY * kernelX)); max values pass
// through.
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolScaleAt(D d, hn::Vec<D> v, const typename Ops::L* scales, size_t i,
                                  typename Ops::L scale) {
  if constexpr (Ops::kDivides) {
    v = PoolScale(d, v, scales ? hn::LoadU(d, scales + i) : hn::Set(d, scale));
  }
  return v;
}

// The vertical step of kRows (1 to 3) rows `pitch` apart from p, in
// PoolRows' order: the rows in order.
template <class Ops, size_t kRows, class D, typename T>
HWY_INLINE hn::Vec<D> PoolColumn(D d, const T* p, size_t pitch) {
  static_assert(kRows >= 1 && kRows <= 3, "1 to 3 rows");
  hn::Vec<D> acc = Ops::Load(d, p);
  if constexpr (kRows >= 2) acc = Ops::Combine(acc, Ops::Load(d, p + pitch));
  if constexpr (kRows >= 3) acc = Ops::Combine(acc, Ops::Load(d, p + 2 * pitch));
  return acc;
}

// Averages with excludePad: scales[r*pitch + j] = 1 / (height(r) *
// widths[j]) for r < rows, j < cols (PoolScale), a vector at a time
// (element by element, the windows' arithmetic or conversions cost as much
// as the pooling). A row's last vector spills into the next row, written
// after, or past the last one. Areas are exact while `exact` (kY*kX <
// 2^24); otherwise one rounding of the integer product.
template <class D, class Height>
HWY_INLINE void PoolScaleRows(D d, hn::TFromD<D>* scales, size_t rows, size_t pitch, size_t cols,
                              const hn::TFromD<D>* widths, bool exact, const Height& height) {
  using L = hn::TFromD<D>;
  const auto one = hn::Set(d, L(1));
  for (size_t r = 0; r < rows; ++r) {
    const size_t hy = height(r);
    L* row = scales + r * pitch;
    if (exact) {
      const auto h = hn::Set(d, static_cast<L>(hy));
      for (size_t j = 0; j < cols; j += hn::Lanes(d)) {
        hn::StoreU(hn::Div(one, hn::Mul(h, hn::LoadU(d, widths + j))), d, row + j);
      }
    } else {
      for (size_t j = 0; j < cols; ++j) {
        row[j] = L(1) / static_cast<L>(hy * static_cast<size_t>(widths[j]));
      }
    }
  }
}

// bf16 averages: the vertical step of kRows rows, `pitch` elements apart
// from p, over 2N consecutive elements read as N 32-bit lanes: e sums the
// even elements and od the odd ones (BF16LanesToF32), in PoolRows' order
// (as in PoolColumn). p starts a
// 32-bit lane except in the AVX-512 pick rows, whose unaligned loads take
// any address.
template <class Ops, size_t kRows, class D, typename T>
HWY_INLINE void PoolBF16LaneRows(D d, const T* p, size_t pitch, hn::Vec<D>& e, hn::Vec<D>& od) {
  LoadBF16Pair(d, p, e, od);
  hn::Vec<D> re, ro;
  for (size_t r = 1; r < kRows; ++r) {
    LoadBF16Pair(d, p + r * pitch, re, ro);
    e = Ops::Combine(e, re);
    od = Ops::Combine(od, ro);
  }
}

// Taps k .. kTaps - 1 of PoolTapSum, unrolled by recursion (GCC kept a
// loop over the taps, with a branch on k's parity, once rows were added):
// with two chains, odd taps go to acc2.
// tapAt receives k as a std::integral_constant (it converts to size_t), so
// that a tap may use it as a template argument.
template <class Ops, size_t k, size_t kTaps, bool kTwoChains, class V, class TapAt>
HWY_INLINE void PoolTapChain(V& acc, V& acc2, const TapAt& tapAt) {
  if constexpr (k < kTaps) {
    if constexpr (kTwoChains && k % 2 == 1) {
      acc2 = Ops::Combine(acc2, tapAt(std::integral_constant<size_t, k>()));
    } else {
      acc = Ops::Combine(acc, tapAt(std::integral_constant<size_t, k>()));
    }
    PoolTapChain<Ops, k + 1, kTaps, kTwoChains>(acc, acc2, tapAt);
  }
}

// tapAt(0) (+) tapAt(1) (+) ... (+) tapAt(kTaps - 1) in tap order (averages
// run one chain in tap order; max runs two chains).
template <class Ops, size_t kTaps, class TapAt>
HWY_INLINE auto PoolTapSum(const TapAt& tapAt) {
  constexpr bool kTwoChains = Ops::kOrderFree && kTaps >= 3;
  auto acc = tapAt(std::integral_constant<size_t, 0>());
  auto acc2 = kTwoChains ? tapAt(std::integral_constant<size_t, 1>()) : acc;
  PoolTapChain<Ops, kTwoChains ? 2 : 1, kTaps, kTwoChains>(acc, acc2, tapAt);
  if constexpr (kTwoChains) acc = Ops::Combine(acc, acc2);
  return acc;
}

// The compile-time unrolled tap counts: f(std::integral_constant<size_t, n>())
// for n in 1..7 (returns true), nothing for other n (false). 3 and 2 (3x3
// and 2x2 windows) come ahead of the jump table: narrow rows (112-byte u8
// rows of 3x3 s2) pay the dispatch once per row.
template <class F>
HWY_INLINE bool PoolWithTapCount(size_t n, const F& f) {
  using C1 = std::integral_constant<size_t, 1>;
  using C2 = std::integral_constant<size_t, 2>;
  using C3 = std::integral_constant<size_t, 3>;
  using C4 = std::integral_constant<size_t, 4>;
  using C5 = std::integral_constant<size_t, 5>;
  using C6 = std::integral_constant<size_t, 6>;
  using C7 = std::integral_constant<size_t, 7>;
  if (n == 3) return f(C3()), true;
  if (n == 2) return f(C2()), true;
  switch (n) {
    case 1: return f(C1()), true;
    case 4: return f(C4()), true;
    case 5: return f(C5()), true;
    case 6: return f(C6()), true;
    case 7: return f(C7()), true;
    default: return false;
  }
}

// For rows r < `rows` and x = 0, N, 2N, ... < len: emit(r, x, tap(r, x, 0)
// (+) tap(r, x, 1) (+) ... (+) tap(r, x, n - 1)), combined in tap order
// (averages run one chain in tap order; max two chains). Up to 7 taps
// are unrolled at compile time: the per-tap loop bookkeeping cost more than
// the arithmetic on 5-tap windows. PoolTapsRows dispatches the tap count
// once for all rows: one-vector rows (5x5 stride-1 windows on 64-wide
// planes) paid the dispatch as much as the arithmetic.
template <class Ops, size_t kTaps, class D, class Tap, class Emit>
HWY_INLINE void PoolTapsFixed(D d, size_t rows, size_t len, const Tap& tap, const Emit& emit) {
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t x = 0; x < len; x += N) {
      const auto tapAt = [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE { return tap(r, x, k); };
      emit(r, x, PoolTapSum<Ops, kTaps>(tapAt));
    }
  }
}

template <class Ops, class D, class Tap, class Emit>
HWY_INLINE void PoolTapsRows(D d, size_t n, size_t rows, size_t len, const Tap& tap,
                             const Emit& emit) {
  if (PoolWithTapCount(n, [&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        PoolTapsFixed<Ops, decltype(k)::value>(d, rows, len, tap, emit);
      })) {
    return;
  }
  for (size_t r = 0; r < rows; ++r) {
    for (size_t x = 0; x < len; x += hn::Lanes(d)) {
      hn::Vec<D> acc = tap(r, x, 0);
      for (size_t k = 1; k < n; ++k) acc = Ops::Combine(acc, tap(r, x, k));
      emit(r, x, acc);
    }
  }
}

// PoolTapsRows of one row: tap(x, k), emit(x, v).
template <class Ops, class D, class Tap, class Emit>
HWY_INLINE void PoolTaps(D d, size_t n, size_t len, const Tap& tap, const Emit& emit) {
  PoolTapsRows<Ops>(
      d, n, 1, len,
      [&](size_t, size_t x, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE { return tap(x, k); },
      [&](size_t, size_t x, hn::Vec<D> v) HWY_ATTR SYNETK_LAMBDA_INLINE { emit(x, v); });
}

// Two windows of kTaps taps, the second one tap on from the first: tap(i)
// for i = 0 .. kTaps. They share taps 1 .. kTaps - 1, combined once; `first`
// adds tap 0 to them, `second` tap kTaps: kTaps + 1 taps and kTaps combines
// instead of 2 * kTaps each. For averages another order than a window at a
// time, within the same bound.
template <class Ops, size_t kTaps, class D, class Tap>
HWY_INLINE void PoolWindowPair(D d, const Tap& tap, hn::Vec<D>& first, hn::Vec<D>& second) {
  (void)d;
  const hn::Vec<D> shared =
      PoolTapSum<Ops, kTaps - 1>([&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE { return tap(1 + k); });
  first = Ops::Combine(tap(0), shared);
  second = Ops::Combine(shared, tap(kTaps));
}

// Windows of kTaps rows, output rows one input row apart, in pairs
// (PoolWindowPair: rows 1 .. kTaps - 1 of the first window are the second
// window's first rows). `rows` is even.
template <class Ops, size_t kTaps, class D, class Row, class Emit>
HWY_INLINE void PoolStackPairs(D d, size_t rows, size_t W, const Row& row, const Emit& emit) {
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < rows; r += 2) {
    for (size_t x = 0; x < W; x += N) {
      hn::Vec<D> first, second;
      PoolWindowPair<Ops, kTaps>(
          d, [&](size_t i) HWY_ATTR SYNETK_LAMBDA_INLINE { return row(r + i, x); }, first, second);
      emit(r, x, first);
      emit(r + 1, x, second);
    }
  }
}

// PoolStackPairs for n = 2 .. 7 rows (false: another n). Its own switch,
// with no unused 1: through PoolWithTapCount the code is slower. bench:
// BM_Pooling<uint8_t>/avg:0/C:32/HW:64/k:5/s:1/p:2/nhwc:0.
template <class Ops, class D, class Row, class Emit>
HWY_INLINE bool PoolStackPairsOf(D d, size_t n, size_t rows, size_t W, const Row& row,
                                 const Emit& emit) {
  switch (n) {
    case 2: PoolStackPairs<Ops, 2>(d, rows, W, row, emit); return true;
    case 3: PoolStackPairs<Ops, 3>(d, rows, W, row, emit); return true;
    case 4: PoolStackPairs<Ops, 4>(d, rows, W, row, emit); return true;
    case 5: PoolStackPairs<Ops, 5>(d, rows, W, row, emit); return true;
    case 6: PoolStackPairs<Ops, 6>(d, rows, W, row, emit); return true;
    case 7: PoolStackPairs<Ops, 7>(d, rows, W, row, emit); return true;
    default: return false;
  }
}

// bf16 averages: PoolStackPairs of one pair of output rows over rows of W
// elements (W a multiple of 2N; input row i at rowAt(i)), 2N elements at a
// time read as N 32-bit lanes (BF16LanesToF32): the even elements' sums
// go to x and the odd ones' to x + N. Each 2N-element block thus comes out
// with its even elements first (PoolNhwcFlatRow's kEvenOdd layout). Each
// row's lanes are loaded twice, shifted once and masked once: one fused
// operation per N elements where the promotion took two.
template <class Ops, size_t kTaps, class D, class RowAt, class Emit>
HWY_INLINE void PoolStackPairBF16(D d, size_t W, const RowAt& rowAt, const Emit& emit) {
  const size_t N = hn::Lanes(d);
  for (size_t x = 0; x < W; x += 2 * N) {
    // The pair of windows over the even (odd: false) or odd elements of the
    // 2N, to x or x + N. Each row is loaded once per half; the half it does
    // not use the compiler leaves out.
    const auto halves = [&](auto odd) HWY_ATTR SYNETK_LAMBDA_INLINE {
      const auto row = [&](size_t i) HWY_ATTR SYNETK_LAMBDA_INLINE {
        hn::Vec<D> even, oddLanes;
        LoadBF16Pair(d, rowAt(i) + x, even, oddLanes);
        if constexpr (decltype(odd)::value) {
          return oddLanes;
        } else {
          return even;
        }
      };
      hn::Vec<D> first, second;
      PoolWindowPair<Ops, kTaps>(d, row, first, second);
      const size_t at = decltype(odd)::value ? x + N : x;
      emit(0, at, first);
      emit(1, at, second);
    };
    halves(std::false_type());
    halves(std::true_type());
  }
}

// Vertical step over n >= 1 rows at src, src + stride, ...: out[x] for
// x < len, rounded up to whole vectors (the caller made them readable).
// Averages add the rows in order.
template <class Ops, class D, typename T>
HWY_INLINE void PoolRows(D d, const T* src, size_t stride, size_t n, size_t len,
                         typename Ops::L* out, bool prefetch) {
  // The new rows (stride 2) of the output row after next: one row ahead is
  // too close to cover L3 latency on narrow NCHW rows.
  const T* ahead = src + (n + 2) * stride;
  PoolTaps<Ops>(
      d, n, len,
      [&](size_t x, size_t y) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return Ops::Load(d, src + y * stride + x);
      },
      [&](size_t x, hn::Vec<D> acc) HWY_ATTR SYNETK_LAMBDA_INLINE {
        if (prefetch) {
          hwy::Prefetch(ahead + x);
          hwy::Prefetch(ahead + stride + x);
        }
        hn::StoreU(acc, d, out + x);
      });
}

// NCHW vertical step of output row dy over the channel window wc into
// out[x], x < srcW rounded up to whole vectors: unchecked and unrolled (2D)
// where every load stays inside src, bounds-checked elsewhere.
template <class Ops, class D, typename T>
HWY_INLINE void PoolNchwColumns(D d, const detail::PoolArgs<T>& a, const detail::PoolWindow& wc,
                                size_t dy, typename Ops::L* out, bool prefetch) {
  const size_t W = a.srcW, plane = a.srcH * W, srcTotal = a.srcC * plane;
  const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, a.srcH);
  const size_t first = wc.begin * plane + wy.begin * W;
  const size_t last = (wc.end - 1) * plane + (wy.end - 1) * W;
  if (wc.Size() == 1 && last + PoolRoundUp(W, hn::Lanes(d)) <= srcTotal) {
    PoolRows<Ops>(d, a.src + first, W, wy.Size(), W, out, prefetch);
  } else {
    PoolColumnsChecked<Ops>(d, a.src, srcTotal, plane, W, wc, wy, out);
  }
}

using detail::kPoolStackedMaxKernel;

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

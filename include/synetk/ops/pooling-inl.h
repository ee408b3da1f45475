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
// (PoolNhwcStemRow); NHWC with 3 channels and strideX > 1 pools channel
// planes split from R; NCHW global pooling reduces each plane without R
// (max: flat; average: column sums, then the columns in order).
// Max pooling works on order-preserving keys of the stored bits (bf16/f16:
// sign-magnitude -> two's complement), so its output is always one of the
// inputs, bit for bit.

#ifndef SYNETK_OPS_POOLING_ARGS_
#define SYNETK_OPS_POOLING_ARGS_
#include <cstddef>

#include "synetk/format.h"

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
  float divisor = 1.0f;     // average without excludePad: kernelY*kernelX
  bool direct = false;      // geometry too large for row buffers: direct loop
  // The part to compute: output channels [begin, end) in NCHW, output rows
  // [begin, end) in NHWC (the outermost output axis, so a part's outputs are
  // one contiguous block of dst).
  size_t begin = 0, end = 0;
};

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

#if defined(SYNETK_OPS_POOLING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_INL_H_
#undef SYNETK_OPS_POOLING_INL_H_
#else
#define SYNETK_OPS_POOLING_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/elements-inl.h"
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
      return Key16(d, v);
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

// Targets whose MulAdd is one instruction (PoolPairFinish).
inline constexpr bool kPoolNativeFma =
    HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

template <typename T, class Format>
struct PoolOps<detail::PoolCfg<false, T, Format>> {
  using L = float;
  static constexpr bool kOrderFree = false;  // fp32 sums: keep one order in every path
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
  template <class V>
  static HWY_INLINE V Combine(V a, V b) {
    return hn::Add(a, b);
  }
  // bf16 averages may read whole pairs of vectors of channels as 32-bit
  // lanes (LoadBF16Pair: even and odd channels as two fp32 vectors) and
  // store them as one (StoreBF16Pair): the NHWC stem rows and 2x2 pairs.
  static constexpr bool kBF16Pairs =
      ElementTraits<T>::kEncoding == Encoding::kBFloat16 && HWY_TARGET != HWY_SCALAR;
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

// A per-thread scratch buffer of at least n elements; kSlot tells apart the
// buffers one call uses at the same time.
// Its size is bounded by a few rows of the largest call on this thread.
template <typename L, int kSlot>
HWY_INLINE L* PoolScratch(size_t n) {
  thread_local std::vector<L> buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
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
// division per element, j / C, cost as much as pooling the row), then N
// more elements of 1.
template <class D, class Width>
HWY_INLINE hn::TFromD<D>* PoolWidthsPerElement(D d, size_t len, size_t C, const Width& width) {
  using L = hn::TFromD<D>;
  L* widths = PoolScratch<L, 2>(len + 2 * hn::Lanes(d));
  for (size_t dx = 0; dx * C < len; ++dx) {
    PoolFill(d, widths + dx * C, C, static_cast<L>(width(dx)));  // spills onto dx + 1
  }
  PoolFill(d, widths + len, hn::Lanes(d), L(1));
  return widths;
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
          const float area = a.excludePad ? static_cast<float>(wy.Size() * wx.Size()) : a.divisor;
          acc = hn::Div(acc, hn::Set(d1, area));
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

// An average's division, by areas[i] (excludePad: each output's clipped
// area) or, with no areas, by `divisor`; max values pass through.
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolDivide(D d, hn::Vec<D> v, const typename Ops::L* areas, size_t i,
                                 typename Ops::L divisor) {
  if constexpr (Ops::kDivides) {
    v = hn::Div(v, areas ? hn::LoadU(d, areas + i) : hn::Set(d, divisor));
  }
  return v;
}

// The first term of a reduction: averages start from +0 (so that every path
// adds in one order and -0 sums come out +0), max needs no identity.
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolStart(D d, hn::Vec<D> v) {
  if constexpr (Ops::kOrderFree) return v;
  return Ops::Combine(Ops::Identity(d), v);
}

// An average's +0 added once at the end of a window's sum instead of at the
// start of each of its chains (PoolStart): the same bits, since a sum is -0
// only when every term is -0 and no +0 joins it, wherever it joins. Paths
// bound by fp32 adds spend one add per output vector instead of one per
// chain (3x3 s2 NCHW: three).
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolEnd(D d, hn::Vec<D> v) {
  if constexpr (Ops::kOrderFree) return v;
  return Ops::Combine(v, Ops::Identity(d));
}

// The vertical step of kRows (1 to 3) rows `pitch` apart from p, in
// PoolRows' order: from +0 for averages (unless kStart is false: the caller
// adds it with PoolEnd), then the rows in order.
template <class Ops, size_t kRows, bool kStart = true, class D, typename T>
HWY_INLINE hn::Vec<D> PoolColumn(D d, const T* p, size_t pitch) {
  static_assert(kRows >= 1 && kRows <= 3, "1 to 3 rows");
  hn::Vec<D> acc = Ops::Load(d, p);
  if constexpr (kStart) acc = PoolStart<Ops>(d, acc);
  if constexpr (kRows >= 2) acc = Ops::Combine(acc, Ops::Load(d, p + pitch));
  if constexpr (kRows >= 3) acc = Ops::Combine(acc, Ops::Load(d, p + 2 * pitch));
  return acc;
}

// Averages with excludePad: areas[r*pitch + j] = height(r) * widths[j] for
// r < rows, j < cols, a vector at a time (element by element, the windows'
// arithmetic or conversions cost as much as the pooling). A row's last
// vector spills into the next row, written after, or past the last one.
// Products are exact while `exact` (kY*kX < 2^24); otherwise one rounding
// of the integer product.
template <class D, class Height>
HWY_INLINE void PoolAreaRows(D d, hn::TFromD<D>* areas, size_t rows, size_t pitch, size_t cols,
                             const hn::TFromD<D>* widths, bool exact, const Height& height) {
  using L = hn::TFromD<D>;
  for (size_t r = 0; r < rows; ++r) {
    const size_t hy = height(r);
    L* row = areas + r * pitch;
    if (exact) {
      const auto h = hn::Set(d, static_cast<L>(hy));
      for (size_t j = 0; j < cols; j += hn::Lanes(d)) {
        hn::StoreU(hn::Mul(h, hn::LoadU(d, widths + j)), d, row + j);
      }
    } else {
      for (size_t j = 0; j < cols; ++j) row[j] = static_cast<L>(hy * static_cast<size_t>(widths[j]));
    }
  }
}

// bf16 averages: the vertical step of kRows rows, `pitch` elements apart
// from p, over 2N consecutive elements read as N 32-bit lanes: e sums the
// even elements and od the odd ones (BF16LanesToF32), in PoolRows' order
// (without the +0 when kStart is false, as in PoolColumn). p starts a
// 32-bit lane except in the AVX-512 pick rows, whose unaligned loads take
// any address.
template <class Ops, size_t kRows, bool kStart = true, class D, typename T>
HWY_INLINE void PoolBF16LaneRows(D d, const T* p, size_t pitch, hn::Vec<D>& e, hn::Vec<D>& od) {
  hn::Vec<D> re, ro;
  LoadBF16Pair(d, p, re, ro);
  e = kStart ? PoolStart<Ops>(d, re) : re;
  od = kStart ? PoolStart<Ops>(d, ro) : ro;
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
// keep one order in every path; max runs two chains).
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
// (averages keep one order in every path; max runs two chains). Up to 7 taps
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

// Vertical step over n >= 1 rows at src, src + stride, ...: out[x] for
// x < len, rounded up to whole vectors (the caller made them readable).
// Averages start from +0 and add the rows in order, like every other path.
template <class Ops, class D, typename T>
HWY_INLINE void PoolRows(D d, const T* src, size_t stride, size_t n, size_t len,
                         typename Ops::L* out, bool prefetch) {
  // The new rows (stride 2) of the output row after next: one row ahead was
  // too close to cover L3 latency on narrow NCHW rows (-5-15%).
  const T* ahead = src + (n + 2) * stride;
  PoolTaps<Ops>(
      d, n, len,
      [&](size_t x, size_t y) HWY_ATTR SYNETK_LAMBDA_INLINE {
        const hn::Vec<D> v = Ops::Load(d, src + y * stride + x);
        return y == 0 ? PoolStart<Ops>(d, v) : v;
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

// Lanes shift .. shift + N - 1 of {lo, hi} through memory: targets without
// a whole-vector lane shift (scalable vectors, or wider than one block).
template <class D>
HWY_INLINE hn::Vec<D> PoolShiftInBuffered(D d, hn::Vec<D> lo, hn::Vec<D> hi, size_t shift) {
  const size_t N = hn::Lanes(d);
  HWY_ALIGN hn::TFromD<D> buf[2 * kMaxLanes<hn::TFromD<D>>];
  hn::Store(lo, d, buf);
  hn::Store(hi, d, buf + N);
  return hn::LoadU(d, buf + shift);
}

// Lanes kShift .. kShift + N - 1 of the concatenation {lo, hi} (lo's lanes
// first), for 0 <= kShift <= N on targets of fixed width: a window's tap k
// from two aligned loads instead of one unaligned load per tap (on AVX-512
// every unaligned load splits a cache line).
template <size_t kShift, class D>
HWY_INLINE hn::Vec<D> PoolShiftIn(D d, hn::Vec<D> lo, hn::Vec<D> hi) {
  constexpr size_t kN = hn::MaxLanes(D());
  static_assert(kShift <= kN, "a shift within two vectors");
  if constexpr (kShift == 0) {
    (void)d;
    (void)hi;
    return lo;
  } else if constexpr (kShift == kN) {
    (void)d;
    (void)lo;
    return hi;
  } else {
    constexpr int kBytes = static_cast<int>(kShift * sizeof(hn::TFromD<D>));
    const hn::Repartition<uint8_t, D> d8;
    const auto l8 = hn::BitCast(d8, lo), h8 = hn::BitCast(d8, hi);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kBytes % 4 == 0) {  // whole 32-bit lanes: one valignd
      return hn::BitCast(d, hn::Vec512<uint8_t>{_mm512_alignr_epi32(h8.raw, l8.raw, kBytes / 4)});
    } else {
      // The 16-byte blocks kBytes / 16 and the next of {lo, hi}, then bytes
      // within each block.
      constexpr int kBlock = kBytes / 16;
      const __m512i a = kBlock == 0 ? l8.raw : _mm512_alignr_epi32(h8.raw, l8.raw, 4 * kBlock);
      const __m512i c = kBlock == 3 ? h8.raw : _mm512_alignr_epi32(h8.raw, l8.raw, 4 * kBlock + 4);
      return hn::BitCast(d, hn::Vec512<uint8_t>{_mm512_alignr_epi8(c, a, kBytes % 16)});
    }
#elif HWY_TARGET == HWY_AVX2
    const auto mid = hn::ConcatLowerUpper(d8, h8, l8);  // {lo's upper block, hi's lower}
    const auto a = kBytes < 16 ? l8 : mid;
    const auto c = kBytes < 16 ? mid : h8;
    if constexpr (kBytes % 16 == 0) return hn::BitCast(d, a);
    return hn::BitCast(d, hn::CombineShiftRightBytes<kBytes % 16>(d8, c, a));
#elif HWY_TARGET != HWY_SCALAR  // (one lane: shifts are 0 or 1)
    if constexpr (kN * sizeof(hn::TFromD<D>) == 16) {  // one block: SSE, NEON, EMU128
      return hn::BitCast(d, hn::CombineShiftRightBytes<kBytes>(d8, h8, l8));
    } else {
      return PoolShiftInBuffered(d, lo, hi, kShift);
    }
#endif
  }
}

// Whether PoolTwoTables serves lanes of type L on this target: vpermt2b
// (VBMI), vpermt2w / vpermt2d on AVX-512, two vpermps and a blend on AVX2.
template <typename L>
inline constexpr bool kPoolHasTwoTables =
#if HWY_TARGET == HWY_AVX3_DL
    true;
#elif HWY_TARGET == HWY_AVX3
    sizeof(L) >= 2;
#elif HWY_TARGET == HWY_AVX2
    sizeof(L) == 4;
#else
    false;
#endif

// Lanes idx[i] of the 2N lanes {a, b} (lanes of a first), where
// kPoolHasTwoTables.
template <class D>
HWY_INLINE hn::Vec<D> PoolTwoTables(D d, hn::Vec<D> a, hn::Vec<D> b,
                                    hn::Vec<hn::RebindToUnsigned<D>> idx) {
  static_assert(kPoolHasTwoTables<hn::TFromD<D>>, "a two-table permutation on this target");
  const hn::RebindToUnsigned<D> du;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  const __m512i ai = hn::BitCast(du, a).raw, bi = hn::BitCast(du, b).raw;
  if constexpr (sizeof(hn::TFromD<D>) == 1) {
#if HWY_TARGET == HWY_AVX3_DL
    return hn::BitCast(d, hn::Vec512<uint8_t>{_mm512_permutex2var_epi8(ai, idx.raw, bi)});
#endif
  } else if constexpr (sizeof(hn::TFromD<D>) == 2) {
    return hn::BitCast(d, hn::Vec512<uint16_t>{_mm512_permutex2var_epi16(ai, idx.raw, bi)});
  } else {
    return hn::BitCast(d, hn::Vec512<uint32_t>{_mm512_permutex2var_epi32(ai, idx.raw, bi)});
  }
#elif HWY_TARGET == HWY_AVX2
  const hn::Repartition<float, D> df;
  const auto lanes = hn::And(idx, hn::Set(du, 7u));
  const auto fromA = hn::TableLookupLanes(hn::BitCast(df, a), hn::IndicesFromVec(df, lanes));
  const auto fromB = hn::TableLookupLanes(hn::BitCast(df, b), hn::IndicesFromVec(df, lanes));
  const auto inB = hn::RebindMask(df, hn::Gt(idx, hn::Set(du, 7u)));
  return hn::BitCast(d, hn::IfThenElse(inB, fromB, fromA));
#else
  (void)d;
  (void)du;
  (void)b;
  (void)idx;
  return a;
#endif
}

// Max windows of kTaps rows, output rows one input row apart, in pairs:
// rows 1 .. kTaps - 1 of the first window are the second window's first
// rows, so a pair takes kTaps + 1 loads instead of 2 * kTaps. `rows` is even.
template <class Ops, size_t kTaps, class D, class Row, class Emit>
HWY_INLINE void PoolStackPairs(D d, size_t rows, size_t W, const Row& row, const Emit& emit) {
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < rows; r += 2) {
    for (size_t x = 0; x < W; x += N) {
      const auto shared = PoolTapSum<Ops, kTaps - 1>(
          [&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE { return row(r + 1 + k, x); });
      emit(r, x, Ops::Combine(row(r, x), shared));
      emit(r + 1, x, Ops::Combine(shared, row(r + kTaps, x)));
    }
  }
}

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
  if constexpr (Ops::kOrderFree) {
    // Row r's stores spill up to a vector past W: in pairs, that must not
    // reach row r + 1, written alongside.
    if (step == stride && n >= 2 && n <= 7 && rows >= 2 && outStep >= W + N) {
      // Input row i of the block at s + i*stride.
      const auto row = [=](size_t i, size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return Ops::Load(d, s + i * stride + x);
      };
      const size_t even = rows & ~size_t{1};
      // Its own switch (2..7, no unused 1): through PoolWithTapCount, u8
      // 32x64x64 5x5 ran 4.3 -> 4.8 us.
      switch (n) {
        case 2: PoolStackPairs<Ops, 2>(d, even, W, row, emit); break;
        case 3: PoolStackPairs<Ops, 3>(d, even, W, row, emit); break;
        case 4: PoolStackPairs<Ops, 4>(d, even, W, row, emit); break;
        case 5: PoolStackPairs<Ops, 5>(d, even, W, row, emit); break;
        case 6: PoolStackPairs<Ops, 6>(d, even, W, row, emit); break;
        default: PoolStackPairs<Ops, 7>(d, even, W, row, emit); break;
      }
      first = even;
    }
  }
  // Rows [first, rows) one by one.
  PoolTapsRows<Ops>(
      d, n, rows - first, W,
      [=](size_t r, size_t x, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        const V v = Ops::Load(d, s + (first + r) * step + k * stride + x);
        return k == 0 ? PoolStart<Ops>(d, v) : v;
      },
      [=](size_t r, size_t x, V v) HWY_ATTR SYNETK_LAMBDA_INLINE { emit(first + r, x, v); });
}

// PoolSlideRows with aligned segments (Wseg and R whole vectors): output
// vector j of a row takes its kTaps taps from the aligned vectors at j and
// j + N, shifted in registers (one load per output vector, not kTaps).
template <class Ops, size_t kTaps, class D, class Emit>
HWY_INLINE void PoolSlideAligned(D d, size_t rows, const typename Ops::L* HWY_RESTRICT R,
                                 size_t Wseg, size_t len, const Emit& emit) {
  using V = hn::Vec<D>;
  constexpr size_t kN = hn::MaxLanes(D());
  for (size_t r = 0; r < rows; ++r) {
    const typename Ops::L* const row = R + r * Wseg;
    V lo = hn::Load(d, row);
    for (size_t j = 0; j < len; j += kN) {
      const V hi = hn::Load(d, row + j + kN);
      emit(r, j, PoolTapSum<Ops, kTaps>([&](auto k) HWY_ATTR SYNETK_LAMBDA_INLINE {
             return PoolShiftIn<decltype(k)::value>(d, lo, hi);
           }));
      lo = hi;
    }
  }
}

// PoolNchwStacked's horizontal step for stride 1 and rows of at least one
// vector: output row r (dstW outputs at dst + r*dstW, of which `avail` from
// dst on may be written) reduces kX taps of the segment at R + r*Wseg.
// Averages divide by areas[r*G + j] (excludePad) or else by `divisor`.
template <class Ops, class D, typename T>
HWY_NOINLINE void PoolSlideRows(D d, size_t kX, size_t rows, const typename Ops::L* HWY_RESTRICT R,
                                size_t Wseg, T* HWY_RESTRICT dst, size_t dstW, size_t avail,
                                const typename Ops::L* HWY_RESTRICT areas, size_t G,
                                typename Ops::L divisor) {
  using V = hn::Vec<D>;
  const auto emit = [=](size_t r, size_t j, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const size_t o = r * dstW + j;
    PoolStoreDst<Ops>(d, PoolDivide<Ops>(d, v, areas, r * G + j, divisor), dst + o, avail - o);
  };
#if !HWY_HAVE_SCALABLE
  constexpr size_t kN = hn::MaxLanes(D());
  // AVX2 16-bit averages keep the loads: their stores already take two
  // shuffles per vector, and the shifted taps made them slower (32x64x64
  // 5x5 bf16 on Zen 5: 35 -> 40 us; f32 and max gained).
  constexpr bool kShiftTaps = !(HWY_TARGET == HWY_AVX2 && Ops::kDivides && sizeof(T) == 2);
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
inline constexpr size_t kPoolStackedMaxKernel = 32;

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
  L* R = PoolAlignLanes(PoolScratch<L, 0>(rowLen + N), N);
  const V ident = Ops::Identity(d);
  for (size_t i = 0; i + N <= rowLen; i += N) hn::StoreU(ident, d, R + i);
  hn::StoreU(ident, d, R + rowLen - N);
  const bool direct = G == a.dstW;  // block outputs are contiguous in dst
  const bool perRow = !direct && a.dstW >= N;
  T* O = direct || perRow ? nullptr : PoolScratch<T, 1>(flat);
  // Average with excludePad: the clipped area of every output of a plane.
  L* areas = nullptr;
  if constexpr (!Cfg::isMax) {
    if (a.excludePad) {
      // Row height times column width (PoolAreaRows).
      const size_t gUp = PoolRoundUp(G, N);
      areas = PoolScratch<L, 2>(PoolRoundUp(a.dstH * G, N) + flat + gUp);
      L* widths = PoolScratch<L, 3>(gUp);
      for (size_t g = 0; g < gUp; ++g) {
        widths[g] =
            g < a.dstW ? static_cast<L>(detail::PoolWindow(g, a.sX, a.pX, a.kX, W).Size()) : L(1);
      }
      PoolAreaRows(d, areas, a.dstH, G, G, widths, a.kY * a.kX < (size_t{1} << 24),
                   [&](size_t dy) { return detail::PoolWindow(dy, a.sY, a.pY, a.kY, H).Size(); });
      PoolFill(d, areas + a.dstH * G, PoolRoundUp(a.dstH * G, N) + flat - a.dstH * G, L(1));
    }
  }
  // Locals, not a's fields: vector stores may alias anything, so the
  // compiler would reload every field after each store.
  const size_t kX = a.kX, sX = a.sX, dstW = a.dstW;
  T* const dst = a.dst;
  const L divisor = static_cast<L>(a.divisor);
  // Horizontal step over len outputs of the stacked rows at r (forced inline:
  // called once per row, it ran 5x5 windows at 0.12 of memcpy, not 0.18).
  auto horizontal = [&](const L* r, size_t len, const auto& emit) SYNETK_LAMBDA_INLINE {
    if (sX == 1) {
      PoolTaps<Ops>(d, kX, len, [&](size_t j, size_t k) { return hn::LoadU(d, r + j + k); }, emit);
    } else {
      for (size_t j = 0; j < len; j += N) emit(j, PoolRowStrided<Ops>(d, r + j * sX, 0, kX, sX));
    }
  };
  // Average: divide by the window's area (areas[i]: the vector's outputs).
  auto average = [=](V v, size_t i) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return PoolDivide<Ops>(d, v, areas, i, divisor);
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
                           areas ? areas + dy0 * G : nullptr, G, divisor);
        continue;
      }
      if (perRow) {
        for (size_t b = 0; b < nb; ++b) {
          const size_t ob = base + b * dstW;
          const size_t areaRow = (dy0 + b) * G;
          horizontal(R + b * Wseg, dstW, [&](size_t j, V v) {
            PoolStoreDst<Ops>(d, average(v, areaRow + j), dst + ob + j, dstTotal - (ob + j));
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
  L* R = PoolScratch<L, 0>(rowLen);
  const V ident = Ops::Identity(d);
  for (size_t i = 0; i + N <= rowLen; i += N) hn::StoreU(ident, d, R + i);
  hn::StoreU(ident, d, R + rowLen - N);
  // Average with excludePad: clipped widths of the output columns.
  L* widths = nullptr;
  if constexpr (!Cfg::isMax) {
    widths = PoolScratch<L, 1>(nDx);
    for (size_t dx = 0; dx < nDx; ++dx) {
      widths[dx] = dx < a.dstW ? static_cast<L>(detail::PoolWindow(dx, a.sX, a.pX, a.kX, W).Size()) : L(1);
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
        if constexpr (!Cfg::isMax) {  // average: divide by the window's area
          const V hy = hn::Set(d, static_cast<L>(wy.Size()));
          v = hn::Div(v, a.excludePad ? hn::Mul(hy, hn::LoadU(d, widths + dx))
                                      : hn::Set(d, a.divisor));
        }
        // Lanes past dstW land in the next row, which is written later.
        PoolStoreDst<Ops>(d, v, a.dst + base + dx, dstTotal - (base + dx));
      }
    }
  }
}

// NHWC with stride 1 along W: output element j of the row reads R[j + k*C],
// so the row is one flat pass however few channels there are. Its own
// function: inside PoolNhwc, GCC spilled the tap offsets of this loop.
template <class Ops, class D, typename T>
HWY_NOINLINE void PoolNhwcFlatRow(D d, const typename Ops::L* HWY_RESTRICT R, size_t C,
                                  size_t kX, size_t rowOut, typename Ops::L rows,
                                  const typename Ops::L* HWY_RESTRICT widths,
                                  typename Ops::L divisor, T* HWY_RESTRICT out, size_t avail) {
  using V = hn::Vec<D>;
  const V area = hn::Set(d, rows), div = hn::Set(d, divisor);
  PoolTaps<Ops>(
      d, kX, rowOut,
      [&](size_t j, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE { return hn::LoadU(d, R + j + k * C); },
      [&](size_t j, V acc) HWY_ATTR SYNETK_LAMBDA_INLINE {
        if constexpr (!Ops::kOrderFree) {  // average: widths given with excludePad
          acc = hn::Div(acc, widths ? hn::Mul(area, hn::LoadU(d, widths + j)) : div);
        }
        // Lanes past the row land on outputs written later.
        PoolStoreDst<Ops>(d, acc, out + j, avail - j);
      });
}

// NHWC with 3 channels and strideX > 1 where PoolNhwcPickRow does not apply:
// the padded row R (identity past it) is split into 3 channel planes, each
// pooled like an NCHW row (N output pixels per vector), and the outputs
// interleaved back through outRow (3 planes of planeLen lanes, then the row)
// before one flat store pass. Its own function, so that the other NHWC paths
// do not change its code.
template <class Ops, class D, typename T>
HWY_NOINLINE void PoolNhwcPlanarRow(D d, const typename Ops::L* HWY_RESTRICT R, size_t pixels,
                                    typename Ops::L* HWY_RESTRICT planes, size_t planeLen,
                                    size_t kX, size_t sX, size_t dstW, size_t rowOut,
                                    typename Ops::L rows,
                                    const typename Ops::L* HWY_RESTRICT widths,
                                    typename Ops::L divisor, T* HWY_RESTRICT out,
                                    size_t avail) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  typename Ops::L* outRow = planes + 3 * planeLen;
  for (size_t i = 0; i < pixels; i += N) {
    V c0, c1, c2;
    hn::LoadInterleaved3(d, R + 3 * i, c0, c1, c2);
    hn::StoreU(c0, d, planes + i);
    hn::StoreU(c1, d, planes + planeLen + i);
    hn::StoreU(c2, d, planes + 2 * planeLen + i);
  }
  for (size_t dx = 0; dx < dstW; dx += N) {
    V v0 = PoolRowStrided<Ops>(d, planes + dx * sX, 0, kX, sX);
    V v1 = PoolRowStrided<Ops>(d, planes + planeLen + dx * sX, 0, kX, sX);
    V v2 = PoolRowStrided<Ops>(d, planes + 2 * planeLen + dx * sX, 0, kX, sX);
    if constexpr (!Ops::kOrderFree) {  // average: divide by the window's area
      const V area =
          widths ? hn::Mul(hn::Set(d, rows), hn::LoadU(d, widths + dx)) : hn::Set(d, divisor);
      v0 = hn::Div(v0, area);
      v1 = hn::Div(v1, area);
      v2 = hn::Div(v2, area);
    }
    hn::StoreInterleaved3(v0, v1, v2, d, outRow + 3 * dx);
  }
  for (size_t j = 0; j < rowOut; j += N) {
    // Lanes past the row land on outputs written later.
    PoolStoreDst<Ops>(d, hn::LoadU(d, outRow + j), out + j, avail - j);
  }
}

// NHWC with few channels and strideX >= 2 (images: 3 channels), where
// kPoolHasTwoTables. Chunk c covers `step` = P*C outputs (P whole pixels,
// sX pixels apart) from the 2N lanes of the vertical step that start at its
// first window, x = c*advance - pad; one two-table permutation per tap
// (pick + k*C) gathers every output's tap k, so nothing goes through
// memory. With kRows rows at s (`stride` apart), the vertical step comes
// straight from src: chunks [c0, c1) lie inside the row; the others load the
// row's first or last 2N lanes instead, move their indices by as much, and
// take the identity element for the indices that leave those lanes (the
// padding). With kRows 0, R holds the padded row's vertical step (R[o] is
// window offset o) and every chunk reads it. One call does `count` output
// rows, srcStep input elements apart (count 1 with R): per row, the call's
// setup and its caller's bookkeeping had cost about 40 cycles (u8 3x224x224
// 3x3 s2 p1 max, one-target AVX3_DL: 3.5 -> 2.9 us). (Splitting the row into channel
// planes and interleaving the outputs back cost 4x the NCHW row's time on
// 3x224x224; a flat pass over R, then one permutation, 2x: storing the row
// to R and reading it back at other offsets cost as much as the rest.)
// With kCarry (3-wide windows of stride 2, where PoolNhwc finds that it
// pays), output p's tap 0 is output p - 1's tap 2, the same pixel: each
// chunk moves it in from the tap 2 it gathered and the previous chunk's (one
// two-table permutation, in place of the lookup), so the 2N lanes start at
// tap 1 (C lanes later) and hold more pixels' windows (3 channels of fp32
// lanes on AVX-512: 5 per chunk instead of 4).
template <class Ops, size_t kTaps, size_t kRows, bool kCarry, class D, typename T>
HWY_NOINLINE void PoolNhwcPickRow(D d, size_t kX, const T* HWY_RESTRICT s, size_t stride,
                                  size_t rowElems,
                                  const typename Ops::L* HWY_RESTRICT R, size_t pad, size_t c0,
                                  size_t c1, size_t chunks, size_t step, size_t sX, size_t C,
                                  const hn::TFromD<hn::RebindToUnsigned<D>>* pickLanes,
                                  typename Ops::L rows, const typename Ops::L* HWY_RESTRICT widths,
                                  typename Ops::L divisor, T* HWY_RESTRICT out, size_t avail,
                                  size_t count, size_t srcStep, size_t outStep) {
  using V = hn::Vec<D>;
  const hn::RebindToUnsigned<D> du;
  using U = hn::TFromD<decltype(du)>;
  using VU = hn::Vec<decltype(du)>;
  const size_t N = hn::Lanes(d), advance = step * sX;
  const V area = hn::Set(d, rows), div = hn::Set(d, divisor), ident = Ops::Identity(d);
  const VU pick = hn::Load(du, pickLanes), lanes2N = hn::Set(du, static_cast<U>(2 * N));
  // With kCarry the 2N lanes start at tap 1: C lanes less padding before
  // them (pad >= C: PoolNhwc carries only with padding).
  const size_t skip = kCarry ? C : 0;
  pad -= skip;
  // Tap 0 from {previous chunk's tap 2, this chunk's}: the previous chunk's
  // last pixel, then this chunk's pixels but its last.
  const VU iota = hn::Iota(du, 0);
  const VU shiftIn = hn::IfThenElse(hn::Lt(iota, hn::Set(du, static_cast<U>(C))),
                                    hn::Add(iota, hn::Set(du, static_cast<U>(step - C))),
                                    hn::Add(iota, hn::Set(du, static_cast<U>(N - C))));
  // bf16 averages on AVX-512 read the rows' 2N elements as N 32-bit lanes
  // whose halves are the even and odd elements (BF16LanesToF32): no
  // promotion shuffles. Element i of the 2N is then lane i / 2 of the even
  // vector or of the odd one (evenOdd), which the two-table lookups take
  // instead of i. (3x224x224 NHWC on AVX3_DL: 0.19-0.20 -> 0.21-0.22 of
  // memcpy; AVX2, whose lookups are two permutations and a blend, did not
  // gain: 0.12 -> 0.11-0.12.)
  constexpr bool kEvenOdd = kRows > 0 && Ops::kDivides &&
                            ElementTraits<T>::kEncoding == Encoding::kBFloat16 &&
                            (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL);
  const auto evenOdd = [&](VU i) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (kEvenOdd) {
      return hn::Add(hn::ShiftRight<1>(i),
                     hn::IfThenElseZero(hn::TestBit(i, hn::Set(du, U{1})),
                                        hn::Set(du, static_cast<U>(N))));
    } else {
      return i;
    }
  };
  VU taps[kTaps == 0 ? 7 : kTaps];
  for (size_t k = 0; k < (kTaps == 0 ? kX : kTaps); ++k) {  // (kCarry: taps[0] unused)
    taps[k] = hn::Add(pick, hn::Set(du, static_cast<U>(k * C - skip)));
  }
  // The lookups of whole chunks, in the vertical step's lanes.
  VU looks[kTaps == 0 ? 7 : kTaps];
  for (size_t k = 0; k < (kTaps == 0 ? kX : kTaps); ++k) looks[k] = evenOdd(taps[k]);
  const auto emit = [&](size_t c, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const size_t j = c * step;
    if constexpr (!Ops::kOrderFree) {  // average: widths given with excludePad
      // The direct rows' sums (kRows > 0) leave their +0 to the end.
      if constexpr (kRows > 0) v = PoolEnd<Ops>(d, v);
      v = hn::Div(v, widths ? hn::Mul(area, hn::LoadU(d, widths + j)) : div);
    }
    // Lanes past `step` land on outputs written later.
    PoolStoreDst<Ops>(d, v, out + j, avail - j);
  };
  V prev = ident;  // kCarry: the previous chunk's tap 2 (at first, padding)
  // kCarry: this chunk's tap 0 from the previous chunk's tap 2 and this
  // chunk's, t2, which becomes the carry.
  const auto tapZero = [&](V t2) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const V t0 = PoolTwoTables(d, prev, t2, shiftIn);
    prev = t2;
    return t0;
  };
  // The taps in PoolTapSum's order, tapAt(k) giving tap k (with kCarry,
  // taps 1 and 2 only).
  const auto sumTaps = [&](const auto& tapAt) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (kCarry && kTaps == 3) {
      const V t2 = tapAt(2), t0 = tapZero(t2), t1 = tapAt(1);
      return PoolTapSum<Ops, 3>([&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
        return k == 0 ? t0 : k == 1 ? t1 : t2;
      });
    } else {
      return PoolTapSum<Ops, kTaps>(tapAt);
    }
  };
  const auto gather = [&](V lo, V hi) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return sumTaps([&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
      return PoolTwoTables(d, lo, hi, looks[k]);
    });
  };
  // `count` output rows, srcStep input and outStep output elements apart
  // (the pointers move only between rows: never past the tensors).
  for (size_t y = 0; y < count; ++y) {
    if (y != 0) {
      s += srcStep;
      out += outStep;
      avail -= outStep;
    }
    prev = ident;
    if constexpr (kRows == 0) {  // any kX <= 7, taps in a loop
      for (size_t c = 0; c < chunks; ++c) {
        const auto* r = R + c * advance + skip;
        const V lo = hn::LoadU(d, r), hi = hn::LoadU(d, r + N);
        V v;
        if constexpr (kCarry) {  // kX == 3; the taps in this loop's order
          const V t2 = PoolTwoTables(d, lo, hi, taps[2]), t0 = tapZero(t2);
          v = Ops::Combine(Ops::Combine(t0, PoolTwoTables(d, lo, hi, taps[1])), t2);
        } else {
          v = PoolTwoTables(d, lo, hi, taps[0]);
          for (size_t k = 1; k < kX; ++k) v = Ops::Combine(v, PoolTwoTables(d, lo, hi, taps[k]));
        }
        emit(c, v);
      }
    } else {
      // The vertical step at row offset x (x + 2N <= rowElems), in PoolRows'
      // order (the rows in order; the average's +0 comes in emit): elements
      // x .. x + 2N - 1 as lo, hi, or (kEvenOdd) the even and odd ones.
      const auto vertical = [&](size_t x, V& lo, V& hi) HWY_ATTR SYNETK_LAMBDA_INLINE {
        if constexpr (kEvenOdd) {
          PoolBF16LaneRows<Ops, kRows, false>(d, s + x, stride, lo, hi);  // x may be odd
        } else {
          lo = PoolColumn<Ops, kRows, false>(d, s + x, stride);
          hi = PoolColumn<Ops, kRows, false>(d, s + x + N, stride);
        }
      };
      // A chunk at the row's edge: its x clamped to [0, rowElems - 2N].
      const auto edge = [&](size_t c) HWY_ATTR SYNETK_LAMBDA_INLINE {
        const size_t x = c * advance, b = HWY_MIN(x > pad ? x - pad : 0, rowElems - 2 * N);
        const VU shift = hn::Set(du, static_cast<U>(x - pad - b));  // modulo 2^bits
        V lo, hi;
        vertical(b, lo, hi);
        const auto tapAt = [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
          const VU at = hn::Add(taps[k], shift);  // past the 2N lanes: padding
          return hn::IfThenElse(hn::RebindMask(d, hn::Lt(at, lanes2N)),
                                PoolTwoTables(d, lo, hi, evenOdd(at)), ident);
        };
        emit(c, sumTaps(tapAt));
      };
      size_t c = 0;
      for (; c < HWY_MIN(c0, chunks); ++c) edge(c);
      for (; c < c1; ++c) {
        V lo, hi;
        vertical(c * advance - pad, lo, hi);
        emit(c, gather(lo, hi));
      }
      for (; c < chunks; ++c) edge(c);
    }
  }
}

// NHWC, 3-wide windows of stride 2 along W (the ResNet stem's 3x3 s2 p1),
// one output row whose kRows input rows at s are all inside src: no row
// buffer. Output pixel dx combines the vertical steps of input columns
// 2dx - pX .. 2dx - pX + 2, each the rows' combination in order (as PoolRows
// computes them; the average's +0 comes at the end, PoolEnd); adjacent
// outputs share a column, which `carry` keeps per channel. Columns outside
// the row are the identity element (+0 or the lowest key: the same sums and
// maxima as leaving them out).
template <class Ops, size_t kRows, bool kOneVector, class D, typename T>
HWY_NOINLINE void PoolNhwcStemRow(D d, const T* HWY_RESTRICT s, size_t rowElems, size_t C,
                                  size_t W, size_t pX, size_t dstW, float hy, float divisor,
                                  bool excludePad, T* HWY_RESTRICT out, size_t avail,
                                  typename Ops::L* HWY_RESTRICT carry) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const V ident = Ops::Identity(d);
  // The vertical step of the column at p (inside the row), without the
  // average's +0: every pixel adds it once (PoolEnd).
  const size_t pitch = rowElems;
  auto colAt = [d, pitch](const T* p) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return PoolColumn<Ops, kRows, false>(d, p, pitch);
  };
  // The vertical step of input column x (may be outside [0, W)), lanes c..
  auto col = [&](ptrdiff_t x, size_t c) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if (x < 0 || x >= static_cast<ptrdiff_t>(W)) return ident;
    return colAt(s + static_cast<size_t>(x) * C + c);
  };
  // bf16 averages of whole pairs of vectors of channels (Ops::kBF16Pairs):
  // summed as two fp32 vectors, even and odd channels (`carry` keeps them in
  // that order), and stored as one, with no promotion or narrowing shuffles.
  const bool pairs = Ops::kBF16Pairs && C % (2 * N) == 0;
  // The vertical step of input column x's channels c .. c + 2N, even and odd.
  auto colPairs = [&](ptrdiff_t x, size_t c, V& e, V& o) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if constexpr (Ops::kBF16Pairs) {
      if (x < 0 || x >= static_cast<ptrdiff_t>(W)) {
        e = o = ident;
        return;
      }
      PoolBF16LaneRows<Ops, kRows, false>(d, s + static_cast<size_t>(x) * C + c, pitch, e, o);
    } else {
      (void)x, (void)c, (void)e, (void)o;
    }
  };
  // Any pixel: columns outside the row are the identity, the shared column
  // goes through `carry`.
  auto pixel = [&](size_t dx) HWY_ATTR SYNETK_LAMBDA_INLINE {
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(2 * dx) - static_cast<ptrdiff_t>(pX);
    V div = hn::Set(d, static_cast<typename Ops::L>(divisor));
    if (!Ops::kOrderFree && excludePad) {
      const ptrdiff_t lo = HWY_MAX(x0, ptrdiff_t{0});
      const ptrdiff_t hi = HWY_MIN(x0 + 3, static_cast<ptrdiff_t>(W));
      div = hn::Set(d, static_cast<typename Ops::L>(hy * static_cast<float>(hi - lo)));
    }
    if constexpr (Ops::kBF16Pairs) {
      if (pairs) {
        for (size_t c = 0; c < C; c += 2 * N) {
          V e0, o0, e1, o1, e2, o2;
          if (dx == 0) {
            colPairs(x0, c, e0, o0);
          } else {
            e0 = hn::LoadU(d, carry + c);
            o0 = hn::LoadU(d, carry + c + N);
          }
          colPairs(x0 + 1, c, e1, o1);
          colPairs(x0 + 2, c, e2, o2);
          hn::StoreU(e2, d, carry + c);
          hn::StoreU(o2, d, carry + c + N);
          const V ae = hn::Div(PoolEnd<Ops>(d, Ops::Combine(Ops::Combine(e0, e1), e2)), div);
          const V ao = hn::Div(PoolEnd<Ops>(d, Ops::Combine(Ops::Combine(o0, o1), o2)), div);
          // Whole pairs of channels: the store stays inside the pixel.
          StoreBF16Pair<true>(d, ae, ao, out + dx * C + c);
        }
        return;
      }
    }
    for (size_t c = 0; c < C; c += N) {
      const V v0 = dx == 0 ? col(x0, c) : hn::LoadU(d, carry + c);
      const V v2 = col(x0 + 2, c);
      V acc = Ops::Combine(Ops::Combine(v0, col(x0 + 1, c)), v2);
      hn::StoreU(v2, d, carry + c);
      if constexpr (!Ops::kOrderFree) acc = hn::Div(PoolEnd<Ops>(d, acc), div);
      // Lanes past C land in the next pixel, which is written later.
      const size_t o = dx * C + c;
      PoolStoreDst<Ops>(d, acc, out + o, avail - o);
    }
  };
  if constexpr (!kOneVector) {
    for (size_t dx = 0; dx < dstW; ++dx) pixel(dx);
    return;
  }
  // Pixels [a, b) (after the first) have all three columns inside the row.
  const size_t a = HWY_MAX(size_t{1}, (pX + 1) / 2);
  const size_t b = HWY_MAX(a, HWY_MIN(dstW, W + pX >= 1 ? (W + pX - 1) / 2 : 0));
  size_t dx = 0;
  for (; dx < HWY_MIN(a, dstW); ++dx) pixel(dx);
  if (dx < b) {
    // One vector of channels: the shared column stays in a register
    // (through `carry`, the u8 64-channel stem took 5 ns per pixel; with
    // two to four registers, 16-bit keys and fp32 spilled and lost). Its
    // own instance: added to the generic loop's, it slowed that loop
    // (f16 64 channels: 41 -> 49 us).
    V k = hn::LoadU(d, carry);
    const V div = hn::Set(d, static_cast<typename Ops::L>(excludePad ? hy * 3.0f : divisor));
    for (; dx < b; ++dx) {
      const T* q = s + (2 * dx - pX + 1) * C;
      const V v2 = colAt(q + C);
      V acc = Ops::Combine(Ops::Combine(k, colAt(q)), v2);
      k = v2;
      if constexpr (!Ops::kOrderFree) acc = hn::Div(PoolEnd<Ops>(d, acc), div);
      PoolStoreDst<Ops>(d, acc, out + dx * C, avail - dx * C);
    }
    hn::StoreU(k, d, carry);
  }
  for (; dx < dstW; ++dx) pixel(dx);
}

template <class Cfg, class D>
void PoolNhwc(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using T = typename Cfg::Elem;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t C = a.srcC, W = a.srcW, rowElems = W * C;
  // Locals, not a's fields: vector stores may alias anything, so the
  // compiler would reload every field after each store.
  const size_t kX = a.kX, sX = a.sX, pX = a.pX, dstW = a.dstW, dstC = a.dstC;
  const bool excludePad = a.excludePad, pool3d = a.pool3d;
  typename Cfg::Elem* const dst = a.dst;
  // Stores may spill past a row onto outputs written later, never past the part.
  const size_t srcTotal = a.srcH * rowElems, dstTotal = a.end * dstW * dstC;
  const size_t pixels = pX + W + dstW * sX + kX;
  // Few channels, strided: PoolNhwcPickRow, pickPixels whole output pixels
  // per vector, from 2N lanes of window starts.
  size_t pickPixels = 0;
  // 3-wide windows of stride 2 with padding: each output's first tap is the
  // previous output's last, which PoolNhwcPickRow carries over, so a chunk's
  // lanes hold only taps 1 and 2 and more pixels (3 channels, fp32 lanes on
  // AVX-512: 4 -> 5 per chunk; 3x224x224 3x3 s2 p1 on Zen 4, AVX3_DL, best of
  // 7 runs: averages f32 / bf16 / f16 15.0 / 15.6 / 17.8 -> 13.2 / 13.1 /
  // 14.6 us, f32 max 12.6 -> 11.6 us).
  bool pickCarry = false;
  if constexpr (kPoolHasTwoTables<L>) {
    // The last pixel's last tap is lane (P - 1)*sX*C + kX*C - 1 < 2N
    // (carried: (kX - 1)*C instead of kX*C).
    if (!pool3d && sX >= 2 && kX <= 7 && kX * C <= 2 * N) {
      pickPixels = HWY_MIN(N / C, (2 * N - kX * C) / (sX * C) + 1);
      const size_t carried = HWY_MIN(N / C, (2 * N - (kX - 1) * C) / (sX * C) + 1);
      // Where it adds an eighth or more pixels: the carry's permutation
      // waits for tap 2 (u8 3 channels, 20 -> 21 pixels: 3.55 -> 3.75 us).
      if (kX == 3 && sX == 2 && pX >= 1 && pickPixels >= 2 && 8 * carried >= 9 * pickPixels) {
        pickPixels = carried;
        pickCarry = true;
      }
    }
  }
  const bool pick = pickPixels >= 2;
  // Otherwise 3 channels, strided: the row is split into channel planes
  // (3N-lane LoadInterleaved3 reads, hence 3N more lanes of padding) and each
  // plane pooled like an NCHW row, N output pixels per vector.
  const bool planar = !pick && C == 3 && sX != 1 && !pool3d && kX <= kPoolStackedMaxKernel;
  const size_t rowLen = pixels * C + PoolRoundUp(rowElems, N) - rowElems + 6 * N;
  L* R = PoolAlignLanes(PoolScratch<L, 0>(rowLen + N), N);
  const V ident = Ops::Identity(d);
  for (size_t i = 0; i + N <= rowLen; i += N) hn::StoreU(ident, d, R + i);
  hn::StoreU(ident, d, R + rowLen - N);
  L* pix = pool3d ? PoolScratch<L, 1>(PoolRoundUp(C, N) + N) : nullptr;
  // Stride 1 (2D, small kernel): output element j of a row reads R[j + k*C],
  // so the row is one flat pass however few channels there are.
  const size_t rowOut = dstW * C;
  const bool flat = sX == 1 && !pool3d && kX <= kPoolStackedMaxKernel;
  L* widths = nullptr;  // average with excludePad: clipped width per element
  if constexpr (!Cfg::isMax) {
    if ((flat || pick) && excludePad) {
      widths = PoolWidthsPerElement(d, rowOut, C, [&](size_t dx) {
        return detail::PoolWindow(dx, sX, pX, kX, W).Size();
      });
    }
  }
  const hn::RebindToUnsigned<D> du;
  using U = hn::TFromD<decltype(du)>;
  HWY_ALIGN U pickLanes[kMaxLanes<U>] = {};
  // PoolNhwcPickRow: `step` outputs per chunk, window starts `advance`
  // apart; chunks [c0, pickC1) lie inside the row (2- or 3-wide windows),
  // their 2N lanes from pad - skip before the window start on.
  const size_t step = HWY_MAX(pickPixels, size_t{1}) * C, advance = step * sX, pad = pX * C;
  const size_t lead = pad - (pickCarry ? C : 0);
  const size_t c0 = (lead + advance - 1) / advance, chunks = (rowOut + step - 1) / step;
  const bool pickDirect = (kX == 2 || kX == 3) && rowElems >= 2 * N;
  const size_t pickC1 =
      pickDirect ? HWY_MIN((rowElems - 2 * N + lead) / advance + 1, chunks) : 0;
  if (pick) {  // lane m: channel m % C of the window of pixel m / C
    for (size_t p = 0, m = 0; p < pickPixels; ++p) {  // (no divisions: a few per call
      for (size_t c = 0; c < C; ++c) {             // cost as much as a row)
        pickLanes[m++] = static_cast<U>(p * sX * C + c);
      }
    }
  }
  const size_t dxUp = PoolRoundUp(dstW, N);
  const size_t planeLen = planar ? PoolRoundUp(HWY_MAX(pixels, dxUp * sX + kX), N) + N : 0;
  L* planes = planar ? PoolScratch<L, 3>(3 * planeLen + 3 * dxUp + 3 * N) : nullptr;
  if (planar) {
    for (size_t i = 0; i + N <= 3 * planeLen; i += N) hn::StoreU(ident, d, planes + i);
    if constexpr (!Cfg::isMax) {
      if (excludePad) {
        widths = PoolScratch<L, 2>(dxUp);
        for (size_t dx = 0; dx < dxUp; ++dx) {
          widths[dx] = dx < dstW
              ? static_cast<L>(detail::PoolWindow(dx, sX, pX, kX, W).Size()) : L(1);
        }
      }
    }
  }
  L* row = R + pX * C;
  const hn::CappedTag<L, 1> d1;
  // The stem rows' shared columns; their loads reach this far past a row.
  const bool stem = !pool3d && !flat && !planar && !pick && kX == 3 && sX == 2 && a.kY <= 3;
  L* carry = stem ? PoolScratch<L, 4>(PoolRoundUp(C, N)) : nullptr;
  const size_t stemReach = rowElems - C + PoolRoundUp(C, N);
  for (size_t dy = a.begin; dy < a.end; ++dy) {
    const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, a.srcH);
    if (stem && (wy.end - 1) * rowElems + stemReach <= srcTotal) {
      const T* s = a.src + wy.begin * rowElems;
      const size_t o = dy * rowOut;
      const float hy = static_cast<float>(wy.Size());
      const auto stemRow = [&](auto rows, auto oneVector) HWY_ATTR {
        PoolNhwcStemRow<Ops, decltype(rows)::value, decltype(oneVector)::value>(
            d, s, rowElems, C, W, pX, dstW, hy, a.divisor, excludePad, dst + o, dstTotal - o,
            carry);
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
      continue;
    }
    // The row's vertical step into R, then identity past it.
    const auto vertical = [&]() HWY_ATTR SYNETK_LAMBDA_INLINE {
      if ((wy.end - 1) * rowElems + PoolRoundUp(rowElems, N) <= srcTotal) {
        PoolRows<Ops>(d, a.src + wy.begin * rowElems, rowElems, wy.Size(), rowElems, row, false);
        hn::StoreU(ident, d, row + rowElems);
        return;
      }
      for (size_t j = 0; j < rowElems; j += N) {  // bounds-checked loads
        V acc = ident;
        for (size_t y = wy.begin; y < wy.end; ++y) {
          const size_t o = y * rowElems + j;
          acc = Ops::Combine(acc, PoolLoadSrc<Ops>(d, a.src + o, srcTotal - o));
        }
        hn::StoreU(acc, d, row + j);
      }
      hn::StoreU(ident, d, row + rowElems);
    };
    if constexpr (kPoolHasTwoTables<L>) {
      if (pick) {
        // 2 or 3 rows, 2- or 3-wide windows: straight from src; the others
        // through R.
        const size_t rows = wy.Size(), base = dy * rowOut;
        const T* s = a.src + wy.begin * rowElems;
        const L hy = static_cast<L>(rows), divL = static_cast<L>(a.divisor);
        const L* w = excludePad ? widths : nullptr;
        // The next output rows whose windows have as many rows, sY input
        // rows further each, go in the same call (direct rows only: the row
        // buffer holds one row).
        size_t count = 1;
        if (pickDirect && (rows == 2 || rows == 3)) {
          for (; dy + count < a.end; ++count) {
            const detail::PoolWindow next(dy + count, a.sY, a.pY, a.kY, a.srcH);
            if (next.Size() != rows || next.begin != wy.begin + count * a.sY) break;
          }
        }
        const auto pickRow = [&](auto taps, auto rowCount) HWY_ATTR {
          constexpr size_t kTaps = decltype(taps)::value, kRows = decltype(rowCount)::value;
          const auto run = [&](auto carried) HWY_ATTR {
            PoolNhwcPickRow<Ops, kTaps, kRows, decltype(carried)::value>(
                d, kX, s, rowElems, rowElems, R, pad, c0, pickC1, chunks, step, sX, C,
                pickLanes, hy, w, divL, dst + base, dstTotal - base, count,
                a.sY * rowElems, rowOut);
          };
          if constexpr (kTaps == 2) {  // (pickCarry needs 3-wide windows)
            run(std::false_type());
          } else {
            pickCarry ? run(std::true_type()) : run(std::false_type());
          }
        };
        using K0 = std::integral_constant<size_t, 0>;
        using K2 = std::integral_constant<size_t, 2>;
        using K3 = std::integral_constant<size_t, 3>;
        if (pickDirect && rows == 3) {
          kX == 3 ? pickRow(K3(), K3()) : pickRow(K2(), K3());
        } else if (pickDirect && rows == 2) {
          kX == 3 ? pickRow(K3(), K2()) : pickRow(K2(), K2());
        } else {
          vertical();
          pickRow(K0(), K0());
        }
        dy += count - 1;
        continue;
      }
    }
    vertical();
    if (flat) {
      const size_t base = dy * rowOut;
      PoolNhwcFlatRow<Ops>(d, R, C, kX, rowOut, static_cast<L>(wy.Size()),
                           excludePad ? widths : nullptr, static_cast<L>(a.divisor), dst + base,
                           dstTotal - base);
      continue;
    }
    if (planar) {
      const size_t base = dy * rowOut;
      PoolNhwcPlanarRow<Ops>(d, R, pixels, planes, planeLen, kX, sX, dstW, rowOut,
                             static_cast<L>(wy.Size()), excludePad ? widths : nullptr,
                             static_cast<L>(a.divisor), dst + base, dstTotal - base);
      continue;
    }
    for (size_t dx = 0; dx < dstW; ++dx) {
      const L* r = R + dx * sX * C;
      float area = a.divisor;
      if (!Cfg::isMax && excludePad) {
        area = static_cast<float>(wy.Size() * detail::PoolWindow(dx, sX, pX, kX, W).Size());
      }
      const size_t base = (dy * dstW + dx) * dstC;
      // The window's offsets that reach input columns.
      const size_t kBegin = pX > dx * sX ? pX - dx * sX : 0;
      const size_t kEnd = HWY_MIN(kX, pX + W - dx * sX);
      if (kBegin == 0 && kEnd == kX && !pool3d) {  // the whole window: taps unrolled
        const V div = hn::Set(d, static_cast<L>(area));
        PoolTaps<Ops>(
            d, kX, C,
            [&](size_t c, size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
              return hn::LoadU(d, r + k * C + c);
            },
            [&](size_t c, V acc) HWY_ATTR SYNETK_LAMBDA_INLINE {
              if constexpr (!Cfg::isMax) acc = hn::Div(acc, div);
              // Lanes past C land in the next pixel, which is written later.
              PoolStoreDst<Ops>(d, acc, dst + base + c, dstTotal - (base + c));
            });
        continue;
      }
      for (size_t c = 0; c < C; c += N) {
        V acc = hn::LoadU(d, r + kBegin * C + c);
        for (size_t k = kBegin + 1; k < kEnd; ++k) acc = Ops::Combine(acc, hn::LoadU(d, r + k * C + c));
        if (pool3d) {
          hn::StoreU(acc, d, pix + c);
          continue;
        }
        if constexpr (!Cfg::isMax) acc = hn::Div(acc, hn::Set(d, area));
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

// NCHW average over whole planes (global pooling), in the separable paths'
// order: column sums over the rows (from +0, top to bottom), then the
// columns added left to right. Padding only adds +0, which changes no sum.
// Rows of one vector take four planes at once, so that their dependent adds
// overlap; N sums share one division. (The stacked path paid a
// store-forwarding stall per plane here: 0.04 of memcpy on 512x7x7.)
template <class Cfg, class D>
void PoolNchwGlobalAverage(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using L = typename Ops::L;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t H = a.srcH, W = a.srcW, plane = H * W, srcTotal = a.srcC * plane;
  L* cols = PoolScratch<L, 0>(PoolRoundUp(W, N));
  const L areaValue = a.excludePad ? static_cast<L>(plane) : static_cast<L>(a.divisor);
  const V area = hn::Set(d, areaValue);
  auto load = [&](size_t at) { return PoolLoadSrc<Ops>(d, a.src + at, srcTotal - at); };
  // Left to right over the column sums in cols.
  auto total = [&]() {
    L sum = cols[0];
    for (size_t x = 1; x < W; ++x) sum += cols[x];
    return sum;
  };
  HWY_ALIGN L sums[kMaxLanes<L>] = {};
#if HWY_TARGET != HWY_SCALAR
  static_assert(std::is_same_v<L, float>, "4 lanes per 128-bit block");
  const hn::CappedTag<L, 4> d4;
  HWY_ALIGN L tr[4 * kMaxLanes<L>];
#endif
  for (size_t c0 = a.begin; c0 < a.end; c0 += N) {
    const size_t n = HWY_MIN(N, a.end - c0);
    size_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // (one lane: no groups of 4 planes)
    if (W <= N) {
      for (; i + 4 <= n; i += 4) {
        const size_t o = (c0 + i) * plane;
        V s0 = Ops::Identity(d), s1 = s0, s2 = s0, s3 = s0;
        const auto rows = [&](auto rowLoad) HWY_ATTR {
          for (size_t y = 0; y < H; ++y) {
            const size_t r = o + y * W;
            s0 = Ops::Combine(s0, rowLoad(r));
            s1 = Ops::Combine(s1, rowLoad(r + plane));
            s2 = Ops::Combine(s2, rowLoad(r + 2 * plane));
            s3 = Ops::Combine(s3, rowLoad(r + 3 * plane));
          }
        };
        if (o + 4 * plane - W + N <= srcTotal) {  // every row's vector inside src
          rows([&](size_t at) HWY_ATTR { return Ops::Load(d, a.src + at); });
        } else {
          rows(load);
        }
        // The four planes' columns as 4-lane vectors, added left to right:
        // a 4 x N transpose by interleaves within each 128-bit block, after
        // which block b of tr + j*N holds column 4b + j of planes i..i+3.
        const hn::Repartition<uint64_t, D> d64;
        const auto lo64 = [&](V x, V y) HWY_ATTR {
          return hn::BitCast(d, hn::InterleaveLower(d64, hn::BitCast(d64, x), hn::BitCast(d64, y)));
        };
        const auto hi64 = [&](V x, V y) HWY_ATTR {
          return hn::BitCast(d, hn::InterleaveUpper(d64, hn::BitCast(d64, x), hn::BitCast(d64, y)));
        };
        const V a01 = hn::InterleaveLower(d, s0, s1), a23 = hn::InterleaveLower(d, s2, s3);
        const V b01 = hn::InterleaveUpper(d, s0, s1), b23 = hn::InterleaveUpper(d, s2, s3);
        hn::StoreU(lo64(a01, a23), d, tr);
        hn::StoreU(hi64(a01, a23), d, tr + N);
        hn::StoreU(lo64(b01, b23), d, tr + 2 * N);
        hn::StoreU(hi64(b01, b23), d, tr + 3 * N);
        const auto column = [&](size_t x) HWY_ATTR { return hn::LoadU(d4, tr + x % 4 * N + x / 4 * 4); };
        auto t = column(0);
        for (size_t x = 1; x < W; ++x) t = Ops::Combine(t, column(x));
        // Straight to dst: gathering the groups into one vector of sums
        // waited on store forwarding (a wide load over narrow stores).
        PoolStoreDst<Ops>(d4, hn::Div(t, hn::Set(d4, areaValue)), a.dst + c0 + i, 4);
      }
    }
#endif
    const size_t rest = i;  // planes [rest, n): one at a time
    for (; i < n; ++i) {
      const size_t o = (c0 + i) * plane;
      for (size_t x = 0; x < W; x += N) {
        V acc = Ops::Identity(d);
        for (size_t y = 0; y < H; ++y) acc = Ops::Combine(acc, load(o + y * W + x));
        hn::StoreU(acc, d, cols + x);
      }
      sums[i - rest] = total();
    }
    // Lanes past n are dropped by the store.
    if (rest < n) {
      PoolStoreDst<Ops>(d, hn::Div(hn::Load(d, sums), area), a.dst + c0 + rest, n - rest);
    }
  }
}

// 2x2 windows with stride 2 and no padding, on inputs whose rows and columns
// pair up exactly (srcH == 2*dstH, srcW == 2*dstW): no row buffer. Every path
// reduces vertically first, so an average is ((r0[2i] + r1[2i]) +
// (r0[2i+1] + r1[2i+1])) in both formats; the trailing + 0 gives +0 where
// the buffered paths (which start from +0) give +0 instead of -0.
inline bool PoolIsPairs(size_t kY, size_t kX, size_t sY, size_t sX, size_t pY, size_t pX,
                        size_t srcH, size_t srcW, size_t dstH, size_t dstW, bool pool3d) {
  return !pool3d && kY == 2 && kX == 2 && sY == 2 && sX == 2 && pY == 0 && pX == 0 &&
         srcH == 2 * dstH && srcW == 2 * dstW;
}

template <class Ops, class V>
HWY_INLINE V PoolPairFinish(V v) {
  if constexpr (!Ops::kOrderFree) {  // average: the area is 4 (* 0.25 == / 4 exactly)
    const hn::DFromV<V> d;
    if constexpr (kPoolNativeFma) {
      // One operation: one rounding of v/4 + 0 gives the bits of
      // (v + 0) * 0.25 (the +0 only turns -0 into +0; v/4 is exact but for
      // denormals, rounded once either way). 16-bit 2x2 averages on Zen 4:
      // +5-10%.
      v = hn::MulAdd(v, hn::Set(d, 0.25f), hn::Zero(d));
    } else {
      v = hn::Mul(hn::Add(v, hn::Zero(d)), hn::Set(d, 0.25f));
    }
  }
  return v;
}

// Outputs of lanes [0, N) from columns [0, 2N) of two rows: a = columns
// [0, N), b = columns [N, 2N); 0/1 = the rows. On 1-lane vectors a and b are
// columns 0 and 1.
template <class Ops, class D>
HWY_INLINE hn::Vec<D> PoolPair2(D d, hn::Vec<D> a0, hn::Vec<D> a1, hn::Vec<D> b0,
                                hn::Vec<D> b1) {
  const hn::Vec<D> A = Ops::Combine(a0, a1), B = Ops::Combine(b0, b1);
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  return PoolPairFinish<Ops>(Ops::Combine(A, B));
#else
  return PoolPairFinish<Ops>(Ops::Combine(hn::ConcatEven(d, B, A), hn::ConcatOdd(d, B, A)));
#endif
}

#if HWY_TARGET == HWY_AVX3_DL
// 8-bit max over row pairs of at most 32 bytes, P = 64/W pairs per step
// (a pair per 64-byte vector, the generic path, left most lanes idle): two
// 64-byte loads hold P pairs (2*W*P <= 128 bytes). vpermt2b gathers their
// even columns, top rows into lanes [0, P*W/2) and bottom rows into lanes
// [32, 32 + P*W/2), and the odd columns likewise; one max combines them,
// and a max of the two 256-bit halves gives the P*W/2 contiguous outputs,
// stored with a byte mask. (The 16-bit halves' max and a vpmovwb after it
// cost two more operations per step.) Returns the number of pairs done:
// whole steps whose 128 bytes lie inside src.
template <typename L>
HWY_INLINE size_t PoolPairsPacked8(const L* src, size_t W, size_t pairs, size_t srcLeft, L* dst) {
  const size_t P = 64 / W, W2 = W / 2, outStep = P * W2;
  alignas(64) uint8_t even[64], odd[64];
  for (size_t l = 0; l < 64; ++l) {
    const size_t out = l % 32;  // output lane; lanes past outStep are never stored
    const size_t pair = out / W2, col = 2 * (out % W2);
    const size_t at = out < outStep ? pair * 2 * W + (l < 32 ? 0 : W) + col : 0;
    even[l] = static_cast<uint8_t>(at);
    odd[l] = static_cast<uint8_t>(out < outStep ? at + 1 : 0);
  }
  const __m512i iEven = _mm512_load_si512(even), iOdd = _mm512_load_si512(odd);
  const __mmask32 keep = static_cast<__mmask32>((uint64_t{1} << outStep) - 1);
  size_t p = 0;
  for (; p + P <= pairs && 2 * p * W + 128 <= srcLeft; p += P) {
    const L* s = src + 2 * p * W;
    const __m512i x0 = _mm512_loadu_si512(s), x1 = _mm512_loadu_si512(s + 64);
    const __m512i a = _mm512_permutex2var_epi8(x0, iEven, x1);
    const __m512i b = _mm512_permutex2var_epi8(x0, iOdd, x1);
    __m256i m;
    if constexpr (std::is_signed_v<L>) {
      const __m512i rows = _mm512_max_epi8(a, b);
      m = _mm256_max_epi8(_mm512_castsi512_si256(rows), _mm512_extracti64x4_epi64(rows, 1));
    } else {
      const __m512i rows = _mm512_max_epu8(a, b);
      m = _mm256_max_epu8(_mm512_castsi512_si256(rows), _mm512_extracti64x4_epi64(rows, 1));
    }
    _mm256_mask_storeu_epi8(dst + p * W2, keep, m);
  }
  return p;
}
#endif

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// 16/32-bit row pairs of W <= N columns, two pairs per step: the vertical
// steps A (pair p) and B (pair p + 1) have their even columns gathered into
// lanes {A's, then B's} and their odd columns likewise, so that one
// combination gives both pairs' W/2 outputs, contiguous. (One pair per
// vector, as the generic path does, spent a permutation pair and a store on
// every W/2 outputs: 0.40-0.45 of memcpy on 16-bit 256x28x28.) Returns the
// pairs done. Its own function: inlined, its loop's code changed with
// whatever else PoolNchwPairs held (bf16 max 4.8 -> 5.3 us when the narrow
// pairs' loop was added).
template <class Ops, class D, typename T>
HWY_NOINLINE size_t PoolPairsTwoAtOnce(D d, const T* src, size_t W, size_t pairs,
                                       size_t srcLeft, T* dst, size_t outs) {
  using V = hn::Vec<D>;
  const hn::RebindToUnsigned<D> du;
  using U = hn::TFromD<decltype(du)>;
  const size_t N = hn::Lanes(d), W2 = W / 2;
  HWY_ALIGN U even[kMaxLanes<U>];
  HWY_ALIGN U odd[kMaxLanes<U>];
  for (size_t l = 0; l < N; ++l) {  // lanes from W on: any index, never stored in the row
    const size_t col = l < W2 ? 2 * l : N + 2 * (l - W2);
    even[l] = static_cast<U>(l < W ? col : 0);
    odd[l] = static_cast<U>(l < W ? col + 1 : 0);
  }
  const auto ie = hn::Load(du, even), io = hn::Load(du, odd);
  size_t p = 0;
  for (; p + 2 <= pairs && 2 * p * W + 3 * W + N <= srcLeft; p += 2) {
    const T* s = src + 2 * p * W;
    const V A = Ops::Combine(Ops::Load(d, s), Ops::Load(d, s + W));
    const V B = Ops::Combine(Ops::Load(d, s + 2 * W), Ops::Load(d, s + 3 * W));
    const V v = PoolPairFinish<Ops>(
        Ops::Combine(PoolTwoTables(d, A, B, ie), PoolTwoTables(d, A, B, io)));
    // Lanes past the two rows land on outputs written later.
    PoolStoreDst<Ops>(d, v, dst + p * W2, outs - p * W2);
  }
  return p;
}
#endif

// Row pairs of W <= 2N columns whose loads (2N columns per row) stay inside
// src. Its own loop: inside PoolNchwPairs' loop over columns, which runs
// once per pair here, the pair's bookkeeping took most of the time
// (256x28x28 averages: bf16 7.4 -> 4.3 us).
template <class Ops, class D, typename T>
HWY_NOINLINE void PoolPairsNarrow(D d, const T* HWY_RESTRICT src, size_t W, size_t p0, size_t p1,
                                  T* HWY_RESTRICT dst, size_t outs) {
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d), W2 = W / 2;
  for (size_t p = p0; p < p1; ++p) {
    const T* s = src + 2 * p * W;
    V v;
    if constexpr (!Ops::kOrderFree && ElementTraits<T>::kEncoding == Encoding::kBFloat16) {
      // bf16 averages: columns 2i and 2i + 1 are the halves of 32-bit lane
      // i (BF16LanesToF32).
      V top0, top1, bottom0, bottom1;  // even and odd columns of both rows
      LoadBF16Pair(d, s, top0, top1);
      LoadBF16Pair(d, s + W, bottom0, bottom1);
      v = PoolPairFinish<Ops>(hn::Add(hn::Add(top0, bottom0), hn::Add(top1, bottom1)));
    } else {
      v = PoolPair2<Ops>(d, Ops::Load(d, s), Ops::Load(d, s + W), Ops::Load(d, s + N),
                         Ops::Load(d, s + W + N));
    }
    // Lanes past the row land on outputs written later.
    PoolStoreDst<Ops>(d, v, dst + p * W2, outs - p * W2);
  }
}

// NCHW: the part's channels are one flat sequence of row pairs, 2W
// contiguous inputs -> W/2 contiguous outputs each.
template <class Cfg, class D>
void PoolNchwPairs(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using T = typename Cfg::Elem;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t W = a.srcW, W2 = a.dstW;
  const T* src = a.src + a.begin * a.srcH * W;
  T* dst = a.dst + a.begin * a.dstH * W2;
  const size_t srcLeft = (a.srcC - a.begin) * a.srcH * W;  // readable from src
  const size_t outs = (a.end - a.begin) * a.dstH * W2;     // this part's outputs
  const size_t pairs = outs / W2;
  const V ident = Ops::Identity(d);
  constexpr bool kBf16Avg = !Cfg::isMax && ElementTraits<T>::kEncoding == Encoding::kBFloat16;
  const bool single = !kBf16Avg && N > 1 && W <= N;  // one vector per row
  // Furthest element (exclusive) a pair's loads reach, from the pair's start.
  const size_t reach = single ? W + N : W + (W - 1) / (2 * N) * (2 * N) + 2 * N;
  auto run = [&](size_t p0, size_t p1, auto checkedTag) {
    constexpr bool kChecked = decltype(checkedTag)::value;
    auto ld = [&](size_t off) -> V {
      if (kChecked && off >= srcLeft) return ident;
      if (kChecked) return PoolLoadSrc<Ops>(d, src + off, srcLeft - off);
      return Ops::Load(d, src + off);
    };
    for (size_t p = p0; p < p1; ++p) {
      const size_t i0 = 2 * p * W, o0 = p * W2;
      if (single) {
#if HWY_TARGET != HWY_SCALAR
        const V A = Ops::Combine(ld(i0), ld(i0 + W));
        if constexpr (sizeof(typename Ops::L) == 1) {
          // 8-bit max: adjacent bytes are the halves of 16-bit lanes.
          using L = typename Ops::L;
          const hn::Repartition<uint16_t, D> du16;
          const hn::RebindToSigned<decltype(du16)> di16;
          const hn::Rebind<L, decltype(di16)> dh;  // N/2 lanes
          hn::Vec<decltype(di16)> m;
          if constexpr (std::is_signed_v<L>) {
            const auto w = hn::BitCast(di16, A);
            m = hn::Max(hn::ShiftRight<8>(hn::ShiftLeft<8>(w)), hn::ShiftRight<8>(w));
          } else {
            const auto w = hn::BitCast(du16, A);
            m = hn::BitCast(di16, hn::Max(hn::And(w, hn::Set(du16, uint16_t{0xFF})),
                                          hn::ShiftRight<8>(w)));
          }
          // In range, so the saturating demotion is exact.
          PoolStoreDst<Ops>(dh, hn::DemoteTo(dh, m), dst + o0, outs - o0);
        } else {
          const V v = PoolPairFinish<Ops>(
              Ops::Combine(hn::ConcatEven(d, A, A), hn::ConcatOdd(d, A, A)));
          // Lanes past the row land on outputs written later.
          PoolStoreDst<Ops>(d, v, dst + o0, outs - o0);
        }
#endif
        continue;
      }
      if constexpr (kBf16Avg) {
        // bf16 average: columns 2i and 2i + 1 are the halves of 32-bit lane
        // i (BF16LanesToF32).
        const hn::RebindToUnsigned<D> du;
        auto ldw = [&](size_t off) {
          const auto* p = reinterpret_cast<const uint32_t*>(src + off);
          if (!kChecked || off + 2 * N <= srcLeft) return hn::LoadU(du, p);
          HWY_ALIGN uint32_t buf[kMaxLanes<uint32_t>] = {};
          if (off < srcLeft) std::memcpy(buf, p, (srcLeft - off) * sizeof(T));
          return hn::Load(du, buf);
        };
        for (size_t x = 0; x < W; x += 2 * N) {
          V top0, top1, bottom0, bottom1;  // even and odd columns of both rows
          BF16LanesToF32(d, ldw(i0 + x), top0, top1);
          BF16LanesToF32(d, ldw(i0 + W + x), bottom0, bottom1);
          const V e = hn::Add(top0, bottom0), o = hn::Add(top1, bottom1);
          PoolStoreDst<Ops>(d, PoolPairFinish<Ops>(hn::Add(e, o)), dst + o0 + x / 2,
                            outs - (o0 + x / 2));
        }
        continue;
      }
      for (size_t x = 0; x < W; x += 2 * N) {
        const V v = PoolPair2<Ops>(d, ld(i0 + x), ld(i0 + W + x), ld(i0 + x + N),
                                   ld(i0 + W + x + N));
        PoolStoreDst<Ops>(d, v, dst + o0 + x / 2, outs - (o0 + x / 2));
      }
    }
  };
  size_t done = 0;  // pairs computed by the packed paths
#if HWY_TARGET == HWY_AVX3_DL
  if constexpr (Cfg::isMax && sizeof(typename Ops::L) == 1) {
    if (W <= 32) done = PoolPairsPacked8(src, W, pairs, srcLeft, dst);
  }
#endif
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (sizeof(typename Ops::L) >= 2) {
    if (single) done = PoolPairsTwoAtOnce<Ops>(d, src, W, pairs, srcLeft, dst, outs);
  }
#endif
  // Pairs whose loads stay inside src take plain loads.
  const size_t safe = srcLeft >= reach ? HWY_MIN(pairs, (srcLeft - reach) / (2 * W) + 1) : 0;
  if (!single && W <= 2 * N && HWY_TARGET != HWY_SCALAR) {
    PoolPairsNarrow<Ops>(d, src, W, done, HWY_MAX(done, safe), dst, outs);
    done = HWY_MAX(done, safe);
  }
  run(done, HWY_MAX(done, safe), std::false_type());
  run(HWY_MAX(done, safe), pairs, std::true_type());
}

// NHWC with at least one vector of channels: per output pixel, the four
// input pixels' channels (lanes past C land on the next pixel, written later).
template <class Cfg, class D>
void PoolNhwcPairs(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t C = a.srcC, rowElems = a.srcW * C;
  const size_t srcTotal = a.srcH * rowElems, dstTotal = a.end * a.dstW * C;
  // bf16 averages of whole pairs of vectors of channels (Ops::kBF16Pairs), as
  // PoolNhwcStemRow does (256x28x28 2x2 s2 on Zen 4: 0.42-0.49 -> 0.66-0.67).
  const bool pairs = Ops::kBF16Pairs && C % (2 * N) == 0;
  auto row = [&](size_t dy, auto checkedTag) {
    constexpr bool kChecked = decltype(checkedTag)::value;
    auto ld = [&](size_t off) -> V {
      if (kChecked) return PoolLoadSrc<Ops>(d, a.src + off, srcTotal - off);
      return Ops::Load(d, a.src + off);
    };
    const size_t r0 = 2 * dy * rowElems, r1 = r0 + rowElems;
    for (size_t dx = 0; dx < a.dstW; ++dx) {
      const size_t i = 2 * dx * C, o = (dy * a.dstW + dx) * C;
      if constexpr (Ops::kBF16Pairs) {
        if (pairs) {
          // Two fp32 vectors per load and one store, no promotion or
          // narrowing. Whole pairs of vectors of channels: every load and
          // store stays in its pixel.
          for (size_t c = 0; c < C; c += 2 * N) {
            V e00, o00, e10, o10, e01, o01, e11, o11;  // row, column
            LoadBF16Pair(d, a.src + r0 + i + c, e00, o00);
            LoadBF16Pair(d, a.src + r1 + i + c, e10, o10);
            LoadBF16Pair(d, a.src + r0 + i + C + c, e01, o01);
            LoadBF16Pair(d, a.src + r1 + i + C + c, e11, o11);
            const V ve = PoolPairFinish<Ops>(
                Ops::Combine(Ops::Combine(e00, e10), Ops::Combine(e01, e11)));
            const V vo = PoolPairFinish<Ops>(
                Ops::Combine(Ops::Combine(o00, o10), Ops::Combine(o01, o11)));
            StoreBF16Pair<true>(d, ve, vo, a.dst + o + c);
          }
          continue;
        }
      }
      for (size_t c = 0; c < C; c += N) {
        const V va = Ops::Combine(ld(r0 + i + c), ld(r1 + i + c));
        const V vb = Ops::Combine(ld(r0 + i + C + c), ld(r1 + i + C + c));
        PoolStoreDst<Ops>(d, PoolPairFinish<Ops>(Ops::Combine(va, vb)), a.dst + o + c,
                          dstTotal - (o + c));
      }
    }
  };
  for (size_t dy = a.begin; dy < a.end; ++dy) {
    // Loads reach at most N - 1 elements past the row pair.
    if ((2 * dy + 2) * rowElems + N <= srcTotal) {
      row(dy, std::false_type());
    } else {
      row(dy, std::true_type());
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

// One output row of PoolNchwHalfWidth: w2 outputs at out (of which `avail`
// may be written) from columns(x, e, od), the vertical step's even and odd
// columns of [x, x + 2N); ahead(x) prefetches. kx3: windows of 3 columns
// (2k - 1 .. 2k + 1), else 2 (2k, 2k + 1). Averages divide by div[k]
// (clipped areas) or divAll.
template <class Ops, class D, typename T, class Columns, class Ahead>
HWY_INLINE void PoolHalfWidthRow(D d, const Columns& columns, const Ahead& ahead, T* out,
                                 size_t avail, size_t w2, bool kx3, const typename Ops::L* div,
                                 typename Ops::L divAll) {
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
    return PoolDivide<Ops>(d, PoolEnd<Ops>(d, acc), div, k, divAll);
  };
  // Lanes past the row land on outputs written later.
  if constexpr (Ops::kDivides && sizeof(T) == 2) {
    // 16-bit averages store each chunk after computing the next: the
    // store's chain (the division, then the rounding to 16 bits) then no
    // longer holds up the next chunk's loads (bf16 64x112x112 3x3 s2 p1:
    // 130 -> 121 us, f16 113 -> 110 us; f32 lost 3%).
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

// `rows` consecutive output rows of one plane whose windows are kRows input
// rows inside src, read directly: the first from s (pitch W, the next row's
// rowStep further), written from out on (outStep apart; `avail` outputs may
// be written from out). Out of line with everything by value: inlined into
// the plane loop, the row reloaded a dozen captured values through their
// references after every 8-bit store (u8 112-byte rows: 6 ns per row).
template <class Ops, size_t kRows, class D, typename T>
HWY_NOINLINE void PoolHalfWidthDirect(D d, const T* s, size_t pitch, size_t rowStep, T* out,
                                      size_t outStep, size_t avail, size_t rows, size_t w2,
                                      bool kx3, const typename Ops::L* div,
                                      typename Ops::L divAll) {
  using V = hn::Vec<D>;
  constexpr bool kBf16Avg = Ops::kDivides && ElementTraits<T>::kEncoding == Encoding::kBFloat16;
  for (size_t r = 0; r < rows; ++r, s += rowStep, out += outStep, avail -= outStep) {
    // The new rows of the output row after next (stride 2): the next row's
    // were too close to cover L3 latency.
    const T* const ahead = s + (kRows + 2) * pitch;
    const bool prefetch = detail::softwarePrefetch;
    const T* const p0 = s;
    const auto vert = [p0, pitch, d](size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
      return PoolColumn<Ops, kRows, false>(d, p0 + x, pitch);
    };
    // The rows' sums leave out the +0 that PoolHalfWidthRow adds (PoolEnd).
    PoolHalfWidthRow<Ops>(
        d,
        [p0, pitch, d, vert](size_t x, V& e, V& od) HWY_ATTR SYNETK_LAMBDA_INLINE {
          if constexpr (kBf16Avg) {
            // Columns 2i and 2i + 1 as the halves of 32-bit lane i
            // (BF16LanesToF32): 64x112x112 3x3 s2 p1 on Zen 3, 0.87 -> 0.65
            // ns per output.
            PoolBF16LaneRows<Ops, kRows, false>(d, p0 + x, pitch, e, od);
          } else {
            PoolSplitColumns(d, vert, x, e, od);
          }
        },
        [ahead, pitch, d, prefetch](size_t x) HWY_ATTR SYNETK_LAMBDA_INLINE {
          if (!prefetch) return;
          const size_t n = hn::Lanes(d);
          hwy::Prefetch(ahead + x);
          hwy::Prefetch(ahead + x + n);
          hwy::Prefetch(ahead + pitch + x);
          hwy::Prefetch(ahead + pitch + x + n);
        },
        out, avail, w2, kx3, div, divAll);
  }
}

inline bool PoolIsHalfWidth(size_t kX, size_t sX, size_t pX, size_t srcW, size_t dstW,
                            bool pool3d) {
  return !pool3d && sX == 2 && srcW == 2 * dstW && ((kX == 3 && pX == 1) || (kX == 2 && pX == 0));
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
  // The buffered rows' vertical step.
  L* Vr = PoolScratch<L, 0>(span);
  std::fill(Vr, Vr + span, L());  // no stale lanes, whatever they feed
  L* areas = nullptr;  // average with excludePad: clipped area per output of a plane
  if constexpr (!Cfg::isMax) {
    if (a.excludePad) {
      // Row height times column width (PoolAreaRows; element by element,
      // with a conversion each, they took as long as the pooling: 3x224x224
      // f32 11.6 -> 7.2 us).
      const size_t wUp = PoolRoundUp(W2, N);
      areas = PoolScratch<L, 2>(PoolRoundUp(a.dstH * W2, N) + wUp);
      L* widths = PoolScratch<L, 3>(wUp);
      for (size_t j = 0; j < wUp; ++j) widths[j] = static_cast<L>(left && j == 0 ? 2 : a.kX);
      PoolAreaRows(d, areas, a.dstH, W2, W2, widths, a.kY * a.kX < (size_t{1} << 24),
                   [&](size_t dy) { return detail::PoolWindow(dy, a.sY, a.pY, a.kY, H).Size(); });
      std::fill(areas + a.dstH * W2, areas + a.dstH * W2 + N, L(1));
    }
  }
  const T* const src = a.src;
  T* const dst = a.dst;
  const L divisor = static_cast<L>(a.divisor);
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
        [](size_t) {}, dst + o, dstTotal - o, W2, left, areas ? areas + dy * W2 : nullptr,
        divisor);
  };
  // `count` rows whose windows are `rows` (2 or 3) input rows inside src,
  // the first at s (PoolHalfWidthDirect).
  auto direct = [&](size_t rows, const T* s, size_t rowStep, T* out, size_t outStep,
                    size_t avail, size_t count, const L* div) HWY_ATTR {
    if (rows == 3) {
      PoolHalfWidthDirect<Ops, 3>(d, s, W, rowStep, out, outStep, avail, count, W2, left, div,
                                  divisor);
    } else {
      PoolHalfWidthDirect<Ops, 2>(d, s, W, rowStep, out, outStep, avail, count, W2, left, div,
                                  divisor);
    }
  };
  // An edge row (its window clipped by the plane or near the end of src):
  // direct when its window has 2 or 3 rows whose loads stay inside src (the
  // first row of 3x3 s2 p1 has 2), else through the buffer.
  auto edge = [&](size_t dc, size_t dy) HWY_ATTR {
    const detail::PoolWindow wy(dy, a.sY, a.pY, a.kY, H);
    const size_t rows = wy.Size(), at = dc * plane + wy.begin * W;
    const size_t o = (dc * a.dstH + dy) * W2;
    const L* const div = areas ? areas + dy * W2 : nullptr;
    if ((rows == 2 || rows == 3) && at + (rows - 1) * W + span <= srcTotal) {
      direct(rows, src + at, 0, dst + o, 0, dstTotal - o, 1, div);
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
  // Interior rows share one row of clipped areas (kY rows each).
  const L* const areasInterior = areas && interior ? areas + dyLo * W2 : nullptr;
  for (size_t dc = a.begin; dc < a.end; ++dc) {
    size_t dy = 0;
    if (interior) {
      for (; dy < dyLo; ++dy) edge(dc, dy);
      const size_t at = dc * plane + firstRow * W, o = (dc * dstH + dyLo) * W2;
      // Rows whose loads stay inside src.
      const size_t safe =
          at + reach <= srcTotal ? HWY_MIN(dyHi - dyLo, (srcTotal - reach - at) / rowStep + 1) : 0;
      direct(kY, src + at, rowStep, dst + o, W2, dstTotal - o, safe, areasInterior);
      dy = dyLo + safe;
    }
    for (; dy < dstH; ++dy) edge(dc, dy);
  }
}

// The dispatched entry point, one instance per (operation, element, format).
template <class Cfg>
void PoolKernel(const detail::PoolArgs<typename Cfg::Elem>& a) {
  using L = typename PoolOps<Cfg>::L;
  if (a.direct) {
    PoolDirect<Cfg>(a);
    return;
  }
  const hn::ScalableTag<L> d;
  const bool pairs = PoolIsPairs(a.kY, a.kX, a.sY, a.sX, a.pY, a.pX, a.srcH, a.srcW, a.dstH,
                                 a.dstW, a.pool3d);
  if constexpr (std::is_same_v<typename Cfg::Fmt, Nchw>) {
    if (pairs) {
      PoolNchwPairs<Cfg>(d, a);
    } else if (PoolIsHalfWidth(a.kX, a.sX, a.pX, a.srcW, a.dstW, a.pool3d)) {
      PoolNchwHalfWidth<Cfg>(d, a);
    } else if (!a.pool3d && a.dstH == 1 && a.dstW == 1 && a.kY - a.pY >= a.srcH &&
        a.kX - a.pX >= a.srcW) {  // one window covering each whole plane
      const hn::CappedTag<L, 16 / sizeof(L)> dq;
      const size_t plane = a.srcH * a.srcW;
      if constexpr (!Cfg::isMax) {
        // Rows of up to 8 columns in 256-bit vectors: full-width rows would
        // mostly be other rows' lanes, and split cache lines.
        const hn::CappedTag<L, 8> d8;
        if (!HWY_HAVE_SCALABLE && a.srcW <= hn::Lanes(d8) && hn::Lanes(d8) < hn::Lanes(d)) {
          PoolNchwGlobalAverage<Cfg>(d8, a);
        } else {
          PoolNchwGlobalAverage<Cfg>(d, a);
        }
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
    } else if (a.kX <= kPoolStackedMaxKernel) {
      PoolNchwStacked<Cfg>(d, a);
    } else {
      PoolNchw<Cfg>(d, a);
    }
  } else {
    if (pairs && a.srcC >= hn::Lanes(d)) {
      PoolNhwcPairs<Cfg>(d, a);
    } else {
      PoolNhwc<Cfg>(d, a);
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

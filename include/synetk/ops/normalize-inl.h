// Copyright synetk authors. SPDX-License-Identifier: MIT
// Normalize layers V1 (both acrossSpatial modes), V2, V3, V4: per-target
// kernels. One body serves every target, element type and format. Public
// functors are in normalize.h.
//
// Accuracy: every reduction is blocked. Contiguous runs are summed in fp32
// vector accumulators over chunks of at most kNormChunk elements, each chunk
// total being added into a double; strided (column) sums use fp32 blocks
// added into fp32 totals with Kahan compensation. Long reductions (a
// 112x112x256 tensor for V1 acrossSpatial) therefore keep about fp32
// precision instead of losing digits with length.
//
// Zero denominators (possible only with eps = 0 and an all-zero reduction)
// give a normalizing factor of 0 instead of inf: V1 writes 0, V2/V3 write
// shift[c], V4 writes src + shift[c] (the ratio term is taken as 0).
//
// Order of the scaling: x * (factor * scale[c]) (V2, V3: x - mean for x),
// the specification's x * scale / sqrt(...) in special values, and free of
// the underflow of x * factor for a tiny x among large values. The factor
// reaches about 2.6e22 (a zero reduction, eps the smallest denormal), so
// factor * scale[c] can overflow fp32 for a finite scale above about 1e16;
// those elements take (x * factor) * scale[c] instead, whose first product
// is at most sqrt(n) in magnitude (NormScaled, NormProductFits).

#ifndef SYNETK_OPS_NORMALIZE_ARGS_
#define SYNETK_OPS_NORMALIZE_ARGS_
#include <cstddef>
#include <type_traits>

#include "synetk/format.h"

namespace synetk {
namespace detail {

// Everything a normalize kernel needs, validated by the front-end.
// `workspace` holds NormalizeScratchFloats(...) floats (may be null if 0).
template <typename T>
struct NormalizeArgs {
  const T* src = nullptr;
  size_t batch = 0, channels = 0, spatial = 0;
  const float* scale = nullptr;
  const float* shift = nullptr;  // V2-V4
  float eps = 0.0f;
  bool acrossSpatial = false;  // V1
  float* workspace = nullptr;
  T* dst = nullptr;
  // The part to compute (see NormalizePartAxis in normalize.h): positions
  // (V1, V2), channels (V3) or batch items (V1 acrossSpatial, V4).
  size_t begin = 0, end = 0;
};

template <int kVersion, typename T, class Format>
struct NormalizeCfg {
  static constexpr int version = kVersion;
  using Elem = T;
  using Fmt = Format;
};

// Scratch floats a kernel needs (0: none). Flag-independent, so the
// front-end and the kernels agree on every target.
template <int kVersion, class Format>
constexpr size_t NormalizeScratchFloats(size_t channels) {
  constexpr bool nhwc = std::is_same_v<Format, Nhwc>;
  if constexpr (kVersion == 3) return nhwc ? 2 * channels : 0;
  if constexpr (kVersion == 4) return nhwc ? 2 * channels : channels;
  return 0;
}

}  // namespace detail
}  // namespace synetk
#endif  // SYNETK_OPS_NORMALIZE_ARGS_

#if defined(SYNETK_OPS_NORMALIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_NORMALIZE_INL_H_
#undef SYNETK_OPS_NORMALIZE_INL_H_
#else
#define SYNETK_OPS_NORMALIZE_INL_H_
#endif

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/elements-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Contiguous elements summed in fp32 lanes before the total goes to double.
inline constexpr size_t kNormChunk = 2048;
// Channels summed in fp32 before adding into the per-position totals (NCHW).
inline constexpr size_t kNormChannelGroup = 64;
// NHWC V3/V4: pixels per group of the column statistics (fp32 in registers,
// then merged or Kahan-added into the per-channel totals).
inline constexpr size_t kNormPositionGroup = 64;
// NCHW V3: channels per group of its steps (NormalizeV3).
inline constexpr size_t kNormV3Group = 32;
// NCHW V1/V2: a block of positions of all channels should stay in L2. A
// part of at most kNormWholeBytes (and kNormMaxBlock positions) goes as one
// block: its rows are then read as one front-to-back stream, which blocks
// would cut into a segment per channel row (bench:
// BM_NormalizeVsSimd/version:1/C:256/HW:784/nhwc:0); larger parts keep
// kNormBlockBytes, whose second pass stays in L2 (.../HW:12544/nhwc:0).
inline constexpr size_t kNormBlockBytes = 512 * 1024;
inline constexpr size_t kNormWholeBytes = 1024 * 1024;
inline constexpr size_t kNormMaxBlock = 1024;  // positions; stack statistics
// NHWC V1/V2: a group of pixels should stay in L1.
inline constexpr size_t kNormBlockBytesL1 = 16 * 1024;

// Accumulation modes: 0 sum x, 1 sum x^2, 2 sum (x - m)^2.
template <int kMode, class V>
HWY_INLINE V NormAcc(V acc, V x, V m) {
  if constexpr (kMode == 0) {
    (void)m;
    return hn::Add(acc, x);
  } else if constexpr (kMode == 1) {
    (void)m;
    return hn::MulAdd(x, x, acc);
  } else {
    const V d = hn::Sub(x, m);
    return hn::MulAdd(d, d, acc);
  }
}

template <class DF>
HWY_INLINE void StoreFloats(DF df, hn::Vec<DF> v, float* p, size_t count) {
  if (count == hn::Lanes(df)) {
    hn::StoreU(v, df, p);
  } else {
    StoreF32Partial(df, v, p, count);
  }
}

// Sum over a contiguous run of L <= kNormChunk elements of mode kMode (m:
// the mean for mode 2) in fp32 lanes; the result is broadcast to all lanes.
template <int kMode, typename T, class DF>
HWY_INLINE hn::Vec<DF> RowSumVec(DF df, const T* p, size_t L, hn::Vec<DF> vm) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  V a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
  size_t i = 0;
  for (; i + 4 * N <= L; i += 4 * N) {
    a0 = NormAcc<kMode>(a0, LoadF32(df, p + i), vm);
    a1 = NormAcc<kMode>(a1, LoadF32(df, p + i + N), vm);
    a2 = NormAcc<kMode>(a2, LoadF32(df, p + i + 2 * N), vm);
    a3 = NormAcc<kMode>(a3, LoadF32(df, p + i + 3 * N), vm);
  }
  for (; i + N <= L; i += N) a0 = NormAcc<kMode>(a0, LoadF32(df, p + i), vm);
  if (i < L) {
    const size_t n = L - i;
    const V x = LoadF32Partial(df, p + i, n);
    a1 = hn::Add(a1, hn::IfThenElseZero(hn::FirstN(df, n), NormAcc<kMode>(hn::Zero(df), x, vm)));
  }
  return hn::SumOfLanes(df, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)));
}

// Sum over a contiguous run of any length: fp32 lanes per chunk of
// kNormChunk elements, double across chunks.
template <int kMode, typename T, class DF>
HWY_INLINE double RowSum(DF df, const T* p, size_t L, float m) {
  const auto vm = hn::Set(df, m);
  double total = 0.0;
  for (size_t i = 0; i < L; i += kNormChunk) {
    const size_t n = std::min(kNormChunk, L - i);
    total += static_cast<double>(hn::GetLane(RowSumVec<kMode>(df, p + i, n, vm)));
  }
  return total;
}

// dst[i] = f(i, count, src[i..i+count)) over a contiguous run of L elements.
template <typename T, class DF, class F>
HWY_INLINE void MapRow(DF df, const T* src, T* dst, size_t L, const F& f) {
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= L; i += N) StoreF32(df, f(i, N, LoadF32(df, src + i)), dst + i);
  if (i < L) {
    const size_t n = L - i;
    StoreF32Partial(df, f(i, n, LoadF32Partial(df, src + i, n)), dst + i, n);
  }
}

// MapRow for rows whose f reads its parameters at any offset (LoadU,
// LoadParam; never an aligned Load at i): where kOverlapRowTails, a row of a
// vector or more that is not a whole number of vectors ends with one whole
// vector at L - N, overlapping the one before it, instead of a partial load
// and store (AVX2's masked store costs AMD CPUs more than the row's other
// vectors together; bench: BM_NormalizeVsSimd/version:4/C:512/HW:49/nhwc:0).
// That vector is loaded before anything is stored, so dst may be src.
template <typename T, class DF, class F>
HWY_INLINE void MapRowOverlapped(DF df, const T* src, T* dst, size_t L, const F& f) {
  const size_t N = hn::Lanes(df);
  if (!kOverlapRowTails || L % N == 0 || L < N) return MapRow(df, src, dst, L, f);
  const hn::Vec<DF> last = LoadF32(df, src + L - N);
  for (size_t i = 0; i + N <= L; i += N) StoreF32(df, f(i, N, LoadF32(df, src + i)), dst + i);
  StoreF32(df, f(L - N, N, last), dst + L - N);
}

// 1/sqrt(d), or 0 where d == 0 (eps = 0 and an all-zero reduction).
template <class DF>
HWY_INLINE hn::Vec<DF> SafeRsqrt(DF df, hn::Vec<DF> d) {
  const auto r = hn::Div(hn::Set(df, 1.0f), hn::Sqrt(d));
  return hn::IfThenZeroElse(hn::Eq(d, hn::Zero(df)), r);
}
inline float SafeRsqrtScalar(double d) {
  return d == 0.0 ? 0.0f : static_cast<float>(1.0 / std::sqrt(d));
}

// The outputs x * k * scale (V1) and d * k * scale + shift (V2, V3: d = x -
// mean), k = 1/sqrt(...), as x * (k * scale): the specification's x * scale
// / sqrt(...) in special values (an infinite scale gives +-inf), and free of
// the underflow of x * k where a tiny x sits among large values (x * k
// rounds to 0 where the product with a large scale does not). Where k *
// scale overflows for a finite scale (tiny sums, huge scales), (x * k) *
// scale instead: |x * k| <= 1, chosen per element with kChecked. Callers
// for which NormProductFits shows that no overflow can occur pass kChecked
// false: the plain product, the same bits.
template <bool kChecked, class DF>
HWY_INLINE hn::Vec<DF> NormScaled(DF /*df*/, hn::Vec<DF> x, hn::Vec<DF> k, hn::Vec<DF> scale) {
  const hn::Vec<DF> f = hn::Mul(k, scale);
  if constexpr (!kChecked) return hn::Mul(x, f);
  return hn::IfThenElse(hn::And(hn::IsInf(f), hn::IsFinite(scale)),
                        hn::Mul(hn::Mul(x, k), scale), hn::Mul(x, f));
}
template <bool kChecked, class DF>
HWY_INLINE hn::Vec<DF> NormScaledShifted(DF /*df*/, hn::Vec<DF> d, hn::Vec<DF> k,
                                         hn::Vec<DF> scale, hn::Vec<DF> shift) {
  const hn::Vec<DF> f = hn::Mul(k, scale);
  if constexpr (!kChecked) return hn::MulAdd(d, f, shift);
  return hn::IfThenElse(hn::And(hn::IsInf(f), hn::IsFinite(scale)),
                        hn::MulAdd(hn::Mul(d, k), scale, shift), hn::MulAdd(d, f, shift));
}
// The largest finite |v[i]| of n (0 if none), in vectors of df: a scalar
// loop's chain of maxima costs a call on 512 channels of 7x7 a sixth of its
// time (bench: BM_NormalizeVsSimd/version:1/C:512/HW:49/nhwc:1).
template <class DF>
HWY_INLINE float MaxFiniteAbs(DF df, const float* HWY_RESTRICT v, size_t n) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const auto finiteAbs = [](V x) HWY_ATTR {
    return hn::IfThenElseZero(hn::IsFinite(x), hn::Abs(x));
  };
  V m0 = hn::Zero(df), m1 = hn::Zero(df);
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    m0 = hn::Max(m0, finiteAbs(hn::LoadU(df, v + i)));
    m1 = hn::Max(m1, finiteAbs(hn::LoadU(df, v + i + N)));
  }
  for (; i < n; i += N) m0 = hn::Max(m0, finiteAbs(LoadParam(df, v + i, std::min(N, n - i))));
  return hn::GetLane(hn::MaxOfLanes(df, hn::Max(m0, m1)));
}
// The largest of n factors k (NaN ignored).
inline float MaxOf(const float* k, size_t n) {
  float m = 0.0f;
  for (size_t i = 0; i < n; ++i) m = k[i] > m ? k[i] : m;
  return m;
}
// MaxOf in vectors of d, for the factors of each block or group of
// positions (a scalar loop costs NCHW V1 a measurable share; bench:
// BM_Normalize<float>/ver:1/C:64/HW:3136/nhwc:0): k is aligned and readable
// up to n rounded up to whole vectors. NaN lanes count as 0 before Max,
// whose result for NaN differs between targets (x86 gives its second
// operand, which would drop the maximum so far).
template <class D>
HWY_INLINE float MaxOf(D d, const float* HWY_RESTRICT k, size_t n) {
  const size_t N = hn::Lanes(d);
  hn::Vec<D> m = hn::Zero(d);
  for (size_t i = 0; i < n; i += N) {
    const hn::Vec<D> v = hn::Load(d, k + i);
    m = hn::Max(m, hn::IfThenElseZero(hn::And(hn::FirstN(d, n - i), hn::Eq(v, v)), v));
  }
  return hn::GetLane(hn::MaxOfLanes(d, m));
}
// Whether k * scale stays finite for every k <= kMax and finite |scale| <=
// maxScale: then NormScaled is the plain product.
inline bool NormProductFits(float kMax, float maxScale) {
  return static_cast<double>(kMax) * maxScale <= static_cast<double>(FLT_MAX);
}
// run(std::false_type()) where fits (no element needs the check), else
// run(std::true_type()): the flag is NormScaled's kChecked, and the test
// stays outside the caller's loops.
template <class Run>
HWY_INLINE void NormWithCheck(bool fits, const Run& run) {
  if (fits) {
    run(std::false_type());
  } else {
    run(std::true_type());
  }
}

// Mean and sum of squared deviations of one group of nb values, summed as
// deviations from a pivot that is one of the group's values (acc1 = sum of
// x - pivot, acc2 = sum of (x - pivot)^2), merged into running moments of
// na values (Chan et al.). Because the pivot belongs to the group,
// (pivot - mean)^2 <= nb*variance, so the shifted sums lose at most about
// nb ulps; groups are kept short (kNormChannelGroup, kNormPositionGroup).
template <class DF>
HWY_INLINE void MergeMoments(DF df, hn::Vec<DF>& mean, hn::Vec<DF>& m2, size_t na,
                             hn::Vec<DF> pivot, hn::Vec<DF> acc1, hn::Vec<DF> acc2,
                             size_t nb) {
  const auto vnb = hn::Set(df, static_cast<float>(nb));
  const auto d1 = hn::Div(acc1, vnb);  // group mean - pivot
  const auto bmean = hn::Add(pivot, d1);
  const auto bm2 = hn::Sub(acc2, hn::Mul(acc1, d1));
  const auto delta = hn::Sub(bmean, mean);
  const float n = static_cast<float>(na + nb);
  mean = hn::Add(mean, hn::Mul(delta, hn::Set(df, static_cast<float>(nb) / n)));
  const auto w = hn::Set(df, static_cast<float>(static_cast<double>(na) * nb / n));
  m2 = hn::Add(hn::Add(m2, bm2), hn::Mul(hn::Mul(delta, delta), w));
}

// 1/sqrt(max(m2/n, 0) + eps), 0 where that is 0.
template <class DF>
HWY_INLINE hn::Vec<DF> NormFromM2(DF df, hn::Vec<DF> m2, size_t n, hn::Vec<DF> veps) {
  const auto var = hn::Max(hn::Zero(df), hn::Div(m2, hn::Set(df, static_cast<float>(n))));
  return SafeRsqrt(df, hn::Add(var, veps));
}

// ---------------------------------------------------------------------------
// NCHW: visits the channel rows [c0, c1) of a block of `len` positions four
// rows at a time: f(j, x0, x1, x2, x3, rows) for each vector of positions j,
// where xk is row c + k at positions j.. (zero past c1 and past len) and
// `rows` the number of real rows (4 except at the end). f updates its own
// per-position arrays; four rows per visit keep that traffic at one load and
// store per four vectors.
template <typename T, class DF, class F>
HWY_INLINE void ForChannelQuads(DF df, const T* blk, size_t S, size_t c0, size_t c1,
                                size_t len, const F& f) {
  const size_t N = hn::Lanes(df);
  const auto zero = hn::Zero(df);
  for (size_t c = c0; c < c1; c += 4) {
    const size_t rows = std::min<size_t>(4, c1 - c);
    const T* r0 = blk + c * S;
    const T* r1 = r0 + (rows > 1 ? S : 0);
    const T* r2 = r0 + (rows > 2 ? 2 * S : 0);
    const T* r3 = r0 + (rows > 3 ? 3 * S : 0);
    size_t j = 0;
    if (rows == 4) {
      for (; j + N <= len; j += N) {
        f(j, LoadF32(df, r0 + j), LoadF32(df, r1 + j), LoadF32(df, r2 + j), LoadF32(df, r3 + j), 4);
      }
    } else {
      for (; j + N <= len; j += N) {
        const auto x0 = LoadF32(df, r0 + j);
        const auto x1 = rows > 1 ? LoadF32(df, r1 + j) : zero;
        const auto x2 = rows > 2 ? LoadF32(df, r2 + j) : zero;
        f(j, x0, x1, x2, zero, rows);
      }
    }
    if (j < len) {
      const size_t n = len - j;
      const auto x0 = LoadF32Partial(df, r0 + j, n);
      const auto x1 = rows > 1 ? LoadF32Partial(df, r1 + j, n) : zero;
      const auto x2 = rows > 2 ? LoadF32Partial(df, r2 + j, n) : zero;
      const auto x3 = rows > 3 ? LoadF32Partial(df, r3 + j, n) : zero;
      f(j, x0, x1, x2, x3, rows);
    }
  }
}

// NCHW V1: tot[j] = sum over channels of x[c, j]^2 for the `len` positions
// of a block, channel rows streamed in order. Channels are summed in fp32
// groups of kNormChannelGroup before being added into tot. acc and tot hold
// RoundUp(len, N) floats.
template <typename T, class DF>
HWY_INLINE void ChannelSquares(DF df, const T* blk, size_t C, size_t S, size_t len,
                               float* acc, float* tot) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const size_t lenV = (len + N - 1) / N * N;
  std::fill(tot, tot + lenV, 0.0f);
  for (size_t c0 = 0; c0 < C; c0 += kNormChannelGroup) {
    const size_t c1 = std::min(C, c0 + kNormChannelGroup);
    std::fill(acc, acc + lenV, 0.0f);
    ForChannelQuads(df, blk, S, c0, c1, len,
                    [&](size_t j, V x0, V x1, V x2, V x3, size_t) HWY_ATTR {
                      const V s01 = hn::MulAdd(x1, x1, hn::Mul(x0, x0));
                      const V s23 = hn::MulAdd(x3, x3, hn::Mul(x2, x2));
                      hn::Store(hn::Add(hn::Load(df, acc + j), hn::Add(s01, s23)), df, acc + j);
                    });
    for (size_t j = 0; j < lenV; j += N) {
      hn::Store(hn::Add(hn::Load(df, tot + j), hn::Load(df, acc + j)), df, tot + j);
    }
  }
}

// NCHW V1 (acrossSpatial false) and V2 for one batch item, in blocks of up
// to kNormMaxBlock positions whose channel column (C x block) stays in L2:
// statistics per position, then the output written channel row by channel
// row while the block is still cached. The tensor is read from memory once.
template <int kVersion, typename T, class DF>
HWY_INLINE void NormalizeNchwBlocked(DF df, const detail::NormalizeArgs<T>& a,
                                     const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const size_t C = a.channels, S = a.spatial;
  const size_t part = a.end - a.begin;
  size_t B = part * C * sizeof(T) <= kNormWholeBytes ? (part + N - 1) / N * N
                                                      : kNormBlockBytes / (C * sizeof(T)) / N * N;
  // A multiple of N (SVE lane counts need not be powers of two), so that
  // RoundUp(len, N) <= B fits the kNormMaxBlock statistics arrays.
  B = std::min(kNormMaxBlock / N * N, std::max(N, B));
  HWY_ALIGN float st0[kNormMaxBlock];  // V1: factor; V2: mean
  HWY_ALIGN float st1[kNormMaxBlock];  // V2: norm
  HWY_ALIGN float acc[kNormMaxBlock];
  HWY_ALIGN float acc2[kNormMaxBlock];
  HWY_ALIGN float st2[kNormMaxBlock];  // V2: the channel group's pivot row
  const V veps = hn::Set(df, a.eps);
  const float maxScale = MaxFiniteAbs(df, a.scale, C);  // NormProductFits
  for (size_t s0 = a.begin; s0 < a.end; s0 += B) {
    const size_t len = std::min(B, a.end - s0);
    const size_t lenV = (len + N - 1) / N * N;
    const T* blk = src + s0;
    if constexpr (kVersion == 1) {
      ChannelSquares(df, blk, C, S, len, acc, st0);
      for (size_t j = 0; j < lenV; j += N) {
        hn::Store(SafeRsqrt(df, hn::Add(hn::Load(df, st0 + j), veps)), df, st0 + j);
      }
    } else {
      // Moments per position, one channel group at a time, pivot = the
      // group's first channel row.
      std::fill(st0, st0 + lenV, 0.0f);
      std::fill(st1, st1 + lenV, 0.0f);
      for (size_t c0 = 0; c0 < C; c0 += kNormChannelGroup) {
        const size_t c1 = std::min(C, c0 + kNormChannelGroup);
        const T* piv = blk + c0 * S;
        std::fill(acc, acc + lenV, 0.0f);
        std::fill(acc2, acc2 + lenV, 0.0f);
        for (size_t j = 0; j < lenV; j += N) {
          const size_t n = std::min(N, len - j);
          hn::Store(n == N ? LoadF32(df, piv + j) : LoadF32Partial(df, piv + j, n), df, st2 + j);
        }
        // Rows past c1 in a quad read as 0: their deviation -pivot is
        // masked out by `rows`.
        ForChannelQuads(df, blk, S, c0 + 1, c1, len,
                        [&](size_t j, V x0, V x1, V x2, V x3, size_t rows) HWY_ATTR {
                          const V pv = hn::Load(df, st2 + j);
                          const V d0 = hn::Sub(x0, pv);
                          const V d1 = rows > 1 ? hn::Sub(x1, pv) : hn::Zero(df);
                          const V d2 = rows > 2 ? hn::Sub(x2, pv) : hn::Zero(df);
                          const V d3 = rows > 3 ? hn::Sub(x3, pv) : hn::Zero(df);
                          const V sum = hn::Add(hn::Add(d0, d1), hn::Add(d2, d3));
                          const V sq = hn::MulAdd(d3, d3, hn::MulAdd(d2, d2,
                                       hn::MulAdd(d1, d1, hn::Mul(d0, d0))));
                          hn::Store(hn::Add(hn::Load(df, acc + j), sum), df, acc + j);
                          hn::Store(hn::Add(hn::Load(df, acc2 + j), sq), df, acc2 + j);
                        });
        for (size_t j = 0; j < lenV; j += N) {
          const V pv = hn::Load(df, st2 + j);
          V mean = hn::Load(df, st0 + j), m2 = hn::Load(df, st1 + j);
          MergeMoments(df, mean, m2, c0, pv, hn::Load(df, acc + j), hn::Load(df, acc2 + j),
                       c1 - c0);
          hn::Store(mean, df, st0 + j);
          hn::Store(m2, df, st1 + j);
        }
      }
      for (size_t j = 0; j < lenV; j += N) {
        hn::Store(NormFromM2(df, hn::Load(df, st1 + j), C, veps), df, st1 + j);
      }
    }
    // The block's factors (V1: st0, V2: st1) against every scale.
    const bool fits = NormProductFits(MaxOf(df, kVersion == 1 ? st0 : st1, len), maxScale);
    NormWithCheck(fits, [&](auto checked) HWY_ATTR SYNETK_LAMBDA_INLINE {
      constexpr bool kChecked = decltype(checked)::value;
      for (size_t c = 0; c < C; ++c) {
        const V sc = hn::Set(df, a.scale[c]);
        const T* row = blk + c * S;
        T* out = dst + s0 + c * S;
        if constexpr (kVersion == 1) {
          MapRow(df, row, out, len, [&](size_t i, size_t, V x) HWY_ATTR {
            return NormScaled<kChecked>(df, x, hn::Load(df, st0 + i), sc);
          });
        } else {
          const V sh = hn::Set(df, a.shift[c]);
          MapRow(df, row, out, len, [&](size_t i, size_t, V x) HWY_ATTR {
            return NormScaledShifted<kChecked>(df, hn::Sub(x, hn::Load(df, st0 + i)),
                                               hn::Load(df, st1 + i), sc, sh);
          });
        }
      }
    });
  }
}

// NHWC V1 (acrossSpatial false) and V2: each pixel's channel row is
// contiguous and small. Pixels go in groups of up to kNormPixelGroup that
// fit in L1. A group's statistics are taken pixel by pixel (independent
// pixels, so their reduction latencies overlap) and finished a vector of
// pixels at a time (one division and square root for several pixels); its
// output is then written pixel by pixel. The next group's statistics are
// taken while this group is written, a pixel of each in turn, so that reads
// from memory overlap the writes as in a copy: a group read whole and then
// written whole leaves the read stream idle while it writes (bench:
// BM_NormalizeVsSimd/version:2/C:128/HW:200704/nhwc:1). Parts of less than
// kNormAheadBytes, read from L1 and L2, keep the plain order (each group's
// statistics, then its output), which costs them less (bench:
// BM_NormalizeVsSimd/version:1/C:32/HW:256/nhwc:1).
inline constexpr size_t kNormPixelGroup = 64;
inline constexpr size_t kNormAheadBytes = 128 * 1024;

// One pass over a row of C <= kNormChannelGroup values, as deviations from
// the row's first value (see MergeMoments for why a member of the row is a
// safe pivot): the pivot, the sum of deviations and the sum of their
// squares, as scalars, so that a group of pixels finishes its divisions and
// square roots as vectors (MomentsToMeanNorm).
template <typename T, class DF>
HWY_INLINE void RowMomentSums(DF df, const T* row, size_t C, float& pivot, float& sum1,
                              float& sum2) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const V x0 = C >= N ? LoadF32(df, row) : LoadF32Partial(df, row, C);
  const V piv = hn::Set(df, hn::GetLane(x0));
  V d = hn::Sub(x0, piv);
  if (C < N) d = hn::IfThenElseZero(hn::FirstN(df, C), d);
  V s1 = d, s2 = hn::Mul(d, d);
  size_t i = N;
  for (; i + N <= C; i += N) {
    d = hn::Sub(LoadF32(df, row + i), piv);
    s1 = hn::Add(s1, d);
    s2 = hn::MulAdd(d, d, s2);
  }
  if (i < C) {
    d = hn::IfThenElseZero(hn::FirstN(df, C - i), hn::Sub(LoadF32Partial(df, row + i, C - i), piv));
    s1 = hn::Add(s1, d);
    s2 = hn::MulAdd(d, d, s2);
  }
  pivot = hn::GetLane(piv);
  sum1 = hn::GetLane(hn::SumOfLanes(df, s1));
  sum2 = hn::GetLane(hn::SumOfLanes(df, s2));
}

// Lanes j..j+N of pivot/sum1/sum2 (RowMomentSums of rows of C values) into
// their means (into pivot) and norms (into sum2), lane by lane: one
// division and square root for N pixels (per pixel, the divider's
// throughput bounds NHWC V2; bench: BM_Normalize<float>/ver:2/C:64/HW:3136/nhwc:1).
template <class DF>
HWY_INLINE void MomentsToMeanNorm(DF df, size_t C, hn::Vec<DF> veps, float* pivot,
                                  const float* sum1, float* sum2) {
  const auto S1 = hn::Load(df, sum1);
  const auto d1 = hn::Div(S1, hn::Set(df, static_cast<float>(C)));
  hn::Store(hn::Add(hn::Load(df, pivot), d1), df, pivot);  // the mean
  const auto m2 = hn::Sub(hn::Load(df, sum2), hn::Mul(S1, d1));
  hn::Store(NormFromM2(df, m2, C, veps), df, sum2);  // the norm
}

// A group's statistics, one lane per pixel. V1: the factor (rows of at most
// kNormChunk: the sum of squares until FinishNhwcStats). V2: the mean (st0)
// and the norm (st1); rows of at most kNormChannelGroup hold the pivot in
// st0, the sum of squared deviations in st1 and the sum of deviations in
// st2 until FinishNhwcStats (RowMomentSums).
struct NhwcGroupStats {
  HWY_ALIGN float st0[kNormPixelGroup];
  HWY_ALIGN float st1[kNormPixelGroup];
  HWY_ALIGN float st2[kNormPixelGroup];
};

// The statistics of one pixel's row of C values into lane k of g.
template <int kVersion, typename T, class DF>
HWY_INLINE void NhwcPixelStats(DF df, const detail::NormalizeArgs<T>& a, const T* row,
                               NhwcGroupStats& g, size_t k) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels;
  const V zero = hn::Zero(df);
  if constexpr (kVersion == 1) {
    if (C <= kNormChunk) {
      g.st0[k] = hn::GetLane(RowSumVec<1>(df, row, C, zero));
    } else {
      g.st0[k] = SafeRsqrtScalar(RowSum<1>(df, row, C, 0.0f) + a.eps);
    }
  } else if (C <= kNormChannelGroup) {
    RowMomentSums(df, row, C, g.st0[k], g.st2[k], g.st1[k]);
  } else if (C <= kNormChunk) {
    const V vC = hn::Set(df, static_cast<float>(C));
    const V vm = hn::Div(RowSumVec<0>(df, row, C, zero), vC);
    const V var = hn::Div(RowSumVec<2>(df, row, C, vm), vC);
    g.st0[k] = hn::GetLane(vm);
    g.st1[k] = hn::GetLane(SafeRsqrt(df, hn::Add(var, hn::Set(df, a.eps))));
  } else {
    const float mean = static_cast<float>(RowSum<0>(df, row, C, 0.0f) / static_cast<double>(C));
    const double var = RowSum<2>(df, row, C, mean) / static_cast<double>(C);
    g.st0[k] = mean;
    g.st1[k] = SafeRsqrtScalar(var + a.eps);
  }
}

// The vector part of the statistics of a group's n pixels, Lanes(dg) pixels
// at a time, the same lane-wise operations as one pixel at a time: V1's
// factors 1/sqrt(sum + eps) (bench: BM_NormalizeVsSimd/version:1/C:32/HW:256/nhwc:1),
// V2's means and norms (MomentsToMeanNorm). dg's lane count divides
// kNormPixelGroup (a power of two, at most 64), so whole vectors stay
// inside g; lanes past n are unused.
template <int kVersion, class DG>
HWY_INLINE void FinishNhwcStats(DG dg, size_t C, float eps, NhwcGroupStats& g, size_t n) {
  if (C > (kVersion == 1 ? kNormChunk : kNormChannelGroup)) return;  // done per pixel
  const auto veps = hn::Set(dg, eps);
  for (size_t j = 0; j < n; j += hn::Lanes(dg)) {
    if constexpr (kVersion == 1) {
      hn::Store(SafeRsqrt(dg, hn::Add(hn::Load(dg, g.st0 + j), veps)), dg, g.st0 + j);
    } else {
      MomentsToMeanNorm(dg, C, veps, g.st0 + j, g.st2 + j, g.st1 + j);
    }
  }
}

// The groups of NormalizeNhwcRows: with kAhead, the next group's statistics
// interleaved with this group's output; without, each group's statistics
// before its output.
template <int kVersion, bool kAhead, typename T, class DF>
HWY_INLINE void NormalizeNhwcGroups(DF df, const detail::NormalizeArgs<T>& a,
                                    const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels;
  const float* const scale = a.scale;
  const float* const shift = a.shift;
  const float maxScale = MaxFiniteAbs(df, scale, C);  // NormProductFits
  const size_t P =
      std::max<size_t>(1, std::min(kNormPixelGroup, kNormBlockBytesL1 / (C * sizeof(T))));
  const hn::CappedTag<float, kNormPixelGroup> dg;
  NhwcGroupStats stats[2] = {};  // this group's and the next one's
  const auto groupStats = [&](size_t g0, size_t g1, NhwcGroupStats& g) HWY_ATTR {
    for (size_t s = g0; s < g1; ++s) NhwcPixelStats<kVersion>(df, a, src + s * C, g, s - g0);
    FinishNhwcStats<kVersion>(dg, C, a.eps, g, g1 - g0);
  };
  if (kAhead) groupStats(a.begin, std::min(a.end, a.begin + P), stats[0]);
  size_t cur = 0;
  for (size_t s0 = a.begin; s0 < a.end; s0 += P, cur ^= kAhead) {
    const size_t s1 = std::min(a.end, s0 + P);
    const size_t nextEnd = kAhead ? std::min(a.end, s1 + P) : s1;
    if (!kAhead) groupStats(s0, s1, stats[0]);
    const NhwcGroupStats& g = stats[cur];
    NhwcGroupStats& next = stats[cur ^ 1];
    // The group's factors against every scale, once per group and outside
    // the pixel loop: a test per pixel, or inside that loop, costs V1 a
    // measurable share (bench: BM_Normalize<float>/ver:1/C:64/HW:3136/nhwc:1).
    const bool fits = NormProductFits(MaxOf(dg, kVersion == 1 ? g.st0 : g.st1, s1 - s0), maxScale);
    NormWithCheck(fits, [&](auto checked) HWY_ATTR SYNETK_LAMBDA_INLINE {
      constexpr bool kChecked = decltype(checked)::value;
      for (size_t s = s0; s < s1; ++s) {
        const size_t k = s - s0;
        // The next group's pixel k (never one this group writes: dst is src
        // or does not overlap it).
        if (kAhead && s1 + k < nextEnd) {
          NhwcPixelStats<kVersion>(df, a, src + (s1 + k) * C, next, k);
        }
        const T* row = src + s * C;
        T* out = dst + s * C;
        // By value, no vector captured (see fused-inl.h): through references
        // the parameter pointers were reloaded around every store.
        const float f0 = g.st0[k], f1 = g.st1[k];
        if constexpr (kVersion == 1) {
          MapRow(df, row, out, C, [=](size_t i, size_t n, V x) HWY_ATTR {
            return NormScaled<kChecked>(df, x, hn::Set(df, f0), LoadParam(df, scale + i, n));
          });
        } else {
          MapRow(df, row, out, C, [=](size_t i, size_t n, V x) HWY_ATTR {
            return NormScaledShifted<kChecked>(df, hn::Sub(x, hn::Set(df, f0)), hn::Set(df, f1),
                                               LoadParam(df, scale + i, n),
                                               LoadParam(df, shift + i, n));
          });
        }
      }
    });
    if (kAhead) FinishNhwcStats<kVersion>(dg, C, a.eps, next, nextEnd - s1);
  }
}

template <int kVersion, typename T, class DF>
HWY_INLINE void NormalizeNhwcRows(DF df, const detail::NormalizeArgs<T>& a,
                                  const T* src, T* dst) {
  if ((a.end - a.begin) * a.channels * sizeof(T) >= kNormAheadBytes) {
    NormalizeNhwcGroups<kVersion, true>(df, a, src, dst);
  } else {
    NormalizeNhwcGroups<kVersion, false>(df, a, src, dst);
  }
}

// V1 acrossSpatial: one sum of squares over the whole batch item (the same
// contiguous run in both formats), then the scaling pass.
template <class Format, typename T, class DF>
HWY_INLINE void NormalizeAcross(DF df, const detail::NormalizeArgs<T>& a,
                                const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels, S = a.spatial;
  const double ss = RowSum<1>(df, src, C * S, 0.0f);
  const float kf = SafeRsqrtScalar(ss + a.eps);
  const V k = hn::Set(df, kf);
  if constexpr (std::is_same_v<Format, Nchw>) {
    for (size_t c = 0; c < C; ++c) {  // the test per channel
      const V sc = hn::Set(df, a.scale[c]);
      NormWithCheck(NormProductFits(kf, std::fabs(a.scale[c])), [&](auto checked) HWY_ATTR {
        MapRowOverlapped(df, src + c * S, dst + c * S, S, [&](size_t, size_t, V x) HWY_ATTR {
          return NormScaled<decltype(checked)::value>(df, x, k, sc);
        });
      });
    }
  } else {
    NormWithCheck(NormProductFits(kf, MaxFiniteAbs(df, a.scale, C)), [&](auto checked) HWY_ATTR {
      for (size_t s = 0; s < S; ++s) {
        MapRowOverlapped(df, src + s * C, dst + s * C, C, [&](size_t i, size_t n, V x) HWY_ATTR {
          return NormScaled<decltype(checked)::value>(df, x, k, LoadParam(df, a.scale + i, n));
        });
      }
    });
  }
}

// Loads channels [c, c + n) of an NHWC row (n <= Lanes).
template <typename T, class DF>
HWY_INLINE hn::Vec<DF> LoadChannels(DF df, const T* row, size_t n) {
  return n == hn::Lanes(df) ? LoadF32(df, row) : LoadF32Partial(df, row, n);
}

// Adds a group sum g (channels [c, c + n)) into tot with Kahan compensation
// (comp).
template <class DF>
HWY_INLINE void ColumnAddKahan(DF df, hn::Vec<DF> g, float* tot, float* comp, size_t c,
                               size_t n) {
  const auto t = LoadParam(df, tot + c, n);
  const auto y = hn::Sub(g, LoadParam(df, comp + c, n));
  const auto u = hn::Add(t, y);
  StoreFloats(df, hn::Sub(hn::Sub(u, t), y), comp + c, n);
  StoreFloats(df, u, tot + c, n);
}

// Pixels [s0, s1) of two whole vectors of channels from c, each with its own
// two accumulators (even and odd pixels) as ColumnSquares has for one, so the
// sums are the same: a pass reads both vectors of a pixel, where one vector
// per pass fetches each cache line of the group from L2 twice when a line
// holds two vectors (AVX2). bench: BM_NormalizeVsSimd/version:4/C:256/HW:784/nhwc:1
// on AVX2.
template <typename T, class DF>
HWY_INLINE void ColumnSquaresPair(DF df, const T* src, size_t C, size_t s0, size_t s1, size_t c,
                                  float* tot, float* comp) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  V a0 = hn::Zero(df), b0 = a0, a1 = a0, b1 = a0;
  const T* p = src + s0 * C + c;
  size_t s = s0;
  for (; s + 2 <= s1; s += 2, p += 2 * C) {
    const V x0 = LoadF32(df, p), x1 = LoadF32(df, p + C);
    const V y0 = LoadF32(df, p + N), y1 = LoadF32(df, p + C + N);
    a0 = hn::MulAdd(x0, x0, a0);
    b0 = hn::MulAdd(x1, x1, b0);
    a1 = hn::MulAdd(y0, y0, a1);
    b1 = hn::MulAdd(y1, y1, b1);
  }
  if (s < s1) {
    const V x0 = LoadF32(df, p), y0 = LoadF32(df, p + N);
    a0 = hn::MulAdd(x0, x0, a0);
    a1 = hn::MulAdd(y0, y0, a1);
  }
  ColumnAddKahan(df, hn::Add(a0, b0), tot, comp, c, N);
  ColumnAddKahan(df, hn::Add(a1, b1), tot, comp, c + N, N);
}

// NHWC column sums of squares: tot[c] = sum over s of x[s, c]^2. Vectors of
// channels walk a group of kNormPositionGroup pixels with two register
// accumulators each (ColumnSquaresPair: two vectors at a time);
// group sums are added into tot with Kahan compensation (comp). tot, comp: C
// floats each.
template <typename T, class DF>
HWY_INLINE void ColumnSquares(DF df, const T* src, size_t C, size_t S, float* tot,
                              float* comp) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  // Pairs of vectors where a 64-byte line holds more than one (fixed widths).
  constexpr bool kPairs = !HWY_HAVE_SCALABLE && hn::MaxLanes(DF()) * sizeof(float) < 64 &&
                          hn::MaxLanes(DF()) > 1;
  std::fill(tot, tot + C, 0.0f);
  std::fill(comp, comp + C, 0.0f);
  for (size_t s0 = 0; s0 < S; s0 += kNormPositionGroup) {
    const size_t s1 = std::min(S, s0 + kNormPositionGroup);
    size_t c = 0;
    if constexpr (kPairs) {
      for (; c + 2 * N <= C; c += 2 * N) ColumnSquaresPair(df, src, C, s0, s1, c, tot, comp);
    }
    for (; c < C; c += N) {
      const size_t n = std::min(N, C - c);
      const T* p = src + s0 * C + c;
      V a = hn::Zero(df), b = hn::Zero(df);
      size_t s = s0;
      for (; s + 2 <= s1; s += 2, p += 2 * C) {
        const V x0 = LoadChannels(df, p, n), x1 = LoadChannels(df, p + C, n);
        a = hn::MulAdd(x0, x0, a);
        b = hn::MulAdd(x1, x1, b);
      }
      if (s < s1) {
        const V x0 = LoadChannels(df, p, n);
        a = hn::MulAdd(x0, x0, a);
      }
      ColumnAddKahan(df, hn::Add(a, b), tot, comp, c, n);
    }
  }
}

// V3: per (batch, channel) over positions: subtract the mean, divide by
// sqrt(mean of squares + eps), then * scale[c] + shift[c].
template <class Format, typename T, class DF>
HWY_INLINE void NormalizeV3(DF df, const detail::NormalizeArgs<T>& a,
                            const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels, S = a.spatial, c0 = a.begin, c1 = a.end;
  if constexpr (std::is_same_v<Format, Nchw>) {
    // Channels in groups whose rows fit in L1 (up to kNormV3Group), each
    // step for the whole group before the next: a channel's mean waits on
    // its sum and a division, its norm on the second sum, a square root and
    // a division, so channel by channel those latencies add up on short rows
    // (bench: BM_NormalizeVsSimd/version:3/C:512/HW:49/nhwc:0); across a
    // group they overlap. The same arithmetic per channel.
    const size_t group =
        std::max<size_t>(1, std::min(kNormV3Group, kNormBlockBytesL1 / (S * sizeof(T))));
    double sums[kNormV3Group];
    float means[kNormV3Group], norms[kNormV3Group];
    const double n = static_cast<double>(S);
    for (size_t g0 = c0; g0 < c1; g0 += group) {
      const size_t g1 = std::min(c1, g0 + group);
      for (size_t c = g0; c < g1; ++c) sums[c - g0] = RowSum<0>(df, src + c * S, S, 0.0f);
      for (size_t c = g0; c < g1; ++c) means[c - g0] = static_cast<float>(sums[c - g0] / n);
      for (size_t c = g0; c < g1; ++c) sums[c - g0] = RowSum<2>(df, src + c * S, S, means[c - g0]);
      for (size_t c = g0; c < g1; ++c) norms[c - g0] = SafeRsqrtScalar(sums[c - g0] / n + a.eps);
      for (size_t c = g0; c < g1; ++c) {
        const float norm = norms[c - g0];
        const V f = hn::Set(df, norm), sc = hn::Set(df, a.scale[c]);
        const V vm = hn::Set(df, means[c - g0]), sh = hn::Set(df, a.shift[c]);
        NormWithCheck(NormProductFits(norm, std::fabs(a.scale[c])), [&](auto checked) HWY_ATTR {
          MapRowOverlapped(df, src + c * S, dst + c * S, S, [&](size_t, size_t, V x) HWY_ATTR {
            return NormScaledShifted<decltype(checked)::value>(df, hn::Sub(x, vm), f, sc, sh);
          });
        });
      }
    }
  } else {
    // Moments per channel, one group of positions at a time (pivot: the
    // group's first pixel row), merged across groups: one pass over memory.
    const size_t N = hn::Lanes(df);
    float* mean = a.workspace;
    float* m2 = mean + C;
    std::fill(mean + c0, mean + c1, 0.0f);
    std::fill(m2 + c0, m2 + c1, 0.0f);
    for (size_t s0 = 0; s0 < S; s0 += kNormPositionGroup) {
      const size_t s1 = std::min(S, s0 + kNormPositionGroup);
      for (size_t c = c0; c < c1; c += N) {
        // One vector of channels over the group's pixels, in registers.
        const size_t n = std::min(N, c1 - c);
        const T* p = src + s0 * C + c;
        const V piv = LoadChannels(df, p, n);
        V a1 = hn::Zero(df), a2 = hn::Zero(df), b1 = hn::Zero(df), b2 = hn::Zero(df);
        size_t s = s0 + 1;
        p += C;
        for (; s + 2 <= s1; s += 2, p += 2 * C) {
          const V d0 = hn::Sub(LoadChannels(df, p, n), piv);
          const V d1 = hn::Sub(LoadChannels(df, p + C, n), piv);
          a1 = hn::Add(a1, d0);
          a2 = hn::MulAdd(d0, d0, a2);
          b1 = hn::Add(b1, d1);
          b2 = hn::MulAdd(d1, d1, b2);
        }
        if (s < s1) {
          const V d0 = hn::Sub(LoadChannels(df, p, n), piv);
          a1 = hn::Add(a1, d0);
          a2 = hn::MulAdd(d0, d0, a2);
        }
        V vm = LoadParam(df, mean + c, n), vm2 = LoadParam(df, m2 + c, n);
        MergeMoments(df, vm, vm2, s0, piv, hn::Add(a1, b1), hn::Add(a2, b2), s1 - s0);
        StoreFloats(df, vm, mean + c, n);
        StoreFloats(df, vm2, m2 + c, n);
      }
    }
    const V veps = hn::Set(df, a.eps);
    float* f = m2;  // the norm
    for (size_t c = c0; c < c1; c += N) {
      const size_t n = std::min(N, c1 - c);
      StoreFloats(df, NormFromM2(df, LoadParam(df, m2 + c, n), S, veps), f + c, n);
    }
    const float* shift = a.shift + c0;
    const float* scale = a.scale + c0;
    const bool fits = NormProductFits(MaxOf(f + c0, c1 - c0), MaxFiniteAbs(df, scale, c1 - c0));
    NormWithCheck(fits, [&](auto checked) HWY_ATTR {
      for (size_t s = 0; s < S; ++s) {
        MapRowOverlapped(df, src + s * C + c0, dst + s * C + c0, c1 - c0,
                         [&](size_t i, size_t n, V x) HWY_ATTR {
                           return NormScaledShifted<decltype(checked)::value>(
                               df, hn::Sub(x, LoadParam(df, mean + c0 + i, n)),
                               LoadParam(df, f + c0 + i, n), LoadParam(df, scale + i, n),
                               LoadParam(df, shift + i, n));
                         });
      }
    });
  }
}

// k[c] = float(scalar(c)) for c < C, where scalar is a double expression of
// per-channel fp32 arrays (k among them): a double vector at a time where
// the target has them (vector(dd, dh, c): the same expression on lanes
// c.. promoted from fp32 through dh), each lane cast to fp32 as the scalar
// expression is (DemoteTo may saturate where a cast gives inf); each(c)
// follows k[c], in channel order. NormalizeV4's divisions: the divider, not
// the rows, bounds V4 on short rows (bench:
// BM_NormalizeVsSimd/version:4/C:512/HW:49), and one vector instruction
// serves several channels with the same results.
template <class Vector, class Scalar, class Each>
HWY_INLINE void NormInDouble(float* HWY_RESTRICT k, size_t C, const Vector& vector,
                             const Scalar& scalar, const Each& each) {
  size_t c = 0;
#if HWY_HAVE_FLOAT64
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> dh;
  const size_t N = hn::Lanes(dd);
  HWY_ALIGN double buf[kMaxLanes<double>];
  for (; c + N <= C; c += N) {
    hn::Store(vector(dd, dh, c), dd, buf);
    for (size_t i = 0; i < N; ++i) {
      k[c + i] = static_cast<float>(buf[i]);
      each(c + i);
    }
  }
#endif
  for (; c < C; ++c) {
    k[c] = static_cast<float>(scalar(c));
    each(c);
  }
}

// NormalizeV4's norms from the channels' sums of squares in k (fp32):
// k[c] = sqrt(k[c]) in fp32, a vector of channels at a time, returning their
// sum in double, in channel order. An fp32 square root is
// float(sqrt(double(x))) exactly: a double rounding of sqrt from 53 to 24
// bits is innocuous (53 >= 2 * 24 + 2).
template <class DF>
HWY_INLINE double NormV4Norms(DF df, float* HWY_RESTRICT k, size_t C) {
  const size_t N = hn::Lanes(df);
  size_t c = 0;
  for (; c + N <= C; c += N) hn::StoreU(hn::Sqrt(hn::LoadU(df, k + c)), df, k + c);
  for (; c < C; ++c) k[c] = std::sqrt(k[c]);
  double sum = 0.0;
  for (c = 0; c < C; ++c) sum += k[c];
  return sum;
}

// NormalizeV4's factors from the norms in k: k[c] = 1 + scale[c]*k[c]/den
// (1 where den is 0).
HWY_INLINE void NormV4Factors(float* HWY_RESTRICT k, const float* HWY_RESTRICT scale, size_t C,
                              double den) {
  if (den == 0.0) {
    std::fill(k, k + C, 1.0f);
    return;
  }
  NormInDouble(
      k, C,
      [&](auto dd, auto dh, size_t c) HWY_ATTR {
        const auto product = hn::Mul(hn::PromoteTo(dd, hn::LoadU(dh, scale + c)),
                                     hn::PromoteTo(dd, hn::LoadU(dh, k + c)));
        return hn::Add(hn::Set(dd, 1.0), hn::Div(product, hn::Set(dd, den)));
      },
      [&](size_t c) { return 1.0 + scale[c] * double(k[c]) / den; }, [](size_t) {});
}

// V4: buf[c] = sqrt(sum over s of x^2); mean = sum of buf / channels;
// dst = x * (1 + scale[c]*buf[c]/(mean + eps)) + shift[c].
template <class Format, typename T, class DF>
HWY_INLINE void NormalizeV4(DF df, const detail::NormalizeArgs<T>& a,
                            const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels, S = a.spatial;
  float* k = a.workspace;  // C floats: norms, then factors
  double sum = 0.0;
  if constexpr (std::is_same_v<Format, Nchw>) {
    if (S <= kNormChunk) {  // one chunk: RowSum is the fp32 lane sum, exactly
      // Each norm and the running sum right after its row's reduction, so
      // that the sum's serial chain and the square roots overlap the next
      // rows' loads instead of following them all (bench:
      // BM_NormalizeVsSimd/version:4/C:512/HW:49/nhwc:0). fp32 square roots,
      // as NormV4Norms takes them.
      const V zero = hn::Zero(df);
      for (size_t c = 0; c < C; ++c) {
        k[c] = std::sqrt(hn::GetLane(RowSumVec<1>(df, src + c * S, S, zero)));
        sum += k[c];
      }
    } else {
      for (size_t c = 0; c < C; ++c) {
        k[c] = static_cast<float>(std::sqrt(RowSum<1>(df, src + c * S, S, 0.0f)));
        sum += k[c];
      }
    }
  } else {
    ColumnSquares(df, src, C, S, k, k + C);
    sum = NormV4Norms(df, k, C);
  }
  NormV4Factors(k, a.scale, C, sum / static_cast<double>(C) + a.eps);
  if constexpr (std::is_same_v<Format, Nchw>) {
    for (size_t c = 0; c < C; ++c) {
      const V f = hn::Set(df, k[c]), sh = hn::Set(df, a.shift[c]);
      MapRowOverlapped(df, src + c * S, dst + c * S, S,
                       [&](size_t, size_t, V x) HWY_ATTR { return hn::MulAdd(x, f, sh); });
    }
  } else {
    for (size_t s = 0; s < S; ++s) {
      MapRowOverlapped(df, src + s * C, dst + s * C, C, [&](size_t i, size_t n, V x) HWY_ATTR {
        return hn::MulAdd(x, LoadParam(df, k + i, n), LoadParam(df, a.shift + i, n));
      });
    }
  }
}

// The dispatched entry point, one instance per (version, element, format).
template <class Cfg>
void NormalizeKernel(const detail::NormalizeArgs<typename Cfg::Elem>& a) {
  using T = typename Cfg::Elem;
  using Format = typename Cfg::Fmt;
  constexpr bool nchw = std::is_same_v<Format, Nchw>;
  const hn::ScalableTag<float> df;
  const size_t item = a.channels * a.spatial;
  // Parts of whole batch items (V1 acrossSpatial, V4) or of every item.
  const bool byItem = Cfg::version == 4 || (Cfg::version == 1 && a.acrossSpatial);
  for (size_t b = byItem ? a.begin : 0; b < (byItem ? a.end : a.batch); ++b) {
    const T* src = a.src + b * item;
    T* dst = a.dst + b * item;
    if constexpr (Cfg::version == 1 || Cfg::version == 2) {
      if (Cfg::version == 1 && a.acrossSpatial) {
        NormalizeAcross<Format>(df, a, src, dst);
      } else if constexpr (nchw) {
        NormalizeNchwBlocked<Cfg::version>(df, a, src, dst);
      } else {
        NormalizeNhwcRows<Cfg::version>(df, a, src, dst);
      }
    } else if constexpr (Cfg::version == 3) {
      NormalizeV3<Format>(df, a, src, dst);
    } else {
      static_assert(Cfg::version == 4, "normalize versions are 1, 2, 3, 4");
      NormalizeV4<Format>(df, a, src, dst);
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

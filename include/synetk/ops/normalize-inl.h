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
  if constexpr (kVersion == 3) return nhwc ? 4 * channels : 0;
  if constexpr (kVersion == 4) return nhwc ? 3 * channels : channels;
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
// Positions summed in fp32 before the Kahan step of column sums (NHWC).
inline constexpr size_t kNormPositionGroup = 64;
// NCHW V1/V2: a block of positions of all channels should stay in L1.
inline constexpr size_t kNormBlockBytes = 24 * 1024;
inline constexpr size_t kNormMaxBlock = 512;  // positions; stack statistics

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
HWY_INLINE hn::Vec<DF> LoadParam(DF df, const float* p, size_t count) {
  return count == hn::Lanes(df) ? hn::LoadU(df, p) : LoadParamPartial(df, p, count);
}

template <class DF>
HWY_INLINE void StoreFloats(DF df, hn::Vec<DF> v, float* p, size_t count) {
  if (count == hn::Lanes(df)) {
    hn::StoreU(v, df, p);
  } else {
    StoreF32Partial(df, v, p, count);
  }
}

// Sum over a contiguous run of L elements of mode kMode (m: the mean for
// mode 2), in fp32 lanes per chunk and double across chunks.
template <int kMode, typename T, class DF>
HWY_INLINE double RowSum(DF df, const T* p, size_t L, float m) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const V vm = hn::Set(df, m);
  double total = 0.0;
  size_t i = 0;
  while (i < L) {
    const size_t end = std::min(L, i + kNormChunk);
    V a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
    for (; i + 4 * N <= end; i += 4 * N) {
      a0 = NormAcc<kMode>(a0, LoadF32(df, p + i), vm);
      a1 = NormAcc<kMode>(a1, LoadF32(df, p + i + N), vm);
      a2 = NormAcc<kMode>(a2, LoadF32(df, p + i + 2 * N), vm);
      a3 = NormAcc<kMode>(a3, LoadF32(df, p + i + 3 * N), vm);
    }
    for (; i + N <= end; i += N) a0 = NormAcc<kMode>(a0, LoadF32(df, p + i), vm);
    if (i < end) {
      const size_t n = end - i;
      const V x = LoadF32Partial(df, p + i, n);
      a1 = hn::Add(a1, hn::IfThenElseZero(hn::FirstN(df, n),
                                          NormAcc<kMode>(hn::Zero(df), x, vm)));
      i = end;
    }
    const V a = hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
    total += static_cast<double>(hn::GetLane(hn::SumOfLanes(df, a)));
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

// 1/sqrt(d), or 0 where d == 0 (eps = 0 and an all-zero reduction).
template <class DF>
HWY_INLINE hn::Vec<DF> SafeRsqrt(DF df, hn::Vec<DF> d) {
  const auto r = hn::Div(hn::Set(df, 1.0f), hn::Sqrt(d));
  return hn::IfThenZeroElse(hn::Eq(d, hn::Zero(df)), r);
}
inline float SafeRsqrtScalar(double d) {
  return d == 0.0 ? 0.0f : static_cast<float>(1.0 / std::sqrt(d));
}

// ---------------------------------------------------------------------------
// NCHW V1 (per position) and V2: statistics over channels for kV vectors of
// positions, kept in registers; load(c, v) returns vector v of channel c.
// V1: out0 = 1/sqrt(sum x^2 + eps). V2: out0 = mean, out1 = 1/sqrt(var + eps).
template <int kVersion, size_t kV, class DF, class Load>
HWY_INLINE void PositionStats(DF df, size_t C, float eps, const Load& load,
                              float* out0, float* out1) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const V zero = hn::Zero(df);
  const V veps = hn::Set(df, eps);
  const V vC = hn::Set(df, static_cast<float>(C));
  V mean[kV], tot[kV];
  for (size_t v = 0; v < kV; ++v) mean[v] = zero;
  auto sums = [&](auto mode) HWY_ATTR {
    constexpr int kMode = decltype(mode)::value;
    for (size_t v = 0; v < kV; ++v) tot[v] = zero;
    for (size_t c0 = 0; c0 < C; c0 += kNormChannelGroup) {
      const size_t c1 = std::min(C, c0 + kNormChannelGroup);
      V acc[kV];
      for (size_t v = 0; v < kV; ++v) acc[v] = zero;
      for (size_t c = c0; c < c1; ++c) {
        for (size_t v = 0; v < kV; ++v) acc[v] = NormAcc<kMode>(acc[v], load(c, v), mean[v]);
      }
      for (size_t v = 0; v < kV; ++v) tot[v] = hn::Add(tot[v], acc[v]);
    }
  };
  if constexpr (kVersion == 1) {
    sums(std::integral_constant<int, 1>());
    for (size_t v = 0; v < kV; ++v) {
      hn::Store(SafeRsqrt(df, hn::Add(tot[v], veps)), df, out0 + v * N);
    }
    (void)out1;
    (void)vC;
  } else {
    sums(std::integral_constant<int, 0>());
    for (size_t v = 0; v < kV; ++v) mean[v] = hn::Div(tot[v], vC);
    sums(std::integral_constant<int, 2>());
    for (size_t v = 0; v < kV; ++v) {
      hn::Store(mean[v], df, out0 + v * N);
      hn::Store(SafeRsqrt(df, hn::Add(hn::Div(tot[v], vC), veps)), df, out1 + v * N);
    }
  }
}

// NCHW V1 (acrossSpatial false) and V2 for one batch item, in blocks of
// positions whose channel column stays in L1: statistics, then the output
// written channel row by channel row while the block is still cached.
template <int kVersion, typename T, class DF>
HWY_INLINE void NormalizeNchwBlocked(DF df, const detail::NormalizeArgs<T>& a,
                                     const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const size_t C = a.channels, S = a.spatial;
  size_t B = kNormBlockBytes / (C * sizeof(T));
  B = std::min(kNormMaxBlock, std::max(N, B / N * N));
  HWY_ALIGN float st0[kNormMaxBlock];
  HWY_ALIGN float st1[kNormMaxBlock];
  for (size_t s0 = 0; s0 < S; s0 += B) {
    const size_t len = std::min(B, S - s0);
    const T* blk = src + s0;
    size_t j = 0;
    for (; j + 4 * N <= len; j += 4 * N) {
      PositionStats<kVersion, 4>(
          df, C, a.eps,
          [&](size_t c, size_t v) HWY_ATTR { return LoadF32(df, blk + c * S + j + v * N); },
          st0 + j, st1 + j);
    }
    for (; j + N <= len; j += N) {
      PositionStats<kVersion, 1>(
          df, C, a.eps, [&](size_t c, size_t) HWY_ATTR { return LoadF32(df, blk + c * S + j); },
          st0 + j, st1 + j);
    }
    if (j < len) {
      const size_t n = len - j;
      PositionStats<kVersion, 1>(
          df, C, a.eps,
          [&](size_t c, size_t) HWY_ATTR { return LoadF32Partial(df, blk + c * S + j, n); },
          st0 + j, st1 + j);
    }
    for (size_t c = 0; c < C; ++c) {
      const V sc = hn::Set(df, a.scale[c]);
      const T* row = blk + c * S;
      T* out = dst + s0 + c * S;
      if constexpr (kVersion == 1) {
        MapRow(df, row, out, len, [&](size_t i, size_t, V x) HWY_ATTR {
          return hn::Mul(x, hn::Mul(hn::Load(df, st0 + i), sc));
        });
      } else {
        const V sh = hn::Set(df, a.shift[c]);
        MapRow(df, row, out, len, [&](size_t i, size_t, V x) HWY_ATTR {
          return hn::MulAdd(hn::Sub(x, hn::Load(df, st0 + i)),
                            hn::Mul(hn::Load(df, st1 + i), sc), sh);
        });
      }
    }
  }
}

// NHWC V1 (acrossSpatial false) and V2: each pixel's channel row is
// contiguous and small, so it is reduced and written while in L1.
template <int kVersion, typename T, class DF>
HWY_INLINE void NormalizeNhwcRows(DF df, const detail::NormalizeArgs<T>& a,
                                  const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels, S = a.spatial;
  for (size_t s = 0; s < S; ++s) {
    const T* row = src + s * C;
    T* out = dst + s * C;
    if constexpr (kVersion == 1) {
      const double ss = RowSum<1>(df, row, C, 0.0f);
      const V k = hn::Set(df, SafeRsqrtScalar(ss + a.eps));
      MapRow(df, row, out, C, [&](size_t i, size_t n, V x) HWY_ATTR {
        return hn::Mul(x, hn::Mul(LoadParam(df, a.scale + i, n), k));
      });
    } else {
      const float mean = static_cast<float>(RowSum<0>(df, row, C, 0.0f) / static_cast<double>(C));
      const double var = RowSum<2>(df, row, C, mean) / static_cast<double>(C);
      const V norm = hn::Set(df, SafeRsqrtScalar(var + a.eps));
      const V vm = hn::Set(df, mean);
      MapRow(df, row, out, C, [&](size_t i, size_t n, V x) HWY_ATTR {
        return hn::MulAdd(hn::Sub(x, vm), hn::Mul(norm, LoadParam(df, a.scale + i, n)),
                          LoadParam(df, a.shift + i, n));
      });
    }
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
    for (size_t c = 0; c < C; ++c) {
      const V f = hn::Set(df, a.scale[c] * kf);
      MapRow(df, src + c * S, dst + c * S, S,
             [&](size_t, size_t, V x) HWY_ATTR { return hn::Mul(x, f); });
    }
  } else {
    for (size_t s = 0; s < S; ++s) {
      MapRow(df, src + s * C, dst + s * C, C, [&](size_t i, size_t n, V x) HWY_ATTR {
        return hn::Mul(x, hn::Mul(LoadParam(df, a.scale + i, n), k));
      });
    }
  }
}

// Column sums for NHWC: tot[c] = sum over s of mode(x[s, c]), fp32 blocks
// of kNormPositionGroup positions added with Kahan compensation. acc, comp:
// C floats of scratch each; mean: C floats for mode 2.
template <int kMode, typename T, class DF>
HWY_INLINE void ColumnSums(DF df, const T* src, size_t C, size_t S,
                           const float* mean, float* acc, float* tot, float* comp) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  (void)mean;  // mode 2 only
  std::fill(tot, tot + C, 0.0f);
  std::fill(comp, comp + C, 0.0f);
  for (size_t s0 = 0; s0 < S; s0 += kNormPositionGroup) {
    const size_t s1 = std::min(S, s0 + kNormPositionGroup);
    std::fill(acc, acc + C, 0.0f);
    for (size_t s = s0; s < s1; ++s) {
      const T* row = src + s * C;
      size_t c = 0;
      for (; c + N <= C; c += N) {
        V m = hn::Zero(df);
        if constexpr (kMode == 2) m = hn::LoadU(df, mean + c);
        hn::StoreU(NormAcc<kMode>(hn::LoadU(df, acc + c), LoadF32(df, row + c), m), df, acc + c);
      }
      if (c < C) {
        const size_t n = C - c;
        V m = hn::Zero(df);
        if constexpr (kMode == 2) m = LoadParamPartial(df, mean + c, n);
        const V x = LoadF32Partial(df, row + c, n);
        StoreFloats(df, NormAcc<kMode>(LoadParamPartial(df, acc + c, n), x, m), acc + c, n);
      }
    }
    for (size_t c = 0; c < C; c += N) {
      const size_t n = std::min(N, C - c);
      const V t = LoadParam(df, tot + c, n);
      const V y = hn::Sub(LoadParam(df, acc + c, n), LoadParam(df, comp + c, n));
      const V u = hn::Add(t, y);
      StoreFloats(df, hn::Sub(hn::Sub(u, t), y), comp + c, n);
      StoreFloats(df, u, tot + c, n);
    }
  }
}

// V3: per (batch, channel) over positions: subtract the mean, divide by
// sqrt(mean of squares + eps), then * scale[c] + shift[c].
template <class Format, typename T, class DF>
HWY_INLINE void NormalizeV3(DF df, const detail::NormalizeArgs<T>& a,
                            const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels, S = a.spatial;
  if constexpr (std::is_same_v<Format, Nchw>) {
    for (size_t c = 0; c < C; ++c) {
      const T* row = src + c * S;
      const float mean = static_cast<float>(RowSum<0>(df, row, S, 0.0f) / static_cast<double>(S));
      const double var = RowSum<2>(df, row, S, mean) / static_cast<double>(S);
      const V f = hn::Set(df, SafeRsqrtScalar(var + a.eps) * a.scale[c]);
      const V vm = hn::Set(df, mean), sh = hn::Set(df, a.shift[c]);
      MapRow(df, row, dst + c * S, S, [&](size_t, size_t, V x) HWY_ATTR {
        return hn::MulAdd(hn::Sub(x, vm), f, sh);
      });
    }
  } else {
    float* mean = a.workspace;
    float* acc = mean + C;
    float* tot = acc + C;
    float* comp = tot + C;
    ColumnSums<0>(df, src, C, S, mean, acc, tot, comp);
    for (size_t c = 0; c < C; ++c) mean[c] = static_cast<float>(double(tot[c]) / double(S));
    ColumnSums<2>(df, src, C, S, mean, acc, tot, comp);
    float* f = tot;  // norm * scale
    for (size_t c = 0; c < C; ++c) {
      f[c] = SafeRsqrtScalar(double(tot[c]) / double(S) + a.eps) * a.scale[c];
    }
    for (size_t s = 0; s < S; ++s) {
      MapRow(df, src + s * C, dst + s * C, C, [&](size_t i, size_t n, V x) HWY_ATTR {
        return hn::MulAdd(hn::Sub(x, LoadParam(df, mean + i, n)), LoadParam(df, f + i, n),
                          LoadParam(df, a.shift + i, n));
      });
    }
  }
}

// V4: buf[c] = sqrt(sum over s of x^2); mean = sum of buf / channels;
// dst = x * (1 + scale[c]*buf[c]/(mean + eps)) + shift[c].
template <class Format, typename T, class DF>
HWY_INLINE void NormalizeV4(DF df, const detail::NormalizeArgs<T>& a,
                            const T* src, T* dst) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels, S = a.spatial;
  float* k = a.workspace;  // C floats: norms, then factors
  if constexpr (std::is_same_v<Format, Nchw>) {
    for (size_t c = 0; c < C; ++c) {
      k[c] = static_cast<float>(std::sqrt(RowSum<1>(df, src + c * S, S, 0.0f)));
    }
  } else {
    ColumnSums<1>(df, src, C, S, nullptr, k + C, k, k + 2 * C);
    for (size_t c = 0; c < C; ++c) k[c] = static_cast<float>(std::sqrt(double(k[c])));
  }
  double sum = 0.0;
  for (size_t c = 0; c < C; ++c) sum += k[c];
  const double den = sum / static_cast<double>(C) + a.eps;
  for (size_t c = 0; c < C; ++c) {
    k[c] = den == 0.0 ? 1.0f : static_cast<float>(1.0 + a.scale[c] * double(k[c]) / den);
  }
  if constexpr (std::is_same_v<Format, Nchw>) {
    for (size_t c = 0; c < C; ++c) {
      const V f = hn::Set(df, k[c]), sh = hn::Set(df, a.shift[c]);
      MapRow(df, src + c * S, dst + c * S, S,
             [&](size_t, size_t, V x) HWY_ATTR { return hn::MulAdd(x, f, sh); });
    }
  } else {
    for (size_t s = 0; s < S; ++s) {
      MapRow(df, src + s * C, dst + s * C, C, [&](size_t i, size_t n, V x) HWY_ATTR {
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
  for (size_t b = 0; b < a.batch; ++b) {
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

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused activation layers (types 0, 1, 2, 3, 4, 8, 9): per-target kernels.
// One body serves every target, element type and format. Public functors
// are in fused.h.

#ifndef SYNETK_OPS_FUSED_ARGS_
#define SYNETK_OPS_FUSED_ARGS_
#include <cstddef>

#include "synetk/format.h"
#include "synetk/ops/fused_plan.h"

namespace synetk {
namespace detail {

// Everything a fused kernel needs, validated by the front-end. Unused fields
// are null/zero. Work is [sBegin, sEnd) of the spatial positions.
template <typename T>
struct FusedArgs {
  const T* src0 = nullptr;
  const T* src1 = nullptr;           // type 8: second input; type 9: src1
  const float* channel[3] = {};      // per-channel parameter arrays
  float scalar[2] = {};              // parameters of which only [0] is used
  size_t channels = 0;               // type 9: channels0
  size_t channels1 = 0;              // type 9 only
  size_t spatial = 0;
  size_t sBegin = 0, sEnd = 0;
  T* dst0 = nullptr;
  T* dst1 = nullptr;                 // type 9: optional plain concatenation
  bool stream = false;               // non-temporal stores (larger than the cache)
  bool cached = false;               // small enough to be read from the cache
  bool intel = false;                // an Intel CPU (loop order on AVX-512)
  bool prefetch = false;             // software prefetch (detail::PrefetchCall)
};

// Whole-call traffic (in + out) up to which a fused call's tensors are taken
// to come from the cache, which decides the loop order for wide NHWC pixels
// (ForEachElementwise, Fused4): pixel by pixel with per-vector parameter
// loads wins from the cache, pixel groups win from DRAM. The constant sits
// between the crossovers measured for 256 channels on a machine with 1 MiB
// of L2 (type 0 and type 4); it is not derived from the cache size the C
// library reports, which a VM may overstate. bench:
// BM_Fused<float>/type:0/C:256/HW:784/nhwc:1 against .../HW:12544/nhwc:1.
inline constexpr size_t kCachedFusedBytes = size_t{8} << 20;

template <int kType, typename T, class Format>
struct FusedCfg {
  static constexpr int type = kType;
  using Elem = T;
  using Fmt = Format;
};

}  // namespace detail
}  // namespace synetk
#endif  // SYNETK_OPS_FUSED_ARGS_

#if defined(SYNETK_OPS_FUSED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_FUSED_INL_H_
#undef SYNETK_OPS_FUSED_INL_H_
#else
#define SYNETK_OPS_FUSED_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/channel_runs-inl.h"
#include "synetk/detail/elements-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The activations. p0..p2 are the per-channel parameters in lanes, q the
// scalar one; the expressions follow the specification term by term.
template <int kType>
struct FusedOp;

template <>
struct FusedOp<0> {  // x = src + bias; (x - |x|)*scale + max(0, x)
  static constexpr size_t kChannelParams = 2;
  template <class DF, class V>
  HWY_INLINE V operator()(DF df, V src, V p0, V p1, V /*p2*/, V /*q*/) const {
    const V x = hn::Add(src, p0);
    return hn::MulAdd(hn::Sub(x, hn::Abs(x)), p1, hn::Max(hn::Zero(df), x));
  }
};

template <>
struct FusedOp<1> {  // x = src + bias0; max(0, -x)*scale1 + bias1 + max(0, x)
  static constexpr size_t kChannelParams = 3;
  template <class DF, class V>
  HWY_INLINE V operator()(DF df, V src, V p0, V p1, V p2, V /*q*/) const {
    const V x = hn::Add(src, p0);
    const V zero = hn::Zero(df);
    return hn::Add(hn::MulAdd(hn::Max(zero, hn::Neg(x)), p1, p2),
                   hn::Max(zero, x));
  }
};

template <>
struct FusedOp<2> {  // x = src*scale + bias; max(0, x) + min(0, x)*slope
  static constexpr size_t kChannelParams = 2;
  template <class DF, class V>
  HWY_INLINE V operator()(DF df, V src, V p0, V p1, V /*p2*/, V q) const {
    const V x = hn::MulAdd(src, p0, p1);
    const V zero = hn::Zero(df);
    return hn::MulAdd(hn::Min(zero, x), q, hn::Max(zero, x));
  }
};

template <>
struct FusedOp<3> {  // x = src + bias; max(0, x) + min(0, x)*scale
  static constexpr size_t kChannelParams = 2;
  template <class DF, class V>
  HWY_INLINE V operator()(DF df, V src, V p0, V p1, V /*p2*/, V /*q*/) const {
    const V x = hn::Add(src, p0);
    const V zero = hn::Zero(df);
    return hn::MulAdd(hn::Min(zero, x), p1, hn::Max(zero, x));
  }
};

// bf16 on the x86 SIMD targets in pairs of vectors: elements (NCHW) or
// channels (NHWC) 2i and 2i + 1 as the halves of 32-bit lane i
// (LoadBF16Pair), two fp32 vectors per load and one store of both, rounded
// together (StoreBF16Pair): no promotion, no narrowing shuffle, and on
// AVX512_BF16 one conversion per two vectors: bf16 layers are bound by
// operations, not memory. x86 only: the 32-bit loads and stores take any
// 2-byte-aligned address there. bench:
// BM_Fused<hwy::bfloat16_t>/type:3/C:64/HW:3136/nhwc:0 and nhwc:1.
template <typename T>
inline constexpr bool kBF16Pairs =
    ElementTraits<T>::kEncoding == Encoding::kBFloat16 && SYNETK_IS_X86_SIMD;

// Row c of the channels [0, C) of an NCHW bf16 layer, positions [sBegin,
// sEnd): out = f(in, p0, p1, p2) with the K per-channel parameters of c
// broadcast, pairs of vectors at a time (kBF16Pairs), on AVX-512 four pairs
// loaded before any is stored (as RunGroup), the tail vector by vector;
// `copy` (if not null, offsets as dst's) gets the input itself, as
// StoreRun(LoadRun) gives it (type 9's plain concatenation). In place works:
// each step loads before it stores.
template <size_t K, bool kPlain, class DF, typename T, class F>
HWY_INLINE void BF16PairRows(DF df, const T* src, T* dst, T* copy, size_t C, size_t S,
                             size_t sBegin, size_t sEnd, const float* const* perChannel,
                             size_t pfEnd, const F& f) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df), len = sEnd - sBegin;
  constexpr size_t kGroup = kRunGroup > 1 ? 4 : 1;
  const ParamRows<K> pc(perChannel);
  V p0 = hn::Zero(df), p1 = p0, p2 = p0;
  for (size_t c = 0; c < C; ++c) {
    GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR { return hn::Set(df, pc[k][c]); });
    const size_t row = c * S + sBegin;
    const T* const in = src + row;
    T* const out = dst + row;
    T* const plain = copy != nullptr ? copy + row : nullptr;
    const auto load = [&](size_t i, V& even, V& odd) HWY_ATTR SYNETK_LAMBDA_INLINE {
      PrefetchAhead<kPlain>(src, row + i, pfEnd);
      LoadBF16Pair(df, in + i, even, odd);
    };
    const auto store = [&](size_t i, V even, V odd) HWY_ATTR SYNETK_LAMBDA_INLINE {
      if (plain != nullptr) StoreBF16Pair<false>(df, even, odd, plain + i);
      StoreBF16Pair<false>(df, f(even, p0, p1, p2), f(odd, p0, p1, p2), out + i);
    };
    size_t i = 0;
    if constexpr (kGroup > 1) {
      for (; i + kGroup * 2 * N <= len; i += kGroup * 2 * N) {
        V e0, o0, e1, o1, e2, o2, e3, o3;
        load(i, e0, o0);
        load(i + 2 * N, e1, o1);
        load(i + 4 * N, e2, o2);
        load(i + 6 * N, e3, o3);
        store(i, e0, o0);
        store(i + 2 * N, e1, o1);
        store(i + 4 * N, e2, o2);
        store(i + 6 * N, e3, o3);
      }
    }
    for (; i + 2 * N <= len; i += 2 * N) {
      V even, odd;
      load(i, even, odd);
      store(i, even, odd);
    }
    for (; i < len; i += N) {
      const size_t count = HWY_MIN(N, len - i);
      const V x = LoadRun(df, in + i, count);
      if (plain != nullptr) StoreRun<kPlain>(df, x, plain + i, count);
      StoreRun<kPlain>(df, f(x, p0, p1, p2), out + i, count);
    }
  }
}

// The per-channel parameters of C channels (a multiple of 2N) in the order
// of the NHWC bf16 pair paths: per pair of vectors, the even channels'
// values, then the odd ones'. Returns split.
HWY_INLINE const float* SplitPairParams(size_t N, size_t C, const float* params, float* split) {
  for (size_t c = 0; c < C; c += 2 * N) {
    for (size_t j = 0; j < N; ++j) {
      split[c + j] = params[c + 2 * j];
      split[c + N + j] = params[c + 2 * j + 1];
    }
  }
  return split;
}

// NHWC bf16 pixels of whole pairs of vectors of channels (C a multiple of
// 2*Lanes(df), at most kMaxFlatChannels; kBF16Pairs): channels 2j and 2j + 1
// of a pair are lane j of its even and odd fp32 vectors, so the parameters
// are split once per call (SplitPairParams). One or two pairs per pixel keep
// them in registers rather than loading them per pair (bench:
// BM_Fused<hwy::bfloat16_t>/type:3/C:64/HW:3136/nhwc:1).
template <size_t K, bool kPlain, class DF, typename T, class F>
HWY_INLINE void BF16PairPixels(DF df, const T* src, T* dst, size_t C, size_t sBegin, size_t sEnd,
                               const float* const* perChannel, size_t pfEnd, const F& f) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  HWY_ALIGN float split[K > 0 ? K : 1][kMaxFlatChannels];
  const float* pe[3] = {};
  for (size_t k = 0; k < K; ++k) pe[k] = SplitPairParams(N, C, perChannel[k], split[k]);
  const auto pair = [&](size_t o, V e0, V e1, V e2, V o0, V o1, V o2) HWY_ATTR
                        SYNETK_LAMBDA_INLINE {
    V even, odd;
    LoadBF16Pair(df, src + o, even, odd);
    StoreBF16Pair<false>(df, f(even, e0, e1, e2), f(odd, o0, o1, o2), dst + o);
  };
  if (C <= 4 * N) {
    V a0 = hn::Zero(df), a1 = a0, a2 = a0, b0 = a0, b1 = a0, b2 = a0;
    V c0 = a0, c1 = a0, c2 = a0, d0 = a0, d1 = a0, d2 = a0;
    GetParams<K>(a0, a1, a2, [&](size_t k) HWY_ATTR { return hn::Load(df, pe[k]); });
    GetParams<K>(b0, b1, b2, [&](size_t k) HWY_ATTR { return hn::Load(df, pe[k] + N); });
    if (C == 4 * N) {
      GetParams<K>(c0, c1, c2, [&](size_t k) HWY_ATTR { return hn::Load(df, pe[k] + 2 * N); });
      GetParams<K>(d0, d1, d2, [&](size_t k) HWY_ATTR { return hn::Load(df, pe[k] + 3 * N); });
      for (size_t o = sBegin * C; o < sEnd * C; o += C) {
        PrefetchAheadLines<kPlain>(src, o, C, pfEnd);
        pair(o, a0, a1, a2, b0, b1, b2);
        pair(o + 2 * N, c0, c1, c2, d0, d1, d2);
      }
    } else {
      for (size_t o = sBegin * C; o < sEnd * C; o += C) {
        PrefetchAheadLines<kPlain>(src, o, C, pfEnd);
        pair(o, a0, a1, a2, b0, b1, b2);
      }
    }
    return;
  }
  for (size_t o = sBegin * C; o < sEnd * C; o += C) {
    PrefetchAheadLines<kPlain>(src, o, C, pfEnd);
    for (size_t c = 0; c < C; c += 2 * N) {
      V e0 = hn::Zero(df), e1 = e0, e2 = e0, o0 = e0, o1 = e0, o2 = e0;
      GetParams<K>(e0, e1, e2, [&](size_t k) HWY_ATTR { return hn::Load(df, pe[k] + c); });
      GetParams<K>(o0, o1, o2, [&](size_t k) HWY_ATTR { return hn::Load(df, pe[k] + c + N); });
      pair(o + c, e0, e1, e2, o0, o1, o2);
    }
  }
}

// Types 0-3: one input, one output of the same shape (in place allowed).
template <int kType, typename T, class Format, bool kPlain, class DF>
HWY_INLINE void FusedUnary(DF df, const detail::FusedArgs<T>& a) {
  using V = hn::Vec<DF>;
  constexpr size_t K = FusedOp<kType>::kChannelParams;
  const float scalar = a.scalar[0];
  const FusedOp<kType> op;
  const T* src = a.src0;
  T* dst = a.dst0;
  const bool stream = !kPlain && a.stream;
  const size_t pfEnd = PrefetchBound(a.channels * a.spatial, a.prefetch);
  // The run's halves (RunOps) capture by value: the NHWC orders run them out
  // of line, where captured references would be reloaded around every
  // store. They capture no vector (SVE vectors are sizeless: GCC 12 crashed
  // on the closure); the scalar parameter is broadcast inside, a loop
  // invariant. Forced inline in each order, as GCC's growth limits may stop
  // inlining in a unit with every target.
  const auto load = [=](size_t o, size_t count, size_t pf, V p0, V p1,
                        V p2) HWY_ATTR SYNETK_LAMBDA_INLINE {
    PrefetchAhead<kPlain>(src, pf, pfEnd);
    return op(df, LoadRun(df, src + o, count), p0, p1, p2, hn::Set(df, scalar));
  };
  const auto store = [=](size_t o, size_t count, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    StoreRun<kPlain>(df, v, dst + o, count, stream);
  };
  // The activation alone, for the bf16 pair paths.
  const auto activate = [=](V x, V p0, V p1, V p2) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return op(df, x, p0, p1, p2, hn::Set(df, scalar));
  };
  if constexpr (kBF16Pairs<T> && std::is_same_v<Format, Nchw>) {
    BF16PairRows<K, kPlain>(df, src, dst, static_cast<T*>(nullptr), a.channels, a.spatial, a.sBegin,
                    a.sEnd, a.channel, pfEnd, activate);
    return;
  } else if constexpr (kBF16Pairs<T>) {
    const size_t N = hn::Lanes(df);
    if (a.channels % (2 * N) == 0 && a.channels <= kMaxFlatChannels) {
      BF16PairPixels<K, kPlain>(df, src, dst, a.channels, a.sBegin, a.sEnd, a.channel, pfEnd,
                                activate);
      return;
    }
  }
  ForEachElementwise<Format, K>(df, a.channels, a.spatial, a.sBegin, a.sEnd, a.channel, a.cached, a.intel,
                                MakeRunOps(load, store, !stream));
}

// NHWC layers whose output pixels are assembled from runs of input pixels
// (types 4 and 9): output pixels per block (fused_plan.h, PixelBlockOf).
template <typename T>
HWY_INLINE size_t PixelBlock(size_t outChannels) {
  return detail::PixelBlockOf(outChannels, sizeof(T));
}

// Type 4 NCHW: the elements [s, s1) of a piece [s0, s1) left after its
// whole groups, one vector at a time; not streamed, where kOverlapRowTails,
// a piece of a vector or more ends with one whole vector at s1 - N over the
// last part vector instead of a masked load and store (AVX2's masked store
// costs AMD CPUs more than the rest of a 49-element row; bench:
// BM_FusedVsSimd/type:4/C:512/HW:49/nhwc:0). dst never overlaps src for
// type 4, so the lanes written twice get the same values.
template <bool kPlain, class DF, typename T, class Half>
HWY_INLINE void Fused4PieceTail(DF df, const T* row, T* out, size_t s0, size_t s, size_t s1,
                                hn::Vec<DF> bias0, const Half& half, bool stream) {
  const size_t N = hn::Lanes(df);
  if (kOverlapRowTails && !stream && s1 - s0 >= N && (s1 - s) % N != 0) {
    for (; s + N <= s1; s += N) StoreF32(df, half(hn::Add(LoadF32(df, row + s), bias0)), out + s);
    StoreF32(df, half(hn::Add(LoadF32(df, row + s1 - N), bias0)), out + s1 - N);
    return;
  }
  for (; s < s1; s += N) {
    const size_t n = HWY_MIN(N, s1 - s);
    StoreRun<kPlain>(df, half(hn::Add(LoadRun(df, row + s, n), bias0)), out + s, n, stream);
  }
}

// Type 4 NCHW: elements [s0, s1) of a row whose output runs a little ahead
// of its input modulo 4 KiB (StoresAliasAhead), in groups of runs loaded
// before any is stored (RunGroup), so that loads do not wait on unrelated
// pending stores. Only those pieces: where nothing aliases the groups are
// slower than the plain order, and inside the plain pieces' loop they slow
// it too; out of line, by value, the plain loop keeps its code. bench:
// BM_FusedOffset/type:4/ahead:128.
template <bool kPlain, class DF, typename T, class Half>
HWY_NOINLINE void Fused4GroupedPiece(DF df, const T* row, T* out, size_t s0, size_t s1,
                                     hn::Vec<DF> bias0, Half half, const T* src, size_t pfEnd) {
  const size_t N = hn::Lanes(df);
  size_t s = s0;
  for (; s + kRunGroup * N <= s1; s += kRunGroup * N) {
    PrefetchAheadLines<kPlain>(src, static_cast<size_t>(row - src) + s, kRunGroup * N, pfEnd);
    RunGroup<kRunGroup>(
        [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
          return half(hn::Add(LoadF32(df, row + s + k * N), bias0));
        },
        [&](size_t k, hn::Vec<DF> v) HWY_ATTR SYNETK_LAMBDA_INLINE { StoreF32(df, v, out + s + k * N); });
  }
  Fused4PieceTail<kPlain>(df, row, out, s0, s, s1, bias0, half, false);
}

// Type 4's two output halves from x = src + bias0[c]: max(0, x) and
// max(0, x*scale1 + bias1). Lambdas by value holding no vector, as in Fused9.
template <class DF>
HWY_INLINE auto Fused4First(DF df) {
  return [=](hn::Vec<DF> x) HWY_ATTR SYNETK_LAMBDA_INLINE { return hn::Max(hn::Zero(df), x); };
}
template <class DF>
HWY_INLINE auto Fused4Second(DF df, float scale1, float bias1) {
  return [=](hn::Vec<DF> x) HWY_ATTR SYNETK_LAMBDA_INLINE {
    return hn::Max(hn::Zero(df), hn::MulAdd(x, hn::Set(df, scale1), hn::Set(df, bias1)));
  };
}

// Type 4, NCHW (stream, pfEnd and the halves: see Fused4).
template <bool kPlain, class DF, typename T, class First, class Second>
HWY_INLINE void Fused4Nchw(DF df, const detail::FusedArgs<T>& a, bool stream, size_t pfEnd,
                           const First& first, const Second& second) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels, S = a.spatial;
  const T* src = a.src0;
  T* dst = a.dst0;
  // Writing both halves in one sweep interleaves two store streams that are
  // C*S elements apart (often a multiple of 4 KiB, so they alias in the
  // store buffer). Instead each row is done in L1-sized pieces: first half,
  // then second half from the same (cached) source piece.
  constexpr size_t kPiece = 2048;
  const size_t N = hn::Lanes(df);
  const auto piece = [&](const T* row, T* out, size_t s0, size_t s1, V bias0,
                         const auto& half) HWY_ATTR {
    size_t s = s0;
    if (!stream) {  // the common case without per-vector tail and stream tests
      for (; s + 2 * N <= s1; s += 2 * N) {
        PrefetchAhead<kPlain>(src, static_cast<size_t>(row - src) + s, pfEnd);
        const V v0 = half(hn::Add(LoadF32(df, row + s), bias0));
        const V v1 = half(hn::Add(LoadF32(df, row + s + N), bias0));
        StoreF32(df, v0, out + s);
        StoreF32(df, v1, out + s + N);
      }
    }
    Fused4PieceTail<kPlain>(df, row, out, s0, s, s1, bias0, half, stream);
  };
  for (size_t c = 0; c < C; ++c) {
    const V bias0 = hn::Set(df, a.channel[0][c]);
    const T* row = src + c * S;
    // One half of the piece [s0, s1) into out.
    const auto halfPiece = [&](T* out, size_t s0, size_t s1, const auto& f) HWY_ATTR {
      if (kRunGroup > 1 && !stream && StoresAliasAhead(row, out)) {
        Fused4GroupedPiece<kPlain>(df, row, out, s0, s1, bias0, f, src, pfEnd);
      } else {
        piece(row, out, s0, s1, bias0, f);
      }
    };
    for (size_t s0 = a.sBegin; s0 < a.sEnd; s0 += kPiece) {
      const size_t s1 = HWY_MIN(s0 + kPiece, a.sEnd);
      halfPiece(dst + c * S, s0, s1, first);
      halfPiece(dst + (c + C) * S, s0, s1, second);
    }
  }
}

// Type 4, NHWC (stream, pfEnd and the halves: see Fused4).
template <bool kPlain, class DF, typename T, class First, class Second>
HWY_INLINE void Fused4Nhwc(DF df, const detail::FusedArgs<T>& a, bool stream, size_t pfEnd,
                           const First& first, const Second& second) {
  using V = hn::Vec<DF>;
  const V zero = hn::Zero(df);
  const size_t C = a.channels;
  const T* src = a.src0;
  T* dst = a.dst0;
  const float* bias0 = a.channel[0];
  const size_t N = hn::Lanes(df);
  // Each input vector makes one vector of each half. (Forced inline: in a
  // unit with every target, GCC's growth limits leave it a call per
  // vector. bench: BM_Fused<float>/type:4/C:64/HW:3136/nhwc:1.)
  const auto both = [=](V x, T* out) HWY_ATTR SYNETK_LAMBDA_INLINE {
    StoreF32Streaming<kPlain>(df, first(x), out, stream);
    StoreF32Streaming<kPlain>(df, second(x), out + C, stream);
  };
  if (C >= N && C <= 4 * N) {
    // Pixels of up to four runs (ForEachPixelRun's, the last overlapping
    // its neighbour): their biases stay in registers and the pixels
    // stream front to back, one stream the prefetcher follows. bench:
    // BM_Fused<float>/type:4/C:64/HW:3136/nhwc:1.
    const size_t R = (C + N - 1) / N;
    const size_t o1 = HWY_MIN(N, C - N), o2 = HWY_MIN(2 * N, C - N), o3 = C - N;
    const V b0 = hn::LoadU(df, bias0);
    const V b1 = R > 1 ? hn::LoadU(df, bias0 + o1) : zero;
    const V b2 = R > 2 ? hn::LoadU(df, bias0 + o2) : zero;
    const V b3 = R > 3 ? hn::LoadU(df, bias0 + o3) : zero;
    for (size_t s = a.sBegin; s < a.sEnd; ++s) {
      const T* in = src + s * C;
      T* out = dst + s * 2 * C;
      PrefetchAheadLines<kPlain>(src, s * C, C, pfEnd);
      both(hn::Add(LoadF32(df, in), b0), out);
      if (R > 1) both(hn::Add(LoadF32(df, in + o1), b1), out + o1);
      if (R > 2) both(hn::Add(LoadF32(df, in + o2), b2), out + o2);
      if (R > 3) both(hn::Add(LoadF32(df, in + o3), b3), out + o3);
    }
    return;
  }
  if (C > 4 * N && a.cached && !(kWidePixelsInOrder && a.intel)) {
    // Wider pixels from the cache: pixel by pixel, one bias load per input
    // vector. From DRAM the two interleaved output streams are slower than
    // the blocks below, and on Intel AVX-512 from the cache too (see
    // kWidePixelsInOrder; 256 f32 channels make pixels of 2 KiB, blocks of
    // one pixel). bench: BM_Fused<float>/type:4/C:256/HW:784/nhwc:1 and
    // .../HW:12544/nhwc:1.
    for (size_t s = a.sBegin; s < a.sEnd; ++s) {
      const T* in = src + s * C;
      T* out = dst + s * 2 * C;
      ForEachPixelRun(df, C, [=](size_t c, size_t) HWY_ATTR SYNETK_LAMBDA_INLINE {
        PrefetchAhead<kPlain>(src, s * C + c, pfEnd);
        both(hn::Add(LoadF32(df, in + c), hn::LoadU(df, bias0 + c)), out + c);
      });
    }
    return;
  }
  // Blocks of output pixels (PixelBlock): the block's first halves, then
  // its second halves from the same input pixels, still in L1.
  const size_t block = PixelBlock<T>(2 * C);
  const auto halves = [=](size_t sb, size_t se, size_t outHalf, const auto& op) HWY_ATTR {
    ForEachPixelRun(df, C, [=](size_t c, size_t count) HWY_ATTR SYNETK_LAMBDA_INLINE {
      const V b = LoadParam(df, bias0 + c, count);
      for (size_t s = sb; s < se; ++s) {
        PrefetchAhead<kPlain>(src, s * C + c, pfEnd);
        const V x = hn::Add(LoadRun(df, src + s * C + c, count), b);
        StoreRun<kPlain>(df, op(x), dst + s * 2 * C + outHalf + c, count, stream);
      }
    });
  };
  for (size_t sb = a.sBegin; sb < a.sEnd; sb += block) {
    const size_t se = HWY_MIN(sb + block, a.sEnd);
    halves(sb, se, 0, first);
    halves(sb, se, C, second);
  }
}

// Type 4: dst holds 2*channels channels: max(0, x) with x = src + bias0[c],
// then max(0, x*scale1[0] + bias1[0]).
template <typename T, class Format, bool kPlain, class DF>
HWY_INLINE void Fused4(DF df, const detail::FusedArgs<T>& a) {
  const bool stream = !kPlain && a.stream;
  const size_t pfEnd = PrefetchBound(a.channels * a.spatial, a.prefetch);
  const auto first = Fused4First(df);
  const auto second = Fused4Second(df, a.scalar[0], a.scalar[1]);
  if constexpr (std::is_same_v<Format, Nchw>) {
    Fused4Nchw<kPlain>(df, a, stream, pfEnd, first, second);
  } else {
    Fused4Nhwc<kPlain>(df, a, stream, pfEnd, first, second);
  }
}

// Type 8: dst = src0 + src1*src2[c] (dst may be src0 or src1).
template <typename T, class Format, bool kPlain, class DF>
HWY_INLINE void Fused8(DF df, const detail::FusedArgs<T>& a) {
  using V = hn::Vec<DF>;
  const T* src0 = a.src0;
  const T* src1 = a.src1;
  T* dst = a.dst0;
  const bool stream = !kPlain && a.stream;
  const size_t pfEnd = PrefetchBound(a.channels * a.spatial, a.prefetch);
  // With two inputs, prefetching past a pixel group's lead (pf) is slower
  // from DRAM, so each run prefetches ahead of itself. bench:
  // BM_Fused<float>/type:8/C:256/HW:12544/nhwc:1.
  const auto load = [=](size_t o, size_t count, size_t /*pf*/, V p0, V,
                        V) HWY_ATTR SYNETK_LAMBDA_INLINE {
    PrefetchAhead<kPlain>(src0, o, pfEnd);
    PrefetchAhead<kPlain>(src1, o, pfEnd);
    const V x0 = LoadRun(df, src0 + o, count);
    const V x1 = LoadRun(df, src1 + o, count);
    return hn::MulAdd(x1, p0, x0);
  };
  const auto store = [=](size_t o, size_t count, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
    StoreRun<kPlain>(df, v, dst + o, count, stream);
  };
  ForEachElementwise<Format, 1>(df, a.channels, a.spatial, a.sBegin, a.sEnd, a.channel, a.cached, a.intel,
                                MakeRunOps(load, store, !stream));
}

// The scalars of Fused9PixelsInRegisters' pixels (no vectors: SVE's cannot
// be members or lambda captures); kPlain as StoreF32Streaming's.
template <typename T, bool kPlain>
struct Fused9Pixels {
  const T* src0;
  const T* src1;
  T* dst0;
  T* dst1;
  size_t C0, C1, N;
  size_t pfEnd0, pfEnd1;
  bool stream;
  template <size_t kR0>
  HWY_INLINE size_t Offset(size_t j) const {  // vector j's in the output pixel
    return j < kR0 ? j * N : C0 + (j - kR0) * N;
  }
  template <size_t kR0>
  HWY_INLINE size_t Lanes(size_t j) const {
    return j < kR0 ? HWY_MIN(N, C0 - j * N) : HWY_MIN(N, C1 - (j - kR0) * N);
  }
};

// Vectors j and j + 1 (j even) of pixel s into x and y (zero past kR0 + kR1):
// whole vectors, or with kExact each vector's own lanes only.
template <size_t j, size_t kR0, size_t kR1, bool kPairs, bool kExact, typename T, bool kPlain,
          class DF>
HWY_INLINE void Fused9Load2(DF df, const Fused9Pixels<T, kPlain>& g, size_t s, hn::Vec<DF>& x,
                            hn::Vec<DF>& y) {
  constexpr size_t kR = kR0 + kR1;
  const auto at = [&](size_t v) HWY_ATTR {
    return v < kR0 ? g.src0 + s * g.C0 + v * g.N : g.src1 + s * g.C1 + (v - kR0) * g.N;
  };
  const auto one = [&](size_t v) HWY_ATTR {
    return kExact ? LoadRun(df, at(v), g.template Lanes<kR0>(v)) : LoadF32(df, at(v));
  };
  if constexpr (j >= kR) {
    x = y = hn::Zero(df);
  } else if constexpr (kPairs) {
    LoadBF16Pair(df, at(j), x, y);
  } else {
    x = one(j);
    y = j + 1 < kR ? one(j + 1) : hn::Zero(df);
  }
}

// max(0, x*scale + bias) of vectors j and j + 1 of pixel s to dst0, x and y
// themselves to dst1 (if any).
template <size_t j, size_t kR0, size_t kR1, bool kPairs, bool kExact, typename T, bool kPlain,
          class DF,
          class V>
HWY_INLINE void Fused9Put2(DF df, const Fused9Pixels<T, kPlain>& g, size_t s, V x, V y, V sx,
                           V bx, V sy, V by) {
  constexpr size_t kR = kR0 + kR1;
  if constexpr (j < kR) {
    const size_t C = g.C0 + g.C1;
    T* const out0 = g.dst0 + s * C;
    T* const out1 = g.dst1 != nullptr ? g.dst1 + s * C : nullptr;
    const V fx = hn::Max(hn::Zero(df), hn::MulAdd(x, sx, bx));
    const V fy = hn::Max(hn::Zero(df), hn::MulAdd(y, sy, by));
    if constexpr (kPairs) {
      if (out1 != nullptr) StoreBF16Pair<false>(df, x, y, out1 + j * g.N);
      StoreBF16Pair<false>(df, fx, fy, out0 + j * g.N);
    } else {
      const auto put = [&](size_t v, V f, V plain) HWY_ATTR {
        const size_t o = g.template Offset<kR0>(v);
        const size_t count = kExact ? g.template Lanes<kR0>(v) : g.N;
        StoreRun<kPlain>(df, f, out0 + o, count, g.stream);
        if (out1 != nullptr) StoreRun<kPlain>(df, plain, out1 + o, count, g.stream);
      };
      put(j, fx, x);
      if constexpr (j + 1 < kR) put(j + 1, fy, y);
    }
  }
}

// One pixel of Fused9PixelsInRegisters, the parameters of vector j in sj, bj.
template <size_t kR0, size_t kR1, bool kPairs, bool kExact, typename T, bool kPlain, class DF,
          class V>
HWY_INLINE void Fused9Pixel(DF df, const Fused9Pixels<T, kPlain>& g, size_t s, V s0, V s1, V s2,
                            V s3, V s4, V s5, V s6, V s7, V b0, V b1, V b2, V b3, V b4, V b5,
                            V b6, V b7) {
  if (g.pfEnd0 != 0) {
    PrefetchAheadLines<kPlain>(g.src0, s * g.C0, g.C0, g.pfEnd0);
    PrefetchAheadLines<kPlain>(g.src1, s * g.C1, g.C1, g.pfEnd1);
  }
  V x0, x1, x2, x3, x4, x5, x6, x7;
  Fused9Load2<0, kR0, kR1, kPairs, kExact>(df, g, s, x0, x1);
  Fused9Load2<2, kR0, kR1, kPairs, kExact>(df, g, s, x2, x3);
  Fused9Load2<4, kR0, kR1, kPairs, kExact>(df, g, s, x4, x5);
  Fused9Load2<6, kR0, kR1, kPairs, kExact>(df, g, s, x6, x7);
  Fused9Put2<0, kR0, kR1, kPairs, kExact>(df, g, s, x0, x1, s0, b0, s1, b1);
  Fused9Put2<2, kR0, kR1, kPairs, kExact>(df, g, s, x2, x3, s2, b2, s3, b3);
  Fused9Put2<4, kR0, kR1, kPairs, kExact>(df, g, s, x4, x5, s4, b4, s5, b5);
  Fused9Put2<6, kR0, kR1, kPairs, kExact>(df, g, s, x6, x7, s6, b6, s7, b7);
}

// Type 9 NHWC with C0 channels of src0 in kR0 vectors and C1 of src1 in kR1
// (at most four each; each input's last vector may be partial): every
// vector's scale and bias stay in registers and the pixels stream front to
// back, each pixel's vectors loaded before any is stored: one stream, where
// the 16 KiB blocks below walk a block's pixels once per run. On x86 below
// AVX-512 (16 registers) some parameters spill, and the loop reloads them
// from the stack: still well ahead of the blocks. bench:
// BM_Fused<float>/type:9/C:64/HW:3136/nhwc:1.
// A partial vector is read and written whole: past its input's channels it
// reads the next ones (or the next pixel's), and what it writes past them the
// pixel's next vector, or the next pixel, writes over. The part's last
// pixels, whose whole vectors would leave the part (the next pixels may be
// another thread's) or the inputs, and every pixel of a streamed call with a
// partial vector (non-temporal stores must not overlap), use exact tails.
// kPairs (bf16 with kBF16Pairs, whole pairs): vectors 2i and 2i + 1 are the
// even and odd channels of pair i (LoadBF16Pair), their parameters split to
// match.
template <size_t kR0, size_t kR1, bool kPairs, bool kPlain, typename T, class DF>
HWY_NOINLINE void Fused9PixelsInRegisters(DF df, const detail::FusedArgs<T>& a) {
  using V = hn::Vec<DF>;
  constexpr size_t kR = kR0 + kR1;
  static_assert(kR0 >= 1 && kR1 >= 1 && kR <= 8, "vectors of both inputs, eight at most");
  static_assert(!kPairs || (kR0 % 2 == 0 && kR1 % 2 == 0), "whole pairs of vectors");
  const size_t N = hn::Lanes(df);
  const size_t C0 = a.channels, C1 = a.channels1, C = C0 + C1;
  const Fused9Pixels<T, kPlain> g{a.src0,
                                  a.src1,
                                  a.dst0,
                                  a.dst1,
                                  C0,
                                  C1,
                                  N,
                                  PrefetchBound(C0 * a.spatial, a.prefetch),
                                  PrefetchBound(C1 * a.spatial, a.prefetch),
                                  a.stream};
  HWY_ALIGN float split[2][kPairs ? 8 * kMaxLanes<float> : 1];
  const float* scale = a.channel[0];
  const float* bias = a.channel[1];
  if constexpr (kPairs) {
    scale = SplitPairParams(N, C, scale, split[0]);
    bias = SplitPairParams(N, C, bias, split[1]);
  }
  V s0 = hn::Zero(df), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  V b0 = s0, b1 = s0, b2 = s0, b3 = s0, b4 = s0, b5 = s0, b6 = s0, b7 = s0;
  const auto params = [&](size_t j, V& sc, V& bi) HWY_ATTR {
    if (j < kR) {
      const size_t o = g.template Offset<kR0>(j), n = g.template Lanes<kR0>(j);
      sc = LoadParam(df, scale + o, n);
      bi = LoadParam(df, bias + o, n);
    }
  };
  params(0, s0, b0);
  params(1, s1, b1);
  params(2, s2, b2);
  params(3, s3, b3);
  params(4, s4, b4);
  params(5, s5, b5);
  params(6, s6, b6);
  params(7, s7, b7);
  // Pixels below sFast read and write whole vectors: a pixel's vectors
  // reach `reach` elements from its start, pitch apart, and must stay below
  // pixel `end` (dst: the part's end; inputs: the tensor's).
  const auto fastEnd = [](size_t end, size_t reach, size_t pitch) {
    const size_t over = reach > pitch ? (reach - pitch + pitch - 1) / pitch : 0;
    return end - HWY_MIN(end, over);
  };
  size_t sFast = HWY_MIN(fastEnd(a.sEnd, C0 + kR1 * N, C),
                         HWY_MIN(fastEnd(a.spatial, kR0 * N, C0), fastEnd(a.spatial, kR1 * N, C1)));
  if (a.stream && C != kR * N) sFast = a.sBegin;  // (non-temporal stores never overlap)
  size_t s = a.sBegin;
  for (; s < sFast; ++s) {
    Fused9Pixel<kR0, kR1, kPairs, false>(df, g, s, s0, s1, s2, s3, s4, s5, s6, s7, b0, b1, b2,
                                         b3, b4, b5, b6, b7);
  }
  for (; s < a.sEnd; ++s) {
    Fused9Pixel<kR0, kR1, kPairs, true>(df, g, s, s0, s1, s2, s3, s4, s5, s6, s7, b0, b1, b2, b3,
                                        b4, b5, b6, b7);
  }
}

// Fused9PixelsInRegisters<kR0, n1, kPairs> for n1 in 1..4 (kPairs: 2 or 4);
// false for other n1.
template <size_t kR0, bool kPairs, bool kPlain, typename T, class DF>
HWY_INLINE bool Fused9InRegistersFor(DF df, const detail::FusedArgs<T>& a, size_t n1) {
  const auto run = [&](auto k1) HWY_ATTR {
    constexpr size_t kR1 = decltype(k1)::value;
    if constexpr (!kPairs || kR1 % 2 == 0) {
      if (n1 != kR1) return false;
      Fused9PixelsInRegisters<kR0, kR1, kPairs, kPlain>(df, a);
      return true;
    }
    return false;
  };
  return run(std::integral_constant<size_t, 1>()) || run(std::integral_constant<size_t, 2>()) ||
         run(std::integral_constant<size_t, 3>()) || run(std::integral_constant<size_t, 4>());
}

// Type 9 NHWC in Fused9PixelsInRegisters where each input has 1 to 4 vectors
// of channels (bf16 in whole pairs: 2 or 4); false otherwise.
template <bool kPlain, typename T, class DF>
HWY_INLINE bool Fused9InRegisters(DF df, const detail::FusedArgs<T>& a) {
  const size_t N = hn::Lanes(df);
  const size_t n0 = (a.channels + N - 1) / N, n1 = (a.channels1 + N - 1) / N;
  const auto with = [&](auto pairs) HWY_ATTR {
    constexpr bool kPairs = decltype(pairs)::value;
    const auto run = [&](auto k0) HWY_ATTR {
      constexpr size_t kR0 = decltype(k0)::value;
      if constexpr (!kPairs || kR0 % 2 == 0) {
        return n0 == kR0 && Fused9InRegistersFor<kR0, kPairs, kPlain>(df, a, n1);
      }
      return false;
    };
    return run(std::integral_constant<size_t, 1>()) || run(std::integral_constant<size_t, 2>()) ||
           run(std::integral_constant<size_t, 3>()) || run(std::integral_constant<size_t, 4>());
  };
  if constexpr (kBF16Pairs<T>) {
    if (a.channels % (2 * N) == 0 && a.channels1 % (2 * N) == 0) return with(std::true_type());
  }
  return with(std::false_type());
}

// Type 9 NHWC from the cache where both inputs' channels are whole vectors,
// too many for Fused9PixelsInRegisters (AVX2: more than 32 fp32 channels in
// either): groups of four pixels, front to back, each vector's scale and
// bias loaded once for the four, where the blocks and the one-pixel loop are
// bound by parameter loads and loop overhead; groups of two amortise less.
// bench: BM_Fused<float>/type:9/C:256/HW:784/nhwc:1 on AVX2.
template <bool kPlain, bool kCopy, typename T, class DF>
HWY_NOINLINE void Fused9PixelGroups(DF df, const detail::FusedArgs<T>& a) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const size_t C0 = a.channels, C1 = a.channels1, C = C0 + C1;
  const float* const scale = a.channel[0];
  const float* const bias = a.channel[1];
  T* const dst0 = a.dst0;
  T* const dst1 = a.dst1;
  const bool stream = !kPlain && a.stream;
  const size_t pfEnd0 = PrefetchBound(C0 * a.spatial, a.prefetch);
  const size_t pfEnd1 = PrefetchBound(C1 * a.spatial, a.prefetch);
  const auto put = [&](V v, V sc, V bi, size_t o) HWY_ATTR SYNETK_LAMBDA_INLINE {
    StoreF32Streaming<kPlain>(df, hn::Max(hn::Zero(df), hn::MulAdd(v, sc, bi)), dst0 + o,
                              stream);
    if constexpr (kCopy) StoreF32Streaming<kPlain>(df, v, dst1 + o, stream);
  };
  // Pixels [s, s + kPixels) of input `in` (Ci channels, from output channel
  // `base`).
  const auto input = [&](auto pixels, const T* in, size_t Ci, size_t base, size_t s,
                         size_t pfEnd) HWY_ATTR SYNETK_LAMBDA_INLINE {
    constexpr size_t kPixels = decltype(pixels)::value;
    for (size_t c = 0; c < Ci; c += N) {
      const V sc = hn::LoadU(df, scale + base + c), bi = hn::LoadU(df, bias + base + c);
      const size_t i = s * Ci + c, o = s * C + base + c;
      PrefetchAhead<kPlain>(in, i + (kPixels - 1) * Ci, pfEnd);
      put(LoadF32(df, in + i), sc, bi, o);
      if constexpr (kPixels > 1) {
        put(LoadF32(df, in + i + Ci), sc, bi, o + C);
        put(LoadF32(df, in + i + 2 * Ci), sc, bi, o + 2 * C);
        put(LoadF32(df, in + i + 3 * Ci), sc, bi, o + 3 * C);
      }
    }
  };
  using Four = std::integral_constant<size_t, 4>;
  using One = std::integral_constant<size_t, 1>;
  size_t s = a.sBegin;
  for (; s + Four::value <= a.sEnd; s += Four::value) {
    input(Four(), a.src0, C0, 0, s, pfEnd0);
    input(Four(), a.src1, C1, C0, s, pfEnd1);
  }
  for (; s < a.sEnd; ++s) {
    input(One(), a.src0, C0, 0, s, pfEnd0);
    input(One(), a.src1, C1, C0, s, pfEnd1);
  }
}

// Type 9, NHWC: one output run: dst0 gets max(0, v*sc + bi), dst1 (if any)
// v. Everything by value, no vector captured (see FusedUnary's run halves):
// pointers, the stream flag and the zero vector held by reference are
// reloaded around every store, since vector stores may alias anything.
// bench: BM_Fused<float>/type:9/C:64/HW:3136/nhwc:1.
template <bool kPlain, class DF, class V, typename T>
HWY_INLINE void Fused9Out(DF df, V v, V sc, V bi, T* dst0, T* dst1, size_t o, size_t count,
                          bool stream) {
  StoreRun<kPlain>(df, hn::Max(hn::Zero(df), hn::MulAdd(v, sc, bi)), dst0 + o, count, stream);
  if (dst1 != nullptr) StoreRun<kPlain>(df, v, dst1 + o, count, stream);
}

// Type 9, NHWC, large pixels one at a time: the blocked loop, with its
// one-pixel inner loops, is slower for them. bench:
// BM_Fused<float>/type:9/C:256/HW:784/nhwc:1.
template <bool kPlain, class DF, typename T>
HWY_INLINE void Fused9NhwcPixels(DF df, const detail::FusedArgs<T>& a, bool stream) {
  const size_t C = a.channels + a.channels1, S = a.spatial;
  const T* const srcs[2] = {a.src0, a.src1};
  const size_t counts[2] = {a.channels, a.channels1};
  T* const dst0 = a.dst0;
  T* const dst1 = a.dst1;
  const float* const scale = a.channel[0];
  const float* const bias = a.channel[1];
  for (size_t s = a.sBegin; s < a.sEnd; ++s) {
    size_t base = 0;
    for (size_t i = 0; i < 2; ++i) {
      const size_t Ci = counts[i], pfEnd = PrefetchBound(Ci * S, a.prefetch);
      const T* const src = srcs[i];
      const T* const in = src + s * Ci;
      const size_t o = s * C + base;
      ForEachPixelRun(df, Ci, [=](size_t c, size_t count) HWY_ATTR SYNETK_LAMBDA_INLINE {
        PrefetchAhead<kPlain>(src, s * Ci + c, pfEnd);
        Fused9Out<kPlain>(df, LoadRun(df, in + c, count), LoadParam(df, scale + base + c, count),
                          LoadParam(df, bias + base + c, count), dst0, dst1, o + c, count,
                          stream);
      });
      base += Ci;
    }
  }
}

// Type 9, NHWC, blocks of `block` output pixels, both inputs per block. bf16
// with both inputs' channels whole pairs of vectors (kBF16Pairs): runs of a
// pair of vectors, the parameters split once per call into the pairs' order,
// in registers for the block rather than loaded per pair. bench:
// BM_Fused<hwy::bfloat16_t>/type:9/C:64/HW:3136/nhwc:1.
template <bool kPlain, class DF, typename T>
HWY_INLINE void Fused9NhwcBlocks(DF df, const detail::FusedArgs<T>& a, size_t block,
                                 bool stream) {
  using V = hn::Vec<DF>;
  const size_t C = a.channels + a.channels1, S = a.spatial;
  const T* const srcs[2] = {a.src0, a.src1};
  const size_t counts[2] = {a.channels, a.channels1};
  T* const dst0 = a.dst0;
  T* const dst1 = a.dst1;
  const float* const scale = a.channel[0];
  const float* const bias = a.channel[1];
  constexpr size_t kSplit = kBF16Pairs<T> ? kMaxFlatChannels : 1;
  HWY_ALIGN float split[2][kSplit];
  bool pairs = false;
  if constexpr (kBF16Pairs<T>) {
    const size_t N2 = 2 * hn::Lanes(df);
    pairs = counts[0] % N2 == 0 && counts[1] % N2 == 0 && C <= kMaxFlatChannels;
    if (pairs) {
      SplitPairParams(N2 / 2, C, scale, split[0]);
      SplitPairParams(N2 / 2, C, bias, split[1]);
    }
  }
  for (size_t sb = a.sBegin; sb < a.sEnd; sb += block) {
    const size_t se = HWY_MIN(sb + block, a.sEnd);
    size_t base = 0;
    for (size_t i = 0; i < 2; ++i) {
      const size_t Ci = counts[i], pfEnd = PrefetchBound(Ci * S, a.prefetch);
      const T* const in = srcs[i];
      if constexpr (kBF16Pairs<T>) {
        if (pairs) {
          const size_t N = hn::Lanes(df);
          for (size_t c = 0; c < Ci; c += 2 * N) {
            const float* const sc = split[0] + base + c;
            const float* const bi = split[1] + base + c;
            const V scEven = hn::Load(df, sc), scOdd = hn::Load(df, sc + N);
            const V biEven = hn::Load(df, bi), biOdd = hn::Load(df, bi + N);
            for (size_t s = sb; s < se; ++s) {
              PrefetchAhead<kPlain>(in, s * Ci + c, pfEnd);
              const size_t o = s * C + base + c;
              V even, odd;
              LoadBF16Pair(df, in + s * Ci + c, even, odd);
              if (dst1 != nullptr) StoreBF16Pair<false>(df, even, odd, dst1 + o);
              StoreBF16Pair<false>(df, hn::Max(hn::Zero(df), hn::MulAdd(even, scEven, biEven)),
                                   hn::Max(hn::Zero(df), hn::MulAdd(odd, scOdd, biOdd)),
                                   dst0 + o);
            }
          }
          base += Ci;
          continue;
        }
      }
      ForEachPixelRun(df, Ci, [=](size_t c, size_t count) HWY_ATTR SYNETK_LAMBDA_INLINE {
        const V sc = LoadParam(df, scale + base + c, count);
        const V bi = LoadParam(df, bias + base + c, count);
        for (size_t s = sb; s < se; ++s) {
          PrefetchAhead<kPlain>(in, s * Ci + c, pfEnd);
          Fused9Out<kPlain>(df, LoadRun(df, in + s * Ci + c, count), sc, bi, dst0, dst1,
                            s * C + base + c, count, stream);
        }
      });
      base += Ci;
    }
  }
}

// Type 9, NCHW: each input's channel runs (ForEachChannelRun), dst offsets
// base * S past src's.
template <class Format, bool kPlain, class DF, typename T>
HWY_INLINE void Fused9Nchw(DF df, const detail::FusedArgs<T>& a, bool stream) {
  using V = hn::Vec<DF>;
  const size_t S = a.spatial;
  const T* const srcs[2] = {a.src0, a.src1};
  const size_t counts[2] = {a.channels, a.channels1};
  size_t base = 0;
  for (size_t k = 0; k < 2; ++k) {
    const T* src = srcs[k];
    const size_t Ci = counts[k], pfEnd = PrefetchBound(Ci * S, a.prefetch);
    const float* const params[2] = {a.channel[0] + base, a.channel[1] + base};
    // By value and without vectors, as in FusedUnary. dst1's copy loads the
    // run again (from L1) when it is stored.
    T* const out0 = a.dst0 + base * S;
    T* const out1 = a.dst1 != nullptr ? a.dst1 + base * S : nullptr;
    if constexpr (kBF16Pairs<T>) {
      BF16PairRows<2, kPlain>(df, src, out0, out1, Ci, S, a.sBegin, a.sEnd, params, pfEnd,
                      [=](V x, V p0, V p1, V) HWY_ATTR SYNETK_LAMBDA_INLINE {
                        return hn::Max(hn::Zero(df), hn::MulAdd(x, p0, p1));
                      });
      base += Ci;
      continue;
    }
    const auto load = [=](size_t i, size_t count, size_t pf, V p0, V p1,
                          V) HWY_ATTR SYNETK_LAMBDA_INLINE {
      PrefetchAhead<kPlain>(src, pf, pfEnd);
      return hn::Max(hn::Zero(df), hn::MulAdd(LoadRun(df, src + i, count), p0, p1));
    };
    const auto store = [=](size_t i, size_t count, V v) HWY_ATTR SYNETK_LAMBDA_INLINE {
      StoreRun<kPlain>(df, v, out0 + i, count, stream);
      if (out1 != nullptr) {
        StoreRun<kPlain>(df, LoadRun(df, src + i, count), out1 + i, count, stream);
      }
    };
    ForEachChannelRun<Format, 2>(df, Ci, S, a.sBegin, a.sEnd, params,
                                 MakeRunOps(load, store, !stream));
    base += Ci;
  }
}

// What PlanFused9Nhwc needs of this target and element type T.
template <typename T, class DF>
HWY_INLINE detail::Fused9Caps Fused9CapsOf(DF df, bool intel) {
  detail::Fused9Caps c;
  c.lanes = hn::Lanes(df);
  c.elemBytes = sizeof(T);
  c.scalar = !SYNETK_HAS_MULTI_LANE;
  c.groups = kRunGroup == 1 && !kBF16Pairs<T>;
  c.intel = intel;
  return c;
}

// Type 9: channel concatenation of src0 and src1; dst0 gets
// max(0, v*scale[c] + bias[c]) with c the output channel, dst1 (optional) the
// plain concatenation. NHWC runs the path PlanFused9Nhwc picks.
template <typename T, class Format, bool kPlain, class DF>
HWY_INLINE void Fused9(DF df, const detail::FusedArgs<T>& a) {
  using detail::Fused9Path;
  const bool stream = !kPlain && a.stream;
  if constexpr (!std::is_same_v<Format, Nhwc>) {
    return Fused9Nchw<Format, kPlain>(df, a, stream);
  } else {
    const detail::Fused9Caps caps = Fused9CapsOf<T>(df, a.intel);
    switch (detail::PlanFused9Nhwc(a.channels, a.channels1, a.cached, caps)) {
      case Fused9Path::kInRegisters:
        if constexpr (SYNETK_HAS_MULTI_LANE) {
          const bool ran = Fused9InRegisters<kPlain>(df, a);  // (its shapes: always)
          HWY_DASSERT(ran);
          (void)ran;
        }
        return;
      case Fused9Path::kPixelGroups:
        if constexpr (SYNETK_HAS_MULTI_LANE) {
          if (a.dst1 != nullptr) return Fused9PixelGroups<kPlain, true>(df, a);
          Fused9PixelGroups<kPlain, false>(df, a);
        }
        return;
      case Fused9Path::kPixels:
        return Fused9NhwcPixels<kPlain>(df, a, stream);
      case Fused9Path::kBlocks:
        return Fused9NhwcBlocks<kPlain>(df, a, PixelBlock<T>(a.channels + a.channels1), stream);
    }
  }
}

// The dispatched entry point, one instance per (type, element, format).
template <class Cfg>
void FusedKernel(const detail::FusedArgs<typename Cfg::Elem>& a) {
  using T = typename Cfg::Elem;
  using Format = typename Cfg::Fmt;
  const hn::ScalableTag<float> df;
  const auto run = [&](auto plain) HWY_ATTR {
    constexpr bool kPlain = decltype(plain)::value;
    if constexpr (Cfg::type <= 3) {
      FusedUnary<Cfg::type, T, Format, kPlain>(df, a);
    } else if constexpr (Cfg::type == 4) {
      Fused4<T, Format, kPlain>(df, a);
    } else if constexpr (Cfg::type == 8) {
      Fused8<T, Format, kPlain>(df, a);
    } else {
      static_assert(Cfg::type == 9, "fused types are 0, 1, 2, 3, 4, 8, 9");
      Fused9<T, Format, kPlain>(df, a);
    }
  };
  WithPlainInstance(a.stream, a.prefetch, run);
  // Non-temporal stores are weakly ordered: make them visible before the
  // caller (or another thread it signals) reads dst.
  if (a.stream) hwy::FlushStream();
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

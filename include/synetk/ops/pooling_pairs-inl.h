// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling of 2x2 windows with stride 2 on inputs that pair up exactly, both
// formats (per target): no row buffer.

#if defined(SYNETK_OPS_POOLING_PAIRS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_POOLING_PAIRS_INL_H_
#undef SYNETK_OPS_POOLING_PAIRS_INL_H_
#else
#define SYNETK_OPS_POOLING_PAIRS_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <hwy/highway.h>

#include "synetk/ops/pooling_common-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 2x2 windows with stride 2 and no padding, on inputs whose rows and columns
// pair up exactly (srcH == 2*dstH, srcW == 2*dstW): no row buffer. Every path
// reduces vertically first, so an average is ((r0[2i] + r1[2i]) +
// (r0[2i+1] + r1[2i+1])) in both formats; the trailing + 0 gives +0 where
// the buffered paths (which start from +0) give +0 instead of -0.
template <class Ops, class V>
HWY_INLINE V PoolPairFinish(V v) {
  if constexpr (!Ops::kOrderFree) {  // average: the area is 4 (* 0.25 == / 4 exactly)
    const hn::DFromV<V> d;
    if constexpr (kPoolNativeFma) {
      // One operation: one rounding of v/4 + 0 gives the bits of
      // (v + 0) * 0.25 (the +0 only turns -0 into +0; v/4 is exact but for
      // denormals, rounded once either way). bench:
      // BM_Pooling<hwy::float16_t>/avg:1/C:256/HW:28/k:2/s:2/p:0/nhwc:0.
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
#if !SYNETK_HAS_MULTI_LANE
  (void)d;
  return PoolPairFinish<Ops>(Ops::Combine(A, B));
#else
  return PoolPairFinish<Ops>(Ops::Combine(hn::ConcatEven(d, B, A), hn::ConcatOdd(d, B, A)));
#endif
}

#if SYNETK_HAS_VBMI_PERMUTE
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
  const hn::Full512<L> d;
  const hn::Half<decltype(d)> dh;
  const hn::RebindToUnsigned<decltype(d)> du;
  const auto iEven = hn::Load(du, even), iOdd = hn::Load(du, odd);
  const auto keep = hn::FirstN(dh, outStep);
  size_t p = 0;
  for (; p + P <= pairs && 2 * p * W + 128 <= srcLeft; p += P) {
    const L* s = src + 2 * p * W;
    const auto x0 = hn::LoadU(d, s), x1 = hn::LoadU(d, s + 64);
    const auto rows = hn::Max(TwoTables(d, x0, x1, iEven), TwoTables(d, x0, x1, iOdd));
    const auto m = hn::Max(hn::LowerHalf(dh, rows), hn::UpperHalf(dh, rows));
    hn::BlendedStore(m, keep, dh, dst + p * W2);
  }
  return p;
}
#endif

#if SYNETK_HAS_MULTI_LANE
// 16/32-bit row pairs of W <= N columns, two pairs per step (where
// kPoolPairsTwoAtOnce): the vertical
// steps A (pair p) and B (pair p + 1) have their even columns gathered into
// lanes {A's, then B's} and their odd columns likewise, so that one
// combination gives both pairs' W/2 outputs, contiguous. (One pair per
// vector, as the generic path does, spends a permutation pair and a store on
// every W/2 outputs.) Returns the pairs done. Its own function: inlined, its
// loop's code changes with whatever else PoolNchwPairs holds. bench:
// BM_Pooling<hwy::bfloat16_t>/avg:0/C:256/HW:28/k:2/s:2/p:0/nhwc:0.
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
        Ops::Combine(TwoTables(d, A, B, ie), TwoTables(d, A, B, io)));
    // Lanes past the two rows land on outputs written later.
    PoolStoreDst<Ops>(d, v, dst + p * W2, outs - p * W2);
  }
  return p;
}
#endif

// Row pairs of W <= 2N columns whose loads (2N columns per row) stay inside
// src. Its own loop: inside PoolNchwPairs' loop over columns, which runs
// once per pair here, the pair's bookkeeping takes most of the time. bench:
// BM_Pooling<hwy::bfloat16_t>/avg:1/C:256/HW:28/k:2/s:2/p:0/nhwc:0.
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
#if SYNETK_HAS_MULTI_LANE
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
          const auto* words = reinterpret_cast<const uint32_t*>(src + off);
          if (!kChecked || off + 2 * N <= srcLeft) return hn::LoadU(du, words);
          HWY_ALIGN uint32_t buf[kMaxLanes<uint32_t>] = {};
          if (off < srcLeft) std::memcpy(buf, words, (srcLeft - off) * sizeof(T));
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
#if SYNETK_HAS_VBMI_PERMUTE
  if constexpr (Cfg::isMax && sizeof(typename Ops::L) == 1) {
    if (W <= 32) done = PoolPairsPacked8(src, W, pairs, srcLeft, dst);
  }
#endif
#if SYNETK_HAS_MULTI_LANE
  if constexpr (kPoolPairsTwoAtOnce && sizeof(typename Ops::L) >= 2) {
    if (single) done = PoolPairsTwoAtOnce<Ops>(d, src, W, pairs, srcLeft, dst, outs);
  }
#endif
  // Pairs whose loads stay inside src take plain loads.
  const size_t safe = srcLeft >= reach ? HWY_MIN(pairs, (srcLeft - reach) / (2 * W) + 1) : 0;
  if (!single && W <= 2 * N && SYNETK_HAS_MULTI_LANE) {
    PoolPairsNarrow<Ops>(d, src, W, done, HWY_MAX(done, safe), dst, outs);
    done = HWY_MAX(done, safe);
  }
  run(done, HWY_MAX(done, safe), std::false_type());
  run(HWY_MAX(done, safe), pairs, std::true_type());
}

// NHWC with at least one vector of channels: per output pixel, the four
// input pixels' channels (lanes past C land on the next pixel, written later).
// The tensors' pointers are locals: through `a`, every 8-bit store could
// change them, and each load reloaded them (bench:
// BM_PoolingVsSimd/kind:3/C:256/HW:28/k:2/s:2/p:0/nhwc:1).
template <class Cfg, class D>
void PoolNhwcPairs(D d, const detail::PoolArgs<typename Cfg::Elem>& a) {
  using Ops = PoolOps<Cfg>;
  using T = typename Cfg::Elem;
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  const size_t C = a.srcC, rowElems = a.srcW * C, dstW = a.dstW;
  const T* const src = a.src;
  const T* const srcEnd = src + a.srcH * rowElems;
  T* const dst = a.dst;
  const size_t dstTotal = a.end * dstW * C;
  // bf16 averages of whole pairs of vectors of channels (Ops::kBF16Pairs), as
  // PoolNhwcStemRow does. bench:
  // BM_Pooling<hwy::bfloat16_t>/avg:1/C:256/HW:28/k:2/s:2/p:0/nhwc:1.
  const bool pairs = Ops::kBF16Pairs && C % (2 * N) == 0;
  auto row = [&](size_t dy, auto checkedTag) {
    constexpr bool kChecked = decltype(checkedTag)::value;
    auto ld = [&](const T* p) -> V {
      if (kChecked) return PoolLoadSrc<Ops>(d, p, static_cast<size_t>(srcEnd - p));
      return Ops::Load(d, p);
    };
    for (size_t dx = 0; dx < dstW; ++dx) {
      const T* const top = src + 2 * dy * rowElems + 2 * dx * C;  // the window's left pixels
      const T* const bottom = top + rowElems;
      const size_t o = (dy * dstW + dx) * C;
      if constexpr (Ops::kBF16Pairs) {
        if (pairs) {
          // Two fp32 vectors per load and one store, no promotion or
          // narrowing. Whole pairs of vectors of channels: every load and
          // store stays in its pixel.
          for (size_t c = 0; c < C; c += 2 * N) {
            V e00, o00, e10, o10, e01, o01, e11, o11;  // row, column
            LoadBF16Pair(d, top + c, e00, o00);
            LoadBF16Pair(d, bottom + c, e10, o10);
            LoadBF16Pair(d, top + C + c, e01, o01);
            LoadBF16Pair(d, bottom + C + c, e11, o11);
            const V ve = PoolPairFinish<Ops>(
                Ops::Combine(Ops::Combine(e00, e10), Ops::Combine(e01, e11)));
            const V vo = PoolPairFinish<Ops>(
                Ops::Combine(Ops::Combine(o00, o10), Ops::Combine(o01, o11)));
            StoreBF16Pair<true>(d, ve, vo, dst + o + c);
          }
          continue;
        }
      }
      for (size_t c = 0; c < C; c += N) {
        const V va = Ops::Combine(ld(top + c), ld(bottom + c));
        const V vb = Ops::Combine(ld(top + C + c), ld(bottom + C + c));
        PoolStoreDst<Ops>(d, PoolPairFinish<Ops>(Ops::Combine(va, vb)), dst + o + c,
                          dstTotal - (o + c));
      }
    }
  };
  for (size_t dy = a.begin; dy < a.end; ++dy) {
    // Loads reach at most N - 1 elements past the row pair.
    if (src + (2 * dy + 2) * rowElems + N <= srcEnd) {
      row(dy, std::false_type());
    } else {
      row(dy, std::true_type());
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

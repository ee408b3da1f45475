// Copyright synetk authors. SPDX-License-Identifier: MIT
// GatherElements: per-target kernels. One body serves every target, element
// size (1, 2, 4, 8 bytes: the gather only moves bits) and index type (int32,
// int64). The public context class is in gather.h.

#ifndef SYNETK_OPS_GATHER_ARGS_
#define SYNETK_OPS_GATHER_ARGS_
#include <cstddef>
#include <cstdint>

namespace synetk {
namespace detail {

// Everything a gather kernel needs, validated by the front-end. Tensors are
// viewed as src [outer, srcCount, inner], idx/dst [outer, idxCount, inner].
template <typename Index>
struct GatherArgs {
  const uint8_t* src = nullptr;
  uint8_t* dst = nullptr;
  // Per-element indices; idxOuterStride elements between outer items (0 when
  // one slice serves every outer item). May be null when every row is
  // uniform (rowIndex[r] >= 0 for all rows).
  const Index* idx = nullptr;
  size_t idxOuterStride = 0;
  // Optional (constant-index mode, inner > 1): for each row (outer item,
  // index position) the source row when all `inner` indices of the row are
  // equal, else -1. rowOuterStride rows between outer items (0: shared).
  const Index* rowIndex = nullptr;
  size_t rowOuterStride = 0;
  size_t outer = 0, srcCount = 0, inner = 0, idxCount = 0;
  // True when indices are already in [0, srcCount) (constant-index mode):
  // the negative fix-up is skipped.
  bool nonNegative = false;
  // True when srcCount*inner fits in int32 (per-element vector offsets).
  bool offsetsFit32 = false;
};

template <size_t kElemSize, typename IndexT>
struct GatherCfg {
  static constexpr size_t kSize = kElemSize;
  using Index = IndexT;
};

// Index check: all n indices in [-srcCount, srcCount)?
template <typename IndexT>
struct GatherCheckCfg {
  using Index = IndexT;
};

}  // namespace detail
}  // namespace synetk
#endif  // SYNETK_OPS_GATHER_ARGS_

#if defined(SYNETK_OPS_GATHER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_OPS_GATHER_INL_H_
#undef SYNETK_OPS_GATHER_INL_H_
#else
#define SYNETK_OPS_GATHER_INL_H_
#endif

#include <cstring>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// True if every one of the n indices lies in [-srcCount, srcCount). A min/max
// reduction over whole vectors; the tail (fewer than one vector) is scalar.
template <class Cfg>
bool GatherCheckKernel(const typename Cfg::Index* idx, size_t n, int64_t srcCount) {
  using Index = typename Cfg::Index;
  const hn::ScalableTag<Index> d;
  const size_t N = hn::Lanes(d);
  const Index lo = static_cast<Index>(-srcCount);
  const Index hi = static_cast<Index>(srcCount - 1);
  size_t i = 0;
  if (n >= N) {
    auto vmin = hn::LoadU(d, idx), vmax = vmin;
    for (i = N; i + N <= n; i += N) {
      const auto v = hn::LoadU(d, idx + i);
      vmin = hn::Min(vmin, v);
      vmax = hn::Max(vmax, v);
    }
    if (hn::GetLane(hn::MinOfLanes(d, vmin)) < lo) return false;
    if (hn::GetLane(hn::MaxOfLanes(d, vmax)) > hi) return false;
  }
  bool ok = true;
  for (; i < n; ++i) ok &= (idx[i] >= lo) & (idx[i] <= hi);
  return ok;
}

template <size_t kSize>
HWY_INLINE void CopyElem(uint8_t* d, const uint8_t* s) {
  std::memcpy(d, s, kSize);
}

// Index with the negative fix-up (a no-op for validated non-negative ones).
template <typename Index>
HWY_INLINE size_t FixIndex(Index v, size_t srcCount) {
  return v < 0 ? static_cast<size_t>(static_cast<int64_t>(v) + static_cast<int64_t>(srcCount))
               : static_cast<size_t>(v);
}

// Scalar gather, inner == 1: dst[j] = src[fix(idx[j])] for j < n.
template <size_t kSize, typename Index>
HWY_INLINE void GatherScalar1(const uint8_t* src, const Index* idx, size_t n,
                              size_t srcCount, uint8_t* dst) {
  for (size_t j = 0; j < n; ++j) {
    CopyElem<kSize>(dst + j * kSize, src + FixIndex(idx[j], srcCount) * kSize);
  }
}

// Scalar gather of inner positions [first, inner) of one row (inner > 1):
// dst[i] = src[fix(idx[i])*inner + i].
template <size_t kSize, typename Index>
HWY_INLINE void GatherScalarN(const uint8_t* src, const Index* idx, size_t first,
                              size_t inner, size_t srcCount, uint8_t* dst) {
  for (size_t i = first; i < inner; ++i) {
    const size_t k = FixIndex(idx[i], srcCount);
    CopyElem<kSize>(dst + i * kSize, src + (k * inner + i) * kSize);
  }
}

// Loads N indices as signed lanes of the element's size (DI), fixed up to be
// non-negative. Only called where the combination exists (see CanVector).
template <typename Index, class DI>
HWY_INLINE hn::Vec<DI> LoadIndices(DI di, const Index* p, bool nonNegative,
                                   size_t srcCount) {
  using TI = hn::TFromD<DI>;
  if constexpr (sizeof(TI) == sizeof(Index)) {
    auto v = hn::LoadU(di, reinterpret_cast<const TI*>(p));
    if (!nonNegative) {
      v = hn::IfThenElse(hn::Lt(v, hn::Zero(di)),
                         hn::Add(v, hn::Set(di, static_cast<TI>(srcCount))), v);
    }
    return v;
  } else {
    static_assert(sizeof(TI) == 8 && sizeof(Index) == 4, "int32 indices into 64-bit lanes");
    const hn::Rebind<int32_t, DI> dh;
    auto v = hn::LoadU(dh, p);
    if (!nonNegative) {
      v = hn::IfThenElse(hn::Lt(v, hn::Zero(dh)),
                         hn::Add(v, hn::Set(dh, static_cast<int32_t>(srcCount))), v);
    }
    return hn::PromoteTo(di, v);
  }
}

// Hardware (or Highway-emulated) gathers exist for 32- and 64-bit lanes. A
// 64-bit index into 32-bit lanes would need a narrowing Highway 1.0.3 lacks on
// every target; the constant-index mode narrows such indices to int32 instead.
template <size_t kSize, typename Index>
constexpr bool CanVector() {
  return (kSize == 4 && sizeof(Index) == 4) || kSize == 8;
}

// inner == 1: dst[j] = src[fix(idx[j])] for j < n.
template <size_t kSize, typename Index>
HWY_INLINE void GatherRowInner1(const uint8_t* src, const Index* idx, size_t n,
                                size_t srcCount, bool nonNegative, uint8_t* dst) {
  size_t j = 0;
  if constexpr (CanVector<kSize, Index>()) {
    using U = hwy::UnsignedFromSize<kSize>;
    const hn::ScalableTag<U> du;
    const hn::RebindToSigned<decltype(du)> di;
    const size_t N = hn::Lanes(du);
    const U* s = reinterpret_cast<const U*>(src);
    for (; j + 2 * N <= n; j += 2 * N) {
      const auto i0 = LoadIndices(di, idx + j, nonNegative, srcCount);
      const auto i1 = LoadIndices(di, idx + j + N, nonNegative, srcCount);
      const auto v0 = hn::GatherIndex(du, s, i0);
      const auto v1 = hn::GatherIndex(du, s, i1);
      hn::StoreU(v0, du, reinterpret_cast<U*>(dst + j * kSize));
      hn::StoreU(v1, du, reinterpret_cast<U*>(dst + (j + N) * kSize));
    }
    for (; j + N <= n; j += N) {
      const auto i0 = LoadIndices(di, idx + j, nonNegative, srcCount);
      hn::StoreU(hn::GatherIndex(du, s, i0), du, reinterpret_cast<U*>(dst + j * kSize));
    }
  }
  GatherScalar1<kSize>(src, idx + j, n - j, srcCount, dst + j * kSize);
}

// inner > 1, a row whose indices differ: dst[j] = src[fix(idx[j])*inner + j].
template <size_t kSize, typename Index>
HWY_INLINE void GatherRowInnerN(const uint8_t* src, const Index* idx, size_t inner,
                                size_t srcCount, bool nonNegative, bool fit32,
                                uint8_t* dst) {
  size_t j = 0;
  if constexpr (CanVector<kSize, Index>() && sizeof(Index) == 4) {
    if (fit32) {
      using U = hwy::UnsignedFromSize<kSize>;
      const hn::ScalableTag<U> du;
      const hn::RebindToSigned<decltype(du)> di;
      const hn::Rebind<int32_t, decltype(du)> d32;
      const size_t N = hn::Lanes(du);
      const U* s = reinterpret_cast<const U*>(src);
      const auto vInner = hn::Set(d32, static_cast<int32_t>(inner));
      const auto vN = hn::Set(d32, static_cast<int32_t>(N));
      auto lane = hn::Iota(d32, 0);
      for (; j + N <= inner; j += N) {
        auto k = hn::LoadU(d32, idx + j);
        if (!nonNegative) {
          k = hn::IfThenElse(hn::Lt(k, hn::Zero(d32)),
                             hn::Add(k, hn::Set(d32, static_cast<int32_t>(srcCount))), k);
        }
        const auto off32 = hn::Add(hn::Mul(k, vInner), lane);
        lane = hn::Add(lane, vN);
        hn::Vec<decltype(di)> off;
        if constexpr (kSize == 4) {
          off = hn::BitCast(di, off32);
        } else {
          off = hn::PromoteTo(di, off32);
        }
        hn::StoreU(hn::GatherIndex(du, s, off), du, reinterpret_cast<U*>(dst + j * kSize));
      }
    }
  }
  GatherScalarN<kSize>(src, idx, j, inner, srcCount, dst);
}

// True if all n indices equal idx[0] (vector compare, early exit).
template <typename Index>
HWY_INLINE bool RowUniform(const Index* idx, size_t n) {
  const hn::ScalableTag<Index> d;
  const size_t N = hn::Lanes(d);
  const Index first = idx[0];
  const auto vf = hn::Set(d, first);
  size_t j = 0;
  for (; j + N <= n; j += N) {
    if (!hn::AllTrue(d, hn::Eq(hn::LoadU(d, idx + j), vf))) return false;
  }
  for (; j < n; ++j) {
    if (idx[j] != first) return false;
  }
  return true;
}

template <class Cfg>
void GatherElementsKernel(const detail::GatherArgs<typename Cfg::Index>& a) {
  using Index = typename Cfg::Index;
  constexpr size_t S = Cfg::kSize;
  const size_t srcItem = a.srcCount * a.inner * S;
  const size_t dstItem = a.idxCount * a.inner * S;
  const size_t rowBytes = a.inner * S;
  for (size_t o = 0; o < a.outer; ++o) {
    const uint8_t* src = a.src + o * srcItem;
    uint8_t* dst = a.dst + o * dstItem;
    const Index* idx = a.idx ? a.idx + o * a.idxOuterStride : nullptr;
    if (a.inner == 1) {
      GatherRowInner1<S>(src, idx, a.idxCount, a.srcCount, a.nonNegative, dst);
      continue;
    }
    const Index* rows = a.rowIndex ? a.rowIndex + o * a.rowOuterStride : nullptr;
    for (size_t c = 0; c < a.idxCount; ++c) {
      uint8_t* d = dst + c * rowBytes;
      if (rows != nullptr) {
        if (rows[c] >= 0) {  // a contiguous run of the source
          std::memcpy(d, src + static_cast<size_t>(rows[c]) * rowBytes, rowBytes);
          continue;
        }
      } else if (RowUniform(idx + c * a.inner, a.inner)) {
        const size_t k = FixIndex(idx[c * a.inner], a.srcCount);
        std::memcpy(d, src + k * rowBytes, rowBytes);
        continue;
      }
      GatherRowInnerN<S>(src, idx + c * a.inner, a.inner, a.srcCount, a.nonNegative,
                         a.offsetsFit32, d);
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

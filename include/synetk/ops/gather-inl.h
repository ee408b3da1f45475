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
  size_t begin = 0, end = 0;  // the outer items [begin, end) to compute
  // True when indices are already in [0, srcCount) (constant-index mode):
  // the negative fix-up is skipped.
  bool nonNegative = false;
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
#include <type_traits>

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

// Index with the negative fix-up, branchless (random signs would defeat the
// branch predictor): v + (v < 0 ? srcCount : 0).
template <typename Index>
HWY_INLINE size_t FixIndex(Index v, size_t srcCount) {
  const int64_t x = static_cast<int64_t>(v);
  return static_cast<size_t>(x + ((x >> 63) & static_cast<int64_t>(srcCount)));
}

// Scalar gather, inner == 1: dst[j] = src[fix(idx[j])] for j < n.
template <size_t kSize, typename Index>
HWY_INLINE void GatherScalar1(const uint8_t* src, const Index* idx, size_t n,
                              size_t srcCount, uint8_t* dst) {
  for (size_t j = 0; j < n; ++j) {
    CopyElem<kSize>(dst + j * kSize, src + FixIndex(idx[j], srcCount) * kSize);
  }
}

// Scalar gather of inner positions [first, last) of one row (inner > 1):
// dst[i] = src[fix(idx[i])*inner + i].
template <size_t kSize, typename Index>
HWY_INLINE void GatherScalarN(const uint8_t* src, const Index* idx, size_t first,
                              size_t last, size_t inner, size_t srcCount, uint8_t* dst) {
  for (size_t i = first; i < last; ++i) {
    const size_t k = FixIndex(idx[i], srcCount);
    CopyElem<kSize>(dst + i * kSize, src + (k * inner + i) * kSize);
  }
}

// Vector offsets are int32: the kernels take the vector paths only when one
// outer item of src has at most INT32_MAX bytes.
template <size_t kSize>
HWY_INLINE bool OffsetsFit32(size_t srcCount, size_t inner) {
  return srcCount * inner * kSize <= static_cast<size_t>(INT32_MAX);
}

// The int32 lanes that hold one vector of indices: a full vector for int32
// indices, half of one for int64 indices (which are narrowed).
template <typename Index>
using Idx32Tag = std::conditional_t<sizeof(Index) == 4, hn::ScalableTag<int32_t>,
                                      hn::Rebind<int32_t, hn::ScalableTag<int64_t>>>;

// Loads Lanes(d32) indices as int32 lanes, fixed up to be non-negative.
// Callers ensure srcCount <= INT32_MAX, so validated int64 indices narrow
// exactly.
template <typename Index, class D32>
HWY_INLINE hn::Vec<D32> LoadIdx32(D32 d32, const Index* p, bool nonNegative,
                                  size_t srcCount) {
  if constexpr (sizeof(Index) == 4) {
    auto v = hn::LoadU(d32, p);
    if (!nonNegative) {
      v = hn::IfThenElse(hn::Lt(v, hn::Zero(d32)),
                         hn::Add(v, hn::Set(d32, static_cast<int32_t>(srcCount))), v);
    }
    return v;
  } else {
    const hn::Rebind<int64_t, D32> d64;
    const hn::Rebind<uint64_t, D32> du64;
    const hn::Rebind<uint32_t, D32> du32;
    auto v = hn::LoadU(d64, p);
    if (!nonNegative) {
      v = hn::IfThenElse(hn::Lt(v, hn::Zero(d64)),
                         hn::Add(v, hn::Set(d64, static_cast<int64_t>(srcCount))), v);
    }
    return hn::BitCast(d32, hn::TruncateTo(du32, hn::BitCast(du64, v)));
  }
}

// Elements of 1, 2 or 4 bytes at element offsets e (int32 lanes) of src, to
// dst. 4 bytes: a 32-bit gather. 1 and 2 bytes: a 32-bit gather at the byte
// offset, truncated. Lanes whose 4-byte read would pass limBytes (= bytes of
// the outer item - 4, >= 0) read the 4 bytes ending inside it instead and
// shift the element down, so no lane reads outside the outer item.
template <size_t kSize, class D32>
HWY_INLINE void GatherSmall(D32 d32, const uint8_t* src, hn::Vec<D32> e, int32_t limBytes,
                            uint8_t* dst) {
  const hn::RebindToUnsigned<D32> du32;
  if constexpr (kSize == 4) {
    (void)limBytes;
    const auto v = hn::GatherIndex(du32, reinterpret_cast<const uint32_t*>(src), e);
    hn::StoreU(v, du32, reinterpret_cast<uint32_t*>(dst));
  } else {
    const auto byteOff = kSize == 2 ? hn::ShiftLeft<1>(e) : e;
    const auto adj = hn::Max(hn::Sub(byteOff, hn::Set(d32, limBytes)), hn::Zero(d32));
    const auto w = hn::GatherOffset(d32, reinterpret_cast<const int32_t*>(src),
                                    hn::Sub(byteOff, adj));
    const auto bits = hn::ShiftLeft<3>(hn::BitCast(du32, adj));
    // Not TruncateTo: Highway 1.0.3's u32->u8 and u32->u16 TruncateTo are
    // wrong on AVX3_DL (byte permutes with swapped or 32-bit operands).
    // Keeping the low bits first makes the saturating demotion exact.
    using U = hwy::UnsignedFromSize<kSize>;
    const hn::Rebind<U, D32> dn;
    const auto low = hn::And(hn::Shr(hn::BitCast(du32, w), bits),
                             hn::Set(du32, static_cast<uint32_t>(hwy::LimitsMax<U>())));
    hn::StoreU(hn::DemoteTo(dn, hn::BitCast(d32, low)), dn, reinterpret_cast<U*>(dst));
  }
}

// Loads N indices into 64-bit lanes (8-byte elements), fixed up.
template <typename Index, class DI>
HWY_INLINE hn::Vec<DI> LoadIdx64(DI di, const Index* p, bool nonNegative, size_t srcCount) {
  if constexpr (sizeof(Index) == 8) {
    auto v = hn::LoadU(di, p);
    if (!nonNegative) {
      v = hn::IfThenElse(hn::Lt(v, hn::Zero(di)),
                         hn::Add(v, hn::Set(di, static_cast<int64_t>(srcCount))), v);
    }
    return v;
  } else {
    const hn::Rebind<int32_t, DI> dh;
    return hn::PromoteTo(di, LoadIdx32(dh, p, nonNegative, srcCount));
  }
}

// inner == 1 with srcCount <= lanes (4-byte elements with int32 indices, or
// 8-byte elements): the whole source row sits in one register and each
// vector of indices is one TableLookupLanes. Returns the elements done.
template <size_t kSize, typename Index>
HWY_INLINE size_t GatherTable(const uint8_t* src, const Index* idx, size_t n, size_t srcCount,
                              bool nonNegative, uint8_t* dst) {
  if constexpr ((kSize == 4 && sizeof(Index) == 4) || kSize == 8) {
    using U = hwy::UnsignedFromSize<kSize>;
    const hn::ScalableTag<U> du;
    const hn::RebindToSigned<decltype(du)> di;
    const size_t N = hn::Lanes(du);
    if (srcCount > N || N * kSize > HWY_MAX_BYTES) return 0;
    HWY_ALIGN uint8_t row[HWY_MAX_BYTES] = {};
    std::memcpy(row, src, srcCount * kSize);
    const auto table = hn::Load(du, reinterpret_cast<const U*>(row));
    size_t j = 0;
    for (; j + N <= n; j += N) {
      hn::Vec<decltype(di)> k;
      if constexpr (kSize == 4) {
        k = LoadIdx32(di, idx + j, nonNegative, srcCount);
      } else {
        k = LoadIdx64(di, idx + j, nonNegative, srcCount);
      }
      hn::StoreU(hn::TableLookupLanes(table, hn::IndicesFromVec(du, k)), du,
                 reinterpret_cast<U*>(dst + j * kSize));
    }
    return j;
  } else {
    (void)src, (void)idx, (void)n, (void)srcCount, (void)nonNegative, (void)dst;
    return 0;
  }
}

// inner == 1: dst[j] = src[fix(idx[j])] for j < n. src is one outer item.
template <size_t kSize, typename Index>
HWY_INLINE void GatherRowInner1(const uint8_t* src, const Index* idx, size_t n,
                                size_t srcCount, bool nonNegative, uint8_t* dst) {
  size_t j = 0;
  if (OffsetsFit32<kSize>(srcCount, 1)) {
    j = GatherTable<kSize>(src, idx, n, srcCount, nonNegative, dst);
    if constexpr (kSize == 8) {
      const hn::ScalableTag<uint64_t> du;
      const hn::RebindToSigned<decltype(du)> di;
      const size_t N = hn::Lanes(du);
      const uint64_t* s = reinterpret_cast<const uint64_t*>(src);
      for (; j + N <= n; j += N) {
        const auto k = LoadIdx64(di, idx + j, nonNegative, srcCount);
        hn::StoreU(hn::GatherIndex(du, s, k), du, reinterpret_cast<uint64_t*>(dst + j * kSize));
      }
    } else {
      const Idx32Tag<Index> d32;
      const size_t N = hn::Lanes(d32);
      const int64_t limBytes = static_cast<int64_t>(srcCount * kSize) - 4;
      if (limBytes >= 0) {
        for (; j + N <= n; j += N) {
          const auto k = LoadIdx32(d32, idx + j, nonNegative, srcCount);
          GatherSmall<kSize>(d32, src, k, static_cast<int32_t>(limBytes), dst + j * kSize);
        }
      }
    }
  }
  GatherScalar1<kSize>(src, idx + j, n - j, srcCount, dst + j * kSize);
}

// inner > 1, a row whose indices differ: dst[i] = src[fix(idx[i])*inner + i].
// src is one outer item.
template <size_t kSize, typename Index>
HWY_INLINE void GatherRowInnerN(const uint8_t* src, const Index* idx, size_t inner,
                                size_t srcCount, bool nonNegative, uint8_t* dst) {
  size_t j = 0;
  if (OffsetsFit32<kSize>(srcCount, inner)) {
    if constexpr (kSize == 8) {
      const hn::ScalableTag<uint64_t> du;
      const hn::RebindToSigned<decltype(du)> di;
      const hn::Rebind<int32_t, decltype(di)> d32;
      const size_t N = hn::Lanes(du);
      const uint64_t* s = reinterpret_cast<const uint64_t*>(src);
      const auto vInner = hn::Set(d32, static_cast<int32_t>(inner));
      auto lane = hn::Iota(d32, 0);
      for (; j + N <= inner; j += N) {
        const auto e = hn::Add(hn::Mul(LoadIdx32(d32, idx + j, nonNegative, srcCount), vInner), lane);
        lane = hn::Add(lane, hn::Set(d32, static_cast<int32_t>(N)));
        hn::StoreU(hn::GatherIndex(du, s, hn::PromoteTo(di, e)), du,
                   reinterpret_cast<uint64_t*>(dst + j * kSize));
      }
    } else {
      const Idx32Tag<Index> d32;
      const size_t N = hn::Lanes(d32);
      const int64_t limBytes = static_cast<int64_t>(srcCount * inner * kSize) - 4;
      const auto vInner = hn::Set(d32, static_cast<int32_t>(inner));
      auto lane = hn::Iota(d32, 0);
      for (; limBytes >= 0 && j + N <= inner; j += N) {
        const auto e = hn::Add(hn::Mul(LoadIdx32(d32, idx + j, nonNegative, srcCount), vInner), lane);
        lane = hn::Add(lane, hn::Set(d32, static_cast<int32_t>(N)));
        GatherSmall<kSize>(d32, src, e, static_cast<int32_t>(limBytes), dst + j * kSize);
      }
    }
  }
  GatherScalarN<kSize>(src, idx, j, inner, inner, srcCount, dst);
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
  for (size_t o = a.begin; o < a.end; ++o) {
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
      GatherRowInnerN<S>(src, idx + c * a.inner, a.inner, a.srcCount, a.nonNegative, d);
    }
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

// Copyright synetk authors. SPDX-License-Identifier: MIT
// TwoTables: lanes idx[i] of the 2N lanes {a, b} (lanes of a first), for
// any lane type: the two-table permutation that pooling's pick rows and the
// quantization layers' byte shuffles build on. A generic body (compiled for
// every target) beside the per-target ones, which give the same lanes;
// tests/primitives_test.cc checks both on every target. Re-included once per
// Highway target.

#if defined(SYNETK_DETAIL_TWO_TABLES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_TWO_TABLES_INL_H_
#undef SYNETK_DETAIL_TWO_TABLES_INL_H_
#else
#define SYNETK_DETAIL_TWO_TABLES_INL_H_
#endif

#include <cstddef>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/elements-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether TwoTables is fast for lanes of type L on this target: vpermt2b
// (VBMI), vpermt2w / vpermt2d on AVX-512, two vpermps and a blend on AVX2.
// The paths that rely on it run only where it is.
template <typename L>
inline constexpr bool kFastTwoTables =
#if SYNETK_HAS_VBMI_PERMUTE
    true;
#elif SYNETK_HAS_AVX512
    sizeof(L) >= 2;
#elif SYNETK_IS_X86_AVX2
    sizeof(L) == 4;
#else
    false;
#endif

template <class D>
HWY_INLINE hn::Vec<D> TwoTablesGeneric(D d, hn::Vec<D> a, hn::Vec<D> b,
                                       hn::Vec<hn::RebindToUnsigned<D>> idx) {
  using T = hn::TFromD<D>;
  using U = hn::TFromD<hn::RebindToUnsigned<D>>;
  const hn::RebindToUnsigned<D> du;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN T t[2 * kMaxLanes<T>], out[kMaxLanes<T>];
  HWY_ALIGN U x[kMaxLanes<U>];
  hn::Store(a, d, t);
  hn::Store(b, d, t + N);
  hn::Store(idx, du, x);
  for (size_t i = 0; i < N; ++i) out[i] = t[x[i] % (2 * N)];
  return hn::Load(d, out);
}

template <class D>
HWY_INLINE hn::Vec<D> TwoTables(D d, hn::Vec<D> a, hn::Vec<D> b,
                                hn::Vec<hn::RebindToUnsigned<D>> idx) {
  const hn::RebindToUnsigned<D> du;
#if SYNETK_HAS_AVX512
  if constexpr (kFastTwoTables<hn::TFromD<D>> && sizeof(a) == 64) {
    const __m512i ai = hn::BitCast(du, a).raw, bi = hn::BitCast(du, b).raw;
    if constexpr (sizeof(hn::TFromD<D>) == 1) {
#if SYNETK_HAS_VBMI_PERMUTE
      return hn::BitCast(d, hn::Vec512<uint8_t>{_mm512_permutex2var_epi8(ai, idx.raw, bi)});
#endif
    } else if constexpr (sizeof(hn::TFromD<D>) == 2) {
      return hn::BitCast(d, hn::Vec512<uint16_t>{_mm512_permutex2var_epi16(ai, idx.raw, bi)});
    } else {
      return hn::BitCast(d, hn::Vec512<uint32_t>{_mm512_permutex2var_epi32(ai, idx.raw, bi)});
    }
  }
#elif SYNETK_IS_X86_AVX2
  if constexpr (kFastTwoTables<hn::TFromD<D>> && sizeof(a) == 32) {
    const hn::Repartition<float, D> df;
    const auto lanes = hn::And(idx, hn::Set(du, 7u));
    const auto fromA = hn::TableLookupLanes(hn::BitCast(df, a), hn::IndicesFromVec(df, lanes));
    const auto fromB = hn::TableLookupLanes(hn::BitCast(df, b), hn::IndicesFromVec(df, lanes));
    const auto inB = hn::RebindMask(df, hn::Gt(idx, hn::Set(du, 7u)));
    return hn::BitCast(d, hn::IfThenElse(inB, fromB, fromA));
  }
#endif
  (void)du;
  return TwoTablesGeneric(d, a, b, idx);
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

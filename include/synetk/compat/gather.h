// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: SimdSynetGatherElements{Init, SetIndex, InternalBufferSize,
// Forward}. Include synetk/simd.h; release contexts with SimdRelease.
#ifndef SYNETK_COMPAT_GATHER_H_
#define SYNETK_COMPAT_GATHER_H_

#include "synetk/compat/context.h"
#include "synetk/compat/types.h"

namespace synetk {
namespace simd {
namespace compat {

template <typename Index>
inline void* MakeGatherElements(SimdTensorDataType dataType, bool indexConst, size_t indexUsers,
                                const size_t* outer, size_t outerSize, size_t srcCount,
                                size_t inner, size_t idxCount) {
  auto make = [&](auto elem) -> void* {
    using T = decltype(elem);
    Context* c = new GatherElements<T, Index>(outer, outerSize, srcCount, inner, idxCount,
                                              indexConst, indexUsers);
    return c;
  };
  switch (dataType) {
    case SimdTensorData32f: return make(float());
    case SimdTensorData32i: return make(int32_t());
    case SimdTensorData8i: return make(int8_t());
    case SimdTensorData8u: return make(uint8_t());
    case SimdTensorDataBool: return make(uint8_t());
    case SimdTensorData64i: return make(int64_t());
    case SimdTensorData64u: return make(uint64_t());
    case SimdTensorData16b: return make(uint16_t());  // bfloat16 bits
    case SimdTensorData16f: return make(uint16_t());  // float16 bits
    default: return nullptr;
  }
}

inline GatherElementsAny* GatherContext(const void* context, const char* fn) {
  if (context == nullptr) detail::Fail(fn, "context", context, "a context from SimdSynetGatherElementsInit");
  auto* c = dynamic_cast<GatherElementsAny*>(static_cast<Context*>(const_cast<void*>(context)));
  if (c == nullptr) detail::Fail(fn, "context", context, "a context from SimdSynetGatherElementsInit");
  return c;
}

}  // namespace compat

/// Makes a gather elements context (a synetk::GatherElements of the given
/// element and index types) for src [outer..., srcCount, inner] and idx, dst
/// [outer..., idxCount, inner]:
/// dst[o, c, i] = src[o, k, i], k = idx[o, c, i] (+ srcCount if negative).
/// @param dataType element type: SimdTensorData32f, 32i, 8i, 8u, Bool, 64i,
///   64u, 16b or 16f (moved as bits of their size)
/// @param indexType SimdTensorData32i or SimdTensorData64i
/// @param indexConst SimdTrue: the index may be set once with
///   SimdSynetGatherElementsSetIndex
/// @param indexUsers accepted and ignored (as the original)
/// @param outer outerSize outer dimensions (null allowed when outerSize is 0)
/// @param outerSize number of outer dimensions
/// @param srcCount extent of the gathered axis in src
/// @param inner product of the dimensions after the gathered axis
/// @param idxCount extent of the gathered axis in idx and dst
/// @return the context (release it with SimdRelease), or NULL for another
///   dataType or indexType (as the original)
/// @throws synetk::Error on a null outer with outerSize > 0, a zero outer
///   dimension, srcCount, inner or idxCount, a srcCount above the largest
///   index value, or sizes whose product or byte count overflows
inline void* SimdSynetGatherElementsInit(SimdTensorDataType dataType, SimdTensorDataType indexType,
                                         SimdBool indexConst, size_t indexUsers,
                                         const size_t* outer, size_t outerSize, size_t srcCount,
                                         size_t inner, size_t idxCount) {
  const bool isConst = indexConst != SimdFalse;
  if (indexType == SimdTensorData32i) {
    return compat::MakeGatherElements<int32_t>(dataType, isConst, indexUsers, outer, outerSize,
                                               srcCount, inner, idxCount);
  }
  if (indexType == SimdTensorData64i) {
    return compat::MakeGatherElements<int64_t>(dataType, isConst, indexUsers, outer, outerSize,
                                               srcCount, inner, idxCount);
  }
  return nullptr;
}

/// Sets and analyses a constant index. Optional: without it, Forward reads
/// the index it is given. Ignored for a context made without indexConst, as
/// in the original. An invalid index throws synetk::Error and the context
/// keeps its previous index, if any.
/// @param context a context from SimdSynetGatherElementsInit
/// @param idx outer*idxCount*inner indices of the context's index type
/// @throws synetk::Error on a null context or a synetk context of another
///   layer, and (constant-index contexts) on a null idx or an index outside
///   [-srcCount, srcCount)
inline void SimdSynetGatherElementsSetIndex(const void* context, const uint8_t* idx) {
  auto* c = compat::GatherContext(context, "SimdSynetGatherElementsSetIndex");
  if (c->IndexConstMode()) c->SetIndexBytes(idx);
}

/// Bytes of analysed index data the context keeps.
/// @param context a context from SimdSynetGatherElementsInit
/// @return 0 before SetIndex and for a context made without indexConst
/// @throws synetk::Error on a null context or a synetk context of another
///   layer
inline size_t SimdSynetGatherElementsInternalBufferSize(const void* context) {
  return compat::GatherContext(context, "SimdSynetGatherElementsInternalBufferSize")
      ->InternalBufferSize();
}

/// dst[o, c, i] = src[o, idx[o, c, i], i] (a negative index counts from
/// srcCount). After SetIndex on a constant-index context idx is ignored
/// (it may be null); otherwise it is read, and an index outside
/// [-srcCount, srcCount) throws synetk::Error with dst untouched.
/// @param context a context from SimdSynetGatherElementsInit
/// @param src outer*srcCount*inner elements
/// @param idx outer*idxCount*inner indices (see above)
/// @param dst outer*idxCount*inner elements; must not overlap src or idx
/// @throws synetk::Error on a null context or a synetk context of another
///   layer, a null src or dst, dst overlapping src, and (without SetIndex)
///   a null idx, dst overlapping idx or an index out of range
inline void SimdSynetGatherElementsForward(void* context, const uint8_t* src, const uint8_t* idx,
                                           uint8_t* dst) {
  compat::GatherContext(context, "SimdSynetGatherElementsForward")->ForwardBytes(src, idx, dst);
}

}  // namespace simd
}  // namespace synetk

#endif  // SYNETK_COMPAT_GATHER_H_

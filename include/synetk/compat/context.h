// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: SimdRelease, which releases any synetk context. Include
// synetk/simd.h.
#ifndef SYNETK_COMPAT_CONTEXT_H_
#define SYNETK_COMPAT_CONTEXT_H_

#include "synetk/context.h"

namespace synetk {
namespace simd {

/// Releases a context made by any synetk::simd ...Init function (which all
/// return a synetk::Context* as void*). Null is ignored.
/// @param context a context from a synetk::simd ...Init function, or null
inline void SimdRelease(void* context) {
  delete static_cast<Context*>(context);
}

}  // namespace simd
}  // namespace synetk

#endif  // SYNETK_COMPAT_CONTEXT_H_

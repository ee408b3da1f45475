// Copyright synetk authors. SPDX-License-Identifier: MIT
// The public functors. Needs every target's kernels (synetk-inl.h) to be
// compiled first: include synetk.h, which does both.
#ifndef SYNETK_API_H_
#define SYNETK_API_H_

#include <hwy/highway.h>
#include <hwy/targets.h>

#include "synetk/detail/dispatch.h"
#include "synetk/ops/fused.h"
#include "synetk/ops/gather.h"
#include "synetk/ops/normalize.h"
#include "synetk/ops/quant.h"
#include "synetk/ops/pooling.h"

SYNETK_NAMESPACE_BEGIN

/// The Highway target that synetk's kernels run on now.
/// \return A Highway target bit (HWY_AVX2, HWY_AVX3_DL, ...): the best the
///   CPU supports, or the one hwy::SetSupportedTargetsForTest forces.
inline int64_t ChosenTarget() {
  return SYNETK_DISPATCH(ThisTarget<void>)();
}

/// The name of ChosenTarget().
/// \return "AVX2", "SSE4", "SCALAR", ...
inline const char* ChosenTargetName() { return hwy::TargetName(ChosenTarget()); }

SYNETK_NAMESPACE_END

#endif  // SYNETK_API_H_

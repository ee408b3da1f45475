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

/// The Highway target (HWY_AVX2, ...) that synetk's kernels run on now.
inline int64_t ChosenTarget() {
  return SYNETK_DISPATCH(ThisTarget<void>)();
}

/// Its name ("AVX2", "SSE4", "SCALAR", ...).
inline const char* ChosenTargetName() { return hwy::TargetName(ChosenTarget()); }

SYNETK_NAMESPACE_END

#endif  // SYNETK_API_H_

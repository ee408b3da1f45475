// Copyright synetk authors. SPDX-License-Identifier: MIT
// Per-target identity, so callers and tests can ask which target runs.

#if defined(SYNETK_DETAIL_TARGET_INFO_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_TARGET_INFO_INL_H_
#undef SYNETK_DETAIL_TARGET_INFO_INL_H_
#else
#define SYNETK_DETAIL_TARGET_INFO_INL_H_
#endif

#include <hwy/highway.h>

#include "synetk/detail/abi.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {

template <class Unused>
int64_t ThisTarget() {
  return HWY_TARGET;
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard

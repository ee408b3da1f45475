// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_DISPATCH_H_
#define SYNETK_DETAIL_DISPATCH_H_

// Run-time dispatch of templated kernels on Highway 1.0.3, which lacks
// HWY_EXPORT_T. All Highway-version glue lives here, so that moving to
// HWY_EXPORT_T (Highway >= 1.2) is a change in this file only.
//
// SYNETK_DISPATCH(Kernel<Cfg>)(args...) calls the per-target instance of
// Kernel<Cfg> for the target Highway chose (or the one forced with
// hwy::SetSupportedTargetsForTest). It must be used after every
// synetk::N_<TARGET> namespace has been generated, i.e. in the HWY_ONCE part of
// synetk.h. The argument must contain no top-level comma: bundle template
// parameters into one configuration type.
//
// The table is a function-local static in a template inside the
// configuration-tagged namespace (see abi.h), so the index computed with this
// TU's HWY_TARGETS always meets a table built with the same HWY_TARGETS.

#include <hwy/highway.h>

#if HWY_IDE || ((HWY_TARGETS & (HWY_TARGETS - 1)) == 0)

#define SYNETK_DISPATCH(KERNEL) (&HWY_STATIC_DISPATCH(KERNEL))

#else

#define SYNETK_DISPATCH(KERNEL)                                              \
  ([]() {                                                                    \
    using Fn = decltype(&HWY_STATIC_DISPATCH(KERNEL));                       \
    static Fn const kTable[HWY_MAX_DYNAMIC_TARGETS + 2] = {                  \
        &decltype(hwy::DeduceFunctionCache(                                  \
            &HWY_STATIC_DISPATCH(KERNEL)))::template ChooseAndCall<kTable>,  \
        HWY_CHOOSE_TARGET_LIST(KERNEL), HWY_CHOOSE_FALLBACK(KERNEL)};        \
    return kTable[hwy::GetChosenTarget().GetIndex()];                        \
  }())

#endif

#endif  // SYNETK_DETAIL_DISPATCH_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_DISPATCH_H_
#define SYNETK_DETAIL_DISPATCH_H_

// Run-time dispatch of templated kernels: a table per kernel instance, built
// from Highway's own macros (HWY_CHOOSE_TARGET_LIST), which every Highway
// version has. Highway >= 1.2's HWY_EXPORT_T needs a named table per instance
// at namespace scope, which a kernel chosen by template arguments inside a
// function cannot declare; this function-local table needs none.
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
//
// Compile-once mode (SYNETK_EXTERN_KERNELS, set by synetk/declarations.h and
// synetk/instantiate.h): SYNETK_DISPATCH calls impl::ExternKernel<Tag, Fn>,
// which returns the chosen target's Kernel<Cfg> and is only declared here.
// Its definition (detail/extern_kernels.h) is compiled in the one TU that
// includes synetk/instantiate.h; the other TUs instantiate no kernel.

#include <hwy/highway.h>

#include "synetk/detail/abi.h"

#if HWY_IDE || ((HWY_TARGETS & (HWY_TARGETS - 1)) == 0)

#define SYNETK_DISPATCH_TABLE(KERNEL) (&HWY_STATIC_DISPATCH(KERNEL))

#else

#define SYNETK_DISPATCH_TABLE(KERNEL)                                        \
  ([]() {                                                                    \
    using Fn = decltype(&HWY_STATIC_DISPATCH(KERNEL));                       \
    static Fn const kTable[HWY_MAX_DYNAMIC_TARGETS + 2] = {                  \
        &decltype(hwy::DeduceFunctionCache(                                  \
            &HWY_STATIC_DISPATCH(KERNEL)))::template ChooseAndCall<kTable>,  \
        HWY_CHOOSE_TARGET_LIST(KERNEL), HWY_CHOOSE_FALLBACK(KERNEL)};        \
    return kTable[hwy::GetChosenTarget().GetIndex()];                        \
  }())

#endif

#ifdef SYNETK_EXTERN_KERNELS

namespace synetk {
namespace detail {
// One name per kernel template that SYNETK_DISPATCH calls: the key of
// ExternKernel (kernel_tags::FusedKernel<Cfg> for FusedKernel<Cfg>).
namespace kernel_tags {
template <class>
struct ConcatKernel;
template <class>
struct DequantKernel;
template <class>
struct FusedKernel;
template <class>
struct GatherCheckKernel;
template <class>
struct GatherElementsKernel;
template <class>
struct NormalizeKernel;
template <class>
struct PoolKernel;
template <class>
struct QuantKernel;
template <class>
struct ScaleKernel;
template <class>
struct ScalePrepareKernel;
template <class>
struct ShuffleKernel;
template <class>
struct ThisTarget;
}  // namespace kernel_tags
}  // namespace detail
}  // namespace synetk

SYNETK_NAMESPACE_BEGIN
namespace impl {
// The chosen target's instance of the kernel Tag names, of type Fn.
template <class Tag, class Fn>
HWY_NOINLINE Fn ExternKernel();
}  // namespace impl
SYNETK_NAMESPACE_END

// decltype names the static target's instance without instantiating it.
#define SYNETK_DISPATCH(KERNEL)                                                      \
  (::synetk::impl::ExternKernel<::synetk::detail::kernel_tags::KERNEL,              \
                                decltype(&HWY_STATIC_DISPATCH(KERNEL))>())

#else

#define SYNETK_DISPATCH(KERNEL) SYNETK_DISPATCH_TABLE(KERNEL)

#endif

#endif  // SYNETK_DETAIL_DISPATCH_H_

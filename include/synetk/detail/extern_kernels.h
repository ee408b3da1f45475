// Copyright synetk authors. SPDX-License-Identifier: MIT
// The definition of impl::ExternKernel (see dispatch.h), for the one TU that
// includes synetk/instantiate.h: every target's kernels exist there, and each
// ExternKernel<Tag, Fn> that an explicitly instantiated functor calls is
// compiled there (not inlined, so other TUs link to it).
#ifndef SYNETK_DETAIL_EXTERN_KERNELS_H_
#define SYNETK_DETAIL_EXTERN_KERNELS_H_

#include <hwy/highway.h>

#include "synetk/detail/dispatch.h"

#ifndef SYNETK_EXTERN_KERNELS
#error "include synetk/instantiate.h, which sets SYNETK_EXTERN_KERNELS"
#endif

SYNETK_NAMESPACE_BEGIN
namespace impl {

// The dispatch table of the kernel a tag names.
template <class Tag>
struct ExternKernelTable;

#define SYNETK_EXTERN_KERNEL_TABLE(NAME)                                  \
  template <class Cfg>                                                    \
  struct ExternKernelTable<::synetk::detail::kernel_tags::NAME<Cfg>> {    \
    static auto Get() { return SYNETK_DISPATCH_TABLE(NAME<Cfg>); }        \
  };
SYNETK_EXTERN_KERNEL_TABLE(ConcatKernel)
SYNETK_EXTERN_KERNEL_TABLE(DequantKernel)
SYNETK_EXTERN_KERNEL_TABLE(FusedKernel)
SYNETK_EXTERN_KERNEL_TABLE(GatherCheckKernel)
SYNETK_EXTERN_KERNEL_TABLE(GatherElementsKernel)
SYNETK_EXTERN_KERNEL_TABLE(NormalizeKernel)
SYNETK_EXTERN_KERNEL_TABLE(PoolKernel)
SYNETK_EXTERN_KERNEL_TABLE(QuantKernel)
SYNETK_EXTERN_KERNEL_TABLE(ScaleKernel)
SYNETK_EXTERN_KERNEL_TABLE(ScalePrepareKernel)
SYNETK_EXTERN_KERNEL_TABLE(ShuffleKernel)
SYNETK_EXTERN_KERNEL_TABLE(ThisTarget)
#undef SYNETK_EXTERN_KERNEL_TABLE

template <class Tag, class Fn>
HWY_NOINLINE Fn ExternKernel() {
  return ExternKernelTable<Tag>::Get();
}

// The kernels of what no explicit instantiation can name: ChosenTarget(),
// which every TU may call, and QuantizedConcat (not a template). They are
// compiled in the TU that includes instantiate.h without
// SYNETK_INSTANTIATE_MORE (one per program).
#ifndef SYNETK_INSTANTIATE_MORE
template decltype(&HWY_STATIC_DISPATCH(ThisTarget<void>))
ExternKernel<::synetk::detail::kernel_tags::ThisTarget<void>,
             decltype(&HWY_STATIC_DISPATCH(ThisTarget<void>))>();
template decltype(&HWY_STATIC_DISPATCH(ConcatKernel<::synetk::detail::ConcatCfg>))
ExternKernel<::synetk::detail::kernel_tags::ConcatKernel<::synetk::detail::ConcatCfg>,
             decltype(&HWY_STATIC_DISPATCH(ConcatKernel<::synetk::detail::ConcatCfg>))>();
#endif

}  // namespace impl
SYNETK_NAMESPACE_END

#endif  // SYNETK_DETAIL_EXTERN_KERNELS_H_

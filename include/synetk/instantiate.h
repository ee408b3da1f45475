// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compile-once mode, for the one engine TU that compiles synetk's kernels
// (see synetk/declarations.h): everything synetk.h offers, and the functors
// this TU explicitly instantiates serve every TU that includes
// synetk/declarations.h:
//   #include "synetk/instantiate.h"
//   template struct synetk::FusedLayer3<float, synetk::Nchw>;
//   template struct synetk::PoolingMax<uint8_t, synetk::Nhwc>;
// The kernels may be spread over several such TUs, which then compile in
// parallel: each functor is instantiated in one of them, and every one of
// them but one defines SYNETK_INSTANTIATE_MORE before including this header
// (ChosenTarget()'s kernel is instantiated once, where it is not defined).
#ifndef SYNETK_INSTANTIATE_H_
#define SYNETK_INSTANTIATE_H_

#ifndef SYNETK_EXTERN_KERNELS
#define SYNETK_EXTERN_KERNELS
#endif

#include "synetk/synetk.h"
#include "synetk/detail/extern_kernels.h"

#endif  // SYNETK_INSTANTIATE_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compile-once mode, for the one engine TU that compiles synetk's kernels
// (see synetk/declarations.h): everything synetk.h offers, and the functors
// this TU explicitly instantiates serve every TU that includes
// synetk/declarations.h:
//   #include "synetk/instantiate.h"
//   template struct synetk::FusedLayer3<float, synetk::Nchw>;
//   template struct synetk::PoolingMax<uint8_t, synetk::Nhwc>;
// Only one TU of a program includes this header.
#ifndef SYNETK_INSTANTIATE_H_
#define SYNETK_INSTANTIATE_H_

#ifndef SYNETK_EXTERN_KERNELS
#define SYNETK_EXTERN_KERNELS
#endif

#include "synetk/synetk.h"
#include "synetk/detail/extern_kernels.h"

#endif  // SYNETK_INSTANTIATE_H_

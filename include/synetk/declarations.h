// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compile-once mode, for an engine's many TUs: the public functors, whose
// kernels this TU does not compile. One TU of the program includes
// synetk/instantiate.h instead and explicitly instantiates every functor the
// others call, e.g.
//   template struct synetk::FusedLayer3<float, synetk::Nchw>;
// A functor used here but instantiated nowhere fails to link (an undefined
// synetk::...::impl::ExternKernel<...>). Both TUs need the same compile flags
// (the same Highway targets); a TU includes either this header or
// synetk/synetk.h (or instantiate.h), not both. synetk/simd.h, included
// after this header, declares synetk::simd's functions over these functors.
#ifndef SYNETK_DECLARATIONS_H_
#define SYNETK_DECLARATIONS_H_

#ifndef SYNETK_EXTERN_KERNELS
#define SYNETK_EXTERN_KERNELS
#endif

// The same target list as synetk.h (see there).
#if !defined(SYNETK_NO_AVX3_DL) && !defined(HWY_WANT_AVX3_DL)
#define HWY_WANT_AVX3_DL
#endif

#include "synetk/element.h"
#include "synetk/error.h"
#include "synetk/format.h"
#include "synetk/range.h"
#include "synetk/streaming.h"
#include "synetk/workspace.h"

// Only the static target's kernels are declared (for their types, through
// decltype); none is instantiated.
#include <hwy/highway.h>

#include "synetk/synetk-inl.h"
#include "synetk/api.h"

#endif  // SYNETK_DECLARATIONS_H_

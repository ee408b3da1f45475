// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compatibility layer for engines that call the original Simd library's Synet
// functions: the same names, enums and parameter lists, in namespace
// synetk::simd so that it links beside the original. Switching an engine is a
// change of include plus `using namespace synetk::simd;`. Differences: bad
// input throws synetk::Error instead of being undefined behaviour.
#ifndef SYNETK_SIMD_H_
#define SYNETK_SIMD_H_

#include "synetk/compat/types.h"
#include "synetk/compat/context.h"
#include "synetk/compat/fused.h"
#include "synetk/compat/gather.h"
#include "synetk/compat/normalize.h"
#include "synetk/compat/quant.h"
#include "synetk/compat/pooling.h"

#endif  // SYNETK_SIMD_H_

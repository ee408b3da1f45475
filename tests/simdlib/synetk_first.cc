// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk/simd.h first (it includes <Simd/SimdLib.h> itself when the include
// path has it), then Simd's header, which its guard makes a no-op.
#include "synetk/simd.h"

#include <Simd/SimdLib.h>

#define SYNETK_SIMDLIB_CHECK SynetkFirst
#include "body.h"

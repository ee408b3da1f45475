// Copyright synetk authors. SPDX-License-Identifier: MIT
// Simd's header first, then synetk/simd.h.
#include <Simd/SimdLib.h>

#include "synetk/simd.h"

#define SYNETK_SIMDLIB_CHECK SimdLibFirst
#include "body.h"

// Copyright synetk authors. SPDX-License-Identifier: MIT
// The umbrella header: include this one. It compiles every layer for every
// Highway target (foreach_target.h re-includes synetk-inl.h per target) and
// then declares the public functors.
//
// Highway's foreach_target.h can drive only one HWY_TARGET_INCLUDE per
// translation unit. If your TU already uses foreach_target.h for its own
// code, include "synetk/synetk-inl.h" from your per-target file and
// "synetk/api.h" after it instead of this header.
#ifndef SYNETK_SYNETK_H_
#define SYNETK_SYNETK_H_

// Compile Highway's AVX3_DL target (AVX-512 with VBMI, Ice Lake and later) as
// well: the quantized layers look bytes up with vpermt2b there. Effective only
// if no Highway header was included before this one; define
// SYNETK_NO_AVX3_DL to leave Highway's default target list alone.
#if !defined(SYNETK_NO_AVX3_DL) && !defined(HWY_WANT_AVX3_DL)
#define HWY_WANT_AVX3_DL
#endif

#include "synetk/element.h"
#include "synetk/error.h"
#include "synetk/format.h"
#include "synetk/range.h"
#include "synetk/streaming.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "synetk/synetk-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "synetk/synetk-inl.h"
#include "synetk/api.h"

#endif  // SYNETK_SYNETK_H_

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

/// \mainpage synetk
///
/// A header-only C++17 (or later) library of neural-network layer kernels for CPU
/// inference engines, written with Google Highway and dispatched at run time
/// to the best SIMD target of the CPU. Include synetk/synetk.h for the
/// functors in namespace synetk, synetk/simd.h for the original Simd
/// Library's entry points in namespace synetk::simd. Every layer validates
/// its arguments and throws synetk::Error before writing anything. The
/// README and docs/ describe each family's semantics, numerics and paths.

/// \namespace synetk
/// The layer functors, element and format types, synetk::Range and
/// synetk::Error.

/// \namespace synetk::simd
/// The original Simd Library's Synet functions, enums and parameter lists,
/// over the synetk functors (include synetk/simd.h).

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
#include "synetk/workspace.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "synetk/synetk-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "synetk/synetk-inl.h"
#include "synetk/api.h"

#endif  // SYNETK_SYNETK_H_

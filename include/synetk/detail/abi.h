// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_ABI_H_
#define SYNETK_DETAIL_ABI_H_

// Why this exists: per-target template code (synetk::N_SSE4::..., the
// dispatch tables) is emitted as weak symbols in every translation unit that
// uses it, and the linker keeps one copy. A TU compiled with -mavx2 puts VEX
// instructions into its copy of the "SSE4" code, and its dispatch index is
// computed from its own HWY_TARGETS. If the linker kept that copy, an SSE4-only
// CPU would die with SIGILL, or a table would be indexed with another TU's
// target order.
//
// synetk therefore wraps all code that depends on compile flags in an inline
// namespace whose name encodes the configuration: one digit per Highway target
// compiled in this TU and one per baseline ISA extension the compiler was told
// to assume. TUs with equal flags share one copy (no code bloat); TUs with
// different flags get distinct symbols, so each keeps the code it compiled.
// Nothing changes for users: synetk::FusedLayer0<...> names the right one.
//
// Generated once by a small script; regenerate if Highway adds targets.

#include <hwy/highway.h>

#define SYNETK_CAT_(a, b) a##b
#define SYNETK_CAT(a, b) SYNETK_CAT_(a, b)

// Forces a lambda inline (after its parameter list), for kernels whose hot
// loop lives in a lambda the compiler would otherwise call per row.
#if defined(__GNUC__) || defined(__clang__)
#define SYNETK_LAMBDA_INLINE __attribute__((always_inline))
#else
#define SYNETK_LAMBDA_INLINE
#endif

#if (HWY_TARGETS & HWY_AVX3_DL) != 0
#define SYNETK_ABI_T00 1
#else
#define SYNETK_ABI_T00 0
#endif

#if (HWY_TARGETS & HWY_AVX3) != 0
#define SYNETK_ABI_T01 1
#else
#define SYNETK_ABI_T01 0
#endif

#if (HWY_TARGETS & HWY_AVX2) != 0
#define SYNETK_ABI_T02 1
#else
#define SYNETK_ABI_T02 0
#endif

#if (HWY_TARGETS & HWY_SSE4) != 0
#define SYNETK_ABI_T03 1
#else
#define SYNETK_ABI_T03 0
#endif

#if (HWY_TARGETS & HWY_SSSE3) != 0
#define SYNETK_ABI_T04 1
#else
#define SYNETK_ABI_T04 0
#endif

#if (HWY_TARGETS & HWY_EMU128) != 0
#define SYNETK_ABI_T05 1
#else
#define SYNETK_ABI_T05 0
#endif

#if (HWY_TARGETS & HWY_SCALAR) != 0
#define SYNETK_ABI_T06 1
#else
#define SYNETK_ABI_T06 0
#endif

#if (HWY_TARGETS & HWY_NEON) != 0
#define SYNETK_ABI_T07 1
#else
#define SYNETK_ABI_T07 0
#endif

#if (HWY_TARGETS & HWY_SVE) != 0
#define SYNETK_ABI_T08 1
#else
#define SYNETK_ABI_T08 0
#endif

#if (HWY_TARGETS & HWY_SVE2) != 0
#define SYNETK_ABI_T09 1
#else
#define SYNETK_ABI_T09 0
#endif

#if (HWY_TARGETS & HWY_SVE_256) != 0
#define SYNETK_ABI_T10 1
#else
#define SYNETK_ABI_T10 0
#endif

#if (HWY_TARGETS & HWY_SVE2_128) != 0
#define SYNETK_ABI_T11 1
#else
#define SYNETK_ABI_T11 0
#endif

#if (HWY_TARGETS & HWY_RVV) != 0
#define SYNETK_ABI_T12 1
#else
#define SYNETK_ABI_T12 0
#endif

#if (HWY_TARGETS & HWY_PPC8) != 0
#define SYNETK_ABI_T13 1
#else
#define SYNETK_ABI_T13 0
#endif

#if (HWY_TARGETS & HWY_WASM) != 0
#define SYNETK_ABI_T14 1
#else
#define SYNETK_ABI_T14 0
#endif

#if (HWY_TARGETS & HWY_WASM_EMU256) != 0
#define SYNETK_ABI_T15 1
#else
#define SYNETK_ABI_T15 0
#endif

#if defined(__SSE3__)
#define SYNETK_ABI_F00 1
#else
#define SYNETK_ABI_F00 0
#endif

#if defined(__SSSE3__)
#define SYNETK_ABI_F01 1
#else
#define SYNETK_ABI_F01 0
#endif

#if defined(__SSE4_1__)
#define SYNETK_ABI_F02 1
#else
#define SYNETK_ABI_F02 0
#endif

#if defined(__SSE4_2__)
#define SYNETK_ABI_F03 1
#else
#define SYNETK_ABI_F03 0
#endif

#if defined(__POPCNT__)
#define SYNETK_ABI_F04 1
#else
#define SYNETK_ABI_F04 0
#endif

#if defined(__AVX__)
#define SYNETK_ABI_F05 1
#else
#define SYNETK_ABI_F05 0
#endif

#if defined(__AVX2__)
#define SYNETK_ABI_F06 1
#else
#define SYNETK_ABI_F06 0
#endif

#if defined(__FMA__)
#define SYNETK_ABI_F07 1
#else
#define SYNETK_ABI_F07 0
#endif

#if defined(__F16C__)
#define SYNETK_ABI_F08 1
#else
#define SYNETK_ABI_F08 0
#endif

#if defined(__BMI2__)
#define SYNETK_ABI_F09 1
#else
#define SYNETK_ABI_F09 0
#endif

#if defined(__AVX512F__)
#define SYNETK_ABI_F10 1
#else
#define SYNETK_ABI_F10 0
#endif

#if defined(__AVX512VL__)
#define SYNETK_ABI_F11 1
#else
#define SYNETK_ABI_F11 0
#endif

#if defined(__AVX512BW__)
#define SYNETK_ABI_F12 1
#else
#define SYNETK_ABI_F12 0
#endif

#if defined(__AVX512DQ__)
#define SYNETK_ABI_F13 1
#else
#define SYNETK_ABI_F13 0
#endif

#if defined(__AVX512VNNI__)
#define SYNETK_ABI_F14 1
#else
#define SYNETK_ABI_F14 0
#endif

#if defined(__AVX512VBMI2__)
#define SYNETK_ABI_F15 1
#else
#define SYNETK_ABI_F15 0
#endif

#if defined(__ARM_NEON)
#define SYNETK_ABI_F16 1
#else
#define SYNETK_ABI_F16 0
#endif

#if defined(__ARM_FEATURE_SVE)
#define SYNETK_ABI_F17 1
#else
#define SYNETK_ABI_F17 0
#endif

#if defined(__ARM_FEATURE_SVE2)
#define SYNETK_ABI_F18 1
#else
#define SYNETK_ABI_F18 0
#endif

#if defined(__ARM_FEATURE_AES)
#define SYNETK_ABI_F19 1
#else
#define SYNETK_ABI_F19 0
#endif

// Targets (AVX3_DL AVX3 AVX2 SSE4 SSSE3 EMU128 SCALAR NEON SVE SVE2 SVE_256 SVE2_128 RVV PPC8 WASM WASM_EMU256), then
// features (__SSE3__ __SSSE3__ __SSE4_1__ __SSE4_2__ __POPCNT__ __AVX__ __AVX2__ __FMA__ __F16C__ __BMI2__ __AVX512F__ __AVX512VL__ __AVX512BW__ __AVX512DQ__ __AVX512VNNI__ __AVX512VBMI2__ __ARM_NEON __ARM_FEATURE_SVE __ARM_FEATURE_SVE2 __ARM_FEATURE_AES).
#define SYNETK_ABI_TARGET_DIGITS \
  SYNETK_CAT(SYNETK_ABI_T00, \
  SYNETK_CAT(SYNETK_ABI_T01, \
  SYNETK_CAT(SYNETK_ABI_T02, \
  SYNETK_CAT(SYNETK_ABI_T03, SYNETK_CAT(SYNETK_ABI_T04, SYNETK_CAT(SYNETK_ABI_T05, SYNETK_CAT(SYNETK_ABI_T06, SYNETK_CAT(SYNETK_ABI_T07, SYNETK_CAT(SYNETK_ABI_T08, SYNETK_CAT(SYNETK_ABI_T09, SYNETK_CAT(SYNETK_ABI_T10, SYNETK_CAT(SYNETK_ABI_T11, SYNETK_CAT(SYNETK_ABI_T12, SYNETK_CAT(SYNETK_ABI_T13, SYNETK_CAT(SYNETK_ABI_T14, SYNETK_ABI_T15)))))))))))))))
#define SYNETK_ABI_FEATURE_DIGITS \
  SYNETK_CAT(SYNETK_ABI_F00, \
  SYNETK_CAT(SYNETK_ABI_F01, \
  SYNETK_CAT(SYNETK_ABI_F02, \
  SYNETK_CAT(SYNETK_ABI_F03, SYNETK_CAT(SYNETK_ABI_F04, SYNETK_CAT(SYNETK_ABI_F05, SYNETK_CAT(SYNETK_ABI_F06, SYNETK_CAT(SYNETK_ABI_F07, SYNETK_CAT(SYNETK_ABI_F08, SYNETK_CAT(SYNETK_ABI_F09, SYNETK_CAT(SYNETK_ABI_F10, SYNETK_CAT(SYNETK_ABI_F11, SYNETK_CAT(SYNETK_ABI_F12, SYNETK_CAT(SYNETK_ABI_F13, SYNETK_CAT(SYNETK_ABI_F14, SYNETK_CAT(SYNETK_ABI_F15, SYNETK_CAT(SYNETK_ABI_F16, SYNETK_CAT(SYNETK_ABI_F17, SYNETK_CAT(SYNETK_ABI_F18, SYNETK_ABI_F19)))))))))))))))))))
#define SYNETK_ABI \
  SYNETK_CAT(abi_t, SYNETK_CAT(SYNETK_ABI_TARGET_DIGITS, \
                               SYNETK_CAT(_f, SYNETK_ABI_FEATURE_DIGITS)))

// Opens/closes the flag-dependent part of namespace synetk.
#define SYNETK_NAMESPACE_BEGIN \
  namespace synetk {           \
  inline namespace SYNETK_ABI {
#define SYNETK_NAMESPACE_END \
  }                          \
  }

// Flag-independent helpers live in synetk::detail; flag-dependent front-end
// helpers in synetk::<abi>::impl, which sees synetk::detail.
namespace synetk {
namespace detail {}
inline namespace SYNETK_ABI {
namespace impl {
using namespace ::synetk::detail;
}  // namespace impl
}  // namespace SYNETK_ABI
}  // namespace synetk

#endif  // SYNETK_DETAIL_ABI_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: the original library's enums, with their names and values.
#ifndef SYNETK_COMPAT_TYPES_H_
#define SYNETK_COMPAT_TYPES_H_

#include <cstddef>
#include <cstdint>

// In compile-once mode (synetk/declarations.h included first) the functors'
// declarations suffice; otherwise every target's kernels.
#ifdef SYNETK_DECLARATIONS_H_
#include "synetk/declarations.h"
#else
#include "synetk/synetk.h"
#endif

// The Simd Library's own header, where the engine has it (an engine that
// keeps Simd for its other kernels includes it too): its enum types are then
// synetk::simd's, so that Simd-typed values and casts such as
// `(::SimdTensorFormatType)trans` pass straight to these functions and
// `using namespace synetk::simd;` finds one entity per enumerator. Define
// SYNETK_SIMD_NO_SIMDLIB_H to keep synetk's own look-alike enums instead.
#if !defined(__SimdLib_h__) && !defined(SYNETK_SIMD_NO_SIMDLIB_H) && defined(__has_include)
#if __has_include(<Simd/SimdLib.h>)
#include <Simd/SimdLib.h>
#endif
#endif

namespace synetk {
namespace simd {

#if defined(__SimdLib_h__) && !defined(SYNETK_SIMD_NO_SIMDLIB_H)
#define SYNETK_SIMD_USES_SIMDLIB_H 1
using ::SimdTensorFormatType;
using ::SimdTensorFormatUnknown;
using ::SimdTensorFormatNchw;
using ::SimdTensorFormatNhwc;
using ::SimdTensorDataType;
using ::SimdTensorDataUnknown;
using ::SimdTensorData32f;
using ::SimdTensorData32i;
using ::SimdTensorData8i;
using ::SimdTensorData8u;
using ::SimdTensorData64i;
using ::SimdTensorData64u;
using ::SimdTensorDataBool;
using ::SimdTensorData16b;
using ::SimdTensorData16f;
using ::SimdBool;
using ::SimdFalse;
using ::SimdTrue;
#else
#define SYNETK_SIMD_USES_SIMDLIB_H 0
/// The original library's tensor formats, with its names and values. A fixed
/// underlying type makes any int a valid value, so that an out-of-range
/// format from a C caller can be detected and rejected.
enum SimdTensorFormatType : int {
  SimdTensorFormatUnknown = -1,  ///< unknown or layout-independent
  SimdTensorFormatNchw = 0,      ///< NCHW: ((n*C + c)*H + h)*W + w
  SimdTensorFormatNhwc = 1,      ///< NHWC: ((n*H + h)*W + w)*C + c
};

/// The original library's tensor element types, with its names and values.
enum SimdTensorDataType : int {
  SimdTensorDataUnknown = -1,  ///< unknown
  SimdTensorData32f = 0,       ///< float
  SimdTensorData32i,           ///< int32_t
  SimdTensorData8i,            ///< int8_t
  SimdTensorData8u,            ///< uint8_t
  SimdTensorData64i,           ///< int64_t
  SimdTensorData64u,           ///< uint64_t
  SimdTensorDataBool,          ///< one byte per boolean
  SimdTensorData16b,           ///< bfloat16 bits in uint16_t
  SimdTensorData16f,           ///< float16 bits in uint16_t
};

/// The original library's boolean.
enum SimdBool : int {
  SimdFalse = 0,  ///< false
  SimdTrue = 1,   ///< true
};
#endif

namespace compat {

// Calls fn.template operator()<Format>() for the runtime format, or throws.
template <class Fn>
inline void WithFormat(const char* layer, SimdTensorFormatType format, Fn&& fn) {
  switch (format) {
    case SimdTensorFormatNchw:
      fn(Nchw());
      return;
    case SimdTensorFormatNhwc:
      fn(Nhwc());
      return;
    default:
      break;
  }
  detail::Fail(layer, "format", static_cast<int>(format),
               "SimdTensorFormatNchw (0) or SimdTensorFormatNhwc (1)");
}

}  // namespace compat

}  // namespace simd
}  // namespace synetk

#endif  // SYNETK_COMPAT_TYPES_H_

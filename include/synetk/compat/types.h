// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: the original library's enums, with their names and values.
#ifndef SYNETK_COMPAT_TYPES_H_
#define SYNETK_COMPAT_TYPES_H_

#include <cstddef>
#include <cstdint>

#include "synetk/synetk.h"

namespace synetk {
namespace simd {

// A fixed underlying type makes any int a valid value, so that an
// out-of-range format from a C caller can be detected and rejected.
enum SimdTensorFormatType : int {
  SimdTensorFormatUnknown = -1,
  SimdTensorFormatNchw = 0,
  SimdTensorFormatNhwc = 1,
};

enum SimdTensorDataType : int {
  SimdTensorDataUnknown = -1,
  SimdTensorData32f = 0,
  SimdTensorData32i,
  SimdTensorData8i,
  SimdTensorData8u,
  SimdTensorData64i,
  SimdTensorData64u,
  SimdTensorDataBool,
  SimdTensorData16b,
  SimdTensorData16f,
};

enum SimdBool : int {
  SimdFalse = 0,
  SimdTrue = 1,
};

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

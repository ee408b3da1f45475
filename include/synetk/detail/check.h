// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_CHECK_H_
#define SYNETK_DETAIL_CHECK_H_

// Argument checks shared by every layer. All are O(1); each throws
// synetk::Error naming the layer and the parameter.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "synetk/error.h"
#include "synetk/range.h"

namespace synetk {
namespace detail {

template <typename P>
inline void CheckNotNull(const char* layer, const char* param, const P* p) {
  if (p == nullptr) Fail(layer, param, p, "a non-null pointer");
}

inline void CheckPositive(const char* layer, const char* param, size_t v) {
  if (v == 0) Fail(layer, param, v, "> 0");
}

// Product of sizes; throws if it does not fit in size_t. `what` names the
// product in the message, e.g. "channels*spatial".
inline size_t CheckedProduct(const char* layer, const char* what,
                             std::initializer_list<size_t> factors) {
  size_t r = 1;
  for (size_t f : factors) {
    if (__builtin_mul_overflow(r, f, &r)) {
      Fail(layer, what, "overflow", "a product that fits in size_t");
    }
  }
  return r;
}

// Bytes of `count` elements of `elem` bytes, kept far from the top of the
// address space so that pointer arithmetic inside the kernels cannot wrap.
inline size_t CheckedBytes(const char* layer, const char* what, size_t count,
                           size_t elem) {
  size_t bytes = CheckedProduct(layer, what, {count, elem});
  if (bytes > (std::numeric_limits<size_t>::max() >> 2)) {
    Fail(layer, what, count, "a tensor smaller than a quarter of memory");
  }
  return bytes;
}

// Buffers [a, a+aBytes) and [b, b+bBytes) must be either the same buffer
// (when `sameAllowed`, for in-place layers) or disjoint. Anything else means a
// kernel would read data it has already overwritten.
inline void CheckNoPartialOverlap(const char* layer, const char* outParam,
                                  const void* out, size_t outBytes,
                                  const char* inParam, const void* in,
                                  size_t inBytes, bool sameAllowed) {
  const uintptr_t o = reinterpret_cast<uintptr_t>(out);
  const uintptr_t i = reinterpret_cast<uintptr_t>(in);
  if (sameAllowed && o == i && outBytes == inBytes) return;
  const bool disjoint = o + outBytes <= i || i + inBytes <= o;
  if (!disjoint) {
    const std::string expected =
        std::string(sameAllowed ? "the same buffer as " : "a buffer disjoint from ") +
        inParam + (sameAllowed ? " or disjoint from it" : "");
    Fail(layer, outParam, out, expected.c_str());
  }
}

// A part of a split call (synetk::Range) along an axis of `count` items:
// clamps part.end to count and checks begin <= end.
inline void ClampPart(const char* layer, Range& part, size_t count) {
  if (part.end > count) part.end = count;
  if (part.begin > part.end) Fail(layer, "part.begin", part.begin, "<= part.end and within the axis");
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_DETAIL_CHECK_H_

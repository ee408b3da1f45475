// Copyright synetk authors. SPDX-License-Identifier: MIT
// The tests' own element types, shared by the test TUs that call functors
// over them and the kernel TUs (tests/kernels/) that instantiate those.
#ifndef SYNETK_TESTS_TEST_TYPES_H_
#define SYNETK_TESTS_TEST_TYPES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "synetk/element.h"

namespace synetk_test {

// Fused layers: one type borrowing bfloat16's encoding, one with its own
// scalar codec (Q8.8 fixed point).
struct MyBf16 {
  uint16_t bits;
};
struct Fixed88 {
  int16_t raw;
};

// GatherElements moves any trivially copyable type.
struct Rgba {  // a user type of 4 bytes, alignment 1
  uint8_t c[4];
};
struct Quad16 {  // a user type of 8 bytes, alignment 2
  uint16_t v[4];
};

}  // namespace synetk_test

template <>
struct synetk::ElementTraits<synetk_test::MyBf16> : synetk::ElementTraits<hwy::bfloat16_t> {};
template <>
struct synetk::ElementTraits<synetk_test::Fixed88> {
  static constexpr Encoding kEncoding = Encoding::kCodec;
  static float ToFloat(synetk_test::Fixed88 v) { return v.raw / 256.0f; }
  static synetk_test::Fixed88 FromFloat(float f) {
    const float r = std::nearbyint(std::clamp(f * 256.0f, -32768.0f, 32767.0f));
    return synetk_test::Fixed88{static_cast<int16_t>(r)};
  }
};

#endif  // SYNETK_TESTS_TEST_TYPES_H_

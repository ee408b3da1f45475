// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_FORMAT_H_
#define SYNETK_FORMAT_H_

#include <type_traits>

namespace synetk {

// Compile-time tensor layouts. Batch is always outermost.
//   Nchw: element (b, c, s) of a tensor with C channels and S spatial
//         positions sits at (b*C + c)*S + s.
//   Nhwc: at (b*S + s)*C + c.
struct Nchw {
  static constexpr const char* kName = "NCHW";
};
struct Nhwc {
  static constexpr const char* kName = "NHWC";
};

template <typename F>
inline constexpr bool kIsFormat =
    std::is_same_v<F, Nchw> || std::is_same_v<F, Nhwc>;

}  // namespace synetk

#endif  // SYNETK_FORMAT_H_

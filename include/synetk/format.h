// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_FORMAT_H_
#define SYNETK_FORMAT_H_

#include <type_traits>

namespace synetk {

/// Channels-first layout: element (b, c, s) of a tensor with C channels and
/// S spatial positions sits at (b*C + c)*S + s. A compile-time tag: layers
/// take it as their Format template argument.
struct Nchw {
  static constexpr const char* kName = "NCHW";  ///< Name for messages.
};
/// Channels-last layout: element (b, c, s) sits at (b*S + s)*C + c (batch
/// outermost, as in Nchw).
struct Nhwc {
  static constexpr const char* kName = "NHWC";  ///< Name for messages.
};

/// True for the two tensor formats, Nchw and Nhwc.
template <typename F>
inline constexpr bool kIsFormat =
    std::is_same_v<F, Nchw> || std::is_same_v<F, Nhwc>;

}  // namespace synetk

#endif  // SYNETK_FORMAT_H_

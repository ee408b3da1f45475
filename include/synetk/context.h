// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_CONTEXT_H_
#define SYNETK_CONTEXT_H_

namespace synetk {

/// Common base of every synetk layer context (GatherElements,
/// QuantizedScaleContext). It has a virtual destructor, so that one release
/// function (synetk::simd::SimdRelease) can delete any context given as
/// void*: contexts handed out as void* are always converted from Context*.
/// Lives outside the configuration-tagged namespace, so a context made in one
/// translation unit can be released in another.
class Context {
 public:
  /// Releases what the derived context holds.
  virtual ~Context() = default;

 protected:
  /// Only derived contexts are made.
  Context() = default;
  /// Copied only as part of a derived context.
  Context(const Context&) = default;
  /// Assigned only as part of a derived context.
  /// \return *this.
  Context& operator=(const Context&) = default;
};

}  // namespace synetk

#endif  // SYNETK_CONTEXT_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_CONTEXT_H_
#define SYNETK_CONTEXT_H_

namespace synetk {

// Common base of every synetk layer context (GatherElements, ...). It has a
// virtual destructor, so that one release function (synetk::simd::SimdRelease)
// can delete any context given as void*: contexts handed out as void* are
// always converted from Context*. Lives outside the configuration-tagged
// namespace, so a context made in one translation unit can be released in
// another.
class Context {
 public:
  virtual ~Context() = default;

 protected:
  Context() = default;
  Context(const Context&) = default;
  Context& operator=(const Context&) = default;
};

}  // namespace synetk

#endif  // SYNETK_CONTEXT_H_

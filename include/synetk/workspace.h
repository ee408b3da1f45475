// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_WORKSPACE_H_
#define SYNETK_WORKSPACE_H_

#include <cstddef>

namespace synetk {

/// Scratch memory that the caller owns and lends to one layer call: `bytes`
/// bytes at `data`, any alignment. A layer that takes a Workspace has a
/// static WorkspaceBytes(...) with the call's geometry that says how many
/// bytes the call needs on the CPU it runs on; a smaller workspace throws
/// synetk::Error before anything is written. Without one (the default, null
/// data) the call uses a small buffer on its stack and allocates the rest
/// for the call's duration. Threads that run parts of a layer at the same
/// time need a workspace each. The library keeps nothing in it between
/// calls, and its contents on return are unspecified.
struct Workspace {
  void* data = nullptr;  ///< Start of the memory (null: none lent).
  size_t bytes = 0;      ///< Its size in bytes.
};

}  // namespace synetk

#endif  // SYNETK_WORKSPACE_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_SCRATCH_H_
#define SYNETK_DETAIL_SCRATCH_H_

// The scratch memory of one layer call: a bump arena over memory the caller
// lends (synetk::Workspace), the call's stack buffer or a per-call heap
// block. Kernels take all their buffers before they write anything; an
// arena without memory (sizing) or too small hands out nulls and only
// counts, so the same code answers WorkspaceBytes and runs the call.

#include <cstddef>
#include <cstdint>

namespace synetk {
namespace detail {

class ScratchArena {
 public:
  // Every buffer starts on this boundary (a cache line, and the widest
  // vector of the x86 targets).
  static constexpr size_t kAlign = 64;

  // Sizing only: hands out nulls and counts the bytes.
  ScratchArena() = default;
  ScratchArena(void* data, size_t bytes) { Reset(data, bytes); }

  void Reset(void* data, size_t bytes) {
    base_ = static_cast<unsigned char*>(data);
    cap_ = bytes;
    used_ = 0;
    skip_ = base_ == nullptr ? 0 : (kAlign - reinterpret_cast<uintptr_t>(base_) % kAlign) % kAlign;
  }

  // n elements of T, kAlign-aligned, or null once the memory is short.
  template <typename T>
  T* Take(size_t n) {
    const size_t at = (used_ + kAlign - 1) / kAlign * kAlign;
    used_ = at + n * sizeof(T);
    if (!Fits()) return nullptr;
    return reinterpret_cast<T*>(base_ + skip_ + at);
  }

  // Whether the call is only sized: no memory at all.
  bool Sizing() const { return base_ == nullptr; }

  // Whether every buffer taken so far lies in the memory (false while sizing).
  // (Nothing taken fits any memory.)
  bool Fits() const {
    return base_ != nullptr && (used_ == 0 || (skip_ <= cap_ && used_ <= cap_ - skip_));
  }

  // The bytes of memory (any alignment) that hold every buffer taken so far
  // (0 if none was).
  size_t Needed() const { return used_ == 0 ? 0 : used_ + kAlign - 1; }

 private:
  unsigned char* base_ = nullptr;
  size_t cap_ = 0;
  size_t used_ = 0;
  size_t skip_ = 0;  // bytes from base_ to the first kAlign boundary
};

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_DETAIL_SCRATCH_H_

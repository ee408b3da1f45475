// Copyright synetk authors. SPDX-License-Identifier: MIT
// Non-temporal ("streaming") stores for tensors larger than the cache.
#ifndef SYNETK_STREAMING_H_
#define SYNETK_STREAMING_H_

#include <atomic>
#include <cstddef>

#if defined(__has_include)
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif
#endif

namespace synetk {
namespace detail {

// Bytes of the last-level cache, from the C library where it tells
// (glibc: sysconf(_SC_LEVEL3_CACHE_SIZE)), else a typical server's 32 MiB.
inline size_t LastLevelCacheBytes() {
  static const size_t bytes = [] {
    long llc = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return llc > 0 ? static_cast<size_t>(llc) : size_t{32} << 20;
  }();
  return bytes;
}

inline std::atomic<size_t>& StreamingThresholdSetting() {
  static std::atomic<size_t> bytes{0};
  return bytes;
}

}  // namespace detail

/// Sets the size from which the fused layers and DequantizeLinear stream.
///
/// Calls whose tensors (input + output bytes of the whole call, not of a
/// part) exceed this many bytes write their fp32 output with non-temporal
/// stores wherever it is aligned to the vector size: such an output cannot
/// stay cached for the next layer anyway, and bypassing the cache saves
/// reading each output line before writing it. The results are the same bits
/// either way. Default: the last-level cache size the C library reports
/// (32 MiB if it reports none). Thread-safe.
/// \param bytes The threshold; 0 restores the default, SIZE_MAX turns
///   streaming off.
inline void SetStreamingThreshold(size_t bytes) {
  detail::StreamingThresholdSetting().store(bytes, std::memory_order_relaxed);
}

/// The threshold in effect (see SetStreamingThreshold).
/// \return Bytes above which calls stream.
inline size_t StreamingThreshold() {
  const size_t set = detail::StreamingThresholdSetting().load(std::memory_order_relaxed);
  return set != 0 ? set : detail::LastLevelCacheBytes();
}

namespace detail {
inline bool PreferStreamingStores(size_t bytes) { return bytes > StreamingThreshold(); }
}  // namespace detail

}  // namespace synetk

#endif  // SYNETK_STREAMING_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_CPU_H_
#define SYNETK_DETAIL_CPU_H_

// The CPU's vendor, for the few loop orders whose best choice measured
// differently on Intel and AMD cores of the same target (see
// kWidePixelsInOrder in channel_runs-inl.h). Asked once per process.

#include <atomic>

#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h>
#endif

namespace synetk {
namespace detail {

// cpuid leaf 0's vendor string is "GenuineIntel". The instruction is issued
// directly rather than through <cpuid.h>, whose static helpers would make
// this inline function differ between translation units and whose macros
// would reach every user of synetk.
inline bool CpuidSaysIntel() {
  unsigned ebx = 0, ecx = 0, edx = 0;
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  unsigned eax = 0;
  __asm__ __volatile__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0u), "c"(0u));
  (void)eax;
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
  int r[4];
  __cpuid(r, 0);
  ebx = static_cast<unsigned>(r[1]);
  ecx = static_cast<unsigned>(r[2]);
  edx = static_cast<unsigned>(r[3]);
#endif
  return ebx == 0x756E6547u && edx == 0x49656E69u && ecx == 0x6C65746Eu;  // Genu ineI ntel
}

// -1: ask cpuid; 0 or 1: the answer tests force, so that one machine runs
// the loop orders of both vendors.
inline std::atomic<int>& IntelCpuOverride() {
  static std::atomic<int> forced{-1};
  return forced;
}

inline void SetIntelCpuForTest(int intel) { IntelCpuOverride().store(intel, std::memory_order_relaxed); }

inline bool IsIntelCpu() {
  const int forced = IntelCpuOverride().load(std::memory_order_relaxed);
  if (forced >= 0) return forced != 0;
  static const bool intel = CpuidSaysIntel();
  return intel;
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_DETAIL_CPU_H_

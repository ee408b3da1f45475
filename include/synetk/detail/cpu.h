// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_CPU_H_
#define SYNETK_DETAIL_CPU_H_

// The CPU's vendor, for the few loop orders whose best choice measured
// differently on Intel and AMD cores of the same target (see
// kWidePixelsInOrder in channel_runs-inl.h). Asked once per process.

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define SYNETK_HAVE_CPUID 1
#else
#define SYNETK_HAVE_CPUID 0
#endif

namespace synetk {
namespace detail {

// Whether cpuid's vendor string is "GenuineIntel".
inline bool IsIntelCpu() {
#if SYNETK_HAVE_CPUID
  static const bool intel = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
    return ebx == 0x756E6547u && edx == 0x49656E69u && ecx == 0x6C65746Eu;  // Genu ineI ntel
  }();
  return intel;
#else
  return false;
#endif
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_DETAIL_CPU_H_

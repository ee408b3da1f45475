// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_CPU_H_
#define SYNETK_DETAIL_CPU_H_

// The CPU's vendor, for the few loop orders whose best choice measured
// differently on Intel and AMD cores of the same target (see
// kWidePixelsInOrder in channel_runs-inl.h) and for software prefetching
// (softwarePrefetch below), and whether it converts fp32
// to bf16 in one instruction (AVX512_BF16, see F32ToBF16Bits in
// elements-inl.h), which Highway's AVX3 and AVX3_DL targets do not tell.
// Asked once per process.

#include <atomic>

#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h>
#endif

namespace synetk {
namespace detail {

// GCC and clang answer from cpuid through __builtin_cpu_is and
// __builtin_cpu_supports (libgcc or compiler-rt asks once per process and
// counts AVX-512 features only where the OS saves the AVX-512 state); MSVC
// through __cpuidex. Off x86 both answers are false.
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define SYNETK_CPU_BUILTINS 1
#else
#define SYNETK_CPU_BUILTINS 0
#endif

// The vendor string of cpuid leaf 0 is "GenuineIntel".
inline bool CpuidSaysIntel() {
#if SYNETK_CPU_BUILTINS
  __builtin_cpu_init();  // callers may run during static initialization
  return __builtin_cpu_is("intel") != 0;
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
  int v[4];
  __cpuidex(v, 0, 0);
  return v[1] == 0x756E6547 && v[3] == 0x49656E69 && v[2] == 0x6C65746E;  // Genu ineI ntel
#else
  return false;
#endif
}

// AVX512_BF16 (vcvtneps2bf16; cpuid leaf 7, subleaf 1, EAX bit 5). Only
// code compiled for an AVX-512 target consults it, which Highway picks only
// where the OS saves the AVX-512 state.
inline bool CpuidSaysAvx512Bf16() {
#if SYNETK_CPU_BUILTINS
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bf16") != 0;
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
  int v[4];
  __cpuidex(v, 0, 0);
  if (v[0] < 7) return false;
  __cpuidex(v, 7, 1);
  return ((static_cast<unsigned>(v[0]) >> 5) & 1u) != 0;
#else
  return false;
#endif
}

// Whether the AVX-512 code may round fp32 to bf16 with vcvtneps2bf16. A
// plain variable read before each conversion (an atomic or a function-local
// static would cost a guard per vector), set during static initialization:
// a conversion that runs before then reads false and takes the integer
// path, which gives the same bits.
inline bool bf16ConvertInstruction = CpuidSaysAvx512Bf16();

// Tests turn the instruction off (and back on where the CPU has it), so that
// one machine runs both conversions. Not for use while kernels run.
inline void SetBF16ConvertForTest(bool allow) {
  bf16ConvertInstruction = allow && CpuidSaysAvx512Bf16();
}

// Whether streaming kernels prefetch ahead of their reads (PrefetchAhead in
// elements-inl.h, pooling's rows): on Intel CPUs only. Intel's hardware
// prefetchers leave L3 latency uncovered on these streams; AMD's cover them,
// and the prefetch instructions only cost there. bench:
// BM_QuantQuantize<float, uint8_t>/C:64/HW:3136/nhwc:0,
// BM_Fused<float>/type:4/C:256/HW:12544/nhwc:0.
// A plain variable, read where a prefetch would go (set during static
// initialization; a kernel that runs before then does not prefetch).
inline bool softwarePrefetch = CpuidSaysIntel();

// Calls that move fewer bytes (read and written by the whole call) do not
// prefetch: their tensors come from L1 and L2, where the prefetch
// instructions only cost (a fused NCHW layer of 512 channels of 7x7 runs
// at about half its speed with them). bench:
// BM_Fused<float>/type:0/C:512/HW:49/nhwc:0 and BM_CallOverhead.
inline constexpr size_t kPrefetchMinBytes = size_t{1} << 20;
inline size_t prefetchMinBytes = kPrefetchMinBytes;

// Whether a call that moves `bytes` prefetches ahead of its reads. Decided
// once per call by the front-end, outside the kernels' loops.
inline bool PrefetchCall(size_t bytes) { return softwarePrefetch && bytes >= prefetchMinBytes; }

// Tests force prefetching on (for calls of every size, so that small tensors
// run the prefetching code too) or off (with SetIntelCpuForTest, the other
// vendor's configuration). Not for use while kernels run.
inline void SetSoftwarePrefetchForTest(bool on) {
  softwarePrefetch = on;
  prefetchMinBytes = on ? 0 : kPrefetchMinBytes;
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

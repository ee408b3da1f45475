// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_DETAIL_TARGET_CAPS_H_
#define SYNETK_DETAIL_TARGET_CAPS_H_

// What the Highway target being compiled can do, by name, for the code paths
// that use an instruction set directly. Each capability lists every Highway
// target (1.0.3 through 1.4.0) that has it, so a target that a newer Highway
// adds (AVX3_ZEN4, AVX3_SPR, AVX10_2 on x86) takes the tuned paths of the
// older ones it extends. Targets an older Highway lacks count as 0.
//
// The macros expand to expressions of HWY_TARGET, which foreach_target.h
// redefines for each pass: they are defined once and answer for the target
// being compiled wherever they are used (in #if and in constant expressions).

#include <hwy/highway.h>

#ifdef HWY_AVX3_ZEN4
#define SYNETK_TARGET_IS_AVX3_ZEN4_ (HWY_TARGET == HWY_AVX3_ZEN4)
#else
#define SYNETK_TARGET_IS_AVX3_ZEN4_ 0
#endif
#ifdef HWY_AVX3_SPR
#define SYNETK_TARGET_IS_AVX3_SPR_ (HWY_TARGET == HWY_AVX3_SPR)
#else
#define SYNETK_TARGET_IS_AVX3_SPR_ 0
#endif
// AVX10.2 with 512-bit vectors (Highway 1.4's AVX10_2).
#ifdef HWY_AVX10_2
#define SYNETK_TARGET_IS_AVX10_2_ (HWY_TARGET == HWY_AVX10_2)
#else
#define SYNETK_TARGET_IS_AVX10_2_ 0
#endif
#ifdef HWY_NEON_WITHOUT_AES
#define SYNETK_TARGET_IS_NEON_WITHOUT_AES_ (HWY_TARGET == HWY_NEON_WITHOUT_AES)
#else
#define SYNETK_TARGET_IS_NEON_WITHOUT_AES_ 0
#endif
#ifdef HWY_NEON_BF16
#define SYNETK_TARGET_IS_NEON_BF16_ (HWY_TARGET == HWY_NEON_BF16)
#else
#define SYNETK_TARGET_IS_NEON_BF16_ 0
#endif

// AVX-512 VBMI byte permutes (vpermb, vpermt2b) besides everything of
// SYNETK_HAS_AVX512: Highway's AVX3_DL and the targets above it.
#define SYNETK_HAS_VBMI_PERMUTE                                         \
  (HWY_TARGET == HWY_AVX3_DL || SYNETK_TARGET_IS_AVX3_ZEN4_ ||          \
   SYNETK_TARGET_IS_AVX3_SPR_ || SYNETK_TARGET_IS_AVX10_2_)

// 512-bit vectors of AVX-512 F/BW/DQ/VL (32 vector registers, mask
// registers, the __m512 intrinsics): every AVX-512 target.
#define SYNETK_HAS_AVX512 (HWY_TARGET == HWY_AVX3 || SYNETK_HAS_VBMI_PERMUTE)

// AVX512_BF16 (vcvtneps2bf16) on every CPU the target runs on. On the other
// AVX-512 targets the CPU may still have it: detail::bf16ConvertInstruction.
#define SYNETK_HAS_AVX512_BF16_CONVERT \
  (SYNETK_TARGET_IS_AVX3_ZEN4_ || SYNETK_TARGET_IS_AVX3_SPR_ || SYNETK_TARGET_IS_AVX10_2_)

// Highway's AVX2 target: 256-bit vectors (the __m256 intrinsics), FMA, F16C.
#define SYNETK_IS_X86_AVX2 (HWY_TARGET == HWY_AVX2)

// AVX2 or any AVX-512 target: the __m256 intrinsics are available.
#define SYNETK_HAS_AVX2 (SYNETK_IS_X86_AVX2 || SYNETK_HAS_AVX512)

// Any x86 target with vector registers (not SCALAR or EMU128): SSE2 and
// above, the __m128 intrinsics.
#define SYNETK_IS_X86_SIMD \
  (HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128)

// x86's saturating packs per 128-bit block (packssdw, packsswb, packuswb):
// every x86 target with vectors.
#define SYNETK_HAS_BLOCK_PACKS SYNETK_IS_X86_SIMD

// Vectors of more than one lane, with the operations Highway's one-lane
// SCALAR target lacks (Combine, UpperHalf, interleaves, block shuffles):
// every target but SCALAR.
#define SYNETK_HAS_MULTI_LANE (HWY_TARGET != HWY_SCALAR)

// A store of a vector's first lanes in one instruction that costs about a
// whole store: AVX-512's mask registers, SVE's and RVV's predicates. The
// other targets emulate it (SSE4, NEON: a blend or lane by lane) or, on AVX2,
// use vmaskmovps, which AMD CPUs run far slower than a store; there a row
// that is not a whole number of vectors ends with a whole vector overlapping
// the one before it instead (detail::kOverlapRowTails).
#define SYNETK_HAS_CHEAP_PARTIAL_STORE                                             \
  (SYNETK_HAS_AVX512 || HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 ||         \
   HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128 || HWY_TARGET == HWY_RVV)

// f32 -> f16 demotion rounds to nearest even in hardware (x86 F16C, Arm
// FCVT); Highway 1.0.3 emulates it on the other targets by truncation.
#define SYNETK_HAS_HW_F16_RNE                                                         \
  (SYNETK_HAS_AVX2 || HWY_TARGET == HWY_NEON || SYNETK_TARGET_IS_NEON_WITHOUT_AES_ || \
   SYNETK_TARGET_IS_NEON_BF16_ || HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 ||  \
   HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128)

#endif  // SYNETK_DETAIL_TARGET_CAPS_H_

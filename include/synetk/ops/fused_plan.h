// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused type 9's planner: which path serves an NHWC call (NCHW has one path,
// Fused9Nchw). Plain C++ (no SIMD), so that the choice is in one place and a
// test can pin shape -> path for any target without running it. The target
// comes in as Fused9Caps (fused-inl.h's Fused9CapsOf fills them per target);
// the paths are in fused-inl.h.
#ifndef SYNETK_OPS_FUSED_PLAN_H_
#define SYNETK_OPS_FUSED_PLAN_H_

#include <cstddef>
#include <cstdint>

namespace synetk {
namespace detail {

// Types 4 and 9 in NHWC work on small pixels in blocks of about 16 KiB of
// output, in L1 with their inputs: each run of channels loads its parameters
// once for all the block's pixels; pixel by pixel, the parameter loads and
// loop overhead are the limit on small C, and 1-4 KiB blocks amortise them
// less. Pixels of 1 KiB or more are done one at a time, front to back: in
// blocks, their strided runs lose the hardware prefetcher on tensors beyond
// the cache. bench: BM_Fused<float>/type:9/C:24/HW:5625/nhwc:1 and
// BM_Fused<float>/type:9/C:256/HW:12544/nhwc:1.
inline constexpr size_t kPixelBlockBytes = 16384;
inline constexpr size_t kLargePixelBytes = 1024;

// Output pixels per block for pixels of outChannels elements of elemBytes
// (1: one pixel at a time).
inline size_t PixelBlockOf(size_t outChannels, size_t elemBytes) {
  const size_t bytes = outChannels * elemBytes;
  return bytes >= kLargePixelBytes ? 1 : kPixelBlockBytes / bytes;
}

enum class Fused9Path : uint8_t {
  kInRegisters,  // each input 1 to 4 vectors of channels: parameters in registers
  kPixelGroups,  // whole vectors of channels, more of them, from the cache
  kPixels,       // pixels of kLargePixelBytes or more, one at a time
  kBlocks,       // smaller pixels, in blocks of kPixelBlockBytes of output
};

// What the planner needs to know of the target and the element type.
struct Fused9Caps {
  size_t lanes = 1;      // fp32 lanes of a full vector
  size_t elemBytes = 4;  // the element type
  bool scalar = false;   // HWY_SCALAR: one lane, no in-register or group paths
  bool groups = false;   // pixel groups pay: no AVX-512 run groups, no bf16 pairs
  bool intel = false;    // an Intel CPU: large pixels in order (see PlanFused9Nhwc)
};

// Beyond the cache, fp32 vectors of at most a 64-byte cache line go one
// pixel at a time wherever an input has more than two vectors of channels:
// the in-register and block orders step through several pixels a vector at
// a time, and each input's stream then runs about half as fast as read
// front to back (AMD Zen 5 with AVX2 and Intel with AVX-512: fp32 64 + 64
// channels, 200704 pixels; bf16 shows no such difference). bench:
// BM_FusedVsSimd/type:9/C:128/HW:200704/nhwc:1.
inline constexpr size_t kCacheLineBytes = 64;

// The path for an NHWC call of channels0 = C0 and channels1 = C1 (cached:
// its tensors are taken to come from the cache, kCachedFusedBytes).
// - In registers wherever both inputs fit in 4 vectors of channels.
// - Pixel groups from the cache where both inputs are whole vectors, on
//   targets without AVX-512's run groups (AVX-512 runs these shapes at
//   memcpy's speed in blocks, and tensors beyond the cache run faster one
//   pixel at a time than as four interleaved pixel streams. bench:
//   BM_Fused<float>/type:9/C:256/HW:784/nhwc:1 on AVX2 and
//   BM_Fused<float>/type:9/C:256/HW:12544/nhwc:1). Not for pixels of
//   kLargePixelBytes or more on Intel CPUs, which write four streams of
//   such pixels slower than one (bench:
//   BM_FusedVsSimd/type:9/C:256/HW:784/nhwc:1 on AVX2), while smaller
//   pixels still gain there (.../C:64/HW:3136/nhwc:1).
// - One pixel at a time beyond the cache for fp32 vectors of at most a line
//   (kCacheLineBytes) with more than two vectors in an input.
// - Otherwise one pixel at a time (large pixels) or blocks.
inline Fused9Path PlanFused9Nhwc(size_t C0, size_t C1, bool cached, const Fused9Caps& c) {
  const size_t N = c.lanes;
  if (!cached && !c.scalar && c.elemBytes == 4 && N * c.elemBytes <= kCacheLineBytes &&
      (C0 > 2 * N || C1 > 2 * N)) {
    return Fused9Path::kPixels;
  }
  if (!c.scalar) {
    if ((C0 + N - 1) / N <= 4 && (C1 + N - 1) / N <= 4) return Fused9Path::kInRegisters;
    const bool largeOnIntel = c.intel && (C0 + C1) * c.elemBytes >= kLargePixelBytes;
    if (c.groups && !largeOnIntel && cached && C0 % N == 0 && C1 % N == 0) {
      return Fused9Path::kPixelGroups;
    }
  }
  return PixelBlockOf(C0 + C1, c.elemBytes) == 1 ? Fused9Path::kPixels : Fused9Path::kBlocks;
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_OPS_FUSED_PLAN_H_

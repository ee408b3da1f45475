// Copyright synetk authors. SPDX-License-Identifier: MIT
// QuantizedShuffle's planner: which path serves an NHWC call (NCHW has one
// path, plane pairs of requantized rows). Plain C++ (no SIMD), so that the
// choice is in one place and a test can pin shape -> path for any target
// without running it. The target comes in as ShuffleCaps (quant-inl.h's
// kShuffleCaps); the paths are in quant-inl.h.
#ifndef SYNETK_OPS_QUANT_PLAN_H_
#define SYNETK_OPS_QUANT_PLAN_H_

#include <cstddef>
#include <cstdint>

namespace synetk {
namespace detail {

enum class ShuffleNhwcPath : uint8_t {
  // Byte tables and two-source byte permutes (AVX-512 VBMI), one pass: the
  // requantized bytes stay in registers and one permute per output vector
  // moves them to their places, instead of staging rows and copying runs.
  kPermuteGroups,  // every tensor's pixels at most 64 bytes: groups of pixels per vector
  kPermutePixels,  // wider pixels, one at a time
  // Fixed-point requantization in 32-byte chunks (AVX2), one pass: each chunk
  // reaches its output places by one byte shuffle or unpack and one qword
  // permute.
  kChunks,
  // Every target: each input's pixel requantized into a staging row, then
  // split (type 0) or interleaved (type 1) into the outputs.
  kRows,
};

// What the planner needs to know of the target.
struct ShuffleCaps {
  bool permutes = false;  // the kPermute* paths: byte tables and vpermt2b
  bool chunks = false;    // the kChunks path: 32-byte vectors of fixed point
};

// How the two inputs are requantized (quant-inl.h's RowRequant): both
// through byte tables, or both through verified fixed point.
struct ShuffleRequants {
  bool tables = false;
  bool fixed = false;
};

// Bytes per pixel of the inputs (a, b) and outputs (out0, out1) of a type-0
// or type-1 shuffle of C0 and C1 channels (both even).
struct ShufflePixels {
  size_t inA, inB, out0, out1;
};
inline ShufflePixels ShufflePixelsOf(int type, size_t C0, size_t C1) {
  const size_t Ch = (C0 + C1) / 2;
  return type == 0 ? ShufflePixels{C0, C1, Ch, Ch} : ShufflePixels{Ch, Ch, C0, C1};
}

// The widest pixel of the four tensors, in bytes.
inline size_t ShuffleWidestPixel(const ShufflePixels& p) {
  const size_t in = p.inA > p.inB ? p.inA : p.inB;
  const size_t out = p.out0 > p.out1 ? p.out0 : p.out1;
  return in > out ? in : out;
}

// kChunks' contract: type 0 takes each input's pixel in whole chunks (C0 and
// C1 multiples of 32); type 1 takes chunks of both inputs whose 32 pairs
// land wholly in one output (C0/2 a multiple of 16, (C0 + C1)/2 of 32).
inline bool ShuffleFitsChunks(int type, size_t C0, size_t C1) {
  if (type == 0) return C0 % 32 == 0 && C1 % 32 == 0;
  return ((C0 + C1) / 2) % 32 == 0 && (C0 / 2) % 16 == 0;
}

// The path for an NHWC shuffle of the given type and channels.
// - The permute paths wherever the target has them and both inputs have
//   byte tables (calls of at least quant-inl.h's kTableMinBytes per input).
// - Chunks where the target takes them, both inputs have fixed-point plans
//   and the channels fit (ShuffleFitsChunks).
// - Otherwise rows.
inline ShuffleNhwcPath PlanShuffleNhwc(int type, size_t C0, size_t C1, const ShuffleRequants& r,
                                       const ShuffleCaps& c) {
  if (c.permutes && r.tables) {
    return ShuffleWidestPixel(ShufflePixelsOf(type, C0, C1)) <= 64
               ? ShuffleNhwcPath::kPermuteGroups
               : ShuffleNhwcPath::kPermutePixels;
  }
  if (c.chunks && r.fixed && ShuffleFitsChunks(type, C0, C1)) return ShuffleNhwcPath::kChunks;
  return ShuffleNhwcPath::kRows;
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_OPS_QUANT_PLAN_H_

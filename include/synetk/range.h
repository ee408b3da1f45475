// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_RANGE_H_
#define SYNETK_RANGE_H_

#include <cstddef>
#include <limits>

namespace synetk {

/// A part of a layer's work, for engines that split a layer across threads:
/// [begin, end) along the axis each layer documents (README,
/// "Multi-threading": spatial positions for the fused layers, output channels
/// or rows for pooling, outer items for gather, ...). The parts of a split
/// give results bit-identical to one call, and each part writes only its own
/// outputs. `end` is clamped to the axis; begin > end throws synetk::Error.
/// An empty part does nothing. The default covers everything.
struct Range {
  size_t begin = 0;  ///< First index of the part.
  size_t end = std::numeric_limits<size_t>::max();  ///< One past the last (clamped).

  /// The whole axis.
  /// \return Range{0, SIZE_MAX}.
  static constexpr Range All() { return {}; }
};

}  // namespace synetk

#endif  // SYNETK_RANGE_H_

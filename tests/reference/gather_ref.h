// Copyright synetk authors. SPDX-License-Identifier: MIT
// Scalar reference for GatherElements, written from the seed pseudocode
// (seeds/001) and SEMANTICS.md; shares no code with the kernels.
#ifndef SYNETK_TESTS_REFERENCE_GATHER_REF_H_
#define SYNETK_TESTS_REFERENCE_GATHER_REF_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace synetk_ref {

// for (o = 0; o < outer; ++o)
//   for (c = 0; c < idxCount; ++c)
//     for (i = 0; i < inner; ++i)
//       ic = idx[o, c, i]; if (ic < 0) ic += srcCount; dst[o, c, i] = src[o, ic, i];
// Indices outside [-srcCount, srcCount) are invalid input; the reference
// throws std::out_of_range for them so that a test cannot pass by accident.
template <typename T, typename I>
void GatherElements(const T* src, const I* idx, T* dst, size_t outer, size_t srcCount,
                    size_t inner, size_t idxCount) {
  const int64_t n = static_cast<int64_t>(srcCount);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t c = 0; c < idxCount; ++c) {
      for (size_t i = 0; i < inner; ++i) {
        int64_t ic = static_cast<int64_t>(idx[(o * idxCount + c) * inner + i]);
        if (ic < 0) ic += n;
        if (ic < 0 || ic >= n) throw std::out_of_range("reference: index out of range");
        dst[(o * idxCount + c) * inner + i] = src[(o * srcCount + static_cast<size_t>(ic)) * inner + i];
      }
    }
  }
}

}  // namespace synetk_ref

#endif  // SYNETK_TESTS_REFERENCE_GATHER_REF_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: SimdSynetPoolingAverage, SimdSynetPoolingMax32f,
// SimdSynetPoolingMax16b, SimdSynetPoolingMax8u. Include synetk/simd.h.
#ifndef SYNETK_COMPAT_POOLING_H_
#define SYNETK_COMPAT_POOLING_H_

#include "synetk/compat/types.h"

namespace synetk {
namespace simd {

inline void SimdSynetPoolingAverage(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                    size_t kernelY, size_t kernelX, size_t strideY,
                                    size_t strideX, size_t padY, size_t padX, float* dst,
                                    size_t dstH, size_t dstW, SimdBool excludePad,
                                    SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetPoolingAverage", format, [&](auto f) {
    PoolingAverage<float, decltype(f)>()(src, srcC, srcH, srcW, kernelY, kernelX, strideY,
                                         strideX, padY, padX, dst, dstH, dstW,
                                         excludePad != SimdFalse);
  });
}

inline void SimdSynetPoolingMax32f(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                   size_t kernelC, size_t kernelY, size_t kernelX,
                                   size_t strideC, size_t strideY, size_t strideX,
                                   size_t padC, size_t padY, size_t padX, float* dst,
                                   size_t dstC, size_t dstH, size_t dstW,
                                   SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetPoolingMax32f", format, [&](auto f) {
    PoolingMax<float, decltype(f)>()(src, srcC, srcH, srcW, kernelC, kernelY, kernelX,
                                     strideC, strideY, strideX, padC, padY, padX, dst, dstC,
                                     dstH, dstW);
  });
}

// src and dst hold bfloat16 bit patterns.
inline void SimdSynetPoolingMax16b(const uint16_t* src, size_t srcC, size_t srcH, size_t srcW,
                                   size_t kernelY, size_t kernelX, size_t strideY,
                                   size_t strideX, size_t padY, size_t padX, uint16_t* dst,
                                   size_t dstH, size_t dstW, SimdTensorFormatType format) {
  static_assert(sizeof(hwy::bfloat16_t) == sizeof(uint16_t));
  compat::WithFormat("SimdSynetPoolingMax16b", format, [&](auto f) {
    PoolingMax<hwy::bfloat16_t, decltype(f)>()(
        reinterpret_cast<const hwy::bfloat16_t*>(src), srcC, srcH, srcW, kernelY, kernelX,
        strideY, strideX, padY, padX, reinterpret_cast<hwy::bfloat16_t*>(dst), dstH, dstW);
  });
}

inline void SimdSynetPoolingMax8u(const uint8_t* src, size_t srcC, size_t srcH, size_t srcW,
                                  size_t kernelY, size_t kernelX, size_t strideY,
                                  size_t strideX, size_t padY, size_t padX, uint8_t* dst,
                                  size_t dstH, size_t dstW, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetPoolingMax8u", format, [&](auto f) {
    PoolingMax<uint8_t, decltype(f)>()(src, srcC, srcH, srcW, kernelY, kernelX, strideY,
                                       strideX, padY, padX, dst, dstH, dstW);
  });
}

}  // namespace simd
}  // namespace synetk

#endif  // SYNETK_COMPAT_POOLING_H_

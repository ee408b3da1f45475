// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: the quantization functions (SimdSynetDequantizeLinear,
// SimdSynetQuantizeLinear, SimdSynetQuantizedConcatLayerForward,
// SimdSynetQuantizedScaleLayerForward, SimdSynetQuantizedShuffleLayerForward)
// with the original parameter lists. Include synetk/simd.h.
#ifndef SYNETK_COMPAT_QUANT_H_
#define SYNETK_COMPAT_QUANT_H_

#include "synetk/compat/types.h"

namespace synetk {
namespace simd {

inline void SimdSynetDequantizeLinear(const uint8_t* src, size_t size, int32_t bias,
                                      const float* norm, float* dst) {
  DequantizeLinear<uint8_t, float>()(src, size, bias, norm, dst);
}

inline void SimdSynetQuantizeLinear(const float* src, size_t size, const float* norm,
                                    int32_t zero, uint8_t* dst) {
  QuantizeLinear<float, uint8_t>()(src, size, norm, zero, dst);
}

inline void SimdSynetQuantizedConcatLayerForward(size_t count, const uint8_t** src, size_t num,
                                                 const size_t* size, const int32_t* bias,
                                                 const float* norm, const float* scale,
                                                 int32_t zero, uint8_t* dst) {
  QuantizedConcat()(count, src, num, size, bias, norm, scale, zero, dst);
}

inline void SimdSynetQuantizedScaleLayerForward(const uint8_t* src, const float* srcScale,
                                                int srcZero, size_t channels, size_t spatial,
                                                const float* scale, const float* bias,
                                                uint8_t* dst, const float* dstScale,
                                                int dstZero, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetQuantizedScaleLayerForward", format, [&](auto f) {
    QuantizedScale<decltype(f)>()(src, srcScale, srcZero, channels, spatial, scale, bias, dst,
                                  dstScale, dstZero);
  });
}

inline void SimdSynetQuantizedShuffleLayerForward(const uint8_t* src0, int bias0,
                                                  const float* norm0, size_t srcC0,
                                                  const uint8_t* src1, int bias1,
                                                  const float* norm1, size_t srcC1,
                                                  size_t spatial, uint8_t* dst0, uint8_t* dst1,
                                                  const float* scale, int zero,
                                                  SimdTensorFormatType format, int type) {
  compat::WithFormat("SimdSynetQuantizedShuffleLayerForward", format, [&](auto f) {
    QuantizedShuffle<decltype(f)>()(src0, bias0, norm0, srcC0, src1, bias1, norm1, srcC1,
                                    spatial, dst0, dst1, scale, zero, type);
  });
}

}  // namespace simd
}  // namespace synetk

#endif  // SYNETK_COMPAT_QUANT_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: SimdSynetFusedLayerForward0..9. Include synetk/simd.h.
#ifndef SYNETK_COMPAT_FUSED_H_
#define SYNETK_COMPAT_FUSED_H_

#include "synetk/compat/types.h"

namespace synetk {
namespace simd {


inline void SimdSynetFusedLayerForward0(const float* src, const float* bias,
                                        const float* scale, size_t channels,
                                        size_t spatial, float* dst,
                                        SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward0", format, [&](auto f) {
    FusedLayer0<float, decltype(f)>()(src, bias, scale, channels, spatial, dst);
  });
}

inline void SimdSynetFusedLayerForward1(const float* src, const float* bias0,
                                        const float* scale1, const float* bias1,
                                        size_t channels, size_t spatial,
                                        float* dst, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward1", format, [&](auto f) {
    FusedLayer1<float, decltype(f)>()(src, bias0, scale1, bias1, channels, spatial, dst);
  });
}

inline void SimdSynetFusedLayerForward2(const float* src, const float* scale,
                                        const float* bias, size_t channels,
                                        size_t spatial, const float* slope,
                                        float* dst, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward2", format, [&](auto f) {
    FusedLayer2<float, decltype(f)>()(src, scale, bias, channels, spatial, slope, dst);
  });
}

inline void SimdSynetFusedLayerForward3(const float* src, const float* scale,
                                        const float* bias, size_t channels,
                                        size_t spatial, float* dst,
                                        SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward3", format, [&](auto f) {
    FusedLayer3<float, decltype(f)>()(src, scale, bias, channels, spatial, dst);
  });
}

inline void SimdSynetFusedLayerForward4(const float* src, const float* bias0,
                                        const float* scale1, const float* bias1,
                                        size_t channels, size_t spatial,
                                        float* dst, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward4", format, [&](auto f) {
    FusedLayer4<float, decltype(f)>()(src, bias0, scale1, bias1, channels, spatial, dst);
  });
}

inline void SimdSynetFusedLayerForward8(const float* src0, const float* src1,
                                        const float* src2, size_t channels,
                                        size_t spatial, float* dst,
                                        SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward8", format, [&](auto f) {
    FusedLayer8<float, decltype(f)>()(src0, src1, src2, channels, spatial, dst);
  });
}

inline void SimdSynetFusedLayerForward9(const float* src0, const float* src1,
                                        const float* scale, const float* bias,
                                        size_t channels0, size_t channels1,
                                        size_t spatial, float* dst0, float* dst1,
                                        SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward9", format, [&](auto f) {
    FusedLayer9<float, decltype(f)>()(src0, src1, scale, bias, channels0,
                                      channels1, spatial, dst0, dst1);
  });
}

}  // namespace simd
}  // namespace synetk

#endif  // SYNETK_COMPAT_FUSED_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: SimdSynetFusedLayerForward0..9. Include synetk/simd.h.
#ifndef SYNETK_COMPAT_FUSED_H_
#define SYNETK_COMPAT_FUSED_H_

#include "synetk/compat/types.h"

namespace synetk {
namespace simd {

/// @file
/// Each function computes what the Simd Library's implementation computes
/// with the same positional arguments (c is the channel of an element).
/// Every function throws synetk::Error on a null pointer, a zero or
/// overflowing size, an unknown format or overlapping buffers.

/// Fused type 0: x = src + bias[c]; dst = (x - |x|)*scale[c] + max(0, x).
/// @param src input, channels*spatial values
/// @param bias added first, `channels` values
/// @param scale multiplies (x - |x|), `channels` values
/// @param channels number of channels
/// @param spatial positions per channel
/// @param dst output, channels*spatial values (may equal src)
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
inline void SimdSynetFusedLayerForward0(const float* src, const float* bias,
                                        const float* scale, size_t channels,
                                        size_t spatial, float* dst,
                                        SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward0", format, [&](auto f) {
    FusedLayer0<float, decltype(f)>()(src, bias, scale, channels, spatial, dst);
  });
}

/// Fused type 1: x = src + bias0[c]; dst = max(0, -x)*scale1[c] + bias1[c] + max(0, x).
/// @param src input, channels*spatial values
/// @param bias0 added first, `channels` values
/// @param scale1 multiplies max(0, -x), `channels` values
/// @param bias1 added to the result, `channels` values
/// @param channels number of channels
/// @param spatial positions per channel
/// @param dst output (may equal src)
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
inline void SimdSynetFusedLayerForward1(const float* src, const float* bias0,
                                        const float* scale1, const float* bias1,
                                        size_t channels, size_t spatial,
                                        float* dst, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward1", format, [&](auto f) {
    FusedLayer1<float, decltype(f)>()(src, bias0, scale1, bias1, channels, spatial, dst);
  });
}

/// Fused type 2: x = src*scale[c] + bias[c]; dst = max(0, x) + min(0, x)*slope[0].
/// @param src input, channels*spatial values
/// @param scale multiplies src, `channels` values
/// @param bias added after the scale, `channels` values
/// @param channels number of channels
/// @param spatial positions per channel
/// @param slope slope[0] multiplies negative x (one value)
/// @param dst output (may equal src)
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
inline void SimdSynetFusedLayerForward2(const float* src, const float* scale,
                                        const float* bias, size_t channels,
                                        size_t spatial, const float* slope,
                                        float* dst, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward2", format, [&](auto f) {
    FusedLayer2<float, decltype(f)>()(src, scale, bias, channels, spatial, slope, dst);
  });
}

/// Fused type 3 (a per-channel PReLU after a bias):
/// x = src + bias[c]; dst = max(0, x) + min(0, x)*scale[c].
/// The Simd Library's header calls the second parameter `scale` and the third
/// `bias`, but its implementation adds the second and multiplies negatives
/// by the third, and the engine Synet calls it as (src, bias, scale, ...):
/// this function does the same, so a PReLU is (src, zeros, slopes, ...).
/// @param src input, channels*spatial values
/// @param bias added first, `channels` values
/// @param scale multiplies negative x, `channels` values (the PReLU slopes)
/// @param channels number of channels
/// @param spatial positions per channel
/// @param dst output (may equal src)
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
inline void SimdSynetFusedLayerForward3(const float* src, const float* bias,
                                        const float* scale, size_t channels,
                                        size_t spatial, float* dst,
                                        SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward3", format, [&](auto f) {
    FusedLayer3<float, decltype(f)>()(src, bias, scale, channels, spatial, dst);
  });
}

/// Fused type 4: dst has 2*channels channels: max(0, x) with x = src + bias0[c],
/// then max(0, x*scale1[0] + bias1[0]). NCHW: the second half starts at
/// channels*spatial; NHWC: each position holds its first-half values, then
/// its second-half values.
/// @param src input, channels*spatial values
/// @param bias0 added first, `channels` values
/// @param scale1 scale1[0] multiplies x for the second half (one value)
/// @param bias1 bias1[0] added for the second half (one value)
/// @param channels number of input channels
/// @param spatial positions per channel
/// @param dst output, 2*channels*spatial values; must not overlap src
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
inline void SimdSynetFusedLayerForward4(const float* src, const float* bias0,
                                        const float* scale1, const float* bias1,
                                        size_t channels, size_t spatial,
                                        float* dst, SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward4", format, [&](auto f) {
    FusedLayer4<float, decltype(f)>()(src, bias0, scale1, bias1, channels, spatial, dst);
  });
}

/// Fused type 8: dst = src0 + src1*src2[c].
/// @param src0 added, channels*spatial values
/// @param src1 multiplied, channels*spatial values
/// @param src2 per-channel factor, `channels` values
/// @param channels number of channels
/// @param spatial positions per channel
/// @param dst output (may equal src0 or src1)
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
inline void SimdSynetFusedLayerForward8(const float* src0, const float* src1,
                                        const float* src2, size_t channels,
                                        size_t spatial, float* dst,
                                        SimdTensorFormatType format) {
  compat::WithFormat("SimdSynetFusedLayerForward8", format, [&](auto f) {
    FusedLayer8<float, decltype(f)>()(src0, src1, src2, channels, spatial, dst);
  });
}

/// Fused type 9: the channel concatenation of src0 (channels0) and src1
/// (channels1) into dst0, each value max(0, v*scale[c] + bias[c]) with c the
/// output channel; dst1, when not null, receives the plain concatenation.
/// @param src0 first input, channels0*spatial values
/// @param src1 second input, channels1*spatial values
/// @param scale multiplies, channels0 + channels1 values
/// @param bias added after the scale, channels0 + channels1 values
/// @param channels0 channels of src0
/// @param channels1 channels of src1
/// @param spatial positions per channel
/// @param dst0 output, (channels0 + channels1)*spatial values; must not
///   overlap the inputs
/// @param dst1 optional plain concatenation (null: not written); must not
///   overlap the inputs or dst0
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
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

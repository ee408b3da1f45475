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

/// dst[i] = float(src[i] + bias) * norm[0].
/// @param src `size` bytes
/// @param size number of elements
/// @param bias added to each byte (the negated zero point)
/// @param norm norm[0] is the scale (one value)
/// @param dst `size` floats
/// @throws synetk::Error on a null pointer, a zero size or overlapping buffers
inline void SimdSynetDequantizeLinear(const uint8_t* src, size_t size, int32_t bias,
                                      const float* norm, float* dst) {
  DequantizeLinear<uint8_t, float>()(src, size, bias, norm, dst);
}

/// dst[i] = clamp(Round(src[i] * norm[0]) + zero, 0, 255), Round half to
/// even. Values beyond the int32 range and infinities clamp (the original
/// wraps them); NaN gives clamp(zero, 0, 255).
/// @param src `size` floats
/// @param size number of elements
/// @param norm norm[0] multiplies each value (the reciprocal of the scale)
/// @param zero the zero point
/// @param dst `size` bytes
/// @throws synetk::Error on a null pointer, a zero size or overlapping buffers
inline void SimdSynetQuantizeLinear(const float* src, size_t size, const float* norm,
                                    int32_t zero, uint8_t* dst) {
  QuantizeLinear<float, uint8_t>()(src, size, norm, zero, dst);
}

/// For each of `num` outer blocks and each input s in order: size[s] bytes of
/// input s's block, each clamp(Round(float(x + bias[s]) * norm[s] * scale[0])
/// + zero, 0, 255) (multiplications left to right).
/// @param count number of inputs
/// @param src `count` input pointers, input s holding num*size[s] bytes
/// @param num number of outer blocks
/// @param size `count` block sizes
/// @param bias `count` input biases (the negated zero points)
/// @param norm `count` input scales
/// @param scale scale[0] is the reciprocal of the output scale
/// @param zero the output zero point
/// @param dst num*(size[0] + ... + size[count-1]) bytes
/// @throws synetk::Error on a null pointer, a zero size or overlapping buffers
inline void SimdSynetQuantizedConcatLayerForward(size_t count, const uint8_t** src, size_t num,
                                                 const size_t* size, const int32_t* bias,
                                                 const float* norm, const float* scale,
                                                 int32_t zero, uint8_t* dst) {
  QuantizedConcat()(count, src, num, size, bias, norm, scale, zero, dst);
}

/// Per channel c: v = float(x - srcZero) * srcScale[0]; v = v*scale[c] +
/// bias[c] as one fused multiply-add (as the original; v*scale[c] when bias is
/// null); dst = clamp(Round(v * (1/dstScale[0])) + dstZero, 0, 255), the same
/// bits on every target.
/// @param src channels*spatial bytes
/// @param srcScale srcScale[0] is the input scale
/// @param srcZero the input zero point
/// @param channels number of channels
/// @param spatial positions per channel
/// @param scale `channels` factors
/// @param bias `channels` addends, or null
/// @param dst channels*spatial bytes (may equal src)
/// @param dstScale dstScale[0] is the output scale
/// @param dstZero the output zero point
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @throws synetk::Error on a null pointer, a zero size, a zero or
///   non-finite scale, an unknown format or overlapping buffers
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

/// Channel shuffle with requantization: every value becomes
/// clamp(Round(float(x + bias) * norm[0] * scale[0]) + zero, 0, 255) with
/// its own input's bias and norm. Type 0 splits the channel concatenation
/// X of src0 (srcC0 channels) and src1 (srcC1) into dst0 = X0, X2, ... and
/// dst1 = X1, X3, ... ((srcC0 + srcC1)/2 channels each). Type 1 interleaves
/// src0 and src1 ((srcC0 + srcC1)/2 channels each) into Y = src0[0],
/// src1[0], src0[1], ...: dst0 takes Y's first srcC0 channels, dst1 the rest.
/// @param src0 first input
/// @param bias0 added to src0's bytes
/// @param norm0 norm0[0] is src0's scale
/// @param srcC0 see above (even)
/// @param src1 second input
/// @param bias1 added to src1's bytes
/// @param norm1 norm1[0] is src1's scale
/// @param srcC1 see above (even)
/// @param spatial positions per channel
/// @param dst0 first output
/// @param dst1 second output
/// @param scale scale[0] is the reciprocal of the output scale
/// @param zero the output zero point
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @param type 0 (split) or 1 (interleave)
/// @throws synetk::Error on a null pointer, odd or zero channel counts, an
///   unknown type or format, or overlapping buffers
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

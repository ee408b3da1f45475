// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: SimdSynetPoolingAverage, SimdSynetPoolingMax32f,
// SimdSynetPoolingMax16b, SimdSynetPoolingMax8u. Include synetk/simd.h.
#ifndef SYNETK_COMPAT_POOLING_H_
#define SYNETK_COMPAT_POOLING_H_

#include "synetk/compat/types.h"

namespace synetk {
namespace simd {

/// Average pooling (synetk::PoolingAverage).
/// For output (c, dy, dx) the window starts at (dy*strideY - padY,
/// dx*strideX - padX), spans kernelY x kernelX input positions and is clipped
/// to the input; dstH and dstW are the caller's (floor or ceil mode alike).
///
///     dst[c, dy, dx] = (sum of src[c, y, x] over the clipped window) / d
///     d = excludePad ? the clipped window's area : kernelY*kernelX
///
/// The sum accumulates in fp32 and is multiplied by 1/d (rounded to fp32).
/// @param src input, srcC x srcH x srcW values in `format`
/// @param srcC channels
/// @param srcH input rows
/// @param srcW input columns
/// @param kernelY window rows
/// @param kernelX window columns
/// @param strideY rows between windows
/// @param strideX columns between windows
/// @param padY rows of padding before the first row (< kernelY)
/// @param padX columns of padding before the first column (< kernelX)
/// @param dst output, srcC x dstH x dstW values in `format`; must not overlap
///   src
/// @param dstH output rows: (dstH-1)*strideY - padY < srcH
/// @param dstW output columns: (dstW-1)*strideX - padX < srcW
/// @param excludePad SimdTrue: divide by the clipped area; SimdFalse: by
///   kernelY*kernelX
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @throws synetk::Error on a null src or dst, a zero size, kernel or
///   stride, a padding >= its kernel, an output size whose last window
///   holds no input element, sizes that overflow, dst overlapping src, or
///   an unknown format
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

/// Max pooling of fp32 values, 2D or 3D (synetk::PoolingMax).
/// For output (c, dy, dx) the window starts at (dy*strideY - padY,
/// dx*strideX - padX), spans kernelY x kernelX input positions and is clipped
/// to the input; dstH and dstW are the caller's (floor or ceil mode alike).
///
///     dst[c, dy, dx] = max of src[c, y, x] over the clipped window
///
/// With kernelC == 1, strideC == 1 and padC == 0 this is 2D pooling and
/// dstC must equal srcC; otherwise the channel axis is pooled too, with the
/// same rule (the window starts at dc*strideC - padC, spans kernelC channels,
/// is clipped) and dstC output channels. Each output is one of the inputs,
/// bit for bit.
/// @param src input, srcC x srcH x srcW values in `format`
/// @param srcC channels
/// @param srcH input rows
/// @param srcW input columns
/// @param kernelC window channels
/// @param kernelY window rows
/// @param kernelX window columns
/// @param strideC channels between windows
/// @param strideY rows between windows
/// @param strideX columns between windows
/// @param padC channels of padding before the first (< kernelC)
/// @param padY rows of padding before the first row (< kernelY)
/// @param padX columns of padding before the first column (< kernelX)
/// @param dst output, dstC x dstH x dstW values in `format`; must not overlap
///   src
/// @param dstC output channels: (dstC-1)*strideC - padC < srcC
/// @param dstH output rows: (dstH-1)*strideY - padY < srcH
/// @param dstW output columns: (dstW-1)*strideX - padX < srcW
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @throws synetk::Error on a null src or dst, a zero size, kernel or
///   stride, a padding >= its kernel, an output size whose last window
///   holds no input element, sizes that overflow, dst overlapping src, dstC != srcC in 2D mode, or
///   an unknown format
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

/// 2D max pooling of bfloat16 values (synetk::PoolingMax of
/// hwy::bfloat16_t): src and dst hold bfloat16 bit patterns, compared as the
/// numbers they encode (negative values included).
/// For output (c, dy, dx) the window starts at (dy*strideY - padY,
/// dx*strideX - padX), spans kernelY x kernelX input positions and is clipped
/// to the input; dstH and dstW are the caller's (floor or ceil mode alike).
///
///     dst[c, dy, dx] = max of src[c, y, x] over the clipped window
///
/// Each output is one of the inputs, bit for bit.
/// @param src input, srcC x srcH x srcW values in `format`
/// @param srcC channels
/// @param srcH input rows
/// @param srcW input columns
/// @param kernelY window rows
/// @param kernelX window columns
/// @param strideY rows between windows
/// @param strideX columns between windows
/// @param padY rows of padding before the first row (< kernelY)
/// @param padX columns of padding before the first column (< kernelX)
/// @param dst output, srcC x dstH x dstW values in `format`; must not overlap
///   src
/// @param dstH output rows: (dstH-1)*strideY - padY < srcH
/// @param dstW output columns: (dstW-1)*strideX - padX < srcW
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @throws synetk::Error on a null src or dst, a zero size, kernel or
///   stride, a padding >= its kernel, an output size whose last window
///   holds no input element, sizes that overflow, dst overlapping src, or
///   an unknown format
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

/// 2D max pooling of uint8 values (synetk::PoolingMax of uint8_t).
/// For output (c, dy, dx) the window starts at (dy*strideY - padY,
/// dx*strideX - padX), spans kernelY x kernelX input positions and is clipped
/// to the input; dstH and dstW are the caller's (floor or ceil mode alike).
///
///     dst[c, dy, dx] = max of src[c, y, x] over the clipped window
///
/// @param src input, srcC x srcH x srcW values in `format`
/// @param srcC channels
/// @param srcH input rows
/// @param srcW input columns
/// @param kernelY window rows
/// @param kernelX window columns
/// @param strideY rows between windows
/// @param strideX columns between windows
/// @param padY rows of padding before the first row (< kernelY)
/// @param padX columns of padding before the first column (< kernelX)
/// @param dst output, srcC x dstH x dstW values in `format`; must not overlap
///   src
/// @param dstH output rows: (dstH-1)*strideY - padY < srcH
/// @param dstW output columns: (dstW-1)*strideX - padX < srcW
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @throws synetk::Error on a null src or dst, a zero size, kernel or
///   stride, a padding >= its kernel, an output size whose last window
///   holds no input element, sizes that overflow, dst overlapping src, or
///   an unknown format
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

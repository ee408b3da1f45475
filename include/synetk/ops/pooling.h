// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling layers (average; max 2D and 3D): public functors. Included by
// synetk.h after every target's kernels exist (HWY_ONCE); do not include
// directly.
#ifndef SYNETK_OPS_POOLING_H_
#define SYNETK_OPS_POOLING_H_

#include <algorithm>
#include <string>

#include "synetk/detail/check.h"
#include "synetk/detail/dispatch.h"
#include "synetk/element.h"
#include "synetk/format.h"
#include "synetk/range.h"

SYNETK_NAMESPACE_BEGIN
namespace impl {

// Padding beyond which the row buffers would be out of proportion to the
// tensors; such (legal but odd) geometry takes the direct loop.
inline constexpr size_t kPoolMaxBufferedPad = 4096;

// One axis of the pooling geometry. Rejects a zero kernel, stride or size,
// padding >= kernel, and output sizes for which the last window would lie
// wholly past the input ((dst-1)*stride - pad >= src). The first window is
// never empty because pad < kernel.
struct PoolAxis {
  const char* kernelName;
  size_t kernel;
  const char* strideName;
  size_t stride;
  const char* padName;
  size_t pad;
  const char* srcName;
  size_t src;
  const char* dstName;
  size_t dst;
};

inline void CheckPoolAxis(const char* layer, const PoolAxis& ax) {
  CheckPositive(layer, ax.srcName, ax.src);
  CheckPositive(layer, ax.dstName, ax.dst);
  CheckPositive(layer, ax.kernelName, ax.kernel);
  CheckPositive(layer, ax.strideName, ax.stride);
  if (ax.pad >= ax.kernel) {
    const std::string e = std::string("< ") + ax.kernelName + " (" +
                          std::to_string(ax.kernel) + "): padding must be smaller than the kernel";
    Fail(layer, ax.padName, ax.pad, e.c_str());
  }
  // 128 bits: neither (dst - 1) * stride nor src + pad can overflow (a GCC and
  // Clang extension; __extension__ keeps -Wpedantic quiet about it).
  __extension__ typedef unsigned __int128 Wide;
  const Wide lastStart = static_cast<Wide>(ax.dst - 1) * ax.stride;
  if (lastStart >= static_cast<Wide>(ax.src) + ax.pad) {
    const std::string e = std::string("a size at which every window holds an input element: (") +
                          ax.dstName + "-1)*" + ax.strideName + " - " + ax.padName + " < " +
                          ax.srcName;
    Fail(layer, ax.dstName, ax.dst, e.c_str());
  }
}

// Same windows, smaller numbers: a one-output axis does not use its stride,
// and a kernel reaching past pad + src clips to the same end.
inline void NormalizePoolAxis(size_t& kernel, size_t& stride, size_t pad, size_t src,
                              size_t dst) {
  if (dst == 1) stride = 1;
  kernel = std::min(kernel, pad + src);
}

template <bool kMax, typename T, class Format>
inline void RunPooling(const char* layer, PoolArgs<T>& a, Range part) {
  static_assert(kIsFormat<Format>, "Format must be synetk::Nchw or synetk::Nhwc");
  static_assert(CheckElementLayout<T>());
  CheckPoolAxis(layer, {"kernelY", a.kY, "strideY", a.sY, "padY", a.pY, "srcH", a.srcH, "dstH", a.dstH});
  CheckPoolAxis(layer, {"kernelX", a.kX, "strideX", a.sX, "padX", a.pX, "srcW", a.srcW, "dstW", a.dstW});
  if (a.pool3d) {
    CheckPoolAxis(layer, {"kernelC", a.kC, "strideC", a.sC, "padC", a.pC, "srcC", a.srcC, "dstC", a.dstC});
  } else {
    CheckPositive(layer, "srcC", a.srcC);
  }
  const size_t srcN = CheckedProduct(layer, "srcC*srcH*srcW", {a.srcC, a.srcH, a.srcW});
  const size_t srcBytes = CheckedBytes(layer, "srcC*srcH*srcW", srcN, sizeof(T));
  const size_t dstN = CheckedProduct(layer, "dstC*dstH*dstW", {a.dstC, a.dstH, a.dstW});
  const size_t dstBytes = CheckedBytes(layer, "dstC*dstH*dstW", dstN, sizeof(T));
  // Row buffers hold a padded input row (with pad and kernel clipped to it).
  CheckedBytes(layer, "srcW*srcC", CheckedProduct(layer, "srcW*srcC", {a.srcW, a.srcC}), 16);
  CheckNotNull(layer, "src", a.src);
  CheckNotNull(layer, "dst", a.dst);
  CheckNoPartialOverlap(layer, "dst", a.dst, dstBytes, "src", a.src, srcBytes, false);
  if (!kMax) {
    a.scale = 1.0f / static_cast<float>(static_cast<double>(a.kY) * static_cast<double>(a.kX));
  }
  NormalizePoolAxis(a.kY, a.sY, a.pY, a.srcH, a.dstH);
  NormalizePoolAxis(a.kX, a.sX, a.pX, a.srcW, a.dstW);
  NormalizePoolAxis(a.kC, a.sC, a.pC, a.srcC, a.dstC);
  a.direct = a.pX > kPoolMaxBufferedPad;
  ClampPart(layer, part, std::is_same_v<Format, Nhwc> ? a.dstH : a.dstC);
  if (part.begin == part.end) return;
  a.begin = part.begin;
  a.end = part.end;
  using Cfg = PoolCfg<kMax, T, Format>;
  SYNETK_DISPATCH(PoolKernel<Cfg>)(a);
}

}  // namespace impl

/// Max pooling, 2D or 3D.
///
/// For output (c, dy, dx), the window starts at (dy*strideY - padY,
/// dx*strideX - padX), spans kernelY x kernelX input positions and is clipped
/// to the input:
///
///     dst[c, dy, dx] = max of src[c, y, x] over the clipped window
///
/// The 3D overload pools across channels too, with the same window rule on
/// (kernelC, strideC, padC) and dstC output channels. Elements compare as the
/// numbers they encode (bf16/f16 through an order-preserving key), so each
/// output is one of the inputs, bit for bit.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t, uint8_t or int8_t (or a
///   user type borrowing one of their encodings).
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct PoolingMax {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "PoolingMax";
  static_assert(ElementTraits<T>::kEncoding != Encoding::kCodec,
                "max pooling compares stored bits: use a built-in encoding");

  /// 2D max pooling (formula above).
  /// \param src Input, srcC x srcH x srcW in Format.
  /// \param srcC Channels (> 0).
  /// \param srcH Input rows (> 0).
  /// \param srcW Input columns (> 0).
  /// \param kernelY Window rows (> 0).
  /// \param kernelX Window columns (> 0).
  /// \param strideY Rows between windows (> 0).
  /// \param strideX Columns between windows (> 0).
  /// \param padY Rows of padding before the first row (< kernelY).
  /// \param padX Columns of padding before the first column (< kernelX).
  /// \param dst Output, srcC x dstH x dstW in Format, not overlapping src.
  /// \param dstH Output rows: (dstH-1)*strideY - padY < srcH.
  /// \param dstW Output columns: (dstW-1)*strideX - padX < srcW.
  /// \param part Output channels (NCHW) or output rows (NHWC) to compute:
  ///   the outermost axis of dst, so each part writes one contiguous block.
  /// \throws synetk::Error (nothing written) for null src or dst, a zero size,
  ///   kernel or stride, a padding >= its kernel, an output size whose last
  ///   window holds no input element, sizes that overflow, dst overlapping
  ///   src, or part.begin > part.end.
  void operator()(const T* src, size_t srcC, size_t srcH, size_t srcW, size_t kernelY,
                  size_t kernelX, size_t strideY, size_t strideX, size_t padY, size_t padX,
                  T* dst, size_t dstH, size_t dstW, Range part = Range::All()) const {
    impl::PoolArgs<T> a;
    a.src = src;
    a.dst = dst;
    a.srcC = a.dstC = srcC;
    a.srcH = srcH;
    a.srcW = srcW;
    a.dstH = dstH;
    a.dstW = dstW;
    a.kY = kernelY;
    a.kX = kernelX;
    a.sY = strideY;
    a.sX = strideX;
    a.pY = padY;
    a.pX = padX;
    impl::RunPooling<true, T, Format>(kLayer, a, part);
  }

  /// 3D max pooling: the formula above with a window of kernelC channels
  /// too. kernelC == 1, strideC == 1, padC == 0 is 2D pooling and then
  /// requires dstC == srcC.
  /// \param src Input, srcC x srcH x srcW in Format.
  /// \param srcC Input channels (> 0).
  /// \param srcH Input rows (> 0).
  /// \param srcW Input columns (> 0).
  /// \param kernelC Window channels (> 0).
  /// \param kernelY Window rows (> 0).
  /// \param kernelX Window columns (> 0).
  /// \param strideC Channels between windows (> 0).
  /// \param strideY Rows between windows (> 0).
  /// \param strideX Columns between windows (> 0).
  /// \param padC Channels of padding before the first (< kernelC).
  /// \param padY Rows of padding (< kernelY).
  /// \param padX Columns of padding (< kernelX).
  /// \param dst Output, dstC x dstH x dstW in Format, not overlapping src.
  /// \param dstC Output channels: (dstC-1)*strideC - padC < srcC.
  /// \param dstH Output rows: (dstH-1)*strideY - padY < srcH.
  /// \param dstW Output columns: (dstW-1)*strideX - padX < srcW.
  /// \param part Output channels (NCHW) or output rows (NHWC) to compute.
  /// \throws synetk::Error (nothing written) as the 2D overload, and for
  ///   dstC != srcC in 2D mode.
  void operator()(const T* src, size_t srcC, size_t srcH, size_t srcW, size_t kernelC,
                  size_t kernelY, size_t kernelX, size_t strideC, size_t strideY,
                  size_t strideX, size_t padC, size_t padY, size_t padX, T* dst, size_t dstC,
                  size_t dstH, size_t dstW, Range part = Range::All()) const {
    impl::PoolArgs<T> a;
    a.src = src;
    a.dst = dst;
    a.srcC = srcC;
    a.dstC = dstC;
    a.srcH = srcH;
    a.srcW = srcW;
    a.dstH = dstH;
    a.dstW = dstW;
    a.kC = kernelC;
    a.kY = kernelY;
    a.kX = kernelX;
    a.sC = strideC;
    a.sY = strideY;
    a.sX = strideX;
    a.pC = padC;
    a.pY = padY;
    a.pX = padX;
    a.pool3d = !(kernelC == 1 && strideC == 1 && padC == 0);
    if (!a.pool3d && dstC != srcC) {
      impl::Fail(kLayer, "dstC", dstC,
                 "== srcC for 2D pooling (kernelC == 1, strideC == 1, padC == 0)");
    }
    impl::RunPooling<true, T, Format>(kLayer, a, part);
  }
};

/// Average pooling, windows as in PoolingMax:
///
///     dst[c, dy, dx] = (sum of src[c, y, x] over the clipped window) / d
///     d = excludePad ? clipped window's area : kernelY*kernelX
///
/// The sum accumulates in fp32 and is multiplied by 1/d (rounded to fp32);
/// bf16/f16 outputs round to nearest even.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a kCodec user type.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct PoolingAverage {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "PoolingAverage";
  static_assert(impl::kIsFloatElement<T>, "average pooling takes float element types");

  /// Runs the layer (formula above).
  /// \param src Input, srcC x srcH x srcW in Format.
  /// \param srcC Channels (> 0).
  /// \param srcH Input rows (> 0).
  /// \param srcW Input columns (> 0).
  /// \param kernelY Window rows (> 0).
  /// \param kernelX Window columns (> 0).
  /// \param strideY Rows between windows (> 0).
  /// \param strideX Columns between windows (> 0).
  /// \param padY Rows of padding before the first row (< kernelY).
  /// \param padX Columns of padding before the first column (< kernelX).
  /// \param dst Output, srcC x dstH x dstW in Format, not overlapping src.
  /// \param dstH Output rows: (dstH-1)*strideY - padY < srcH.
  /// \param dstW Output columns: (dstW-1)*strideX - padX < srcW.
  /// \param excludePad Divide by the clipped area (true) or by
  ///   kernelY*kernelX.
  /// \param part Output channels (NCHW) or output rows (NHWC) to compute.
  /// \throws synetk::Error (nothing written) as PoolingMax.
  void operator()(const T* src, size_t srcC, size_t srcH, size_t srcW, size_t kernelY,
                  size_t kernelX, size_t strideY, size_t strideX, size_t padY, size_t padX,
                  T* dst, size_t dstH, size_t dstW, bool excludePad,
                  Range part = Range::All()) const {
    impl::PoolArgs<T> a;
    a.src = src;
    a.dst = dst;
    a.srcC = a.dstC = srcC;
    a.srcH = srcH;
    a.srcW = srcW;
    a.dstH = dstH;
    a.dstW = dstW;
    a.kY = kernelY;
    a.kX = kernelX;
    a.sY = strideY;
    a.sX = strideX;
    a.pY = padY;
    a.pX = padX;
    a.excludePad = excludePad;
    impl::RunPooling<false, T, Format>(kLayer, a, part);
  }
};

SYNETK_NAMESPACE_END

#endif  // SYNETK_OPS_POOLING_H_

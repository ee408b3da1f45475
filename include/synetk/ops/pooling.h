// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling layers (average; max 2D and 3D): public functors. Included by
// synetk.h after every target's kernels exist (HWY_ONCE); do not include
// directly.
#ifndef SYNETK_OPS_POOLING_H_
#define SYNETK_OPS_POOLING_H_

#include <algorithm>
#include <memory>
#include <string>

#include "synetk/detail/check.h"
#include "synetk/detail/dispatch.h"
#include "synetk/element.h"
#include "synetk/format.h"
#include "synetk/range.h"
#include "synetk/workspace.h"

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

// Validates and normalizes a call's arguments (src and dst too unless the
// call is only sized); false if the part is empty.
template <bool kMax, typename T, class Format>
inline bool PreparePooling(const char* layer, PoolArgs<T>& a, Range part, bool sizeOnly) {
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
  if (!sizeOnly) {
    CheckNotNull(layer, "src", a.src);
    CheckNotNull(layer, "dst", a.dst);
    CheckNoPartialOverlap(layer, "dst", a.dst, dstBytes, "src", a.src, srcBytes, false);
  }
  if (!kMax) {
    a.scale = 1.0f / static_cast<float>(static_cast<double>(a.kY) * static_cast<double>(a.kX));
  }
  NormalizePoolAxis(a.kY, a.sY, a.pY, a.srcH, a.dstH);
  NormalizePoolAxis(a.kX, a.sX, a.pX, a.srcW, a.dstW);
  NormalizePoolAxis(a.kC, a.sC, a.pC, a.srcC, a.dstC);
  a.direct = a.pX > kPoolMaxBufferedPad;
  ClampPart(layer, part, std::is_same_v<Format, Nhwc> ? a.dstH : a.dstC);
  a.begin = part.begin;
  a.end = part.end;
  return part.begin != part.end;
}

// Scratch up to this many bytes lives on the calling thread's stack, so
// small calls allocate nothing (a padded fp32 row of 4096 lanes: NHWC
// 64 channels x 56 columns).
inline constexpr size_t kPoolStackScratch = 16384;

// Runs a call: in the caller's workspace, else in the stack buffer, else
// (scratch larger than that) in a heap block allocated for the call. A path
// that finds its memory short returns before writing anything.
template <bool kMax, typename T, class Format>
inline void RunPooling(const char* layer, PoolArgs<T>& a, Range part, Workspace ws) {
  if (!PreparePooling<kMax, T, Format>(layer, a, part, false)) return;
  using Cfg = PoolCfg<kMax, T, Format>;
  ScratchArena arena;
  a.scratch = &arena;
  if (ws.data != nullptr) {
    arena.Reset(ws.data, ws.bytes);
    SYNETK_DISPATCH(PoolKernel<Cfg>)(a);
    if (!arena.Fits()) {
      const std::string e = ">= WorkspaceBytes() of this call: " + std::to_string(arena.Needed());
      Fail(layer, "workspace.bytes", ws.bytes, e.c_str());
    }
    return;
  }
  alignas(ScratchArena::kAlign) unsigned char local[kPoolStackScratch];
  arena.Reset(local, sizeof(local));
  SYNETK_DISPATCH(PoolKernel<Cfg>)(a);
  if (arena.Fits()) return;
  const size_t bytes = arena.Needed();
  const std::unique_ptr<unsigned char[]> heap(new unsigned char[bytes]);
  arena.Reset(heap.get(), bytes);
  SYNETK_DISPATCH(PoolKernel<Cfg>)(a);
}

// The workspace bytes a call needs on this CPU (0: none).
template <bool kMax, typename T, class Format>
inline size_t PoolingWorkspaceBytes(const char* layer, PoolArgs<T>& a, Range part) {
  if (!PreparePooling<kMax, T, Format>(layer, a, part, true)) return 0;
  using Cfg = PoolCfg<kMax, T, Format>;
  ScratchArena arena;
  a.scratch = &arena;
  SYNETK_DISPATCH(PoolKernel<Cfg>)(a);
  return arena.Needed();
}

// The plan the kernel of this target picks for a call, and the
// capabilities it planned with (tests: which path serves a geometry). The
// call is not run.
template <bool kMax, typename T, class Format>
inline PoolPlan PoolingPlanOf(const char* layer, PoolArgs<T>& a, Range part, PoolCaps* caps) {
  PoolPlan plan;
  a.planOut = &plan;
  a.capsOut = caps;
  PoolingWorkspaceBytes<kMax, T, Format>(layer, a, part);  // the kernel stops at the plan
  return plan;
}

// A 2D call's arguments (no pointers yet).
template <typename T>
inline PoolArgs<T> PoolArgs2d(size_t srcC, size_t srcH, size_t srcW, size_t kernelY,
                              size_t kernelX, size_t strideY, size_t strideX, size_t padY,
                              size_t padX, size_t dstH, size_t dstW) {
  PoolArgs<T> a;
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
  return a;
}

// A 3D max call's arguments; 2D ones where the channel window is trivial,
// which then need dstC == srcC.
template <typename T>
inline PoolArgs<T> PoolArgs3d(const char* layer, size_t srcC, size_t srcH, size_t srcW,
                              size_t kernelC, size_t kernelY, size_t kernelX, size_t strideC,
                              size_t strideY, size_t strideX, size_t padC, size_t padY,
                              size_t padX, size_t dstC, size_t dstH, size_t dstW) {
  PoolArgs<T> a = PoolArgs2d<T>(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX, padY,
                                padX, dstH, dstW);
  a.dstC = dstC;
  a.kC = kernelC;
  a.sC = strideC;
  a.pC = padC;
  a.pool3d = !(kernelC == 1 && strideC == 1 && padC == 0);
  if (!a.pool3d && dstC != srcC) {
    Fail(layer, "dstC", dstC, "== srcC for 2D pooling (kernelC == 1, strideC == 1, padC == 0)");
  }
  return a;
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
  /// \param workspace Scratch memory the caller lends (WorkspaceBytes), or
  ///   none: the call then uses its stack and, past 16 KiB, a heap block.
  /// \throws synetk::Error (nothing written) for null src or dst, a zero size,
  ///   kernel or stride, a padding >= its kernel, an output size whose last
  ///   window holds no input element, sizes that overflow, dst overlapping
  ///   src, part.begin > part.end, or a workspace smaller than
  ///   WorkspaceBytes().
  void operator()(const T* src, size_t srcC, size_t srcH, size_t srcW, size_t kernelY,
                  size_t kernelX, size_t strideY, size_t strideX, size_t padY, size_t padX,
                  T* dst, size_t dstH, size_t dstW, Range part = Range::All(),
                  Workspace workspace = {}) const {
    impl::PoolArgs<T> a = impl::PoolArgs2d<T>(srcC, srcH, srcW, kernelY, kernelX, strideY,
                                              strideX, padY, padX, dstH, dstW);
    a.src = src;
    a.dst = dst;
    impl::RunPooling<true, T, Format>(kLayer, a, part, workspace);
  }

  /// The workspace bytes the 2D call with these arguments needs on this CPU
  /// (0: none); the whole range needs as many as any part of it.
  /// \param srcC Channels, as in the call.
  /// \param srcH Input rows.
  /// \param srcW Input columns.
  /// \param kernelY Window rows.
  /// \param kernelX Window columns.
  /// \param strideY Rows between windows.
  /// \param strideX Columns between windows.
  /// \param padY Rows of padding.
  /// \param padX Columns of padding.
  /// \param dstH Output rows.
  /// \param dstW Output columns.
  /// \param part The part to compute.
  /// \return Bytes of synetk::Workspace, at any alignment.
  /// \throws synetk::Error as the call, except for src and dst.
  static size_t WorkspaceBytes(size_t srcC, size_t srcH, size_t srcW, size_t kernelY,
                               size_t kernelX, size_t strideY, size_t strideX, size_t padY,
                               size_t padX, size_t dstH, size_t dstW,
                               Range part = Range::All()) {
    impl::PoolArgs<T> a = impl::PoolArgs2d<T>(srcC, srcH, srcW, kernelY, kernelX, strideY,
                                              strideX, padY, padX, dstH, dstW);
    return impl::PoolingWorkspaceBytes<true, T, Format>(kLayer, a, part);
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
  /// \param workspace Scratch memory the caller lends (WorkspaceBytes), or
  ///   none (as in the 2D overload).
  /// \throws synetk::Error (nothing written) as the 2D overload, and for
  ///   dstC != srcC in 2D mode.
  void operator()(const T* src, size_t srcC, size_t srcH, size_t srcW, size_t kernelC,
                  size_t kernelY, size_t kernelX, size_t strideC, size_t strideY,
                  size_t strideX, size_t padC, size_t padY, size_t padX, T* dst, size_t dstC,
                  size_t dstH, size_t dstW, Range part = Range::All(),
                  Workspace workspace = {}) const {
    impl::PoolArgs<T> a = impl::PoolArgs3d<T>(kLayer, srcC, srcH, srcW, kernelC, kernelY,
                                              kernelX, strideC, strideY, strideX, padC, padY,
                                              padX, dstC, dstH, dstW);
    a.src = src;
    a.dst = dst;
    impl::RunPooling<true, T, Format>(kLayer, a, part, workspace);
  }

  /// The workspace bytes the 3D call with these arguments needs on this CPU
  /// (0: none); the whole range needs as many as any part of it.
  /// \param srcC Input channels, as in the call.
  /// \param srcH Input rows.
  /// \param srcW Input columns.
  /// \param kernelC Window channels.
  /// \param kernelY Window rows.
  /// \param kernelX Window columns.
  /// \param strideC Channels between windows.
  /// \param strideY Rows between windows.
  /// \param strideX Columns between windows.
  /// \param padC Channels of padding.
  /// \param padY Rows of padding.
  /// \param padX Columns of padding.
  /// \param dstC Output channels.
  /// \param dstH Output rows.
  /// \param dstW Output columns.
  /// \param part The part to compute.
  /// \return Bytes of synetk::Workspace, at any alignment.
  /// \throws synetk::Error as the call, except for src and dst.
  static size_t WorkspaceBytes(size_t srcC, size_t srcH, size_t srcW, size_t kernelC,
                               size_t kernelY, size_t kernelX, size_t strideC, size_t strideY,
                               size_t strideX, size_t padC, size_t padY, size_t padX,
                               size_t dstC, size_t dstH, size_t dstW,
                               Range part = Range::All()) {
    impl::PoolArgs<T> a = impl::PoolArgs3d<T>(kLayer, srcC, srcH, srcW, kernelC, kernelY,
                                              kernelX, strideC, strideY, strideX, padC, padY,
                                              padX, dstC, dstH, dstW);
    return impl::PoolingWorkspaceBytes<true, T, Format>(kLayer, a, part);
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
  /// \param workspace Scratch memory the caller lends (WorkspaceBytes), or
  ///   none (as in the 2D overload).
  /// \throws synetk::Error (nothing written) as PoolingMax.
  void operator()(const T* src, size_t srcC, size_t srcH, size_t srcW, size_t kernelY,
                  size_t kernelX, size_t strideY, size_t strideX, size_t padY, size_t padX,
                  T* dst, size_t dstH, size_t dstW, bool excludePad,
                  Range part = Range::All(), Workspace workspace = {}) const {
    impl::PoolArgs<T> a = impl::PoolArgs2d<T>(srcC, srcH, srcW, kernelY, kernelX, strideY,
                                              strideX, padY, padX, dstH, dstW);
    a.src = src;
    a.dst = dst;
    a.excludePad = excludePad;
    impl::RunPooling<false, T, Format>(kLayer, a, part, workspace);
  }

  /// The workspace bytes the call with these arguments needs on this CPU
  /// (0: none); the whole range needs as many as any part of it.
  /// \param srcC Channels, as in the call.
  /// \param srcH Input rows.
  /// \param srcW Input columns.
  /// \param kernelY Window rows.
  /// \param kernelX Window columns.
  /// \param strideY Rows between windows.
  /// \param strideX Columns between windows.
  /// \param padY Rows of padding.
  /// \param padX Columns of padding.
  /// \param dstH Output rows.
  /// \param dstW Output columns.
  /// \param excludePad As in the call.
  /// \param part The part to compute.
  /// \return Bytes of synetk::Workspace, at any alignment.
  /// \throws synetk::Error as the call, except for src and dst.
  static size_t WorkspaceBytes(size_t srcC, size_t srcH, size_t srcW, size_t kernelY,
                               size_t kernelX, size_t strideY, size_t strideX, size_t padY,
                               size_t padX, size_t dstH, size_t dstW, bool excludePad,
                               Range part = Range::All()) {
    impl::PoolArgs<T> a = impl::PoolArgs2d<T>(srcC, srcH, srcW, kernelY, kernelX, strideY,
                                              strideX, padY, padX, dstH, dstW);
    a.excludePad = excludePad;
    return impl::PoolingWorkspaceBytes<false, T, Format>(kLayer, a, part);
  }
};

SYNETK_NAMESPACE_END

#endif  // SYNETK_OPS_POOLING_H_

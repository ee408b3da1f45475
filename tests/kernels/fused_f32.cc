// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// the fused layers over float.
#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::FusedLayer0<float, synetk::Nchw>;
template struct synetk::FusedLayer1<float, synetk::Nchw>;
template struct synetk::FusedLayer2<float, synetk::Nchw>;
template struct synetk::FusedLayer3<float, synetk::Nchw>;
template struct synetk::FusedLayer4<float, synetk::Nchw>;
template struct synetk::FusedLayer8<float, synetk::Nchw>;
template struct synetk::FusedLayer9<float, synetk::Nchw>;
template struct synetk::FusedLayer0<float, synetk::Nhwc>;
template struct synetk::FusedLayer1<float, synetk::Nhwc>;
template struct synetk::FusedLayer2<float, synetk::Nhwc>;
template struct synetk::FusedLayer3<float, synetk::Nhwc>;
template struct synetk::FusedLayer4<float, synetk::Nhwc>;
template struct synetk::FusedLayer8<float, synetk::Nhwc>;
template struct synetk::FusedLayer9<float, synetk::Nhwc>;

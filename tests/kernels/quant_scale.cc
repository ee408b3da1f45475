// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// QuantizedScale and its context.
#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::QuantizedScale<synetk::Nchw>;
template struct synetk::QuantizedScale<synetk::Nhwc>;
template class synetk::QuantizedScaleContext<synetk::Nchw>;
template class synetk::QuantizedScaleContext<synetk::Nhwc>;

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// pooling over float.
#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::PoolingMax<float, synetk::Nchw>;
template struct synetk::PoolingAverage<float, synetk::Nchw>;
template struct synetk::PoolingMax<float, synetk::Nhwc>;
template struct synetk::PoolingAverage<float, synetk::Nhwc>;

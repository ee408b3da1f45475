// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// pooling over hwy::float16_t.
#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::PoolingMax<hwy::float16_t, synetk::Nchw>;
template struct synetk::PoolingAverage<hwy::float16_t, synetk::Nchw>;
template struct synetk::PoolingMax<hwy::float16_t, synetk::Nhwc>;
template struct synetk::PoolingAverage<hwy::float16_t, synetk::Nhwc>;

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// quantize, dequantize and QuantizedShuffle.
#include <cstdint>

#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::DequantizeLinear<uint8_t, float>;
template struct synetk::QuantizeLinear<float, uint8_t>;
template struct synetk::DequantizeLinear<int8_t, float>;
template struct synetk::QuantizeLinear<float, int8_t>;
template struct synetk::DequantizeLinear<uint8_t, hwy::bfloat16_t>;
template struct synetk::QuantizeLinear<hwy::bfloat16_t, uint8_t>;
template struct synetk::DequantizeLinear<int8_t, hwy::bfloat16_t>;
template struct synetk::QuantizeLinear<hwy::bfloat16_t, int8_t>;
template struct synetk::DequantizeLinear<uint8_t, hwy::float16_t>;
template struct synetk::QuantizeLinear<hwy::float16_t, uint8_t>;
template struct synetk::DequantizeLinear<int8_t, hwy::float16_t>;
template struct synetk::QuantizeLinear<hwy::float16_t, int8_t>;
template struct synetk::QuantizedShuffle<synetk::Nchw>;
template struct synetk::QuantizedShuffle<synetk::Nhwc>;

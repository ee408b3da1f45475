// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build): the
// one kernel TU without SYNETK_INSTANTIATE_MORE, so also ChosenTarget()'s and
// QuantizedConcat's; GatherElements over every element size and index type.
#include <cstdint>

#include "synetk/instantiate.h"

#include "../test_types.h"

template class synetk::GatherElements<uint8_t, int32_t>;
template class synetk::GatherElements<uint8_t, int64_t>;
template class synetk::GatherElements<hwy::bfloat16_t, int32_t>;
template class synetk::GatherElements<hwy::bfloat16_t, int64_t>;
template class synetk::GatherElements<float, int32_t>;
template class synetk::GatherElements<float, int64_t>;
template class synetk::GatherElements<double, int32_t>;
template class synetk::GatherElements<double, int64_t>;

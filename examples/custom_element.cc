// Copyright synetk authors. SPDX-License-Identifier: MIT
// Instantiating synetk kernels for an engine's own element types.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "synetk/synetk.h"

namespace engine {

// 1. A type with the bits of a bfloat16 (say, the engine's own half type).
struct Half16 {
  uint16_t bits;
};

// 2. A type with its own encoding: Q8.8 fixed point.
struct Fixed88 {
  int16_t raw;
};

}  // namespace engine

// Half16: borrow bfloat16's encoding; kernels use the vector code as is.
template <>
struct synetk::ElementTraits<engine::Half16> : synetk::ElementTraits<hwy::bfloat16_t> {};

// Fixed88: give scalar conversions; kernels convert a vector's worth at a time.
template <>
struct synetk::ElementTraits<engine::Fixed88> {
  static constexpr synetk::Encoding kEncoding = synetk::Encoding::kCodec;
  static float ToFloat(engine::Fixed88 v) { return v.raw / 256.0f; }
  static engine::Fixed88 FromFloat(float f) {
    const float r = std::nearbyint(std::clamp(f * 256.0f, -32768.0f, 32767.0f));
    return engine::Fixed88{static_cast<int16_t>(r)};
  }
};

// Half16 <-> float through hwy::bfloat16_t, which has Half16's size and bits
// (memcpy works with every Highway version's bfloat16_t).
namespace {
engine::Half16 ToHalf16(float f) {
  const hwy::bfloat16_t b = hwy::BF16FromF32(f);
  engine::Half16 h;
  std::memcpy(&h, &b, sizeof(h));
  return h;
}
float FromHalf16(engine::Half16 h) {
  hwy::bfloat16_t b;
  std::memcpy(&b, &h, sizeof(b));
  return hwy::F32FromBF16(b);
}
}  // namespace

int main() {
  const size_t channels = 2, spatial = 5;
  const std::vector<float> values = {-2, -1, 0, 1, 2, -0.5f, 0.25f, 0.5f, 4, -4};
  const std::vector<float> scale = {0.5f, 0.25f}, bias = {0.0f, 1.0f};

  std::vector<engine::Fixed88> src(values.size()), dst(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    src[i] = synetk::ElementTraits<engine::Fixed88>::FromFloat(values[i]);
  synetk::FusedLayer3<engine::Fixed88, synetk::Nchw>()(src.data(), bias.data(), scale.data(),
                                                       channels, spatial, dst.data());
  std::printf("FusedLayer3 on Q8.8 fixed point (%s target):\n", synetk::ChosenTargetName());
  for (size_t i = 0; i < values.size(); ++i)
    std::printf("  %6.2f -> %7.3f\n", values[i], dst[i].raw / 256.0);

  std::vector<engine::Half16> h(values.size()), hout(values.size());
  for (size_t i = 0; i < values.size(); ++i) h[i] = ToHalf16(values[i]);
  synetk::FusedLayer0<engine::Half16, synetk::Nhwc>()(h.data(), bias.data(), scale.data(),
                                                      channels, spatial, hout.data());
  std::printf("FusedLayer0 on engine::Half16 (bfloat16 bits), NHWC:");
  for (const auto& v : hout) std::printf(" %.3f", FromHalf16(v));
  std::printf("\n");

  // Max pooling compares Half16 values as the numbers they encode and outputs
  // one of the inputs exactly (2x2 window, stride 2 over a 2x4 image).
  std::vector<engine::Half16> img(2 * 4), pooled(1 * 2);
  const float pixels[] = {-1.5f, -0.25f, 3, -7, -2, -0.5f, 2.5f, 8};
  for (size_t i = 0; i < 8; ++i) img[i] = ToHalf16(pixels[i]);
  synetk::PoolingMax<engine::Half16, synetk::Nchw>()(img.data(), 1, 2, 4, 2, 2, 2, 2, 0, 0,
                                                     pooled.data(), 1, 2);
  std::printf("PoolingMax on engine::Half16: %.2f %.2f\n", FromHalf16(pooled[0]),
              FromHalf16(pooled[1]));
  return 0;
}

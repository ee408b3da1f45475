// Copyright synetk authors. SPDX-License-Identifier: MIT
// The consumer's "engine": one layer through the native API, one through the
// compatibility API; exits non-zero if a result is wrong.
#include <cmath>
#include <cstdio>
#include <vector>

#include "synetk/simd.h"
#include "synetk/synetk.h"

int main() {
  const size_t channels = 4, spatial = 9;
  std::vector<float> src(channels * spatial), bias(channels, 0.5f), scale(channels, 0.25f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 7) - 3.0f;
  std::vector<float> a(src.size()), b(src.size());
  synetk::FusedLayer3<float, synetk::Nhwc>()(src.data(), bias.data(), scale.data(), channels,
                                             spatial, a.data());
  synetk::simd::SimdSynetFusedLayerForward3(src.data(), bias.data(), scale.data(), channels,
                                            spatial, b.data(), synetk::simd::SimdTensorFormatNhwc);
  int bad = 0;
  for (size_t i = 0; i < src.size(); ++i) {
    const float x = src[i] + 0.5f;
    const float ref = x > 0 ? x : x * 0.25f;
    bad += std::fabs(a[i] - ref) > 1e-6f || a[i] != b[i];
  }
  std::printf("consumer: synetk on %s, %d wrong values\n", synetk::ChosenTargetName(), bad);
  return bad == 0 ? 0 : 1;
}

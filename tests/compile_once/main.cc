// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compile-once mode: this TU includes only synetk/declarations.h and calls
// functors that engine.cc and engine_more.cc instantiate, on every target the
// CPU runs.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "synetk/declarations.h"

int main() {
  const size_t C = 3, S = 37;
  std::vector<float> src(C * S), bias(C), scale(C), dst(C * S);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(int(i % 11) - 5) * 0.5f;
  for (size_t c = 0; c < C; ++c) {
    bias[c] = 0.25f * float(c) - 0.25f;
    scale[c] = 0.5f + float(c);
  }
  // NHWC 2x2 max pooling, stride 2, over a 4x6 image of 5 channels.
  const size_t PC = 5, H = 4, W = 6;
  std::vector<uint8_t> img(H * W * PC), pooled(2 * 3 * PC);
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<uint8_t>((i * 37) % 251);
  // Quantize src (engine_more.cc's kernel) with norm 2, zero 128, then
  // concatenate it with img (engine.cc's QuantizedConcat), unscaled.
  std::vector<uint8_t> quant(C * S), joined(C * S + img.size());
  const uint8_t* parts[2] = {quant.data(), img.data()};
  const size_t sizes[2] = {quant.size(), img.size()};
  const int32_t biases[2] = {0, 0};
  const float norms[2] = {1.0f, 1.0f}, norm = 2.0f, unit = 1.0f;

  bool ok = true;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(t);
    const bool chosen = synetk::ChosenTarget() == t;
    synetk::FusedLayer3<float, synetk::Nchw>()(src.data(), bias.data(), scale.data(), C, S,
                                               dst.data());
    synetk::PoolingMax<uint8_t, synetk::Nhwc>()(img.data(), PC, H, W, 2, 2, 2, 2, 0, 0,
                                                pooled.data(), 2, 3);
    synetk::QuantizeLinear<float, uint8_t>()(src.data(), src.size(), &norm, 128, quant.data());
    synetk::QuantizedConcat()(2, parts, 1, sizes, biases, norms, &unit, 0, joined.data());
    hwy::SetSupportedTargetsForTest(0);
    bool same = chosen;
    for (size_t c = 0; c < C; ++c) {
      for (size_t s = 0; s < S; ++s) {
        const float x = src[c * S + s] + bias[c];  // exact: multiples of 1/4
        const float ref = (x > 0 ? x : 0.0f) + (x < 0 ? x : 0.0f) * scale[c];
        same = same && dst[c * S + s] == ref;
      }
    }
    for (size_t y = 0; y < 2; ++y) {
      for (size_t x = 0; x < 3; ++x) {
        for (size_t c = 0; c < PC; ++c) {
          uint8_t m = 0;
          for (size_t dy = 0; dy < 2; ++dy)
            for (size_t dx = 0; dx < 2; ++dx) {
              const uint8_t v = img[((2 * y + dy) * W + 2 * x + dx) * PC + c];
              m = v > m ? v : m;
            }
          same = same && pooled[(y * 3 + x) * PC + c] == m;
        }
      }
    }
    for (size_t i = 0; i < src.size(); ++i) {
      // src * 2 is an integer in [-10, 10]: no rounding.
      const float q = std::nearbyint(src[i] * 2.0f) + 128.0f;
      same = same && quant[i] == static_cast<uint8_t>(q) && joined[i] == quant[i];
    }
    for (size_t i = 0; i < img.size(); ++i) same = same && joined[quant.size() + i] == img[i];
    std::printf("%s%s ", hwy::TargetName(t), same ? "" : "(FAILED)");
    ok = ok && same;
  }
  std::printf("\n%s\n", ok ? "compile-once functors match the reference on every target"
                           : "FAILED");
  return ok ? 0 : 1;
}

// Copyright synetk authors. SPDX-License-Identifier: MIT
// A small pipeline as an engine would run it on one image (NHWC):
//   quantize -> quantized scale -> dequantize -> fused activation (type 3)
//   -> max pooling 3x3 s2 p1 -> normalize V2,
// printing the time of each layer and the SIMD target.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "synetk/synetk.h"

namespace {

template <class F>
double TimeUs(F&& f, int reps = 20) {
  f();  // warm up
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
}

}  // namespace

int main() {
  using F = synetk::Nhwc;
  const size_t C = 64, H = 56, W = 56, S = H * W, n = C * S;
  const size_t PH = (H + 2 - 3) / 2 + 1, PW = (W + 2 - 3) / 2 + 1, PS = PH * PW;

  // A synthetic image: smooth waves per channel.
  std::vector<float> image(n);
  for (size_t s = 0; s < S; ++s)
    for (size_t c = 0; c < C; ++c)
      image[s * C + c] = std::sin(0.05f * (s % W) + 0.3f * c) * std::cos(0.07f * (s / W));
  std::vector<float> scale(C), bias(C), ones(C, 1.0f), zeros(C, 0.0f);
  for (size_t c = 0; c < C; ++c) {
    scale[c] = 0.5f + 0.01f * c;
    bias[c] = 0.1f * std::sin(float(c));
  }
  const float qNorm = 127.0f, qScale = 1.0f / 127.0f;  // quantize x*127 + 128
  const int32_t zero = 128;
  const float eps = 1e-5f;

  std::vector<uint8_t> q(n), q2(n);
  std::vector<float> x(n), pooled(C * PS), normalized(C * PS);
  std::vector<float> work(synetk::NormalizeV2<float, F>::ScratchSize(1, C, PS));

  std::printf("synetk pipeline on a %zux%zux%zu NHWC image, target %s\n", H, W, C,
              synetk::ChosenTargetName());
  const double t1 = TimeUs([&] { synetk::QuantizeLinear<float, uint8_t>()(image.data(), n, &qNorm, zero, q.data()); });
  const double t2 = TimeUs([&] {
    synetk::QuantizedScale<F>()(q.data(), &qScale, zero, C, S, scale.data(), bias.data(), q2.data(),
                                &qScale, zero);
  });
  const int32_t dqBias = -zero;
  const double t3 = TimeUs([&] { synetk::DequantizeLinear<uint8_t, float>()(q2.data(), n, dqBias, &qScale, x.data()); });
  const double t4 = TimeUs([&] {
    synetk::FusedLayer3<float, F>()(x.data(), zeros.data(), ones.data(), C, S, x.data());  // in place
  });
  const double t5 = TimeUs([&] {
    synetk::PoolingMax<float, F>()(x.data(), C, H, W, 3, 3, 2, 2, 1, 1, pooled.data(), PH, PW);
  });
  const double t6 = TimeUs([&] {
    synetk::NormalizeV2<float, F>()(pooled.data(), 1, C, PS, ones.data(), zeros.data(), &eps,
                                    work.data(), work.size(), normalized.data());
  });
  std::printf("  %-40s %8.1f us\n", "QuantizeLinear f32 -> u8", t1);
  std::printf("  %-40s %8.1f us\n", "QuantizedScale u8", t2);
  std::printf("  %-40s %8.1f us\n", "DequantizeLinear u8 -> f32", t3);
  std::printf("  %-40s %8.1f us\n", "FusedLayer3 (PReLU), in place", t4);
  std::printf("  %-40s %8.1f us\n", "PoolingMax 3x3 s2 p1", t5);
  std::printf("  %-40s %8.1f us\n", "NormalizeV2 (layer norm over C)", t6);

  // Sanity: each pixel of the output has mean ~0 and variance ~1 over C.
  double mean = 0, var = 0;
  for (size_t c = 0; c < C; ++c) mean += normalized[c];
  mean /= C;
  for (size_t c = 0; c < C; ++c) var += (normalized[c] - mean) * (normalized[c] - mean);
  var /= C;
  std::printf("first pixel after normalize: mean %.4f, variance %.4f\n", mean, var);
  return std::fabs(mean) < 1e-3 && std::fabs(var - 1) < 1e-2 ? 0 : 1;
}

// Copyright synetk authors. SPDX-License-Identifier: MIT
// Scalar reference for the quantization layers, straight from the seed
// (004) pseudocode and SEMANTICS.md: fp32 products evaluated left to right
// with separate operations (tests build with -ffp-contract=off), Round via
// std::nearbyint in double (half to even), RestrictRange by clamping in
// double, NaN -> the zero point. Shares no code with the kernels.
#ifndef SYNETK_TESTS_REFERENCE_QUANT_REF_H_
#define SYNETK_TESTS_REFERENCE_QUANT_REF_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace synetk_ref {

// clamp(Round(v) + zero, lo, hi); NaN gives clamp(zero).
inline int QuantizeValue(float v, int zero, int lo, int hi) {
  double r;
  if (std::isnan(v)) {
    r = zero;
  } else {
    r = std::nearbyint(static_cast<double>(v)) + zero;  // exact for |v| < 2^53; inf stays inf
  }
  r = std::min<double>(std::max<double>(r, lo), hi);
  return static_cast<int>(r);
}

// dst = float(src + bias) * norm (one fp32 multiplication).
inline float DequantizeValue(int src, int bias, float norm) {
  const float x = static_cast<float>(src + bias);
  return x * norm;
}

// Requantization (concat, shuffle): Round(float(src + bias) * norm * scale) + zero.
inline uint8_t RequantizeValue(uint8_t src, int bias, float norm, float scale, int zero) {
  float t = static_cast<float>(int(src) + bias);
  t = t * norm;
  t = t * scale;
  return static_cast<uint8_t>(QuantizeValue(t, zero, 0, 255));
}

// QuantizedConcat: for each block n, for each input s, size[s] elements.
inline std::vector<uint8_t> Concat(const std::vector<std::vector<uint8_t>>& src, size_t num,
                                   const std::vector<size_t>& size,
                                   const std::vector<int32_t>& bias,
                                   const std::vector<float>& norm, float scale, int zero) {
  size_t total = 0;
  for (size_t s : size) total += s;
  std::vector<uint8_t> dst(num * total);
  for (size_t n = 0; n < num; ++n) {
    size_t offset = 0;
    for (size_t s = 0; s < src.size(); ++s) {
      for (size_t i = 0; i < size[s]; ++i)
        dst[n * total + offset + i] = RequantizeValue(src[s][n * size[s] + i], bias[s], norm[s], scale, zero);
      offset += size[s];
    }
  }
  return dst;
}

inline size_t Index(bool nhwc, size_t c, size_t s, size_t C, size_t S) {
  return nhwc ? s * C + c : c * S + s;
}

// QuantizedScale with the reciprocal of dstScale taken once in fp32 and
// v*scale[c] + bias[c] rounded once (std::fma), as the Simd Library
// computes it.
inline std::vector<uint8_t> Scale(const std::vector<uint8_t>& src, float srcScale, int srcZero,
                                  size_t C, size_t S, const float* scale, const float* bias,
                                  float dstScale, int dstZero, bool nhwc) {
  std::vector<uint8_t> dst(C * S);
  const float inv = 1.0f / dstScale;
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const size_t i = Index(nhwc, c, s, C, S);
      float v = static_cast<float>(int(src[i]) - srcZero) * srcScale;
      v = std::fma(v, scale[c], bias ? bias[c] : 0.0f);
      v = v * inv;
      dst[i] = static_cast<uint8_t>(QuantizeValue(v, dstZero, 0, 255));
    }
  return dst;
}

// QuantizedShuffle, both types, as SEMANTICS.md words them. Returns dst0, dst1.
struct ShuffleOut {
  std::vector<uint8_t> dst0, dst1;
};
inline ShuffleOut Shuffle(const std::vector<uint8_t>& src0, int bias0, float norm0, size_t C0,
                          const std::vector<uint8_t>& src1, int bias1, float norm1, size_t C1,
                          size_t S, float scale, int zero, int type, bool nhwc) {
  const size_t C = C0 + C1, H = C / 2;
  ShuffleOut o;
  if (type == 0) {
    // X = src0 ++ src1 (channels); dst0 = even channels of X, dst1 = odd.
    o.dst0.resize(H * S);
    o.dst1.resize(H * S);
    for (size_t k = 0; k < C; ++k)
      for (size_t s = 0; s < S; ++s) {
        const uint8_t v = k < C0 ? RequantizeValue(src0[Index(nhwc, k, s, C0, S)], bias0, norm0, scale, zero)
                                 : RequantizeValue(src1[Index(nhwc, k - C0, s, C1, S)], bias1, norm1, scale, zero);
        auto& dst = (k % 2 == 0) ? o.dst0 : o.dst1;
        dst[Index(nhwc, k / 2, s, H, S)] = v;
      }
  } else {
    // Y = src0[0], src1[0], src0[1], ...; dst0 = Y[0, C0), dst1 = Y[C0, C).
    o.dst0.resize(C0 * S);
    o.dst1.resize(C1 * S);
    for (size_t k = 0; k < C; ++k)
      for (size_t s = 0; s < S; ++s) {
        const uint8_t v = (k % 2 == 0) ? RequantizeValue(src0[Index(nhwc, k / 2, s, H, S)], bias0, norm0, scale, zero)
                                       : RequantizeValue(src1[Index(nhwc, k / 2, s, H, S)], bias1, norm1, scale, zero);
        if (k < C0) o.dst0[Index(nhwc, k, s, C0, S)] = v;
        else o.dst1[Index(nhwc, k - C0, s, C1, S)] = v;
      }
  }
  return o;
}

}  // namespace synetk_ref

#endif  // SYNETK_TESTS_REFERENCE_QUANT_REF_H_

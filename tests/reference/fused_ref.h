// Copyright synetk authors. SPDX-License-Identifier: MIT
// Scalar reference for the fused layers, straight from the specification
// (seed 000 and SEMANTICS.md). Computes in double; `mag` receives the sum of
// the absolute values of the terms, which bounds the fp32 rounding error.
#ifndef SYNETK_TESTS_REFERENCE_FUSED_REF_H_
#define SYNETK_TESTS_REFERENCE_FUSED_REF_H_

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <vector>

namespace synetk_ref {

struct Out {
  std::vector<double> val, mag;
  explicit Out(size_t n) : val(n), mag(n) {}
};

inline size_t At(bool nhwc, size_t c, size_t s, size_t C, size_t S) {
  return nhwc ? s * C + c : c * S + s;
}

// Types 0-3: one input, one output. params as in the seed's parameter list.
inline Out Fused0(const std::vector<float>& src, const float* bias, const float* scale,
                  size_t C, size_t S, bool nhwc) {
  Out o(C * S);
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const size_t i = At(nhwc, c, s, C, S);
      const double x = double(src[i]) + bias[c];
      o.val[i] = (x - std::fabs(x)) * scale[c] + std::max(0.0, x);
      o.mag[i] = std::fabs(src[i]) + std::fabs(bias[c]) + 2 * std::fabs(x) * (1 + std::fabs(scale[c]));
    }
  return o;
}

inline Out Fused1(const std::vector<float>& src, const float* bias0, const float* scale1,
                  const float* bias1, size_t C, size_t S, bool nhwc) {
  Out o(C * S);
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const size_t i = At(nhwc, c, s, C, S);
      const double x = double(src[i]) + bias0[c];
      o.val[i] = std::max(0.0, -x) * scale1[c] + bias1[c] + std::max(0.0, x);
      o.mag[i] = std::fabs(src[i]) + std::fabs(bias0[c]) +
                 std::fabs(x) * (1 + std::fabs(scale1[c])) + std::fabs(bias1[c]);
    }
  return o;
}

inline Out Fused2(const std::vector<float>& src, const float* scale, const float* bias,
                  size_t C, size_t S, const float* slope, bool nhwc) {
  Out o(C * S);
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const size_t i = At(nhwc, c, s, C, S);
      const double x = double(src[i]) * scale[c] + bias[c];
      o.val[i] = std::max(0.0, x) + std::min(0.0, x) * slope[0];
      // A product below FLT_MIN rounds to a multiple of 2^-149, an absolute
      // error that 24-bit relative terms miss and that the slope then
      // multiplies: FLT_MIN in the magnitude covers it.
      o.mag[i] = (std::fabs(double(src[i]) * scale[c]) + std::fabs(bias[c]) + FLT_MIN) *
                 (1 + std::fabs(slope[0]));
    }
  return o;
}

inline Out Fused3(const std::vector<float>& src, const float* bias, const float* scale,
                  size_t C, size_t S, bool nhwc) {
  Out o(C * S);
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const size_t i = At(nhwc, c, s, C, S);
      const double x = double(src[i]) + bias[c];
      o.val[i] = std::max(0.0, x) + std::min(0.0, x) * scale[c];
      o.mag[i] = (std::fabs(src[i]) + std::fabs(bias[c])) * (1 + std::fabs(scale[c]));
    }
  return o;
}

// Type 4: output has 2*C channels.
inline Out Fused4(const std::vector<float>& src, const float* bias0, const float* scale1,
                  const float* bias1, size_t C, size_t S, bool nhwc) {
  Out o(2 * C * S);
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const double x = double(src[At(nhwc, c, s, C, S)]) + bias0[c];
      const size_t i0 = At(nhwc, c, s, 2 * C, S), i1 = At(nhwc, c + C, s, 2 * C, S);
      o.val[i0] = std::max(0.0, x);
      o.mag[i0] = std::fabs(x) + std::fabs(bias0[c]);
      o.val[i1] = std::max(0.0, x * scale1[0] + bias1[0]);
      o.mag[i1] = (std::fabs(x) + std::fabs(bias0[c])) * std::fabs(scale1[0]) + std::fabs(bias1[0]);
    }
  return o;
}

inline Out Fused8(const std::vector<float>& src0, const std::vector<float>& src1,
                  const float* src2, size_t C, size_t S, bool nhwc) {
  Out o(C * S);
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const size_t i = At(nhwc, c, s, C, S);
      o.val[i] = double(src0[i]) + double(src1[i]) * src2[c];
      o.mag[i] = std::fabs(src0[i]) + std::fabs(double(src1[i]) * src2[c]);
    }
  return o;
}

// Type 9: returns dst0; `plain` receives the concatenation (dst1).
inline Out Fused9(const std::vector<float>& src0, const std::vector<float>& src1,
                  const float* scale, const float* bias, size_t C0, size_t C1, size_t S,
                  bool nhwc, std::vector<float>& plain) {
  const size_t C = C0 + C1;
  Out o(C * S);
  plain.assign(C * S, 0.0f);
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      const float v = c < C0 ? src0[At(nhwc, c, s, C0, S)] : src1[At(nhwc, c - C0, s, C1, S)];
      const size_t i = At(nhwc, c, s, C, S);
      o.val[i] = std::max(0.0, double(v) * scale[c] + bias[c]);
      o.mag[i] = std::fabs(double(v) * scale[c]) + std::fabs(bias[c]);
      plain[i] = v;
    }
  return o;
}

}  // namespace synetk_ref

#endif  // SYNETK_TESTS_REFERENCE_FUSED_REF_H_

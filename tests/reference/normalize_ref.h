// Copyright synetk authors. SPDX-License-Identifier: MIT
// Scalar reference for the normalize layers V1-V4, straight from the seed's
// pseudocode (seed 002) and SEMANTICS.md, in double. Shares no code with the
// kernels. `mag` receives, per element, a bound on the size of the terms
// whose fp32 rounding the kernel may carry into that element.
//
// Zero denominators (eps = 0 with an all-zero reduction) follow synetk's
// documented rule: the normalizing factor is 0 (V1: 0, V2/V3: shift[c]) and
// V4's ratio term is 0.
#ifndef SYNETK_TESTS_REFERENCE_NORMALIZE_REF_H_
#define SYNETK_TESTS_REFERENCE_NORMALIZE_REF_H_

#include <cmath>
#include <cstddef>
#include <vector>

namespace synetk_ref {

struct NormOut {
  std::vector<double> val, mag;
  explicit NormOut(size_t n) : val(n), mag(n) {}
};

// Element (b, c, s) of a tensor of B x C x S.
inline size_t NormAt(bool nhwc, size_t b, size_t c, size_t s, size_t C, size_t S) {
  return nhwc ? (b * S + s) * C + c : (b * C + c) * S + s;
}

inline double InvSqrtOrZero(double d) { return d == 0.0 ? 0.0 : 1.0 / std::sqrt(d); }

// V1: acrossSpatial false: per (b, s), sum = eps + sum_c src^2;
// dst = src * scale[c] / sqrt(sum). true: one sum per b over all c, s.
inline NormOut NormalizeV1(const std::vector<float>& src, size_t B, size_t C, size_t S,
                           const float* scale, float eps, bool across, bool nhwc) {
  NormOut o(B * C * S);
  for (size_t b = 0; b < B; ++b) {
    if (across) {
      double sum = 0;
      for (size_t c = 0; c < C; ++c)
        for (size_t s = 0; s < S; ++s) sum += double(src[NormAt(nhwc, b, c, s, C, S)]) * src[NormAt(nhwc, b, c, s, C, S)];
      const double k = InvSqrtOrZero(sum + eps);
      for (size_t c = 0; c < C; ++c)
        for (size_t s = 0; s < S; ++s) {
          const size_t i = NormAt(nhwc, b, c, s, C, S);
          o.val[i] = src[i] * double(scale[c]) * k;
          o.mag[i] = std::fabs(o.val[i]);
        }
    } else {
      for (size_t s = 0; s < S; ++s) {
        double sum = 0;
        for (size_t c = 0; c < C; ++c) {
          const double x = src[NormAt(nhwc, b, c, s, C, S)];
          sum += x * x;
        }
        const double k = InvSqrtOrZero(sum + eps);
        for (size_t c = 0; c < C; ++c) {
          const size_t i = NormAt(nhwc, b, c, s, C, S);
          o.val[i] = src[i] * double(scale[c]) * k;
          o.mag[i] = std::fabs(o.val[i]);
        }
      }
    }
  }
  return o;
}

// V2 (over channels per (b, s)) and V3 (over positions per (b, c)):
// x = src - mean; dst = x / sqrt(mean(x^2) + eps) * scale[c] + shift[c].
inline NormOut NormalizeV23(int version, const std::vector<float>& src, size_t B, size_t C,
                            size_t S, const float* scale, const float* shift, float eps,
                            bool nhwc) {
  NormOut o(B * C * S);
  const bool overC = version == 2;
  const size_t outer = overC ? S : C, inner = overC ? C : S;
  for (size_t b = 0; b < B; ++b)
    for (size_t u = 0; u < outer; ++u) {
      auto at = [&](size_t v) {
        return overC ? NormAt(nhwc, b, v, u, C, S) : NormAt(nhwc, b, u, v, C, S);
      };
      double sum = 0, sumAbs = 0;
      for (size_t v = 0; v < inner; ++v) {
        sum += src[at(v)];
        sumAbs += std::fabs(src[at(v)]);
      }
      const double mean = sum / inner;
      double sqsum = 0;
      for (size_t v = 0; v < inner; ++v) sqsum += (src[at(v)] - mean) * (src[at(v)] - mean);
      const double norm = InvSqrtOrZero(sqsum / inner + eps);
      for (size_t v = 0; v < inner; ++v) {
        const size_t i = at(v);
        const size_t c = overC ? v : u;
        const double x = src[i] - mean;
        o.val[i] = x * norm * scale[c] + shift[c];
        o.mag[i] = (std::fabs(x) + sumAbs / inner) * norm * std::fabs(scale[c]) + std::fabs(shift[c]);
      }
    }
  return o;
}

// V4: buf[c] = sqrt(sum_s src^2); sum = sum_c buf[c];
// dst = src * (1 + scale[c]*buf[c]/(sum/C + eps)) + shift[c].
inline NormOut NormalizeV4(const std::vector<float>& src, size_t B, size_t C, size_t S,
                           const float* scale, const float* shift, float eps, bool nhwc) {
  NormOut o(B * C * S);
  std::vector<double> buf(C);
  for (size_t b = 0; b < B; ++b) {
    double sum = 0;
    for (size_t c = 0; c < C; ++c) {
      double sq = 0;
      for (size_t s = 0; s < S; ++s) {
        const double x = src[NormAt(nhwc, b, c, s, C, S)];
        sq += x * x;
      }
      buf[c] = std::sqrt(sq);
      sum += buf[c];
    }
    const double den = sum / C + eps;
    for (size_t c = 0; c < C; ++c) {
      const double ratio = den == 0.0 ? 0.0 : scale[c] * buf[c] / den;
      for (size_t s = 0; s < S; ++s) {
        const size_t i = NormAt(nhwc, b, c, s, C, S);
        o.val[i] = src[i] * (1.0 + ratio) + shift[c];
        o.mag[i] = std::fabs(src[i]) * (1.0 + std::fabs(ratio)) + std::fabs(shift[c]);
      }
    }
  }
  return o;
}

}  // namespace synetk_ref

#endif  // SYNETK_TESTS_REFERENCE_NORMALIZE_REF_H_

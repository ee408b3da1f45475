// Copyright synetk authors. SPDX-License-Identifier: MIT
// Scalar reference for the pooling layers, straight from the specification
// (seed 003 pseudocode and SEMANTICS.md "Pooling"): signed window starts,
// clipping to the input, the excludePad divisor rule, 3D channel windows.
// Elements are compared as the numbers they encode; averages are in double.
#ifndef SYNETK_TESTS_REFERENCE_POOLING_REF_H_
#define SYNETK_TESTS_REFERENCE_POOLING_REF_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../harness.h"

namespace synetk_ref {

struct PoolGeom {
  size_t srcC = 1, srcH = 1, srcW = 1;
  size_t kC = 1, kY = 1, kX = 1;
  size_t sC = 1, sY = 1, sX = 1;
  size_t pC = 0, pY = 0, pX = 0;
  size_t dstC = 1, dstH = 1, dstW = 1;
  size_t SrcSize() const { return srcC * srcH * srcW; }
  size_t DstSize() const { return dstC * dstH * dstW; }
};

// The number an element encodes.
inline double PoolValue(float v) { return v; }
inline double PoolValue(uint8_t v) { return v; }
inline double PoolValue(int8_t v) { return v; }
inline double PoolValue(hwy::bfloat16_t v) { return synetk_test::DecodeSmallFloat(v.bits, 8, 7); }
inline double PoolValue(hwy::float16_t v) {
  uint16_t b;
  std::memcpy(&b, &v, 2);
  return synetk_test::DecodeSmallFloat(b, 5, 10);
}

inline size_t PoolAt(bool nhwc, size_t c, size_t y, size_t x, size_t C, size_t H, size_t W) {
  return nhwc ? (y * W + x) * C + c : (c * H + y) * W + x;
}

// yBeg = Max(0, d*stride - pad); yEnd = Min(size, d*stride - pad + kernel).
inline void PoolClip(size_t d, size_t stride, size_t pad, size_t kernel, size_t size,
                     long long& beg, long long& end) {
  const long long start = static_cast<long long>(d * stride) - static_cast<long long>(pad);
  beg = std::max(0LL, start);
  end = std::min(static_cast<long long>(size), start + static_cast<long long>(kernel));
}

// Max: the first element (in c, y, x order) holding the largest value.
template <typename T>
std::vector<T> PoolMax(const std::vector<T>& src, const PoolGeom& g, bool nhwc) {
  std::vector<T> dst(g.DstSize());
  for (size_t dc = 0; dc < g.dstC; ++dc)
    for (size_t dy = 0; dy < g.dstH; ++dy)
      for (size_t dx = 0; dx < g.dstW; ++dx) {
        long long cB, cE, yB, yE, xB, xE;
        PoolClip(dc, g.sC, g.pC, g.kC, g.srcC, cB, cE);
        PoolClip(dy, g.sY, g.pY, g.kY, g.srcH, yB, yE);
        PoolClip(dx, g.sX, g.pX, g.kX, g.srcW, xB, xE);
        bool have = false;
        T best{};
        for (long long c = cB; c < cE; ++c)
          for (long long y = yB; y < yE; ++y)
            for (long long x = xB; x < xE; ++x) {
              const T v = src[PoolAt(nhwc, c, y, x, g.srcC, g.srcH, g.srcW)];
              if (!have || PoolValue(v) > PoolValue(best)) best = v;
              have = true;
            }
        REQUIRE(have);  // the geometry under test is valid
        dst[PoolAt(nhwc, dc, dy, dx, g.dstC, g.dstH, g.dstW)] = best;
      }
  return dst;
}

// Average: sum / (excludePad ? clipped area : kernelY*kernelX). `mag`
// receives sum|x| / divisor, which bounds the fp32 rounding error.
template <typename T>
std::vector<double> PoolAverage(const std::vector<T>& src, const PoolGeom& g, bool excludePad,
                                bool nhwc, std::vector<double>& mag) {
  std::vector<double> dst(g.DstSize());
  mag.assign(g.DstSize(), 0.0);
  for (size_t c = 0; c < g.srcC; ++c)
    for (size_t dy = 0; dy < g.dstH; ++dy)
      for (size_t dx = 0; dx < g.dstW; ++dx) {
        long long yB, yE, xB, xE;
        PoolClip(dy, g.sY, g.pY, g.kY, g.srcH, yB, yE);
        PoolClip(dx, g.sX, g.pX, g.kX, g.srcW, xB, xE);
        double sum = 0, abs = 0;
        for (long long y = yB; y < yE; ++y)
          for (long long x = xB; x < xE; ++x) {
            const double v = PoolValue(src[PoolAt(nhwc, c, y, x, g.srcC, g.srcH, g.srcW)]);
            sum += v;
            abs += std::fabs(v);
          }
        const double div = excludePad ? double((yE - yB) * (xE - xB)) : double(g.kY) * double(g.kX);
        const size_t o = PoolAt(nhwc, c, dy, dx, g.srcC, g.dstH, g.dstW);
        dst[o] = sum / div;
        mag[o] = abs / div;
      }
  return dst;
}

}  // namespace synetk_ref

#endif  // SYNETK_TESTS_REFERENCE_POOLING_REF_H_

// Copyright synetk authors. SPDX-License-Identifier: MIT
// libFuzzer target: the pooling layers through synetk::simd
// (SimdSynetPoolingAverage, SimdSynetPoolingMax32f incl. 3D windows,
// SimdSynetPoolingMax16b, SimdSynetPoolingMax8u). The fuzzer picks function,
// format (incl. invalid values), shape, geometry (kernel, stride, pad, dst
// sizes: usually consistent, sometimes arbitrary) and values (NaN, inf,
// denormals, huge); a call must match the scalar reference or throw
// synetk::Error with dst unchanged, never crash or touch memory outside the
// buffers.
#include <cstdio>
#include <vector>

#include "fuzz_input.h"
#include "synetk/simd.h"

// pooling_ref.h includes the Catch2 harness for REQUIRE and DecodeSmallFloat;
// outside a test case give it a minimal stand-in instead.
#define SYNETK_TESTS_HARNESS_H_
#define REQUIRE(x)                                               \
  do {                                                           \
    if (!(x)) {                                                  \
      std::fprintf(stderr, "reference: %s failed\n", #x);        \
      std::abort();                                              \
    }                                                            \
  } while (0)
namespace synetk_test {
inline float DecodeSmallFloat(uint16_t bits, int expBits, int mantBits) {
  const int bias = (1 << (expBits - 1)) - 1;
  const bool neg = (bits >> (expBits + mantBits)) & 1;
  const int expField = (bits >> mantBits) & ((1 << expBits) - 1);
  const int mant = bits & ((1 << mantBits) - 1);
  double v;
  if (expField == (1 << expBits) - 1) {
    v = mant ? NAN : INFINITY;
  } else if (expField == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - bias - mantBits);
  } else {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -mantBits), expField - bias);
  }
  return static_cast<float>(neg ? -v : v);
}
}  // namespace synetk_test
#include "reference/pooling_ref.h"

using namespace synetk::simd;
using synetk_ref::PoolGeom;

namespace {

// One axis: kernel, stride, pad and a dst size that is usually the one a
// framework computes (floor or ceil mode), sometimes off by one or arbitrary.
void Axis(synetk_fuzz::Input& in, size_t src, size_t& k, size_t& s, size_t& p, size_t& d) {
  k = in.Range(0, 9);
  s = in.Range(0, 4);
  p = in.Range(0, 3) == 0 ? in.Range(0, 10) : (k > 0 ? in.Range(0, k - 1) : 0);
  const long long span = static_cast<long long>(src + 2 * p) - static_cast<long long>(k);
  long long dd = (s == 0 || span < 0) ? 1 : span / static_cast<long long>(s) + 1;
  switch (in.Range(0, 7)) {
    case 0: dd = static_cast<long long>(in.Range(0, 30)); break;
    case 1: dd += 1; break;  // ceil mode or one too many
    case 2: dd -= 1; break;
    default: break;
  }
  d = dd < 0 ? 0 : static_cast<size_t>(dd);
}

// Whether the window of output (dc, dy, dx) holds a NaN (max over NaN depends
// on the comparison order, so the value is not checked there).
template <typename T, class IsNan>
bool WindowHasNan(const std::vector<T>& src, const PoolGeom& g, bool nhwc, size_t dc, size_t dy,
                  size_t dx, IsNan isNan) {
  long long cB, cE, yB, yE, xB, xE;
  synetk_ref::PoolClip(dc, g.sC, g.pC, g.kC, g.srcC, cB, cE);
  synetk_ref::PoolClip(dy, g.sY, g.pY, g.kY, g.srcH, yB, yE);
  synetk_ref::PoolClip(dx, g.sX, g.pX, g.kX, g.srcW, xB, xE);
  for (long long c = cB; c < cE; ++c)
    for (long long y = yB; y < yE; ++y)
      for (long long x = xB; x < xE; ++x)
        if (isNan(src[synetk_ref::PoolAt(nhwc, c, y, x, g.srcC, g.srcH, g.srcW)])) return true;
  return false;
}

template <typename T>
void Guard(const std::vector<T>& before, const std::vector<T>& after) {
  if (std::memcmp(before.data(), after.data(), before.size() * sizeof(T)) != 0) {
    std::fprintf(stderr, "rejected call wrote to its buffers\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  synetk_fuzz::Input in(data, size);
  const int fn = static_cast<int>(in.Range(0, 3));  // Average, Max32f, Max16b, Max8u
  const synetk_fuzz::FormatDraw fd = synetk_fuzz::DrawFormat(in);
  const auto format = SimdTensorFormatType(fd.value);
  const bool nhwc = fd.nhwc;
  PoolGeom g;
  g.srcC = in.Range(0, 20);
  g.srcH = in.Range(0, 24);
  g.srcW = in.Range(0, 24);
  Axis(in, g.srcH, g.kY, g.sY, g.pY, g.dstH);
  Axis(in, g.srcW, g.kX, g.sX, g.pX, g.dstW);
  g.kC = 1, g.sC = 1, g.pC = 0, g.dstC = g.srcC;
  if (fn == 1) {
    const size_t mode = in.Range(0, 3);
    if (mode == 0) Axis(in, g.srcC, g.kC, g.sC, g.pC, g.dstC);  // 3D (or a 2D one spelled out)
    if (mode == 1) g.dstC = in.Range(0, 22);                    // 2D with maybe dstC != srcC
  }
  const bool excludePad = in.Bool();
  const bool pool3d = !(g.kC == 1 && g.sC == 1 && g.pC == 0);
  // Average and 2D max pooling write srcC channels.
  if (fn != 1 || !pool3d) g.dstC = fn == 1 ? g.dstC : g.srcC;
  const size_t srcN = g.SrcSize();
  const size_t dstN = (fn == 1 ? g.dstC : g.srcC) * g.dstH * g.dstW;
  char context[200];
  std::snprintf(context, sizeof(context),
                "pooling fn %d %s C=%zu H=%zu W=%zu k=%zu,%zu,%zu s=%zu,%zu,%zu p=%zu,%zu,%zu dst=%zu,%zu,%zu ex=%d", fn,
                nhwc ? "NHWC" : "NCHW", g.srcC, g.srcH, g.srcW, g.kC, g.kY, g.kX, g.sC, g.sY, g.sX, g.pC, g.pY, g.pX,
                g.dstC, g.dstH, g.dstW, excludePad);

  if (fn == 0 || fn == 1) {
    std::vector<float> src(srcN), dst(dstN + 1);
    for (auto& v : src) v = in.Float();
    for (auto& v : dst) v = in.Float();
    const std::vector<float> before = dst;
    try {
      if (fn == 0)
        SimdSynetPoolingAverage(src.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX, g.pY, g.pX, dst.data(),
                                g.dstH, g.dstW, excludePad ? SimdTrue : SimdFalse, format);
      else
        SimdSynetPoolingMax32f(src.data(), g.srcC, g.srcH, g.srcW, g.kC, g.kY, g.kX, g.sC, g.sY, g.sX, g.pC, g.pY,
                               g.pX, dst.data(), g.dstC, g.dstH, g.dstW, format);
    } catch (const synetk::Error&) {
      Guard(before, dst);
      return 0;
    }
    // The element past the output is never written.
    if (std::memcmp(&dst[dstN], &before[dstN], sizeof(float)) != 0) synetk_fuzz::Mismatch(context, dstN, dst[dstN], before[dstN]);
    if (fn == 0) {
      std::vector<double> mag;
      const auto ref = synetk_ref::PoolAverage(src, g, excludePad, nhwc, mag);
      // Huge finite inputs can overflow the fp32 window sum that the double
      // reference keeps finite; then only safety is checked.
      bool overflowRisk = false;
      for (float x : src) overflowRisk |= std::isfinite(x) && std::fabs(x) > 1e30f;
      const double n = std::min<double>(double(g.kY) * double(g.kX), double(g.srcH) * double(g.srcW));
      for (size_t i = 0; i < dstN; ++i) {
        if (overflowRisk || (std::isfinite(mag[i]) && mag[i] >= 1e37)) continue;
        const double r = static_cast<float>(ref[i]);
        const double tol = (n + 2) * std::ldexp(1.0, -24) * mag[i] + std::ldexp(1.0, -23) * std::fabs(r) + 1e-30;
        if (!synetk_fuzz::Close(dst[i], r, tol)) synetk_fuzz::Mismatch(context, i, dst[i], r);
      }
    } else {
      const auto ref = synetk_ref::PoolMax(src, g, nhwc);
      for (size_t dc = 0; dc < g.dstC; ++dc)
        for (size_t dy = 0; dy < g.dstH; ++dy)
          for (size_t dx = 0; dx < g.dstW; ++dx) {
            const size_t i = synetk_ref::PoolAt(nhwc, dc, dy, dx, g.dstC, g.dstH, g.dstW);
            if (WindowHasNan(src, g, nhwc, dc, dy, dx, [](float v) { return std::isnan(v); })) continue;
            // Bit-exact, except that a +0/-0 tie may give either zero (docs/pooling.md).
            if (std::memcmp(&dst[i], &ref[i], 4) != 0 && !(dst[i] == 0.0f && ref[i] == 0.0f))
              synetk_fuzz::Mismatch(context, i, dst[i], ref[i]);
          }
    }
    return 0;
  }
  if (fn == 2) {
    std::vector<hwy::bfloat16_t> src(srcN), dst(dstN + 1);
    for (auto& v : src) v.bits = in.Range(0, 3) == 0 ? in.Raw<uint16_t>() : [&] {
      const float f = in.Float();
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return static_cast<uint16_t>(b >> 16);
    }();
    for (auto& v : dst) v.bits = in.Raw<uint16_t>();
    const std::vector<hwy::bfloat16_t> before = dst;
    try {
      SimdSynetPoolingMax16b(reinterpret_cast<const uint16_t*>(src.data()), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY,
                             g.sX, g.pY, g.pX, reinterpret_cast<uint16_t*>(dst.data()), g.dstH, g.dstW, format);
    } catch (const synetk::Error&) {
      Guard(before, dst);
      return 0;
    }
    if (dst[dstN].bits != before[dstN].bits) synetk_fuzz::Mismatch(context, dstN, dst[dstN].bits, before[dstN].bits);
    const auto ref = synetk_ref::PoolMax(src, g, nhwc);
    auto isNan = [](hwy::bfloat16_t v) { return (v.bits & 0x7F80) == 0x7F80 && (v.bits & 0x7F) != 0; };
    for (size_t c = 0; c < g.srcC; ++c)
      for (size_t dy = 0; dy < g.dstH; ++dy)
        for (size_t dx = 0; dx < g.dstW; ++dx) {
          const size_t i = synetk_ref::PoolAt(nhwc, c, dy, dx, g.srcC, g.dstH, g.dstW);
          if (WindowHasNan(src, g, nhwc, c, dy, dx, isNan)) continue;
          const bool zeroTie = (dst[i].bits & 0x7FFF) == 0 && (ref[i].bits & 0x7FFF) == 0;
          if (dst[i].bits != ref[i].bits && !zeroTie) synetk_fuzz::Mismatch(context, i, dst[i].bits, ref[i].bits);
        }
    return 0;
  }
  // fn == 3: uint8, exact.
  std::vector<uint8_t> src(srcN), dst(dstN + 1);
  for (auto& v : src) v = in.Raw<uint8_t>();
  for (auto& v : dst) v = in.Raw<uint8_t>();
  const std::vector<uint8_t> before = dst;
  try {
    SimdSynetPoolingMax8u(src.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX, g.pY, g.pX, dst.data(), g.dstH,
                          g.dstW, format);
  } catch (const synetk::Error&) {
    Guard(before, dst);
    return 0;
  }
  if (dst[dstN] != before[dstN]) synetk_fuzz::Mismatch(context, dstN, dst[dstN], before[dstN]);
  const auto ref = synetk_ref::PoolMax(src, g, nhwc);
  for (size_t i = 0; i < dstN; ++i)
    if (dst[i] != ref[i]) synetk_fuzz::Mismatch(context, i, dst[i], ref[i]);
  return 0;
}

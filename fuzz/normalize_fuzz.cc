// Copyright synetk authors. SPDX-License-Identifier: MIT
// libFuzzer target: the normalize layers through synetk::simd
// (SimdSynetNormalizeLayerForward, V2, V3, V4). The fuzzer picks version,
// format (incl. invalid values), shape (incl. zero sizes), acrossSpatial,
// eps (incl. negative, NaN, inf, 0, denormal, huge), values (NaN, inf,
// denormals, huge), in place or not, and the optional scratch buf (null, the
// original's size, or overlapping dst). A call must match the scalar
// reference within the tests' tolerance or throw synetk::Error with its
// buffers unchanged, never crash or touch memory outside the buffers.
#include <cstdio>
#include <vector>

#include "fuzz_input.h"
#include "reference/normalize_ref.h"
#include "synetk/simd.h"

using namespace synetk::simd;

namespace {

// The tests' tolerance (tests/normalize_test.cc, fp32 output).
double Tol(const synetk_ref::NormOut& ref, size_t i) {
  return 2e-5 * ref.mag[i] + std::ldexp(1.0, -23) * std::fabs(ref.val[i]) + 1e-30;
}

// Sum of squares (V1, V4) or variance (V2, V3) of the reduction element
// (b, c, s) belongs to, in double: where it is tiny but not zero, the fp32
// squares of denormal/tiny inputs underflow (to 0 or to few bits) where the
// double reference keeps them, and the normalizing factor legitimately
// differs, so the value is not checked there.
bool TinyReduction(int version, const std::vector<float>& src, size_t B, size_t C, size_t S, bool across,
                   bool nhwc, size_t b, size_t c, size_t s) {
  using synetk_ref::NormAt;
  auto tiny = [](double v) { return v > 0.0 && v < 1e-28; };
  double sq = 0;
  if (version == 1) {
    if (across) {
      for (size_t k = 0; k < C; ++k)
        for (size_t t = 0; t < S; ++t) sq += double(src[NormAt(nhwc, b, k, t, C, S)]) * src[NormAt(nhwc, b, k, t, C, S)];
    } else {
      for (size_t k = 0; k < C; ++k) sq += double(src[NormAt(nhwc, b, k, s, C, S)]) * src[NormAt(nhwc, b, k, s, C, S)];
    }
    return tiny(sq);
  }
  if (version == 4) {
    // Any channel of the batch item feeds the mean of the norms.
    for (size_t k = 0; k < C; ++k) {
      sq = 0;
      for (size_t t = 0; t < S; ++t) sq += double(src[NormAt(nhwc, b, k, t, C, S)]) * src[NormAt(nhwc, b, k, t, C, S)];
      if (tiny(sq)) return true;
    }
    return false;
  }
  const bool overC = version == 2;
  const size_t inner = overC ? C : S;
  auto at = [&](size_t v) { return overC ? NormAt(nhwc, b, v, s, C, S) : NormAt(nhwc, b, c, v, C, S); };
  double sum = 0;
  for (size_t v = 0; v < inner; ++v) sum += src[at(v)];
  const double mean = sum / inner;
  for (size_t v = 0; v < inner; ++v) sq += (src[at(v)] - mean) * (src[at(v)] - mean);
  return tiny(sq / inner);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  synetk_fuzz::Input in(data, size);
  const int version = static_cast<int>(in.Range(1, 4));
  const synetk_fuzz::FormatDraw fd = synetk_fuzz::DrawFormat(in);
  const auto format = SimdTensorFormatType(fd.value);
  const bool nhwc = fd.nhwc, formatOk = fd.ok;
  const size_t B = in.Range(0, 9) == 0 ? 0 : in.Range(1, 3);
  const size_t C = in.Range(0, 9) == 0 ? 0 : in.Range(1, 40);
  const size_t S = in.Range(0, 9) == 0 ? 0 : in.Range(1, 40);
  const bool across = in.Bool();
  float eps;
  switch (in.Range(0, 3)) {
    case 0: eps = in.Float(); break;
    case 1: eps = -static_cast<float>(in.Range(0, 100)) * 1e-6f; break;  // negative (or -0)
    case 2: eps = 0.0f; break;
    default: eps = static_cast<float>(in.Range(1, 1000)) * 1e-6f;
  }
  const size_t n = B * C * S;
  std::vector<float> src(n + 1), out(n + 1), scale(C + 1), shift(C + 1);
  for (auto& v : src) v = in.Float();
  for (auto& v : out) v = in.Float();
  for (size_t c = 0; c < C; ++c) {
    scale[c] = in.Range(0, 2) == 0 ? in.Float() : static_cast<float>(in.Raw<int16_t>()) / 8192.0f;
    shift[c] = in.Range(0, 2) == 0 ? in.Float() : static_cast<float>(in.Raw<int16_t>()) / 8192.0f;
  }
  const bool inPlace = in.Range(0, 3) == 0;
  float* dst = inPlace ? src.data() : out.data();
  // buf: null, the original's size (spatial floats for V1/V2, channels for
  // V3/V4) with a guard after it, or the dst buffer itself.
  const size_t bufSize = version <= 2 ? S : C;
  std::vector<float> bufVec(bufSize + 1, 1234.5f);
  const size_t bufMode = in.Range(0, 7);
  float* buf = bufMode == 0 ? nullptr : bufMode == 1 ? dst : bufVec.data();
  const std::vector<float> saved(src.begin(), src.begin() + n);
  const std::vector<float> srcBefore = src, outBefore = out;
  char context[200];
  std::snprintf(context, sizeof(context), "normalize V%d %s B=%zu C=%zu S=%zu across=%d eps=%g %s buf %zu", version,
                nhwc ? "NHWC" : "NCHW", B, C, S, across, eps, inPlace ? "in place" : "", bufMode);
  try {
    switch (version) {
      case 1:
        SimdSynetNormalizeLayerForward(src.data(), B, C, S, scale.data(), &eps, across ? SimdTrue : SimdFalse, format,
                                       buf, dst);
        break;
      case 2: SimdSynetNormalizeLayerForwardV2(src.data(), B, C, S, scale.data(), shift.data(), &eps, format, buf, dst); break;
      case 3: SimdSynetNormalizeLayerForwardV3(src.data(), B, C, S, scale.data(), shift.data(), &eps, format, buf, dst); break;
      case 4: SimdSynetNormalizeLayerForwardV4(src.data(), B, C, S, scale.data(), shift.data(), &eps, format, buf, dst); break;
    }
  } catch (const synetk::Error&) {
    if (std::memcmp(src.data(), srcBefore.data(), src.size() * 4) != 0 ||
        std::memcmp(out.data(), outBefore.data(), out.size() * 4) != 0) {
      std::fprintf(stderr, "%s: rejected call wrote to its buffers\n", context);
      std::abort();
    }
    // A valid call without overlapping scratch must not be rejected.
    if (formatOk && n > 0 && eps >= 0.0f && std::isfinite(eps) && bufMode != 1) {
      std::fprintf(stderr, "%s: valid call rejected\n", context);
      std::abort();
    }
    return 0;
  }
  if (!formatOk || n == 0 || !(eps >= 0.0f) || !std::isfinite(eps)) {
    std::fprintf(stderr, "%s: invalid call accepted\n", context);
    std::abort();
  }
  // Nothing past the tensor or the scratch is written.
  if (std::memcmp(&dst[n], inPlace ? &srcBefore[n] : &outBefore[n], 4) != 0) synetk_fuzz::Mismatch(context, n, dst[n], 0);
  if (bufVec[bufSize] != 1234.5f) synetk_fuzz::Mismatch(context, bufSize, bufVec[bufSize], 1234.5);
  if (!inPlace && std::memcmp(src.data(), srcBefore.data(), src.size() * 4) != 0) {
    std::fprintf(stderr, "%s: src changed\n", context);
    std::abort();
  }
  synetk_ref::NormOut ref(0);
  if (version == 1) ref = synetk_ref::NormalizeV1(saved, B, C, S, scale.data(), eps, across, nhwc);
  else if (version == 4) ref = synetk_ref::NormalizeV4(saved, B, C, S, scale.data(), shift.data(), eps, nhwc);
  else ref = synetk_ref::NormalizeV23(version, saved, B, C, S, scale.data(), shift.data(), eps, nhwc);
  // Huge finite inputs overflow fp32 squares and sums (|x| > 1.8e19 squares
  // to inf) that the double reference keeps finite; then only safety is
  // checked. Likewise huge eps, scale or shift.
  bool overflowRisk = std::fabs(eps) > 1e30f;
  for (float x : saved) overflowRisk |= std::isfinite(x) && std::fabs(x) > 1e18f;
  for (size_t c = 0; c < C; ++c)
    overflowRisk |= (std::isfinite(scale[c]) && std::fabs(scale[c]) > 1e30f) ||
                    (std::isfinite(shift[c]) && std::fabs(shift[c]) > 1e30f);
  if (overflowRisk) return 0;
  // TinyReduction per reduction (cached: it walks the whole reduction).
  std::vector<signed char> tiny(B * (C + S) + B, -1);
  auto isTiny = [&](size_t b, size_t c, size_t s) {
    const size_t key = (version == 1 && across) || version == 4 ? b
                       : version == 3                           ? B + b * C + c
                                                                : B + B * C + b * S + s;
    if (tiny[key] < 0) tiny[key] = TinyReduction(version, saved, B, C, S, across, nhwc, b, c, s);
    return tiny[key] != 0;
  };
  for (size_t b = 0; b < B; ++b)
    for (size_t c = 0; c < C; ++c)
      for (size_t s = 0; s < S; ++s) {
        const size_t i = synetk_ref::NormAt(nhwc, b, c, s, C, S);
        if (std::isfinite(ref.mag[i]) && ref.mag[i] >= 1e37) continue;  // fp32 intermediates at the range limit
        if (isTiny(b, c, s)) continue;
        const double r = static_cast<float>(ref.val[i]);
        if (!synetk_fuzz::Close(dst[i], r, Tol(ref, i))) synetk_fuzz::Mismatch(context, i, dst[i], r);
      }
  return 0;
}
